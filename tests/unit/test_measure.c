/* test_measure — the alternating-window source with a fake sampler: the
 * window plan, settle samples dropped, the load paused in reference windows
 * and resumed at the end, the saved-reference plan, the failure test hook. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/load.h"
#include "measure/measure.h"
#include "host/reference.h"

/* The fake: every collect adds one stack with `per_collect` samples, whose
 * leaf says the condition of the window it went to; settle collects go to a
 * scratch profile (a different struct profile). */
struct fake {
	struct profile *main;     /* learnt from the first window collect */
	unsigned collects, adds, closed;
	uint32_t tgids[8];
	unsigned ntgids;
};

static int fake_add_tgid(void *ctx, uint32_t tgid)
{
	struct fake *f = ctx;

	if (f->ntgids < 8)
		f->tgids[f->ntgids++] = tgid;
	return 0;
}

static int64_t fake_collect(void *ctx, struct profile *p, unsigned win)
{
	struct fake *f = ctx;
	const char *frames[2] = { "do_syscall_64", NULL };

	f->collects++;
	frames[1] = p->wins[win].cond == COND_REF ? "ref_leaf" : "load_leaf";
	if (profile_add(p, win, frames, 2, 1, "x", 10) < 0)
		return -ENOMEM;
	f->adds += 10;
	return 10;
}

static void fake_close(void *ctx)
{
	((struct fake *)ctx)->closed++;
}

/* 3 more stacks lost at every collect: what a window's collect finds is
 * its loss, a settle time's is not */
static void fake_counters(void *ctx, uint64_t *dropped, uint64_t *lost, uint64_t *ustack_errors)
{
	*dropped = 3 * (uint64_t)((struct fake *)ctx)->collects;
	*lost = 0;
	*ustack_errors = 2 * (uint64_t)((struct fake *)ctx)->collects;
}

static const struct measure_sampler fake_ops = {
	.add_tgid = fake_add_tgid,
	.collect = fake_collect,
	.close = fake_close,
};

static uint64_t count_of(const struct profile *p, unsigned w, const char *leaf)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		if (!strcmp(p->stacks[i].frames[p->stacks[i].nframes - 1], leaf))
			n += p->stacks[i].win[w];
	return n;
}

/* Ticks at `now` until the phase changes; returns the new phase. */
static enum source_phase run_until_change(struct source *s, double *now)
{
	struct source_status st0, st;

	s->ops->status(s, &st0);
	for (int i = 0; i < 1000; i++) {
		char *cause = NULL;
		int err;

		*now += 0.05;
		err = s->ops->tick(s, *now, &cause);
		if (err < 0)
			fail_msg("tick failed: %s", cause ? cause : "?");
		s->ops->status(s, &st);
		if (st.phase != st0.phase)
			return st.phase;
	}
	fail_msg("no phase change");
	return SOURCE_DONE;
}

static void test_alternating_plan(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct source_status st;
	struct source *s;
	const struct profile *p;
	struct load *l;
	double now = 100;
	char *cause = NULL;
	int noexec = 0;
	pid_t pid;
	enum cond want[] = { COND_REF, COND_LOAD, COND_REF, COND_LOAD };

	(void)state;
	smp.ctx = &f;
	measure_opts_default(&o);
	o.pairs = 2;
	o.window_s = 0.5;
	o.settle_s = 0.2;
	o.warmup_s = 0; /* the start-up before the first window: test_warmup */
	o.collect_s = -1;
	o.load_argv = argv;
	o.sampler = &smp;
	s = measure_new(&o, &noexec, &cause);
	assert_non_null(s);
	assert_null(cause);
	l = measure_load(s);
	assert_non_null(l);
	assert_false(load_started(l));
	s->ops->status(s, &st);
	assert_int_equal(st.phase, SOURCE_STARTING);
	assert_int_equal(st.nwindows, 4);
	/* The first tick starts the settle time of the first (reference) window:
	 * the load has not started. */
	assert_int_equal(s->ops->tick(s, now, &cause), 0);
	s->ops->status(s, &st);
	assert_int_equal(st.phase, SOURCE_SETTLING);
	for (unsigned w = 0; w < 4; w++) {
		enum source_phase ph = run_until_change(s, &now);

		assert_int_equal(ph, want[w] == COND_REF ? SOURCE_REF : SOURCE_LOAD);
		s->ops->status(s, &st);
		assert_int_equal(st.window, w);
		assert_true(st.phase_left_s > 0 && st.phase_left_s <= 0.5);
		if (want[w] == COND_REF && w > 0)
			assert_true(load_paused(l));
		if (want[w] == COND_REF && w == 0)
			assert_false(load_started(l));
		if (want[w] == COND_LOAD) {
			assert_true(load_started(l));
			assert_false(load_paused(l));
		}
		ph = run_until_change(s, &now);
		assert_int_equal(ph, w == 3 ? SOURCE_DONE : SOURCE_SETTLING);
	}
	/* Done: nothing is left paused. */
	assert_false(load_paused(l));
	assert_true(load_alive(l));
	p = s->ops->profile(s);
	assert_int_equal(p->nwin, 4);
	for (unsigned w = 0; w < 4; w++) {
		assert_int_equal(p->wins[w].cond, want[w]);
		assert_true(p->wins[w].secs >= 0.5 && p->wins[w].secs < 0.6);
		/* one collect per window (batch), the settle ones dropped */
		assert_int_equal(count_of(p, w, want[w] == COND_REF ? "ref_leaf" : "load_leaf"), 10);
		assert_int_equal(count_of(p, w, want[w] == COND_REF ? "load_leaf" : "ref_leaf"), 0);
	}
	assert_int_equal(profile_cond_samples(p, COND_REF) + profile_cond_samples(p, COND_LOAD), 40);
	assert_int_equal(f.adds, 80); /* 4 windows + 4 settle times */
	pid = load_pid(l);
	source_free(s);
	assert_int_equal(f.closed, 1);
	assert_int_equal(kill(pid, 0), -1); /* the load was ended */
}

/* A started load first runs its start-up, unmeasured: started and not
 * paused in the first settle time, which lasts until nothing new has
 * started in it for MEASURE_WARMUP_QUIET_S (a lone sleep: soon, well before
 * --warmup's cap); then it is paused for the first reference window, and
 * no sample of the start-up is in any window. */
static void test_warmup(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct source_status st;
	struct source *s;
	struct load *l;
	double now = 100, t0 = 100;
	char *cause = NULL;

	(void)state;
	smp.ctx = &f;
	measure_opts_default(&o);
	o.pairs = 1;
	o.window_s = 0.5;
	o.settle_s = 0.2;
	o.warmup_s = 5;
	o.collect_s = -1;
	o.load_argv = argv;
	o.sampler = &smp;
	s = measure_new(&o, NULL, &cause);
	assert_non_null(s);
	l = measure_load(s);
	assert_int_equal(s->ops->tick(s, now, &cause), 0);
	s->ops->status(s, &st);
	assert_int_equal(st.phase, SOURCE_SETTLING);
	assert_true(load_started(l));
	assert_false(load_paused(l));
	/* the start-up, then the reference window's settle, then the window */
	assert_int_equal(run_until_change(s, &now), SOURCE_REF);
	assert_true(load_paused(l));
	assert_true(now - t0 >= MEASURE_WARMUP_QUIET_S + o.settle_s);
	assert_true(now - t0 < o.warmup_s);
	assert_int_equal(run_until_change(s, &now), SOURCE_SETTLING);
	assert_int_equal(run_until_change(s, &now), SOURCE_LOAD);
	assert_false(load_paused(l));
	assert_int_equal(run_until_change(s, &now), SOURCE_DONE);
	assert_int_equal(s->ops->profile(s)->nwin, 2);
	/* one collect a window: the start-up's and settles' samples dropped */
	assert_int_equal(profile_cond_samples(s->ops->profile(s), COND_REF) +
			 profile_cond_samples(s->ops->profile(s), COND_LOAD), 20);
	source_free(s);
}

static void test_victim_filter_and_background(void **state)
{
	char *load[] = { "sleep", "30", NULL };
	char *victim[] = { "sleep", "31", NULL };
	char *bg[] = { "sleep", "32", NULL };
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct source *s;
	char *cause = NULL;

	(void)state;
	smp.ctx = &f;
	measure_opts_default(&o);
	o.load_argv = load;
	o.victim_argv = victim;
	o.background_argv = bg;
	o.sampler = &smp;
	s = measure_new(&o, NULL, &cause);
	assert_non_null(s);
	assert_int_equal(f.ntgids, 1);
	assert_int_equal(f.tgids[0], (uint32_t)load_pid(measure_victim(s)));
	assert_true(load_started(measure_victim(s)));   /* runs in both conditions */
	assert_false(load_started(measure_load(s)));    /* waits for the first L window */
	source_free(s);
	assert_int_equal(f.closed, 1);
}

static void test_bad_options(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	char *missing[] = { "argus-no-such-load", NULL };
	struct measure_opts o;
	char *cause = NULL;
	int noexec = 0;

	(void)state;
	measure_opts_default(&o);
	assert_null(measure_new(&o, &noexec, &cause));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(cause, "nothing to compare: give the load with --load CMD, -- CMD or -p PID");
	free(cause);
	cause = NULL;
	o.load_argv = argv;
	o.pid = 1;
	assert_null(measure_new(&o, &noexec, &cause));
	free(cause);
	cause = NULL;
	o.pid = 0;
	o.load_argv = missing;
	assert_null(measure_new(&o, &noexec, &cause));
	assert_int_equal(noexec, 1);
	assert_string_equal(cause, "cannot run 'argus-no-such-load': No such file or directory");
	free(cause);
}

static void test_fail_after_hook(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct source *s;
	char *cause = NULL;
	double now = 0;
	int err = 0;
	pid_t pid;

	(void)state;
	smp.ctx = &f;
	measure_opts_default(&o);
	o.window_s = 0.2;
	o.settle_s = 0.1;
	o.load_argv = argv;
	o.sampler = &smp;
	setenv("ARGUS_TEST_FAIL_AFTER", "window:3", 1);
	s = measure_new(&o, NULL, &cause);
	unsetenv("ARGUS_TEST_FAIL_AFTER");
	assert_non_null(s);
	pid = load_pid(measure_load(s));
	for (int i = 0; i < 1000 && err >= 0; i++) {
		now += 0.05;
		err = s->ops->tick(s, now, &cause);
	}
	assert_int_equal(err, -EIO);
	assert_string_equal(cause, "test hook ARGUS_TEST_FAIL_AFTER: failing after window 3");
	assert_true(load_paused(measure_load(s))); /* window 3 is a reference */
	free(cause);
	source_free(s);
	assert_int_equal(kill(pid, 0), -1);
}

static void test_saved_reference_plan(void **state)
{
	struct reference_meta meta;
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct profile *ref;
	struct source *s;
	struct source_status st;
	const struct profile *p;
	const char *frames[] = { "do_syscall_64", "idle_thing" };
	char path[] = "/tmp/argus-test-ref.XXXXXX", ps[64];
	char *cause = NULL;
	double now = 0;
	pid_t child;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	ref = profile_new();
	for (unsigned w = 0; w < 2; w++) {
		assert_int_equal(profile_window_begin(ref, COND_REF, w), (int)w);
		profile_window_end(ref, w, 1.0);
		assert_int_equal(profile_add(ref, w, frames, 2, 5, "kworker", 7), 0);
	}
	reference_meta_here(&meta, measure_probe_set(999, ps, sizeof(ps)), 999);
	assert_int_equal(reference_save(ref, &meta, path, &cause), 0);
	profile_free(ref);

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	smp.ctx = &f;
	measure_opts_default(&o);
	o.pairs = 2;
	o.window_s = 0.2;
	o.pid = child;
	o.reference_path = path;
	o.sampler = &smp;
	s = measure_new(&o, NULL, &cause);
	assert_non_null(s);
	assert_null(measure_load(s)); /* nothing is paused */
	s->ops->status(s, &st);
	assert_int_equal(st.nwindows, 2);
	do {
		now += 0.05;
		assert_true(s->ops->tick(s, now, &cause) >= 0);
		s->ops->status(s, &st);
	} while (st.phase != SOURCE_DONE);
	p = s->ops->profile(s);
	assert_int_equal(p->nwin, 4);
	assert_int_equal(p->wins[0].cond, COND_REF);
	assert_int_equal(p->wins[1].cond, COND_REF);
	assert_int_equal(p->wins[2].cond, COND_LOAD);
	assert_int_equal(p->wins[3].cond, COND_LOAD);
	assert_int_equal(profile_cond_samples(p, COND_REF), 14);
	source_free(s);
	assert_int_equal(kill(child, 0), 0); /* never killed */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	unlink(path);
}

/* Issue 13 item 5: the dropped count is the windows' lost (settle times'
 * losses go with their samples), the sampler closes when measuring is
 * done (nothing is lost after), and the clock runs on. */
static void test_lost_per_window(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct fake f = { 0 };
	struct measure_sampler smp = fake_ops;
	struct measure_opts o;
	struct source_status st;
	struct source *s;
	const struct profile *p;
	double now = 100, done_elapsed;
	char *cause = NULL;

	(void)state;
	smp.ctx = &f;
	smp.counters = fake_counters;
	measure_opts_default(&o);
	o.pairs = 2;
	o.window_s = 0.5;
	o.settle_s = 0.2;
	o.collect_s = -1;
	o.load_argv = argv;
	o.sampler = &smp;
	s = measure_new(&o, NULL, &cause);
	assert_non_null(s);
	assert_int_equal(s->ops->tick(s, now, &cause), 0);
	while (run_until_change(s, &now) != SOURCE_DONE) {
		s->ops->status(s, &st);
		assert_int_equal(st.dropped, profile_lost(s->ops->profile(s)));
	}
	p = s->ops->profile(s);
	assert_int_equal(p->nwin, 4);
	for (unsigned w = 0; w < 4; w++)
		assert_int_equal(p->wins[w].lost, 3);
	s->ops->status(s, &st);
	assert_int_equal(st.dropped, 12);          /* not 24: the settle times' too */
	assert_int_equal(f.closed, 1);             /* sampling stopped at done */
	assert_int_equal(st.probes, 0);
	done_elapsed = st.elapsed_s;
	now += 5;
	assert_int_equal(s->ops->tick(s, now, &cause), 0);
	s->ops->status(s, &st);
	assert_int_equal(st.dropped, 12);
	assert_true(st.elapsed_s >= done_elapsed + 4.9); /* the clock runs on */
	assert_true(measure_elapsed(s) <= done_elapsed + 1e-9);
	source_free(s);
	assert_int_equal(f.closed, 1);             /* closed once */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alternating_plan),
		cmocka_unit_test(test_warmup),
		cmocka_unit_test(test_victim_filter_and_background),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_fail_after_hook),
		cmocka_unit_test(test_saved_reference_plan),
		cmocka_unit_test(test_lost_per_window),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
