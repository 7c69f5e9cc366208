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
    char *label, *name;
    int file, num;           /* its chapter (index into pages), and its number there, from 1 */
    char *prev, *next;       /* labels of the previous and next part of the same name */
    struct list used_in;     /* labels of chunks that use this name */
    int root;                /* never used: a file or a top-level chunk */
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
    size_t len = strlen(s);
    int pad = len > 0 && (s[0] == '`' || s[len - 1] == '`');
    fputs(before, out);
    fence(out, backticks(s) + 1);
    fprintf(out, "%s%s%s", pad ? " " : "", s, pad ? " " : "");
    fence(out, backticks(s) + 1);
    fputs(after, out);
    free(s);
}

static char *page_of(const char *file)
{
    const char *base = strrchr(file, '/');
    char *page = xstrdup(base ? base + 1 : file), *dot = strrchr(page, '.');
    if (dot)
        *dot = '\0';
    return page;
}

/* Where a chunk is: #label in this chapter, 01-atomics.html#label in another. */
static void href(FILE *out, int c)
{
    if (chunks[c].file != here)
        fprintf(out, "%s.html", pages.v[chunks[c].file]);
    fprintf(out, "#%s", chunks[c].label);
}

/* A link to a chunk, between two strings, written as its number: [7](#label) in this chapter, and
 * for a chunk of another chapter its chapter's number too, [1.7](01-atomics.html#label). */
static void chunk_link(FILE *out, const char *before, const char *label, const char *after)
{
    int c = chunk_of_label(label);
    fputs(before, out);
    if (c < 0)
        fputs("?", out);
    else {
        fprintf(out, "[%d.%d](", atoi(pages.v[chunks[c].file]), chunks[c].num);
        href(out, c);
        fputs(")", out);
    }
    fputs(after, out);
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
        if (strstr(" .cu .cuh .h .c .cpp ", fmt(" %s ", dot)))
            return "cuda";
    }
    return NULL;
}

/* First pass: the chapters, the chunks, their labels and their cross-references. */
static void collect(void)
{
    struct chunk *c = NULL;
    int in_uses = 0, num = 0;
    for (int i = 0; i < lines.n; i++) {
        const char *l = lines.v[i];
        if (starts(l, "@file ")) {
            if (strcmp(l + 6, chapter) == 0)
                here = pages.n;
            push(&pages, page_of(l + 6));
            num = 0;
        } else if (starts(l, "@begin code")) {
            *(c = PUSH(chunks, nchunks)) = (struct chunk){.name = "", .file = pages.n - 1, .num = ++num};
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
        } else if (c && (strcmp(l, "@xref beginuses") == 0 || strcmp(l, "@xref enduses") == 0)) {
            in_uses = strstr(l, "begin") != NULL;
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
    reach = need(calloc((size_t)nchunks * (size_t)nchunks + 1, 1));
    for (int r = 0; r < nchunks; r++)
        if (chunks[r].root && first_of_name(chunks[r].name) == r)
            mark(r, r);
}

/* Of the chunks that define an identifier, the one in the same program as chunk k; NULL when none
 * is: a word that another program defines is no use of its definition here. */
static char *definition_for(int k, struct list *defs)
{
    for (int i = 0; i < defs->n; i++) {
        int d = chunk_of_label(defs->v[i]);
        if (d >= 0 && share_root(d, k))
            return defs->v[i];
    }
    return NULL;
}

/* Chunk k as a div: its header, its code (woven) and the cross-reference line under it. */
static void chunk_div(FILE *out, int k, const char *code, struct list *defs, struct list *defs_used,
                      struct list *uses, struct list *uses_def)
{
    struct chunk *c = &chunks[k];
    int first = first_of_name(c->name), said = 0;
    /* The identifiers it uses and where each is defined, for the links in its code. */
    fprintf(out, "\n::: {#%s .chunk uses=\"", c->label ? c->label : "");
    for (int u = 0; u < uses->n; u++) {
        int d = chunk_of_label(uses_def->v[u]);
        if (d >= 0 && strspn(uses->v[u], IDENT) == strlen(uses->v[u])) {
            fprintf(out, "%s%s=", u ? " " : "", uses->v[u]);
            href(out, d);
        }
    }
    /* The page's script opens a chunk in place with its continuations (next, where the next part
     * is); a program's header links to its file (tangled). */
    fputs("\"", out);
    if (c->next && chunk_of_label(c->next) >= 0)
        fputs(" next=\"", out), href(out, chunk_of_label(c->next)), fputs("\"", out);
    if (c->root && first == k && language(k) && strchr(c->name, '.'))
        fprintf(out, " tangled=\"%s\"", c->name);
    code_span(out, "}\n[", "]{.chunkname}", CHUNK_NAME "%s", c->name, first == k ? "\u2261" : "+\u2261");
    if (first != k)
        chunk_link(out, " [(first part ", chunks[first].label ? chunks[first].label : "", ")]{.chunkfirst}");
    fprintf(out, " [%d.%d]{.chunknum}\n\n%s\n::: chunkrefs\n", atoi(pages.v[c->file]), c->num, code);
    const char *parts[] = {c->prev, c->next}, *say[] = {"Continues ", "Continued in "};
    for (int p = 0; p < 2; p++)
        if (parts[p]) {
            fputs(said++ ? " " : "", out);
            chunk_link(out, say[p], parts[p], ".");
        }
    if (c->used_in.n > 0 && first == k) {
        fprintf(out, "%sUsed in", said++ ? " " : "");
        for (int i = 0; i < c->used_in.n; i++) {
            int u = chunk_of_label(c->used_in.v[i]);
            fprintf(out, "%s ", i ? "," : "");
            if (u >= 0)
                code_span(out, "", "", CHUNK_NAME, chunks[u].name);
            chunk_link(out, " ", c->used_in.v[i], "");
        }
        fprintf(out, ".");
    } else if (c->root && first == k) {
        fputs(said++ ? " " : "", out);
        if (language(k) && strchr(c->name, '.'))
            code_span(out, "Tangled to ", ".", "tangled/%s", c->name);
        else
            fputs("A root chunk.", out);
    }
    for (int d = 0; d < defs->n; d++) {
        fprintf(out, "%s%s ", said++ ? " " : "", d == 0 ? "Defines" : "and");
        code_span(out, "", "", "%s", defs->v[d]);
        struct list *used = &defs_used[d];
        const char *last = "";
        int shown = 0;
        for (int i = 0; i < used->n; i++) {
            int u = chunk_of_label(used->v[i]);
            if (strcmp(used->v[i], last) == 0 || (u >= 0 && !share_root(u, k)))
                continue;  /* noidx lists a chunk once per use; other programs have their own */
            last = used->v[i];
            chunk_link(out, shown++ ? " " : ", used in ", used->v[i], "");
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

/* The code gathered so far as one highlighted block; nothing when there is none. */
static void code_block(FILE *out, char **code, const char *lang)
{
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
    int c = label ? chunk_of_label(label) : -1;
    return c >= 0 && chunks[c].file == here;
}

/* The text after prefix on line j of the pipeline, or NULL when the line does not start with it. */
static const char *after(int j, const char *prefix)
{
    return starts(lines.v[j], prefix) ? lines.v[j] + strlen(prefix) : NULL;
}

/* Whether chunk (label) u is in the same program as one of the definitions on lines from..to. */
static int seen_from(const char *u, int from, int to, const char *defn)
{
    const char *d;
    int c = chunk_of_label(u);
    for (int e = from; e < to; e++)
        if ((d = after(e, defn)) && c >= 0 && chunk_of_label(d) >= 0 && share_root(chunk_of_label(d), c))
            return 1;
    return 0;
}

/* One index: an entry per name that this chapter defines or uses, with the chunks that define
 * it, then those that use it (an identifier's uses where a definition is in the same program). */
static int index_list(FILE *out, const char *begin, const char *end, const char *defn, const char *use,
                      int is_chunk)
{
    int entries = 0;
    for (int i = 0; i < lines.n; i++) {
        if (!starts(lines.v[i], begin))
            continue;
        const char *name = strchr(lines.v[i] + strlen(begin), ' '), *d, *u, *last = "";
        int from = i + 1, to, said = 0, mine = 0;
        for (to = from; to < lines.n && !starts(lines.v[to], end); to++)
            ;
        for (int j = from; j < to; j++)
            mine |= in_chapter(after(j, defn)) ||
                    (in_chapter(after(j, use)) && (is_chunk || seen_from(after(j, use), from, to, defn)));
        i = to;
        if (!mine)
            continue;
        code_span(out, "- ", ": defined in", is_chunk ? CHUNK_NAME : "%s", name ? name + 1 : "");
        for (int j = from; j < to; j++)
            if ((d = after(j, defn)))
                chunk_link(out, " ", d, "");
        for (int j = from; j < to; j++) {
            if (!(u = after(j, use)) || strcmp(u, last) == 0)
                continue;
            last = u;
            int own = 0;  /* a use inside a defining chunk is the definition itself */
            for (int e = from; e < to && !is_chunk; e++)
                own |= (d = after(e, defn)) && strcmp(d, u) == 0;
            if (own || (!is_chunk && !seen_from(u, from, to, defn)))
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
    int in_code = 0, in_quote = 0, in_defs = 0, in_uses = 0, skip_nl = 0, line_text = 0;
    const char *line_use = NULL;  /* the chunk this code line uses; line_text: it holds more than blanks and it */
    const char *lang = NULL;      /* the current chunk's */
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
            if (mine && !in_code && (strstr(prose, "{{") || strstr(prose, "when="))) {
                char n[32];
                snprintf(n, sizeof n, "%ld ", lineno);
                append(&tagged, n), append(&tagged, prose), append(&tagged, "\n");
            }
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
            lang = language(k);
            body = need(open_memstream(&bodytext, &bodylen));
        } else if (starts(l, "@end code")) {
            if (*line)
                append(&code, line);  /* a last line without a newline */
            in_code = 0;
            code_block(body, &code, lang);
            fclose(body);
            if (mine)
                chunk_div(out, k, bodytext, &defs, defs_used, &uses, &uses_def);
            free(bodytext);
        } else if (strcmp(l, "@nl") == 0) {
            if (in_code && skip_nl) {
                skip_nl = 0;
            } else if (in_code && line_use && !line_text) {
                /* A line that only uses a chunk is a link to it, set as a line of the code. */
                code_block(body, &code, lang);
                fprintf(body, "::: chunkuse\n");
                for (const char *p = line; *p == ' ' || *p == '\t'; p++)
                    fputs(*p == '\t' ? "\u00a0\u00a0\u00a0\u00a0" : "\u00a0", body);
                int u = first_of_name(line_use);
                code_span(body, "[", "]{.chunkusename} ", CHUNK_NAME, line_use);
                if (u >= 0 && chunks[u].label)
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
            append(&line, "\u27e8");
            append(&line, l + 5);
            append(&line, "\u27e9");
        } else if (strcmp(l, "@quote") == 0) {
            in_quote = 1;
            clear(&quote);
        } else if (strcmp(l, "@endquote") == 0) {
            in_quote = 0;
            if (mine)
                code_span(out, "", "", "%s", quote);
        } else if (in_code && (strcmp(l, "@index begindefs") == 0 || strcmp(l, "@index enddefs") == 0)) {
            in_defs = strstr(l, "begin") != NULL;
        } else if (in_defs && starts(l, "@index isused ")) {
            if (chunks[k].label && strcmp(l + 14, chunks[k].label) == 0)
                continue;  /* finduses sees the name where it is defined */
            push(&pending, (char *)l + 14);
        } else if (in_defs && starts(l, "@index defitem ")) {
            defs_used = xrealloc(defs_used, (size_t)(defs.n + 1) * sizeof *defs_used);
            defs_used[defs.n] = pending;
            memset(&pending, 0, sizeof pending);
            push(&defs, (char *)l + 15);
        } else if (in_code && (strcmp(l, "@index beginuses") == 0 || strcmp(l, "@index enduses") == 0)) {
            in_uses = strstr(l, "begin") != NULL;
        } else if (in_uses && starts(l, "@index isdefined ")) {
            push(&pending, (char *)l + 17);
        } else if (in_uses && starts(l, "@index useitem ")) {
            char *d = definition_for(k, &pending);
            if (d) {
                push(&uses, (char *)l + 15);
                push(&uses_def, d);
            }
            pending.n = 0;
        }
    }
    /* The prose lines that hold a directive or a condition, with their lines in the chapter, for
     * the filter's messages: it reads no chapter itself. */
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
