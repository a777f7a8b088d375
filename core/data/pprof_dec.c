/* pprof_dec — first pass and tables of a profile.proto (see pprof_dec.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/pb.h"
#include "data/pprof_dec.h"
#include "base/util.h"
#include "base/vec.h"

enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_DROP_FRAMES = 7, P_KEEP_FRAMES = 8, P_TIME_NANOS = 9,
	P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11, P_PERIOD = 12, P_COMMENT = 13,
	P_DEFAULT_SAMPLE_TYPE = 14, P_DOC_URL = 15,
};


static int pr_push(struct pd_vec *v, const uint8_t *p, size_t n)
{
	int err = vec_grow(&v->a, &v->cap, v->n + 1, sizeof(*v->a));

	if (err)
		return err;
	v->a[v->n].p = p;
	v->a[v->n].n = n;
	v->n++;
	return 0;
}

static int pr_cmp_id(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The element with id among n sorted elements of size sz (id first). */
void *pprof_dec_find(void *base, size_t n, size_t sz, uint64_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint64_t m = *(uint64_t *)((char *)base + mid * sz);
		if (m == id)
			return (char *)base + mid * sz;
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int pprof_dec_str(const struct pd *r, uint64_t i, struct pd_slice *out)
{
	if (i >= r->strs.n)
		return util_fail(r->cause, -EINVAL, "%s: a string index (%llu) past the string table (%zu entries)",
			  r->name, (unsigned long long)i, r->strs.n);
	*out = r->strs.a[i];
	return 0;
}

int pprof_dec_streq(const struct pd *r, uint64_t i, const char *s)
{
	size_t n = strlen(s);

	return i < r->strs.n && r->strs.a[i].n == n && !memcmp(r->strs.a[i].p, s, n);
}

/* ---- decompression ----------------------------------------------------------- */

int pprof_dec_gunzip(const char *name, const uint8_t *in, size_t n, uint8_t **out, size_t *outlen,
		     char **cause)
{
	z_stream z = { 0 };
	uint8_t *buf = NULL;
	size_t cap = n * 4 + 4096, len = 0;
	int err, zr = Z_OK;

	if (inflateInit2(&z, 15 + 32) != Z_OK)
		return util_fail(cause, -ENOMEM, "%s: out of memory", name);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	for (;;) {
		if (len == cap || !buf) {
			if (buf)
				cap *= 2;
			if (cap > PPROF_MAX_RAW)
				cap = PPROF_MAX_RAW;
			if (buf && len >= cap) {
				err = util_fail(cause, -EFBIG, "%s: decompresses to more than %zu MiB; not a profile argus reads",
					 name, PPROF_MAX_RAW >> 20);
				goto out;
			}
			uint8_t *b = realloc(buf, cap);
			if (!b) {
				err = util_fail(cause, -ENOMEM, "%s: out of memory decompressing", name);
				goto out;
			}
			buf = b;
		}
		z.next_out = buf + len;
		z.avail_out = (uInt)(cap - len);
		zr = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		if (zr == Z_STREAM_END) {
			/* concatenated gzip members: go on with the next */
			if (z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (zr == Z_BUF_ERROR && z.avail_in == 0) {
			err = util_fail(cause, -EINVAL, "%s: the gzip data is cut short (truncated file?)", name);
			goto out;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			err = util_fail(cause, -EINVAL, "%s: not valid gzip data (%s)", name,
				 z.msg ? z.msg : "corrupt stream");
			goto out;
		}
	}
	*out = buf;
	*outlen = len;
	buf = NULL;
	err = 0;
out:
	inflateEnd(&z);
	free(buf);
	return err;
}

/* ---- first pass ------------------------------------------------------------------ */

int pprof_dec_top(struct pd *r, const uint8_t *buf, size_t len)
{
	struct pb_reader rd;
	struct pb_field f;
	int rc, err;

	pb_reader_init(&rd, buf, len);
	while ((rc = pb_next(&rd, &f)) == 1) {
		err = 0;
		switch (f.field) {
		case P_SAMPLE_TYPE:
			if (f.wt != PB_LEN)
				goto bad;
			if (r->ntypes < 16) {
				struct pb_reader s;
				struct pb_field g;
				uint64_t t[2] = { 0, 0 };
				pb_reader_init(&s, f.data, f.len);
				while ((rc = pb_next(&s, &g)) == 1)
					if ((g.field == 1 || g.field == 2) && g.wt == PB_VARINT)
						t[g.field - 1] = g.v;
				if (rc < 0)
					goto bad;
				r->sample_types[r->ntypes][0] = t[0];
				r->sample_types[r->ntypes][1] = t[1];
			}
			r->ntypes++;
			break;
		case P_PERIOD_TYPE: {
			struct pb_reader s;
			struct pb_field g;
			if (f.wt != PB_LEN)
				goto bad;
			pb_reader_init(&s, f.data, f.len);
			while ((rc = pb_next(&s, &g)) == 1)
				if ((g.field == 1 || g.field == 2) && g.wt == PB_VARINT)
					r->period_type[g.field - 1] = g.v;
			if (rc < 0)
				goto bad;
			break;
		}
		case P_SAMPLE:
			err = f.wt == PB_LEN ? pr_push(&r->samples, f.data, f.len) : -EINVAL;
			break;
		case P_MAPPING:
			err = f.wt == PB_LEN ? pr_push(&r->maps_raw, f.data, f.len) : -EINVAL;
			break;
		case P_LOCATION:
			err = f.wt == PB_LEN ? pr_push(&r->locs_raw, f.data, f.len) : -EINVAL;
			break;
		case P_FUNCTION:
			err = f.wt == PB_LEN ? pr_push(&r->funcs_raw, f.data, f.len) : -EINVAL;
			break;
		case P_STRING_TABLE:
			err = f.wt == PB_LEN ? pr_push(&r->strs, f.data, f.len) : -EINVAL;
			break;
		case P_COMMENT:
			err = pr_push(&r->comments_v, f.wt == PB_LEN ? f.data : NULL,
				      f.wt == PB_LEN ? f.len : (size_t)f.v);
			if (f.wt != PB_LEN && f.wt != PB_VARINT)
				err = -EINVAL;
			break;
		case P_TIME_NANOS:
		case P_DURATION_NANOS:
		case P_PERIOD:
			if (f.wt != PB_VARINT)
				goto bad;
			if (f.field == P_TIME_NANOS)
				r->time = f.v;
			else if (f.field == P_DURATION_NANOS)
				r->duration = f.v;
			else
				r->period = f.v;
			break;
		default:
			break; /* drop/keep frames, default type, doc url, later fields */
		}
		if (err == -ENOMEM)
			return util_fail(r->cause, err, "%s: out of memory", r->name);
		if (err)
			goto bad;
	}
	if (rc < 0)
		goto bad;
	if (!r->strs.n || r->strs.a[0].n)
		return util_fail(r->cause, -EINVAL,
			  "%s: not a pprof profile (its string table does not start with \"\")", r->name);
	return 0;
bad:
	return util_fail(r->cause, -EINVAL,
		  "%s: malformed protobuf at byte %zu; not a pprof profile.proto (or a truncated one)",
		  r->name, (size_t)(rd.p - buf));
}

int pprof_dec_malformed(struct pd *r, const char *what)
{
	return util_fail(r->cause, -EINVAL, "%s: malformed %s message in the profile", r->name, what);
}

/* ---- tables ---------------------------------------------------------------------- */

int pprof_dec_tables(struct pd *r)
{
	struct pb_reader s;
	struct pb_field g;
	int rc;

	r->funcs = calloc(r->funcs_raw.n + 1, sizeof(*r->funcs));
	r->maps = calloc(r->maps_raw.n + 1, sizeof(*r->maps));
	r->locs = calloc(r->locs_raw.n + 1, sizeof(*r->locs));
	if (!r->funcs || !r->maps || !r->locs)
		return util_fail(r->cause, -ENOMEM, "%s: out of memory", r->name);
	for (size_t i = 0; i < r->funcs_raw.n; i++) {
		struct pd_func *fn = &r->funcs[r->nfuncs];
		uint64_t sys = 0;
		pb_reader_init(&s, r->funcs_raw.a[i].p, r->funcs_raw.a[i].n);
		memset(fn, 0, sizeof(*fn));
		while ((rc = pb_next(&s, &g)) == 1) {
			if (g.wt != PB_VARINT)
				continue;
			if (g.field == 1)
				fn->id = g.v;
			else if (g.field == 2)
				fn->name = g.v;
			else if (g.field == 3)
				sys = g.v;
		}
		if (rc < 0)
			return pprof_dec_malformed(r, "Function");
		if (!fn->name)
			fn->name = sys;
		if (fn->name >= r->strs.n)
			return pprof_dec_str(r, fn->name, &(struct pd_slice){ 0 });
		if (fn->id)
			r->nfuncs++;
	}
	for (size_t i = 0; i < r->maps_raw.n; i++) {
		struct pd_map *m = &r->maps[r->nmaps];
		pb_reader_init(&s, r->maps_raw.a[i].p, r->maps_raw.a[i].n);
		memset(m, 0, sizeof(*m));
		while ((rc = pb_next(&s, &g)) == 1) {
			if (g.wt != PB_VARINT)
				continue;
			if (g.field == 1)
				m->id = g.v;
			else if (g.field == 5)
				m->file = g.v;
			else if (g.field == 6)
				m->build_id = g.v;
		}
		if (rc < 0)
			return pprof_dec_malformed(r, "Mapping");
		if (m->file >= r->strs.n)
			return pprof_dec_str(r, m->file, &(struct pd_slice){ 0 });
		if (m->build_id >= r->strs.n)
			return pprof_dec_str(r, m->build_id, &(struct pd_slice){ 0 });
		if (m->id)
			r->nmaps++;
	}
	for (size_t i = 0; i < r->locs_raw.n; i++) {
		struct pd_loc *l = &r->locs[r->nlocs];
		pb_reader_init(&s, r->locs_raw.a[i].p, r->locs_raw.a[i].n);
		memset(l, 0, sizeof(*l));
		l->line0 = r->nlines;
		while ((rc = pb_next(&s, &g)) == 1) {
			if (g.wt == PB_VARINT) {
				if (g.field == 1)
					l->id = g.v;
				else if (g.field == 2)
					l->mapping = g.v;
				else if (g.field == 3)
					l->address = g.v;
			} else if (g.wt == PB_LEN && g.field == 4) {
				struct pb_reader ls;
				struct pb_field h;
				uint64_t fid = 0;
				int lrc;
				pb_reader_init(&ls, g.data, g.len);
				while ((lrc = pb_next(&ls, &h)) == 1)
					if (h.field == 1 && h.wt == PB_VARINT)
						fid = h.v;
				if (lrc < 0)
					return pprof_dec_malformed(r, "Line");
				if (!fid)
					continue;
				if (vec_grow(&r->lines, &r->lines_cap, r->nlines + 1, sizeof(*r->lines)))
					return util_fail(r->cause, -ENOMEM, "%s: out of memory", r->name);
				r->lines[r->nlines++] = fid;
				l->nlines++;
			}
		}
		if (rc < 0)
			return pprof_dec_malformed(r, "Location");
		if (l->id)
			r->nlocs++;
	}
	qsort(r->funcs, r->nfuncs, sizeof(*r->funcs), pr_cmp_id);
	qsort(r->maps, r->nmaps, sizeof(*r->maps), pr_cmp_id);
	qsort(r->locs, r->nlocs, sizeof(*r->locs), pr_cmp_id);
	return 0;
}

void pprof_dec_free(struct pd *r)
{
	free(r->strs.a);
	free(r->samples.a);
	free(r->maps_raw.a);
	free(r->locs_raw.a);
	free(r->funcs_raw.a);
	free(r->comments_v.a);
	free(r->funcs);
	free(r->maps);
	free(r->locs);
	free(r->lines);
}
