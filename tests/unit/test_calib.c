/* Calibration: calib_run on a synthetic profile (rates, decreases, sign
 * consistency, too-few samples, words).  The tests it is built on are
 * tested in test_stats.c. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/calib.h"
#include "base/stats.h"
#include "data/profile.h"
#include "data/tree.h"

static void assert_rel(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol * fabs(want)))
		fail_msg("got %.12g, want %.12g (relative tolerance %g)", got, want, tol);
}

/* ---- calib_run on a synthetic profile --------------------------------------
 * Three pairs: reference windows are 2 s long, loaded windows 1 s. */

#define NPAIR 3

static void add(struct profile *p, const char *const *fr, unsigned nf,
		const uint64_t ref[NPAIR], const uint64_t load[NPAIR])
{
	for (unsigned i = 0; i < NPAIR; i++) {
		if (ref[i])
			assert_int_equal(profile_add(p, 2 * i, fr, nf, 1, "x", ref[i]), 0);
		if (load[i])
			assert_int_equal(profile_add(p, 2 * i + 1, fr, nf, 1, "x", load[i]), 0);
	}
}

#define ADD(p, ref, load, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	static const uint64_t r_[] = ref, l_[] = load; \
	add(p, fr_, sizeof(fr_) / sizeof(fr_[0]), r_, l_); \
} while (0)
#define V(a, b, c) { a, b, c }

#define PF "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", \
	"handle_mm_fault", "__handle_mm_fault"
#define SCHED "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_sched_yield", \
	"do_sched_yield", "schedule", "__schedule"
#define FS "entry_SYSCALL_64", "do_syscall_64", "ksys_read", "vfs_read"
#define NET "entry_SYSCALL_64", "do_syscall_64", "__sys_sendto", "tcp_sendmsg"

static struct tree *calib_tree(struct calib_opts *o)
{
	struct profile *p = profile_new();
	struct tree *t;

	assert_non_null(p);
	for (unsigned w = 0; w < 2 * NPAIR; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), (int)w);
		profile_window_end(p, w, w % 2 ? 1.0 : 2.0);
	}
	ADD(p, V(2, 3, 2), V(100, 110, 95), PF, "do_anonymous_page");        /* up */
	ADD(p, V(0, 0, 0), V(20, 20, 20), PF, "do_huge_pmd_anonymous_page"); /* new */
	ADD(p, V(200, 200, 200), V(30, 20, 25), SCHED);                     /* down */
	ADD(p, V(800, 100, 100), V(100, 100, 100), FS);   /* down, pairs disagree */
	ADD(p, V(0, 0, 0), V(1, 1, 1), NET);              /* too few */
	t = tree_build(p, NULL);
	assert_non_null(t);
	profile_free(p);
	calib_opts_default(o);
	o->freq_hz = 1000;
	assert_int_equal(calib_run(t, o), 0);
	return t;
}

static struct tree_node *node(struct tree *t, const char *const *path, unsigned n)
{
	struct tree_node *x = t->root;

	for (unsigned i = 0; i < n && x; i++)
		x = tree_child(t, x, path[i]);
	assert_non_null(x);
	return x;
}

#define NODE(t, ...) ({ static const char *const p_[] = { __VA_ARGS__ }; \
	node(t, p_, sizeof(p_) / sizeof(p_[0])); })

static void test_run_rates(void **state)
{
	struct calib_opts o;
	struct tree *t = calib_tree(&o);
	struct tree_node *anon = NODE(t, "mm", PF, "do_anonymous_page");
	struct tree_node *thp = NODE(t, "mm", PF, "do_huge_pmd_anonymous_page");
	struct tree_node *mm = NODE(t, "mm");

	(void)state;
	assert_rel(anon->stat.rate[COND_REF], 7.0 / 6.0, 1e-12);
	assert_rel(anon->stat.rate[COND_LOAD], 305.0 / 3.0, 1e-12);
	assert_rel(anon->stat.delta, 305.0 / 3.0 - 7.0 / 6.0, 1e-12);
	assert_rel(anon->stat.ratio, (305.0 / 3.0) / (7.0 / 6.0), 1e-12);
	assert_rel(anon->stat.cpu_ms[COND_LOAD], 305.0 / 3.0, 1e-12); /* 1000 Hz */
	assert_rel(anon->stat.p, stats_poisson_p(7, 6.0, 305, 3.0), 1e-12);
	assert_true(anon->stat.q >= anon->stat.p && anon->stat.q < 1e-10);
	assert_int_equal(anon->stat.pairs, 3);
	assert_int_equal(anon->stat.pairs_agree, 3);
	assert_true(anon->stat.significant);
	assert_int_equal(anon->stat.sign, 1);
	/* a path only present when loaded */
	assert_true(isinf(thp->stat.ratio) && thp->stat.ratio > 0);
	assert_true(thp->stat.significant);
	/* shares: anon's part of __handle_mm_fault's delta */
	assert_rel(anon->stat.share_of_parent, anon->stat.delta / anon->parent->stat.delta, 1e-12);
	assert_rel(mm->stat.share_of_parent, mm->stat.delta / t->root->stat.delta, 1e-12);
	assert_true(t->root->stat.share_of_parent == 1.0);
	/* the root is its own single test */
	assert_true(t->root->stat.q == t->root->stat.p);
	tree_free(t);
}

static void test_run_decrease_and_pairs(void **state)
{
	struct calib_opts o;
	struct tree *t = calib_tree(&o);
	struct tree_node *sched = NODE(t, "sched");
	struct tree_node *fs = NODE(t, "fs");
	struct tree_node *net = NODE(t, "net");

	(void)state;
	/* 100/s -> 25/s */
	assert_rel(sched->stat.delta, -75.0, 1e-12);
	assert_true(sched->stat.significant);
	assert_int_equal(sched->stat.sign, -1);
	assert_int_equal(sched->stat.pairs_agree, 3);
	/* 166.7/s -> 100/s overall, but pair by pair -300, +50, +50 */
	assert_true(fs->stat.delta < 0);
	assert_true(fs->stat.q < 1e-10);
	assert_int_equal(fs->stat.pairs, 3);
	assert_int_equal(fs->stat.pairs_agree, 1);
	assert_false(fs->stat.significant);
	assert_int_equal(fs->stat.sign, 0);
	assert_string_equal(fs->stat.why, "window pairs disagree in sign");
	/* 3 samples: below min_count, outside the BH family */
	assert_false(net->stat.significant);
	assert_true(net->stat.q == 1.0);
	assert_string_equal(net->stat.why, "too few samples to test");
	/* with min_agree 0.3, 1/3 is enough */
	o.min_agree = 0.3;
	assert_int_equal(calib_run(t, &o), 0);
	assert_true(fs->stat.significant);
	assert_int_equal(fs->stat.sign, -1);
	tree_free(t);
}

static void test_run_needs_both(void **state)
{
	struct profile *p = profile_new();
	static const char *const fr[] = { "schedule" };
	struct tree *t;

	(void)state;
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_add(p, 0, fr, 1, 0, NULL, 10), 0);
	t = tree_build(p, NULL);
	assert_non_null(t);
	assert_int_equal(calib_run(t, NULL), -EINVAL);
	tree_free(t);
	profile_free(p);
}

static void test_words(void **state)
{
	struct calib_opts o;
	struct tree *t = calib_tree(&o);
	char buf[512];
	const char *mm, *sched, *net, *fs;

	(void)state;
	calib_explain(NODE(t, "mm", PF, "do_anonymous_page"), buf, sizeof(buf));
	assert_non_null(strstr(buf, "+100.5/s"));
	assert_non_null(strstr(buf, "ref 1.2/s, load 101.7/s"));
	assert_non_null(strstr(buf, "3/3 pairs agree"));
	assert_non_null(strstr(buf, "significant increase"));
	assert_non_null(strstr(buf, "binomial"));
	calib_explain(NODE(t, "fs"), buf, sizeof(buf));
	assert_non_null(strstr(buf, "1/3 pairs agree: window pairs disagree in sign"));
	calib_explain(NODE(t, "mm", PF, "do_huge_pmd_anonymous_page"), buf, sizeof(buf));
	assert_non_null(strstr(buf, "new when loaded"));

	/* significant first by |delta| per second (issue 13: not by percent),
	 * then the rest: mm +N% (+120/s) | sched -75% (-75/s) |
	 * fs -40% (n.s., -67/s) | net new (n.s., +1/s) */
	calib_summary(t, 0, buf, sizeof(buf));
	mm = strstr(buf, "mm x");   /* over +9999%: x N, as the tree says it */
	if (!mm)
		mm = strstr(buf, "mm +");
	sched = strstr(buf, "sched -75%");
	net = strstr(buf, "net new (n.s.)");
	fs = strstr(buf, "fs -40% (n.s.)");
	assert_true(mm == buf);
	assert_true(sched && net && fs && mm < sched && sched < fs && fs < net);
	assert_non_null(strstr(buf, " | "));
	calib_summary(t, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, " \xc2\xb7 sched \xe2\x88\x92" "75%"));
	/* truncation is safe */
	calib_summary(t, 1, buf, 12);
	assert_true(strlen(buf) < 12);
	tree_free(t);
}

/* issue 13 item 3: idle falls to nothing when the load runs (the CPUs are
 * busy), the largest |delta| of all; the header does not rank it as if it
 * were a cost, and says it last as idle time */
static void test_summary_idle(void **state)
{
	struct profile *p = profile_new();
	struct calib_opts o;
	struct tree *t;
	char buf[512];
	const char *idle;

	(void)state;
	assert_non_null(p);
	for (unsigned w = 0; w < 2 * NPAIR; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), (int)w);
		profile_window_end(p, w, 1.0);
	}
	ADD(p, V(2, 3, 2), V(100, 110, 95), PF, "do_anonymous_page");
	ADD(p, V(900, 950, 1000), V(0, 0, 0), "secondary_startup_64", "start_secondary",
	    "cpu_startup_entry", "do_idle");
	t = tree_build(p, NULL);
	assert_non_null(t);
	profile_free(p);
	calib_opts_default(&o);
	o.freq_hz = 1000;
	assert_int_equal(calib_run(t, &o), 0);
	calib_summary(t, 1, buf, sizeof(buf));
	assert_true(strncmp(buf, "mm +", 4) == 0);
	idle = strstr(buf, "idle time \xe2\x88\x92" "100%");
	assert_non_null(idle);
	assert_non_null(strstr(idle, "(not ranked: not work)"));
	assert_null(strstr(idle + 1, " \xc2\xb7 "));   /* the last entry */
	assert_null(strstr(buf, "idle \xe2\x88\x92"));
	tree_free(t);
}

/* issue 24 item 9: the header says a large change as the tree's delta-%
 * column does ("x600", not "+59900%" beside a row's "x600") */
static void test_summary_times(void **state)
{
	struct profile *p = profile_new();
	struct calib_opts o;
	struct tree *t;
	char buf[512];

	(void)state;
	assert_non_null(p);
	for (unsigned w = 0; w < 2 * NPAIR; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), (int)w);
		profile_window_end(p, w, 1.0);
	}
	ADD(p, V(1, 1, 1), V(600, 600, 600), PF, "do_anonymous_page");
	t = tree_build(p, NULL);
	assert_non_null(t);
	profile_free(p);
	calib_opts_default(&o);
	o.freq_hz = 1000;
	assert_int_equal(calib_run(t, &o), 0);
	calib_summary(t, 1, buf, sizeof(buf));
	assert_true(strncmp(buf, "mm x600", 7) == 0);
	assert_null(strstr(buf, "%"));
	tree_free(t);
}

/* issue 24 item 9: in a wall-clock tree mm sits under on-cpu and under
 * blocked; the header says each node's own change (what its row says), not
 * their sum, which no row shows (it said mm +1514% beside the row's +1043%) */
static void test_summary_time_kinds(void **state)
{
	struct profile *p = profile_new();
	struct calib_opts o;
	struct tree *t;
	char buf[512], row[32];
	const struct calib_stat *st;

	(void)state;
	assert_non_null(p);
	for (unsigned w = 0; w < 2 * NPAIR; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), (int)w);
		profile_window_end(p, w, 1.0);
	}
	ADD(p, V(100, 100, 100), V(1100, 1100, 1100), "[on-cpu]", PF, "do_anonymous_page");
	ADD(p, V(0, 0, 0), V(500, 500, 500), "[blocked]", PF, "do_fault", "schedule");
	ADD(p, V(800, 800, 800), V(300, 300, 300), "[on-cpu]", "[user space]");
	t = tree_build(p, NULL);
	assert_non_null(t);
	profile_free(p);
	calib_opts_default(&o);
	o.freq_hz = 1000;
	assert_int_equal(calib_run(t, &o), 0);
	calib_summary(t, 1, buf, sizeof(buf));
	print_message("%s\n", buf);
	/* the on-cpu mm row's own delta-%, as the tree's column says it */
	st = &NODE(t, "on-cpu", "mm")->stat;
	snprintf(row, sizeof(row), "mm +%.0f%% ", 100.0 * st->delta / st->rate[COND_REF]);
	assert_string_equal(row, "mm +1000% ");
	assert_true(strncmp(buf, row, strlen(row)) == 0 ||
		    strstr(buf, " \xc2\xb7 mm +1000% ") != NULL);
	assert_non_null(strstr(buf, "blocked mm new"));
	assert_null(strstr(buf, "mm +1500%"));   /* the sum of both */
	tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_rates),
		cmocka_unit_test(test_summary_idle),
		cmocka_unit_test(test_summary_times),
		cmocka_unit_test(test_summary_time_kinds),
		cmocka_unit_test(test_run_decrease_and_pairs),
		cmocka_unit_test(test_run_needs_both),
		cmocka_unit_test(test_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
