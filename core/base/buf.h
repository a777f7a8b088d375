/* buf — a growable byte buffer with checked growth, written once.
 *
 * The bytes are always NUL-terminated once anything was added (p[len] ==
 * '\0'), so p is a C string when no NUL was appended.  The buffer owns p:
 * buf_free releases it, buf_take hands it to the caller.  A zeroed struct
 * (BUF_INIT) is an empty buffer; nothing is allocated until the first add.
 * Every size computation is checked: a request whose size does not fit in
 * a size_t is -EOVERFLOW, never a short allocation. */
#ifndef ARGUS_BUF_H
#define ARGUS_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *p;     /* owned; NULL until the first add */
	size_t len;  /* bytes held, without the NUL */
	size_t cap;  /* bytes allocated at p */
};

#define BUF_INIT { NULL, 0, 0 }

/* Room for n more bytes and the NUL: 0, -EOVERFLOW or -ENOMEM (the buffer
 * unchanged on failure). */
int buf_reserve(struct buf *b, size_t n);

/* Appends n bytes of s (s may be NULL when n is 0): 0, -EOVERFLOW or
 * -ENOMEM, with nothing added on failure. */
int buf_append(struct buf *b, const void *s, size_t n);

/* buf_append, refused with -E2BIG when the buffer would then hold more
 * than max - 1 bytes (max counts the NUL): for replies read off a network,
 * whose size a server decides. */
int buf_append_max(struct buf *b, const void *s, size_t n, size_t max);

/* Appends the string s. */
int buf_puts(struct buf *b, const char *s);

/* Appends printf-style text: 0, -EOVERFLOW, -ENOMEM or -EINVAL (a bad
 * format), with nothing added on failure. */
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* Empties the buffer, keeping its memory. */
void buf_reset(struct buf *b);

/* The bytes as a NUL-terminated string the caller frees ("" allocated when
 * nothing was added), the buffer left empty; NULL with errno ENOMEM. */
char *buf_take(struct buf *b);

/* Frees the bytes and zeroes b; NULL-safe. */
void buf_free(struct buf *b);

#endif
