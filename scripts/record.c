/* record.c -- the measurement tool behind make run and make check: writes, checks and reads records. */
#include "records.h"
#include "sha256.h"
#include "values.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Per run and stream: a runaway program must not make a record of gigabytes. */
#define MAX_LINES 10000
#define MAX_BYTES (4L << 20)

static const char *usage_text =
	"usage: record write --name N --kind program|session --source FILE --dir RUNDIR --out PATH\n"
	"                    [--uses FILE...] --compile CMD --command CMD --prov PROVFILE --timeout S\n"
	"       record fresh --rec PATH --source FILE [--uses FILE...] --prov PROVFILE\n"
	"                    [--compile CMD] [--command CMD] [--runs N]\n"
	"       record values PATH...\n"
	"       record claims [--check | --all] SETDIR TANGLEDDIR FILE.nw...\n"
	"       record markdown PATH\n"
	"       record expand SETDIR [--tangled DIR] TEXT\n"
	"       record check PATH...\n"
	"       record summary PATH\n"
	"       record uses SCRIPT\n"
	"       record sha256 FILE...\n"
	"       record page SETDIR TANGLEDDIR\n";

/* "record: MESSAGE" on stderr; usage() adds the usage text and exits 2, die() exits 1. */
static void say(const char *fmt, va_list ap)
{
	fputs("record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputs("\n", stderr);
}

static int usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	fputs(usage_text, stderr);
	return 2;
}

static int die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	return 1;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* ---------- options ---------- */

struct opts {
	const char *name, *kind, *source, *dir, *out, *compile, *command, *prov, *timeout, *rec, *runs;
	char **uses;
	size_t n_uses;
	int has_uses;
};

static int parse_opts(int argc, char **argv, struct opts *o)
{
	int i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;

		if (strcmp(a, "--uses") == 0) {
			o->has_uses = 1;
			o->uses = argv + i + 1;
			while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
				i++;
				o->n_uses++;
			}
			continue;
		}
		if (strcmp(a, "--name") == 0) slot = &o->name;
		else if (strcmp(a, "--kind") == 0) slot = &o->kind;
		else if (strcmp(a, "--source") == 0) slot = &o->source;
		else if (strcmp(a, "--dir") == 0) slot = &o->dir;
		else if (strcmp(a, "--out") == 0) slot = &o->out;
		else if (strcmp(a, "--compile") == 0) slot = &o->compile;
		else if (strcmp(a, "--command") == 0) slot = &o->command;
		else if (strcmp(a, "--prov") == 0) slot = &o->prov;
		else if (strcmp(a, "--timeout") == 0) slot = &o->timeout;
		else if (strcmp(a, "--rec") == 0) slot = &o->rec;
		else if (strcmp(a, "--runs") == 0) slot = &o->runs;
		else
			return usage("expected an option, found '%s'", a);
		if (i + 1 >= argc)
			return usage("expected a value after %s, found the end", a);
		*slot = argv[++i];
	}
	return 0;
}

/* ---------- provenance files ---------- */

struct prov {
	char *v[16];
};

static int prov_index(const char *key)
{
	int i;

	for (i = 0; rec_prov_keys[i]; i++)
		if (strcmp(rec_prov_keys[i], key) == 0)
			return i;
	return -1;
}

static void prov_free(struct prov *p)
{
	int i;

	for (i = 0; i < 16; i++)
		free(p->v[i]);
}

/* "key value" lines; a later line wins, so nvidia-smi's figures can follow gpuinfo's. */
static int prov_load(const char *path, struct prov *p)
{
	size_t len;
	char *text = rec_read_file(path, &len), *line, *next;
	int lineno = 0;

	memset(p, 0, sizeof *p);
	if (!text)
		return die("%s: cannot read: %s", path, strerror(errno));
	for (line = text; *line; line = next) {
		char *sp;
		int k;
		size_t l;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		lineno++;
		l = strlen(line);
		while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' '))
			line[--l] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		sp = strchr(line, ' ');
		if (sp)
			*sp = '\0';
		k = prov_index(line);
		if (k < 0 || !sp) {
			if (sp)
				*sp = ' ';
			die("%s:%d: expected 'KEY VALUE' with KEY one of gpu compute_capability sm_count "
			    "sm_clock_mhz driver cuda_runtime nvcc date, found '%.60s'", path, lineno, line);
			free(text);
			prov_free(p);
			return 1;
		}
		free(p->v[k]);
		p->v[k] = strdup(sp + 1);
	}
	free(text);
	return 0;
}

static void now_utc(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---------- write ---------- */

static int add_stream(struct rec_run *run, const char *path, int is_err)
{
	size_t len, nlines = 0;
	char *text = rec_read_file(path, &len);
	const char *s, *e, *end;
	char note[128];
	int (*add)(struct rec_run *, const char *, size_t) = is_err ? rec_run_add_err : rec_run_add_out;

	if (!text)
		return errno == ENOENT ? 0 : die("%s: cannot read: %s", path, strerror(errno));
	end = text + len;
	for (s = text; s < end; s = e + 1) {
		size_t l;
		e = memchr(s, '\n', (size_t)(end - s));
		if (!e)
			e = end;
		if (nlines >= MAX_LINES || s - text > MAX_BYTES) {
			size_t rest = 0;
			const char *q;
			for (q = s; q < end; q++)
				rest += *q == '\n';
			rest += end[-1] != '\n';
			snprintf(note, sizeof note, "[record: %zu more line%s not kept]", rest, rest == 1 ? "" : "s");
			add(run, note, strlen(note));
			break;
		}
		l = (size_t)(e - s);
		/* Programs written on Windows end lines with CR LF. */
		if (l > 0 && s[l - 1] == '\r')
			l--;
		if (add(run, s, l)) {
			free(text);
			return die("out of memory");
		}
		nlines++;
		if (e == end)
			break;
	}
	free(text);
	return 0;
}

static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int add_runs(struct record *r, const char *dir)
{
	int i;

	for (i = 1;; i++) {
		char p[4096], s[64], w[64], *end;
		long st;
		double wall = 0;
		struct rec_run *run;

		snprintf(p, sizeof p, "%s/%d.status", dir, i);
		if (read_small(p, s, sizeof s)) {
			if (i == 1)
				return die("%s: cannot read: %s (expected runs 1.status, 1.out, 1.err, 1.wall, ...)", p,
				           strerror(errno));
			return 0;
		}
		st = strtol(s, &end, 10);
		if (!s[0] || *end || st < 0 || st > 255)
			return die("%s:1: expected an exit status 0..255, found '%.40s'", p, s);
		snprintf(p, sizeof p, "%s/%d.wall", dir, i);
		if (read_small(p, w, sizeof w) == 0) {
			errno = 0;
			wall = strtod(w, &end);
			if (!w[0] || *end || errno || wall < 0)
				return die("%s:1: expected the wall time in nanoseconds, found '%.40s'", p, w);
			/* Nanoseconds from date +%s%N, unless written as seconds with a point. */
			if (!strchr(w, '.'))
				wall /= 1e9;
		}
		run = rec_add_run(r, (int)st, wall);
		if (!run)
			return die("out of memory");
		snprintf(p, sizeof p, "%s/%d.out", dir, i);
		if (add_stream(run, p, 0))
			return 1;
		snprintf(p, sizeof p, "%s/%d.err", dir, i);
		if (add_stream(run, p, 1))
			return 1;
	}
}

/* Whether text, written as a record beside path, loads again (0; -1 for a system error, -2 when
 * it does not load; err says why): the reader checks more than the
 * writer knows (a number too long to keep, a value that does not survive formatting), and a
 * record that make check would reject must not replace a good one. */
static int reads_back(const char *path, const char *text, size_t len, char *err, size_t errlen)
{
	char tmp[4096];
	struct record *back = NULL;
	const char *slash = strrchr(path, '/');
	int fd, bad;

	snprintf(tmp, sizeof tmp, "%.*s.check.XXXXXX", slash ? (int)(slash - path + 1) : 0, path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		rec_seterr(err, errlen, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
		return -1;
	}
	bad = write(fd, text, len) != (ssize_t)len;
	close(fd);
	if (bad)
		rec_seterr(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
	else if (rec_load(tmp, &back, err, errlen) != 0)
		bad = 2;
	rec_free(back);
	unlink(tmp);
	return -bad;
}

static int cmd_write(int argc, char **argv)
{
	struct opts o;
	struct prov pv;
	struct record *r;
	char hex[65], err[1024], date[64];
	char *text = NULL;
	size_t len, i;
	int rc = 1;
	const char *env;

	if (parse_opts(argc, argv, &o))
		return 2;
	if (!o.name || !o.kind || !o.source || !o.dir || !o.out || !o.compile || !o.command || !o.prov ||
	    !o.timeout)
		return usage("write needs --name, --kind, --source, --dir, --out, --compile, --command, --prov "
		             "and --timeout");
	if (strcmp(o.kind, "program") && strcmp(o.kind, "session"))
		return usage("expected --kind program or session, found '%s'", o.kind);
	if (prov_load(o.prov, &pv))
		return 1;
	r = rec_new();
	if (!r)
		return die("out of memory");
	if (sha256_file(o.source, hex)) {
		die("%s: cannot read: %s", o.source, strerror(errno));
		goto out;
	}
	rec_set(r, "name", o.name);
	rec_set(r, "kind", o.kind);
	rec_set(r, "source", base_name(o.source));
	rec_set(r, "sha256", hex);
	for (i = 0; i < o.n_uses; i++) {
		if (sha256_file(o.uses[i], hex)) {
			die("%s: cannot read: %s", o.uses[i], strerror(errno));
			goto out;
		}
		rec_add_use(r, base_name(o.uses[i]), hex);
	}
	rec_set(r, "compile", o.compile);
	rec_set(r, "command", o.command);
	if (strcmp(o.kind, "session") == 0) {
		char *src = rec_read_file(o.source, &len), **lines;
		size_t n;
		if (!src) {
			die("%s: cannot read: %s", o.source, strerror(errno));
			goto out;
		}
		n = rec_script_lines(src, &lines);
		free(src);
		if (n == (size_t)-1) {
			die("out of memory");
			goto out;
		}
		for (i = 0; i < n; i++)
			rec_add_script(r, lines[i]);
		rec_free_strings(lines, n);
	}
	for (i = 0; rec_prov_keys[i]; i++) {
		const char *k = rec_prov_keys[i];
		const char *v = pv.v[i];
		if (strcmp(k, "date") == 0 && !v) {
			now_utc(date, sizeof date);
			v = date;
		}
		rec_set(r, k, v ? v : "unknown");
	}
	rec_set(r, "timeout_s", o.timeout);
	if (add_runs(r, o.dir))
		goto out;
	if (rec_compute(r)) {
		die("out of memory");
		goto out;
	}
	text = rec_format(r, &len, err, sizeof err);
	if (!text) {
		die("%s: %s", o.out, err);
		goto out;
	}
	switch (reads_back(o.out, text, len, err, sizeof err)) {
	case -1:
		die("%s", err);
		goto out;
	case -2:
		die("%s: the record would not read back, so it was not written: %s", o.out, err);
		goto out;
	}
	if ((env = getenv("RECORD_FAIL_AFTER_BYTES")) && *env)
		rec_test_fail_after(atol(env), 0);
	if ((env = getenv("RECORD_KILL_AFTER_BYTES")) && *env)
		rec_test_fail_after(atol(env), 1);
	if (rec_write_atomic(o.out, text, len, err, sizeof err)) {
		die("%s", err);
		goto out;
	}
	rc = 0;
out:
	free(text);
	rec_free(r);
	prov_free(&pv);
	return rc;
}

/* ---------- fresh ---------- */

static int stale(const char *fmt, ...)
{
	va_list ap;

	fputs("stale: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputs("\n", stdout);
	return 1;
}

static int cmd_fresh(int argc, char **argv)
{
	struct opts o;
	struct prov pv;
	struct record *r, *want;
	char err[1024], reason[1024];
	size_t i;
	int rc = 1;
	static const char *const keys[] = { "gpu", "driver", "nvcc", NULL };

	if (parse_opts(argc, argv, &o))
		return 2;
	if (!o.rec || !o.source || !o.prov)
		return usage("fresh needs --rec, --source and --prov");
	if (prov_load(o.prov, &pv))
		return 2;
	if (rec_load(o.rec, &r, err, sizeof err)) {
		prov_free(&pv);
		if (errno == ENOENT && strstr(err, "cannot read"))
			return stale("%s: no record yet", o.rec);
		return stale("%s", err);
	}
	/* Compare as the writer would have stored them: cleaned the same way. */
	want = rec_new();
	if (!want) {
		rc = die("out of memory");
		goto out;
	}
	for (i = 0; keys[i]; i++) {
		const char *have = rec_get(r, keys[i]), *now;
		int k = prov_index(keys[i]);
		rec_set(want, keys[i], pv.v[k] ? pv.v[k] : "unknown");
		now = rec_get(want, keys[i]);
		if (strcmp(have, now)) {
			rc = stale("%s: made with %s %s, this machine has %s", o.rec, keys[i], have, now);
			goto out;
		}
	}
	for (i = 0; i < r->n_runs; i++)
		if (r->runs[i].exit) {
			rc = stale("%s: run %zu exited with status %d", o.rec, i + 1, r->runs[i].exit);
			goto out;
		}
	if (o.compile) {
		rec_set(want, "compile", o.compile);
		if (strcmp(rec_get(r, "compile"), rec_get(want, "compile"))) {
			rc = stale("%s: compiled with '%s', now '%s'", o.rec, rec_get(r, "compile"), rec_get(want, "compile"));
			goto out;
		}
	}
	if (o.command) {
		rec_set(want, "command", o.command);
		if (strcmp(rec_get(r, "command"), rec_get(want, "command"))) {
			rc = stale("%s: ran '%s', now '%s'", o.rec, rec_get(r, "command"), rec_get(want, "command"));
			goto out;
		}
	}
	if (o.runs && strcmp(o.runs, rec_get(r, "runs"))) {
		rc = stale("%s: has %s runs, %s wanted", o.rec, rec_get(r, "runs"), o.runs);
		goto out;
	}
	/* Without --uses, the uses the record names are checked beside the source. */
	if (!rec_fresh_sources(r, o.source, o.has_uses ? o.uses : NULL, o.n_uses, reason, sizeof reason)) {
		rc = stale("%s: %s", o.rec, reason);
		goto out;
	}
	rc = 0;
out:
	rec_free(want);
	rec_free(r);
	prov_free(&pv);
	return rc;
}

/* ---------- reading commands ---------- */

static void print_stat(double v, const struct rec_value *x, int extra)
{
	char buf[64];

	rec_format_stat(buf, sizeof buf, x, v, extra);
	printf(" %s", buf);
}

static int cmd_values(int argc, char **argv)
{
	int i, rc = 0;
	size_t k;
	char err[1024];

	if (argc < 1)
		return usage("values needs a record");
	for (i = 0; i < argc; i++) {
		struct record *r;
		const struct rec_run *rep;
		if (rec_load(argv[i], &r, err, sizeof err)) {
			rc = die("%s", err);
			continue;
		}
		rep = rec_rep(r);
		for (k = 0; k < r->n_values; k++) {
			const struct rec_value *x = &r->values[k];
			printf("%s %d.%d", rec_get(r, "name"), x->line, x->field);
			print_stat(x->med, x, r->n_runs % 2 == 0);
			print_stat(x->min, x, 0);
			print_stat(x->max, x, 0);
			printf(" %s # %s\n", x->unit[0] ? x->unit : "-", rep->out[x->line - 1]);
		}
		rec_free(r);
	}
	return rc;
}

static int cmd_check(int argc, char **argv)
{
	int i, rc = 0;
	char err[1024];

	if (argc < 1)
		return usage("check needs a record");
	for (i = 0; i < argc; i++) {
		struct record *r;
		if (rec_load(argv[i], &r, err, sizeof err))
			rc = die("%s", err);
		else
			rec_free(r);
	}
	return rc;
}

static int cmd_markdown(int argc, char **argv)
{
	struct record *r;
	char err[1024];
	int rc;

	if (argc != 1)
		return usage("markdown needs one record");
	if (rec_load(argv[0], &r, err, sizeof err))
		return die("%s", err);
	rc = rec_console_markdown(r, stdout) ? die("%s: cannot make its console block", argv[0]) : 0;
	rec_free(r);
	return rc;
}

static int cmd_summary(int argc, char **argv)
{
	struct record *r;
	char err[1024];
	double *w;
	size_t i, n;

	if (argc != 1)
		return usage("summary needs one record");
	if (rec_load(argv[0], &r, err, sizeof err))
		return die("%s", err);
	n = r->n_runs;
	w = malloc(n * sizeof *w);
	if (!w) {
		rec_free(r);
		return die("out of memory");
	}
	for (i = 0; i < n; i++)
		w[i] = r->runs[i].wall_s;
	/* few runs: a simple insertion sort */
	for (i = 1; i < n; i++) {
		double x = w[i];
		size_t j = i;
		while (j > 0 && w[j - 1] > x) {
			w[j] = w[j - 1];
			j--;
		}
		w[j] = x;
	}
	printf("%zu %.3f\n", n, n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2);
	free(w);
	rec_free(r);
	return 0;
}

static int cmd_expand(int argc, char **argv)
{
	const char *set, *tangled = NULL, *text;
	struct val_ctx *c;
	char err[2048], *out;
	int rc;

	if (argc == 2) {
		set = argv[0];
		text = argv[1];
	} else if (argc == 4 && strcmp(argv[1], "--tangled") == 0) {
		set = argv[0];
		tangled = argv[2];
		text = argv[3];
	} else
		return usage("expand needs SETDIR [--tangled DIR] TEXT");
	c = val_open(set, tangled);
	if (!c)
		return die("out of memory");
	if (val_expand(c, text, &out, err, sizeof err))
		rc = die("{{%s}}: %s", text, err);
	else {
		fputs(out, stdout);
		if (!*out || out[strlen(out) - 1] != '\n')
			fputs("\n", stdout);
		free(out);
		rc = 0;
	}
	val_close(c);
	return rc;
}

static int cmd_uses(int argc, char **argv)
{
	char *text, **names;
	size_t n, i, len;

	if (argc != 1)
		return usage("uses needs one script");
	text = rec_read_file(argv[0], &len);
	if (!text)
		return die("%s: cannot read: %s", argv[0], strerror(errno));
	n = rec_script_programs(text, &names);
	free(text);
	if (n == (size_t)-1)
		return die("out of memory");
	for (i = 0; i < n; i++)
		printf("%s\n", names[i]);
	rec_free_strings(names, n);
	return 0;
}

static int cmd_sha256(int argc, char **argv)
{
	int i, rc = 0;
	char hex[65];

	for (i = 0; i < argc; i++) {
		if (sha256_file(argv[i], hex))
			rc = die("%s: cannot read: %s", argv[i], strerror(errno));
		else
			printf("%s  %s\n", hex, argv[i]);
	}
	return rc;
}

/* ---------- the measurements page ---------- */

static int rec_file(const struct dirent *de)
{
	size_t l = strlen(de->d_name);

	return de->d_name[0] != '.' && l > 4 && strcmp(de->d_name + l - 4, ".rec") == 0;
}

static void fence(size_t n)
{
	while (n--)
		putchar('`');
}

/* A Markdown page of the whole set (build/md/measurements.md): for each record, whether it is
 * current, its console block and its values. Record text only ever appears inside code blocks
 * or escaped, as in the chapters. */
static int cmd_page(int argc, char **argv)
{
	struct dirent **de = NULL;
	struct val_ctx *c;
	const char *set, *base;
	char err[2048];
	int n, i, rc = 0;

	if (argc != 2)
		return usage("page needs SETDIR TANGLEDDIR");
	set = argv[0];
	base = strrchr(set, '/');
	base = base && base[1] ? base + 1 : set;
	printf("# Measurements\n\n");
	n = scandir(set, &de, rec_file, alphasort);
	if (n <= 0) {
		printf("The measurement set ");
		rec_code_span(stdout, base);
		printf(" has no records yet: `make run` on a machine with the GPU makes them.\n");
		free(de);
		return 0;
	}
	c = val_open(set, argv[1]);
	if (!c)
		return die("out of memory");
	{
		char gpu[256], drv[256], cuda[256], runs[64], date[64];
		printf("The measurement set ");
		rec_code_span(stdout, base);
		printf(" holds %d record%s", n, n == 1 ? "" : "s");
		if (val_prov(c, "gpu", gpu, sizeof gpu, err, sizeof err) == 0 &&
		    val_prov(c, "driver", drv, sizeof drv, err, sizeof err) == 0 &&
		    val_prov(c, "cuda", cuda, sizeof cuda, err, sizeof err) == 0 &&
		    val_prov(c, "date", date, sizeof date, err, sizeof err) == 0) {
			/* provenance characters start no Markdown markup (rec_prov_char_ok) */
			printf(", made on an %s with driver %s and CUDA %s (the latest on %s)", gpu, drv, cuda, date);
		}
		if (val_prov(c, "runs", runs, sizeof runs, err, sizeof err) == 0)
			printf(", %s runs each", runs);
		printf(". Each shows its representative run; the values are the medians, minimums and "
		       "maximums over all runs, as the chapters quote them.\n");
	}
	for (i = 0; i < n; i++) {
		char name[512], why[2048];
		const struct record *r;
		size_t k, longest = 0, f;
		int fr;

		snprintf(name, sizeof name, "%.*s", (int)strlen(de[i]->d_name) - 4, de[i]->d_name);
		r = val_record(c, name, err, sizeof err);
		if (!r) {
			rc = die("%s", err);
			continue;
		}
		printf("\n## ");
		rec_code_span(stdout, name);
		printf(" {#record-%s}\n\n", name);
		fr = val_fresh(c, name, why, sizeof why);
		if (fr == 0) {
			printf("*Stale:* ");
			rec_code_span(stdout, why);
			printf(". `make run ONLY=%s` measures it again.\n\n", name);
		}
		fflush(stdout);
		if (rec_console_markdown(r, stdout)) {
			rc = die("%s: cannot make its console block", r->path);
			continue;
		}
		if (!r->n_values)
			continue;
		/* the values block holds output text: fence it like the console block */
		for (k = 0; k < r->n_values; k++) {
			const char *t = rec_rep(r)->out[r->values[k].line - 1];
			size_t run = 0;
			for (; *t; t++) {
				run = *t == '`' ? run + 1 : 0;
				if (run > longest)
					longest = run;
			}
		}
		f = longest < 3 ? 3 : longest + 1;
		printf("\n");
		fence(f);
		printf("{.values}\n");
		printf("%-20s %-14s %-14s %-14s %s\n", "value", "median", "min", "max", "line (representative run)");
		for (k = 0; k < r->n_values; k++) {
			const struct rec_value *x = &r->values[k];
			char ref[600], a[96], b[96], d[96];
			snprintf(ref, sizeof ref, "%s:%d.%d", name, x->line, x->field);
			rec_format_value(a, sizeof a, x->med, x->decimals, x->exp, x->unit);
			rec_format_value(b, sizeof b, x->min, x->decimals, x->exp, x->unit);
			rec_format_value(d, sizeof d, x->max, x->decimals, x->exp, x->unit);
			printf("%-20s %-14s %-14s %-14s %s\n", ref, a, b, d, rec_rep(r)->out[x->line - 1]);
		}
		fence(f);
		printf("\n");
	}
	for (i = 0; i < n; i++)
		free(de[i]);
	free(de);
	val_close(c);
	return rc;
}

/* ---------- claims ---------- */

struct nwfile {
	const char *path;
	char **lines;
	size_t n;
	char *doc;                /* doc[i]: line i is prose */
};

static int load_nw(const char *path, struct nwfile *f)
{
	size_t len, i;
	char *text = rec_read_file(path, &len), *s, *e;
	int code = 0;

	memset(f, 0, sizeof *f);
	f->path = path;
	if (!text)
		return die("%s: cannot read: %s", path, strerror(errno));
	for (s = text; *s; s = e + 1) {
		char **p;
		e = strchr(s, '\n');
		if (!e)
			e = s + strlen(s);
		p = realloc(f->lines, (f->n + 1) * sizeof *p);
		if (!p) {
			free(text);
			return die("out of memory");
		}
		f->lines = p;
		f->lines[f->n] = strndup(s, (size_t)(e - s));
		if (!f->lines[f->n]) {
			free(text);
			return die("out of memory");
		}
		f->n++;
		if (!*e)
			break;
	}
	free(text);
	f->doc = calloc(f->n + 1, 1);
	if (!f->doc)
		return die("out of memory");
	for (i = 0; i < f->n; i++) {
		const char *l = f->lines[i];
		size_t k = strlen(l);
		while (k > 0 && (l[k - 1] == ' ' || l[k - 1] == '\t' || l[k - 1] == '\r'))
			k--;
		if (l[0] == '<' && l[1] == '<' && l[2] != '<' && l[2] != ' ' && k >= 5 &&
		    strncmp(l + k - 3, ">>=", 3) == 0) {
			code = 1;
			continue;
		}
		if (l[0] == '@' && (l[1] == '\0' || l[1] == ' ' || l[1] == '\t' || l[1] == '\r')) {
			code = 0;
			/* "@ %def ..." ends a chunk with an index line, not prose */
			f->doc[i] = strncmp(l, "@ %", 3) != 0;
			continue;
		}
		f->doc[i] = !code;
	}
	return 0;
}

static void free_nw(struct nwfile *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->lines[i]);
	free(f->lines);
	free(f->doc);
}

static int blank(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\r')
			return 0;
	return 1;
}

/* The prose text of line i (without a leading "@ "). */
static const char *prose(const struct nwfile *f, size_t i)
{
	const char *l = f->lines[i];

	return l[0] == '@' ? l + 1 : l;
}

/* Whether line k is a non-blank prose line (part of a paragraph). */
static int para_line(const struct nwfile *f, size_t k)
{
	return f->doc[k] && !blank(prose(f, k));
}

/* The sentence around columns [a, b) of line i: its paragraph joined, cut at sentence ends. */
static void sentence(const struct nwfile *f, size_t i, size_t a, size_t b, char *buf, size_t len)
{
	size_t first = i, last = i, k, o = 0, at = 0, s, e, plen = 0, dl = b - a;
	char *p;

	while (first > 0 && para_line(f, first - 1))
		first--;
	while (last + 1 < f->n && para_line(f, last + 1))
		last++;
	for (k = first; k <= last; k++)
		plen += strlen(prose(f, k)) + 1;
	p = malloc(plen + 1);
	if (!p) {
		snprintf(buf, len, "%s", f->lines[i]);
		return;
	}
	p[0] = '\0';
	for (k = first; k <= last; k++) {
		const char *t = prose(f, k);
		while (*t == ' ' || *t == '\t')
			t++;
		if (o)
			p[o++] = ' ';
		if (k == i)
			at = o + (a - (size_t)(t - f->lines[i]));
		strcpy(p + o, t);
		o += strlen(t);
	}
	/* A sentence ends at . ! or ? before a blank; points inside numbers and names do not count. */
	s = at;
	while (s >= 2 && !(p[s - 1] == ' ' && strchr(".!?", p[s - 2])))
		s--;
	if (s < 2)
		s = 0;
	/* A claim usually follows the sentence it backs: when the directive opens its sentence,
	 * show the one before it too. */
	if (s == at && s >= 2) {
		s -= 2;
		while (s >= 2 && !(p[s - 1] == ' ' && strchr(".!?", p[s - 2])))
			s--;
		if (s < 2)
			s = 0;
	}
	e = at + dl;
	while (e < o && !(strchr(".!?", p[e]) && (p[e + 1] == ' ' || p[e + 1] == '\0')))
		e++;
	if (e < o)
		e++;
	if (e - s > 300) {
		int cut_s = at > s + 150, cut_e = e > at + dl + 150;
		if (cut_s)
			s = at - 150;
		if (cut_e)
			e = at + dl + 150;
		snprintf(buf, len, "%s%.*s%s", cut_s ? "..." : "", (int)(e - s), p + s, cut_e ? "..." : "");
	} else
		snprintf(buf, len, "%.*s", (int)(e - s), p + s);
	free(p);
}

struct tally {
	int hold, fail, problems, values, outputs;
	/* records already reported stale in this file: one report each is enough */
	char stale[64][VAL_NAMELEN];
	int nstale;
};

static void problem(struct tally *t, const struct nwfile *f, size_t i, size_t a, size_t b, const char *what,
                    const char *fmt, ...)
{
	va_list ap;
	char sen[1024];

	t->problems++;
	printf("%s:%zu: %s: %.*s: ", f->path, i + 1, what, (int)(b - a), f->lines[i] + a);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	sentence(f, i, a, b, sen, sizeof sen);
	printf("\n    in: %s\n", sen);
}

static void check_directive(struct val_ctx *c, struct tally *t, const struct nwfile *f, size_t i, size_t a,
                            size_t b, int all)
{
	struct val_directive d;
	char inner[2048], err[2048], *out;
	const char *names[2 * VAL_MAXTERMS];
	int n, k;

	snprintf(inner, sizeof inner, "%.*s", (int)(b - a - 4), f->lines[i] + a + 2);
	if (val_parse(inner, &d, err, sizeof err)) {
		problem(t, f, i, a, b, "error", "%s", err);
		return;
	}
	if (d.kind == VAL_OUTPUT) {
		/* alone in its paragraph: nothing else on its line, no prose line just above or below */
		const char *l = prose(f, i);
		int alone = blank(f->lines[i] + b);
		size_t z;
		for (z = 0; l + z < f->lines[i] + a; z++)
			alone &= l[z] == ' ' || l[z] == '\t';
		if ((i > 0 && para_line(f, i - 1)) || (i + 1 < f->n && para_line(f, i + 1)))
			alone = 0;
		if (!alone) {
			problem(t, f, i, a, b, "error", "expected {{output NAME}} alone in its paragraph (blank lines "
			        "around it), found text beside it");
			return;
		}
		t->outputs++;
	}
	if (d.kind == VAL_CLAIM) {
		int h = val_claim(c, inner, err, sizeof err);
		if (h < 0)
			problem(t, f, i, a, b, "missing", "%s", err);
		else if (h == 0) {
			char sen[1024];
			t->fail++;
			sentence(f, i, a, b, sen, sizeof sen);
			printf("%s:%zu: FAILS: %s\n    in: %s\n", f->path, i + 1, err, sen);
		} else {
			t->hold++;
			if (all)
				printf("%s:%zu: holds: %s\n", f->path, i + 1, err);
		}
	} else {
		if (val_expand(c, inner, &out, err, sizeof err)) {
			problem(t, f, i, a, b, "missing", "%s", err);
			return;
		}
		free(out);
		if (d.kind == VAL_VALUE || d.kind == VAL_RATIO)
			t->values++;
	}
	n = val_record_names(&d, names, (int)(sizeof names / sizeof names[0]));
	for (k = 0; k < n; k++) {
		char reason[2048];
		char e2[1024];
		if (!val_record(c, names[k], e2, sizeof e2))
			continue; /* reported above */
		int seen = 0, z;
		/* Every output marker is reported; values and claims once per record and file, since one
		 * changed program can stand behind dozens of numbers. */
		for (z = 0; z < t->nstale && d.kind != VAL_OUTPUT; z++)
			seen |= strcmp(t->stale[z], names[k]) == 0;
		if (seen || val_fresh(c, names[k], reason, sizeof reason) != 0)
			continue;
		if (d.kind == VAL_OUTPUT) {
			problem(t, f, i, a, b, "stale", "record %s is stale: %s; make run ONLY=%s remakes it", names[k],
			        reason, names[k]);
			continue;
		}
		if (t->nstale < 64)
			snprintf(t->stale[t->nstale++], VAL_NAMELEN, "%s", names[k]);
		problem(t, f, i, a, b, "stale", "record %s is stale: %s; make run ONLY=%s remakes it (its later "
		        "values and claims in this file are not listed)", names[k], reason, names[k]);
	}
}

static int cmd_claims(int argc, char **argv)
{
	int all = 1, i;
	struct val_ctx *c;
	static struct tally t;

	if (argc > 0 && strcmp(argv[0], "--check") == 0) {
		all = 0;
		argc--;
		argv++;
	} else if (argc > 0 && strcmp(argv[0], "--all") == 0) {
		argc--;
		argv++;
	}
	if (argc < 3)
		return usage("claims needs SETDIR TANGLEDDIR and at least one FILE.nw");
	c = val_open(argv[0], argv[1]);
	if (!c)
		return die("out of memory");
	for (i = 2; i < argc; i++) {
		struct nwfile f;
		size_t l;
		t.nstale = 0;
		if (load_nw(argv[i], &f)) {
			t.problems++;
			free_nw(&f);
			continue;
		}
		for (l = 0; l < f.n; l++) {
			size_t pos = 0, a, b;
			int r;
			if (!f.doc[l])
				continue;
			if (f.lines[l][0] == '@')
				pos = 1;
			while ((r = val_find(f.lines[l], &pos, &a, &b)) != 0) {
				if (r < 0) {
					problem(&t, &f, l, a, strlen(f.lines[l]), "error",
					        "expected '}}' to close the directive on the same line, found the end of the line");
					break;
				}
				check_directive(c, &t, &f, l, a, b, all);
			}
		}
		free_nw(&f);
	}
	val_close(c);
	printf("%d claim%s hold%s, %d fail%s; %d value%s and %d output%s checked; %d problem%s\n", t.hold,
	       t.hold == 1 ? "" : "s", t.hold == 1 ? "s" : "", t.fail, t.fail == 1 ? "s" : "", t.values,
	       t.values == 1 ? "" : "s", t.outputs, t.outputs == 1 ? "" : "s", t.problems,
	       t.problems == 1 ? "" : "s");
	return t.fail || t.problems ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2)
		return usage("expected a subcommand, found nothing");
	cmd = argv[1];
	argc -= 2;
	argv += 2;
	static const struct {
		const char *name;
		int (*run)(int, char **);
	} commands[] = {
		{"write", cmd_write},       {"fresh", cmd_fresh},     {"values", cmd_values},
		{"claims", cmd_claims},     {"markdown", cmd_markdown}, {"expand", cmd_expand},
		{"check", cmd_check},       {"summary", cmd_summary}, {"uses", cmd_uses},
		{"sha256", cmd_sha256},     {"page", cmd_page},
	};
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(cmd, commands[i].name) == 0)
			return commands[i].run(argc, argv);
	return usage("expected a subcommand, found '%s'", cmd);
}
