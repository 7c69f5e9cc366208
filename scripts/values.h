/* values.h -- the prose directives of design.md ({{output}}, {{NAME:L.N}}, ratios, provenance, claims). */
#ifndef VALUES_H
#define VALUES_H

#include <stddef.h>

#include "records.h"

#define VAL_NAMELEN 128
#define VAL_MAXTERMS 16

enum val_kind {
	VAL_OUTPUT,               /* output NAME */
	VAL_VALUE,                /* NAME:L.N[:stat] */
	VAL_RATIO,                /* NAME:L.N[:stat] / NAME:L.N[:stat] */
	VAL_PROV,                 /* gpu driver cuda date runs sm_count */
	VAL_CLAIM                 /* claim SIDE OP SIDE */
};

struct val_ref {
	char name[VAL_NAMELEN];
	int line, field;
	char stat[4];             /* med, min or max */
};

struct val_term {
	int is_ref;
	double num;               /* when !is_ref */
	struct val_ref ref;       /* when is_ref */
	char text[VAL_NAMELEN + 32]; /* as written */
};

/* term (op term)*, op '*' or '/' */
struct val_side {
	struct val_term terms[VAL_MAXTERMS];
	char ops[VAL_MAXTERMS];   /* ops[i] joins terms[i-1] and terms[i] */
	int n;
};

struct val_directive {
	enum val_kind kind;
	char name[VAL_NAMELEN];   /* OUTPUT: the record; PROV: the key */
	struct val_side lhs, rhs; /* VALUE: lhs has one ref; RATIO: lhs has ref / ref; CLAIM: both */
	char op[3];               /* CLAIM: < <= > >= == */
};

/* Parses the inside of {{...}}. 0, or -1 with err saying what was expected and found. */
int val_parse(const char *text, struct val_directive *d, char *err, size_t errlen);

/* Names of the records a directive refers to (distinct, in order); returns how many (at most max). */
int val_record_names(const struct val_directive *d, const char *names[], int max);

/* Finds the next {{...}} in a prose line at or after *pos, skipping [[quoted code]] and `code`
 * spans. Returns 1 and sets *start (at "{{") and *end (after "}}"); 0 when there is none; -1 when
 * a "{{" has no "}}" on the line (*start set). *pos is set to where the next search begins. */
int val_find(const char *line, size_t *pos, size_t *start, size_t *end);

/* A measurement set (a directory such as measurements/h200) whose records are loaded on demand
 * and cached; tangled (may be NULL) is the tangled/ directory, for freshness. */
struct val_ctx;
struct val_ctx *val_open(const char *setdir, const char *tangled);
void val_close(struct val_ctx *c);

/* The record NAME of the set, or NULL with err (the same error each time it is asked). */
const struct record *val_record(struct val_ctx *c, const char *name, char *err, size_t errlen);

/* The Markdown that replaces {{text}} (malloc'ed into *out): a console block, a value, a ratio,
 * a provenance item, or "" for a claim (whose syntax is still checked). 0, or -1 with err. */
int val_expand(struct val_ctx *c, const char *text, char **out, char *err, size_t errlen);

/* Evaluates a claim (the text after "claim", or a whole "claim ..." directive): 1 holds, 0 fails,
 * -1 cannot be evaluated (a value is missing, a syntax error). msg shows the claim with the
 * values, e.g. "reduce_block:1.1 (0.071 ms) < reduce_warp:1.1 (0.402 ms)", or the error. */
int val_claim(struct val_ctx *c, const char *expr, char *msg, size_t msglen);

/* Whether record NAME is fresh against the tangled/ directory: 1 fresh, 0 missing or stale (reason
 * says which and why), -1 when the context has no tangled directory. */
int val_fresh(struct val_ctx *c, const char *name, char *reason, size_t len);

/* A provenance item of the whole set (gpu driver cuda date runs sm_count), unescaped; all records
 * must agree (date: the latest day). 0 or -1 with err. */
int val_prov(struct val_ctx *c, const char *key, char *buf, size_t len, char *err, size_t errlen);

#endif
