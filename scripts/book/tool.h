/* tool.h -- what the book's C tools share: memory that is there or the tool exits (a one-shot tool
 * gives it back when it ends), arrays that grow, and formatted strings. */
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
