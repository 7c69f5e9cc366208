/* nw2md.c -- noweb backend: writes a chapter's pipeline (after finduses and noidx) as Pandoc Markdown. */
/*
 * usage: nwmarkup CHAPTERS... | cudadefs | finduses | noidx | nw2md -c CHAPTER.nw > CHAPTER.md
 *
 * The pipeline is the whole book's, so cross-references reach other chapters; only CHAPTER is
 * written. Prose passes through (its {{directives}} are the filter's). A chunk becomes a div: its
 * header, its code (a line that uses a chunk is a link to it; the identifiers it uses are listed
 * for the filter's links) and its cross-references, from noidx. The chapter ends with an index of
 * its chunks and one of its identifiers. Author's text goes into code spans and blocks whose
 * backtick fence is longer than any run inside, so pandoc escapes it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDENT "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

/* A growing array of strings (the pipeline's labels), so no list is ever cut short. */
struct list { char **v; int n, cap; };

struct chunk {               /* one code chunk, in order of appearance in the book */
    char *label, *name;
    int file;                /* index into files[] */
    int num;                 /* its number within its chapter, from 1 */
    char *prev, *next;       /* labels of the previous and next part of the same name */
    struct list used_in;     /* labels of chunks that use this name */
    int root;                /* never used: a file or a top-level chunk */
};

static char **lines;
static int nlines;
static struct chunk *chunks;
static int nchunks;
static char **files;         /* the chapters, from @file, in order */
static int nfiles;
static const char *chapter;  /* the chapter to write (-c) */
static int here = -1;        /* its index in files[] */
static unsigned char *reach; /* reach[c * nchunks + r]: chunk c ends up in root chunk r */

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

static void push(struct list *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->v = xrealloc(l->v, (size_t)l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

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

/* The longest run of backticks in s. */
static size_t backticks(const char *s)
{
    size_t run = 0, most = 0;
    for (; *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > most)
            most = run;
    }
    return most;
}

/* An inline code span holding s exactly: its fence is longer than any backtick run inside, and a
 * span that starts or ends with a backtick gets a blank inside its fence. */
static void code_span(FILE *out, const char *s)
{
    size_t n = backticks(s) + 1, len = strlen(s);
    int pad = len > 0 && (s[0] == '`' || s[len - 1] == '`');
    for (size_t i = 0; i < n; i++)
        fputc('`', out);
    fprintf(out, "%s%s%s", pad ? " " : "", s, pad ? " " : "");
    for (size_t i = 0; i < n; i++)
        fputc('`', out);
}

static void chunk_name(FILE *out, const char *name, const char *suffix)
{
    size_t n = strlen(name) + strlen(suffix) + 16;
    char *s = xrealloc(NULL, n);
    snprintf(s, n, "\u27e8%s\u27e9%s", name, suffix);
    code_span(out, s);
    free(s);
}

/* The page of a chapter: its file name without folder and extension. */
static const char *slug(int file, char *buf, size_t len)
{
    const char *base = strrchr(files[file], '/');
    snprintf(buf, len, "%s", base ? base + 1 : files[file]);
    char *dot = strrchr(buf, '.');
    if (dot)
        *dot = '\0';
    return buf;
}

/* Where a chunk is: #label in this chapter, 01-atomics.html#label in another. */
static void href(FILE *out, int c)
{
    char page[256];
    if (chunks[c].file != here)
        fprintf(out, "%s.html", slug(chunks[c].file, page, sizeof page));
    fprintf(out, "#%s", chunks[c].label);
}

/* A link to a chunk, written as its number: [7](#label) in this chapter, and for a chunk of
 * another chapter its chapter's number too, [1.7](01-atomics.html#label). */
static void chunk_link(FILE *out, const char *label)
{
    int c = chunk_of_label(label);
    char page[256];
    if (c < 0) {
        fprintf(out, "?");
        return;
    }
    if (chunks[c].file == here)
        fprintf(out, "[%d](", chunks[c].num);
    else
        fprintf(out, "[%d.%d](", atoi(slug(chunks[c].file, page, sizeof page)), chunks[c].num);
    href(out, c);
    fprintf(out, ")");
}

/* Which root chunks each chunk ends up in, following "used in" from every root down. */
static void mark(int c, int r)
{
    for (int i = 0; i < nchunks; i++) {
        if (strcmp(chunks[i].name, chunks[c].name) != 0 || reach[i * nchunks + r])
            continue;
        reach[i * nchunks + r] = 1;
        /* every chunk that this part uses is in the same root */
        for (int j = 0; j < nchunks; j++)
            for (int u = 0; u < chunks[j].used_in.n; u++)
                if (strcmp(chunks[j].used_in.v[u], chunks[i].label ? chunks[i].label : "") == 0)
                    mark(j, r);
    }
}

static int share_root(int a, int b)
{
    for (int r = 0; r < nchunks; r++)
        if (reach[a * nchunks + r] && reach[b * nchunks + r])
            return 1;
    return 0;
}

/* The language of a chunk is that of the files it ends up in. */
static const char *language(int c)
{
    for (int r = 0; r < nchunks; r++) {
        const char *dot = strrchr(chunks[r].name, '.');
        if (!reach[c * nchunks + r] || !dot || strchr(chunks[r].name, ' '))
            continue;
        if (strcmp(dot, ".sh") == 0)
            return "bash";
        if (strcmp(dot, ".cu") == 0 || strcmp(dot, ".cuh") == 0 || strcmp(dot, ".h") == 0 ||
            strcmp(dot, ".c") == 0 || strcmp(dot, ".cpp") == 0)
            return "cuda";
    }
    return NULL;
}

static void read_all(void)
{
    struct list all = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        push(&all, xstrdup(line));
    }
    if (ferror(stdin)) {
        fprintf(stderr, "nw2md: cannot read the pipeline\n");
        exit(1);
    }
    free(line);
    lines = all.v, nlines = all.n;
}

/* First pass: the chapters, the chunks, their labels and their cross-references. */
static void collect(void)
{
    struct chunk *c = NULL;
    int in_uses = 0, num = 0;
    for (int i = 0; i < nlines; i++) {
        const char *l = lines[i];
        if (starts(l, "@file ")) {
            files = xrealloc(files, (size_t)(nfiles + 1) * sizeof *files);
            files[nfiles++] = (char *)l + 6;
            num = 0;
        } else if (starts(l, "@begin code")) {
            chunks = xrealloc(chunks, (size_t)(nchunks + 1) * sizeof *chunks);
            c = &chunks[nchunks++];
            memset(c, 0, sizeof *c);
            c->name = "";
            c->file = nfiles - 1;
            c->num = ++num;
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
        } else if (c && in_uses && starts(l, "@xref useitem ")) {
            push(&c->used_in, xstrdup(l + 14));
        } else if (c && starts(l, "@xref notused ")) {
            c->root = 1;
        }
    }
    /* Continuations carry no use list of their own: take the first part's. */
    for (int i = 0; i < nchunks; i++) {
        int f = first_of_name(chunks[i].name);
        if (f != i && chunks[i].used_in.n == 0) {
            chunks[i].used_in = chunks[f].used_in;
            chunks[i].root = chunks[f].root;
        }
    }
    reach = xrealloc(NULL, (size_t)nchunks * (size_t)nchunks + 1);
    memset(reach, 0, (size_t)nchunks * (size_t)nchunks + 1);
    for (int r = 0; r < nchunks; r++)
        if (chunks[r].root && first_of_name(chunks[r].name) == r)
            mark(r, r);
}

/* Of the chunks that define an identifier, the one in the same program as chunk k. */
static char *definition_for(int k, struct list *defs)
{
    for (int i = 0; i < defs->n; i++) {
        int d = chunk_of_label(defs->v[i]);
        if (d >= 0 && share_root(d, k))
            return defs->v[i];
    }
    return defs->n > 0 ? defs->v[defs->n - 1] : "";
}

/* The cross-reference line under a chunk. */
static void references(FILE *out, int k, int first, struct list *defs, struct list *defs_used,
                       struct list *uses, struct list *uses_def)
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
    if (c->used_in.n > 0 && first == k) {
        fprintf(out, "%sUsed in", said ? " " : "");
        for (int i = 0; i < c->used_in.n; i++) {
            int u = chunk_of_label(c->used_in.v[i]);
            fprintf(out, "%s ", i ? "," : "");
            if (u >= 0)
                chunk_name(out, chunks[u].name, "");
            fprintf(out, " ");
            chunk_link(out, c->used_in.v[i]);
        }
        fprintf(out, ".");
        said = 1;
    } else if (c->root && first == k) {
        if (language(k) && strchr(c->name, '.')) {
            char path[512];
            snprintf(path, sizeof path, "tangled/%s", c->name);
            fprintf(out, "%sTangled to ", said ? " " : "");
            code_span(out, path);
            fprintf(out, ".");
        } else
            fprintf(out, "%sA root chunk.", said ? " " : "");
        said = 1;
    }
    for (int d = 0; d < defs->n; d++) {
        fprintf(out, "%s%s ", said ? " " : "", d == 0 ? "Defines" : "and");
        code_span(out, defs->v[d]);
        struct list *used = &defs_used[d];
        const char *last = "";
        int shown = 0;
        for (int i = 0; i < used->n; i++) {
            int u = chunk_of_label(used->v[i]);
            if (strcmp(used->v[i], last) == 0 || (u >= 0 && !share_root(u, k)))
                continue;  /* noidx lists a chunk once per use; other programs have their own */
            last = used->v[i];
            fprintf(out, "%s ", shown++ ? "" : ", used in");
            chunk_link(out, used->v[i]);
        }
        fprintf(out, "%s", d == defs->n - 1 ? "." : ";");
        said = 1;
    }
    for (int u = 0; u < uses->n; u++) {
        fprintf(out, "%s%s ", said ? " " : "", u == 0 ? "Uses" : "");
        code_span(out, uses->v[u]);
        fprintf(out, " ");
        chunk_link(out, uses_def->v[u]);
        fprintf(out, "%s", u == uses->n - 1 ? "." : ",");
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

/* The code gathered so far as one highlighted block; nothing when there is none. */
static void code_block(FILE *out, char *code, size_t *len, const char *lang)
{
    if (*len == 0)
        return;
    size_t fence = backticks(code) + 1;
    if (fence < 3)
        fence = 3;
    for (size_t f = 0; f < fence; f++)
        fputc('`', out);
    fprintf(out, " {%s%s}\n%s", lang ? "." : "", lang ? lang : ".default", code);
    if (code[*len - 1] != '\n')
        fputc('\n', out);
    for (size_t f = 0; f < fence; f++)
        fputc('`', out);
    fputs("\n\n", out);
    *len = 0;
    code[0] = '\0';
}

/* Is a label one of this chapter's chunks? */
static int in_chapter(const char *label)
{
    int c = chunk_of_label(label);
    return c >= 0 && chunks[c].file == here;
}

/* One index: an entry per name that this chapter defines or uses, with the chunks that define
 * it, then those that use it. */
static int index_list(FILE *out, const char *begin, const char *end, const char *defn, const char *use,
                      int is_chunk)
{
    int entries = 0;
    for (int i = 0; i < nlines; i++) {
        if (!starts(lines[i], begin))
            continue;
        const char *name = strchr(lines[i] + strlen(begin), ' ');
        int from = i + 1, to = from, mine = 0;
        while (to < nlines && !starts(lines[to], end)) {
            const char *l = lines[to];
            mine |= (starts(l, defn) && in_chapter(l + strlen(defn))) || (starts(l, use) && in_chapter(l + strlen(use)));
            to++;
        }
        i = to;
        if (!mine)
            continue;
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
    }
    return entries;
}

static void emit(FILE *out)
{
    int k = -1, file = -1, mine = 0;
    char *code = NULL, *quote = NULL, *line = NULL;
    size_t clen = 0, ccap = 0, qlen = 0, qcap = 0, llen = 0, lcap = 0;
    int in_code = 0, in_quote = 0, in_defs = 0, in_uses = 0, skip_nl = 0;
    const char *line_use = NULL;  /* the chunk used on this code line, when it is all the line holds */
    const char *lang = NULL;      /* the current chunk's */
    FILE *body = NULL;            /* the current chunk's code, in parts, until its header is written */
    char *bodytext = NULL;
    size_t bodylen = 0;
    int line_text = 0;            /* this code line has text besides blanks and one use */
    struct list defs = {0}, pending = {0}, uses = {0}, uses_def = {0}, *defs_used = NULL;
    append(&code, &clen, &ccap, "");
    append(&line, &llen, &lcap, "");
    /* The filter names this file in its messages. */
    fprintf(out, "::: {.source file=\"%s\"}\n:::\n\n", chapter);
    for (int i = 0; i < nlines; i++) {
        const char *l = lines[i];
        if (starts(l, "@file ")) {
            mine = ++file == here;
        } else if (starts(l, "@begin code")) {
            k++;
            in_code = 1;
            skip_nl = 1;  /* the newline of the <<name>>= line itself */
            clen = llen = 0;
            code[0] = line[0] = '\0';
            line_use = NULL, line_text = 0;
            defs.n = pending.n = uses.n = uses_def.n = 0;
            lang = language(k);
            body = open_memstream(&bodytext, &bodylen);
            if (body == NULL) {
                fprintf(stderr, "nw2md: out of memory\n");
                exit(2);
            }
        } else if (starts(l, "@end code")) {
            struct chunk *c = &chunks[k];
            int first = first_of_name(c->name);
            if (llen > 0)
                append(&code, &clen, &ccap, line);  /* a last line without a newline */
            in_code = 0;
            if (!mine) {
                fclose(body);
                free(bodytext);
                continue;
            }
            /* The identifiers it uses and where each is defined, for the links in its code. */
            fprintf(out, "\n::: {#%s .chunk uses=\"", c->label ? c->label : "");
            for (int u = 0; u < uses.n; u++) {
                int d = chunk_of_label(uses_def.v[u]);
                if (d >= 0 && chunks[d].label && strspn(uses.v[u], IDENT) == strlen(uses.v[u])) {
                    fprintf(out, "%s%s=", u ? " " : "", uses.v[u]);
                    href(out, d);
                }
            }
            fprintf(out, "\"}\n");
            fprintf(out, "[");
            chunk_name(out, c->name, first == k ? "\u2261" : "+\u2261");
            fprintf(out, "]{.chunkname}");
            if (first != k) {
                fprintf(out, " [(first part ");
                chunk_link(out, chunks[first].label ? chunks[first].label : "");
                fprintf(out, ")]{.chunkfirst}");
            }
            fprintf(out, " [%d]{.chunknum}\n\n", c->num);
            code_block(body, code, &clen, lang);
            fclose(body);
            fputs(bodytext, out);
            free(bodytext);
            references(out, k, first, &defs, defs_used, &uses, &uses_def);
            fprintf(out, ":::\n\n");
        } else if (strcmp(l, "@nl") == 0) {
            if (in_code && skip_nl) {
                skip_nl = 0;
            } else if (in_code && line_use && !line_text) {
                /* A line that only uses a chunk is a link to it, set as a line of the code. */
                code_block(body, code, &clen, lang);
                fprintf(body, "::: chunkuse\n");
                for (const char *p = line; *p == ' ' || *p == '\t'; p++)
                    fputs(*p == '\t' ? "\u00a0\u00a0\u00a0\u00a0" : "\u00a0", body);
                fprintf(body, "[");
                int u = first_of_name(line_use);
                chunk_name(body, line_use, "");
                fprintf(body, "]{.chunkusename} ");
                if (u >= 0 && chunks[u].label)
                    chunk_link(body, chunks[u].label);
                fprintf(body, "\n:::\n\n");
                llen = 0, line[0] = '\0', line_use = NULL, line_text = 0;
            } else if (in_code) {
                append(&line, &llen, &lcap, "\n");
                append(&code, &clen, &ccap, line);
                llen = 0, line[0] = '\0', line_use = NULL, line_text = 0;
            } else if (mine) {
                fputc('\n', out);
            }
        } else if (starts(l, "@text ")) {
            if (in_quote)
                append(&quote, &qlen, &qcap, l + 6);
            else if (in_code) {
                append(&line, &llen, &lcap, l + 6);
                for (const char *p = l + 6; *p; p++)
                    line_text |= *p != ' ' && *p != '\t';
            } else if (mine)
                fputs(l + 6, out);
        } else if (in_code && starts(l, "@use ")) {
            line_text |= line_use != NULL;
            line_use = l + 5;
            append(&line, &llen, &lcap, "\u27e8");
            append(&line, &llen, &lcap, l + 5);
            append(&line, &llen, &lcap, "\u27e9");
        } else if (strcmp(l, "@quote") == 0) {
            in_quote = 1;
            qlen = 0;
            append(&quote, &qlen, &qcap, "");
        } else if (strcmp(l, "@endquote") == 0) {
            in_quote = 0;
            if (mine)
                code_span(out, quote);
        } else if (in_code && strcmp(l, "@index begindefs") == 0) {
            in_defs = 1;
        } else if (in_code && strcmp(l, "@index enddefs") == 0) {
            in_defs = 0;
        } else if (in_defs && starts(l, "@index isused ")) {
            if (chunks[k].label && strcmp(l + 14, chunks[k].label) == 0)
                continue;  /* finduses sees the name where it is defined */
            push(&pending, (char *)l + 14);
        } else if (in_defs && starts(l, "@index defitem ")) {
            defs_used = xrealloc(defs_used, (size_t)(defs.n + 1) * sizeof *defs_used);
            defs_used[defs.n] = pending;
            memset(&pending, 0, sizeof pending);
            push(&defs, (char *)l + 15);
        } else if (in_code && strcmp(l, "@index beginuses") == 0) {
            in_uses = 1;
        } else if (in_code && strcmp(l, "@index enduses") == 0) {
            in_uses = 0;
        } else if (in_uses && starts(l, "@index isdefined ")) {
            push(&pending, (char *)l + 17);
        } else if (in_uses && starts(l, "@index useitem ")) {
            push(&uses, (char *)l + 15);
            push(&uses_def, definition_for(k, &pending));
            pending.n = 0;
        }
    }
    /* The chapter's indexes, from noidx's @xref chunk list and @index entry list. */
    char page[256];
    slug(here, page, sizeof page);
    fprintf(out, "\n## Index of chunks {#chunks-%s .unnumbered .chunkindex}\n\n", page);
    index_list(out, "@xref chunkbegin ", "@xref chunkend", "@xref chunkdefn ", "@xref chunkuse ", 1);
    fprintf(out, "\n## Index of identifiers {#identifiers-%s .unnumbered .identindex}\n\n", page);
    if (!index_list(out, "@index entrybegin ", "@index entryend", "@index entrydefn ", "@index entryuse ", 0))
        fprintf(out, "This chapter defines no identifiers.\n");
    free(code);
    free(quote);
    free(line);
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "-c") != 0) {
        fprintf(stderr, "usage: nwmarkup BOOK.nw... | cudadefs | finduses | noidx | nw2md -c CHAPTER.nw > CHAPTER.md\n");
        return 2;
    }
    chapter = argv[2];
    read_all();
    collect();
    for (int f = 0; f < nfiles; f++)
        if (strcmp(files[f], chapter) == 0)
            here = f;
    if (here < 0) {
        fprintf(stderr, "nw2md: %s: expected a chapter of the pipeline, found none of that name\n", chapter);
        return 1;
    }
    emit(stdout);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "nw2md: cannot write the Markdown\n");
        return 1;
    }
    return 0;
}
