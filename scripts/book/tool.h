/* tool.h -- what the book's C tools share: memory that is there or the tool exits (a one-shot tool
 * gives it back when it ends), arrays that grow, formatted strings and UTF-8. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline void *need(void *p) { return p ? p : (fputs("out of memory\n", stderr), exit(2), NULL); }
static inline void *xrealloc(void *p, size_t n) { return need(realloc(p, n ? n : 1)); }
static inline char *xstrndup(const char *s, size_t n) { return need(strndup(s, n)); }

/* Room for element n of an array that grows by doubling: it reallocates at 0, 1, 2, 4, 8, ... */
static inline void *grow(void *p, size_t n, size_t size)
{
    return (n & (n - 1)) == 0 ? xrealloc(p, (n ? 2 * n : 1) * size) : p;
}
#define PUSH(a, n) ((a) = grow((a), (n), sizeof *(a)), &(a)[(n)++])

/* A string printf-formatted, malloc'ed. */
static inline char *vfmt(const char *f, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    size_t n = (size_t)vsnprintf(NULL, 0, f, ap) + 1;
    char *s = xrealloc(NULL, n);
    vsnprintf(s, n, f, again);
    va_end(again);
    return s;
}
static inline char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vfmt(f, ap);
    va_end(ap);
    return s;
}

/* The code point of the UTF-8 character at s, its length in *len; -1 where none starts: a stray continuation
 * byte, a truncated sequence, an overlong form, a surrogate, a code point past U+10FFFF, a 5- or 6-byte form. */
static inline long utf8(const unsigned char *s, size_t *len)
{
    size_t n = *s < 0x80 ? 1 : *s < 0xc2 ? 0 : *s < 0xe0 ? 2 : *s < 0xf0 ? 3 : *s < 0xf5 ? 4 : 0, i;
    /* The second byte's range is narrower after E0 and F0 (overlong), ED (surrogates), F4 (past U+10FFFF). */
    unsigned lo = *s == 0xe0 ? 0xa0 : *s == 0xf0 ? 0x90 : 0x80, hi = *s == 0xed ? 0x9f : *s == 0xf4 ? 0x8f : 0xbf;
    long c = n == 1 ? *s : *s & (0x7f >> n);

    for (i = 1; i < n && s[i] >= lo && s[i] <= hi; i++, lo = 0x80, hi = 0xbf)
        c = c << 6 | (s[i] & 0x3f);
    *len = n;
    return i == n ? c : -1;
}
