/* seqtest: the anytime-valid test of two Poisson rates.  Exact properties
 * (no data, symmetry, strong evidence, windows of different lengths) and,
 * by simulation with a fixed seed, the property it exists for: looking
 * after every pair up to 12 times, a node without a true change is called
 * significant in at most alpha of the runs, while the fixed-sample p-value
 * reused at every look is not (it would be "significant" far more often). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/stats.h"
#include "base/seqtest.h"
#include "seqsim.h"

#define LOOKS 12

static struct seqtest *equal_windows(unsigned n, double a, double b)
{
	double ra[LOOKS], lb[LOOKS];

	for (unsigned i = 0; i < n; i++) {
		ra[i] = a;
		lb[i] = b;
	}
	return seqtest_new(ra, lb, n);
}

static void test_no_data(void **state)
{
	struct seqtest *s = equal_windows(3, 0.5, 0.5);
	uint64_t z[3] = { 0 };

	(void)state;
	assert_non_null(s);
	assert_null(seqtest_new(NULL, NULL, 0));
	assert_int_equal(seqtest_pairs(s), 3);
	assert_true(seqtest_log_e(s, z, z, 3) == 0);
	assert_true(seqtest_p_of(0) == 1.0);
	assert_true(seqtest_p_of(-3) == 1.0);
	seqtest_free(s);
	seqtest_free(NULL);
}

static void test_symmetric_and_monotone(void **state)
{
	struct seqtest *s = equal_windows(2, 0.5, 0.5);
	uint64_t a[2] = { 100, 110 }, b[2] = { 200, 190 }, c[2] = { 300, 290 };
	double e1, e2, e3;

	(void)state;
	e1 = seqtest_log_e(s, a, b, 2);
	e2 = seqtest_log_e(s, b, a, 2);
	assert_true(fabs(e1 - e2) < 1e-9);       /* a rise and a fall weigh the same */
	e3 = seqtest_log_e(s, a, c, 2);
	assert_true(e3 > e1);                      /* more change, more evidence */
	assert_true(seqtest_p_of(e1) < 1e-6);      /* 2x over ~600 samples */
	/* the same counts over one pair give less evidence per look than the
	 * fixed test's p, never more: the price of looking at will */
	assert_true(seqtest_p_of(e1) >= stats_poisson_p(210, 1, 390, 1));
	seqtest_free(s);
}

static void test_new_node(void **state)
{
	struct seqtest *s = equal_windows(1, 0.5, 0.5);
	uint64_t r[1] = { 0 }, l[1] = { 40 }, l5[1] = { 3 };

	(void)state;
	assert_true(seqtest_p_of(seqtest_log_e(s, r, l, 1)) < 1e-6);
	assert_true(seqtest_p_of(seqtest_log_e(s, r, l5, 1)) > 0.05);
	seqtest_free(s);
}

/* exposure enters exactly: 2 s of reference at the rate of 1 s loaded is
 * no change, and the same counts over equal windows are */
static void test_exposure(void **state)
{
	struct seqtest *s = equal_windows(2, 2.0, 1.0), *e = equal_windows(2, 1.0, 1.0);
	uint64_t r[2] = { 400, 400 }, l[2] = { 200, 200 };

	(void)state;
	assert_true(seqtest_p_of(seqtest_log_e(s, r, l, 2)) == 1.0);
	assert_true(seqtest_p_of(seqtest_log_e(e, r, l, 2)) < 1e-10);
	seqtest_free(s);
	seqtest_free(e);
}

/* One node, rate lam in both conditions, windows of about 0.5 s with a
 * jitter, LOOKS looks: the fraction of runs significant at any look, for the
 * anytime-valid p and for the fixed-sample p of the cumulative counts. */
static void simulate(double lam, unsigned runs, uint64_t seed, double *seq_rate,
		     double *fixed_rate, double *mean_e)
{
	struct sim_rng rng = { seed };
	unsigned seq_hits = 0, fixed_hits = 0;
	double esum = 0;

	for (unsigned run = 0; run < runs; run++) {
		double ra[LOOKS], lb[LOOKS], tr = 0, tl = 0;
		uint64_t r[LOOKS], l[LOOKS], kr = 0, kl = 0;
		struct seqtest *s;
		int seq_hit = 0, fixed_hit = 0;

		for (unsigned i = 0; i < LOOKS; i++) {
			ra[i] = 0.5 + 0.05 * sim_unif(&rng);
			lb[i] = 0.5 + 0.05 * sim_unif(&rng);
			r[i] = sim_poisson(&rng, lam * ra[i]);
			l[i] = sim_poisson(&rng, lam * lb[i]);
		}
		s = seqtest_new(ra, lb, LOOKS);
		assert_non_null(s);
		for (unsigned k = 1; k <= LOOKS; k++) {
			double le = seqtest_log_e(s, r, l, k);

			kr += r[k - 1];
			kl += l[k - 1];
			tr += ra[k - 1];
			tl += lb[k - 1];
			if (seqtest_p_of(le) <= 0.05)
				seq_hit = 1;
			if (stats_poisson_p(kr, tr, kl, tl) <= 0.05)
				fixed_hit = 1;
			if (k == LOOKS)
				esum += exp(le);
		}
		seqtest_free(s);
		seq_hits += seq_hit;
		fixed_hits += fixed_hit;
	}
	*seq_rate = (double)seq_hits / runs;
	*fixed_rate = (double)fixed_hits / runs;
	*mean_e = esum / runs;
}

static void test_false_alarm_over_looks(void **state)
{
	static const double lams[] = { 4, 40, 400, 2000 };

	(void)state;
	for (size_t i = 0; i < sizeof(lams) / sizeof(lams[0]); i++) {
		double seq, fixed, me;

		simulate(lams[i], 4000, 0x5eed0000u + i, &seq, &fixed, &me);
		printf("rate %6.0f/s, %d looks, 4000 runs: significant at any look: anytime-valid "
		       "%.2f%%, fixed-sample p reused %.2f%%; mean E at the last look %.3f\n",
		       lams[i], LOOKS, seq * 100, fixed * 100, me);
		/* Ville: at most alpha; the fixed p reused is well above it */
		assert_true(seq <= 0.05);
		assert_true(fixed > 0.08);
		/* E's mean is 1 (test_martingale), but its tail is heavy: the
		 * sample mean of 4000 falls below it */
		assert_true(me < 1.5);
	}
}

/* The property all of it rests on: under H0 one pair's E has expectation
 * exactly 1 given its total n, here summed over every outcome. */
static void test_martingale(void **state)
{
	static const struct { double a, b; uint64_t n; } c[] = {
		{ 0.5, 0.5, 1 }, { 0.5, 0.5, 20 }, { 0.5, 0.55, 137 }, { 2.0, 1.0, 60 }, { 0.3, 1.7, 400 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct seqtest *s = seqtest_new(&c[i].a, &c[i].b, 1);
		double th = c[i].b / (c[i].a + c[i].b), sum = 0;
		uint64_t n = c[i].n;

		for (uint64_t k = 0; k <= n; k++) {
			uint64_t r = n - k;
			double lp = lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(r + 1.0) +
				    k * log(th) + r * log1p(-th);

			sum += exp(lp + seqtest_log_e(s, &r, &k, 1));
		}
		if (fabs(sum - 1) > 1e-9)
			fail_msg("a=%g b=%g n=%llu: E[E] = %.12f, not 1", c[i].a, c[i].b,
				 (unsigned long long)n, sum);
		seqtest_free(s);
	}
}

/* Power: a 2x change in a node of 100 samples/s (50 a window) is found
 * within a few pairs. */
static void test_power(void **state)
{
	struct sim_rng rng = { 42 };
	unsigned found_by[LOOKS + 1] = { 0 }, runs = 1000, k;

	(void)state;
	for (unsigned run = 0; run < runs; run++) {
		double ra[LOOKS], lb[LOOKS];
		uint64_t r[LOOKS], l[LOOKS];
		struct seqtest *s;

		for (unsigned i = 0; i < LOOKS; i++) {
			ra[i] = lb[i] = 0.5;
			r[i] = sim_poisson(&rng, 100 * 0.5);
			l[i] = sim_poisson(&rng, 200 * 0.5);
		}
		s = seqtest_new(ra, lb, LOOKS);
		for (k = 1; k <= LOOKS; k++)
			if (seqtest_p_of(seqtest_log_e(s, r, l, k)) <= 0.05)
				break;
		found_by[k <= LOOKS ? k : 0]++;
		seqtest_free(s);
	}
	for (k = 2; k <= LOOKS; k++)
		found_by[k] += found_by[k - 1];
	printf("2x of 100/s: significant by pair 1: %.1f%%, 2: %.1f%%, 3: %.1f%%, 4: %.1f%%\n",
	       found_by[1] * 100.0 / runs, found_by[2] * 100.0 / runs, found_by[3] * 100.0 / runs,
	       found_by[4] * 100.0 / runs);
	assert_true(found_by[3] >= 0.9 * runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_data),
		cmocka_unit_test(test_symmetric_and_monotone),
		cmocka_unit_test(test_new_node),
		cmocka_unit_test(test_exposure),
		cmocka_unit_test(test_martingale),
		cmocka_unit_test(test_false_alarm_over_looks),
		cmocka_unit_test(test_power),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
