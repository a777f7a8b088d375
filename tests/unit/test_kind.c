/* kind: step_data windows and rows, histogram percentiles, the automatic
 * 1-in-N, snapshots, stack symbolisation with the BPF machinery dropped,
 * and function_latency's program construction and clean refusal. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <bpf/bpf.h>

#include "probe/kind.h"
#include "probe/kind_util.h"
#include "data/ksym.h"
#include "probe/probe_funclat.h"

static void test_step_data(void **state)
{
	struct step_data *d = step_data_new(3, "events");
	struct step_target_win *t;
	int w0, w1;

	(void)state;
	assert_non_null(d);
	assert_string_equal(d->unit, "events");
	assert_int_equal(d->ntargets, 3);
	w0 = step_data_window_begin(d, COND_REF, 0);
	w1 = step_data_window_begin(d, COND_LOAD, 1.5);
	assert_int_equal(w0, 0);
	assert_int_equal(w1, 1);
	assert_int_equal(d->prof->nwin, 2);
	assert_int_equal(d->prof->wins[1].cond, COND_LOAD);
	t = step_data_target(d, 1, 2);
	assert_non_null(t);
	assert_int_equal(t->events, 0);
	t->events = 7;
	t->hist[3] = 1;
	assert_null(step_data_target(d, 2, 0));
	assert_null(step_data_target(d, 0, 3));
	/* growth keeps earlier rows */
	for (int i = 0; i < 40; i++)
		assert_int_equal(step_data_window_begin(d, i & 1 ? COND_LOAD : COND_REF, i), i + 2);
	assert_int_equal(step_data_target(d, 1, 2)->events, 7);
	assert_int_equal(step_data_target(d, 41, 2)->events, 0);
	step_data_window_end(d, 1, 0.5);
	assert_true(d->prof->wins[1].secs == 0.5);
	step_data_free(d);
	step_data_free(NULL);
}

static void test_percentile(void **state)
{
	uint64_t h[KIND_HIST_BUCKETS] = { 0 };

	(void)state;
	assert_true(kind_hist_percentile(h, 50) == 0);
	h[10] = 100;                       /* [1024, 2048) ns */
	assert_true(kind_hist_percentile(h, 50) == 2048);
	assert_true(kind_hist_percentile(h, 99) == 2048);
	h[0] = 100;                        /* 0..1 ns */
	assert_true(kind_hist_percentile(h, 25) == 2);
	assert_true(kind_hist_percentile(h, 50) == 2);
	assert_true(kind_hist_percentile(h, 50.5) == 2048);
	assert_true(kind_hist_percentile(h, 100) == 2048);
	memset(h, 0, sizeof(h));
	h[20] = 98;                        /* ~1 ms */
	h[24] = 2;                         /* ~16 ms */
	assert_true(kind_hist_percentile(h, 50) == 2097152.0);
	assert_true(kind_hist_percentile(h, 98) == 2097152.0);
	assert_true(kind_hist_percentile(h, 99) == 33554432.0);
	assert_true(kind_hist_percentile(h, 0) == 2097152.0);
	memset(h, 0, sizeof(h));
	h[63] = 1;
	assert_true(kind_hist_percentile(h, 50) == 18446744073709551616.0);
}

static void test_auto_every(void **state)
{
	(void)state;
	assert_int_equal(kind_tpstacks_auto_every(0), 1);
	assert_int_equal(kind_tpstacks_auto_every(-5), 1);
	assert_int_equal(kind_tpstacks_auto_every(KIND_TPSTACKS_BUDGET), 1);
	assert_int_equal(kind_tpstacks_auto_every(KIND_TPSTACKS_BUDGET + 1), 2);
	assert_int_equal(kind_tpstacks_auto_every(KIND_TPSTACKS_BUDGET * 23), 23);
	assert_int_equal(kind_tpstacks_auto_every(KIND_TPSTACKS_BUDGET * 23.5), 24);
	assert_int_equal(kind_tpstacks_auto_every(1e18), 1000000);
	/* scaling stays honest: recorded x N estimates the firings within N */
	{
		unsigned n = kind_tpstacks_auto_every(450000);
		uint64_t fired = 450000, recorded = fired / n;
		assert_true(recorded <= KIND_TPSTACKS_BUDGET);
		assert_true(fired - recorded * n < n);
	}
}

static void test_snap(void **state)
{
	struct kind_snap *s = kind_snap_new(12, 2);
	uint64_t cur[3] = { 5, 9, 2 }, prev[3] = { 1, 9, 4 }, out[3] = { 0, 0, 0 };
	char key[12];

	(void)state;
	assert_non_null(s);
	for (int i = 0; i < 5000; i++) {
		uint64_t *v;

		memset(key, 0, sizeof(key));
		snprintf(key, sizeof(key), "k%d", i);
		v = kind_snap_get(s, key);
		assert_non_null(v);
		assert_int_equal(v[0], 0);
		v[0] = (uint64_t)i;
		v[1] = (uint64_t)i * 2;
	}
	for (int i = 0; i < 5000; i++) {
		uint64_t *v;

		memset(key, 0, sizeof(key));
		snprintf(key, sizeof(key), "k%d", i);
		v = kind_snap_get(s, key);
		assert_int_equal(v[0], (uint64_t)i);
		assert_int_equal(v[1], (uint64_t)i * 2);
	}
	kind_snap_free(s);
	kind_snap_free(NULL);
	kind_delta_add(out, cur, prev, 3);
	assert_int_equal(out[0], 4);
	assert_int_equal(out[1], 0);
	assert_int_equal(out[2], 0); /* a counter that went back adds nothing */
	assert_int_equal(prev[0], 5);
	assert_int_equal(prev[2], 2);
}

/* A fake stack map: id 1 is leaf first bpf_prog -> bpf_trace_run2 ->
 * exc_page_fault -> asm_exc_page_fault; id 2 is unreadable. */
static int fake_read(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	static const uint64_t s1[] = { 0xffffffffc0001000ull, 0xffffffff81003010ull,
				       0xffffffff81002010ull, 0xffffffff81001010ull };

	(*(int *)arg)++;
	if (id != 1 || max < 4)
		return -ENOENT;
	memcpy(ips, s1, sizeof(s1));
	return 4;
}

static void test_stacks(void **state)
{
	char path[] = "/tmp/argus-kallsyms.XXXXXX";
	int fd = mkstemp(path), reads = 0, n;
	const char *text = "ffffffff81001000 T asm_exc_page_fault\n"
			   "ffffffff81002000 T exc_page_fault\n"
			   "ffffffff81003000 T bpf_trace_run2\n"
			   "ffffffff81004000 T _etext\n";
	const char *const *fr;
	struct kind_stacks *c;
	struct ksym_table *ks;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	ks = ksym_load(path);
	unlink(path);
	assert_non_null(ks);
	c = kind_stacks_new(fake_read, &reads);
	assert_non_null(c);
	n = kind_stacks_get(c, 1, ks, &fr);
	assert_int_equal(n, 2);
	assert_string_equal(fr[0], "asm_exc_page_fault");
	assert_string_equal(fr[1], "exc_page_fault");
	n = kind_stacks_get(c, 1, ks, &fr); /* cached */
	assert_int_equal(n, 2);
	assert_int_equal(reads, 1);
	assert_int_equal(kind_stacks_get(c, 2, ks, &fr), 0);
	assert_int_equal(kind_stacks_get(c, 0xffffffffu, ks, &fr), 0);
	kind_stacks_free(c);
	/* without symbols nothing is dropped but the named machinery */
	c = kind_stacks_new(fake_read, &reads);
	assert_int_equal(kind_stacks_get(c, 1, NULL, &fr), 4);
	assert_string_equal(fr[3], "0xffffffffc0001000");
	kind_stacks_free(c);
	ksym_free(ks);

	assert_true(kind_frame_is_machinery("bpf_prog_6deef7357e7b4530_argus_tps_0"));
	assert_true(kind_frame_is_machinery("bpf_trace_run3"));
	assert_true(kind_frame_is_machinery("__bpf_trace_sys_enter"));
	assert_false(kind_frame_is_machinery("exc_page_fault"));
	assert_true(kind_frame_is_marker("[tp] exceptions:page_fault_user"));
	assert_false(kind_frame_is_marker("handle_mm_fault"));
}

static void test_table(void **state)
{
	struct step *s = step_new();

	(void)state;
	for (int k = 0; k < STEP_KIND_N; k++) {
		const struct kind_ops *o = kind_ops_get(k);
		assert_non_null(o);
		assert_int_equal(o->kind, k);
		assert_non_null(o->open);
		assert_non_null(o->collect);
		assert_non_null(o->discard);
		assert_non_null(o->stats);
		assert_non_null(o->close);
		assert_non_null(kind_unit(k));
	}
	assert_null(kind_ops_get(STEP_KIND_N));
	assert_string_equal(kind_unit(STEP_OFFCPU), "us blocked");
	assert_string_equal(kind_unit(STEP_SAMPLE), "samples");
	s->kind = STEP_TRACEPOINT_LATENCY;
	s->nresolved = 2;
	assert_int_equal(kind_ntargets(s), 1);
	s->kind = STEP_COUNTS;
	s->nresolved = 5;
	assert_int_equal(kind_ntargets(s), 5);
	s->nresolved = 0;
	step_free(s);
}

static void test_funclat_programs(void **state)
{
	char *p = probe_funclat_programs(), *line;
	int n = 0;

	(void)state;
	assert_non_null(p);
	for (line = p; (line = strchr(line, '\n')); line++)
		n++;
	assert_int_equal(n, 4 * FUNCLAT_MAX_FNS);
	assert_non_null(strstr(p, "argus_fl_fentry_0 tracing trace_fentry\n"));
	assert_non_null(strstr(p, "argus_fl_fexit_7 tracing trace_fexit\n"));
	assert_non_null(strstr(p, "argus_fl_kprobe_0 kprobe "));
	assert_non_null(strstr(p, "argus_fl_kretprobe_7 kprobe "));
	free(p);
}

/* Nonzero when a program whose name starts with prefix is loaded. */
static int prog_loaded(const char *prefix)
{
	__u32 id = 0;
	int found = 0;

	while (!found && !bpf_prog_get_next_id(id, &id)) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = bpf_prog_get_fd_by_id(id);

		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    !strncmp(info.name, prefix, strlen(prefix)))
			found = 1;
		close(fd);
	}
	return found;
}

static void test_funclat_refusal(void **state)
{
	const char *fns[] = { "vfs_read" };
	struct probe_funclat *pf;
	char *cause = NULL;

	(void)state;
	if (geteuid() != 0) {
		printf("# needs root to try loading fentry/kprobe programs\n");
		skip();
	}
	pf = probe_funclat_open(fns, 1, 0, NULL, &cause);
	if (pf) { /* a kernel that allows it: it must say how */
		const char *m = probe_funclat_mechanism(pf);
		assert_true(!strcmp(m, "fentry") || !strcmp(m, "kprobe"));
		printf("# this kernel allows %s: the refusal path cannot be seen here\n", m);
		probe_funclat_close(pf);
		free(cause);
		skip();
	}
	assert_true(errno == EPERM || errno == EOPNOTSUPP || errno == ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "fentry"));
	assert_non_null(strstr(cause, "kprobe"));
	assert_non_null(strstr(cause, "vfs_read"));
	free(cause);
	assert_false(prog_loaded("argus_fl_"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step_data),
		cmocka_unit_test(test_percentile),
		cmocka_unit_test(test_auto_every),
		cmocka_unit_test(test_snap),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_funclat_programs),
		cmocka_unit_test(test_funclat_refusal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
