/* nw2md.c -- noweb backend: writes a chapter's pipeline (after finduses and noidx) as Pandoc Markdown. */
/* usage: nwmarkup CHAPTERS... | cudadefs | finduses | noidx | nw2md -c CHAPTER.nw > CHAPTER.md. The pipeline
 * is the whole book's, so cross-references reach other chapters. A chunk becomes a div (header, code,
 * the identifiers it uses for code.lua's links, noidx's cross-references); the chapter ends with its
 * indexes of chunks and identifiers. Author's text goes into code spans and blocks: pandoc escapes it. */
#define _POSIX_C_SOURCE 200809L
#include "tool.h"

#define IDENT "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
#define CHUNK_NAME "\u27e8%s\u27e9"  /* code_span()'s format for a chunk's name */

/* A growing array of strings (lines, labels), so no list is ever cut short. */
struct list { char **v; int n; };

struct chunk {               /* one code chunk, in order of appearance in the book */
    char *label, *name;      /* noidx's first label in it (the others are its uses'), "" before it */
    int file, num;           /* its chapter (index into pages), and its number there, from 1 */
    char *prev, *next;       /* labels of the previous and next part of the same name */
    struct list used_in;     /* labels of chunks that use this name (noidx lists them in the first part) */
    int root;                /* never used: a file or a top-level chunk (noidx says so of the first part) */
};

static struct list lines;    /* the pipeline */
static struct chunk *chunks;
static int nchunks;
static struct list pages;    /* each chapter's page: its file name without folder and extension */
static const char *chapter;  /* the chapter to write (-c) */
static int here = -1;        /* its index in pages */
static unsigned char *reach; /* reach[c * nchunks + r]: chunk c ends up in root chunk r */

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static int starts(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

static void push(struct list *l, char *s) { *PUSH(l->v, l->n) = s; }

enum { LABEL, NAME };
/* The first chunk whose LABEL or NAME is s; -1 when none is. */
static int chunk_of(int key, const char *s)
{
    for (int i = 0; i < nchunks; i++)
        if (strcmp(key == NAME ? chunks[i].name : chunks[i].label, s) == 0)
            return i;
    return -1;
}

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

static void fence(FILE *out, size_t n) { while (n-- > 0) fputc('`', out); }

/* An inline code span holding the printf-formatted text exactly, between two strings: its fence is
 * longer than any backtick run inside, and a span that starts or ends with a backtick gets a blank
 * inside it. */
static void code_span(FILE *out, const char *before, const char *after, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vfmt(fmt, ap);
    va_end(ap);
    const char *pad = *s && (s[0] == '`' || s[strlen(s) - 1] == '`') ? " " : "";
    fputs(before, out);
    fence(out, backticks(s) + 1);
    fprintf(out, "%s%s%s", pad, s, pad);
    fence(out, backticks(s) + 1);
    fputs(after, out);
    free(s);
}

static char *page_of(const char *file)
{
    const char *slash = strrchr(file, '/'), *base = slash ? slash + 1 : file, *dot = strrchr(base, '.');
    return xstrndup(base, dot ? (size_t)(dot - base) : strlen(base));
}

/* Where a chunk is: #label in this chapter, 01-atomics.html#label in another. */
static char *href(int c)
{
    int away = chunks[c].file != here;
    return fmt("%s%s#%s", away ? pages.v[chunks[c].file] : "", away ? ".html" : "", chunks[c].label);
}

/* A link to a chunk, between two strings, written as its chapter's number and its own: [1.7](#label)
 * in this chapter, [1.7](01-atomics.html#label) in another; ? for a label of no chunk. */
static void chunk_link(FILE *out, const char *before, const char *label, const char *after)
{
    int c = chunk_of(LABEL, label);
    if (c < 0)
        fprintf(out, "%s?%s", before, after);
    else
        fprintf(out, "%s[%d.%d](%s)%s", before, atoi(pages.v[chunks[c].file]), chunks[c].num, href(c), after);
}

/* Which root chunks each chunk ends up in, following "used in" from every root down: marks every
 * part of c's name as in root r, then what each part uses. A part already marked is not walked
 * again, so chunks that use each other in a cycle end the walk, each part once per root. */
static void mark(int c, int r)
{
    for (int i = 0; i < nchunks; i++) {
        if (strcmp(chunks[i].name, chunks[c].name) != 0 || reach[i * nchunks + r])
            continue;
        reach[i * nchunks + r] = 1;
        for (int j = 0; j < nchunks; j++)
            for (int u = 0; u < chunks[j].used_in.n; u++)
                if (strcmp(chunks[j].used_in.v[u], chunks[i].label) == 0)
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
        if (strstr(" .cu .cuh .h .c .cpp ", fmt(" %s ", dot)))
            return "cuda";
    }
    return NULL;
}

/* First pass: the chapters, the chunks, their labels and their cross-references. */
static void collect(void)
{
    struct chunk *c = NULL;
    int num = 0;
    for (int i = 0; i < lines.n; i++) {
        const char *l = lines.v[i];
        if (starts(l, "@file ")) {
            if (strcmp(l + 6, chapter) == 0)
                here = pages.n;
            push(&pages, page_of(l + 6));
            num = 0;
        } else if (starts(l, "@begin code")) {
            c = PUSH(chunks, nchunks);
            *c = (struct chunk){.label = "", .name = "", .file = pages.n - 1, .num = ++num};
        } else if (starts(l, "@end code")) {
            c = NULL;
        } else if (c && starts(l, "@xref label ") && !*c->label) {
            c->label = xstrdup(l + 12);
        } else if (c && starts(l, "@defn ")) {
            c->name = xstrdup(l + 6);
        } else if (c && starts(l, "@xref prevdef ")) {
            c->prev = xstrdup(l + 14);
        } else if (c && starts(l, "@xref nextdef ")) {
            c->next = xstrdup(l + 14);
        } else if (c && starts(l, "@xref useitem ")) {  /* noidx's useitems are a code chunk's uses */
            push(&c->used_in, xstrdup(l + 14));
        } else if (c && starts(l, "@xref notused ")) {
            c->root = 1;
        }
    }
    reach = need(calloc((size_t)nchunks * (size_t)nchunks + 1, 1));
    for (int r = 0; r < nchunks; r++)
        if (chunks[r].root && chunk_of(NAME, chunks[r].name) == r)
            mark(r, r);
}

/* Of the chunks (labels) that define an identifier, the first in the same program as the chunk
 * labelled u; NULL when none is: a word that another program defines is no use of its definition. */
static char *definition_for(const char *u, struct list *defs)
{
    int c = chunk_of(LABEL, u);
    for (int i = 0; i < defs->n; i++) {
        int d = chunk_of(LABEL, defs->v[i]);
        if (c >= 0 && d >= 0 && share_root(d, c))
            return defs->v[i];
    }
    return NULL;
}

/* Chunk k as a div: its header, its code (woven) and the cross-reference line under it. */
static void chunk_div(FILE *out, int k, const char *code, struct list *defs, struct list *defs_used,
                      struct list *uses, struct list *uses_def)
{
    struct chunk *c = &chunks[k];
    int first = chunk_of(NAME, c->name), said = 0;
    int tangled = c->root && first == k && language(k) && strchr(c->name, '.');
    /* The identifiers it uses and where each is defined, for the links in its code. */
    fprintf(out, "\n::: {#%s .chunk uses=\"", c->label);
    for (int u = 0; u < uses->n; u++) {
        int d = chunk_of(LABEL, uses_def->v[u]);
        if (d >= 0 && strspn(uses->v[u], IDENT) == strlen(uses->v[u]))
            fprintf(out, "%s%s=%s", u ? " " : "", uses->v[u], href(d));
    }
    /* The page's script opens a chunk in place with its continuations (next, where the next part
     * is); a program's header links to its file (tangled). */
    fputs("\"", out);
    if (c->next && chunk_of(LABEL, c->next) >= 0)
        fprintf(out, " next=\"%s\"", href(chunk_of(LABEL, c->next)));
    if (tangled)
        fprintf(out, " tangled=\"%s\"", c->name);
    code_span(out, "}\n[", "]{.chunkname}", CHUNK_NAME "%s", c->name, first == k ? "\u2261" : "+\u2261");
    if (first != k)
        chunk_link(out, " [(first part ", chunks[first].label, ")]{.chunkfirst}");
    fprintf(out, " [%d.%d]{.chunknum}\n\n%s\n::: chunkrefs\n", atoi(pages.v[c->file]), c->num, code);
    if (c->prev)
        chunk_link(out, said++ ? " Continues " : "Continues ", c->prev, ".");
    if (c->next)
        chunk_link(out, said++ ? " Continued in " : "Continued in ", c->next, ".");
    if (c->used_in.n > 0 && first == k) {
        fprintf(out, "%sUsed in", said++ ? " " : "");
        for (int i = 0; i < c->used_in.n; i++) {
            int u = chunk_of(LABEL, c->used_in.v[i]);
            fprintf(out, "%s ", i ? "," : "");
            if (u >= 0)
                code_span(out, "", "", CHUNK_NAME, chunks[u].name);
            chunk_link(out, " ", c->used_in.v[i], "");
        }
        fprintf(out, ".");
    } else if (tangled)
        code_span(out, said++ ? " Tangled to " : "Tangled to ", ".", "tangled/%s", c->name);
    else if (c->root && first == k)
        fputs(said++ ? " A root chunk." : "A root chunk.", out);
    for (int d = 0; d < defs->n; d++) {
        fprintf(out, "%s%s ", said++ ? " " : "", d == 0 ? "Defines" : "and");
        code_span(out, "", "", "%s", defs->v[d]);
        struct list *used = &defs_used[d];
        const char *last = "";  /* the last one listed */
        for (int i = 0; i < used->n; i++) {
            int u = chunk_of(LABEL, used->v[i]);
            if (strcmp(used->v[i], last) == 0 || (u >= 0 && !share_root(u, k)))
                continue;  /* noidx lists a chunk once per use; other programs have their own */
            chunk_link(out, *last ? " " : ", used in ", used->v[i], "");
            last = used->v[i];
        }
        fprintf(out, "%s", d == defs->n - 1 ? "." : ";");
    }
    for (int u = 0; u < uses->n; u++) {
        fprintf(out, "%s%s ", said++ ? " " : "", u == 0 ? "Uses" : "");
        code_span(out, "", "", "%s", uses->v[u]);
        chunk_link(out, " ", uses_def->v[u], u == uses->n - 1 ? "." : ",");
    }
    fprintf(out, "%s\n:::\n:::\n\n", said ? "" : "\u00a0");
}

/* Text gathered a piece at a time (a code line, a chunk's code): short, so copied whole each time. */
static void append(char **b, const char *s)
{
    size_t n = *b ? strlen(*b) : 0;
    strcpy((*b = xrealloc(*b, n + strlen(s) + 1)) + n, s);
}
static void clear(char **b) { free(*b), *b = NULL, append(b, ""); }

/* The code of chunk k gathered so far as one highlighted block; nothing when there is none. */
static void code_block(FILE *out, char **code, int k)
{
    const char *lang = language(k);
    size_t len = strlen(*code), n = backticks(*code) < 2 ? 3 : backticks(*code) + 1;  /* 3 backticks at least */
    if (len == 0)
        return;
    fence(out, n);
    fprintf(out, " {%s%s}\n%s%s", lang ? "." : "", lang ? lang : ".default", *code, (*code)[len - 1] == '\n' ? "" : "\n");
    fence(out, n);
    fputs("\n\n", out);
    clear(code);
}

static int in_chapter(const char *label)
{
    int c = label ? chunk_of(LABEL, label) : -1;
    return c >= 0 && chunks[c].file == here;
}

/* The text after prefix on line j of the pipeline, or NULL when the line does not start with it. */
static const char *after(int j, const char *prefix)
{
    return starts(lines.v[j], prefix) ? lines.v[j] + strlen(prefix) : NULL;
}

/* One index: an entry per name that this chapter defines or uses, with the chunks that define
 * it, then those that use it (an identifier's uses where a definition is in the same program). */
static int index_list(FILE *out, const char *begin, const char *end, const char *defn, const char *use,
                      int is_chunk)
{
    int entries = 0;
    struct list defs = {0};  /* the entry's defining chunks */
    for (int i = 0; i < lines.n; i++) {
        if (!starts(lines.v[i], begin))
            continue;
        const char *name = strchr(lines.v[i] + strlen(begin), ' '), *d, *u, *last = "";
        int from = i + 1, to, said = 0, mine = 0;
        for (to = from, defs.n = 0; to < lines.n && !starts(lines.v[to], end); to++)
            if ((d = after(to, defn)))
                push(&defs, (char *)d);
        for (int j = from; j < to; j++)
            mine |= in_chapter(after(j, defn)) ||
                    (in_chapter(after(j, use)) && (is_chunk || definition_for(after(j, use), &defs)));
        i = to;
        if (!mine)
            continue;
        code_span(out, "- ", ": defined in", is_chunk ? CHUNK_NAME : "%s", name ? name + 1 : "");
        for (int j = 0; j < defs.n; j++)
            chunk_link(out, " ", defs.v[j], "");
        for (int j = from; j < to; j++) {
            if (!(u = after(j, use)) || strcmp(u, last) == 0)
                continue;
            last = u;
            int own = 0;  /* a use inside a defining chunk is the definition itself */
            for (int e = 0; e < defs.n && !is_chunk; e++)
                own |= strcmp(defs.v[e], u) == 0;
            if (own || (!is_chunk && !definition_for(u, &defs)))
                continue;
            chunk_link(out, said++ ? " " : "; used in ", u, "");
        }
        fprintf(out, "\n");
        entries++;
    }
    return entries;
}

static void emit(FILE *out)
{
    int k = -1, file = -1, mine = 0;
    char *code = NULL, *quote = NULL, *line = NULL;  /* the current chunk's code and code line; a quote */
    int in_code = 0, in_quote = 0, skip_nl = 0, line_text = 0;
    const char *line_use = NULL;  /* the chunk this code line uses; line_text: it holds more than blanks and it */
    FILE *body = NULL;            /* the current chunk's code, in parts, until its header is written */
    char *bodytext = NULL;
    size_t bodylen = 0;
    struct list defs = {0}, pending = {0}, uses = {0}, uses_def = {0}, *defs_used = NULL;
    char *prose = NULL, *tagged = NULL;  /* this prose line; "LINE TEXT" for each with a directive */
    long lineno = 0;
    /* The filter names this file in its messages. */
    fprintf(out, "::: {.source file=\"%s\"}\n:::\n\n", chapter);
    clear(&prose), clear(&tagged);
    for (int i = 0; i < lines.n; i++) {
        const char *l = lines.v[i];
        if (strcmp(l, "@nl") == 0 || strcmp(l, "@index nl") == 0) {
            if (mine && !in_code && (strstr(prose, "{{") || strstr(prose, "when=") || starts(prose, ":::")))
                append(&tagged, fmt("%ld %s\n", lineno, prose));
            clear(&prose), lineno++;
        } else if (!in_code && starts(l, "@text "))
            append(&prose, l + 6);
        if (starts(l, "@file ")) {
            mine = ++file == here, lineno = 1;
        } else if (starts(l, "@begin code")) {
            k++;
            in_code = skip_nl = 1;  /* skip_nl: the newline of the <<name>>= line itself */
            clear(&code);
            clear(&line), line_use = NULL, line_text = 0;
            defs.n = pending.n = uses.n = uses_def.n = 0;
            body = need(open_memstream(&bodytext, &bodylen));
        } else if (starts(l, "@end code")) {
            if (*line)
                append(&code, line);  /* a last line without a newline */
            in_code = 0;
            code_block(body, &code, k);
            fclose(body);
            if (mine)
                chunk_div(out, k, bodytext, &defs, defs_used, &uses, &uses_def);
            free(bodytext);
        } else if (strcmp(l, "@nl") == 0) {
            if (in_code && skip_nl) {
                skip_nl = 0;
            } else if (in_code && line_use && !line_text) {
                /* A line that only uses a chunk is a link to it, set as a line of the code. */
                code_block(body, &code, k);
                fprintf(body, "::: chunkuse\n");
                for (const char *p = line; *p == ' ' || *p == '\t'; p++)
                    fputs(*p == '\t' ? "\u00a0\u00a0\u00a0\u00a0" : "\u00a0", body);
                int u = chunk_of(NAME, line_use);
                code_span(body, "[", "]{.chunkusename} ", CHUNK_NAME, line_use);
                if (u >= 0)
                    chunk_link(body, "", chunks[u].label, "");
                fprintf(body, "\n:::\n\n");
                clear(&line), line_use = NULL, line_text = 0;
            } else if (in_code) {
                append(&line, "\n");
                append(&code, line);
                clear(&line), line_use = NULL, line_text = 0;
            } else if (mine)
                fputc('\n', out);
        } else if (starts(l, "@text ")) {
            if (in_quote)
                append(&quote, l + 6);
            else if (in_code) {
                append(&line, l + 6);
                line_text |= l[6 + strspn(l + 6, " \t")] != '\0';
            } else if (mine)
                fputs(l + 6, out);
        } else if (in_code && starts(l, "@use ")) {
            line_text |= line_use != NULL;
            line_use = l + 5;
            append(&line, fmt(CHUNK_NAME, l + 5));
        } else if (strcmp(l, "@quote") == 0) {
            in_quote = 1;
            clear(&quote);
        } else if (strcmp(l, "@endquote") == 0) {
            in_quote = 0;
            if (mine)
                code_span(out, "", "", "%s", quote);
        } else if (in_code && starts(l, "@index isused ")) {  /* noidx's begindefs ... enddefs */
            if (strcmp(l + 14, chunks[k].label) != 0)  /* finduses sees the name where it is defined */
                push(&pending, (char *)l + 14);
        } else if (in_code && starts(l, "@index defitem ")) {
            defs_used = xrealloc(defs_used, (size_t)(defs.n + 1) * sizeof *defs_used);
            defs_used[defs.n] = pending;
            memset(&pending, 0, sizeof pending);
            push(&defs, (char *)l + 15);
        } else if (in_code && starts(l, "@index isdefined ")) {  /* noidx's beginuses ... enduses */
            push(&pending, (char *)l + 17);
        } else if (in_code && starts(l, "@index useitem ")) {
            char *d = definition_for(chunks[k].label, &pending);
            if (d) {
                push(&uses, (char *)l + 15);
                push(&uses_def, d);
            }
            pending.n = 0;
        }
    }
    /* The prose lines that hold a directive or a condition, or open or close a div, with their lines
     * in the chapter, for the filter's messages: it reads no chapter itself. */
    size_t f = backticks(tagged) < 3 ? 4 : backticks(tagged) + 1;
    fprintf(out, "\n::: {.source-lines file=\"%s\"}\n", chapter);
    fence(out, f);
    fprintf(out, "\n%s", tagged);
    fence(out, f);
    fputs("\n:::\n", out);
    /* The chapter's indexes, from noidx's @xref chunk list and @index entry list. */
    fprintf(out, "\n## Index of chunks {#chunks-%s .unnumbered .chunkindex}\n\n", pages.v[here]);
    index_list(out, "@xref chunkbegin ", "@xref chunkend", "@xref chunkdefn ", "@xref chunkuse ", 1);
    fprintf(out, "\n## Index of identifiers {#identifiers-%s .unnumbered .identindex}\n\n", pages.v[here]);
    if (!index_list(out, "@index entrybegin ", "@index entryend", "@index entrydefn ", "@index entryuse ", 0))
        fprintf(out, "This chapter defines no identifiers.\n");
}

int main(int argc, char **argv)
{
    if (argc != 3 || strcmp(argv[1], "-c") != 0) {
        fprintf(stderr, "usage: nwmarkup BOOK.nw... | cudadefs | finduses | noidx | nw2md -c CHAPTER.nw > CHAPTER.md\n");
        return 2;
    }
    chapter = argv[2];
    char *line = NULL;
    size_t cap = 0;
    for (ssize_t n; (n = getline(&line, &cap, stdin)) != -1; line = NULL, cap = 0) {  /* each line kept */
        if (n > 0 && line[n - 1] == '\n')
            line[n - 1] = '\0';
        push(&lines, line);
    }
    if (ferror(stdin)) {
        fprintf(stderr, "nw2md: cannot read the pipeline\n");
        return 1;
    }
    collect();
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
