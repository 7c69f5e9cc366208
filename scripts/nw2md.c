/* nw2md.c -- noweb backend: writes a chapter's pipeline (after finduses and noidx) as Pandoc Markdown. */
/*
 * usage: nwmarkup CH.nw | cudadefs | finduses | noidx | nw2md [-s SETDIR -t TANGLEDDIR] > CH.md
 *
 * Prose passes through untouched: it is already Pandoc Markdown. Each code chunk becomes a
 * fenced div holding a header (the chunk's name, with a link to its first part), a highlighted
 * code block, and a line of cross-references built from noidx's @xref and @index lines. The
 * chapter ends with an index of its chunks and one of its identifiers. Every piece of text that
 * comes from the author (chunk names, identifiers, code) is put in a code span or code block
 * whose backtick fence is longer than any run of backticks inside it, so pandoc escapes it.
 * With -s, the prose directives {{...}} are replaced from the measurement set (values.h).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "values.h"

#define MAXREF 64

struct chunk {               /* one code chunk, in order of appearance */
    char *label, *name;
    char *prev, *next;       /* labels of the previous and next part of the same name */
    char *used_in[MAXREF];   /* labels of chunks that use this name */
    int nused;
    int root;                /* never used: a file or a top-level chunk */
};

static char **lines;
static int nlines;
static struct chunk *chunks;
static int nchunks;
static const char *chapter = "";  /* the .nw file, from @file */
static struct val_ctx *vals;      /* NULL without -s */
static int errors;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (p == NULL) {
        fprintf(stderr, "nw2md: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s) { return strcpy(xrealloc(NULL, strlen(s) + 1), s); }

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static int chunk_of_label(const char *label)
{
    for (int i = 0; i < nchunks; i++)
        if (chunks[i].label && strcmp(chunks[i].label, label) == 0)
            return i;
    return -1;
}

static int first_of_name(const char *name)
{
    for (int i = 0; i < nchunks; i++)
        if (strcmp(chunks[i].name, name) == 0)
            return i;
    return -1;
}

/* An inline code span holding s exactly. */
static void code_span(FILE *out, const char *s) { rec_code_span(out, s); }

static void chunk_name(FILE *out, const char *name, const char *suffix)
{
    size_t n = strlen(name) + strlen(suffix) + 16;
    char *s = xrealloc(NULL, n);
    snprintf(s, n, "\u27e8%s\u27e9%s", name, suffix);
    code_span(out, s);
    free(s);
}

/* A link to a chunk, written as its number: [7](#label). */
static void chunk_link(FILE *out, const char *label)
{
    int c = chunk_of_label(label);
    if (c < 0)
        fprintf(out, "?");
    else
        fprintf(out, "[%d](#%s)", c + 1, label);
}

/* The language of a chunk is that of the file it ends up in. */
static const char *language(const char *name, int depth)
{
    const char *dot = strrchr(name, '.');
    if (dot && strchr(name, ' ') == NULL) {
        if (strcmp(dot, ".sh") == 0)
            return "bash";
        if (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0 || strcmp(dot, ".h") == 0 ||
            strcmp(dot, ".c") == 0 || strcmp(dot, ".cpp") == 0)
            return "cuda";
    }
    if (depth > 16)
        return NULL;
    int c = first_of_name(name);
    if (c < 0)
        return NULL;
    for (int i = 0; i < chunks[c].nused; i++) {
        int u = chunk_of_label(chunks[c].used_in[i]);
        const char *lang = u >= 0 ? language(chunks[u].name, depth + 1) : NULL;
        if (lang)
            return lang;
    }
    return NULL;
}

static void read_all(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int cap_lines = 0;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (nlines == cap_lines) {
            cap_lines = cap_lines ? 2 * cap_lines : 1024;
            lines = xrealloc(lines, (size_t)cap_lines * sizeof *lines);
        }
        lines[nlines++] = xstrdup(line);
    }
    free(line);
    if (ferror(stdin)) {
        fprintf(stderr, "nw2md: cannot read the pipeline\n");
        exit(1);
    }
}

/* First pass: the chunks, their labels and their cross-references. */
static void collect(void)
{
    struct chunk *c = NULL;
    int in_uses = 0;
    for (int i = 0; i < nlines; i++) {
        const char *l = lines[i];
        if (starts(l, "@file ")) {
            chapter = l + 6;
        } else if (starts(l, "@begin code")) {
            chunks = xrealloc(chunks, (size_t)(nchunks + 1) * sizeof *chunks);
            c = &chunks[nchunks++];
            memset(c, 0, sizeof *c);
            c->name = "";
        } else if (starts(l, "@end code")) {
            c = NULL;
        } else if (c && starts(l, "@xref label ") && c->label == NULL) {
            c->label = xstrdup(l + 12);
        } else if (c && starts(l, "@defn ")) {
            c->name = xstrdup(l + 6);
        } else if (c && starts(l, "@xref prevdef ")) {
            c->prev = xstrdup(l + 14);
        } else if (c && starts(l, "@xref nextdef ")) {
            c->next = xstrdup(l + 14);
        } else if (c && strcmp(l, "@xref beginuses") == 0) {
            in_uses = 1;
        } else if (c && strcmp(l, "@xref enduses") == 0) {
            in_uses = 0;
        } else if (c && in_uses && starts(l, "@xref useitem ") && c->nused < MAXREF) {
            c->used_in[c->nused++] = xstrdup(l + 14);
        } else if (c && starts(l, "@xref notused ")) {
            c->root = 1;
        }
    }
    /* Continuations carry no use list of their own: take the first part's. */
    for (int i = 0; i < nchunks; i++) {
        int f = first_of_name(chunks[i].name);
        if (f != i && chunks[i].nused == 0) {
            chunks[i].nused = chunks[f].nused;
            memcpy(chunks[i].used_in, chunks[f].used_in, sizeof chunks[i].used_in);
            chunks[i].root = chunks[f].root;
        }
    }
}

/* A console block for a marker whose record is missing or stale: weaving goes on, check fails. */
static void missing_output(FILE *out, const char *name, const char *why, long lineno)
{
    fprintf(stderr, "%s:%ld: warning: {{output %s}}: %s (make run measures it)\n", chapter, lineno, name, why);
    fprintf(out, "\n::: missing\nNo current measurement of ");
    code_span(out, name);
    fprintf(out, " in this set (make run measures it).\n:::\n");
}

/* Prose: a line of Markdown, with {{directives}} replaced from the measurement set (-s).
 * A missing or stale output only warns, so that a new chapter can be woven before it is
 * measured; a value that does not exist stops the build, since the sentence would be false. */
static int prose(FILE *out, const char *text, long lineno)
{
    size_t pos = 0, start, end, done = 0;
    int found, claims = 0, other = 0;
    while (vals && (found = val_find(text, &pos, &start, &end)) != 0) {
        if (found < 0) {
            fprintf(stderr, "%s:%ld: expected '}}' to close the directive '%.40s'\n", chapter, lineno, text + start);
            errors++;
            break;
        }
        for (size_t i = done; i < start; i++)
            other |= !isspace((unsigned char)text[i]);
        if (!other)
            done = start;  /* blanks before a claim at the start of the line */
        fwrite(text + done, 1, start - done, out);
        done = end;
        size_t n = end - start - 4;
        char *directive = xrealloc(NULL, n + 1), msg[1024], why[512];
        memcpy(directive, text + start + 2, n);
        directive[n] = '\0';
        struct val_directive d;
        char *md = NULL;
        if (val_parse(directive, &d, msg, sizeof msg) != 0) {
            fprintf(stderr, "%s:%ld: {{%s}}: %s\n", chapter, lineno, directive, msg);
            errors++;
        } else if (d.kind == VAL_OUTPUT && val_fresh(vals, d.name, why, sizeof why) == 0) {
            missing_output(out, d.name, why, lineno);
        } else if (val_expand(vals, directive, &md, msg, sizeof msg) != 0) {
            fprintf(stderr, "%s:%ld: {{%s}}: %s\n", chapter, lineno, directive, msg);
            errors++;
        } else {
            fputs(md, out);
            claims += d.kind == VAL_CLAIM;
            other |= d.kind != VAL_CLAIM;
        }
        free(md);
        free(directive);
    }
    for (const char *p = text + done; *p; p++)
        other |= !isspace((unsigned char)*p);
    if (claims && !other)
        return 1;  /* a line of claims alone would end the paragraph as a blank line */
    fputs(text + done, out);
    return 0;
}

/* The cross-reference line under a chunk. */
static void references(FILE *out, int k, int first, char **defs, char ***defs_used, int *ndefs_used, int ndefs,
                       char **uses, char **uses_def, int nuses)
{
    struct chunk *c = &chunks[k];
    int said = 0;
    fprintf(out, "\n::: chunkrefs\n");
    if (c->prev) {
        fprintf(out, "Continues ");
        chunk_link(out, c->prev);
        fprintf(out, ".");
        said = 1;
    }
    if (c->next) {
        fprintf(out, "%sContinued in ", said ? " " : "");
        chunk_link(out, c->next);
        fprintf(out, ".");
        said = 1;
    }
    if (c->nused > 0 && first == k) {
        fprintf(out, "%sUsed in", said ? " " : "");
        for (int i = 0; i < c->nused; i++) {
            int u = chunk_of_label(c->used_in[i]);
            fprintf(out, "%s ", i ? "," : "");
            if (u >= 0)
                chunk_name(out, chunks[u].name, "");
            fprintf(out, " ");
            chunk_link(out, c->used_in[i]);
        }
        fprintf(out, ".");
        said = 1;
    } else if (c->root && first == k) {
        const char *lang = language(c->name, 0);
        if (lang && strchr(c->name, '.'))
        {
            char path[512];
            snprintf(path, sizeof path, "tangled/%s", c->name);
            fprintf(out, "%sTangled to ", said ? " " : "");
            code_span(out, path);
            fprintf(out, ".");
        }
        else
            fprintf(out, "%sA root chunk.", said ? " " : "");
        said = 1;
    }
    for (int d = 0; d < ndefs; d++) {
        fprintf(out, "%s%s ", said ? " " : "", d == 0 ? "Defines" : "and");
        code_span(out, defs[d]);
        if (ndefs_used[d] > 0) {
            fprintf(out, ", used in");
            for (int i = 0; i < ndefs_used[d]; i++) {
                if (i > 0 && strcmp(defs_used[d][i], defs_used[d][i - 1]) == 0)
                    continue;  /* noidx lists a chunk once per use */
                fprintf(out, " ");
                chunk_link(out, defs_used[d][i]);
            }
        }
        fprintf(out, "%s", d == ndefs - 1 ? "." : ";");
        said = 1;
    }
    for (int u = 0; u < nuses; u++) {
        fprintf(out, "%s%s ", said ? " " : "", u == 0 ? "Uses" : "");
        code_span(out, uses[u]);
        fprintf(out, " ");
        chunk_link(out, uses_def[u]);
        fprintf(out, "%s", u == nuses - 1 ? "." : ",");
        said = 1;
    }
    if (!said)
        fprintf(out, "\u00a0");
    fprintf(out, "\n:::\n");
}

/* Appends s to a growing string. */
static void append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        *cap = 2 * (*len + n + 1);
        *buf = xrealloc(*buf, *cap);
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

/* One index: an entry per name, with the chunks that define it, then those that use it. */
static int index_list(FILE *out, const char *begin, const char *end, const char *defn, const char *use,
                      int is_chunk)
{
    int entries = 0;
    for (int i = 0; i < nlines; i++) {
        if (!starts(lines[i], begin))
            continue;
        const char *name = strchr(lines[i] + strlen(begin), ' ');
        int from = i + 1, to = from;
        while (to < nlines && !starts(lines[to], end))
            to++;
        fprintf(out, "- ");
        if (is_chunk)
            chunk_name(out, name ? name + 1 : "", "");
        else
            code_span(out, name ? name + 1 : "");
        fprintf(out, ": defined in");
        for (int j = from; j < to; j++)
            if (starts(lines[j], defn)) {
                fprintf(out, " ");
                chunk_link(out, lines[j] + strlen(defn));
            }
        int said = 0;
        const char *last = "";
        for (int j = from; j < to; j++) {
            if (!starts(lines[j], use) || strcmp(lines[j] + strlen(use), last) == 0)
                continue;
            last = lines[j] + strlen(use);
            int own = 0;  /* a use inside a defining chunk is the definition itself */
            for (int d = from; d < to; d++)
                if (starts(lines[d], defn) && strcmp(lines[d] + strlen(defn), lines[j] + strlen(use)) == 0)
                    own = 1;
            if (own && !is_chunk)
                continue;
            fprintf(out, "%s", said++ ? " " : "; used in ");
            chunk_link(out, lines[j] + strlen(use));
        }
        fprintf(out, "\n");
        entries++;
        i = to;
    }
    return entries;
}

static void emit(FILE *out, const char *slug)
{
    int k = -1;
    long lineno = 1;
    char *code = NULL, *quote = NULL;
    size_t clen = 0, ccap = 0, qlen = 0, qcap = 0;
    int in_code = 0, in_quote = 0, in_defs = 0, in_uses = 0, skip_nl = 0;
    /* A prose line that holds claims and nothing else is dropped, newline too. */
    int line_claims = 0, line_other = 0;
    char *defs[MAXREF], **defs_used[MAXREF], *pending[MAXREF];
    int ndefs = 0, ndefs_used[MAXREF], npending = 0;
    char *uses[MAXREF], *uses_def[MAXREF];
    int nuses = 0;
    for (int i = 0; i < nlines; i++) {
        const char *l = lines[i];
        if (starts(l, "@begin code")) {
            k++;
            in_code = 1;
            skip_nl = 1;  /* the newline of the <<name>>= line itself */
            clen = 0;
            if (code)
                code[0] = '\0';
            ndefs = nuses = npending = 0;
        } else if (starts(l, "@end code")) {
            struct chunk *c = &chunks[k];
            int first = first_of_name(c->name);
            const char *lang = language(c->name, 0);
            int fence = (int)rec_longest_backticks(code ? code : "", 0) + 1;
            if (fence < 3)
                fence = 3;
            fprintf(out, "\n::: {#%s .chunk}\n", c->label ? c->label : "");
            fprintf(out, "[");
            chunk_name(out, c->name, first == k ? "\u2261" : "+\u2261");
            fprintf(out, "]{.chunkname}");
            if (first != k) {
                fprintf(out, " [(first part ");
                chunk_link(out, chunks[first].label ? chunks[first].label : "");
                fprintf(out, ")]{.chunkfirst}");
            }
            fprintf(out, " [%d]{.chunknum}\n\n", k + 1);
            for (int f = 0; f < fence; f++)
                fputc('`', out);
            fprintf(out, " {%s%s}\n", lang ? "." : "", lang ? lang : ".default");
            fputs(code ? code : "", out);
            if (clen > 0 && code[clen - 1] != '\n')
                fputc('\n', out);
            for (int f = 0; f < fence; f++)
                fputc('`', out);
            fputc('\n', out);
            references(out, k, first, defs, defs_used, ndefs_used, ndefs, uses, uses_def, nuses);
            fprintf(out, ":::\n\n");
            in_code = 0;
        } else if (strcmp(l, "@nl") == 0 || strcmp(l, "@index nl") == 0) {
            lineno++;
            if (strcmp(l, "@index nl") == 0)
                continue;
            if (in_code && skip_nl)
                skip_nl = 0;
            else if (in_code)
                append(&code, &clen, &ccap, "\n");
            else if (!(line_claims && !line_other))
                fputc('\n', out);
            line_claims = line_other = 0;
        } else if (starts(l, "@text ")) {
            if (in_quote)
                append(&quote, &qlen, &qcap, l + 6);
            else if (in_code)
                append(&code, &clen, &ccap, l + 6);
            else if (prose(out, l + 6, lineno))
                line_claims = 1;
            else
                line_other = 1;
        } else if (in_code && starts(l, "@use ")) {
            append(&code, &clen, &ccap, "\u27e8");
            append(&code, &clen, &ccap, l + 5);
            append(&code, &clen, &ccap, "\u27e9");
        } else if (strcmp(l, "@quote") == 0) {
            in_quote = 1;
            qlen = 0;
            append(&quote, &qlen, &qcap, "");
        } else if (strcmp(l, "@endquote") == 0) {
            in_quote = 0;
            line_other = 1;
            code_span(out, quote);
        } else if (in_code && strcmp(l, "@index begindefs") == 0) {
            in_defs = 1;
        } else if (in_code && strcmp(l, "@index enddefs") == 0) {
            in_defs = 0;
        } else if (in_defs && starts(l, "@index isused ") && npending < MAXREF) {
            if (chunks[k].label && strcmp(l + 14, chunks[k].label) == 0)
                continue;  /* finduses sees the name where it is defined */
            pending[npending++] = (char *)l + 14;
        } else if (in_defs && starts(l, "@index defitem ") && ndefs < MAXREF) {
            defs[ndefs] = (char *)l + 15;
            defs_used[ndefs] = xrealloc(NULL, (size_t)(npending + 1) * sizeof(char *));
            memcpy(defs_used[ndefs], pending, (size_t)npending * sizeof(char *));
            ndefs_used[ndefs++] = npending;
            npending = 0;
        } else if (in_code && strcmp(l, "@index beginuses") == 0) {
            in_uses = 1;
        } else if (in_code && strcmp(l, "@index enduses") == 0) {
            in_uses = 0;
        } else if (in_uses && starts(l, "@index isdefined ") && npending < MAXREF) {
            pending[npending++] = (char *)l + 17;
        } else if (in_uses && starts(l, "@index useitem ") && nuses < MAXREF) {
            uses[nuses] = (char *)l + 15;
            uses_def[nuses++] = npending > 0 ? pending[npending - 1] : "";
            npending = 0;
        }
    }
    /* The chapter's indexes, from noidx's @xref chunk list and @index entry list. */
    fprintf(out, "\n## Index of chunks {#chunks-%s .unnumbered .chunkindex}\n\n", slug);
    index_list(out, "@xref chunkbegin ", "@xref chunkend", "@xref chunkdefn ", "@xref chunkuse ", 1);
    fprintf(out, "\n## Index of identifiers {#identifiers-%s .unnumbered .identindex}\n\n", slug);
    if (!index_list(out, "@index entrybegin ", "@index entryend", "@index entrydefn ", "@index entryuse ", 0))
        fprintf(out, "This chapter defines no identifiers.\n");
    free(code);
    free(quote);
}

int main(int argc, char **argv)
{
    const char *set = NULL, *tangled = "tangled";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            set = argv[++i];
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            tangled = argv[++i];
        else {
            fprintf(stderr, "usage: nw2md [-s MEASUREMENT-SET] [-t TANGLED-DIR] < pipeline > chapter.md\n");
            return 2;
        }
    }
    read_all();
    collect();
    if (set != NULL)
        vals = val_open(set, tangled);
    /* Anchors for the chapter's indexes: the chapter's file name without folder or extension. */
    char slug[256];
    const char *base = strrchr(chapter, '/');
    snprintf(slug, sizeof slug, "%s", base ? base + 1 : chapter);
    char *dot = strrchr(slug, '.');
    if (dot)
        *dot = '\0';
    emit(stdout, slug);
    if (vals)
        val_close(vals);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nw2md: cannot write the Markdown\n");
        return 1;
    }
    return errors ? 1 : 0;
}
