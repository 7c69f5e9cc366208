/* records.h -- read, compute, check and write measurement records (measurements/<gpu>/NAME.rec). */
#ifndef RECORDS_H
#define RECORDS_H

#include <stddef.h>
#include <stdio.h>

/* One run: its exit status, wall time and the lines it printed (without newlines). */
struct rec_run {
	int exit;                 /* exit status; 124 or 137 for a time-out */
	double wall_s;
	char **out;               /* stdout lines */
	size_t n_out;
	char **err;               /* stderr lines */
	size_t n_err;
	int lineno;               /* line of "run N ..." in the file; 0 for built records */
};

struct rec_use {
	char *name;               /* file name in tangled/, e.g. reduce_block.cu */
	char *sha256;             /* lower-case hex */
};

/* A number found in an output line (see design.md, "Numbers in program output"). */
struct rec_num {
	double v;
	int decimals;             /* digits after the point as printed */
	int exp;                  /* printed with an exponent (1.5e-3) */
	char unit[8];             /* "" when the next word is no unit */
	size_t start, end;        /* byte offsets in the line */
};

/* The statistics of field N of stdout line L over all runs. */
struct rec_value {
	int line, field;          /* 1-based */
	double med, min, max;
	int decimals;             /* the most decimals printed in any run */
	int exp;                  /* some run printed it with an exponent */
	char unit[8];             /* "" when none, or when the runs disagree */
};

struct rec_hdr {
	char *key;
	char *value;
};

struct record {
	char *path;               /* as given to rec_load; NULL for a record built in memory */
	struct rec_hdr *hdr;      /* single-valued header fields, including runs and representative */
	size_t n_hdr;
	struct rec_use *uses;
	size_t n_uses;
	char **script;            /* sessions: the script's command lines */
	size_t n_script;
	struct rec_run *runs;
	size_t n_runs;
	int representative;       /* 1-based run number */
	struct rec_value *values;
	size_t n_values;
};

/* rec_value's results other than 0. */
enum {
	REC_ENOLINE = -1,         /* some run printed fewer stdout lines */
	REC_ENOFIELD = -2,        /* the line has fewer numbers */
	REC_EVARIES = -3,         /* the runs printed different numbers of numbers on the line */
	REC_EBADSTAT = -4         /* stat is not med, min or max */
};

/* Reading. rec_load returns 0, or -1 with err set to "PATH:LINE: expected X, found Y" (or the
 * system error). The loader recomputes the values from the runs and rejects a record whose
 * value lines disagree with them, or whose provenance holds characters outside [A-Za-z0-9 .()/:+-]. */
int rec_load(const char *path, struct record **out, char *err, size_t errlen);
void rec_free(struct record *r);

/* Header field (name, kind, source, sha256, compile, command, gpu, compute_capability, sm_count,
 * sm_clock_mhz, driver, cuda_runtime, nvcc, date, runs, timeout_s, representative) or NULL. */
const char *rec_get(const struct record *r, const char *key);
/* The representative run (never NULL for a loaded record with runs). */
const struct rec_run *rec_rep(const struct record *r);

/* Value of field `field` (1-based) of stdout line `line` (1-based); stat is "med", "min" or "max"
 * (NULL means med). Returns 0 and sets *v, *decimals (may be NULL) and *unit (NULL when none;
 * may be NULL), or one of the REC_E* codes. */
int rec_value(const struct record *r, int line, int field, const char *stat,
              double *v, int *decimals, const char **unit);
/* The struct behind a value, or NULL. */
const struct rec_value *rec_find_value(const struct record *r, int line, int field);
/* Why rec_value failed, in words, naming the record, e.g. "race.rec: stdout line 3 has 2 numbers". */
void rec_value_explain(const struct record *r, int line, int field, int code, char *msg, size_t len);

/* A statistic of v as the record writes it: with the decimals printed (extra more, for the mean of
 * two), or the shortest text that reads back the same when it was printed with an exponent. */
int rec_format_stat(char *buf, size_t len, const struct rec_value *v, double x, int extra);

/* Numbers in one output line; returns how many, *out is malloc'ed (free it). */
size_t rec_numbers(const char *line, struct rec_num **out);

/* Formatting for prose. rec_format_value: "0.412 ms" (decimals as printed, then the unit; "45%"
 * for percent). rec_format_ratio: "5.4 times" (one decimal under 10, none from 10 up).
 * Both return the length written (as snprintf), or -1. */
int rec_format_value(char *buf, size_t len, double v, int decimals, int exp, const char *unit);
int rec_format_ratio(char *buf, size_t len, double ratio);

/* A console block (Pandoc Markdown) for the representative run: a fenced code block of class
 * console with the commands and the output, then a provenance paragraph. Returns 0 or -1. */
int rec_console_markdown(const struct record *r, FILE *out);
/* The provenance line's text, without the [ ]{.provenance} around it. Its characters (see
 * rec_prov_char_ok) start no Markdown markup, so it needs no escaping. */
int rec_provenance_text(const struct record *r, char *buf, size_t len);
/* Writes s as a Markdown code span, verbatim whatever it holds (its fence outgrows its backticks). */
void rec_code_span(FILE *out, const char *s);

/* Building a record in memory (for the writer). Strings are copied; output lines and header
 * values are cleaned so the file stays one item per line: provenance fields keep only
 * [A-Za-z0-9 .()/:+-] (empty becomes "unknown"); other text has control characters (except tab)
 * and bytes that are not UTF-8 replaced by '?'. */
struct record *rec_new(void);
int rec_set(struct record *r, const char *key, const char *value);
int rec_add_use(struct record *r, const char *name, const char *sha256);
int rec_add_script(struct record *r, const char *line);
struct rec_run *rec_add_run(struct record *r, int exit, double wall_s);
int rec_run_add_out(struct rec_run *run, const char *line, size_t len);
int rec_run_add_err(struct rec_run *run, const char *line, size_t len);
/* Computes the values, the representative run and the runs/representative header fields. */
int rec_compute(struct record *r);
/* The record as file text (malloc'ed, NUL-terminated), or NULL with err set. */
char *rec_format(const struct record *r, size_t *len, char *err, size_t errlen);
/* Checks that r has every header field with an acceptable value. 0 or -1 with err. */
int rec_validate(const struct record *r, char *err, size_t errlen);

/* Writes data to path atomically: a temporary file in the same directory, fsync, rename, fsync of
 * the directory. On any failure the temporary file is removed and path is untouched. */
int rec_write_atomic(const char *path, const char *data, size_t len, char *err, size_t errlen);
/* Test hook: after this many bytes, the next rec_write_atomic fails (kill != 0: dies by SIGKILL,
 * leaving its temporary file, as a crash would). Negative turns it off. */
void rec_test_fail_after(long bytes, int kill);

/* Provenance keys, and whether a header key is one; the character rule for their values. */
extern const char *const rec_prov_keys[];
int rec_is_prov_key(const char *key);
int rec_prov_char_ok(int c);

/* Sessions: the command lines of a script (non-empty, not comments), and the programs it runs
 * (each distinct NAME that appears as ./NAME). Both return a count and malloc'ed arrays of
 * malloc'ed strings (free with rec_free_strings), or (size_t)-1 on allocation failure. */
size_t rec_script_lines(const char *text, char ***lines);
size_t rec_script_programs(const char *text, char ***names);
void rec_free_strings(char **v, size_t n);

/* Freshness of the sources: 1 when the sha256 of source_path and of each use match the record,
 * else 0 with a reason. use_paths NULL: the uses the record names, looked up beside source_path;
 * otherwise the given files, whose names must be exactly the record's uses. */
int rec_fresh_sources(const struct record *r, const char *source_path,
                      char *const *use_paths, size_t n_use_paths, char *reason, size_t len);

/* The longer of cur and the longest run of backticks in s: a code fence or span one longer
 * than that cannot be closed by s, which is how Markdown keeps any text verbatim. */
size_t rec_longest_backticks(const char *s, size_t cur);

/* Helpers shared with values.c: a malloc'ed copy (NULL when out of memory), and printf into an
 * error buffer (err may be NULL). */
char *rec_strdup(const char *s);
void rec_seterr(char *err, size_t errlen, const char *fmt, ...);

/* Reads a whole file (NUL-terminated, malloc'ed), or NULL with errno set. */
char *rec_read_file(const char *path, size_t *len);

#endif
