/* nwmarkup.c -- noweb's markup for CUDA: turns .nw files into noweb's pipeline, <<< and >>> left as text. */
/* usage: nwmarkup FILE.nw... > PIPELINE. Stock noweb reads k<<<grid, block>>>(x) as a use of the chunk
 * "<grid, block"; here a chunk name never starts with '<' or a blank. The files are one web, checked
 * as notangle cannot: what it refuses, at FILE:LINE with exit 1, is listed in notes/design.md,
 * "Chapter syntax". */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include "tool.h"

#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

static const char *file;  /* the file being read, for messages */
static long lineno;
static int errors, nfile;
static struct chunk { int file; char *name; long line; int used; } *chunks;  /* a name's first definition */
static struct use { int chunk, file; char *name; long line; } *uses;        /* a use in a chunk's code */
static int nchunks, nuses, current = -1;                                   /* current: the chunk read */
static char **files;

static void error_at(const char *f, long line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%ld: ", f, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    errors++;
}
#define error(...) error_at(file, lineno, __VA_ARGS__)

static int find_chunk(const char *name, size_t len)
{
    for (int i = 0; i < nchunks; i++)
        if (strlen(chunks[i].name) == len && strncmp(chunks[i].name, name, len) == 0)
            return i;
    return -1;
}

/* A chunk name may start with anything but '<' (a launch's third '<'), '=' or a blank. */
static int name_start(char c) { return c != '\0' && c != '<' && c != '=' && !isspace((unsigned char)c); }

/* What TeX can set in the PDF: it reads a line of at most 200,000 bytes, and its dimensions end at
 * about 3,000 characters of code across and 1,500 lines down: a chapter keeps well inside them. */
enum { MAX_PROSE_LINE = 100000, MAX_CODE_LINE = 2000, MAX_CHUNK_LINES = 1000 };

static void emit_text(const char *s, size_t n) { if (n > 0) printf("@text %.*s\n", (int)n, s); }

/* A definition line is "<<name>>=" alone on its line, trailing blanks allowed ("<<<name>>=" too, to be
 * refused: a name cannot start with '<'). */
static int is_definition(const char *line, const char **name, size_t *len)
{
    if (line[0] != '<' || line[1] != '<' || !(name_start(line[2]) || line[2] == '<'))
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
    size_t i = 0, k;
    while (i < n && s[i] && utf8(s + i, &k) >= 0)
        i += k;
    return i;
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
            *PUSH(uses, nuses) = (struct use){current, nfile, xstrndup(s + 2, (size_t)(end - (s + 2))), lineno};
            s = start = end + 2;
        } else if (code && s[0] == '<' && s[1] == '<') {
            /* No closing ">>": a shift, unless the line is only a reference gone wrong. */
            if (line + strspn(line, " \t") == s && name_start(s[2]))
                error("unterminated chunk name: expected '>>' to close '%.40s'", s);
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
    int in_code = 0, titled = 0;
    long from = 0, ncode = 0;  /* the current chunk's definition line, and its lines so far */
    static char *line = NULL;  /* one buffer for every file, given back at the exit */
    static size_t cap = 0;
    ssize_t n;
    printf("@file %s\n@begin docs %d\n", path, chunk);
    current = -1;
    while ((n = getline(&line, &cap, f)) != -1) {
        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n > 0 && line[n - 1] == '\r')
            line[--n] = '\0';
        const char *name, *indent = line + strspn(line, " \t");
        size_t len, bad = bad_byte((const unsigned char *)line, (size_t)n);
        if (bad < (size_t)n) {
            error("%s at column %zu: a chapter is UTF-8 text", line[bad] ? "a byte that is not UTF-8" : "a NUL byte", bad + 1);
            continue;
        }
        if (n > (in_code ? MAX_CODE_LINE : MAX_PROSE_LINE))
            error("a %s line of %zd bytes, more than the %d that the PDF can set: break it", in_code ? "code" : "prose",
                  n, in_code ? MAX_CODE_LINE : MAX_PROSE_LINE);
        if (indent != line && is_definition(indent, &name, &len))
            error("an indented '<<name>>=': a chunk's definition starts its line ('@<<' in prose shows '<<')");
        else if (is_definition(line, &name, &len)) {
            if (*name == '<')
                error("a chunk name starts with '<', as no name can ('<<<' begins a launch): <<%.*s>>", (int)len, name);
            printf("@end %s %d\n", in_code ? "code" : "docs", chunk);
            printf("@begin code %d\n@defn %.*s\n@nl\n", ++chunk, (int)len, name);
            if (!titled && (titled = 1))
                error_at(file, 1, "expected a '# Title' heading before the first code chunk");
            in_code = 1, from = lineno, ncode = 0;
            if ((current = find_chunk(name, len)) < 0) {
                *PUSH(chunks, nchunks) = (struct chunk){nfile, xstrndup(name, len), lineno, 0};
                current = nchunks - 1;
            } else if (chunks[current].file != nfile)
                error("chunk <<%s>> is already defined at %s:%ld; a chunk name belongs to one chapter",
                      chunks[current].name, files[chunks[current].file], chunks[current].line);
            continue;
        }
        const char *close = strstr(line, ">>");
        if (line[0] == '<' && line[1] == '<' && name_start(line[2]) && !(in_code && close)) {
            error(close ? "expected '<<name>>=' to start a code chunk; found a chunk reference in prose" :
                  "unterminated chunk name: a line that starts with '<<' must be '<<name>>=' or '<<name>>'");
            continue;
        }
        const char *text = line[0] == '@' && line[1] == '@' ? line + 1 : line;  /* a leading "@@" is "@" */
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
            in_code = 0, current = -1;
            if (def)
                continue;
            text = rest;  /* prose after the '@' */
        }
        titled |= !in_code && strncmp(line, "# ", 2) == 0;
        if (in_code && ++ncode == MAX_CHUNK_LINES + 1)
            error_at(file, from, "a chunk of more than %d lines, more than the PDF can set in one block: split it",
                     MAX_CHUNK_LINES);
        text_line(text, in_code);
        printf("@nl\n");
    }
    printf("@end %s %d\n", in_code ? "code" : "docs", chunk++);
    if (!titled)
        error_at(file, 1, "expected a '# Title' heading, found none");
    if (ferror(f)) {
        fprintf(stderr, "nwmarkup: %s: cannot read the chapter: %s\n", path, strerror(errno));
        errors++;
    }
    if (f != stdin)
        fclose(f);
}

/* Depth-first over the uses; on a cycle, its path, once. state[c]: 0 unseen, 1 on the path, 2 done. */
static int *state, *path, depth;

static int visit(int c)
{
    if (state[c] == 2)
        return 0;
    if (state[c] == 1) {
        fprintf(stderr, "%s:%ld: cyclic chunk: ", files[chunks[c].file], chunks[c].line);
        for (int i = 0, on = 0; i < depth; i++)
            if ((on |= path[i] == c))   /* the cycle: the path from c on */
                fprintf(stderr, "<<%s>> -> ", chunks[path[i]].name);
        fprintf(stderr, "<<%s>>; a chunk cannot include itself\n", chunks[c].name);
        errors++;
        return 1;
    }
    state[c] = 1;
    path[depth++] = c;
    for (int i = 0, d; i < nuses; i++)
        if (uses[i].chunk == c && (d = find_chunk(uses[i].name, strlen(uses[i].name))) >= 0 && visit(d))
            return 1;
    depth--;
    state[c] = 2;
    return 0;
}

/* The checks of the whole web, once every file is read. */
static void check_web(void)
{
    for (int i = 0; i < nuses; i++) {
        int d = find_chunk(uses[i].name, strlen(uses[i].name));
        if (d < 0 || chunks[d].file > uses[i].file)
            error_at(files[uses[i].file], uses[i].line, "undefined chunk: <<%s>> is used here but no '<<%s>>=' "
                     "defines it in this chapter or an earlier one", uses[i].name, uses[i].name);
        else
            chunks[d].used = 1;
    }
    state = need(calloc((size_t)nchunks + 1, sizeof *state));
    path = need(calloc((size_t)nchunks + 1, sizeof *path));
    for (int c = 0; c < nchunks && errors == 0; c++)
        visit(c);
    for (int c = 0; c < nchunks; c++) {
        const char *name = chunks[c].name, *dot = strrchr(name, '.');
        if (chunks[c].used)
            continue;
        if (!dot || dot[1] == '\0' || dot[1 + strspn(dot + 1, ALNUM)] != '\0')
            fprintf(stderr, "%s:%ld: warning: chunk <<%s>> is never used and is not a file\n",
                    files[chunks[c].file], chunks[c].line, name);
        else if (dot == name || (size_t)(dot - name) != strspn(name, ALNUM "_-"))
            error_at(files[chunks[c].file], chunks[c].line, "root chunk <<%s>> names a file of tangled/, so it must "
                     "be letters, digits, '_' or '-', then '.' and an extension of letters and digits", name);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: nwmarkup FILE.nw...\n");
        return 2;
    }
    files = argv + 1;
    for (nfile = 0; nfile < argc - 1; nfile++)
        markup(files[nfile]);
    check_web();
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nwmarkup: cannot write the pipeline: %s\n", strerror(errno));
        return 1;
    }
    return errors ? 1 : 0;
}
