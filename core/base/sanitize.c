/* sanitize — escape control characters and invalid UTF-8 for display. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"

/* The longest escape ("\u202e") plus NUL. */
#define SANITIZE_ESC_MAX 16

/* Length of the valid UTF-8 sequence at s (n bytes left) and its code
 * point, or 0 when the bytes there are not one. */
static size_t sanitize_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		return 0;
	*cp = c;
	return len;
}

static bool sanitize_cp_bad(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) ||
	       (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

/* At s (n > 0 bytes left): how many input bytes the next unit takes (*adv)
 * and, when it must be escaped, its escape in esc (returns true). */
static bool sanitize_next(const char *s, size_t n, unsigned flags,
			  size_t *adv, char esc[SANITIZE_ESC_MAX])
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp = 0;
	size_t len;

	if (u[0] < 0x20 || u[0] == 0x7f) {
		*adv = 1;
		if ((u[0] == '\n' && (flags & SANITIZE_KEEP_NL)) ||
		    (u[0] == '\t' && (flags & SANITIZE_KEEP_TAB)) ||
		    (u[0] == '\r' && (flags & SANITIZE_KEEP_CR)))
			return false;
		snprintf(esc, SANITIZE_ESC_MAX, "\\x%02x", u[0]);
		return true;
	}
	len = sanitize_utf8(u, n, &cp);
	if (!len) {
		*adv = 1;
		snprintf(esc, SANITIZE_ESC_MAX, "\\x%02x", u[0]);
		return true;
	}
	*adv = len;
	if (sanitize_cp_bad(cp)) {
		snprintf(esc, SANITIZE_ESC_MAX, "\\u%04x", (unsigned)cp);
		return true;
	}
	return false;
}

/* Calls emit for each run of kept bytes and each escape, in order. */
typedef int (*sanitize_emit_cb)(void *ctx, const char *p, size_t len, bool esc);

static int sanitize_walk(const char *s, size_t n, unsigned flags,
			 sanitize_emit_cb emit, void *ctx)
{
	char esc[SANITIZE_ESC_MAX];
	size_t i = 0, run = 0, adv;
	int err;

	while (i < n) {
		if (!sanitize_next(s + i, n - i, flags, &adv, esc)) {
			i += adv;
			continue;
		}
		if (i > run && (err = emit(ctx, s + run, i - run, false)))
			return err;
		if ((err = emit(ctx, esc, strlen(esc), true)))
			return err;
		i += adv;
		run = i;
	}
	if (i > run)
		return emit(ctx, s + run, i - run, false);
	return 0;
}

struct sanitize_buf {
	char *p;
	size_t len, cap;
	bool cut;                   /* sanitize_into: stop adding once cut */
	bool fixed;                 /* do not grow (sanitize_into) */
	size_t need;
};

static int sanitize_buf_emit(void *ctx, const char *p, size_t len, bool esc)
{
	struct sanitize_buf *b = ctx;

	b->need += len;
	if (b->cut)
		return 0;
	if (b->fixed) {
		if (b->len + len + 1 > b->cap) {
			/* keep whole UTF-8 sequences of a kept run; never half
			 * an escape */
			size_t room = b->cap > b->len + 1 ? b->cap - b->len - 1 : 0;

			if (!esc) {
				while (room > 0 && ((unsigned char)p[room] & 0xc0) == 0x80)
					room--;
				memcpy(b->p + b->len, p, room);
				b->len += room;
			}
			b->cut = true;
			return 0;
		}
	} else if (b->len + len + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *np;

		while (cap < b->len + len + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, len);
	b->len += len;
	return 0;
}

char *sanitize_mem(const char *s, size_t n, unsigned flags)
{
	struct sanitize_buf b = { 0 };

	if (!s) {
		errno = 0;
		return NULL;
	}
	b.cap = n + 1;
	b.p = malloc(b.cap);
	if (!b.p)
		goto nomem;
	if (sanitize_walk(s, n, flags, sanitize_buf_emit, &b))
		goto nomem;
	b.p[b.len] = '\0';
	return b.p;
nomem:
	free(b.p);
	errno = ENOMEM;
	return NULL;
}

char *sanitize_str(const char *s, unsigned flags)
{
	return s ? sanitize_mem(s, strlen(s), flags) : (errno = 0, NULL);
}

size_t sanitize_into(char *dst, size_t dstsz, const char *s, unsigned flags)
{
	struct sanitize_buf b = { .p = dst, .cap = dstsz, .fixed = true };

	if (!s)
		s = "";
	if (!dstsz || !dst) {
		b.cut = true;
		b.fixed = true;
	}
	sanitize_walk(s, strlen(s), flags, sanitize_buf_emit, &b);
	if (dst && dstsz)
		dst[b.len] = '\0';
	return b.need;
}

static int sanitize_file_emit(void *ctx, const char *p, size_t len, bool esc)
{
	(void)esc;
	return fwrite(p, 1, len, ctx) == len ? 0 : EOF;
}

int sanitize_fputs(const char *s, FILE *f, unsigned flags)
{
	if (!s)
		return 0;
	return sanitize_walk(s, strlen(s), flags, sanitize_file_emit, f) ? EOF : 0;
}

int sanitize_fprintf(FILE *f, unsigned flags, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n, rc;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return EOF;
	rc = sanitize_walk(s, (size_t)n, flags, sanitize_file_emit, f) ? EOF : 0;
	free(s);
	return rc;
}

bool sanitize_is_clean(const char *s, unsigned flags)
{
	char esc[SANITIZE_ESC_MAX];
	size_t n, i = 0, adv;

	if (!s)
		return true;
	n = strlen(s);
	while (i < n) {
		if (sanitize_next(s + i, n - i, flags, &adv, esc))
			return false;
		i += adv;
	}
	return true;
}

int sanitize_inplace(char **sp, unsigned flags)
{
	char *t;

	if (!sp || !*sp || sanitize_is_clean(*sp, flags))
		return 0;
	t = sanitize_str(*sp, flags);
	if (!t)
		return -ENOMEM;
	free(*sp);
	*sp = t;
	return 0;
}
