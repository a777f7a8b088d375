/* import_folded — folded stacks ("a;b;c 42") into a profile window (the
 * format: import.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/import_int.h"
#include "base/util.h"

static int folded_line(struct import_ctx *c, const struct import_line *l, struct import_frames *f)
{
	char q[80];
	const char *s = l->s;
	size_t n = l->len, i;
	uint64_t count;
	int err;

	/* the count: the last blank-separated token */
	for (i = n; i > 0 && !import_is_blank(s[i - 1]); i--)
		;
	if (i == 0)
		goto bad;
	err = import_parse_u64(s + i, n - i, &count);
	if (err == -ERANGE) {
		import_quote(s + i, n - i, q, sizeof(q));
		return util_fail(c->cause, -EINVAL, "%s:%u: count '%s' is too large",
				 c->name, l->no, q);
	}
	if (err)
		goto bad;
	size_t sn = i;
	while (sn && import_is_blank(s[sn - 1]))
		sn--;
	if (!sn)
		goto bad;

	/* frames; with "_[k]" annotations keep the kernel ones only */
	int annotated = 0;
	for (size_t a = 0; a + 4 <= sn; a++)
		if (!memcmp(s + a, "_[k]", 4) && (a + 4 == sn || s[a + 4] == ';')) {
			annotated = 1;
			break;
		}
	import_frames_reset(f);
	size_t b = 0;
	while (b <= sn) {
		const char *semi = memchr(s + b, ';', sn - b);
		size_t e = semi ? (size_t)(semi - s) : sn;
		size_t fb = b, fe = e;
		while (fb < fe && import_is_blank(s[fb]))
			fb++;
		while (fe > fb && import_is_blank(s[fe - 1]))
			fe--;
		if (fe == fb)
			return util_fail(c->cause, -EINVAL,
					 "%s:%u: empty frame in the stack (';' at an end or ';;')",
					 c->name, l->no);
		if (!annotated || (fe - fb > 4 && !memcmp(s + fe - 4, "_[k]", 4))) {
			size_t len = annotated ? fe - fb - 4 : fe - fb;
			err = import_frames_push(f, s + fb, len);
			if (err == -E2BIG)
				return util_fail(c->cause, -EINVAL, "%s:%u: more than %d frames in one stack",
						 c->name, l->no, IMPORT_MAX_FRAMES);
			if (err == -ENAMETOOLONG)
				return util_fail(c->cause, -EINVAL, "%s:%u: a frame name of %zu bytes; at "
						 "most %d (a kernel symbol is at most 512)", c->name,
						 l->no, len, IMPORT_MAX_NAME);
			if (err)
				return util_fail(c->cause, err, "%s:%u: %s", c->name, l->no, strerror(-err));
		}
		b = e + 1;
	}
	if (c->info)
		c->info->stacks++;
	if (!count || !f->n)
		return 0;
	const char **fp = import_frames_ptrs(f, 0);
	if (!fp)
		return util_fail(c->cause, -ENOMEM, "%s:%u: out of memory", c->name, l->no);
	err = profile_add(c->p, c->cur_win, fp, f->n, 0, NULL, count);
	if (err)
		return util_fail(c->cause, err, "%s:%u: cannot add the stack: %s",
				 c->name, l->no, strerror(-err));
	c->cur_added++;
	if (c->info)
		c->info->samples += count;
	return 0;
bad:
	import_quote(s, l->raw_len, q, sizeof(q));
	return util_fail(c->cause, -EINVAL, "%s:%u: expected 'frames COUNT', got '%s'",
			 c->name, l->no, q);
}

int import_folded(struct import_ctx *c, struct import_reader *r)
{
	struct import_frames f = { 0 };
	struct import_line l;
	int err = 0;

	while (import_reader_next(r, &l)) {
		if (c->info)
			c->info->lines++;
		if (!l.len)
			continue;
		if (l.s[0] == '#') {
			if (l.len >= 14 && !memcmp(l.s, "# argus-window", 14) &&
			    (l.len == 14 || import_is_blank(l.s[14]))) {
				err = import_window_header(c, &l);
				if (err)
					goto out;
			}
			continue;
		}
		err = folded_line(c, &l, &f);
		if (err)
			goto out;
	}
out:
	import_frames_fini(&f);
	return err;
}
