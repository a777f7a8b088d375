/* The scheduler-time duty cycle (core/schedtime_duty): the length-bias
 * weight, its use on a snapshot, a simulation showing the weighted count of
 * intervals seen whole within on-phases is unbiased where the raw one is
 * not, and the controller driven with made-up costs: the attached fraction
 * budget / cost, the average cost within the budget (at every moment:
 * phases dear at first paid back), on-phases no shorter
 * than the minimum and never over a window read, f following a change of
 * the load, and no duty cycle while the cost is within the budget. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probe/probe_schedtime.h"
#include "probe/schedtime_duty.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void test_weight(void **state)
{
	double ph[] = { 0.1, 0.1 }, one[] = { 0.2 };

	(void)state;
	NEAR(schedtime_duty_weight(NULL, 0, 0.5), 1, 1e-12);        /* no phases: as counted */
	NEAR(schedtime_duty_weight(ph, 2, 0), 1, 1e-12);
	NEAR(schedtime_duty_weight(ph, 2, 0.01), 0.2 / 0.18, 1e-12); /* (D - L) / D per phase */
	NEAR(schedtime_duty_weight(one, 1, 0.05), 0.2 / 0.15, 1e-12);
	/* near or over the phase: capped (those are what no weight sees) */
	NEAR(schedtime_duty_weight(ph, 2, 0.099), SCHEDTIME_DUTY_MAX_WEIGHT, 1e-12);
	NEAR(schedtime_duty_weight(ph, 2, 0.5), SCHEDTIME_DUTY_MAX_WEIGHT, 1e-12);
}

/* Intervals of one length, starting as a Poisson process; the ones that
 * begin and end inside an on-phase are seen.  Their weighted count per
 * attached second estimates the rate; unweighted, it is short by L / D. */
static void test_unbiased(void **state)
{
	const double P = 0.5, D = 0.1, L = 0.02, rate = 2000, T = 600;
	double t = 0, seen = 0, w, ph[1] = { D };
	unsigned long long total = 0;

	(void)state;
	srand48(7);
	while (t < T) {
		double k = floor(t / P), off = t - k * P;

		t += -log(1 - drand48()) / rate;
		total++;
		if (off + L <= D)
			seen++;
	}
	w = schedtime_duty_weight(ph, 1, L);
	/* per attached second: T * D / P of it */
	NEAR(seen / (T * D / P) / rate, 1 - L / D, 0.01);   /* the bias, 20% */
	NEAR(seen * w / (T * D / P) / rate, 1, 0.01);       /* corrected */
	assert_true(total > 1000000);
}

static void test_reweight(void **state)
{
	struct probe_schedtime_entry e[4];
	struct probe_schedtime_snap s = { .e = e, .n = 4, .nphases = 2, .phase_s = { 0.1, 0.1 } };
	int b = 23; /* 2^23 ns = 8.4 ms: mean length 12.1 ms */
	double wl = schedtime_duty_weight(s.phase_s, 2, ldexp(1, b) / M_LN2 / 1e9);

	(void)state;
	memset(e, 0, sizeof(e));
	/* a blocked key: 1000 short blocks (1 us) and 100 of ~12 ms */
	e[0].key.kind = SCHEDTIME_BLOCKED;
	e[0].key.other_kind = SCHEDTIME_OTHER_TASK;
	e[0].val.hist[10] = 1000;
	e[0].val.hist[b] = 100;
	e[0].val.count = 1100;
	e[0].val.total_ns = 1000 * 1024 + 100 * 12100000ull;
	/* the on-CPU time and a pending part are exact: untouched */
	e[1] = e[0];
	e[1].key.kind = SCHEDTIME_ONCPU;
	e[2] = e[0];
	e[2].key.other_kind = SCHEDTIME_OTHER_PENDING;
	/* a think time: 100 sleeps of 10 ms, all in one bucket: weighted by
	 * their own length, (0.2 - 0.02) / 0.2 seen */
	memset(&e[3], 0, sizeof(e[3]));
	e[3].key.kind = SCHEDTIME_BLOCKED;
	e[3].val.hist[23] = 100;
	e[3].val.count = 100;
	e[3].val.total_ns = 100 * 10000000ull;
	schedtime_duty_reweight(&s);
	assert_int_equal(e[3].val.count, 111);
	NEAR((double)e[3].val.total_ns, 100 * 10000000.0 / 0.9, 1e3);
	assert_true(wl > 1.1 && wl < 1.2);
	assert_int_equal(e[0].val.hist[b], (uint64_t)llround(100 * wl));
	assert_true(e[0].val.hist[10] == 1000); /* weight ~1.00001 */
	NEAR((double)e[0].val.count, 1000 + 100 * wl, 1.5);
	/* the time is nearly all the long blocks' */
	NEAR((double)e[0].val.total_ns / (1000 * 1024 + 100 * 12100000.0), wl, 0.01);
	assert_int_equal(e[1].val.count, 1100);
	assert_int_equal(e[1].val.hist[b], 100);
	assert_int_equal(e[2].val.total_ns, 1000 * 1024 + 100 * 12100000ull);
}

/* Drives the controller every 10 ms for secs: the probe costs cost_pct(t)
 * of a CPU while attached.  Checks that each window read (every second)
 * finds it detached once it cycles, and the on-phases' lengths. */
struct sim {
	double attached_s, cost_ns, min_phase, last_cost_on;
	double max_avg_pct;     /* the highest average cost since the start,
	                         * % of a CPU, after the first 2 s */
	unsigned attaches, reads_attached;
};

static void sim_run(struct schedtime_duty *d, double t0, double secs, double (*cost_pct)(double),
		    struct sim *s)
{
	double on_t0 = t0, dt = 0.01;
	int att = 1;

	for (double t = t0 + dt; t <= t0 + secs + 1e-9; t += dt) {
		enum schedtime_duty_act a;

		if (att) {
			s->attached_s += dt;
			s->cost_ns += cost_pct(t) / 100 * dt * 1e9;
		}
		/* a read at each whole second, before the tick */
		if (fabs(t - t0 - round(t - t0)) < dt / 2 && att && d->engaged)
			s->reads_attached++;
		a = schedtime_duty_tick(d, t, s->cost_ns);
		if (a == SCHEDTIME_DUTY_DETACH) {
			assert_true(att);
			att = 0;
			if (t - on_t0 < s->min_phase)
				s->min_phase = t - on_t0;
		} else if (a == SCHEDTIME_DUTY_ATTACH) {
			assert_false(att);
			att = 1;
			on_t0 = t;
			s->attaches++;
		}
		assert_int_equal(att, d->attached);
		assert_true(schedtime_duty_next(d) > t - dt);
		if (t - t0 >= 2 && s->cost_ns / ((t - t0) * 1e9) * 100 > s->max_avg_pct)
			s->max_avg_pct = s->cost_ns / ((t - t0) * 1e9) * 100;
	}
}

static double cost14(double t)
{
	(void)t;
	return 14;
}

static double cost3(double t)
{
	(void)t;
	return 3;
}

static double cost_step(double t)
{
	return t < 30 ? 14 : 28;
}

/* expensive at first (a load's warm-up), then much less */
static double cost_falls(double t)
{
	return t < 1 ? 26 : 9;
}

static void test_controller(void **state)
{
	struct schedtime_duty_opts o = { .budget_pct = 5, .window_s = 1 };
	struct schedtime_duty d;
	struct sim s = { .min_phase = 1e9 };

	(void)state;
	schedtime_duty_init(&d, &o, 0);
	NEAR(d.o.period_s, 0.5, 1e-12);
	sim_run(&d, 0, 60, cost14, &s);
	assert_true(d.engaged);
	NEAR(schedtime_duty_fraction(&d, 60), SCHEDTIME_DUTY_AIM * 5.0 / 14, 0.02);
	NEAR(schedtime_duty_fraction(&d, 60), s.attached_s / 60, 0.02);
	assert_true(schedtime_duty_cost_pct(&d, 60) <= 5 * SCHEDTIME_DUTY_AIM * 1.01);
	NEAR(schedtime_duty_cost_on_pct(&d, 60), 14, 0.3);
	NEAR(d.f, SCHEDTIME_DUTY_AIM * 5.0 / 14, 0.01);
	assert_true(s.min_phase >= SCHEDTIME_DUTY_MIN_ON_S - 0.011);
	assert_int_equal(s.reads_attached, 0);
	assert_true(s.attaches >= 100); /* one on-phase a period */
	/* within the aim at every moment, not only at the periods' ends */
	assert_true(s.max_avg_pct <= 5 * SCHEDTIME_DUTY_AIM * 1.01);

	/* dear phases early are paid back: the average holds the budget at
	 * every moment, wherever the run ends (the on-phases come at the
	 * ends of their periods) */
	memset(&s, 0, sizeof(s));
	s.min_phase = 1e9;
	schedtime_duty_init(&d, &o, 0);
	sim_run(&d, 0, 5.3, cost_falls, &s);
	assert_true(s.max_avg_pct <= 5 * SCHEDTIME_DUTY_AIM * 1.01);
	NEAR(d.f, SCHEDTIME_DUTY_AIM * 5.0 / 9, 0.02);

	/* the load doubles its switching: f halves */
	memset(&s, 0, sizeof(s));
	s.min_phase = 1e9;
	schedtime_duty_init(&d, &o, 100);
	sim_run(&d, 100, 60, cost_step, &s);
	NEAR(d.f, SCHEDTIME_DUTY_AIM * 5.0 / 28, 0.01);
	assert_true(schedtime_duty_cost_pct(&d, 160) <= 5 * 1.01);
	assert_int_equal(s.reads_attached, 0);
	/* the doubling costs one phase twice its plan, soon paid back */
	assert_true(s.max_avg_pct <= 5 * 1.01);

	/* so costly that f * period < the minimum phase: phases of the
	 * minimum, in some periods only; the mean still holds */
	{
		memset(&s, 0, sizeof(s));
		s.min_phase = 1e9;
		o.budget_pct = 1;
		schedtime_duty_init(&d, &o, 0);
		sim_run(&d, 0, 120, cost14, &s);
		NEAR(schedtime_duty_fraction(&d, 120), SCHEDTIME_DUTY_AIM * 1.0 / 14, 0.01);
		assert_true(schedtime_duty_cost_pct(&d, 120) <= 1 * 1.02);
		assert_true(s.min_phase >= SCHEDTIME_DUTY_MIN_ON_S - 0.011);
		assert_true(s.attaches < 240); /* not every period */
	}
}

/* A key of zero-length intervals (a runnable wait split at a read) kept
 * its time: 0 over a bucket mean of 0 made it 2^63 ns once (a victim's
 * window of 10^13 samples a second). */
static void test_reweight_zero(void **state)
{
	struct probe_schedtime_entry e[1];
	struct probe_schedtime_snap s = { .e = e, .n = 1, .nphases = 2, .phase_s = { 0.05, 0.05 } };

	(void)state;
	memset(e, 0, sizeof(e));
	e[0].key.kind = SCHEDTIME_RUNNABLE;
	e[0].key.other_kind = SCHEDTIME_OTHER_TASK;
	e[0].val.count = 1;
	e[0].val.hist[0] = 1;
	schedtime_duty_reweight(&s);
	assert_int_equal(e[0].val.total_ns, 0);
	assert_int_equal(e[0].val.count, 1);
}

/* The caller's periods (measurement windows of 0.25 to 1 s with settle
 * times between them, core/model/timeacct.c): every window gets an
 * on-phase, of at least the minimum even where the budget allows less
 * (a window not seen at all has no blocked or runnable time), ended
 * before its read; the average cost holds the budget where it can. */
static void test_caller_periods(void **state)
{
	static const double len[] = { 0.5, 0.5, 1.0, 1.0, 0.25, 0.25, 0.7, 0.7, 1.0, 1.0, 0.3, 0.3 };
	struct schedtime_duty_opts o = { .budget_pct = 5, .window_s = 0.5 };
	double budgets[] = { 5, 1 };

	(void)state;
	for (int bi = 0; bi < 2; bi++) {
		struct schedtime_duty d;
		double t = 0, dt = 0.005, cost = 0, att_in = 0;
		int att = 1;

		o.budget_pct = budgets[bi];
		schedtime_duty_init(&d, &o, 0);
		for (int rep = 0; rep < 5; rep++)
			for (unsigned w = 0; w < sizeof(len) / sizeof(len[0]); w++) {
				double start = t + 0.1, end = start + len[w];

				schedtime_duty_period(&d, start, len[w], t);
				att_in = 0;
				for (; t < end - 1e-9; t += dt) {
					if (att) {
						cost += 0.14 * dt * 1e9; /* 14% of a CPU attached */
						if (t >= start)
							att_in += dt;
					}
					enum schedtime_duty_act a = schedtime_duty_tick(&d, t + dt, cost);

					if (a == SCHEDTIME_DUTY_ATTACH)
						att = 1;
					else if (a == SCHEDTIME_DUTY_DETACH)
						att = 0;
				}
				/* the read: detached, after a phase in the window */
				assert_false(att);
				assert_true(att_in >= SCHEDTIME_DUTY_MIN_ON_S - 2 * dt);
			}
		if (bi == 0) /* affordable: within the aim on average */
			assert_true(cost / (t * 1e9) * 100 <= 5 * 1.02);
		else /* the minimum phase every window is over 1%: said, not hidden */
			assert_true(d.phases >= 60);
	}
}

static void test_within_budget(void **state)
{
	struct schedtime_duty_opts o = { .budget_pct = 5, .window_s = 1 };
	struct schedtime_duty d;
	struct sim s = { .min_phase = 1e9 };

	(void)state;
	schedtime_duty_init(&d, &o, 0);
	sim_run(&d, 0, 20, cost3, &s);
	assert_false(d.engaged);
	assert_int_equal(d.phases, 0);
	NEAR(schedtime_duty_fraction(&d, 20), 1, 1e-9);
	NEAR(schedtime_duty_cost_pct(&d, 20), 3, 0.05);
	/* a period that does not divide the window is made to */
	o.window_s = 1.2;
	schedtime_duty_init(&d, &o, 0);
	NEAR(d.o.period_s, 0.6, 1e-12);
	o.window_s = 0.3;
	schedtime_duty_init(&d, &o, 0);
	NEAR(d.o.period_s, 0.3, 1e-12);
	assert_true(d.o.min_on_s <= 0.3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weight),
		cmocka_unit_test(test_unbiased),
		cmocka_unit_test(test_reweight),
		cmocka_unit_test(test_controller),
		cmocka_unit_test(test_within_budget),
		cmocka_unit_test(test_reweight_zero),
		cmocka_unit_test(test_caller_periods),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
