/* cudadefs.c -- a noweb filter that indexes the functions, kernels, macros and constants a CUDA chunk
 * defines. usage: nwmarkup x.nw | cudadefs | finduses | noidx | nw2md. noweb's autodefs.c misses
 * "__global__ void plain(" and knows nothing of __device__. Each code line at brace depth 0 that defines
 * a function or kernel (no prototype), a macro, a constant or variable (const, constexpr, __constant__,
 * __device__; several after one type), a struct, class or enum gets "@index defn NAME" after it. */
#include <ctype.h>
#include "tool.h"

#define IDENT "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
static const char *not_names = " if for while switch return sizeof else do case goto new delete throw using "
                               "typedef namespace template operator ";
static const char *types = " struct class enum ";

/* Whether the identifier at w is one of the words of list (" A B ... "). */
static int listed(const char *w, const char *list)
{
    char key[64];   /* a longer name, cut, is in no list */
    snprintf(key, sizeof key, " %.*s ", (int)strspn(w, IDENT), w);
    return strstr(list, key) != NULL;
}

static void defn(const char *w)   /* the name that starts at w, if one does */
{
    if (strspn(w, IDENT) > 0)
        printf("@index defn %.*s\n", (int)strspn(w, IDENT), w);
}

/* The names after the first in "const float A = 1, B = 2;": each follows a comma outside brackets. */
static void more_declarators(const char *p)
{
    for (int d = 0; *p && *p != ';'; p++) {
        d += *p == '(' || *p == '{' || *p == '[' ? 1 : *p == ')' || *p == '}' || *p == ']' ? -1 : 0;
        const char *w = p + 1 + strspn(p + 1, " \t*");
        if (*p == ',' && d == 0 && !isdigit((unsigned char)*w))
            defn(w);
    }
}

/* Looks at one whole code line that begins at depth 0 and prints what it defines. */
static void definitions(const char *s)
{
    s += strspn(s, " \t");
    if (strncmp(s, "#define", 7) == 0 && isspace((unsigned char)s[7]))
        defn(s + 7 + strspn(s + 7, " \t\n\v\f\r"));   /* a macro; then, as at every # line, nothing more */
    if (*s == '#' || *s == '/' || *s == '}' || *s == '\0')
        return;
    const char *word[32], *p = s;
    int words = 0;
    for (;;) {  /* collect the leading words, skipping pointers, references and template arguments */
        p += strspn(p, " \t*&");
        if (*p == '<') {  /* template<...> or a type's arguments */
            int d = 0;
            do
                d += *p == '<' ? 1 : *p == '>' ? -1 : 0;
            while (*++p && d > 0);
            continue;
        }
        if (!strspn(p, IDENT) || isdigit((unsigned char)*p) || words == 32)
            break;
        if (words == 0 && listed(p, not_names) && !listed(p, " template "))
            return;
        word[words++] = p;
        p += strspn(p, IDENT);
    }
    if (words < 2)
        return;
    if (listed(word[0], types)) {  /* enum class NAME: the name comes third */
        defn(word[words >= 3 && listed(word[1], types) ? 2 : 1]);
        return;
    }
    const char *name = word[words - 1], *semi = strrchr(s, ';');
    if (listed(name, not_names))
        return;
    if (*p == '(') {  /* a function: its definition does not end the line with ';' (and blanks); not main, */
        if (!listed(name, " main ") && (!semi || semi[1 + strspn(semi + 1, " \t\n\v\f\r")]))
            defn(name);   /* which every program has: indexing it would link them all together */
        return;
    }
    if (*p == '=' || *p == ';' || *p == '[')  /* a constant or a device variable */
        for (int i = 0; i < words - 1; i++)
            if (listed(word[i], " const constexpr __constant__ __device__ ")) {
                defn(name);
                more_declarators(p);
                return;
            }
}

/* Tracks braces outside comments, strings and character literals. */
static int depth, in_comment;

static void scan(const char *s)
{
    char quote = 0;
    for (; *s; s++) {
        if (in_comment) {
            if (s[0] == '*' && s[1] == '/')
                in_comment = 0, s++;
        } else if (quote) {
            if (*s == '\\' && s[1])
                s++;
            else if (*s == quote)
                quote = 0;
        } else if (s[0] == '/' && s[1] == '/') {
            return;
        } else if (s[0] == '/' && s[1] == '*') {
            in_comment = 1, s++;
        } else if (*s == '"' || *s == '\'') {
            quote = *s;
        } else {   /* a brace: '{' opens, '}' closes (none below depth 0) */
            depth += (*s == '{') - (*s == '}' && depth > 0);
        }
    }
}

int main(void)
{
    char *line = NULL, *text = fmt("");   /* the code line so far */
    size_t cap = 0;
    int in_code = 0, start_depth = 0;
    while (getline(&line, &cap, stdin) != -1) {
        fputs(line, stdout);
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "@begin code", 11) == 0) {
            in_code = 1, depth = 0, in_comment = 0, *text = '\0', start_depth = 0;
        } else if (strncmp(line, "@end code", 9) == 0) {
            in_code = 0;
        } else if (in_code && (strncmp(line, "@text ", 6) == 0 || strncmp(line, "@use ", 5) == 0)) {
            /* A use stands for code we cannot see here; count it as a word. */
            text = xrealloc(text, strlen(text) + strlen(line) + 6);   /* room for its text, or CHUNK */
            strcat(text, line[1] == 't' ? line + 6 : "CHUNK");
        } else if (in_code && strcmp(line, "@nl") == 0) {
            if (start_depth == 0 && !in_comment)
                definitions(text);
            scan(text);
            *text = '\0';
            start_depth = depth;
        }
    }
    if (ferror(stdin) || fflush(stdout) != 0 || ferror(stdout)) {  /* (its memory goes back at the exit) */
        fprintf(stderr, "cudadefs: cannot %s the pipeline\n", ferror(stdin) ? "read" : "write");
        return 1;
    }
    return 0;
}
