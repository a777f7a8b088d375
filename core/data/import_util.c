/* import_util — the line reader, frame set, numbers and window headers the
 * importer's readers share (see import_int.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/import_int.h"
#include "base/sanitize.h"
#include "base/util.h"
#include "base/vec.h"

int import_reader_next(struct import_reader *r, struct import_line *l)
{
	if (r->pos >= r->len)
		return 0;
	const char *s = r->buf + r->pos;
	const char *nl = memchr(s, '\n', r->len - r->pos);
	size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
	l->s = s;
	l->off = r->pos;
	l->no = ++r->no;
	r->pos += n + (nl ? 1 : 0);
	while (n && s[n - 1] == '\r')
		n--;
	l->raw_len = n;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	l->len = n;
	return 1;
}

int import_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A printable, bounded quotation of a line for messages: control bytes
 * and invalid UTF-8 escaped (core/base/sanitize.h), cut with "...". */
void import_quote(const char *s, size_t n, char *out, size_t outlen)
{
	char raw[256];
	size_t k = n < sizeof(raw) - 1 ? n : sizeof(raw) - 1;

	memcpy(raw, s, k);
	raw[k] = 0;
	if (sanitize_into(out, outlen - 3, raw, 0) >= outlen - 3 || k < n)
		strcat(out, "...");
}

void import_frames_reset(struct import_frames *f)
{
	f->len = 0;
	f->n = 0;
}

/* -E2BIG: too many frames; -ENAMETOOLONG: a frame over IMPORT_MAX_NAME.
 * A name with control bytes is stored escaped (core/base/sanitize.h). */
int import_frames_push(struct import_frames *f, const char *s, size_t n)
{
	char esc[IMPORT_MAX_NAME * 6 + 1];

	if (f->n >= IMPORT_MAX_FRAMES)
		return -E2BIG;
	if (n > IMPORT_MAX_NAME)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f) {
			char raw[IMPORT_MAX_NAME + 1];

			memcpy(raw, s, n);
			raw[n] = 0;
			sanitize_into(esc, sizeof(esc), raw, 0);
			s = esc;
			n = strlen(esc);
			break;
		}
	if (vec_grow(&f->buf, &f->cap, f->len + n + 1, 1) ||
	    vec_grow_u(&f->off, &f->cap_n, (size_t)f->n + 1, sizeof(*f->off)))
		return -ENOMEM;
	memcpy(f->buf + f->len, s, n);
	f->buf[f->len + n] = 0;
	f->off[f->n++] = f->len;
	f->len += n + 1;
	return 0;
}

/* Pointers to the frames, in order (reverse != 0: last pushed first). */
const char **import_frames_ptrs(struct import_frames *f, int reverse)
{
	if (f->n > f->ptr_cap) {
		if (vec_resize(&f->ptr, f->n, sizeof(*f->ptr)))
			return NULL;
		f->ptr_cap = f->n;
	}
	for (unsigned i = 0; i < f->n; i++)
		f->ptr[i] = f->buf + f->off[reverse ? f->n - 1 - i : i];
	return f->ptr;
}

void import_frames_fini(struct import_frames *f)
{
	free(f->buf);
	free(f->off);
	free(f->ptr);
}

int import_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int import_all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int import_all_hex(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Length of s[0..n) without a trailing "+0x1f" offset. */
size_t import_strip_offset(const char *s, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		if (s[i] == '+') {
			if (i + 2 < n && s[i + 1] == '0' && s[i + 2] == 'x' &&
			    import_all_hex(s + i + 3, n - i - 3))
				return i;
			return n;
		}
	}
	return n;
}

/* ---- window handling ------------------------------------------------------- */

/* "# argus-window secs=S cond=ref|load [start=S]" */
int import_window_header(struct import_ctx *c, const struct import_line *l)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	double secs = -1, start = -1;
	int cond = -1;

	s += strlen("# argus-window");
	while (s < end) {
		while (s < end && import_is_blank(*s))
			s++;
		if (s >= end)
			break;
		const char *w = s;
		while (s < end && !import_is_blank(*s))
			s++;
		size_t wn = (size_t)(s - w);
		const char *eq = memchr(w, '=', wn);
		if (!eq)
			goto bad;
		size_t kn = (size_t)(eq - w), vn = wn - kn - 1;
		char v[64];
		if (vn == 0 || vn >= sizeof(v))
			goto bad;
		memcpy(v, eq + 1, vn);
		v[vn] = 0;
		if (kn == 4 && !memcmp(w, "secs", 4)) {
			char *e;
			secs = strtod(v, &e);
			if (*e || !(secs > 0) || secs > 1e9)
				goto bad;
		} else if (kn == 5 && !memcmp(w, "start", 5)) {
			char *e;
			start = strtod(v, &e);
			if (*e || !(start >= 0) || start > 1e12)
				goto bad;
		} else if (kn == 4 && !memcmp(w, "cond", 4)) {
			if (!strcmp(v, "ref"))
				cond = COND_REF;
			else if (!strcmp(v, "load"))
				cond = COND_LOAD;
			else
				goto bad;
		} /* other keys: later versions; ignored */
	}
	if (cond >= 0 && (enum cond)cond != c->cond)
		return util_fail(c->cause, -EINVAL,
				 "%s:%u: window says cond=%s but this file is read as the %s profile",
				 c->name, l->no, cond_name((enum cond)cond), cond_name(c->cond));
	if (c->cur_added || c->cur_secs_set) {
		/* a further window of the same condition */
		int w = profile_window_begin(c->p, c->cond, start >= 0 ? start : 0);
		if (w < 0)
			return util_fail(c->cause, w, "%s:%u: cannot open another window: %s",
					 c->name, l->no, strerror(-w));
		if (!c->cur_secs_set)
			profile_window_end(c->p, c->cur_win, 1.0);
		c->cur_win = (unsigned)w;
		c->cur_added = 0;
		c->cur_secs_set = 0;
		if (c->info)
			c->info->windows++;
	} else if (start >= 0) {
		c->p->wins[c->cur_win].start_s = start;
	}
	if (secs > 0) {
		profile_window_end(c->p, c->cur_win, secs);
		c->cur_secs_set = 1;
		if (c->info && c->cur_win == c->first_win) {
			c->info->secs_known = 1;
			c->info->secs = secs;
		}
	}
	return 0;
bad:
	import_quote(l->s, l->len, q, sizeof(q));
	return util_fail(c->cause, -EINVAL,
			 "%s:%u: expected '# argus-window secs=S cond=ref|load', got '%s'",
			 c->name, l->no, q);
}
