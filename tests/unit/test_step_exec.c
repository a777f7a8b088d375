/* test_step_exec — the step executor with a fake kind: windows alternate,
 * settle time is discarded, the overhead guard trips on a fake run time;
 * merging places stacks under the matching path or under the event's own
 * node; annotations are calibrated; the one-line words. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent.h"
#include "agent/agent_heuristic.h"
#include "analysis/calib.h"
#include "probe/kind.h"
#include "data/step.h"
#include "step/step_exec.h"
#include "analysis/step_merge.h"
#include "step/step_preflight.h"
#include "data/tree.h"

/* ---- the fake kind ---------------------------------------------------------- */

struct fake {
	double now;                 /* the test's clock */
	struct step_exec *x;        /* to learn the condition */
	double rate[COND_N];        /* events per second in each condition */
	double run_frac;            /* BPF run time per second of wall time */
	double mark;                /* last collect / discard */
	double open_t;
	uint64_t collected, discarded;
	unsigned opens, closes;
	int new_path;               /* also record a stack the tree lacks */
	int lat;                    /* latency kind: histograms */
	/* the duty cycle: run time and events accrue only while attached */
	int detached;
	double att_s, att_mark;     /* attached seconds before att_mark */
	unsigned pauses, resumes;
};

static struct fake F;

struct kind_probe {
	int dummy;
};

static struct kind_probe fake_probe;

static int fake_open(const struct step *s, struct kind_probe **out, char **cause)
{
	F.opens++;
	F.open_t = F.now;
	F.mark = F.now;
	*out = &fake_probe;
	return 0;
}

static uint64_t fake_accrued(void)
{
	double dt = F.detached ? 0 : F.now - F.mark;
	enum cond c = F.x ? step_exec_cond(F.x) : COND_REF;

	F.mark = F.now;
	return (uint64_t)llround(dt * F.rate[c]);
}

static int fake_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			const struct ksym_table *ks)
{
	static const char *const known[] = { "asm_exc_page_fault", "exc_page_fault",
		"[tp] exceptions:page_fault_user" };
	static const char *const fresh[] = { "asm_exc_page_fault", "exc_page_fault",
		"brand_new_fn", "[tp] exceptions:page_fault_user" };
	uint64_t n = fake_accrued();
	struct step_target_win *tw = step_data_target(d, w, 0);

	F.collected += n;
	tw->events += n;
	tw->recorded += n;
	if (F.lat) {
		/* reference intervals ~0.3 ms, loaded ~12 ms */
		tw->hist[d->prof->wins[w].cond == COND_REF ? 18 : 23] += n;
	}
	if (n && profile_add(d->prof, w, F.new_path ? fresh : known, F.new_path ? 4 : 3, 7,
			     "pf", n) < 0)
		return -ENOMEM;
	return 0;
}

static int fake_discard(struct kind_probe *kp)
{
	F.discarded += fake_accrued();
	return 0;
}

static void fake_stats(struct kind_probe *kp, struct kind_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->events = F.collected + F.discarded;
	if (F.pauses || F.resumes || F.detached)   /* a duty-cycled fake */
		st->run_ns = (uint64_t)((F.att_s + (F.detached ? 0 : F.now - F.att_mark)) *
					F.run_frac * 1e9);
	else
		st->run_ns = (uint64_t)((F.now - F.open_t) * F.run_frac * 1e9);
	st->run_cnt = st->events;
	st->progs = 1;
}

static void fake_close(struct kind_probe *kp)
{
	F.closes++;
}

static const struct kind_ops fake_ops = {
	.kind = STEP_TRACEPOINT_STACKS,
	.open = fake_open,
	.collect = fake_collect,
	.discard = fake_discard,
	.stats = fake_stats,
	.close = fake_close,
};

static int fake_pause(struct kind_probe *kp)
{
	assert_false(F.detached);
	fake_accrued();             /* what ran until now is in the map; nothing after */
	F.att_s += F.now - F.att_mark;
	F.detached = 1;
	F.pauses++;
	return 0;
}

static int fake_resume(struct kind_probe *kp)
{
	assert_true(F.detached);
	F.detached = 0;
	F.att_mark = F.now;
	F.mark = F.now;
	F.resumes++;
	return 0;
}

/* the same fake, able to detach between windows (a duty cycle) */
static const struct kind_ops fake_duty_ops = {
	.kind = STEP_TRACEPOINT_STACKS,
	.open = fake_open,
	.collect = fake_collect,
	.discard = fake_discard,
	.stats = fake_stats,
	.close = fake_close,
	.pause = fake_pause,
	.resume = fake_resume,
};
static const struct kind_ops *fake_use = &fake_ops;

static struct step *pf_step(double dur)
{
	struct step *s = step_new();

	assert_non_null(s);
	s->kind = STEP_TRACEPOINT_STACKS;
	s->targets = calloc(1, sizeof(char *));
	s->targets[0] = strdup("exceptions:page_fault_user");
	s->ntargets = 1;
	s->resolved = calloc(1, sizeof(char *));
	s->resolved[0] = strdup("exceptions:page_fault_user");
	s->nresolved = 1;
	s->duration_s = dur;
	return s;
}

/* Runs s with the fake, advancing the clock 10 ms per tick. */
static struct step_data *run_fake(struct step *s, double budget, struct step_exec_info *info)
{
	struct step_exec_opts o;
	struct step_exec *x;
	struct step_data *d;
	char *cause = NULL;
	int guard = 0;

	step_exec_opts_default(&o);
	o.ops = fake_use;
	o.no_bpf_stats = 1;
	o.pairs = 3;
	o.settle_s = 0.1;
	if (budget > 0)
		o.budget_pct = budget;
	F.now = 100.0;
	F.att_mark = F.now;
	F.collected = F.discarded = 0;
	x = step_exec_new(s, &o, &cause);
	assert_non_null(x);
	assert_null(cause);
	F.x = x;
	while (!step_exec_finished(x) && guard++ < 100000) {
		assert_true(step_exec_tick(x, F.now, &cause) >= 0);
		F.now += 0.01;
	}
	assert_true(step_exec_finished(x));
	step_exec_info(x, info);
	d = step_exec_take_data(x);
	F.x = NULL;
	step_exec_free(x);
	return d;
}

/* ---- the executor --------------------------------------------------------------- */

static void test_windows_alternate_settle_discarded(void **state)
{
	struct step *s = pf_step(1.5);
	struct step_exec_info info;
	struct step_data *d;
	uint64_t sum = 0;

	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = 1000;
	F.rate[COND_LOAD] = 4000;
	d = run_fake(s, 0, &info);
	assert_non_null(d);
	assert_int_equal(info.state, STEP_EXEC_DONE);
	assert_int_equal(F.opens, 1);
	assert_int_equal(F.closes, 1);
	assert_int_equal(d->nwin, 6);
	for (unsigned w = 0; w < d->nwin; w++) {
		uint64_t ev = step_data_target(d, w, 0)->events;
		double want = d->prof->wins[w].secs * F.rate[d->prof->wins[w].cond];

		assert_int_equal(d->prof->wins[w].cond, w % 2 ? COND_LOAD : COND_REF);
		assert_true(fabs(d->prof->wins[w].secs - 0.5) < 0.02);
		/* only the window's own time counted: settle time went to discard */
		assert_true(fabs((double)ev - want) <= 20);
		sum += ev;
	}
	/* one settle after every switch: 6 x 0.1 s, some at 4000/s */
	assert_true(F.discarded >= 500);
	assert_int_equal(sum, F.collected);
	step_data_free(d);
	step_free(s);
}

static void test_guard_trips(void **state)
{
	struct step *s = pf_step(3);
	struct step_exec_info info;
	struct step_data *d;

	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 100;
	F.run_frac = 0.08; /* 8% of a CPU, over the 5% of a per-event kind */
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_OVER_BUDGET);
	assert_non_null(strstr(info.reason, "stopped: over budget (8.0% of a CPU > 5%)"));
	assert_int_equal(F.closes, 1);
	/* judged on its ~1 s average: not at the first quarter second */
	assert_true(info.elapsed_s >= 1.0 && info.elapsed_s < 2.0);
	step_data_free(d);

	/* a runaway (over ten times the budget) is detached at the first check */
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 100;
	F.run_frac = 0.6;
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_OVER_BUDGET);
	assert_true(info.elapsed_s < 0.5);
	step_data_free(d);

	/* under the budget: runs to the end */
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 100;
	F.run_frac = 0.01;
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_DONE);
	assert_true(fabs(info.overhead_pct - 1.0) < 0.1);
	step_data_free(d);
	step_free(s);
}

/* ---- merging ---------------------------------------------------------------------- */

static struct tree *calib_tree(void)
{
	static const char *const pf[] = { "asm_exc_page_fault", "exc_page_fault",
		"do_user_addr_fault", "handle_mm_fault" };
	struct profile *p = profile_new();
	struct tree *t;

	for (int w = 0; w < 6; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w * 0.5), w);
		profile_window_end(p, w, 0.5);
		assert_int_equal(profile_add(p, w, pf, 4, 7, "pf", w % 2 ? 200 : 20), 0);
	}
	t = tree_build(p, NULL);
	assert_non_null(t);
	profile_free(p);
	assert_int_equal(calib_run(t, NULL), 0);
	return t;
}

static struct tree_node *path(struct tree *t, const char *const *names, unsigned n)
{
	struct tree_node *cur = t->root;

	for (unsigned i = 0; i < n && cur; i++)
		cur = tree_child(t, cur, names[i]);
	return cur;
}

static void test_merge_matching_path(void **state)
{
	static const char *const ev[] = { "mm", "asm_exc_page_fault", "exc_page_fault",
		"[tp] exceptions:page_fault_user" };
	static const char *const own[] = { "mm", "[tp] exceptions:page_fault_user" };
	struct step *s = pf_step(1.5);
	struct step_exec_info info;
	struct step_data *d;
	struct tree *t = calib_tree();
	struct tree_node *n, *pfn;
	size_t before = t->nnodes;
	uint64_t root_total = t->root->total[COND_LOAD];

	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = 1000;
	F.rate[COND_LOAD] = 4000;
	d = run_fake(s, 0, &info);
	assert_int_equal(step_merge_into_tree(t, s, d, 0), 0);
	/* the event under the deepest matching frame, nothing new below it */
	n = path(t, ev, 4);
	assert_non_null(n);
	assert_int_equal(n->kind, TREE_EVENT);
	assert_true(n->flags & TREE_F_STEP);
	assert_int_equal(n->nchild, 0);
	assert_int_equal(t->nnodes, before + 2); /* that node and the target's own */
	/* the matched frames are annotated, their counts untouched */
	pfn = path(t, ev, 3);
	assert_non_null(pfn->annot);
	assert_false(pfn->flags & TREE_F_STEP);
	assert_int_equal(t->root->total[COND_LOAD], root_total);
	/* the target's own node under its subsystem: exact totals */
	n = path(t, own, 2);
	assert_non_null(n);
	assert_true(n->flags & TREE_F_STEP);
	assert_int_equal(n->total[COND_REF] + n->total[COND_LOAD], F.collected);

	/* calibrated: calib_run leaves step nodes to the annotations */
	assert_int_equal(calib_run(t, NULL), 0);
	n = path(t, ev, 4);
	assert_true(n->stat.significant);
	assert_int_equal(n->stat.sign, 1);
	assert_true(fabs(n->stat.rate[COND_REF] - 1000) < 50);
	assert_true(fabs(n->stat.rate[COND_LOAD] - 4000) < 100);
	assert_true(n->stat.share_of_parent == 0);      /* other unit */
	assert_true(pfn->annot->significant);
	assert_true(pfn->annot->q < 1e-10);
	/* the calibration's own nodes keep their sample rates */
	assert_true(fabs(pfn->stat.rate[COND_LOAD] - 400) < 1e-9);

	/* the descent does not leave the sample path for the event */
	{
		struct verdict v = { 0 };

		assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
		assert_true(v.found);
		assert_string_equal(v.leaf, "handle_mm_fault");
		verdict_clear(&v);
	}
	tree_free(t);
	step_data_free(d);
	step_free(s);
}

static void test_merge_new_path(void **state)
{
	static const char *const ev[] = { "mm", "asm_exc_page_fault", "exc_page_fault",
		"[tp] exceptions:page_fault_user", "brand_new_fn" };
	/* brand_new_fn is not in the tree: the event hangs at exc_page_fault
	 * and the new part of the path goes below it */
	struct step *s = pf_step(1.5);
	struct step_exec_info info;
	struct step_data *d;
	struct tree *t = calib_tree();
	struct tree_node *n;
	struct verdict v = { 0 };

	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = 1000;
	F.rate[COND_LOAD] = 4000;
	F.new_path = 1;
	d = run_fake(s, 0, &info);
	assert_int_equal(step_merge_into_tree(t, s, d, 2), 0);
	n = path(t, ev, 5);
	assert_non_null(n);
	assert_int_equal(n->kind, TREE_FRAME);
	assert_true(n->flags & TREE_F_STEP);
	assert_int_equal(n->annot->step, 2);
	assert_int_equal(calib_run(t, NULL), 0);
	assert_true(n->stat.significant);
	assert_true(fabs(n->stat.share_of_parent - 1.0) < 1e-9);
	/* from the event node, the descent goes on through the new frames */
	assert_int_equal(agent_descend(t, path(t, ev, 4), 0.5, &v, NULL), 0);
	assert_true(v.found);
	assert_string_equal(v.leaf, "brand_new_fn");
	verdict_clear(&v);
	tree_free(t);
	step_data_free(d);
	step_free(s);
}

static void test_latency_and_words(void **state)
{
	struct step *s = pf_step(1.5);
	struct step_exec_info info;
	struct step_target_result *r = NULL;
	struct step_data *d;
	char buf[256], *sum;

	s->kind = STEP_TRACEPOINT_LATENCY;
	free(s->resolved[0]);
	s->resolved[0] = strdup("compaction:mm_compaction_begin");
	s->resolved = realloc(s->resolved, 2 * sizeof(char *));
	s->resolved[1] = strdup("compaction:mm_compaction_end");
	s->nresolved = 2;
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = 100;
	F.rate[COND_LOAD] = 100;
	F.lat = 1;
	d = run_fake(s, 0, &info);
	assert_int_equal(step_results(s, d, 0.05, &r), 1);
	assert_true(r[0].has_lat);
	assert_true(r[0].lat_significant);
	assert_true(r[0].p99_ns[COND_REF] == 524288.0);
	assert_true(r[0].p99_ns[COND_LOAD] == 16777216.0);
	step_result_line(&r[0], 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "mm_compaction_end p99 0.5 ms -> 17 ms"));
	free(r);
	sum = step_summary(s, d, 1);
	assert_non_null(strstr(sum, "p99 0.5 ms \xe2\x86\x92 17 ms"));
	free(sum);
	step_data_free(d);
	step_free(s);

	/* rates */
	{
		struct step_target_result x = { .name = "exceptions:page_fault_user" };

		x.rate[COND_REF] = 12100;
		x.rate[COND_LOAD] = 48300;
		x.delta = 36200;
		x.q = 1e-40;
		x.significant = 1;
		step_result_line(&x, 1, buf, sizeof(buf));
		assert_string_equal(buf, "page_fault_user 12.1k/s \xe2\x86\x92 48.3k/s (+299%), q=1e-40");
	}
	assert_string_equal(step_fmt_ns(300000, buf, sizeof(buf)), "0.3 ms");
	assert_string_equal(step_fmt_ns(12e6, buf, sizeof(buf)), "12 ms");
	assert_string_equal(step_fmt_ns(850e3 / 1000 * 1000 / 1000 * 1000, buf, sizeof(buf)), "0.8 ms");
	assert_string_equal(step_fmt_rate(3.14, buf, sizeof(buf)), "3.1/s");
}

static void test_unvalidated_refused(void **state)
{
	memset(&F, 0, sizeof(F));
	struct step *s = pf_step(1);
	struct step_exec_opts o;
	char *cause = NULL;

	step_exec_opts_default(&o);
	o.no_bpf_stats = 1;
	o.ops = &fake_ops;
	for (unsigned i = 0; i < s->nresolved; i++)
		free(s->resolved[i]);
	free(s->resolved);
	s->resolved = NULL;
	s->nresolved = 0;
	assert_null(step_exec_new(s, &o, &cause));
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(cause, "not validated"));
	assert_int_equal(F.opens, 0);
	free(cause);
	step_free(s);
}

/* issue 13: the pre-flight line always gives the overhead: measured, or
 * without BPF statistics the events seen times the kind's cost */
static void test_preflight_line(void **state)
{
	struct step_preflight pf = { .ok = 1, .kind = STEP_COUNTS, .rate = 100000, .progs = 1,
				     .overhead_pct = 0.58 };
	char buf[256];

	(void)state;
	step_preflight_line(&pf, buf, sizeof(buf));
	assert_non_null(strstr(buf, "overhead ~0.58% of a CPU"));
	assert_null(strstr(buf, "estimated"));
	pf.overhead_estimated = 1;
	pf.overhead_pct = pf.rate * kind_event_cost_ns(STEP_COUNTS) / 1e9 * 100;
	step_preflight_line(&pf, buf, sizeof(buf));
	assert_non_null(strstr(buf, "overhead ~0.58% of a CPU (estimated: "));
	assert_non_null(strstr(buf, "x ~58 ns; no BPF statistics)"));
	for (int k = 0; k < STEP_KIND_N; k++)
		assert_true(kind_event_cost_ns(k) > 0);
	pf.ok = 0;
	pf.cause = "test cause";
	step_preflight_line(&pf, buf, sizeof(buf));
	assert_string_equal(buf, "does not attach: test cause");
}

/* A kind that can detach is held to its budget by a duty cycle, never
 * stopped while STEP_DUTY_MIN of a window would fit: every window is
 * measured, each for its attached part, and its rate per attached second
 * is the event rate. */
static void test_duty_cycle_holds_budget(void **state)
{
	struct step *s = pf_step(3);
	struct step_exec_info info;
	struct step_data *d;
	unsigned short_wins = 0;

	fake_use = &fake_duty_ops;
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = 1000;
	F.rate[COND_LOAD] = 50000;
	F.run_frac = 0.08;  /* 8% attached all the time: over the 5% budget */
	d = run_fake(s, 0, &info);
	assert_non_null(d);
	assert_int_equal(info.state, STEP_EXEC_DONE);
	assert_string_equal(info.reason, "");
	assert_int_equal(d->nwin, 6);
	assert_true(fabs(info.duty - 0.9 * 5 / 8) < 0.02);
	assert_true(info.duty_start == 1);
	assert_non_null(strstr(info.duty_note, "over the 5% budget"));
	assert_true(fabs(info.attached_pct - 8) < 0.5);
	/* the average over the run, detached parts included, within budget
	 * (the first second ran attached all of it before the guard knew) */
	assert_true(info.overhead_pct < 5.5);
	assert_true(F.pauses > 0 && F.resumes > 0);
	for (unsigned w = 0; w < d->nwin; w++) {
		double secs = d->prof->wins[w].secs;
		double rate = step_data_target(d, w, 0)->events / secs;
		double want = F.rate[d->prof->wins[w].cond];

		assert_true(secs > 0 && secs <= info.window_s + 0.02);
		assert_true(fabs(rate - want) <= 0.05 * want + 50);
		if (secs < info.window_s * 0.7)
			short_wins++;
	}
	assert_true(short_wins >= 3);   /* the duty shows in the windows' length */
	step_data_free(d);

	/* the step's own duty, under the budget: kept, no note of a change */
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 1000;
	F.run_frac = 0.04;
	s->duty = 0.5;
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_DONE);
	assert_true(info.duty == 0.5 && info.duty_start == 0.5);
	for (unsigned w = 0; w < d->nwin; w++)
		assert_true(fabs(d->prof->wins[w].secs - 0.5 * info.window_s) < 0.02);
	/* 4% while attached, attached half of each window (settles detached) */
	assert_true(info.overhead_pct > 1.2 && info.overhead_pct < 2.1);
	step_data_free(d);
	s->duty = 0;

	/* a runaway (60%) is cut to what fits at once, not stopped */
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 1000;
	F.run_frac = 0.6;
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_DONE);
	assert_true(info.duty < 0.1 && info.duty >= STEP_DUTY_MIN);
	assert_int_equal(d->nwin, 6);
	step_data_free(d);

	/* beyond what STEP_DUTY_MIN could hold: stopped, and it says so */
	memset(&F, 0, sizeof(F));
	F.rate[COND_REF] = F.rate[COND_LOAD] = 1000;
	F.run_frac = 2.0;
	d = run_fake(s, 0, &info);
	assert_int_equal(info.state, STEP_EXEC_OVER_BUDGET);
	assert_non_null(strstr(info.reason, "even attached 5% of each window"));
	step_data_free(d);
	step_free(s);
	fake_use = &fake_ops;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_windows_alternate_settle_discarded),
		cmocka_unit_test(test_guard_trips),
		cmocka_unit_test(test_duty_cycle_holds_budget),
		cmocka_unit_test(test_preflight_line),
		cmocka_unit_test(test_merge_matching_path),
		cmocka_unit_test(test_merge_new_path),
		cmocka_unit_test(test_latency_and_words),
		cmocka_unit_test(test_unvalidated_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
