/* Unit tests of core/pb (protobuf wire format), core/pprof_write and
 * core/pprof_read (profile.proto both ways), the pprof hook of core/import,
 * core/push's label checks and base64, and core/push_delta. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "data/import.h"
#include "base/pb.h"
#include "data/pprof.h"
#include "data/pprof_dec.h"
#include "output/export.h"
#include "output/push.h"
#include "data/push_delta.h"

/* ---- pb ------------------------------------------------------------------- */

static void test_pb_varint_roundtrip(void **state)
{
	static const uint64_t vals[] = { 0, 1, 127, 128, 300, 16383, 16384, UINT32_MAX,
					 (uint64_t)1 << 56, UINT64_MAX - 1, UINT64_MAX };
	struct pb_buf b = { 0 };
	struct pb_reader r;
	struct pb_field f;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++)
		pb_put_uint(&b, (uint32_t)(i + 1), vals[i]);
	pb_put_str(&b, 20, "hello");
	uint64_t packed[] = { 1, 300, UINT64_MAX };
	pb_put_packed(&b, 21, packed, 3);
	assert_int_equal(b.err, 0);
	assert_int_equal(pb_varint_len(UINT64_MAX), 10);
	assert_int_equal(pb_varint_len(127), 1);
	assert_int_equal(pb_varint_len(128), 2);
	pb_reader_init(&r, b.p, b.len);
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_int_equal(pb_next(&r, &f), 1);
		assert_int_equal(f.field, i + 1);
		assert_int_equal(f.wt, PB_VARINT);
		assert_true(f.v == vals[i]);
	}
	assert_int_equal(pb_next(&r, &f), 1);
	assert_int_equal(f.wt, PB_LEN);
	assert_int_equal(f.len, 5);
	assert_memory_equal(f.data, "hello", 5);
	assert_int_equal(pb_next(&r, &f), 1);
	uint64_t got[3];
	size_t n = 0;
	struct pb_reader pr;
	pb_reader_init(&pr, f.data, f.len);
	while (pr.p < pr.end)
		assert_int_equal(pb_get_varint(&pr, &got[n++]), 0);
	assert_int_equal(n, 3);
	assert_true(got[0] == 1 && got[1] == 300 && got[2] == UINT64_MAX);
	assert_int_equal(pb_next(&r, &f), 0);
	pb_buf_free(&b);
}

static void test_pb_malformed(void **state)
{
	struct pb_reader r;
	struct pb_field f;
	static const uint8_t trunc_varint[] = { 0x08, 0x80 };           /* field 1, cut */
	static const uint8_t long_varint[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff,
					       0xff, 0xff, 0xff, 0xff, 0x02 }; /* > 64 bits */
	static const uint8_t past_end[] = { 0x12, 0x05, 'a', 'b' };     /* len 5, 2 bytes */
	static const uint8_t group[] = { 0x0b };                        /* wire type 3 */
	static const uint8_t field0[] = { 0x00, 0x01 };
	static const uint8_t i64_cut[] = { 0x09, 1, 2, 3 };

	(void)state;
	pb_reader_init(&r, trunc_varint, sizeof(trunc_varint));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, long_varint, sizeof(long_varint));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, past_end, sizeof(past_end));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, group, sizeof(group));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, field0, sizeof(field0));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, i64_cut, sizeof(i64_cut));
	assert_int_equal(pb_next(&r, &f), -EINVAL);
	pb_reader_init(&r, "", 0);
	assert_int_equal(pb_next(&r, &f), 0);
}

/* ---- argus -> pprof -> argus ------------------------------------------------ */

static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();
	const char *a[] = { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read", "vfs_read" };
	const char *b[] = { "asm_exc_page_fault", "exc_page_fault", "nft_do_chain [nf_tables]",
			    "0xffffffffc0123456" };
	const char *c[] = { "secondary_startup_64", "do_idle", "default_idle" };

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0.5), 0);
	profile_window_end(p, 0, 2.0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 2.6), 1);
	profile_window_end(p, 1, 2.5);
	assert_int_equal(profile_window_begin(p, COND_REF, 5.2), 2);
	profile_window_end(p, 2, 1.5);
	assert_int_equal(profile_add(p, 0, a, 4, 42, "reader", 5), 0);
	assert_int_equal(profile_add(p, 1, a, 4, 42, "reader", 7), 0);
	assert_int_equal(profile_add(p, 1, b, 4, 43, "faulter", 11), 0);
	assert_int_equal(profile_add(p, 2, c, 3, 0, "", 3), 0);
	assert_int_equal(profile_add(p, 2, a, 4, 42, "reader", 2), 0);
	return p;
}

/* "a;b;c" of stack s */
static void folded(const struct profile_stack *s, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	for (uint32_t k = 0; k < s->nframes && o < len - 1; k++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", k ? ";" : "", s->frames[k]);
}

static uint64_t count_of(const struct profile *p, const char *f, uint32_t tgid, int win)
{
	uint64_t n = 0;
	char buf[2048];

	for (size_t i = 0; i < p->nstacks; i++) {
		folded(&p->stacks[i], buf, sizeof(buf));
		if (!strcmp(buf, f) && p->stacks[i].tgid == tgid)
			n += win < 0 ? p->stacks[i].total : p->stacks[i].win[win];
	}
	return n;
}

static int read_as(const uint8_t *buf, size_t len, enum cond c, struct profile **out,
		   struct pprof_read_info *info, char **cause)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, c, 0), 0);
	*out = p;
	return pprof_read("t.pb.gz", buf, len, p, 0, info, cause);
}

static void test_pprof_roundtrip(void **state)
{
	struct profile *p = sample_profile(), *q = NULL;
	struct pprof_write_opts o = { .freq_hz = 999, .time_nanos = 1700000000000000000ll, .cond = COND_N };
	struct pprof_write_info wi;
	struct pprof_read_info ri;
	uint8_t *buf = NULL;
	size_t len = 0;
	char *cause = NULL;

	(void)state;
	p->wins[2].ustack_errors = 4; /* samples without their user stack: kept */
	assert_int_equal(pprof_write(p, &o, &buf, &len, &wi, &cause), 0);
	assert_true(len > 2 && buf[0] == 0x1f && buf[1] == 0x8b);
	assert_true(pprof_detect(buf, len));
	assert_int_equal(wi.samples, 28);
	assert_int_equal(wi.windows, 3);
	assert_int_equal(wi.mappings, 2); /* [kernel.kallsyms], [nf_tables] */
	assert_int_equal(wi.locations, 11);

	/* read as the reference: the two ref windows come back, load left out */
	assert_int_equal(read_as(buf, len, COND_REF, &q, &ri, &cause), 0);
	assert_true(ri.gzipped);
	assert_int_equal(ri.samples, 10);
	assert_int_equal(ri.other_cond, 18);
	assert_int_equal(ri.windows, 2);
	assert_int_equal(q->nwin, 2);
	assert_true(q->wins[0].secs == 2.0 && q->wins[1].secs == 1.5);
	assert_true(q->wins[1].start_s == 5.2);
	assert_true(q->wins[0].ustack_errors == 0 && q->wins[1].ustack_errors == 4);
	assert_int_equal(count_of(q, "entry_SYSCALL_64;do_syscall_64;__x64_sys_read;vfs_read", 42, 0), 5);
	assert_int_equal(count_of(q, "entry_SYSCALL_64;do_syscall_64;__x64_sys_read;vfs_read", 42, 1), 2);
	assert_int_equal(count_of(q, "secondary_startup_64;do_idle;default_idle", 0, 1), 3);
	assert_string_equal(q->stacks[0].comm, "reader");
	profile_free(q);

	/* as the loaded profile: module frame and hex address kept as written */
	assert_int_equal(read_as(buf, len, COND_LOAD, &q, &ri, &cause), 0);
	assert_int_equal(ri.samples, 18);
	assert_int_equal(q->nwin, 1);
	assert_true(q->wins[0].secs == 2.5);
	assert_int_equal(count_of(q, "asm_exc_page_fault;exc_page_fault;nft_do_chain [nf_tables];0xffffffffc0123456",
				  43, 0), 11);
	profile_free(q);

	/* one condition written: totals are that condition's */
	free(buf);
	o.cond = COND_LOAD;
	assert_int_equal(pprof_write(p, &o, &buf, &len, &wi, &cause), 0);
	assert_int_equal(wi.samples, 18);
	assert_int_equal(wi.windows, 1);
	/* read as ref: every sample is labelled load, so it is refused */
	assert_int_not_equal(read_as(buf, len, COND_REF, &q, &ri, &cause), 0);
	assert_non_null(strstr(cause, "condition=load"));
	profile_free(q);
	free(buf);

	/* uncompressed protobuf is recognised too */
	o.cond = COND_N;
	o.raw = 1;
	assert_int_equal(pprof_write(p, &o, &buf, &len, &wi, &cause), 0);
	assert_true(pprof_detect(buf, len));
	assert_int_equal(read_as(buf, len, COND_LOAD, &q, &ri, &cause), 0);
	assert_false(ri.gzipped);
	assert_int_equal(ri.samples, 18);
	profile_free(q);

	/* the import hook finds it by content */
	struct import_info ii;
	q = profile_new();
	assert_int_equal(profile_window_begin(q, COND_REF, 0), 0);
	assert_int_equal(import_buf("x.folded", (const char *)buf, len, q, 0, &ii, &cause), 0);
	assert_int_equal(ii.format, IMPORT_PPROF);
	assert_int_equal(ii.samples, 10);
	assert_int_equal(ii.windows, 2);
	assert_true(ii.secs_known);
	profile_free(q);
	free(buf);

	/* a plain recording (argus record): no condition, reads as either */
	o.raw = 0;
	o.plain = 1;
	o.cond = COND_LOAD;
	assert_int_equal(pprof_write(p, &o, &buf, &len, &wi, &cause), 0);
	assert_int_equal(read_as(buf, len, COND_REF, &q, &ri, &cause), 0);
	assert_int_equal(ri.samples, 18);
	assert_int_equal(ri.other_cond, 0);
	assert_true(q->wins[0].secs == 2.5); /* duration_nanos */
	profile_free(q);
	free(buf);
	o.plain = 0;
	o.cond = COND_N;

	/* no window selected */
	o.win_from = 5;
	assert_int_equal(pprof_write(p, &o, &buf, &len, &wi, &cause), -ENODATA);
	assert_non_null(cause);
	free(cause);
	profile_free(p);
}

/* ---- foreign profiles, built field by field ---------------------------------- */

struct fp {
	struct pb_buf top, m, s;
	const char *strs[64];
	unsigned nstrs;
};

static uint64_t fp_str(struct fp *f, const char *s)
{
	for (unsigned i = 0; i < f->nstrs; i++)
		if (!strcmp(f->strs[i], s))
			return i;
	f->strs[f->nstrs] = s;
	return f->nstrs++;
}

static void fp_msg(struct fp *f, uint32_t field)
{
	pb_put_bytes(&f->top, field, f->m.p, f->m.len);
	pb_buf_reset(&f->m);
}

static void fp_type(struct fp *f, uint32_t field, const char *t, const char *u)
{
	pb_put_uint(&f->m, 1, fp_str(f, t));
	pb_put_uint(&f->m, 2, fp_str(f, u));
	fp_msg(f, field);
}

static void fp_mapping(struct fp *f, uint64_t id, const char *file)
{
	pb_put_uint(&f->m, 1, id);
	pb_put_uint(&f->m, 5, fp_str(f, file));
	fp_msg(f, 3);
}

/* function id = location id; nl functions inlined (line entries) */
static void fp_location(struct fp *f, uint64_t id, uint64_t mapping, uint64_t addr,
			const char *const *names, unsigned nl, uint64_t *next_fid)
{
	struct pb_buf line = { 0 };

	pb_put_uint(&f->m, 1, id);
	if (mapping)
		pb_put_uint(&f->m, 2, mapping);
	if (addr)
		pb_put_uint(&f->m, 3, addr);
	for (unsigned i = 0; i < nl; i++) {
		pb_buf_reset(&line);
		pb_put_uint(&line, 1, *next_fid + i);
		pb_put_bytes(&f->m, 4, line.p, line.len);
	}
	fp_msg(f, 4);
	for (unsigned i = 0; i < nl; i++) {
		pb_put_uint(&f->m, 1, *next_fid + i);
		pb_put_uint(&f->m, 2, fp_str(f, names[i]));
		fp_msg(f, 5);
	}
	*next_fid += nl;
	pb_buf_free(&line);
}

static void fp_sample(struct fp *f, const uint64_t *locs, size_t n, const uint64_t *vals, size_t nv)
{
	pb_put_packed(&f->m, 1, locs, n);
	pb_put_packed(&f->m, 2, vals, nv);
	fp_msg(f, 2);
}

static void fp_finish(struct fp *f, uint64_t period, uint64_t duration)
{
	for (unsigned i = 0; i < f->nstrs; i++)
		pb_put_str(&f->top, 6, f->strs[i]);
	if (period)
		pb_put_uint(&f->top, 12, period);
	if (duration)
		pb_put_uint(&f->top, 10, duration);
	assert_int_equal(f->top.err, 0);
}

static void fp_free(struct fp *f)
{
	pb_buf_free(&f->top);
	pb_buf_free(&f->m);
	pb_buf_free(&f->s);
}

static void test_pprof_user_and_kernel(void **state)
{
	struct fp f = { 0 };
	struct profile *q = NULL;
	struct pprof_read_info ri;
	char *cause = NULL;
	uint64_t fid = 1;

	(void)state;
	fp_str(&f, "");
	fp_type(&f, 1, "cpu", "nanoseconds"); /* no count: derived from the period */
	fp_mapping(&f, 1, "/usr/bin/app");
	fp_mapping(&f, 2, "[kernel.kallsyms]");
	fp_mapping(&f, 3, "/lib/modules/6.1/kernel/net/ext4-x.ko.xz");
	const char *u1[] = { "main" }, *u2[] = { "read_loop" };
	const char *k1[] = { "inlined_leaf", "vfs_read" }; /* innermost first */
	const char *k2[] = { "entry_SYSCALL_64" }, *k3[] = { "ext4_read" };
	const char *bad[] = { "evil\x1b[2Jname" };
	fp_location(&f, 10, 1, 0x401000, u1, 1, &fid);
	fp_location(&f, 11, 1, 0x401100, u2, 1, &fid);
	fp_location(&f, 20, 2, 0, k1, 2, &fid);
	fp_location(&f, 21, 2, 0, k2, 1, &fid);
	fp_location(&f, 22, 3, 0, k3, 1, &fid);
	fp_location(&f, 23, 2, 0, bad, 1, &fid);
	uint64_t s1[] = { 22, 20, 21, 11, 10 }, v1[] = { 3000000 };
	uint64_t s2[] = { 11, 10 }, v2[] = { 5000000 };           /* user only */
	uint64_t s3[] = { 23, 21 }, v3[] = { 1000000 };
	fp_sample(&f, s1, 5, v1, 1);
	fp_sample(&f, s2, 2, v2, 1);
	fp_sample(&f, s3, 2, v3, 1);
	fp_finish(&f, 1000000, 4000000000ull);
	assert_true(pprof_detect(f.top.p, f.top.len));
	assert_int_equal(read_as(f.top.p, f.top.len, COND_LOAD, &q, &ri, &cause), 0);
	assert_int_equal(ri.samples, 4);
	assert_int_equal(ri.user_only, 5);
	assert_true(ri.kernel_marked);
	assert_true(ri.frames_dropped >= 4);
	assert_non_null(strstr(ri.note, "kernel-marked"));
	assert_true(ri.secs_known);
	assert_true(ri.secs == 4.0);
	assert_int_equal(count_of(q, "entry_SYSCALL_64;vfs_read;inlined_leaf;ext4_read [ext4_x]", 0, 0), 3);
	/* the escape sequence is escaped, not passed on */
	assert_int_equal(count_of(q, "entry_SYSCALL_64;evil\\x1b[2Jname", 0, 0), 1);
	profile_free(q);
	fp_free(&f);
}

static void test_pprof_unmarked_and_bad(void **state)
{
	struct fp f = { 0 };
	struct profile *q = NULL;
	struct pprof_read_info ri;
	char *cause = NULL;
	uint64_t fid = 1;

	(void)state;
	/* no mapping, no mark: every frame kept, and said */
	fp_str(&f, "");
	fp_type(&f, 1, "samples", "count");
	const char *a[] = { "leaf_k" }, *b[] = { "root_k" };
	fp_location(&f, 1, 0, 0, a, 1, &fid);
	fp_location(&f, 2, 0, 0, b, 1, &fid);
	uint64_t s[] = { 1, 2 }, v[] = { 9 };
	fp_sample(&f, s, 2, v, 1);
	fp_finish(&f, 0, 0);
	assert_int_equal(read_as(f.top.p, f.top.len, COND_REF, &q, &ri, &cause), 0);
	assert_int_equal(count_of(q, "root_k;leaf_k", 0, 0), 9);
	assert_false(ri.secs_known);
	assert_true(q->wins[0].secs == 1.0);
	assert_non_null(strstr(ri.note, "kept as kernel frames"));
	profile_free(q);

	/* user frames only: refused, saying why */
	fp_free(&f);
	memset(&f, 0, sizeof(f));
	fid = 1;
	fp_str(&f, "");
	fp_type(&f, 1, "samples", "count");
	fp_mapping(&f, 1, "/usr/bin/app");
	fp_mapping(&f, 2, "[kernel.kallsyms]");
	fp_location(&f, 1, 1, 0x1000, a, 1, &fid);
	fp_location(&f, 2, 2, 0, b, 1, &fid);
	uint64_t su[] = { 1 };
	fp_sample(&f, su, 1, v, 1);
	fp_finish(&f, 0, 0);
	assert_int_equal(read_as(f.top.p, f.top.len, COND_REF, &q, &ri, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no kernel frames"));
	profile_free(q);

	/* a sample naming a missing location */
	fp_free(&f);
	memset(&f, 0, sizeof(f));
	fid = 1;
	fp_str(&f, "");
	fp_type(&f, 1, "samples", "count");
	fp_location(&f, 1, 0, 0, a, 1, &fid);
	uint64_t sm[] = { 1, 77 };
	fp_sample(&f, sm, 2, v, 1);
	fp_finish(&f, 0, 0);
	assert_int_equal(read_as(f.top.p, f.top.len, COND_REF, &q, &ri, &cause), -EINVAL);
	assert_non_null(strstr(cause, "location 77"));
	profile_free(q);

	/* a string index past the table */
	fp_free(&f);
	memset(&f, 0, sizeof(f));
	fp_str(&f, "");
	pb_put_uint(&f.m, 1, 1);
	pb_put_uint(&f.m, 2, 99);
	fp_msg(&f, 5);
	fp_finish(&f, 0, 0);
	assert_int_equal(read_as(f.top.p, f.top.len, COND_REF, &q, &ri, &cause), -EINVAL);
	assert_non_null(strstr(cause, "string index"));
	profile_free(q);
	fp_free(&f);
	free(cause);
}

static void test_pprof_truncated_and_garbage(void **state)
{
	struct profile *p = sample_profile(), *q = NULL;
	struct pprof_write_opts o = { .freq_hz = 99, .cond = COND_N };
	struct pprof_read_info ri;
	uint8_t *buf = NULL;
	size_t len = 0;
	char *cause = NULL;

	(void)state;
	assert_int_equal(pprof_write(p, &o, &buf, &len, NULL, &cause), 0);
	/* every cut of the gzip stream is refused with a reason, none crashes */
	for (size_t cut = 2; cut < len; cut += 7) {
		int err = read_as(buf, cut, COND_REF, &q, &ri, &cause);
		assert_int_not_equal(err, 0);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "t.pb.gz"));
		profile_free(q);
	}
	/* gzip magic then garbage */
	uint8_t junk[64] = { 0x1f, 0x8b, 0x08, 0x00 };
	for (size_t i = 4; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 37);
	assert_int_equal(read_as(junk, sizeof(junk), COND_REF, &q, &ri, &cause), -EINVAL);
	assert_non_null(strstr(cause, "gzip"));
	profile_free(q);
	free(buf);
	/* the raw protobuf cut short */
	o.raw = 1;
	assert_int_equal(pprof_write(p, &o, &buf, &len, NULL, &cause), 0);
	assert_int_not_equal(read_as(buf, len - 3, COND_REF, &q, &ri, &cause), 0);
	assert_non_null(strstr(cause, "t.pb.gz"));
	profile_free(q);
	free(buf);
	/* text is not taken for pprof */
	assert_false(pprof_detect("a;b;c 12\n", 9));
	assert_false(pprof_detect("perf 123 [000] 1.0: cpu-clock:\n", 31));
	assert_false(pprof_detect("", 0));
	free(cause);
	profile_free(p);
}

/* ---- push -------------------------------------------------------------------- */

static void test_push_base64_labels(void **state)
{
	char *s, *cause = NULL;

	(void)state;
	s = push_base64((const uint8_t *)"", 0);
	assert_string_equal(s, "");
	free(s);
	s = push_base64((const uint8_t *)"f", 1);
	assert_string_equal(s, "Zg==");
	free(s);
	s = push_base64((const uint8_t *)"fo", 2);
	assert_string_equal(s, "Zm8=");
	free(s);
	s = push_base64((const uint8_t *)"foobar", 6);
	assert_string_equal(s, "Zm9vYmFy");
	free(s);
	s = push_base64((const uint8_t *)"\xff\xfe\x00", 3);
	assert_string_equal(s, "//4A");
	free(s);

	assert_int_equal(push_labels_check(NULL, &cause), 0);
	assert_int_equal(push_labels_check("env=prod,region=eu-1", &cause), 0);
	assert_int_equal(push_labels_check("env=prod,", &cause), -EINVAL);
	assert_int_equal(push_labels_check("env", &cause), -EINVAL);
	assert_int_equal(push_labels_check("1x=a", &cause), -EINVAL);
	assert_int_equal(push_labels_check("a=b}c", &cause), -EINVAL);
	assert_int_equal(push_labels_check("a=\"x\"", &cause), -EINVAL);
	assert_non_null(strstr(cause, "bad label"));
	free(cause);
	cause = NULL;

	struct push_opts o = { .url = "ftp://x" };
	assert_null(push_new(&o, &cause));
	assert_non_null(strstr(cause, "http"));
	o.url = "http://h:4040/x?y=1";
	assert_null(push_new(&o, &cause));
	o.url = "http://h:4040/";
	struct push *ps = push_new(&o, &cause);
	assert_non_null(ps);
	assert_int_equal(push_target_of(ps), PUSH_PYROSCOPE);
	assert_string_equal(push_endpoint(ps), "http://h:4040/ingest");
	push_free(ps);
	o.url = "parca+http://h:7070";
	ps = push_new(&o, &cause);
	assert_int_equal(push_target_of(ps), PUSH_PARCA);
	assert_string_equal(push_endpoint(ps), "http://h:7070/profiles/writeraw");
	push_free(ps);
	o.url = "http://h:7070/api/profiles/writeraw";
	ps = push_new(&o, &cause);
	assert_int_equal(push_target_of(ps), PUSH_PARCA);
	assert_string_equal(push_endpoint(ps), "http://h:7070/api/profiles/writeraw");

	/* the queue bound: 3 profiles at most, the oldest waiting dropped */
	push_free(ps);
	o.url = "http://127.0.0.1:1";
	o.queue_max = 3;
	ps = push_new(&o, &cause);
	for (int i = 0; i < 5; i++) {
		uint8_t *d = malloc(10);
		assert_non_null(d);
		memset(d, i, 10);
		assert_int_equal(push_enqueue(ps, d, 10, 100, 101, 7), 0);
	}
	struct push_stats st;
	push_get_stats(ps, &st);
	assert_int_equal(st.queued, 5);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.samples_dropped, 14);
	assert_int_equal(st.waiting, 3);
	push_free(ps);
	free(cause);
}

static void test_push_delta(void **state)
{
	struct profile *p = profile_new(), *d;
	struct push_delta *pd = push_delta_new();
	const char *a[] = { "x", "y" }, *b[] = { "x", "z" };
	uint64_t n;

	(void)state;
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	assert_int_equal(profile_add(p, 0, a, 2, 1, "c", 4), 0);
	d = push_delta_take(pd, p, 0, COND_LOAD, 0, 1, &n);
	assert_int_equal(n, 4);
	assert_int_equal(d->nstacks, 1);
	profile_free(d);
	d = push_delta_take(pd, p, 0, COND_LOAD, 1, 1, &n);
	assert_int_equal(n, 0); /* nothing new: nothing taken twice */
	profile_free(d);
	assert_int_equal(profile_add(p, 0, a, 2, 1, "c", 3), 0);
	assert_int_equal(profile_add(p, 0, b, 2, 2, "d", 5), 0);
	assert_int_equal(profile_ident_set(p, &(struct profile_ident){ .tgid = 2, .comm = "d",
								.unit = "d.service" }), 0);
	d = push_delta_take(pd, p, 0, COND_LOAD, 2, 1, &n);
	assert_int_equal(n, 8);
	/* the identity goes with the process's samples (the pushed labels) */
	assert_non_null(profile_ident_find(d, 2));
	assert_string_equal(profile_ident_find(d, 2)->unit, "d.service");
	assert_null(profile_ident_find(d, 1));
	assert_int_equal(count_of(d, "x;y", 1, 0), 3);
	assert_int_equal(count_of(d, "x;z", 2, 0), 5);
	assert_true(d->wins[0].start_s == 2);
	profile_free(d);
	push_delta_free(pd);
	profile_free(p);
}

/* ---- what pprof_write writes, decoded (issue 27 items 4 and 5) ------------- */

struct dec_sample {
	uint64_t v[8];
	unsigned nv;
	uint64_t loc[16];
	unsigned nloc;
	char labels[512];       /* " key=value" for each string label */
};

static int dec_collect(void *arg, uint64_t v)
{
	struct dec_sample *d = arg;

	if (d->nv < 8)
		d->v[d->nv++] = v;
	return 0;
}

static int dec_collect_loc(void *arg, uint64_t v)
{
	struct dec_sample *d = arg;

	if (d->nloc < 16)
		d->loc[d->nloc++] = v;
	return 0;
}

static void dec_str(const struct pd *r, uint64_t i, char *buf, size_t len)
{
	struct pd_slice sl;

	assert_int_equal(pprof_dec_str(r, i, &sl), 0);
	snprintf(buf, len, "%.*s", (int)sl.n, (const char *)sl.p);
}

/* Sample i of r: values, location ids and string labels. */
static void dec_sample(const struct pd *r, size_t i, struct dec_sample *d)
{
	struct pb_reader s;
	struct pb_field g;

	memset(d, 0, sizeof(*d));
	pb_reader_init(&s, r->samples.a[i].p, r->samples.a[i].n);
	while (pb_next(&s, &g) == 1) {
		if (g.field == 1)
			assert_int_equal(pb_varints(&g, dec_collect_loc, d), 0);
		else if (g.field == 2)
			assert_int_equal(pb_varints(&g, dec_collect, d), 0);
		else if (g.field == 3) {
			struct pb_reader ls;
			struct pb_field h;
			uint64_t key = 0, str = 0;
			char k[64], v[256];

			pb_reader_init(&ls, g.data, g.len);
			while (pb_next(&ls, &h) == 1)
				if (h.field == 1)
					key = h.v;
				else if (h.field == 2)
					str = h.v;
			if (!str)
				continue;
			dec_str(r, key, k, sizeof(k));
			dec_str(r, str, v, sizeof(v));
			size_t n = strlen(d->labels);
			snprintf(d->labels + n, sizeof(d->labels) - n, " %s=%s", k, v);
		}
	}
}

/* The function name of location id. */
static void dec_loc_name(const struct pd *r, uint64_t id, char *buf, size_t len)
{
	struct pd_loc *l = pprof_dec_find(r->locs, r->nlocs, sizeof(*l), id);
	struct pd_func *fn;

	assert_non_null(l);
	assert_true(l->nlines > 0);
	fn = pprof_dec_find(r->funcs, r->nfuncs, sizeof(*fn), r->lines[l->line0]);
	assert_non_null(fn);
	dec_str(r, fn->name, buf, len);
}

/* The sample whose leaf location is named leaf (in r's sample order). */
static int dec_find(const struct pd *r, const char *leaf, struct dec_sample *d)
{
	char name[256];

	for (size_t i = 0; i < r->samples.n; i++) {
		dec_sample(r, i, d);
		if (!d->nloc)
			continue;
		dec_loc_name(r, d->loc[0], name, sizeof(name));
		if (!strcmp(name, leaf))
			return 1;
	}
	return 0;
}

static void dec_types(const struct pd *r, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < r->ntypes; i++) {
		char t[32], u[32];

		dec_str(r, r->sample_types[i][0], t, sizeof(t));
		dec_str(r, r->sample_types[i][1], u, sizeof(u));
		at += (size_t)snprintf(buf + at, len - at, "%s%s/%s", at ? " " : "", t, u);
	}
}

static void test_pprof_labels_and_time(void **state)
{
	const char *on[] = { "[on-cpu]", "entry_SYSCALL_64", "do_syscall_64", "ksys_write" };
	const char *bl[] = { "[blocked]", "entry_SYSCALL_64", "do_syscall_64", "fsync_wait",
			     "schedule", "[woken by task jbd2/sda1-8 (tgid 300)]" };
	const char *rn[] = { "[runnable]", "entry_SYSCALL_64", "do_syscall_64", "cond_resched",
			     "[ran instead: cgroup /system.slice/x.service]", "[ran instead: stress]",
			     "[tgid 77]" };
	const char *nw[] = { "[blocked]", "do_nanosleep", "[no wakeup seen]" };
	const char *ns[] = { "[blocked]", "[woken by hardirq timer]" }; /* no stack taken */
	const char *plain[] = { "entry_SYSCALL_64", "do_syscall_64", "vfs_read" };
	struct profile_ident id = { .tgid = 42, .comm = "app", .unit = "app.service",
				    .container = "0123456789ab", .cgroup = "/system.slice/app.service" };
	struct pprof_write_opts o = { .freq_hz = 1000, .cond = COND_N, .raw = 1,
				      .service_name = "app" };
	struct profile *p = profile_new(), *q = NULL;
	struct pd r = { .name = "t", .cause = NULL };
	struct dec_sample d;
	uint8_t *buf = NULL, *buf2 = NULL;
	size_t len = 0, len2 = 0;
	char *cause = NULL, types[200], svc[32];
	(void)state;

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_add(p, 0, on, 4, 42, "app", 10), 0);
	assert_int_equal(profile_add(p, 0, bl, 6, 42, "app", 20), 0);
	assert_int_equal(profile_add(p, 0, rn, 7, 42, "app", 3), 0);
	assert_int_equal(profile_add(p, 0, nw, 3, 43, "other", 4), 0);
	assert_int_equal(profile_add(p, 0, ns, 2, 43, "other", 6), 0);
	assert_int_equal(profile_ident_set(p, &id), 0);
	assert_int_equal(pprof_write(p, &o, &buf, &len, NULL, &cause), 0);

	r.cause = &cause;
	assert_int_equal(pprof_dec_top(&r, buf, len), 0);
	assert_int_equal(pprof_dec_tables(&r), 0);
	dec_types(&r, types, sizeof(types));
	assert_string_equal(types, "samples/count cpu/nanoseconds blocked/nanoseconds runnable/nanoseconds");
	/* on-CPU: its nanoseconds in cpu, the kind no frame, the identity labels */
	assert_true(dec_find(&r, "ksys_write", &d));
	assert_int_equal(d.nv, 4);
	assert_int_equal(d.v[0], 10);
	assert_int_equal(d.v[1], 10 * 1000000ull);
	assert_int_equal(d.v[2], 0);
	assert_int_equal(d.v[3], 0);
	assert_int_equal(d.nloc, 3);
	assert_non_null(strstr(d.labels, " service_name=app"));
	assert_non_null(strstr(d.labels, " unit=app.service"));
	assert_non_null(strstr(d.labels, " container=0123456789ab"));
	assert_non_null(strstr(d.labels, " cgroup=/system.slice/app.service"));
	assert_null(strstr(d.labels, "waker="));
	/* blocked: the waker a label, not a frame */
	assert_true(dec_find(&r, "schedule", &d));
	assert_int_equal(d.v[0], 20);
	assert_int_equal(d.v[1], 0);
	assert_int_equal(d.v[2], 20 * 1000000ull);
	assert_int_equal(d.v[3], 0);
	assert_int_equal(d.nloc, 4);
	assert_non_null(strstr(d.labels, " waker=task jbd2/sda1-8 (tgid 300)"));
	/* runnable: who ran instead, cgroup, command and process in one label */
	assert_true(dec_find(&r, "cond_resched", &d));
	assert_int_equal(d.v[3], 3 * 1000000ull);
	assert_int_equal(d.v[2], 0);
	assert_int_equal(d.nloc, 3);
	assert_non_null(strstr(d.labels, " ran_instead=cgroup /system.slice/x.service, stress (tgid 77)"));
	/* no wakeup seen; a process without an identity has no identity labels */
	assert_true(dec_find(&r, "do_nanosleep", &d));
	assert_int_equal(d.v[2], 4 * 1000000ull);
	assert_non_null(strstr(d.labels, " waker=no wakeup seen"));
	assert_null(strstr(d.labels, " unit="));
	assert_non_null(strstr(d.labels, " service_name=app"));
	pprof_dec_free(&r);

	/* read back: the same frames as written (argus diff of a wall-clock pprof) */
	assert_int_equal(read_as(buf, len, COND_LOAD, &q, NULL, &cause), 0);
	assert_int_equal(count_of(q, "[on-cpu];entry_SYSCALL_64;do_syscall_64;ksys_write", 42, 0), 10);
	assert_int_equal(count_of(q, "[blocked];entry_SYSCALL_64;do_syscall_64;fsync_wait;schedule;"
				  "[woken by task jbd2/sda1-8 (tgid 300)]", 42, 0), 20);
	assert_int_equal(count_of(q, "[runnable];entry_SYSCALL_64;do_syscall_64;cond_resched;"
				  "[ran instead: cgroup /system.slice/x.service];[ran instead: stress];"
				  "[tgid 77]", 42, 0), 3);
	assert_int_equal(count_of(q, "[blocked];do_nanosleep;[no wakeup seen]", 43, 0), 4);
	assert_int_equal(count_of(q, "[blocked];[woken by hardirq timer]", 43, 0), 6);
	profile_free(q);
	free(buf);

	/* without time accounting: two sample types, frames as they are */
	profile_free(p);
	p = profile_new();
	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_add(p, 0, plain, 3, 42, "app", 5), 0);
	o.service_name = NULL;
	assert_int_equal(pprof_write(p, &o, &buf, &len, NULL, &cause), 0);
	memset(&r, 0, sizeof(r));
	r.name = "t";
	r.cause = &cause;
	assert_int_equal(pprof_dec_top(&r, buf, len), 0);
	assert_int_equal(pprof_dec_tables(&r), 0);
	dec_types(&r, types, sizeof(types));
	assert_string_equal(types, "samples/count cpu/nanoseconds");
	assert_true(dec_find(&r, "vfs_read", &d));
	assert_int_equal(d.nv, 2);
	assert_int_equal(d.nloc, 3);
	assert_null(strstr(d.labels, "service_name"));
	/* no string of the new labels in a profile that has none of them */
	for (size_t i = 0; i < r.strs.n; i++) {
		char t[64];

		dec_str(&r, i, t, sizeof(t));
		assert_true(strcmp(t, "service_name") && strcmp(t, "blocked") && strcmp(t, "waker"));
	}
	pprof_dec_free(&r);
	/* a service name adds its label and nothing else */
	o.service_name = "app";
	assert_int_equal(pprof_write(p, &o, &buf2, &len2, NULL, &cause), 0);
	assert_true(len2 > len);
	free(buf);
	free(buf2);
	profile_free(p);

	/* the service name of a command line */
	assert_string_equal(pprof_service_name("/usr/bin/stress-ng --cpu 2", svc, sizeof(svc)), "stress_ng");
	assert_string_equal(pprof_service_name("build/scenarios/pagefault --seconds 60", svc, sizeof(svc)),
			    "pagefault");
	assert_string_equal(pprof_service_name("7z a x", svc, sizeof(svc)), "_7z");
	assert_string_equal(pprof_service_name("  ", svc, sizeof(svc)), "");
	assert_string_equal(pprof_service_name(NULL, svc, sizeof(svc)), "");
	assert_string_equal(pprof_service_name("a/very-long-program-name", svc, 8), "very_lo");
	free(cause);
}

/* The service a session is of: the victim, the load, a PID's name, argus. */
static void test_export_service_name(void **state)
{
	struct session_log l = { 0 };
	char b[64];
	(void)state;

	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "argus");
	l.options_json = (char *)"{\"load\":\"build/scenarios/pagefault --seconds 60\"}";
	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "pagefault");
	l.options_json = (char *)"{\"load\":\"build/scenarios/aggressor\",\"victim\":\"/usr/bin/pg-bench -c 4\"}";
	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "pg_bench");
	l.options_json = (char *)"{\"load\":[\"/bin/dd\",\"if=/dev/zero\"]}";
	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "dd");
	l.profile = profile_new();
	assert_non_null(l.profile);
	assert_int_equal(profile_ident_set(l.profile, &(struct profile_ident){ .tgid = 42, .comm = "postgres" }), 0);
	l.options_json = (char *)"{\"pid\":42}";
	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "postgres");
	l.options_json = (char *)"{\"pid\":43}";
	export_service_name(&l, b, sizeof(b));
	assert_string_equal(b, "argus");
	profile_free(l.profile);
}

/* Issue 27 item 3: a profile's module table gives its user-space mappings
 * the file's full path and build-id (what go tool pprof, Pyroscope and
 * Parca look symbols up by); a module it does not know keeps its name, as
 * before; the reader takes them back. */
static void test_pprof_module_mappings(void **state)
{
	const char *k[] = { "entry_SYSCALL_64", "ksys_read" };
	const char *u[] = { "main (callsite)", "read (libc.so.6)" };
	const char *u2[] = { "other+0x10 (nomod)" };
	struct pprof_write_opts o = { .freq_hz = 1000, .cond = COND_N, .raw = 1 };
	struct profile *p = profile_new(), *q = NULL;
	struct pd r = { .name = "t", .cause = NULL };
	uint8_t *buf = NULL;
	size_t len = 0;
	char *cause = NULL, file[256], bid[128];
	int seen = 0;
	(void)state;

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_add_user(p, 0, k, 2, u, 2, 42, "callsite", 5), 0);
	assert_int_equal(profile_add_user(p, 0, k, 2, u2, 1, 43, "x", 1), 0);
	assert_int_equal(profile_module_set(p, "callsite", "/opt/x/callsite", "0123abcd"), 0);
	assert_int_equal(profile_module_set(p, "libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
					    ""), 0);
	/* first wins; an empty build-id is filled in later */
	assert_int_equal(profile_module_set(p, "callsite", "/elsewhere", "ffff"), 0);
	assert_int_equal(profile_module_set(p, "libc.so.6", NULL, "beef"), 0);
	assert_string_equal(profile_module_find(p, "callsite")->path, "/opt/x/callsite");
	assert_string_equal(profile_module_find(p, "libc.so.6")->build_id, "beef");
	assert_int_equal(profile_module_set(p, "", "/x", "y"), -EINVAL);
	assert_int_equal(pprof_write(p, &o, &buf, &len, NULL, &cause), 0);

	r.cause = &cause;
	assert_int_equal(pprof_dec_top(&r, buf, len), 0);
	assert_int_equal(pprof_dec_tables(&r), 0);
	for (size_t i = 0; i < r.nmaps; i++) {
		dec_str(&r, r.maps[i].file, file, sizeof(file));
		dec_str(&r, r.maps[i].build_id, bid, sizeof(bid));
		if (!strcmp(file, "/opt/x/callsite")) {
			assert_string_equal(bid, "0123abcd");
			seen |= 1;
		} else if (!strcmp(file, "/usr/lib/x86_64-linux-gnu/libc.so.6")) {
			assert_string_equal(bid, "beef");
			seen |= 2;
		} else if (!strcmp(file, "nomod")) {
			/* unknown to the table: today's mapping, no build-id */
			assert_int_equal(r.maps[i].build_id, 0);
			seen |= 4;
		} else {
			assert_string_equal(file, "[kernel.kallsyms]");
			assert_int_equal(r.maps[i].build_id, 0);
		}
	}
	assert_int_equal(seen, 7);
	pprof_dec_free(&r);

	/* read back: the table as written, keyed by the frames' module name */
	assert_int_equal(read_as(buf, len, COND_LOAD, &q, NULL, &cause), 0);
	assert_non_null(profile_module_find(q, "callsite"));
	assert_string_equal(profile_module_find(q, "callsite")->path, "/opt/x/callsite");
	assert_string_equal(profile_module_find(q, "callsite")->build_id, "0123abcd");
	assert_string_equal(profile_module_find(q, "libc.so.6")->build_id, "beef");
	assert_null(profile_module_find(q, "nomod"));
	profile_free(q);
	free(buf);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pb_varint_roundtrip),
		cmocka_unit_test(test_pb_malformed),
		cmocka_unit_test(test_pprof_roundtrip),
		cmocka_unit_test(test_pprof_user_and_kernel),
		cmocka_unit_test(test_pprof_unmarked_and_bad),
		cmocka_unit_test(test_pprof_truncated_and_garbage),
		cmocka_unit_test(test_pprof_labels_and_time),
		cmocka_unit_test(test_push_base64_labels),
		cmocka_unit_test(test_push_delta),
		cmocka_unit_test(test_export_service_name),
		cmocka_unit_test(test_pprof_module_mappings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
