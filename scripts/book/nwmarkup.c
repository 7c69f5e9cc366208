/* nwmarkup.c -- noweb's markup for CUDA: turns .nw files into noweb's pipeline, <<< and >>> left as text. */
/*
 * Stock noweb reads every "<<" as the start of a chunk name, so a kernel launch such as
 * k<<<grid, block>>>(x) becomes a reference to a chunk called "<grid, block". This front end
 * emits the same pipeline as noweb's markup (see noweb's hacker's guide) with one rule changed:
 * a chunk name never starts with '<' or a blank. Launches and shifts (a << 2) stay text, in code
 * and in prose, and authors write them verbatim.
 *
 * usage: nwmarkup FILE.nw...   (writes the pipeline to standard output)
 * A line that begins with "<<name" but never closes the name, an indented "<<name>>=", a NUL
 * byte and text that is not UTF-8 are errors, reported as FILE:LINE, and the exit status is 1
 * so that nothing downstream uses half a pipeline. "@<<" stands for "<<", in code and in prose.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>

static const char *file;  /* the file being read, for messages */
static long lineno;
static int errors;

static void error(const char *what)
{
    fprintf(stderr, "%s:%ld: %s\n", file, lineno, what);
    errors++;
}

/* A chunk name may start with anything but '<' (a launch's third '<'), '=' or a blank. */
static int name_start(char c) { return c != '\0' && c != '<' && c != '=' && !isspace((unsigned char)c); }

static void emit_text(const char *s, size_t n) { if (n > 0) printf("@text %.*s\n", (int)n, s); }

/* A definition line is "<<name>>=" alone on its line, trailing blanks allowed. */
static int is_definition(const char *line, const char **name, size_t *len)
{
    if (line[0] != '<' || line[1] != '<' || !name_start(line[2]))
        return 0;
    const char *end = strstr(line + 2, ">>");
    if (end == NULL || end[2] != '=' || end[3 + strspn(end + 3, " \t\n\v\f\r")] != '\0')
        return 0;
    *name = line + 2;
    *len = (size_t)(end - (line + 2));
    return 1;
}

/* The position of the first byte of s[0..n) that is a NUL or not well-formed UTF-8, or n. */
static size_t bad_byte(const unsigned char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k + 1) {
        k = s[i] < 0x80 ? 0 : s[i] < 0xE0 ? 1 : s[i] < 0xF0 ? 2 : 3;  /* the bytes that follow */
        if (s[i] == 0 || (s[i] >= 0x80 && s[i] < 0xC2) || s[i] >= 0xF5)
            return i;
        for (size_t j = 1; j <= k; j++)
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80)
                return i;
    }
    return n;
}

/* A line of code, where chunk references become @use and everything else, launches included, is @text,
 * or of prose, where [[code]] is quoted code and "<<" is plain text (launches in inline code). */
static void text_line(const char *s, int code)
{
    const char *line = s, *start = s, *end;
    while (*s) {
        if (s[0] == '@' && s[1] == '<' && s[2] == '<') {  /* noweb's escape still works */
            emit_text(start, (size_t)(s - start));
            start = s + 1;
            s += 3;
        } else if (!code && s[0] == '[' && s[1] == '[') {
            if ((end = strstr(s + 2, "]]")) == NULL)
                break;
            while (end[2] == ']')  /* [[a[i]]] quotes a[i] */
                end++;
            emit_text(start, (size_t)(s - start));
            printf("@quote\n");
            emit_text(s + 2, (size_t)(end - (s + 2)));
            printf("@endquote\n");
            s = start = end + 2;
        } else if (code && s[0] == '<' && s[1] == '<' && s[2] == '<') {  /* a launch: its '<'s are text */
            s += strspn(s, "<");
        } else if (code && s[0] == '<' && s[1] == '<' && name_start(s[2]) && (end = strstr(s + 2, ">>"))) {
            emit_text(start, (size_t)(s - start));
            printf("@use %.*s\n", (int)(end - (s + 2)), s + 2);
            s = start = end + 2;
        } else if (code && s[0] == '<' && s[1] == '<') {
            /* No closing ">>": a shift, unless the line is only a reference gone wrong. */
            if (line + strspn(line, " \t") == s && name_start(s[2])) {
                char msg[512];
                snprintf(msg, sizeof msg, "unterminated chunk name: expected '>>' to close '%.40s'", s);
                error(msg);
            }
            s += 2;
        } else
            s++;
    }
    emit_text(start, (size_t)(s - start));
}

static void markup(const char *path)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    file = path;
    lineno = 0;
    if (f == NULL) {
        fprintf(stderr, "nwmarkup: %s: cannot open the chapter: %s\n", path, strerror(errno));
        errors++;
        return;
    }
    static int chunk = 0;  /* chunk numbers run on across files, as in noweb */
    int in_code = 0;
    char *line = NULL, msg[96];
    size_t cap = 0;
    ssize_t n;
    printf("@file %s\n@begin docs %d\n", path, chunk);
    while ((n = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        const char *name, *indent = line + strspn(line, " \t");
        size_t len, bad = bad_byte((const unsigned char *)line, (size_t)n);
        if (bad < (size_t)n) {
            snprintf(msg, sizeof msg, "%s at column %zu: a chapter is UTF-8 text",
                     line[bad] ? "a byte that is not UTF-8" : "a NUL byte", bad + 1);
            error(msg);
            continue;
        }
        if (indent != line && is_definition(indent, &name, &len))
            error("an indented '<<name>>=': a chunk's definition starts its line ('@<<' in prose shows '<<')");
        else if (is_definition(line, &name, &len)) {
            printf("@end %s %d\n", in_code ? "code" : "docs", chunk);
            printf("@begin code %d\n@defn %.*s\n@nl\n", ++chunk, (int)len, name);
            in_code = 1;
            continue;
        }
        const char *close = strstr(line, ">>");
        if (line[0] == '<' && line[1] == '<' && name_start(line[2]) && !(in_code && close)) {
            error(close ? "expected '<<name>>=' to start a code chunk; found a chunk reference in prose" :
                  "unterminated chunk name: a line that starts with '<<' must be '<<name>>=' or '<<name>>'");
            continue;
        }
        if (line[0] == '@' && (line[1] == '\0' || line[1] == ' ' || line[1] == '\t')) {
            char *rest = line[1] ? line + 2 : line + 1, *save = NULL;
            int def = in_code && strncmp(rest, "%def", 4) == 0 &&
                      (rest[4] == '\0' || isspace((unsigned char)rest[4]));
            if (def) {
                for (char *id = strtok_r(rest + 4, " \t", &save); id; id = strtok_r(NULL, " \t", &save))
                    printf("@index defn %s\n", id);
                printf("@index nl\n");
            }
            printf("@end %s %d\n@begin docs %d\n", in_code ? "code" : "docs", chunk, chunk + 1);
            chunk++;
            in_code = 0;
            if (!def) {
                text_line(rest, 0);
                printf("@nl\n");
            }
            continue;
        }
        text_line(line[0] == '@' && line[1] == '@' ? line + 1 : line, in_code);  /* a leading "@@" is "@" */
        printf("@nl\n");
    }
    printf("@end %s %d\n", in_code ? "code" : "docs", chunk++);
    free(line);
    if (ferror(f)) {
        fprintf(stderr, "nwmarkup: %s: cannot read the chapter: %s\n", path, strerror(errno));
        errors++;
    }
    if (f != stdin)
        fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nwmarkup FILE.nw...\n");
        return 2;
    }
    for (int i = 1; i < argc; i++)
        markup(argv[i]);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nwmarkup: cannot write the pipeline: %s\n", strerror(errno));
        return 1;
    }
    return errors ? 1 : 0;
}
