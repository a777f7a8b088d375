/* pb — the protocol buffers wire format, just what profile.proto needs.
 *
 * Encoder: a growing byte buffer; a write that cannot grow the buffer sets
 * b->err (-ENOMEM) and later writes do nothing, so a caller checks once at
 * the end.  Fields are written in the order called; zero values are written
 * too (callers skip proto3 defaults themselves when they care).
 *
 * Decoder: a cursor over untrusted bytes.  pb_next never reads past the end,
 * refuses varints longer than 10 bytes, lengths past the end, the group wire
 * types (3, 4) and field number 0, and returns -EINVAL for all of them.
 */
#ifndef ARGUS_PB_H
#define ARGUS_PB_H

#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_I64 = 1,
	PB_LEN = 2,
	PB_I32 = 5,
};

struct pb_buf {
	uint8_t *p;     /* owned; free with pb_buf_free */
	size_t len, cap;
	int err;        /* 0, or the first error (-ENOMEM, -E2BIG) */
};

#define PB_MAX_BUF ((size_t)1 << 30)  /* 1 GiB: a larger profile is a mistake */

void pb_buf_free(struct pb_buf *b);  /* frees p, zeroes b */
void pb_buf_reset(struct pb_buf *b); /* len = 0, err = 0, keeps the memory */

void pb_put_raw(struct pb_buf *b, const void *data, size_t n);
void pb_put_varint(struct pb_buf *b, uint64_t v);
void pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire wt);
/* field = v as a varint (int64 fields go through their two's complement) */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* field = n bytes (strings, bytes, embedded messages, packed arrays) */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t n);
void pb_put_str(struct pb_buf *b, uint32_t field, const char *s);
/* field = the packed varints v[0..n) (nothing when n == 0) */
void pb_put_packed(struct pb_buf *b, uint32_t field, const uint64_t *v, size_t n);

/* Bytes pb_put_varint(v) writes. */
size_t pb_varint_len(uint64_t v);

/* ---- decoding ------------------------------------------------------------- */

struct pb_reader {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t field;
	enum pb_wire wt;
	uint64_t v;             /* PB_VARINT, PB_I64, PB_I32 */
	const uint8_t *data;    /* PB_LEN: the bytes (not NUL-terminated) */
	size_t len;
};

void pb_reader_init(struct pb_reader *r, const void *data, size_t n);

/* The next field: 1 read, 0 at the end, -EINVAL malformed (r is then
 * unusable). */
int pb_next(struct pb_reader *r, struct pb_field *f);

/* A varint at r; 0 or -EINVAL. */
int pb_get_varint(struct pb_reader *r, uint64_t *v);

/* Calls each(arg, v) for the values of a repeated varint field: packed
 * (PB_LEN, any number) or not (PB_VARINT, one).  Stops at the first nonzero
 * return of each and returns it; -EINVAL for a malformed packed array or
 * another wire type. */
int pb_varints(const struct pb_field *f, int (*each)(void *arg, uint64_t v), void *arg);

#endif
