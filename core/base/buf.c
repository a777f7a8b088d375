/* buf — a growable byte buffer with checked growth (see buf.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"

#define BUF_MIN_CAP 256 /* the first allocation: most texts here fit */

int buf_reserve(struct buf *b, size_t n)
{
	size_t need, cap;
	char *np;

	/* len + n + 1 must fit: len < SIZE_MAX always (a NUL follows it) */
	if (n > SIZE_MAX - 1 - b->len)
		return -EOVERFLOW;
	need = b->len + n + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2; /* doubling, or exactly need near the top */
	np = realloc(b->p, cap);
	if (!np)
		return -ENOMEM;
	b->p = np;
	b->cap = cap;
	return 0;
}

int buf_append(struct buf *b, const void *s, size_t n)
{
	int err = buf_reserve(b, n);

	if (err)
		return err;
	if (n)
		memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

int buf_append_max(struct buf *b, const void *s, size_t n, size_t max)
{
	/* len + n + 1 > max, written so that it cannot wrap */
	if (b->len >= max || n > max - b->len - 1)
		return -E2BIG;
	return buf_append(b, s, n);
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n, err;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return errno == EOVERFLOW ? -EOVERFLOW : -EINVAL;
	err = buf_reserve(b, (size_t)n);
	if (err)
		return err;
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return err;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

char *buf_take(struct buf *b)
{
	char *s = b->p;

	if (!s && !(s = strdup("")))
		return NULL;
	memset(b, 0, sizeof(*b));
	return s;
}

void buf_free(struct buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}
