/* The statistics primitives (core/base/stats.h): the two-rate Poisson test
 * against exact values, Benjamini–Hochberg against a hand-computed example,
 * Mann–Whitney over grouped values against hand-worked ones. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "base/stats.h"

/* Exact two-sided p-values (minimum-likelihood rule, tolerance 1e-7),
 * computed with integer arithmetic by tests/unit/stats_ref.py. */
static const struct {
	uint64_t k1;
	double t1;
	uint64_t k2;
	double t2, p;
} known[] = {
	{ 0, 1, 10, 1, 1.9531250000e-3 },
	{ 5, 1, 5, 1, 1.0 },
	{ 3, 1, 12, 1, 3.5156250000e-2 },
	{ 12, 1, 3, 1, 3.5156250000e-2 },
	{ 10, 2, 30, 3, 5.4133233574e-2 },
	{ 100, 1, 150, 1, 1.8833009351e-3 },
	{ 7, 4, 2, 1, 1.0 },             /* two modes tie */
	{ 1, 1, 0, 1, 1.0 },
	{ 1000, 1, 1200, 1, 2.1817026408e-5 },
	{ 0, 1, 900, 1, 2.3661043723e-271 },
	{ 40, 3, 10, 1, 5.1412116567e-1 },
	{ 2, 1, 9, 5, 1.0 },
	{ 480, 1, 520, 1, 2.1744829320e-1 },
	{ 10, 1, 400, 1, 2.5686628339e-104 },
	{ 50, 1, 300, 1, 1.3871551206e-44 },
	{ 30, 7, 95, 3, 3.7886252487e-26 },
};

static void assert_rel(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol * fabs(want)))
		fail_msg("got %.12g, want %.12g (relative tolerance %g)", got, want, tol);
}

static void test_poisson_known(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double p = stats_poisson_p(known[i].k1, known[i].t1, known[i].k2, known[i].t2);

		assert_rel(p, known[i].p, 1e-8);
	}
	/* exactly 4.9587546011e-579: clamped to the floor, not 0 or NaN */
	assert_true(stats_poisson_p(10, 1, 2000, 1) == 1e-300);
}

static void test_poisson_symmetric(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		double a = stats_poisson_p(known[i].k1, known[i].t1, known[i].k2, known[i].t2);
		double b = stats_poisson_p(known[i].k2, known[i].t2, known[i].k1, known[i].t1);

		assert_rel(b, a, 1e-9);
	}
	/* equal counts over equal time: nothing to see */
	for (uint64_t k = 0; k < 2000; k += 97)
		assert_true(stats_poisson_p(k, 2.5, k, 2.5) > 1 - 1e-9);
	/* equal rates over unequal time */
	assert_true(stats_poisson_p(100, 1, 300, 3) > 0.9);
}

static void test_poisson_zero(void **state)
{
	(void)state;
	assert_true(stats_poisson_p(0, 1, 0, 1) == 1.0);
	assert_true(stats_poisson_p(10, 0, 5, 1) == 1.0);  /* no exposure: no test */
	assert_true(stats_poisson_p(10, 1, 5, -1) == 1.0);
	assert_true(stats_poisson_p(10, NAN, 5, 1) == 1.0);
	assert_rel(stats_poisson_p(10, 1, 0, 1), 1.9531250000e-3, 1e-12);
}

static void test_poisson_huge(void **state)
{
	double p;

	(void)state;
	/* exact summation over ~5e5 terms; the normal approximation with
	 * continuity correction gives 0.025352444696 here */
	p = stats_poisson_p(1000000000ull, 1, 1000100000ull, 1);
	assert_rel(p, 0.025352444696, 1e-4);
	/* beyond exact summation: the normal approximation */
	p = stats_poisson_p(1000000000000ull, 1, 1000003000000ull, 1);
	assert_rel(p, 0.033895046787, 1e-6);
	assert_true(stats_poisson_p(1000000000000ull, 1, 1000000000000ull, 1) == 1.0);
	/* far tails of huge counts: the floor, never NaN */
	p = stats_poisson_p(1000000000000000ull, 1, 2000000000000000ull, 1);
	assert_true(p == 1e-300);
	p = stats_poisson_p(UINT64_MAX / 4, 1, UINT64_MAX / 3, 1);
	assert_false(isnan(p));
	assert_true(p >= 1e-300 && p <= 1);
	p = stats_poisson_p(3, 1e-12, 1000, 1e12);
	assert_false(isnan(p));
	assert_true(p >= 1e-300 && p <= 1);
}

static void test_bh_hand(void **state)
{
	/* sorted: .005 .01 .03 .03 .04 .5  ->  p*6/rank: .03 .03 .06 .045 .048 .5
	 * -> running minimum from the top: .03 .03 .045 .045 .048 .5 */
	double p[] = { 0.01, 0.04, 0.03, 0.005, 0.5, 0.03 };
	double want[] = { 0.03, 0.048, 0.045, 0.03, 0.5, 0.045 };
	double q[6];

	(void)state;
	assert_int_equal(stats_bh_adjust(p, q, 6), 0);
	for (int i = 0; i < 6; i++)
		assert_rel(q[i], want[i], 1e-12);
	/* ties get one q; in place works */
	assert_true(q[2] == q[5]);
	assert_int_equal(stats_bh_adjust(p, p, 6), 0);
	for (int i = 0; i < 6; i++)
		assert_rel(p[i], want[i], 1e-12);
	/* capped at 1; NaN treated as 1; n = 0 is fine */
	{
		double a[] = { 0.9, NAN, 0.8 }, c[] = { 0.02, NAN, 0.01 }, b[3];

		assert_int_equal(stats_bh_adjust(a, b, 3), 0);   /* 2.4, 1.35, 1 -> 1 */
		assert_true(b[0] == 1.0 && b[1] == 1.0 && b[2] == 1.0);
		assert_int_equal(stats_bh_adjust(c, b, 3), 0);   /* .03 .03 1 */
		assert_rel(b[0], 0.03, 1e-12);
		assert_rel(b[2], 0.03, 1e-12);
		assert_true(b[1] == 1.0);
		assert_int_equal(stats_bh_adjust(a, b, 0), 0);
	}
}

static void test_bh_monotone(void **state)
{
	enum { N = 500 };
	double p[N], q[N];

	(void)state;
	srand(7);
	for (int i = 0; i < N; i++)
		p[i] = (i % 10 == 0) ? 1e-6 * (rand() % 5) : (double)rand() / RAND_MAX;
	assert_int_equal(stats_bh_adjust(p, q, N), 0);
	for (int i = 0; i < N; i++) {
		assert_true(q[i] >= p[i] && q[i] <= 1);
		for (int j = 0; j < N; j++)
			if (p[i] < p[j])
				assert_true(q[i] <= q[j]);
			else if (p[i] == p[j])
				assert_true(q[i] == q[j]);
	}
}

/* Mann–Whitney, against values worked by hand.  No ties: x = 0 1 2 3, y = 4 5
 * 6 7 (one value a group).  Every y beats every x: U = 16, mean n1 n2 / 2 =
 * 8, variance n1 n2 (N + 1) / 12 = 12, z = (16 - 8 - 0.5) / sqrt(12) =
 * 2.1650635, p = erfc(z / sqrt 2) = 0.030382822 (R: wilcox.test(exact =
 * FALSE, correct = TRUE) gives the same). */
static void test_mann_whitney_no_ties(void **state)
{
	const uint64_t x[] = { 1, 1, 1, 1, 0, 0, 0, 0 }, y[] = { 0, 0, 0, 0, 1, 1, 1, 1 };
	int sign = 9;

	(void)state;
	assert_rel(stats_mann_whitney_p(x, y, 8, &sign), 3.0382821976577e-2, 1e-9);
	assert_int_equal(sign, 1);
	/* the other way round: the same p, y smaller */
	assert_rel(stats_mann_whitney_p(y, x, 8, &sign), 3.0382821976577e-2, 1e-9);
	assert_int_equal(sign, -1);
}

/* Ties: x = {0, 0, 1}, y = {1, 2, 2} over three groups (x[g] values in
 * group g).  U = 0 + 1 * (2 + 1/2) + 2 * 3 = 8.5, mean 4.5; tie sum
 * 3 * (2^3 - 2) = 18, variance 9 / 12 * (7 - 18 / 30) = 4.8;
 * z = (4 - 0.5) / sqrt(4.8) = 1.5975154, p = 0.11014892. */
static void test_mann_whitney_ties(void **state)
{
	const uint64_t x[] = { 2, 1, 0 }, y[] = { 0, 1, 2 };
	int sign = 0;

	(void)state;
	assert_rel(stats_mann_whitney_p(x, y, 3, &sign), 1.1014892418594703e-1, 1e-9);
	assert_int_equal(sign, 1);
}

static void test_mann_whitney_nothing(void **state)
{
	const uint64_t none[] = { 0, 0, 0 }, some[] = { 3, 4, 5 }, one[] = { 0, 7, 0 },
		       also[] = { 0, 2, 0 }, far1[] = { 1000000, 0 }, far2[] = { 0, 1000000 };
	int sign = 9;

	(void)state;
	/* an empty sample: no test */
	assert_true(stats_mann_whitney_p(none, some, 3, &sign) == 1.0);
	assert_int_equal(sign, 0);
	assert_true(stats_mann_whitney_p(some, none, 3, &sign) == 1.0);
	assert_int_equal(sign, 0);
	/* the same counts: no tendency */
	sign = 9;
	assert_true(stats_mann_whitney_p(some, some, 3, &sign) == 1.0);
	assert_int_equal(sign, 0);
	/* every value tied: no variance, no test */
	sign = 9;
	assert_true(stats_mann_whitney_p(one, also, 3, &sign) == 1.0);
	assert_int_equal(sign, 0);
	/* no groups */
	assert_true(stats_mann_whitney_p(some, some, 0, &sign) == 1.0);
	/* far apart: the floor, never 0 */
	assert_true(stats_mann_whitney_p(far1, far2, 2, &sign) == STATS_P_FLOOR);
	assert_int_equal(sign, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_poisson_known),
		cmocka_unit_test(test_poisson_symmetric),
		cmocka_unit_test(test_poisson_zero),
		cmocka_unit_test(test_poisson_huge),
		cmocka_unit_test(test_bh_hand),
		cmocka_unit_test(test_bh_monotone),
		cmocka_unit_test(test_mann_whitney_no_ties),
		cmocka_unit_test(test_mann_whitney_ties),
		cmocka_unit_test(test_mann_whitney_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
