/* records.c -- the record format of design.md: parse, compute statistics, check, format, write. */
#include "records.h"
#include "sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Header keys in the order the file has them; "multi" keys occur zero or more times. */
static const struct {
	const char *key;
	int multi;
	const char *shape;        /* for "expected" messages */
} order[] = {
	{ "name", 0, "name NAME" },
	{ "kind", 0, "kind program|session" },
	{ "source", 0, "source FILE" },
	{ "sha256", 0, "sha256 HEX" },
	{ "uses", 1, "uses FILE HEX" },
	{ "compile", 0, "compile COMMAND" },
	{ "command", 0, "command COMMAND" },
	{ "script", 1, "script LINE" },
	{ "gpu", 0, "gpu NAME" },
	{ "compute_capability", 0, "compute_capability N.N" },
	{ "sm_count", 0, "sm_count N" },
	{ "sm_clock_mhz", 0, "sm_clock_mhz N" },
	{ "driver", 0, "driver VERSION" },
	{ "cuda_runtime", 0, "cuda_runtime VERSION" },
	{ "nvcc", 0, "nvcc VERSION" },
	{ "date", 0, "date YYYY-MM-DDTHH:MM:SSZ" },
	{ "runs", 0, "runs N" },
	{ "timeout_s", 0, "timeout_s S" },
	{ "representative", 0, "representative N" },
};
#define NORDER (sizeof order / sizeof order[0])

const char *const rec_prov_keys[] = {
	"gpu", "compute_capability", "sm_count", "sm_clock_mhz", "driver", "cuda_runtime", "nvcc", "date", NULL
};

static const char *const units[] = { "ms", "us", "ns", "s", "MHz", "GHz", "GB/s", "TB/s", "%", NULL };

#define RUN_SHAPE "run N exit N wall_s S"
#define VALUE_SHAPE "value L.N med X min X max X dec N unit U"

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
/* What a number may not touch on either side (design.md): letters, digits, '_' and '.'. */
static int touches(int c) { return is_alnum(c) || c == '_' || c == '.'; }
static int is_name_char(int c) { return is_alnum(c) || c == '_' || c == '.' || c == '-'; }

int rec_prov_char_ok(int c)
{
	return is_alnum(c) || (c != '\0' && strchr(" .()/:+-", c) != NULL);
}

int rec_is_prov_key(const char *key)
{
	int i;

	for (i = 0; rec_prov_keys[i]; i++)
		if (strcmp(key, rec_prov_keys[i]) == 0)
			return 1;
	return 0;
}

char *rec_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (p)
		memcpy(p, s, n);
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void rec_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Grows *v (of *n elements of size sz) by one, zeroed; returns the new element or NULL. */
static void *grow(void *pv, size_t *n, size_t sz)
{
	void **v = pv;
	size_t cap = 4;
	char *p;

	while (cap <= *n)
		cap *= 2;
	/* Capacity is implied by n: a power of two from 4 up, so realloc only when n hits it. */
	if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0)) {
		p = realloc(*v, cap * sz);
		if (!p)
			return NULL;
		*v = p;
	}
	p = (char *)*v + *n * sz;
	memset(p, 0, sz);
	(*n)++;
	return p;
}

/* ---------- text cleaning and checking ---------- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned char lo = 0x80, hi = 0xBF;

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		n = 3;
		if (c == 0xE0) lo = 0xA0;
		if (c == 0xED) hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		n = 4;
		if (c == 0xF0) lo = 0x90;
		if (c == 0xF4) hi = 0x8F;
	} else
		return 0;
	if (n > avail)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	/* C1 controls (U+0080..U+009F) are controls too: TeX and terminals choke on them. */
	if (c == 0xC2 && s[1] < 0xA0)
		return 0;
	return n;
}

/* Offset of the first byte that is a control character (other than tab) or not UTF-8, or -1. */
static long bad_text_at(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (u[i] < 0x20 ? u[i] != '\t' : u[i] == 0x7F)
			return (long)i;
		n = utf8_len(u + i, len - i);
		if (!n)
			return (long)i;
		i += n;
	}
	return -1;
}

/* A copy of s[0..len) with each bad byte (see bad_text_at) replaced by '?'. */
static char *clean_text(const char *s, size_t len)
{
	char *p = xstrndup(s, len);
	unsigned char *u = (unsigned char *)p;
	size_t i = 0, n;

	if (!p)
		return NULL;
	while (i < len) {
		if (u[i] < 0x20 ? u[i] != '\t' : u[i] == 0x7F) {
			u[i++] = '?';
			continue;
		}
		n = utf8_len(u + i, len - i);
		if (!n) {
			u[i++] = '?';
			continue;
		}
		i += n;
	}
	return p;
}

static char *clean_prov(const char *s)
{
	size_t i, j = 0, n = strlen(s);
	char *p = malloc(n + 8);

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		if (rec_prov_char_ok((unsigned char)s[i]))
			p[j++] = s[i];
	p[j] = '\0';
	/* Blanks at the ends would not survive a reader's eye, and a blank value reads as missing. */
	while (j > 0 && p[j - 1] == ' ')
		p[--j] = '\0';
	for (i = 0; p[i] == ' '; i++)
		;
	memmove(p, p + i, j - i + 1);
	if (!p[0])
		strcpy(p, "unknown");
	return p;
}

/* Shows found text in a message: at most 60 bytes, controls as '?'. */
static void show(const char *s, char *buf, size_t len)
{
	size_t i, n = strlen(s);
	size_t max = len > 4 ? len - 4 : 0;

	if (max > 60)
		max = 60;
	for (i = 0; i < n && i < max; i++)
		buf[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7F) ? '?' : s[i];
	if (n > max && max >= 3) {
		strcpy(buf + i, "...");
		return;
	}
	buf[i] = '\0';
}

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!is_digit((unsigned char)*s))
			return 0;
	return 1;
}

static int parse_int(const char *s, long *v)
{
	char *end;
	const char *p = s;

	if (*p == '-')
		p++;
	if (!all_digits(p) || strlen(p) > 9)
		return -1;
	*v = strtol(s, &end, 10);
	return 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	if (!*s || !(is_digit((unsigned char)*s) || *s == '-'))
		return -1;
	errno = 0;
	*v = strtod(s, &end);
	if (*end || errno || !isfinite(*v))
		return -1;
	return 0;
}

/* Checks a header value; returns NULL when good, else what was expected. */
static const char *check_hdr(const char *key, const char *value)
{
	size_t i;

	if (strcmp(key, "name") == 0 || strcmp(key, "source") == 0) {
		if (!*value)
			return "a file name of letters, digits, '_', '.' and '-'";
		for (i = 0; value[i]; i++)
			if (!is_name_char((unsigned char)value[i]))
				return "a file name of letters, digits, '_', '.' and '-'";
		return NULL;
	}
	if (strcmp(key, "kind") == 0)
		return strcmp(value, "program") && strcmp(value, "session") ? "program or session" : NULL;
	if (strcmp(key, "sha256") == 0) {
		if (strlen(value) != 64)
			return "64 lower-case hex digits";
		for (i = 0; value[i]; i++)
			if (!is_digit((unsigned char)value[i]) && !(value[i] >= 'a' && value[i] <= 'f'))
				return "64 lower-case hex digits";
		return NULL;
	}
	if (rec_is_prov_key(key)) {
		if (!*value)
			return "a value";
		for (i = 0; value[i]; i++)
			if (!rec_prov_char_ok((unsigned char)value[i]))
				return "only letters, digits, blanks and .()/:+- (provenance is printed in the book)";
		return NULL;
	}
	if (strcmp(key, "runs") == 0 || strcmp(key, "representative") == 0) {
		long v;
		if (parse_int(value, &v) || v < 1)
			return "a positive whole number";
		return NULL;
	}
	if (strcmp(key, "timeout_s") == 0) {
		double v;
		if (parse_double(value, &v) || v < 0)
			return "a number of seconds";
		return NULL;
	}
	if (bad_text_at(value, strlen(value)) >= 0)
		return "text without control characters, in UTF-8";
	return NULL;
}

/* ---------- building ---------- */

struct record *rec_new(void)
{
	return calloc(1, sizeof(struct record));
}

static void free_lines(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void rec_free_strings(char **v, size_t n)
{
	free_lines(v, n);
}

void rec_free(struct record *r)
{
	size_t i;

	if (!r)
		return;
	free(r->path);
	for (i = 0; i < r->n_hdr; i++) {
		free(r->hdr[i].key);
		free(r->hdr[i].value);
	}
	free(r->hdr);
	for (i = 0; i < r->n_uses; i++) {
		free(r->uses[i].name);
		free(r->uses[i].sha256);
	}
	free(r->uses);
	free_lines(r->script, r->n_script);
	for (i = 0; i < r->n_runs; i++) {
		free_lines(r->runs[i].out, r->runs[i].n_out);
		free_lines(r->runs[i].err, r->runs[i].n_err);
	}
	free(r->runs);
	free(r->values);
	free(r);
}

const char *rec_get(const struct record *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n_hdr; i++)
		if (strcmp(r->hdr[i].key, key) == 0)
			return r->hdr[i].value;
	return NULL;
}

static int set_raw(struct record *r, const char *key, char *value)
{
	size_t i;
	struct rec_hdr *h;

	if (!value)
		return -1;
	for (i = 0; i < r->n_hdr; i++)
		if (strcmp(r->hdr[i].key, key) == 0) {
			free(r->hdr[i].value);
			r->hdr[i].value = value;
			return 0;
		}
	h = grow(&r->hdr, &r->n_hdr, sizeof *h);
	if (!h || !(h->key = rec_strdup(key))) {
		if (h)
			r->n_hdr--;
		free(value);
		return -1;
	}
	h->value = value;
	return 0;
}

int rec_set(struct record *r, const char *key, const char *value)
{
	if (rec_is_prov_key(key))
		return set_raw(r, key, clean_prov(value));
	return set_raw(r, key, clean_text(value, strlen(value)));
}

int rec_add_use(struct record *r, const char *name, const char *sha256)
{
	struct rec_use *u = grow(&r->uses, &r->n_uses, sizeof *u);

	if (!u)
		return -1;
	u->name = rec_strdup(name);
	u->sha256 = rec_strdup(sha256);
	return u->name && u->sha256 ? 0 : -1;
}

static int add_line(char ***v, size_t *n, char *line)
{
	char **slot;

	if (!line)
		return -1;
	slot = grow(v, n, sizeof *slot);
	if (!slot) {
		free(line);
		return -1;
	}
	*slot = line;
	return 0;
}

int rec_add_script(struct record *r, const char *line)
{
	return add_line(&r->script, &r->n_script, clean_text(line, strlen(line)));
}

struct rec_run *rec_add_run(struct record *r, int exit, double wall_s)
{
	struct rec_run *run = grow(&r->runs, &r->n_runs, sizeof *run);

	if (run) {
		run->exit = exit;
		run->wall_s = wall_s;
	}
	return run;
}

int rec_run_add_out(struct rec_run *run, const char *line, size_t len)
{
	return add_line(&run->out, &run->n_out, clean_text(line, len));
}

int rec_run_add_err(struct rec_run *run, const char *line, size_t len)
{
	return add_line(&run->err, &run->n_err, clean_text(line, len));
}

/* ---------- numbers ---------- */

size_t rec_numbers(const char *s, struct rec_num **out)
{
	size_t len = strlen(s), i = 0, n = 0, j, k;
	struct rec_num *v = NULL, *num;

	*out = NULL;
	while (i < len) {
		size_t st = i;
		int dec = 0, exp = 0;

		j = i;
		if (s[j] == '-')
			j++;
		if (!is_digit((unsigned char)s[j]) || (st > 0 && touches((unsigned char)s[st - 1]))) {
			i++;
			continue;
		}
		while (is_digit((unsigned char)s[j]))
			j++;
		if (s[j] == '.' && is_digit((unsigned char)s[j + 1])) {
			j++;
			while (is_digit((unsigned char)s[j])) {
				j++;
				dec++;
			}
		}
		if (s[j] == 'e' || s[j] == 'E') {
			k = j + 1;
			if (s[k] == '+' || s[k] == '-')
				k++;
			if (is_digit((unsigned char)s[k])) {
				while (is_digit((unsigned char)s[k]))
					k++;
				j = k;
				exp = 1;
			}
		}
		/* Every shorter match ends before a digit, '.', 'e' or 'E', which it would touch, so the
		 * longest match is the only candidate at this start. */
		if (touches((unsigned char)s[j])) {
			i++;
			continue;
		}
		num = grow(&v, &n, sizeof *num);
		if (!num) {
			free(v);
			return 0;
		}
		{
			char *tmp = xstrndup(s + st, j - st);
			num->v = tmp ? strtod(tmp, NULL) : 0;
			free(tmp);
		}
		num->decimals = dec;
		num->exp = exp;
		num->start = st;
		num->end = j;
		k = j;
		while (s[k] == ' ' || s[k] == '\t')
			k++;
		{
			size_t w = k, u;
			while (is_alpha((unsigned char)s[w]) || s[w] == '/' || s[w] == '%')
				w++;
			for (u = 0; units[u]; u++)
				if (strlen(units[u]) == w - k && strncmp(s + k, units[u], w - k) == 0) {
					strcpy(num->unit, units[u]);
					break;
				}
		}
		i = j;
	}
	*out = v;
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Computes the values into r->values and the representative run. */
static int compute(struct record *r)
{
	size_t nr = r->n_runs, maxl = 0, i, l, f;
	struct rec_num **nums = NULL;
	size_t *counts = NULL;
	double *vals = NULL, *sorted = NULL;
	long *score = NULL;
	int rc = -1;

	free(r->values);
	r->values = NULL;
	r->n_values = 0;
	r->representative = 1;
	if (nr == 0)
		return 0;
	for (i = 0; i < nr; i++)
		if (r->runs[i].n_out > maxl)
			maxl = r->runs[i].n_out;
	nums = calloc(nr, sizeof *nums);
	counts = calloc(nr, sizeof *counts);
	vals = calloc(nr, sizeof *vals);
	sorted = calloc(nr, sizeof *sorted);
	score = calloc(nr, sizeof *score);
	if (!nums || !counts || !vals || !sorted || !score)
		goto out;
	for (l = 0; l < maxl; l++) {
		int same = 1;

		for (i = 0; i < nr; i++) {
			free(nums[i]);
			nums[i] = NULL;
			counts[i] = 0;
			if (l < r->runs[i].n_out)
				counts[i] = rec_numbers(r->runs[i].out[l], &nums[i]);
			else
				same = 0;
			if (counts[i] != counts[0])
				same = 0;
		}
		if (!same)
			continue;
		for (f = 0; f < counts[0]; f++) {
			struct rec_value *v = grow(&r->values, &r->n_values, sizeof *v);
			int unit_same = 1;

			if (!v)
				goto out;
			v->line = (int)l + 1;
			v->field = (int)f + 1;
			for (i = 0; i < nr; i++) {
				struct rec_num *x = &nums[i][f];
				vals[i] = sorted[i] = x->v;
				if (x->decimals > v->decimals)
					v->decimals = x->decimals;
				v->exp |= x->exp;
				if (strcmp(x->unit, nums[0][f].unit))
					unit_same = 0;
			}
			if (unit_same)
				strcpy(v->unit, nums[0][f].unit);
			qsort(sorted, nr, sizeof *sorted, cmp_double);
			v->min = sorted[0];
			v->max = sorted[nr - 1];
			v->med = nr % 2 ? sorted[nr / 2] : (sorted[nr / 2 - 1] + sorted[nr / 2]) / 2;
			/* Distance in rank from the middle, doubled to stay whole: a run whose value has
			 * `below` smaller and `equal` equal values sits at mid-rank below + (equal-1)/2,
			 * and the middle is (n-1)/2. Tied values share a rank, so they score alike. */
			for (i = 0; i < nr; i++) {
				size_t below = 0, equal = 0, k;
				long d;
				for (k = 0; k < nr; k++) {
					below += vals[k] < vals[i];
					equal += vals[k] == vals[i];
				}
				d = (long)(2 * below + equal) - (long)nr;
				score[i] += d < 0 ? -d : d;
			}
		}
	}
	for (i = 1; i < nr; i++)
		if (score[i] < score[r->representative - 1])
			r->representative = (int)i + 1;
	rc = 0;
out:
	if (nums)
		for (i = 0; i < nr; i++)
			free(nums[i]);
	free(nums);
	free(counts);
	free(vals);
	free(sorted);
	free(score);
	return rc;
}

int rec_compute(struct record *r)
{
	char buf[32];

	if (compute(r))
		return -1;
	snprintf(buf, sizeof buf, "%zu", r->n_runs);
	if (set_raw(r, "runs", rec_strdup(buf)))
		return -1;
	snprintf(buf, sizeof buf, "%d", r->representative);
	return set_raw(r, "representative", rec_strdup(buf));
}

const struct rec_run *rec_rep(const struct record *r)
{
	if (r->n_runs == 0)
		return NULL;
	if (r->representative < 1 || (size_t)r->representative > r->n_runs)
		return &r->runs[0];
	return &r->runs[r->representative - 1];
}

const struct rec_value *rec_find_value(const struct record *r, int line, int field)
{
	size_t i;

	for (i = 0; i < r->n_values; i++)
		if (r->values[i].line == line && r->values[i].field == field)
			return &r->values[i];
	return NULL;
}

static int value_code(const struct record *r, int line, int field)
{
	size_t i, c0 = 0;

	(void)field;

	for (i = 0; i < r->n_runs; i++) {
		struct rec_num *n;
		size_t c;

		if (line < 1 || (size_t)line > r->runs[i].n_out)
			return REC_ENOLINE;
		c = rec_numbers(r->runs[i].out[line - 1], &n);
		free(n);
		if (i == 0)
			c0 = c;
		else if (c != c0)
			return REC_EVARIES;
	}
	return REC_ENOFIELD;
}

int rec_value(const struct record *r, int line, int field, const char *stat,
              double *v, int *decimals, const char **unit)
{
	const struct rec_value *x = rec_find_value(r, line, field);

	if (stat && strcmp(stat, "med") && strcmp(stat, "min") && strcmp(stat, "max"))
		return REC_EBADSTAT;
	if (!x)
		return value_code(r, line, field);
	if (v)
		*v = !stat || strcmp(stat, "med") == 0 ? x->med : strcmp(stat, "min") == 0 ? x->min : x->max;
	if (decimals)
		*decimals = x->decimals;
	if (unit)
		*unit = x->unit[0] ? x->unit : NULL;
	return 0;
}

static const char *rec_label(const struct record *r)
{
	const char *s;

	if (r->path)
		return r->path;
	s = rec_get(r, "name");
	return s ? s : "record";
}

void rec_value_explain(const struct record *r, int line, int field, int code, char *msg, size_t len)
{
	const char *lab = rec_label(r);
	size_t i;

	switch (code) {
	case REC_EBADSTAT:
		rec_seterr(msg, len, "the statistic must be med, min or max");
		return;
	case REC_ENOLINE:
		for (i = 0; i < r->n_runs; i++)
			if (line < 1 || (size_t)line > r->runs[i].n_out) {
				rec_seterr(msg, len, "%s: run %zu printed %zu stdout line%s, so there is no line %d",
				       lab, i + 1, r->runs[i].n_out, r->runs[i].n_out == 1 ? "" : "s", line);
				return;
			}
		break;
	case REC_EVARIES: {
		char a[160] = "";
		size_t o = 0;
		for (i = 0; i < r->n_runs && o < sizeof a - 24; i++) {
			struct rec_num *n;
			size_t c = rec_numbers(r->runs[i].out[line - 1], &n);
			free(n);
			o += (size_t)snprintf(a + o, sizeof a - o, "%s%zu", i ? ", " : "", c);
		}
		rec_seterr(msg, len, "%s: the runs printed different numbers of numbers on stdout line %d (%s), "
		       "so it has no values", lab, line, a);
		return;
	}
	case REC_ENOFIELD: {
		const struct rec_run *run = rec_rep(r);
		struct rec_num *n;
		size_t c = 0;
		char sh[80] = "";
		if (run && line >= 1 && (size_t)line <= run->n_out) {
			c = rec_numbers(run->out[line - 1], &n);
			free(n);
			show(run->out[line - 1], sh, sizeof sh);
		}
		rec_seterr(msg, len, "%s: stdout line %d has %zu number%s, so there is no number %d: '%s'",
		       lab, line, c, c == 1 ? "" : "s", field, sh);
		return;
	}
	default:
		break;
	}
	rec_seterr(msg, len, "%s: no value %d.%d", lab, line, field);
}

/* ---------- formatting ---------- */

int rec_format_value(char *buf, size_t len, double v, int decimals, int exp, const char *unit)
{
	char num[64];
	int n;

	if (decimals < 0)
		decimals = 0;
	if (decimals > 17)
		decimals = 17;
	if (exp)
		snprintf(num, sizeof num, "%.*e", decimals, v);
	else {
		/* Round in decimal, half away from zero: the mean of 0.405 and 0.412 is 0.4085, which
		 * the book should show as 0.409, not as the 0.408 its binary double would give. */
		size_t nl, i;
		int carry;
		snprintf(num, sizeof num, "%.*f", decimals + 1, v);
		nl = strlen(num);
		carry = num[nl - 1] >= '5';
		num[--nl] = '\0';
		if (decimals == 0)
			num[--nl] = '\0';
		for (i = nl; carry && i-- > 0;) {
			if (num[i] == '.' || num[i] == '-')
				continue;
			if (num[i] == '9')
				num[i] = '0';
			else {
				num[i]++;
				carry = 0;
			}
		}
		if (carry) {
			size_t at = num[0] == '-';
			memmove(num + at + 1, num + at, nl - at + 1);
			num[at] = '1';
		}
	}
	/* A median that rounds to zero from below would print as "-0.00". */
	if (num[0] == '-') {
		const char *p = num + 1;
		while (*p == '0' || *p == '.')
			p++;
		if (!*p || *p == 'e')
			memmove(num, num + 1, strlen(num));
	}
	/* Whole numbers of five digits or more read better in prose grouped: 1,048,576. */
	if (!exp && decimals == 0) {
		char grouped[sizeof num];
		size_t digits = strlen(num) - (num[0] == '-'), o = 0, i = 0;
		if (digits >= 5 && digits + digits / 3 + 2 < sizeof grouped) {
			if (num[0] == '-')
				grouped[o++] = num[i++];
			for (; num[i]; i++) {
				grouped[o++] = num[i];
				digits--;
				if (digits > 0 && digits % 3 == 0)
					grouped[o++] = ',';
			}
			grouped[o] = '\0';
			snprintf(num, sizeof num, "%s", grouped);
		}
	}
	if (!unit || !*unit)
		n = snprintf(buf, len, "%s", num);
	else if (strcmp(unit, "%") == 0)
		n = snprintf(buf, len, "%s%%", num);
	else
		n = snprintf(buf, len, "%s %s", num, unit);
	return n;
}

int rec_format_ratio(char *buf, size_t len, double ratio)
{
	/* Decide on the rounded value, so 9.96 prints as "10 times", not "10.0 times". */
	double r1 = round(ratio * 10) / 10;

	if (!isfinite(ratio))
		return -1;
	if (fabs(r1) < 10)
		return snprintf(buf, len, "%.1f times", r1);
	return snprintf(buf, len, "%.0f times", ratio);
}

void rec_code_span(FILE *out, const char *s)
{
	size_t n = rec_longest_backticks(s, 0) + 1, i;
	/* A span that starts or ends with a backtick needs a blank inside its fence. */
	int pad = s[0] == '`' || (*s && s[strlen(s) - 1] == '`');

	for (i = 0; i < n; i++)
		fputc('`', out);
	fprintf(out, "%s%s%s", pad ? " " : "", s, pad ? " " : "");
	for (i = 0; i < n; i++)
		fputc('`', out);
}

int rec_provenance_text(const struct record *r, char *buf, size_t len)
{
	const char *gpu = rec_get(r, "gpu"), *drv = rec_get(r, "driver");
	const char *cuda = rec_get(r, "cuda_runtime"), *cc = rec_get(r, "compute_capability");
	const char *date = rec_get(r, "date");
	char raw[512], day[32] = "", sm[32] = "";
	size_t n = 0;

	if (date) {
		size_t k = strcspn(date, "T");
		if (k >= sizeof day)
			k = sizeof day - 1;
		memcpy(day, date, k);
		day[k] = '\0';
	}
	if (cc && is_digit((unsigned char)cc[0])) {
		const char *dot = strchr(cc, '.');
		if (dot && all_digits(dot + 1))
			snprintf(sm, sizeof sm, "sm_%.*s%s", (int)(dot - cc), cc, dot + 1);
		else if (all_digits(cc))
			snprintf(sm, sizeof sm, "sm_%s", cc);
	}
	/* Every field keeps to rec_prov_char_ok's characters, none of which starts Markdown
	 * markup inside a line, so the text goes into the Markdown as it is. */
	raw[0] = '\0';
#define PART(...) do { if (n < sizeof raw) n += (size_t)snprintf(raw + n, sizeof raw - n, __VA_ARGS__); } while (0)
	PART("%s", gpu ? gpu : "unknown GPU");
	PART(" \xC2\xB7 driver %s", drv ? drv : "unknown");
	PART(" \xC2\xB7 CUDA %s", cuda ? cuda : "unknown");
	if (sm[0])
		PART(" \xC2\xB7 %s", sm);
	if (day[0])
		PART(" \xC2\xB7 %s", day);
	if (r->n_runs == 1)
		PART(" \xC2\xB7 1 run");
	else
		PART(" \xC2\xB7 representative of %zu runs", r->n_runs);
#undef PART
	return snprintf(buf, len, "%s", raw) < (int)len ? 0 : -1;
}

size_t rec_longest_backticks(const char *s, size_t cur)
{
	size_t run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > cur)
			cur = run;
	}
	return cur;
}

int rec_console_markdown(const struct record *r, FILE *out)
{
	const struct rec_run *run = rec_rep(r);
	const char *kind = rec_get(r, "kind"), *comp = rec_get(r, "compile"), *cmd = rec_get(r, "command");
	int session = kind && strcmp(kind, "session") == 0;
	size_t longest = 0, i, f;
	char prov[1200];

	if (!run)
		return -1;
	if (session)
		for (i = 0; i < r->n_script; i++)
			longest = rec_longest_backticks(r->script[i], longest);
	else {
		if (comp)
			longest = rec_longest_backticks(comp, longest);
		if (cmd)
			longest = rec_longest_backticks(cmd, longest);
	}
	for (i = 0; i < run->n_out; i++)
		longest = rec_longest_backticks(run->out[i], longest);
	for (i = 0; i < run->n_err; i++)
		longest = rec_longest_backticks(run->err[i], longest);
	/* A fence longer than any backtick run in the content cannot be closed by the content. */
	f = longest < 3 ? 3 : longest + 1;
	if (rec_provenance_text(r, prov, sizeof prov))
		return -1;
	/* The div styles the block in HTML; the raw LaTeX frames it in the PDF, where pandoc
	 * would otherwise set it like any code (book/preamble.tex defines bookoutput). */
	fputs("::: output\n```{=latex}\n\\begin{bookoutput}\n```\n\n", out);
	for (i = 0; i < f; i++)
		fputc('`', out);
	fputs("{.console}\n", out);
	if (session) {
		for (i = 0; i < r->n_script; i++)
			fprintf(out, "$ %s\n", r->script[i]);
	} else {
		if (comp && *comp)
			fprintf(out, "$ %s\n", comp);
		if (cmd && *cmd)
			fprintf(out, "$ %s\n", cmd);
	}
	for (i = 0; i < run->n_out; i++)
		fprintf(out, "%s\n", run->out[i]);
	if (run->n_err) {
		fputs("[stderr]\n", out);
		for (i = 0; i < run->n_err; i++)
			fprintf(out, "%s\n", run->err[i]);
	}
	if (run->exit)
		fprintf(out, "[exit status %d]\n", run->exit);
	for (i = 0; i < f; i++)
		fputc('`', out);
	fprintf(out, "\n\n```{=latex}\n\\bookprovenance\n```\n\n[%s]{.provenance}\n\n"
	        "```{=latex}\n\\end{bookoutput}\n```\n:::\n", prov);
	return ferror(out) ? -1 : 0;
}

/* ---------- writing ---------- */

/* Statistics are written with the decimals printed (a mean of two exactly needs one more), or,
 * when printed with an exponent, as the shortest text that reads back as the same double. */
int rec_format_stat(char *buf, size_t len, const struct rec_value *v, double x, int extra)
{
	int p;

	if (!v->exp)
		return snprintf(buf, len, "%.*f", v->decimals + extra, x);
	for (p = 1; p < 17; p++) {
		snprintf(buf, len, "%.*g", p, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	return snprintf(buf, len, "%.*g", p, x);
}

static void fmt_value_line(FILE *f, const struct rec_value *v, size_t nruns)
{
	char med[64], mn[64], mx[64];

	rec_format_stat(med, sizeof med, v, v->med, nruns % 2 == 0);
	rec_format_stat(mn, sizeof mn, v, v->min, 0);
	rec_format_stat(mx, sizeof mx, v, v->max, 0);
	fprintf(f, "value %d.%d med %s min %s max %s dec %d unit %s\n", v->line, v->field, med, mn, mx,
	        v->decimals, v->unit[0] ? v->unit : "-");
}

int rec_validate(const struct record *r, char *err, size_t errlen)
{
	size_t k;
	const char *why, *v;

	for (k = 0; k < NORDER; k++) {
		if (order[k].multi)
			continue;
		v = rec_get(r, order[k].key);
		if (!v) {
			rec_seterr(err, errlen, "the record has no '%s'", order[k].shape);
			return -1;
		}
		if ((why = check_hdr(order[k].key, v))) {
			rec_seterr(err, errlen, "'%s %s': expected %s", order[k].key, v, why);
			return -1;
		}
	}
	for (k = 0; k < r->n_hdr; k++) {
		size_t j;
		for (j = 0; j < NORDER; j++)
			if (strcmp(order[j].key, r->hdr[k].key) == 0 && !order[j].multi)
				break;
		if (j == NORDER) {
			rec_seterr(err, errlen, "the record has a field '%s', which the format does not know", r->hdr[k].key);
			return -1;
		}
	}
	for (k = 0; k < r->n_uses; k++)
		if (check_hdr("source", r->uses[k].name) || check_hdr("sha256", r->uses[k].sha256)) {
			rec_seterr(err, errlen, "'uses %s %s': expected a file name and its sha256", r->uses[k].name,
			       r->uses[k].sha256);
			return -1;
		}
	if (r->n_runs == 0) {
		rec_seterr(err, errlen, "the record has no runs");
		return -1;
	}
	return 0;
}

char *rec_format(const struct record *r, size_t *len, char *err, size_t errlen)
{
	char *buf = NULL;
	size_t n = 0, k, i, j;
	FILE *f;
	const char *name;

	if (rec_validate(r, err, errlen))
		return NULL;
	f = open_memstream(&buf, &n);
	if (!f) {
		rec_seterr(err, errlen, "out of memory");
		return NULL;
	}
	name = rec_get(r, "name");
	fprintf(f, "# %s.rec -- written by make run; regenerate it with make run ONLY=%s, never edit it by hand\n",
	        name, name);
	for (k = 0; k < NORDER; k++) {
		if (strcmp(order[k].key, "uses") == 0)
			for (i = 0; i < r->n_uses; i++)
				fprintf(f, "uses %s %s\n", r->uses[i].name, r->uses[i].sha256);
		else if (strcmp(order[k].key, "script") == 0)
			for (i = 0; i < r->n_script; i++)
				fprintf(f, "script %s\n", r->script[i]);
		else
			fprintf(f, "%s %s\n", order[k].key, rec_get(r, order[k].key));
	}
	for (i = 0; i < r->n_runs; i++) {
		const struct rec_run *run = &r->runs[i];
		fprintf(f, "run %zu exit %d wall_s %.3f\n", i + 1, run->exit, run->wall_s);
		for (j = 0; j < run->n_out; j++)
			fprintf(f, "o %s\n", run->out[j]);
		for (j = 0; j < run->n_err; j++)
			fprintf(f, "e %s\n", run->err[j]);
	}
	for (i = 0; i < r->n_values; i++)
		fmt_value_line(f, &r->values[i], r->n_runs);
	if (fclose(f)) {
		free(buf);
		rec_seterr(err, errlen, "out of memory");
		return NULL;
	}
	if (len)
		*len = n;
	return buf;
}

static long fail_after = -1;
static int fail_kill;

void rec_test_fail_after(long bytes, int kill)
{
	fail_after = bytes;
	fail_kill = kill;
}

int rec_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	char *tmp = malloc(strlen(path) + 64), *dir = NULL;
	int fd = -1, e;
	size_t done = 0;
	sigset_t block, old;

	if (!tmp) {
		rec_seterr(err, errlen, "%s: out of memory", path);
		return -1;
	}
	/* Hidden, and named after the target, so a crash leaves something run.sh can find and remove. */
	snprintf(tmp, strlen(path) + 64, "%.*s%s.%s.tmp.%ld", (int)dlen, path, slash ? "/" : "",
	         slash ? slash + 1 : path, (long)getpid());
	/* An interrupt between open and rename would leave the temporary file behind. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	/* a crashed writer that had our pid long ago */
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0) {
		e = errno;
		rec_seterr(err, errlen, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
		goto fail_noremove;
	}
	while (done < len) {
		size_t want = len - done;
		ssize_t w;
		if (fail_after >= 0) {
			if ((long)done >= fail_after) {
				if (fail_kill)
					raise(SIGKILL);
				e = ENOSPC;
				rec_seterr(err, errlen, "%s: write failed after %zu bytes: %s (RECORD_FAIL_AFTER_BYTES)",
				       path, done, strerror(e));
				goto fail;
			}
			if ((long)want > fail_after - (long)done)
				want = (size_t)(fail_after - (long)done);
		}
		w = write(fd, data + done, want);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			e = errno;
			rec_seterr(err, errlen, "%s: write failed: %s", path, strerror(e));
			goto fail;
		}
		done += (size_t)w;
	}
	if (fsync(fd)) {
		e = errno;
		rec_seterr(err, errlen, "%s: fsync failed: %s", path, strerror(e));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		e = errno;
		rec_seterr(err, errlen, "%s: close failed: %s", path, strerror(e));
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path)) {
		e = errno;
		rec_seterr(err, errlen, "%s: rename failed: %s", path, strerror(e));
		goto fail;
	}
	/* The rename itself is durable only once the directory is synced. */
	dir = slash ? xstrndup(path, dlen ? dlen : 1) : rec_strdup(".");
	if (dir) {
		int dfd = open(dir, O_RDONLY);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	free(dir);
	free(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
fail_noremove:
	free(tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return -1;
}

/* ---------- reading ---------- */

char *rec_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL, *p;
	size_t n = 0, cap = 0, got;
	int e;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 65536 * 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		e = errno ? errno : EIO;
		free(buf);
		fclose(f);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

struct parser {
	const char *path;
	int lineno;
	char *err;
	size_t errlen;
};

static int perr(struct parser *p, const char *expected, const char *found)
{
	char sh[80];

	show(found, sh, sizeof sh);
	rec_seterr(p->err, p->errlen, "%s:%d: expected %s, found '%s'", p->path, p->lineno, expected, sh);
	return -1;
}

static int key_index(const char *key)
{
	size_t k;

	for (k = 0; k < NORDER; k++)
		if (strcmp(order[k].key, key) == 0)
			return (int)k;
	return -1;
}

/* "run N exit N wall_s S" */
static int parse_run(struct parser *p, struct record *r, const char *line)
{
	char a[32], b[32], c[64], d[64], e[64], g[64], extra[8];
	long n, ex;
	double w;
	struct rec_run *run;
	char shape[64];

	snprintf(shape, sizeof shape, "'run %zu exit N wall_s S'", r->n_runs + 1);
	if (sscanf(line, "%31s %31s %63s %63s %63s %63s %7s", a, b, c, d, e, g, extra) != 6 ||
	    strcmp(a, "run") || strcmp(c, "exit") || strcmp(e, "wall_s") ||
	    parse_int(b, &n) || parse_int(d, &ex) || parse_double(g, &w) || ex < 0 || ex > 255 || w < 0)
		return perr(p, "'" RUN_SHAPE "'", line);
	if (n != (long)r->n_runs + 1)
		return perr(p, shape, line);
	run = rec_add_run(r, (int)ex, w);
	if (!run) {
		rec_seterr(p->err, p->errlen, "%s:%d: out of memory", p->path, p->lineno);
		return -1;
	}
	run->lineno = p->lineno;
	return 0;
}

static int parse_value_line(const char *line, int *l, int *f, double st[3], int *dec, char unit[8])
{
	char w[13][64];
	int n = sscanf(line, "%63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s %63s", w[0],
	               w[1], w[2], w[3], w[4], w[5], w[6], w[7], w[8], w[9], w[10], w[11], w[12]);
	long a, b, d;
	char *dot;

	if (n != 12 || strcmp(w[0], "value") || strcmp(w[2], "med") || strcmp(w[4], "min") ||
	    strcmp(w[6], "max") || strcmp(w[8], "dec") || strcmp(w[10], "unit"))
		return -1;
	dot = strchr(w[1], '.');
	if (!dot)
		return -1;
	*dot = '\0';
	if (parse_int(w[1], &a) || parse_int(dot + 1, &b) || a < 1 || b < 1)
		return -1;
	if (parse_double(w[3], &st[0]) || parse_double(w[5], &st[1]) || parse_double(w[7], &st[2]))
		return -1;
	if (parse_int(w[9], &d) || d < 0)
		return -1;
	*l = (int)a;
	*f = (int)b;
	*dec = (int)d;
	if (strlen(w[11]) >= 8)
		return -1;
	strcpy(unit, strcmp(w[11], "-") ? w[11] : "");
	return 0;
}

static int close_enough(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
}

int rec_load(const char *path, struct record **out, char *err, size_t errlen)
{
	struct parser p = { path, 0, err, errlen };
	struct record *r = rec_new();
	char *text = NULL, *line, *next;
	size_t len, nvalue = 0, k;
	int cur = -1, state = 0; /* 0 header, 1 runs, 2 values */
	int runs_line = 0, rep_line = 0;
	/* callers tell a missing record (ENOENT) from a broken one */
	int read_errno = 0;
	long v = 0;

	*out = NULL;
	if (!r || !(r->path = rec_strdup(path))) {
		rec_seterr(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	text = rec_read_file(path, &len);
	if (!text) {
		read_errno = errno;
		rec_seterr(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		goto fail;
	}
	if (strlen(text) != len) {
		p.lineno = 1;
		for (k = 0; k < len && text[k]; k++)
			p.lineno += text[k] == '\n';
		rec_seterr(err, errlen, "%s:%d: expected text, found a NUL byte", path, p.lineno);
		goto fail;
	}
	for (line = text; *line; line = next) {
		char *sp, *key, *val;
		const char *why;
		int idx;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		p.lineno++;
		if (state == 0 && line[0] == '#')
			continue;
		key = line;
		sp = strchr(line, ' ');
		val = sp ? sp + 1 : line + strlen(line);
		if (sp)
			*sp = '\0';
		if (state == 0) {
			idx = key_index(key);
			if (idx < 0 && strcmp(key, "run") == 0)
				idx = (int)NORDER;
			if (idx < 0 || idx < cur || (idx == cur && !order[idx].multi)) {
				if (sp)
					*sp = ' ';
				for (k = (size_t)(cur + 1); k < NORDER && order[k].multi; k++)
					;
				if (k < NORDER) {
					char e[80];
					snprintf(e, sizeof e, "'%s'", order[k].shape);
					perr(&p, e, line);
					goto fail;
				}
				perr(&p, "'" RUN_SHAPE "'", line);
				goto fail;
			}
			for (k = (size_t)(cur + 1); k < (size_t)idx; k++)
				if (!order[k].multi) {
					char e[80];
					if (sp)
						*sp = ' ';
					snprintf(e, sizeof e, "'%s'", order[k].shape);
					perr(&p, e, line);
					goto fail;
				}
			if (idx == (int)NORDER) {
				state = 1;
			} else {
				cur = idx;
				if (strcmp(key, "runs") == 0)
					runs_line = p.lineno;
				if (strcmp(key, "representative") == 0)
					rep_line = p.lineno;
				if (strcmp(key, "uses") == 0) {
					char *sp2 = strchr(val, ' ');
					int bad = !sp2;
					if (sp2) {
						*sp2 = '\0';
						bad = check_hdr("source", val) || check_hdr("sha256", sp2 + 1);
					}
					if (bad) {
						if (sp2)
							*sp2 = ' ';
						if (sp)
							*sp = ' ';
						perr(&p, "'uses FILE HEX' (a file name and its sha256)", line);
						goto fail;
					}
					if (rec_add_use(r, val, sp2 + 1))
						goto oom;
					continue;
				}
				if ((why = check_hdr(key, val))) {
					char e[200];
					if (sp)
						*sp = ' ';
					snprintf(e, sizeof e, "'%s' with %s", order[idx].shape, why);
					perr(&p, e, line);
					goto fail;
				}
				if (strcmp(key, "script") == 0) {
					if (add_line(&r->script, &r->n_script, rec_strdup(val)))
						goto oom;
				} else if (set_raw(r, key, rec_strdup(val)))
					goto oom;
				continue;
			}
		}
		if (state == 1) {
			if (strcmp(key, "run") == 0) {
				if (sp)
					*sp = ' ';
				if (parse_run(&p, r, line))
					goto fail;
				continue;
			}
			if ((strcmp(key, "o") == 0 || strcmp(key, "e") == 0) && r->n_runs) {
				struct rec_run *run = &r->runs[r->n_runs - 1];
				long bad = bad_text_at(val, strlen(val));
				if (bad >= 0) {
					char e[120];
					snprintf(e, sizeof e, "output text without control characters, in UTF-8 "
					         "(byte %ld of the line is 0x%02x)", bad + 3,
					         (unsigned char)val[bad]);
					if (sp)
						*sp = ' ';
					perr(&p, e, line);
					goto fail;
				}
				if (key[0] == 'o' && run->n_err) {
					*sp = ' ';
					perr(&p, "'e LINE' or the next run (stdout lines come before stderr lines)", line);
					goto fail;
				}
				if (add_line(key[0] == 'o' ? &run->out : &run->err,
				             key[0] == 'o' ? &run->n_out : &run->n_err, rec_strdup(val)))
					goto oom;
				continue;
			}
			if (strcmp(key, "value") == 0 && r->n_runs) {
				state = 2;
				if (compute(r))
					goto oom;
			} else {
				if (sp)
					*sp = ' ';
				perr(&p, r->n_runs ? "'o LINE', 'e LINE', '" RUN_SHAPE "' or '" VALUE_SHAPE "'"
				                   : "'" RUN_SHAPE "'", line);
				goto fail;
			}
		}
		/* state 2: the values must be what the runs give, in order */
		{
			int l, f, dec;
			double st[3];
			char unit[8], e[240];
			const struct rec_value *want;

			if (sp)
				*sp = ' ';
			if (parse_value_line(line, &l, &f, st, &dec, unit)) {
				perr(&p, "'" VALUE_SHAPE "'", line);
				goto fail;
			}
			if (nvalue >= r->n_values) {
				perr(&p, "the end of the file (the runs give no more values)", line);
				goto fail;
			}
			want = &r->values[nvalue++];
			if (l != want->line || f != want->field || dec != want->decimals ||
			    strcmp(unit, want->unit) || !close_enough(st[0], want->med) ||
			    !close_enough(st[1], want->min) || !close_enough(st[2], want->max)) {
				char *b = NULL;
				size_t bl = 0;
				FILE *mf = open_memstream(&b, &bl);
				if (!mf)
					goto oom;
				fmt_value_line(mf, want, r->n_runs);
				fclose(mf);
				if (bl && b[bl - 1] == '\n')
					b[bl - 1] = '\0';
				snprintf(e, sizeof e, "'%s' (what the runs give; was the record edited by hand?)", b);
				free(b);
				perr(&p, e, line);
				goto fail;
			}
		}
	}
	p.lineno++;
	if (state == 0) {
		for (k = (size_t)(cur + 1); k < NORDER && order[k].multi; k++)
			;
		if (k < NORDER) {
			char e[80];
			snprintf(e, sizeof e, "'%s'", order[k].shape);
			perr(&p, e, "end of file");
		} else
			perr(&p, "'" RUN_SHAPE "'", "end of file");
		goto fail;
	}
	if (state == 1 && compute(r))
		goto oom;
	if (nvalue < r->n_values) {
		char *b = NULL;
		size_t bl = 0;
		FILE *mf = open_memstream(&b, &bl);
		char e[200];
		if (!mf)
			goto oom;
		fmt_value_line(mf, &r->values[nvalue], r->n_runs);
		fclose(mf);
		if (bl && b[bl - 1] == '\n')
			b[bl - 1] = '\0';
		snprintf(e, sizeof e, "'%s' (the runs give it)", b);
		free(b);
		perr(&p, e, "end of file");
		goto fail;
	}
	if (parse_int(rec_get(r, "runs"), &v) != 0 || (size_t)v != r->n_runs) {
		rec_seterr(err, errlen, "%s:%d: expected 'runs %zu' (the file has %zu runs), found 'runs %ld'", path,
		       runs_line, r->n_runs, r->n_runs, v);
		goto fail;
	}
	if (parse_int(rec_get(r, "representative"), &v) != 0 || v < 1 || (size_t)v > r->n_runs) {
		rec_seterr(err, errlen, "%s:%d: expected a representative run between 1 and %zu, found 'representative %ld'",
		       path, rep_line, r->n_runs, v);
		goto fail;
	}
	r->representative = (int)v;
	free(text);
	*out = r;
	return 0;
oom:
	rec_seterr(err, errlen, "%s:%d: out of memory", path, p.lineno);
fail:
	free(text);
	rec_free(r);
	errno = read_errno;
	return -1;
}

/* ---------- sessions ---------- */

static int is_command_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i < n && s[i] != '#';
}

size_t rec_script_lines(const char *text, char ***lines)
{
	size_t n = 0;
	const char *s = text, *e;

	*lines = NULL;
	while (*s) {
		size_t l;
		e = strchr(s, '\n');
		l = e ? (size_t)(e - s) : strlen(s);
		while (l > 0 && (s[l - 1] == '\r' || s[l - 1] == ' ' || s[l - 1] == '\t'))
			l--;
		if (is_command_line(s, l) && add_line(lines, &n, clean_text(s, l))) {
			free_lines(*lines, n);
			*lines = NULL;
			return (size_t)-1;
		}
		if (!e)
			break;
		s = e + 1;
	}
	return n;
}

size_t rec_script_programs(const char *text, char ***names)
{
	char **lines;
	size_t nl = rec_script_lines(text, &lines), n = 0, i, j, k;

	*names = NULL;
	if (nl == (size_t)-1)
		return nl;
	for (i = 0; i < nl; i++) {
		const char *s = lines[i];
		for (j = 0; s[j]; j++) {
			size_t st, en;
			char *name;
			int dup = 0;
			if (s[j] != '.' || s[j + 1] != '/')
				continue;
			if (j > 0 && (is_name_char((unsigned char)s[j - 1]) || s[j - 1] == '/'))
				continue;
			st = en = j + 2;
			while (is_name_char((unsigned char)s[en]))
				en++;
			/* ./dir/prog is not a program built in the run directory */
			if (en == st || s[en] == '/')
				continue;
			name = xstrndup(s + st, en - st);
			if (!name)
				goto oom;
			for (k = 0; k < n; k++)
				dup |= strcmp((*names)[k], name) == 0;
			if (dup)
				free(name);
			else if (add_line(names, &n, name))
				goto oom;
		}
	}
	free_lines(lines, nl);
	return n;
oom:
	free_lines(lines, nl);
	free_lines(*names, n);
	*names = NULL;
	return (size_t)-1;
}

/* ---------- freshness ---------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int rec_fresh_sources(const struct record *r, const char *source_path,
                      char *const *use_paths, size_t n_use_paths, char *reason, size_t len)
{
	char hex[65];
	const char *want = rec_get(r, "sha256");
	size_t i, j;

	if (sha256_file(source_path, hex)) {
		rec_seterr(reason, len, "%s: cannot read: %s", source_path, strerror(errno));
		return 0;
	}
	if (!want || strcmp(hex, want)) {
		rec_seterr(reason, len, "%s changed since the record was made (sha256 %.12s recorded, %.12s now)",
		       source_path, want ? want : "none", hex);
		return 0;
	}
	if (!use_paths) {
		const char *sl = strrchr(source_path, '/');
		int dl = sl ? (int)(sl - source_path) : 0;
		for (i = 0; i < r->n_uses; i++) {
			char *p = malloc((size_t)dl + strlen(r->uses[i].name) + 2);
			int ok;
			if (!p) {
				rec_seterr(reason, len, "out of memory");
				return 0;
			}
			sprintf(p, "%.*s%s%s", dl, source_path, sl ? "/" : "", r->uses[i].name);
			ok = sha256_file(p, hex) == 0;
			if (!ok)
				rec_seterr(reason, len, "%s, which the session runs, cannot be read: %s", p, strerror(errno));
			else if (strcmp(hex, r->uses[i].sha256)) {
				rec_seterr(reason, len, "%s, which the session runs, changed since the record was made "
				       "(sha256 %.12s recorded, %.12s now)", p, r->uses[i].sha256, hex);
				ok = 0;
			}
			free(p);
			if (!ok)
				return 0;
		}
		return 1;
	}
	for (i = 0; i < n_use_paths; i++) {
		const char *b = base_name(use_paths[i]);
		for (j = 0; j < r->n_uses; j++)
			if (strcmp(r->uses[j].name, b) == 0)
				break;
		if (j == r->n_uses) {
			rec_seterr(reason, len, "the session now runs %s, which the record does not name", b);
			return 0;
		}
		if (sha256_file(use_paths[i], hex)) {
			rec_seterr(reason, len, "%s: cannot read: %s", use_paths[i], strerror(errno));
			return 0;
		}
		if (strcmp(hex, r->uses[j].sha256)) {
			rec_seterr(reason, len, "%s, which the session runs, changed since the record was made "
			       "(sha256 %.12s recorded, %.12s now)", use_paths[i], r->uses[j].sha256, hex);
			return 0;
		}
	}
	for (j = 0; j < r->n_uses; j++) {
		for (i = 0; i < n_use_paths; i++)
			if (strcmp(r->uses[j].name, base_name(use_paths[i])) == 0)
				break;
		if (i == n_use_paths) {
			rec_seterr(reason, len, "the record names %s, which the session no longer runs", r->uses[j].name);
			return 0;
		}
	}
	return 1;
}
