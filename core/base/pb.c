/* pb — protocol buffers wire format (see pb.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/pb.h"

void pb_buf_free(struct pb_buf *b)
{
	if (!b)
		return;
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void pb_buf_reset(struct pb_buf *b)
{
	b->len = 0;
	b->err = 0;
}

static int pb_grow(struct pb_buf *b, size_t n)
{
	if (b->err)
		return b->err;
	if (n > PB_MAX_BUF - b->len) {
		b->err = -E2BIG;
		return b->err;
	}
	if (b->len + n <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	uint8_t *p = realloc(b->p, cap);
	if (!p) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->p = p;
	b->cap = cap;
	return 0;
}

void pb_put_raw(struct pb_buf *b, const void *data, size_t n)
{
	if (!n || pb_grow(b, n))
		return;
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

size_t pb_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	pb_put_raw(b, tmp, n);
}

void pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire wt)
{
	pb_put_varint(b, (uint64_t)field << 3 | (uint64_t)wt);
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_tag(b, field, PB_VARINT);
	pb_put_varint(b, v);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n)
{
	pb_put_tag(b, field, PB_LEN);
	pb_put_varint(b, n);
	pb_put_raw(b, data, n);
}

void pb_put_str(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_put_bytes(b, field, s, strlen(s));
}

void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n)
{
	size_t len = 0;

	if (!n)
		return;
	for (size_t i = 0; i < n; i++)
		len += pb_varint_len(v[i]);
	pb_put_tag(b, field, PB_LEN);
	pb_put_varint(b, len);
	for (size_t i = 0; i < n; i++)
		pb_put_varint(b, v[i]);
}

/* ---- decoding ------------------------------------------------------------- */

void pb_reader_init(struct pb_reader *r, const void *data, size_t n)
{
	r->p = data;
	r->end = r->p + n;
}

int pb_get_varint(struct pb_reader *r, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 10; i++) {
		if (r->p >= r->end)
			return -EINVAL;
		uint8_t c = *r->p++;
		/* the tenth byte may only hold the top bit of 64 */
		if (i == 9 && c > 1)
			return -EINVAL;
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

int pb_next(struct pb_reader *r, struct pb_field *f)
{
	uint64_t tag, n;

	if (r->p >= r->end)
		return 0;
	if (pb_get_varint(r, &tag) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
		return -EINVAL;
	f->field = (uint32_t)(tag >> 3);
	f->wt = (enum pb_wire)(tag & 7);
	f->data = NULL;
	f->len = 0;
	f->v = 0;
	switch (f->wt) {
	case PB_VARINT:
		return pb_get_varint(r, &f->v) ? -EINVAL : 1;
	case PB_I64:
	case PB_I32: {
		size_t w = f->wt == PB_I64 ? 8 : 4;
		if ((size_t)(r->end - r->p) < w)
			return -EINVAL;
		for (size_t i = 0; i < w; i++)
			f->v |= (uint64_t)r->p[i] << (8 * i);
		r->p += w;
		return 1;
	}
	case PB_LEN:
		if (pb_get_varint(r, &n) || n > (uint64_t)(r->end - r->p))
			return -EINVAL;
		f->data = r->p;
		f->len = (size_t)n;
		r->p += n;
		return 1;
	default:
		return -EINVAL;
	}
}

int pb_varints(const struct pb_field *f, int (*each)(void *arg, uint64_t v), void *arg)
{
	struct pb_reader r;
	uint64_t v;
	int rc;

	if (f->wt == PB_VARINT)
		return each(arg, f->v);
	if (f->wt != PB_LEN)
		return -EINVAL;
	pb_reader_init(&r, f->data, f->len);
	while (r.p < r.end) {
		if (pb_get_varint(&r, &v))
			return -EINVAL;
		rc = each(arg, v);
		if (rc)
			return rc;
	}
	return 0;
}
