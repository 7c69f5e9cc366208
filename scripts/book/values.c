/* values.c -- reads a measurement set's records and writes its values table (notes/design.md). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include "tool.h"

/* The header's own keys, each needed once; every other "key value" line of the header (a key of a-z,
 * 0-9 and _) is provenance, whatever make run wrote (scripts/gpu/gpuinfo.cu and run.sh own them), and
 * a record needs gpu and date among them. From compile on they are the record's prov rows. */
static const char *const keys[] = { "name", "kind", "source", "sha256", "compile", "command", "gpu", "date" };
enum { K_NAME, K_KIND, K_SOURCE, K_SHA256, K_COMPILE, K_COMMAND, K_GPU, K_DATE, NKEYS };
#define MAXPROV 64
static const char *const units[] = { "ms", "us", "ns", "s", "MHz", "GHz", "GB/s", "TB/s", "%" };
#define RUN_SHAPE "'run N exit 0 wall_s S'"

struct pair { const char *a, *b; };          /* uses FILE HEX; a sha256sum line: path, hex */
struct line { const char *kind, *text; size_t no; };  /* kind "$", "o", "e"; "run" or "end" ends a run */
struct run { size_t first, *out, nout; };   /* its first line, its "o" lines (indices in lines) */
struct record {
    char *path, *name;
    const char *hdr[NKEYS];
    const char *prov[MAXPROV][2];   /* from compile on, every key and value, in the record's order */
    size_t nprov;
    struct pair *uses;
    size_t nuses, nlines, nruns;
    struct line *lines;
    struct run *runs;
    double wall;                    /* the seconds its runs took together */
};
struct num {                  /* a number in an output line */
    double v, lo, hi;         /* its value; its range over one run's launches: (LO to HI) after it */
    int dec, exp, range;      /* decimals printed (of the mantissa, the most of the three); printed
                               * with an exponent; a range follows it */
    const char *unit;         /* NULL when the next word is no unit */
    size_t start, end, fend;  /* where it starts and ends, and where its field ends */
    int ends;                 /* it ends its field */
    char *label;              /* design.md, "Labels" */
};
struct value {
    int l, f, occ, nocc, dec;
    char *label, *med, *min, *max;
    const char *unit, *spread;   /* spread: what MIN and MAX span, "runs" or "launches" */
};

static int errors;

/* "FILE:LINE: expected WHAT, found 'TEXT'" (found NULL: the end of the file). */
static int fail(const char *path, size_t lineno, const char *found, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s:%zu: expected ", path, lineno);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, found ? ", found '%.80s%s'\n" : ", found the end of the file\n", found,
            found && strlen(found) > 80 ? "..." : "");
    errors++;
    return -1;
}

/* The lines of a file, without newlines; NULL after an error message. UTF-8 text with no controls but
 * tab, nor bidirectional controls (U+202A..U+202E, U+2066..U+2069 reorder the text shown): a NUL would
 * cut a line short, and bytes that are no UTF-8 would reach pandoc's Lua filters, which fail on them. */
static char **read_lines(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    char **lines = xrealloc(NULL, sizeof *lines), *s = NULL;
    size_t cap = 0, k;
    ssize_t len;
    long c;

    for (*n = 0; f && (len = getline(&s, &cap, f)) >= 0; s = NULL, cap = 0) {
        *PUSH(lines, *n) = s;
        if (s[len - 1] == '\n')
            s[--len] = '\0';
        for (unsigned char *p = (unsigned char *)s; p < (unsigned char *)s + len; p += k) {
            if ((c = utf8(p, &k)) < 0) {   /* the byte, then the continuation bytes after it (a 5-byte form whole) */
                fprintf(stderr, "%s:%zu: expected UTF-8 text, found the bytes %02x", path, *n, *p);
                for (k = 1; k < 6 && (p[k] & 0xc0) == 0x80; k++)
                    fprintf(stderr, " %02x", p[k]);
                fputc('\n', stderr);
            } else if ((c < 32 && c != '\t') || (c >= 127 && c < 160) || (c >= 0x202a && c <= 0x202e) ||
                       (c >= 0x2066 && c <= 0x2069))
                fprintf(stderr, "%s:%zu: expected text (no controls but tab), found U+%04lX\n", path, *n, c);
            else
                continue;
            errors++;
            return NULL;
        }
    }
    if (!f || ferror(f)) {
        fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
        errors++;
        return NULL;
    }
    fclose(f);
    return lines;
}

static int is_hex64(const char *s) { return strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64; }
static int ends_with(const char *s, const char *tail)
{
    return strlen(s) >= strlen(tail) && strcmp(s + strlen(s) - strlen(tail), tail) == 0;
}
static int is_date(const char *s)  /* as date -u +%Y-%m-%dT%H:%M:%SZ writes it */
{
    const char *p = "0000-00-00T00:00:00Z", *t = s;
    while (*p && (*p == '0' ? isdigit((unsigned char)*t) : *t == *p))
        p++, t++;
    return !*p && !*t && atoi(s + 5) - 1u < 12 && atoi(s + 8) - 1u < 31 && atoi(s + 11) < 24 &&
           atoi(s + 14) < 60 && atoi(s + 17) < 61;
}

/* Every header key but uses is needed once; they are checked where the first run should start, so
 * a torn header is named at the line where it stops. */
static int check_header(struct record *r, size_t lineno, const char *found)
{
    for (size_t k = 0; k < NKEYS; k++)
        if (!r->hdr[k])
            return fail(r->path, lineno, found, "'%s VALUE' in the header", keys[k]);
    return 0;
}

#define KEY(k) (kl == strlen(k) && strncmp(line, k, kl) == 0)   /* the line's key (kl bytes) is k */

static int header_line(struct record *r, size_t lineno, char *line, size_t kl, char *val)
{
    size_t k, p, len = strlen(r->name);
    char *sp;

    if (KEY("uses")) {
        if (!(sp = strchr(val, ' ')) || !is_hex64(sp + 1))
            return fail(r->path, lineno, line, "'uses FILE HEX'");
        *PUSH(r->uses, r->nuses) = (struct pair){ xstrndup(val, (size_t)(sp - val)), sp + 1 };
        return 0;
    }
    for (k = 0; k < NKEYS && !KEY(keys[k]); k++)
        ;
    if (kl == 0 || strspn(line, "abcdefghijklmnopqrstuvwxyz0123456789_") < kl)
        return fail(r->path, lineno, line, "a header line 'KEY VALUE' (KEY of a-z, 0-9 and _) or " RUN_SHAPE);
    for (p = 0; p < r->nprov && !KEY(r->prov[p][0]); p++)
        ;
    if (p < r->nprov || (k < NKEYS && r->hdr[k]))
        return fail(r->path, lineno, line, "one '%.*s' line, not two", (int)kl, line);
    if (!*val)
        return fail(r->path, lineno, line, "'%.*s VALUE'", (int)kl, line);
    if (r->nprov == MAXPROV && k >= K_COMPILE)
        return fail(r->path, lineno, line, "at most %d provenance lines", MAXPROV);
    if (k == K_NAME && strcmp(val, r->name))
        return fail(r->path, lineno, line, "'name %s', the name of the file", r->name);
    if (k == K_SOURCE && (strncmp(val, r->name, len) || (strcmp(val + len, ".cu") && strcmp(val + len, ".sh"))))
        return fail(r->path, lineno, line, "'source %s.cu' or 'source %s.sh', its name's", r->name, r->name);
    if (k == K_DATE && !is_date(val))
        return fail(r->path, lineno, line, "'date YYYY-MM-DDTHH:MM:SSZ' (UTC, as date -u writes it)");
    if (k == K_KIND && strcmp(val, "program") && strcmp(val, "session"))
        return fail(r->path, lineno, line, "'kind program' or 'kind session'");
    if (k == K_SHA256 && !is_hex64(val))
        return fail(r->path, lineno, line, "'sha256 HEX' (64 lower-case hex digits)");
    if (k >= K_COMPILE)   /* from compile on, and every key not in keys[]: provenance */
        line[kl] = '\0', r->prov[r->nprov][0] = line, r->prov[r->nprov++][1] = val;
    if (k < NKEYS)
        r->hdr[k] = val;
    return 0;
}

static int touches(int c) { return isalnum(c) || c == '_' || c == '.'; }

/* The number that starts at s[i], as design.md's "Numbers" says: the end of the longest match there
 * (0 when none starts there), and whether it is a number (*d, *dec, *exp) or text. Every shorter match
 * ends before a digit, '.', 'e' or 'E', which it would touch, so the longest match is the only
 * candidate at a start, and one that starts inside it ends where it does; 1e400 and 1e-400 are no
 * doubles (ERANGE): they are text. */
static size_t number_at(const char *s, size_t i, double *d, int *dec, int *exp, int *ok)
{
    size_t j = i + (s[i] == '-'), k;

    if (!isdigit((unsigned char)s[j]) || (i > 0 && touches((unsigned char)s[i - 1])))
        return 0;
    *dec = *exp = 0;
    j += strspn(s + j, "0123456789");
    if (s[j] == '.' && isdigit((unsigned char)s[j + 1]))
        *dec = (int)strspn(s + j + 1, "0123456789"), j += 1 + (size_t)*dec;
    if (s[j] == 'e' || s[j] == 'E') {
        k = j + 1 + (s[j + 1] == '+' || s[j + 1] == '-');
        if (isdigit((unsigned char)s[k]))
            j = k + strspn(s + k, "0123456789"), *exp = 1;
    }
    errno = 0;
    *d = strtod(s + i, NULL);
    *ok = !touches((unsigned char)s[j]) && errno != ERANGE;
    return j;
}

/* The text s[a..b) before a number, from the end of the previous field, trimmed, each run of blanks
 * one space (design.md, "Labels"). */
static char *label(const char *s, size_t a, size_t b)
{
    while (a < b && (isblank((unsigned char)s[a]) || ispunct((unsigned char)s[a])))
        a++;
    while (b > a && isblank((unsigned char)s[b - 1]))
        b--;
    b -= b > a && (s[b - 1] == ':' || s[b - 1] == '=');
    char *l = xstrndup(b > a ? s + a : "-", b > a ? b - a : 1), *d = l, *c;
    for (c = l; *c; c++)   /* a blank only before a character that is none, so none at the end */
        if (!isblank((unsigned char)*c) || (c[1] && !isblank((unsigned char)c[1])))
            *d++ = isblank((unsigned char)*c) ? ' ' : *c;
    *d = '\0';
    return l;
}

/* The numbers of a line (design.md, "Numbers", "Labels" and "Ranges"); *out is malloc'ed. */
static size_t numbers(const char *s, struct num **out)
{
    size_t i = 0, j, k, n = 0, u, a, b, from = 0;   /* from: where the field of the next number starts */
    struct num *v = NULL, *x;
    double d, lo, hi;
    int dec, exp, ok, dlo, dhi, elo, ehi;

    for (; s[i]; i++) {
        if (!(j = number_at(s, i, &d, &dec, &exp, &ok)) || !ok) {
            i = j ? j - 1 : i;   /* past text that looks like a number */
            continue;
        }
        x = PUSH(v, n);
        *x = (struct num){ d, d, d, dec, exp, 0, NULL, i, j, j, 1, NULL };
        k = j + strspn(s + j, " \t");
        j = k + strspn(s + k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ/%");
        for (u = 0; u < sizeof units / sizeof *units && !x->unit; u++)
            if (strlen(units[u]) == j - k && strncmp(s + k, units[u], j - k) == 0)
                x->unit = units[u], x->fend = j;
        /* A word that is not its unit, a word joined by a hyphen, a ':' or '=' continue the field ("Labels"). */
        if (!x->unit && (isalpha((unsigned char)s[k]) || s[k] == ':' || s[k] == '=' ||
                 (s[k] == '-' && k == x->end && isalpha((unsigned char)s[k + 1]))))
            x->ends = 0;
        /* A range, " (LO to HI)" right after the number or its unit, is the number's own ("Ranges"). */
        if (x->ends && s[x->fend] == ' ' && s[x->fend + 1] == '(' &&
            (a = number_at(s, x->fend + 2, &lo, &dlo, &elo, &ok)) && ok && strncmp(s + a, " to ", 4) == 0 &&
            (b = number_at(s, a + 4, &hi, &dhi, &ehi, &ok)) && ok && s[b] == ')') {
            x->range = 1, x->lo = lo, x->hi = hi, x->fend = b + 1;
            x->dec = dec > dlo ? (dec > dhi ? dec : dhi) : (dlo > dhi ? dlo : dhi);
            x->exp |= elo | ehi;
            i = b;
        } else
            i = x->end - 1;
        x->label = label(s, from, x->start);
        from = x->ends ? x->fend : from;
    }
    *out = v;
    return n;
}

/* Whether run k has run 1's shape, so that each value pairs the same thing in every run: the same
 * commands and output lines, each line's numbers of the same labels and units; the numbers and the
 * standard error may differ. Else an error at run k's first line that differs ("Record format"). */
static int same_shape(const struct record *r, size_t k)
{
    const struct line *a = &r->lines[r->runs[0].first], *b = &r->lines[r->runs[k].first];
    struct num *x, *y;

    for (;; a++, b++) {
        while (!strcmp(a->kind, "e"))
            a++;
        while (!strcmp(b->kind, "e"))
            b++;
        if (a->kind[1] && b->kind[1])   /* both runs end here */
            return 1;
        int same = !strcmp(a->kind, b->kind) && (*a->kind == 'o' || !strcmp(a->text, b->text));
        if (same && *a->kind == 'o') {
            size_t n = numbers(a->text, &x);
            same = numbers(b->text, &y) == n;
            for (size_t f = 0; same && f < n; f++)   /* units are pointers into units[] */
                same = x[f].unit == y[f].unit && !strcmp(x[f].label, y[f].label);
            free(x), free(y);
        }
        if (!same)
            return fail(r->path, b->no, fmt("%s %s", b->kind, b->text), "the shape of run 1's line %zu, '%s %.50s' "
                        "(each run prints the same lines, labels and units; only numbers and stderr vary)", a->no,
                        a->kind, a->text), 0;
    }
}

/* Reads SETDIR/NAME.rec; NULL after an error message. */
static struct record *load(const char *dir, const char *name)
{
    struct record *r = need(calloc(1, sizeof *r));
    char **lines;
    size_t n, i;

    r->path = fmt("%s/%s.rec", dir, name);
    r->name = xstrndup(name, strlen(name));
    if (!(lines = read_lines(r->path, &n)))
        return NULL;
    for (i = 0; i < n; i++) {
        char *line = lines[i], *val;
        size_t kl = strcspn(line, " ");
        double wall = 0;
        val = line + kl + (line[kl] == ' ');
        if (!r->nruns && line[0] == '#')
            continue;
        if (!r->nruns && KEY("run") && check_header(r, i + 1, line))
            return NULL;
        /* As make run writes it (only runs that exit 0, their seconds with 3 decimals): its own canonical
         * form (no sign, exponent, extra zero or nan), under 1e9 s (no inf; the total stays finite). */
        if (KEY("run") && (sscanf(line, "run %*s exit 0 wall_s %lf", &wall) != 1 || !(wall < 1e9) ||
                           strcmp(line, fmt("run %zu exit 0 wall_s %.3f", r->nruns + 1, fabs(wall)))))
            return fail(r->path, i + 1, line, "'run %zu exit 0 wall_s S' (S: seconds, 3 decimals; make run records "
                        "only runs that exit 0)", r->nruns + 1), NULL;
        if (r->nruns && KEY("end") && strcmp(line, fmt("end %zu", r->nruns)))
            return fail(r->path, i + 1, line, "'end %zu' (the record has %zu run%s)", r->nruns, r->nruns,
                        r->nruns == 1 ? "" : "s"), NULL;
        if (KEY("run") || (r->nruns && (KEY("$") || KEY("o") || KEY("e") || KEY("end")))) {
            line[kl] = '\0';          /* the line's key is its kind */
            *PUSH(r->lines, r->nlines) = (struct line){ line, val, i + 1 };
            if (r->nruns > 1 && line[1] && !same_shape(r, r->nruns - 1))   /* a "run" or "end" ends a run */
                return NULL;
            if (KEY("run"))
                r->wall += wall, *PUSH(r->runs, r->nruns) = (struct run){ r->nlines, NULL, 0 };
            else if (KEY("end"))
                break;
            else if (*line == 'o')
                *PUSH(r->runs[r->nruns - 1].out, r->runs[r->nruns - 1].nout) = r->nlines - 1;
        } else if (r->nruns)
            return fail(r->path, i + 1, line, "'$ COMMAND', 'o LINE', 'e LINE', " RUN_SHAPE " or 'end N'"), NULL;
        else if (header_line(r, i + 1, line, kl, val))
            return NULL;
    }
    if (!r->nruns && (check_header(r, n + 1, NULL) || fail(r->path, n + 1, NULL, "'run 1 exit 0 wall_s S'")))
        return NULL;
    if (i == n)
        return fail(r->path, n + 1, NULL, "'end %zu' (the record is incomplete; make run ONLY=%s measures it again)",
                    r->nruns, r->name), NULL;
    if (i + 1 < n)
        return fail(r->path, i + 2, lines[i + 1], "nothing after 'end %zu'", r->nruns), NULL;
    return r;
}

/* x with dec decimals (of its mantissa when exp), rounded half away from zero in decimal: the
 * mean of 0.405 and 0.412 is 0.4085, which shows as 0.409, not as the 0.408 of its binary double.
 * Printing one decimal more first is exact for such a mean, so only that digit decides. */
static char *format(double x, int dec, int exp)
{
    /* |x| after room for a '-' and a 0 that a carry can make a 1 (-099.96 rounds to -100.0). */
    char *s = fmt(exp ? "-0%.*e" : "-0%.*f", dec + 1, fabs(x)), *tail = exp ? strchr(s, 'e') : s + strlen(s);
    char *p = tail - 1 - (dec == 0);   /* the extra digit, and the point when there are no decimals */
    int up = tail[-1] >= '5';

    memmove(p, tail, strlen(tail) + 1);
    while (up && p-- > s)
        if (*p == '9')
            *p = '0';
        else if (*p != '.')
            *p += 1, up = 0;
    if (exp && s[1] == '1')   /* 9.99e+02 rounds up to 10.00e+02, which is 1.00e+03 */
        return fmt("%.*e", dec, copysign(pow(10, atoi(strchr(s, 'e') + 1) + 1), x));
    s[s[1] == '0'] = '-';   /* the sign on the 0 that no carry needed, or in its own room */
    return s + (s[1] == '-') + !signbit(x);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_label(const void *a, const void *b)
{
    const struct value *x = *(struct value *const *)a, *y = *(struct value *const *)b;
    int c = strcmp(x->label, y->label);
    return c ? c : (x > y) - (x < y);
}

/* The values of a record, their labels from the first run, and its representative run. */
static size_t values(const struct record *r, struct value **out, size_t *rep)
{
    size_t nr = r->nruns, nv = 0, l, f, i, k, cnt = 0;
    struct num **nums = xrealloc(NULL, nr * sizeof *nums);
    double *vals = xrealloc(NULL, nr * sizeof *vals), *sorted = xrealloc(NULL, nr * sizeof *sorted);
    long *score = need(calloc(nr, sizeof *score));
    struct value *v = NULL, *x;

    for (l = 0; l < r->runs[0].nout; l++) {
        for (i = 0; i < nr; i++)   /* the same count in every run: they have the same shape (load) */
            cnt = numbers(r->lines[r->runs[i].out[l]].text, &nums[i]);
        for (f = 0; f < cnt; f++) {
            int exp = 0, ranged = 1;
            double lo = nums[0][f].lo, hi = nums[0][f].hi;
            x = PUSH(v, nv);
            *x = (struct value){ (int)l + 1, (int)f + 1, 0, 0, 0, nums[0][f].label, NULL, NULL, NULL, nums[0][f].unit,
                                 "runs" };
            for (i = 0; i < nr; i++) {
                const struct num *n = &nums[i][f];
                vals[i] = sorted[i] = n->v;
                x->dec = n->dec > x->dec ? n->dec : x->dec;
                exp |= n->exp;
                ranged &= n->range;
                lo = n->lo < lo ? n->lo : lo;
                hi = n->hi > hi ? n->hi : hi;
            }
            qsort(sorted, nr, sizeof *sorted, cmp_double);
            /* The spread: over the launches of every run where each printed its range, else over the runs. */
            if (ranged)
                x->spread = "launches";
            else
                lo = sorted[0], hi = sorted[nr - 1];
            x->min = format(lo, x->dec, exp);
            x->max = format(hi, x->dec, exp);
            x->med = format(nr % 2 ? sorted[nr / 2] : sorted[nr / 2 - 1] / 2 + sorted[nr / 2] / 2, x->dec, exp);
            /* Distance in rank from the middle, doubled to stay whole: a value with `below` smaller
             * and `equal` equal values sits at mid-rank below + (equal-1)/2, the middle is (n-1)/2. */
            for (i = 0; i < nr; i++) {
                long twice = -(long)nr;   /* 2 below + equal - n */
                for (k = 0; k < nr; k++)
                    twice += (vals[k] < vals[i]) + (vals[k] <= vals[i]);
                score[i] += labs(twice);
            }
        }
        for (i = 0; i < nr; i++)
            free(nums[i]);
    }
    for (*rep = 0, i = 1; i < nr; i++)
        if (score[i] < score[*rep])
            *rep = i;
    /* Each label's occurrences, in order (#K): the values sorted by label, then by place, in runs. */
    struct value **by = xrealloc(NULL, (nv + 1) * sizeof *by);
    for (i = 0; i < nv; i++)
        by[i] = &v[i];
    qsort(by, nv, sizeof *by, cmp_label);
    for (i = 0; i < nv; i++)   /* its place among its label's, then (backwards) their number */
        by[i]->occ = i && !strcmp(by[i]->label, by[i - 1]->label) ? by[i - 1]->occ + 1 : 1;
    for (i = nv; i-- > 0;)
        by[i]->nocc = i + 1 < nv && !strcmp(by[i]->label, by[i + 1]->label) ? by[i + 1]->nocc : by[i]->occ;
    free(by);
    *out = v;
    return nv;
}

/* A text field of the table: a backslash, a tab and a newline written \\, \t and \n. */
static void put(const char *s)
{
    putchar('\t');
    for (size_t n; *s; s += n) {   /* a run of plain characters at a time */
        fwrite(s, 1, n = strcspn(s, "\\\t\n"), stdout);
        if (s[n])
            printf("\\%c", s[n] == '\\' ? '\\' : s[n] == '\t' ? 't' : 'n'), n++;
    }
}

/* One row of the table: its kind, then its fields (NULL ends them). */
static void row(const char *kind, ...)
{
    va_list ap;
    const char *s;

    fputs(kind, stdout);
    va_start(ap, kind);
    while ((s = va_arg(ap, const char *)))
        put(s);
    va_end(ap);
    putchar('\n');
}

/* Why a record is stale, or NULL when it is fresh: its source, then each program a session runs. */
static char *stale(const struct record *r, const struct pair *h, size_t nh)
{
    size_t i, k;

    for (i = 0; i <= r->nuses; i++) {
        const char *file = i ? r->uses[i - 1].a : r->hdr[K_SOURCE], *runs = i ? ", which it runs," : "";
        const char *want = i ? r->uses[i - 1].b : r->hdr[K_SHA256];
        for (k = 0; k < nh && strcmp(h[k].a, file); k++)
            ;
        if (k == nh)
            return fmt("tangled/%s%s is not in tangled/ any more", file, runs);
        if (strcmp(h[k].b, want))
            return fmt("tangled/%s%s changed since it was measured (sha256 %.12s then, %.12s now)", file, runs,
                       want, h[k].b);
    }
    return NULL;
}

/* A record, or a root without one (r NULL). */
struct entry { const char *name, *root; struct record *r; };
static int cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct entry *)a)->name, ((const struct entry *)b)->name);
}

int main(int argc, char **argv)
{
    struct pair *h = NULL, *set = NULL;
    struct entry *e = xrealloc(NULL, sizeof *e);       /* never NULL, for qsort */
    size_t nh = 0, ne = 0, nset = 0, nrec, i, k, n;
    char **lines;
    struct dirent *d;
    DIR *dir;

    if (argc != 3) {
        fputs("usage: values SETDIR TANGLED.sha256 > SET.tsv\n", stderr);
        return 2;
    }
    /* The hashes of tangled/: lines "HEX  tangled/NAME" of sha256sum ('*' for binary mode). */
    if (!(lines = read_lines(argv[2], &n)))
        return 1;
    for (i = 0; i < n; i++) {
        char *s = lines[i], *base;
        if ((strlen(s) < 67 || strspn(s, "0123456789abcdef") != 64 || s[64] != ' ' || !strchr(" *", s[65])) &&
            fail(argv[2], i + 1, s, "'HEX  tangled/NAME' (a line of sha256sum)"))
            continue;
        s[64] = '\0';
        base = strrchr(s + 66, '/');
        *PUSH(h, nh) = (struct pair){ base ? base + 1 : s + 66, s };
    }
    if (!(dir = opendir(argv[1]))) {
        fprintf(stderr, "%s: cannot open the measurement set: %s\n", argv[1], strerror(errno));
        return 1;
    }
    /* Records are read in name order, so errors come out in the same order every time. */
    while ((d = readdir(dir)))
        if (d->d_name[0] != '.' && ends_with(d->d_name, ".rec"))
            *PUSH(e, ne) = (struct entry){ xstrndup(d->d_name, strlen(d->d_name) - 4), NULL, NULL };
    closedir(dir);
    qsort(e, ne, sizeof *e, cmp_entry);
    for (nrec = ne, i = 0; i < nrec; i++)
        e[i].r = load(argv[1], e[i].name);
    /* Every program and session in tangled/ is a root that should have a record. */
    for (i = 0; i < nh; i++) {
        for (k = 0; k < nrec && !(e[k].r && strcmp(e[k].r->hdr[K_SOURCE], h[i].a) == 0); k++)
            ;
        if (k == nrec && (ends_with(h[i].a, ".cu") || ends_with(h[i].a, ".sh")))
            *PUSH(e, ne) = (struct entry){ xstrndup(h[i].a, strlen(h[i].a) - 3), h[i].a, NULL };
    }
    if (errors)
        return 1;
    qsort(e, ne, sizeof *e, cmp_entry);

    /* The set's provenance, its "set" rows (design.md): a key they disagree on has none; date the latest. */
    for (i = 0; i < ne; i++)
        for (size_t p = 0; e[i].r && p < e[i].r->nprov; p++) {
            const char *key = e[i].r->prov[p][0], *x = e[i].r->prov[p][1];
            for (k = 0; k < nset && strcmp(set[k].a, key); k++)
                ;
            if (k == nset)
                *PUSH(set, nset) = (struct pair){ key, x };
            else if (set[k].b && strcmp(x, set[k].b))
                set[k].b = strcmp(key, "date") ? NULL : strcmp(x, set[k].b) > 0 ? x : set[k].b;
        }
    for (k = 0; k < nset; k++)
        if (set[k].b && strcmp(set[k].a, "compile") && strcmp(set[k].a, "command"))
            row("set", set[k].a, set[k].b, NULL);
    for (i = 0; i < ne; i++) {
        struct record *r = e[i].r;
        struct value *v;

        if (!r) {
            row("record", e[i].name, "missing", fmt("no record %s/%s.rec (make run ONLY=%s makes it)", argv[1],
                e[i].name, e[i].name), "0", ends_with(e[i].root, ".sh") ? "session" : "program", "0.000", NULL);
            continue;
        }
        char *why = stale(r, h, nh);
        row("record", r->name, why ? "stale" : "fresh", why ? why : "-", fmt("%zu", r->nruns), r->hdr[K_KIND],
            fmt("%.3f", r->wall), NULL);
        size_t rep, nv = values(r, &v, &rep);
        for (k = 0; k < r->nprov; k++)
            row("prov", r->name, r->prov[k][0], r->prov[k][1], NULL);
        /* Each value with its line in the record (of the representative run) and its key (design.md). */
        for (k = 0; k < nv; k++)
            row("value", r->name, fmt("%d.%d", v[k].l, v[k].f), v[k].label, fmt("%d", v[k].occ), fmt("%d", v[k].nocc),
                v[k].med, v[k].min, v[k].max, fmt("%d", v[k].dec), v[k].unit ? v[k].unit : "-", v[k].spread,
                fmt("%zu", r->lines[r->runs[rep].out[v[k].l - 1]].no),
                fmt("%s: %s #%d", r->name, v[k].label, v[k].occ), NULL);
        for (k = r->runs[rep].first; !r->lines[k].kind[1]; k++)   /* to its end: a "run" or "end" line */
            row("line", r->name, r->lines[k].kind, r->lines[k].text, NULL);
    }
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "values: cannot write the table: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
