/* nwcheck.c -- checks a book's noweb pipelines before anything is tangled, and lists the files to tangle. */
/*
 * notangle reports an undefined chunk without saying where it is used, loops or prints
 * half a file on a cyclic chunk, and cannot see that two chapters write the same file.
 * This reads the pipeline of the whole book (nwmarkup CHAPTERS | nwcheck) and stops on:
 *   - a chunk used but defined in no chapter up to the one that uses it,
 *   - a chunk that uses itself, directly or through others,
 *   - a chunk name (a root file too) defined in two chapters,
 *   - a root file whose name is not letters, digits, '_' or '-', a dot and an extension.
 * Each error is "FILE:LINE: message". On success it prints one line per root chunk whose
 * name has a file extension: "CHAPTER<TAB>ROOT".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

struct use { int chunk; char *name; long line; };           /* a reference from a chunk's code */
struct chunk { int file; char *name; long line; int used; };  /* first definition of a name */

static char **files;
static struct chunk *chunks;
static struct use *uses;
static int nfiles, nchunks, nuses, errors;

static void *need(void *p)
{
    if (p == NULL) {
        fprintf(stderr, "nwcheck: out of memory\n");
        exit(2);
    }
    return p;
}

/* Room for element n of array p: it doubles when n is a power of two. */
static void *grow(void *p, int n, size_t size)
{
    return (n & (n - 1)) == 0 ? need(realloc(p, (size_t)(n ? 2 * n : 1) * size)) : p;
}

static int find_chunk(const char *name)
{
    for (int i = 0; i < nchunks; i++)
        if (strcmp(chunks[i].name, name) == 0)
            return i;
    return -1;
}

/* A root is a file when its name ends in '.' and an extension of letters and digits ("race.cu"):
 * 1, or 2 when the name before the dot is letters, digits, '_' and '-', safe in make and the shell. */
static int is_file_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL || dot[1] == '\0' || dot[1 + strspn(dot + 1, ALNUM)] != '\0')
        return 0;
    return dot > name && (size_t)(dot - name) == strspn(name, ALNUM "_-") ? 2 : 1;
}

static void read_pipeline(FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long lineno = 0;
    int file = -1, current = -1;
    while ((n = getline(&line, &cap, in)) != -1) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (strncmp(line, "@file ", 6) == 0) {
            files = grow(files, nfiles, sizeof *files);
            files[nfiles] = need(strdup(line + 6));
            file = nfiles++;
            lineno = 1;
        } else if (strcmp(line, "@nl") == 0 || strcmp(line, "@index nl") == 0) {
            lineno++;
        } else if (file < 0 && line[0] == '@') {
            fprintf(stderr, "nwcheck: expected the pipeline to start with '@file NAME', found '%s'\n", line);
            exit(2);
        } else if (strncmp(line, "@defn ", 6) == 0) {
            current = find_chunk(line + 6);
            if (current < 0) {
                chunks = grow(chunks, nchunks, sizeof *chunks);
                chunks[nchunks] = (struct chunk){file, need(strdup(line + 6)), lineno, 0};
                current = nchunks++;
            } else if (chunks[current].file != file) {
                fprintf(stderr, "%s:%ld: chunk <<%s>> is already defined at %s:%ld; "
                        "a chunk name belongs to one chapter\n",
                        files[file], lineno, line + 6, files[chunks[current].file], chunks[current].line);
                errors++;
            }
        } else if (strncmp(line, "@use ", 5) == 0) {
            uses = grow(uses, nuses, sizeof *uses);
            uses[nuses++] = (struct use){current, need(strdup(line + 5)), lineno};
        } else if (strncmp(line, "@end code", 9) == 0) {
            current = -1;
        }
    }
    if (ferror(in)) {
        fprintf(stderr, "nwcheck: cannot read the pipeline\n");
        exit(2);
    }
    free(line);
}

/* Depth-first search over "uses"; on a cycle, print the path once and stop. */
static int *state, *path, depth;  /* state[c]: 0 unseen, 1 on the path, 2 done */

static int visit(int c)
{
    if (state[c] == 2)
        return 0;
    if (state[c] == 1) {
        int from = 0;
        while (path[from] != c)
            from++;
        fprintf(stderr, "%s:%ld: cyclic chunk: ", files[chunks[c].file], chunks[c].line);
        for (int i = from; i < depth; i++)
            fprintf(stderr, "<<%s>> -> ", chunks[path[i]].name);
        fprintf(stderr, "<<%s>>; a chunk cannot include itself\n", chunks[c].name);
        errors++;
        return 1;
    }
    state[c] = 1;
    path[depth++] = c;
    for (int i = 0, d; i < nuses; i++)
        if (uses[i].chunk == c && (d = find_chunk(uses[i].name)) >= 0 && visit(d))
            return 1;
    depth--;
    state[c] = 2;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 1)
        read_pipeline(stdin);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "r");
        if (f == NULL) {
            perror(argv[i]);
            return 2;
        }
        read_pipeline(f);
        fclose(f);
    }
    for (int i = 0; i < nuses; i++) {
        int file = uses[i].chunk >= 0 ? chunks[uses[i].chunk].file : 0;
        int d = find_chunk(uses[i].name);
        if (d < 0 || chunks[d].file > file) {
            fprintf(stderr, "%s:%ld: undefined chunk: <<%s>> is used here but no '<<%s>>=' "
                    "defines it in this chapter or an earlier one\n",
                    files[file], uses[i].line, uses[i].name, uses[i].name);
            errors++;
        } else
            chunks[d].used = 1;
    }
    state = calloc((size_t)nchunks + 1, sizeof *state);
    path = calloc((size_t)nchunks + 1, sizeof *path);
    if (state == NULL || path == NULL)
        return 2;
    for (int c = 0; c < nchunks && errors == 0; c++)
        visit(c);
    if (errors)
        return 1;
    for (int c = 0; c < nchunks; c++)
        if (!chunks[c].used && is_file_name(chunks[c].name) == 2)
            printf("%s\t%s\n", files[chunks[c].file], chunks[c].name);
        else if (!chunks[c].used && is_file_name(chunks[c].name) && ++errors)
            fprintf(stderr, "%s:%ld: root chunk <<%s>> names a file of tangled/, so it must be letters, "
                    "digits, '_' or '-', then '.' and an extension of letters and digits\n",
                    files[chunks[c].file], chunks[c].line, chunks[c].name);
        else if (!chunks[c].used)
            fprintf(stderr, "%s:%ld: warning: chunk <<%s>> is never used and is not a file\n",
                    files[chunks[c].file], chunks[c].line, chunks[c].name);
    return errors ? 1 : 0;
}
