/* cudadefs.c -- a noweb filter that indexes the functions, kernels, macros and constants a CUDA chunk defines. */
/* usage: nwmarkup x.nw | cudadefs | finduses | noidx | nw2md. noweb's autodefs.c misses "__global__ void
 * plain(" and knows nothing of __device__. Each code line at brace depth 0 that defines a function or
 * kernel (no prototype), a macro, a constant or variable (const, constexpr, __constant__, __device__;
 * several after one type), a struct, class or enum gets "@index defn NAME" after it. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include "tool.h"

static const char *not_names[] = {
    "if", "for", "while", "switch", "return", "sizeof", "else", "do", "case", "goto", "new",
    "delete", "throw", "using", "typedef", "namespace", "template", "operator", NULL};

static int listed(const char *w, size_t n, const char **list)
{
    for (int i = 0; list[i]; i++)
        if (strlen(list[i]) == n && strncmp(list[i], w, n) == 0)
            return 1;
    return 0;
}

#define IDENT "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

static void defn(const char *w, size_t n) { if (n > 0) printf("@index defn %.*s\n", (int)n, w); }

/* The names after the first in "const float A = 1, B = 2;": each follows a comma outside brackets. */
static void more_declarators(const char *p)
{
    for (int d = 0; *p && *p != ';'; p++) {
        d += *p == '(' || *p == '{' || *p == '[' ? 1 : *p == ')' || *p == '}' || *p == ']' ? -1 : 0;
        const char *w = p + 1 + strspn(p + 1, " \t*");
        if (*p == ',' && d == 0 && !isdigit((unsigned char)*w))
            defn(w, strspn(w, IDENT));
    }
}

/* Looks at one whole code line that begins at depth 0 and prints what it defines. */
static void definitions(const char *s)
{
    s += strspn(s, " \t");
    if (strncmp(s, "#define", 7) == 0 && isspace((unsigned char)s[7])) {
        s += 7 + strspn(s + 7, " \t\n\v\f\r");
        defn(s, strspn(s, IDENT));
        return;
    }
    if (*s == '#' || *s == '/' || *s == '}' || *s == '\0')
        return;
    const char *word[32], *p = s;
    size_t len[32];
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
        word[words] = p;
        len[words] = strspn(p, IDENT);
        p += len[words];
        if (words == 0 && listed(word[0], len[0], not_names) && strncmp(word[0], "template", 8) != 0)
            return;
        words++;
    }
    if (words < 2)
        return;
    static const char *types[] = {"struct", "class", "enum", NULL};
    if (listed(word[0], len[0], types)) {
        int k = words >= 3 && listed(word[1], len[1], types);  /* enum class NAME: the name comes third */
        defn(word[1 + k], len[1 + k]);
        return;
    }
    const char *name = word[words - 1];
    size_t n = len[words - 1];
    if (listed(name, n, not_names))
        return;
    const char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    if (*p == '(') {  /* a function: its definition does not end the line with ';' */
        if (n == 4 && strncmp(name, "main", 4) == 0)
            return;  /* every program has one: indexing it would link them all together */
        if (end > s && end[-1] != ';')
            defn(name, n);
        return;
    }
    if (*p == '=' || *p == ';' || *p == '[') {  /* a constant or a device variable */
        static const char *kinds[] = {"const", "constexpr", "__constant__", "__device__", NULL};
        for (int i = 0; i < words - 1; i++)
            if (listed(word[i], len[i], kinds)) {
                defn(name, n);
                more_declarators(p);
                return;
            }
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
        } else if (*s == '{') {
            depth++;
        } else if (*s == '}' && depth > 0) {
            depth--;
        }
    }
}

int main(void)
{
    char *line = NULL, *text = NULL;
    size_t cap = 0, tlen = 0;
    ssize_t n;
    int in_code = 0, start_depth = 0;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        fputs(line, stdout);
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (strncmp(line, "@begin code", 11) == 0) {
            in_code = 1, depth = 0, in_comment = 0, tlen = 0, start_depth = 0;
        } else if (strncmp(line, "@end code", 9) == 0) {
            in_code = 0;
        } else if (in_code && (strncmp(line, "@text ", 6) == 0 || strncmp(line, "@use ", 5) == 0)) {
            /* A use stands for code we cannot see here; count it as a word. */
            char *more = fmt("%.*s%s", (int)tlen, tlen ? text : "", line[1] == 't' ? line + 6 : "CHUNK");
            free(text);
            tlen = strlen(text = more);
        } else if (in_code && strcmp(line, "@nl") == 0) {
            if (tlen > 0) {
                if (start_depth == 0 && !in_comment)
                    definitions(text);
                scan(text);
            }
            tlen = 0;
            start_depth = depth;
        }
    }
    free(line);
    free(text);
    if (ferror(stdin)) {
        fprintf(stderr, "cudadefs: cannot read the pipeline\n");
        return 1;
    }
    return ferror(stdout) ? 1 : 0;
}
