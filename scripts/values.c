/* values.c -- expands and checks the prose directives of design.md against a measurement set. */
#include "values.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cached {
	char *name;
	struct record *rec;       /* NULL when it failed to load */
	char *err;
};

struct val_ctx {
	char *setdir;
	char *tangled;
	struct cached *c;
	size_t n, cap;
	int all_loaded;
};

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_name_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '.' || c == '-';
}

/* ---------- parsing ---------- */

static const char *const prov_names[] = { "gpu", "driver", "cuda", "date", "runs", "sm_count", NULL };

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* NAME:L.N[:stat] in s[0..n) */
static int parse_ref(const char *s, size_t n, struct val_ref *r)
{
	size_t i = 0, k;
	long v;
	char *end;

	memset(r, 0, sizeof *r);
	while (i < n && s[i] != ':')
		i++;
	if (i == 0 || i == n || i >= VAL_NAMELEN)
		return -1;
	for (k = 0; k < i; k++)
		if (!is_name_char((unsigned char)s[k]))
			return -1;
	memcpy(r->name, s, i);
	r->name[i] = '\0';
	k = ++i;
	if (k >= n || !is_digit((unsigned char)s[k]))
		return -1;
	v = strtol(s + k, &end, 10);
	if (end - s >= (long)n || *end != '.' || v < 1 || v > 1000000)
		return -1;
	r->line = (int)v;
	k = (size_t)(end - s) + 1;
	if (k >= n || !is_digit((unsigned char)s[k]))
		return -1;
	v = strtol(s + k, &end, 10);
	if (v < 1 || v > 1000000 || end - s > (long)n)
		return -1;
	r->field = (int)v;
	k = (size_t)(end - s);
	strcpy(r->stat, "med");
	if (k == n)
		return 0;
	if (s[k] != ':' || n - k - 1 != 3)
		return -1;
	memcpy(r->stat, s + k + 1, 3);
	r->stat[3] = '\0';
	return strcmp(r->stat, "med") && strcmp(r->stat, "min") && strcmp(r->stat, "max") ? -1 : 0;
}

static int parse_number(const char *s, size_t n, double *v)
{
	char buf[64], *end;

	if (n == 0 || n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!(is_digit((unsigned char)buf[0]) || ((buf[0] == '-' || buf[0] == '.') && buf[1])))
		return -1;
	errno = 0;
	*v = strtod(buf, &end);
	return *end || errno || !isfinite(*v) ? -1 : 0;
}

static int is_word_char(int c)
{
	return c && c != ' ' && c != '\t' && c != '*' && c != '/' && c != '<' && c != '>' && c != '=';
}

/* Parses terms joined by * and / from *sp; stops at a comparison or the end. */
static int parse_side(const char **sp, struct val_side *side, char *err, size_t errlen)
{
	const char *s = *sp;

	side->n = 0;
	for (;;) {
		const char *w;
		size_t n;
		struct val_term *t;

		s = skip_blanks(s);
		w = s;
		while (is_word_char((unsigned char)*s))
			s++;
		n = (size_t)(s - w);
		if (side->n == VAL_MAXTERMS) {
			rec_seterr(err, errlen, "expected at most %d terms on a side", VAL_MAXTERMS);
			return -1;
		}
		t = &side->terms[side->n];
		memset(t, 0, sizeof *t);
		if (n == 0) {
			rec_seterr(err, errlen, "expected a number or NAME:L.N, found '%.20s'", *w ? w : "the end");
			return -1;
		}
		snprintf(t->text, sizeof t->text, "%.*s", (int)n, w);
		if (memchr(w, ':', n)) {
			if (parse_ref(w, n, &t->ref)) {
				rec_seterr(err, errlen, "expected NAME:L.N or NAME:L.N:med|min|max, found '%.*s'", (int)n, w);
				return -1;
			}
			t->is_ref = 1;
		} else if (parse_number(w, n, &t->num)) {
			rec_seterr(err, errlen, "expected a number or NAME:L.N, found '%.*s'", (int)n, w);
			return -1;
		}
		side->n++;
		s = skip_blanks(s);
		if (*s == '*' || *s == '/') {
			side->ops[side->n] = *s++;
			continue;
		}
		break;
	}
	*sp = s;
	return 0;
}

int val_parse(const char *text, struct val_directive *d, char *err, size_t errlen)
{
	const char *s = skip_blanks(text), *e;
	size_t n;
	int i;

	memset(d, 0, sizeof *d);
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0) {
		rec_seterr(err, errlen, "expected a directive inside {{ }}, found nothing");
		return -1;
	}
	for (i = 0; prov_names[i]; i++)
		if (strlen(prov_names[i]) == n && strncmp(s, prov_names[i], n) == 0) {
			d->kind = VAL_PROV;
			strcpy(d->name, prov_names[i]);
			return 0;
		}
	if (n > 7 && strncmp(s, "output", 6) == 0 && (s[6] == ' ' || s[6] == '\t')) {
		const char *nm = skip_blanks(s + 6);
		size_t k = (size_t)(s + n - nm);
		d->kind = VAL_OUTPUT;
		for (i = 0; (size_t)i < k; i++)
			if (!is_name_char((unsigned char)nm[i]))
				break;
		if (k == 0 || (size_t)i != k || k >= VAL_NAMELEN) {
			rec_seterr(err, errlen, "expected 'output NAME' with a program or session name, found 'output %.*s'",
			       (int)k, nm);
			return -1;
		}
		memcpy(d->name, nm, k);
		d->name[k] = '\0';
		return 0;
	}
	if (n > 6 && strncmp(s, "claim", 5) == 0 && (s[5] == ' ' || s[5] == '\t')) {
		char buf[1024];
		const char *p = buf;
		char sub[400];
		if (n >= sizeof buf) {
			rec_seterr(err, errlen, "expected a claim shorter than %zu characters", sizeof buf);
			return -1;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		p = buf + 5;
		d->kind = VAL_CLAIM;
		if (parse_side(&p, &d->lhs, sub, sizeof sub)) {
			rec_seterr(err, errlen, "in the claim's left side: %s", sub);
			return -1;
		}
		if (p[0] == '<' || p[0] == '>') {
			d->op[0] = p[0];
			if (p[1] == '=')
				d->op[1] = '=';
		} else if (p[0] == '=' && p[1] == '=')
			strcpy(d->op, "==");
		else {
			rec_seterr(err, errlen, "expected one of < <= > >= == after the claim's left side, found '%.20s'",
			       *p ? p : "the end");
			return -1;
		}
		p += strlen(d->op);
		if (parse_side(&p, &d->rhs, sub, sizeof sub)) {
			rec_seterr(err, errlen, "in the claim's right side: %s", sub);
			return -1;
		}
		if (*p) {
			rec_seterr(err, errlen, "expected the end of the claim, found '%.20s'", p);
			return -1;
		}
		return 0;
	}
	{
		char buf[512], sub[400];
		const char *p = buf;
		if (n >= sizeof buf) {
			rec_seterr(err, errlen, "expected a value reference, found %zu characters", n);
			return -1;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		e = strchr(buf, ':');
		if (!e) {
			rec_seterr(err, errlen, "expected output NAME, claim ..., NAME:L.N, NAME:L.N / NAME:L.N or one of "
			       "gpu driver cuda date runs sm_count, found '%s'", buf);
			return -1;
		}
		if (parse_side(&p, &d->lhs, sub, sizeof sub)) {
			rec_seterr(err, errlen, "%s", sub);
			return -1;
		}
		if (*p) {
			rec_seterr(err, errlen, "expected the end of the value reference, found '%.20s'", p);
			return -1;
		}
		if (d->lhs.n == 1 && d->lhs.terms[0].is_ref) {
			d->kind = VAL_VALUE;
			return 0;
		}
		if (d->lhs.n == 2 && d->lhs.ops[1] == '/' && d->lhs.terms[0].is_ref && d->lhs.terms[1].is_ref) {
			d->kind = VAL_RATIO;
			return 0;
		}
		rec_seterr(err, errlen, "expected NAME:L.N or NAME:L.N / NAME:L.N, found '%s'", buf);
		return -1;
	}
}

int val_record_names(const struct val_directive *d, const char *names[], int max)
{
	int n = 0, i, j, s;
	const struct val_side *sides[2] = { &d->lhs, &d->rhs };

	if (d->kind == VAL_OUTPUT) {
		if (max > 0)
			names[n++] = d->name;
		return n;
	}
	for (s = 0; s < 2; s++)
		for (i = 0; i < sides[s]->n; i++) {
			const char *nm = sides[s]->terms[i].ref.name;
			int dup = 0;
			if (!sides[s]->terms[i].is_ref)
				continue;
			for (j = 0; j < n; j++)
				dup |= strcmp(names[j], nm) == 0;
			if (!dup && n < max)
				names[n++] = nm;
		}
	return n;
}

int val_find(const char *line, size_t *pos, size_t *start, size_t *end)
{
	size_t i = *pos, len = strlen(line);

	while (i < len) {
		if (line[i] == '[' && line[i + 1] == '[') {
			const char *q = strstr(line + i + 2, "]]");
			if (q) {
				i = (size_t)(q - line) + 2;
				continue;
			}
			i += 2;
			continue;
		}
		if (line[i] == '`') {
			size_t run = 0, j;
			while (line[i + run] == '`')
				run++;
			/* A code span closes with a backtick run of the same length; else they are literal. */
			for (j = i + run; j < len; ) {
				size_t r2 = 0;
				if (line[j] != '`') {
					j++;
					continue;
				}
				while (line[j + r2] == '`')
					r2++;
				if (r2 == run)
					break;
				j += r2;
			}
			i = j < len ? j + run : i + run;
			continue;
		}
		if (line[i] == '{' && line[i + 1] == '{') {
			const char *q = strstr(line + i + 2, "}}");
			*start = i;
			if (!q) {
				*pos = len;
				return -1;
			}
			*end = (size_t)(q - line) + 2;
			*pos = *end;
			return 1;
		}
		i++;
	}
	*pos = len;
	return 0;
}

/* ---------- the set ---------- */

struct val_ctx *val_open(const char *setdir, const char *tangled)
{
	struct val_ctx *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->setdir = rec_strdup(setdir);
	c->tangled = tangled ? rec_strdup(tangled) : NULL;
	if (!c->setdir || (tangled && !c->tangled)) {
		val_close(c);
		return NULL;
	}
	return c;
}

void val_close(struct val_ctx *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->c[i].name);
		rec_free(c->c[i].rec);
		free(c->c[i].err);
	}
	free(c->c);
	free(c->setdir);
	free(c->tangled);
	free(c);
}

static struct cached *lookup(struct val_ctx *c, const char *name)
{
	size_t i;
	struct cached *e;
	char *path, err[1024];

	for (i = 0; i < c->n; i++)
		if (strcmp(c->c[i].name, name) == 0)
			return &c->c[i];
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct cached *p = realloc(c->c, cap * sizeof *p);
		if (!p)
			return NULL;
		c->c = p;
		c->cap = cap;
	}
	path = malloc(strlen(c->setdir) + strlen(name) + 8);
	if (!path)
		return NULL;
	sprintf(path, "%s/%s.rec", c->setdir, name);
	e = &c->c[c->n];
	memset(e, 0, sizeof *e);
	e->name = rec_strdup(name);
	if (!e->name) {
		free(path);
		return NULL;
	}
	if (rec_load(path, &e->rec, err, sizeof err)) {
		if (errno == ENOENT && strstr(err, "cannot read"))
			snprintf(err, sizeof err, "%s: no such record (make run ONLY=%s makes it)", path, name);
		e->err = rec_strdup(err);
	}
	free(path);
	c->n++;
	return e;
}

const struct record *val_record(struct val_ctx *c, const char *name, char *err, size_t errlen)
{
	struct cached *e = lookup(c, name);

	if (!e) {
		rec_seterr(err, errlen, "out of memory");
		return NULL;
	}
	if (!e->rec)
		rec_seterr(err, errlen, "%s", e->err ? e->err : "cannot load");
	return e->rec;
}

static int load_all(struct val_ctx *c, char *err, size_t errlen)
{
	DIR *d;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;

	if (c->all_loaded)
		return 0;
	d = opendir(c->setdir);
	if (!d) {
		rec_seterr(err, errlen, "%s: cannot open the measurement set: %s", c->setdir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (de->d_name[0] == '.' || l < 5 || strcmp(de->d_name + l - 4, ".rec"))
			continue;
		if (n == cap) {
			char **p = realloc(names, (cap = cap ? cap * 2 : 32) * sizeof *p);
			if (!p) {
				rc = -1;
				break;
			}
			names = p;
		}
		names[n] = malloc(l - 3);
		if (!names[n]) {
			rc = -1;
			break;
		}
		memcpy(names[n], de->d_name, l - 4);
		names[n][l - 4] = '\0';
		n++;
	}
	closedir(d);
	for (i = 0; i < n; i++) {
		if (rc == 0) {
			struct cached *e = lookup(c, names[i]);
			if (!e) {
				rec_seterr(err, errlen, "out of memory");
				rc = -1;
			} else if (!e->rec) {
				rec_seterr(err, errlen, "%s", e->err);
				rc = -1;
			}
		}
		free(names[i]);
	}
	free(names);
	if (rc == 0 && n == 0) {
		rec_seterr(err, errlen, "%s: the measurement set has no records (make run makes them)", c->setdir);
		return -1;
	}
	if (rc == 0)
		c->all_loaded = 1;
	return rc;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int val_prov(struct val_ctx *c, const char *key, char *buf, size_t len, char *err, size_t errlen)
{
	const char *rkey = strcmp(key, "cuda") == 0 ? "cuda_runtime" : key;
	const struct cached *first = NULL;
	char best[64] = "";
	size_t i;

	if (load_all(c, err, errlen))
		return -1;
	for (i = 0; i < c->n; i++) {
		const struct cached *e = &c->c[i];
		const char *v, *v0;
		if (!e->rec)
			continue;
		v = rec_get(e->rec, rkey);
		if (!v) {
			rec_seterr(err, errlen, "%s has no '%s'", e->rec->path, rkey);
			return -1;
		}
		if (strcmp(rkey, "date") == 0) {
			/* Records are made on different days; the set's date is that of the newest. */
			char day[64];
			snprintf(day, sizeof day, "%.*s", (int)strcspn(v, "T"), v);
			if (strcmp(day, best) > 0)
				strcpy(best, day);
			continue;
		}
		if (!first) {
			first = e;
			continue;
		}
		v0 = rec_get(first->rec, rkey);
		if (strcmp(v, v0)) {
			rec_seterr(err, errlen, "%s: %s says %s %s but %s says %s %s; make run remeasures the stale one",
			       c->setdir, base(first->rec->path), rkey, v0, base(e->rec->path), rkey, v);
			return -1;
		}
	}
	if (strcmp(rkey, "date") == 0)
		return snprintf(buf, len, "%s", best) < (int)len ? 0 : -1;
	if (!first) {
		rec_seterr(err, errlen, "%s: no records", c->setdir);
		return -1;
	}
	return snprintf(buf, len, "%s", rec_get(first->rec, rkey)) < (int)len ? 0 : -1;
}

/* ---------- evaluation ---------- */

static int term_value(struct val_ctx *c, const struct val_term *t, double *v, char *shown, size_t slen,
                      char *err, size_t errlen)
{
	const struct record *r;
	int dec, code;
	const char *unit;
	char e[1024];

	if (!t->is_ref) {
		*v = t->num;
		snprintf(shown, slen, "%s", t->text);
		return 0;
	}
	r = val_record(c, t->ref.name, e, sizeof e);
	if (!r) {
		rec_seterr(err, errlen, "%s: %s", t->text, e);
		return -1;
	}
	code = rec_value(r, t->ref.line, t->ref.field, t->ref.stat, v, &dec, &unit);
	if (code) {
		rec_value_explain(r, t->ref.line, t->ref.field, code, e, sizeof e);
		rec_seterr(err, errlen, "%s: %s", t->text, e);
		return -1;
	}
	{
		char f[96];
		const struct rec_value *rv = rec_find_value(r, t->ref.line, t->ref.field);
		rec_format_value(f, sizeof f, *v, dec, rv ? rv->exp : 0, unit);
		snprintf(shown, slen, "%s (%s)", t->text, f);
	}
	return 0;
}

static int side_value(struct val_ctx *c, const struct val_side *s, double *v, char *shown, size_t slen,
                      char *err, size_t errlen)
{
	int i;
	size_t o = 0;
	double acc = 1, x;
	char one[400];

	shown[0] = '\0';
	for (i = 0; i < s->n; i++) {
		if (term_value(c, &s->terms[i], &x, one, sizeof one, err, errlen))
			return -1;
		if (i == 0)
			acc = x;
		else if (s->ops[i] == '*')
			acc *= x;
		else {
			if (x == 0) {
				rec_seterr(err, errlen, "%s is zero, and the claim divides by it", one);
				return -1;
			}
			acc /= x;
		}
		if (o < slen)
			o += (size_t)snprintf(shown + o, slen - o, "%s%s", i ? (s->ops[i] == '*' ? " * " : " / ") : "", one);
	}
	if (s->n > 1 && o < slen)
		snprintf(shown + o, slen - o, " [= %.4g]", acc);
	*v = acc;
	return 0;
}

int val_claim(struct val_ctx *c, const char *expr, char *msg, size_t msglen)
{
	struct val_directive d;
	char buf[1100], e[1024], l[1024], r[1024];
	const char *s = expr;
	double a, b;
	int holds;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!(strncmp(s, "claim", 5) == 0 && (s[5] == ' ' || s[5] == '\t'))) {
		snprintf(buf, sizeof buf, "claim %s", s);
		s = buf;
	}
	if (val_parse(s, &d, e, sizeof e)) {
		rec_seterr(msg, msglen, "%s", e);
		return -1;
	}
	if (d.kind != VAL_CLAIM) {
		rec_seterr(msg, msglen, "expected a claim, found '%s'", expr);
		return -1;
	}
	if (side_value(c, &d.lhs, &a, l, sizeof l, msg, msglen) ||
	    side_value(c, &d.rhs, &b, r, sizeof r, msg, msglen))
		return -1;
	if (strcmp(d.op, "<") == 0)
		holds = a < b;
	else if (strcmp(d.op, "<=") == 0)
		holds = a <= b;
	else if (strcmp(d.op, ">") == 0)
		holds = a > b;
	else if (strcmp(d.op, ">=") == 0)
		holds = a >= b;
	else
		holds = fabs(a - b) <= 1e-9 * fmax(fabs(a), fabs(b));
	rec_seterr(msg, msglen, "%s %s %s", l, d.op, r);
	return holds;
}

int val_expand(struct val_ctx *c, const char *text, char **out, char *err, size_t errlen)
{
	struct val_directive d;
	char buf[600], e[1024];
	double a, b;
	const struct record *r;

	*out = NULL;
	if (val_parse(text, &d, err, errlen))
		return -1;
	switch (d.kind) {
	case VAL_CLAIM:
		*out = rec_strdup("");
		break;
	case VAL_PROV:
		if (val_prov(c, d.name, buf, sizeof buf, err, errlen))
			return -1;
		*out = rec_strdup(buf);  /* provenance characters start no markup (rec_prov_char_ok) */
		break;
	case VAL_OUTPUT: {
		char *m = NULL;
		size_t ml = 0;
		FILE *f;
		r = val_record(c, d.name, e, sizeof e);
		if (!r) {
			rec_seterr(err, errlen, "%s", e);
			return -1;
		}
		f = open_memstream(&m, &ml);
		if (!f) {
			rec_seterr(err, errlen, "out of memory");
			return -1;
		}
		if (rec_console_markdown(r, f)) {
			fclose(f);
			free(m);
			rec_seterr(err, errlen, "%s: cannot make its console block", r->path);
			return -1;
		}
		fclose(f);
		*out = m;
		break;
	}
	case VAL_VALUE: {
		const struct val_ref *ref = &d.lhs.terms[0].ref;
		const struct rec_value *rv;
		int dec, code;
		const char *unit;
		r = val_record(c, ref->name, e, sizeof e);
		if (!r) {
			rec_seterr(err, errlen, "%s", e);
			return -1;
		}
		code = rec_value(r, ref->line, ref->field, ref->stat, &a, &dec, &unit);
		if (code) {
			rec_value_explain(r, ref->line, ref->field, code, err, errlen);
			return -1;
		}
		rv = rec_find_value(r, ref->line, ref->field);
		rec_format_value(buf, sizeof buf, a, dec, rv->exp, unit);
		*out = rec_strdup(buf);
		break;
	}
	case VAL_RATIO:
		if (term_value(c, &d.lhs.terms[0], &a, buf, sizeof buf, err, errlen) ||
		    term_value(c, &d.lhs.terms[1], &b, buf, sizeof buf, err, errlen))
			return -1;
		if (b == 0) {
			rec_seterr(err, errlen, "%s is zero, so the ratio has no value", buf);
			return -1;
		}
		if (rec_format_ratio(buf, sizeof buf, a / b) < 0) {
			rec_seterr(err, errlen, "the ratio is not a finite number");
			return -1;
		}
		*out = rec_strdup(buf);
		break;
	}
	if (!*out) {
		rec_seterr(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int val_fresh(struct val_ctx *c, const char *name, char *reason, size_t len)
{
	const struct record *r;
	const char *src;
	char *path;
	int ok;

	if (!c->tangled)
		return -1;
	r = val_record(c, name, reason, len);
	if (!r)
		return 0;
	src = rec_get(r, "source");
	path = malloc(strlen(c->tangled) + strlen(src) + 2);
	if (!path) {
		rec_seterr(reason, len, "out of memory");
		return 0;
	}
	sprintf(path, "%s/%s", c->tangled, src);
	ok = rec_fresh_sources(r, path, NULL, 0, reason, len);
	free(path);
	return ok;
}
