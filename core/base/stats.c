/* stats — the fixed-sample tests (see stats.h).
 *
 * The rate test.  Under H0 both conditions share one Poisson rate, so given
 * the total n = k1 + k2, k1 ~ Binomial(n, t1 / (t1 + t2)).
 * The two-sided p-value sums the probabilities of every outcome no more
 * likely than the observed one (the "minimum likelihood" rule of R's
 * binom.test, relative tolerance 1e-7).  Both tails are summed exactly, in
 * log space, from their largest term outwards until the terms no longer
 * matter (so the cost grows with the standard deviation, not with n); only
 * when that would take more than STATS_EXACT_TERMS terms (n in the
 * billions near the mean, where the p-value is large anyway) does it fall
 * back to the normal approximation with continuity correction (also for
 * n > 2^50, where doubles no longer count one by one).  p-values
 * are clamped to [STATS_P_FLOOR, 1]: below 1e-300 every p is "1e-300".
 * tests/unit/stats_ref.py computes the exact values the unit test holds
 * it to.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/stats.h"

#define STATS_EXACT_TERMS 4e6
#define STATS_REL_ERR 1e-7

/* ---- the rate test ------------------------------------------------------ */

struct binom {
	double n, lp, lq, lcn; /* log p, log(1 - p), lgamma(n + 1) */
};

static double binom_lpmf(const struct binom *b, double k)
{
	return b->lcn - lgamma(k + 1) - lgamma(b->n - k + 1) + k * b->lp +
	       (b->n - k) * b->lq;
}

/* log of the sum of the pmf from j0 outwards (dir -1: down to 0, +1: up to
 * n).  The terms decrease away from the mode, so j0's is the largest and the
 * sum stops once a term is below 1e-17 of it. */
static double binom_tail_log(const struct binom *b, double j0, int dir, double l0)
{
	double sum = 1.0, lt = l0, j = j0, r = b->lp - b->lq;

	for (unsigned long it = 0; it < 4 * (unsigned long)STATS_EXACT_TERMS; it++) {
		double t;

		if (dir > 0) {
			if (j >= b->n)
				break;
			lt += log(b->n - j) - log(j + 1) + r;
			j += 1;
		} else {
			if (j <= 0)
				break;
			lt += log(j) - log(b->n - j + 1) - r;
			j -= 1;
		}
		t = exp(lt - l0);
		sum += t;
		if (t < sum * 1e-17)
			break;
	}
	return l0 + log(sum);
}

static double log_add(double a, double b)
{
	if (a == -INFINITY)
		return b;
	if (b == -INFINITY)
		return a;
	if (a < b) {
		double t = a;
		a = b;
		b = t;
	}
	return a + log1p(exp(b - a));
}

double stats_poisson_p(uint64_t k1, double t1, uint64_t k2, double t2)
{
	struct binom b;
	double n = (double)k1 + (double)k2, k = (double)k1;
	double p, q, sd, z, cost, mode, lk, thr, own, other = -INFINITY, lo, hi, res;

	if (!(t1 > 0) || !(t2 > 0) || !isfinite(t1) || !isfinite(t2) || n == 0)
		return 1.0;
	p = t1 / (t1 + t2);
	q = t2 / (t1 + t2);
	sd = sqrt(n * p * q);
	z = (k - n * p) / sd;
	/* terms summed: about 12 sd near the mean, 60/|z| sd far out */
	cost = 2 * sd * fmin(12.0, 60.0 / fmax(fabs(z), 1e-3)) + 16;
	/* past 2^50 counts, j + 1 == j is near in doubles: no summation */
	if (cost > STATS_EXACT_TERMS || n > 0x1p50) {
		double zc = (fabs(k - n * p) - 0.5) / sd;

		res = zc <= 0 ? 1.0 : erfc(zc / M_SQRT2);
		goto out;
	}
	b.n = n;
	b.lp = log(p);
	b.lq = log(q);
	b.lcn = lgamma(n + 1);
	mode = floor((n + 1) * p);
	if (mode > n)
		mode = n;
	lk = binom_lpmf(&b, k);
	thr = lk + log1p(STATS_REL_ERR);
	if (k <= mode) {
		own = binom_tail_log(&b, k, -1, lk);
		/* first j past k, from the mode on, no more likely than k (the
		 * mode itself when it ties with k) */
		lo = fmax(k + 1, mode);
		hi = n;
		if (lo <= n && binom_lpmf(&b, n) <= thr) {
			while (lo < hi) {
				double mid = floor((lo + hi) / 2);

				if (binom_lpmf(&b, mid) <= thr)
					hi = mid;
				else
					lo = mid + 1;
			}
			other = binom_tail_log(&b, lo, +1, binom_lpmf(&b, lo));
		}
	} else {
		own = binom_tail_log(&b, k, +1, lk);
		/* last j before k, up to the mode, no more likely than k */
		lo = 0;
		hi = fmin(k - 1, mode);
		if (hi >= 0 && binom_lpmf(&b, 0) <= thr) {
			while (lo < hi) {
				double mid = ceil((lo + hi) / 2);

				if (binom_lpmf(&b, mid) <= thr)
					lo = mid;
				else
					hi = mid - 1;
			}
			other = binom_tail_log(&b, lo, -1, binom_lpmf(&b, lo));
		}
	}
	res = exp(log_add(own, other));
out:
	if (!(res >= STATS_P_FLOOR)) /* NaN too */
		res = STATS_P_FLOOR;
	if (res > 1)
		res = 1;
	return res;
}

/* ---- Benjamini–Hochberg -------------------------------------------------- */

struct bh_item {
	double p;
	size_t i;
};

static int bh_cmp(const void *a, const void *b)
{
	const struct bh_item *x = a, *y = b;

	if (x->p < y->p)
		return -1;
	if (x->p > y->p)
		return 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

int stats_bh_adjust(const double *p, double *q, size_t n)
{
	struct bh_item *it;
	double run = 1.0;
	size_t i;

	if (n == 0)
		return 0;
	it = calloc(n, sizeof(*it)); /* calloc checks n * size */
	if (!it)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		it[i].p = (p[i] >= 0 && p[i] <= 1) ? p[i] : 1.0; /* NaN -> 1 */
		it[i].i = i;
	}
	qsort(it, n, sizeof(*it), bh_cmp);
	for (i = n; i-- > 0;) {
		double v = it[i].p * (double)n / (double)(i + 1);

		if (v < run)
			run = v;
		q[it[i].i] = run;
	}
	free(it);
	return 0;
}

/* ---- Mann–Whitney ---------------------------------------------------------- */

/* U of y against x, each group a tie group; two-sided p (normal
 * approximation, tie correction); *sign +1 when y tends to be larger. */
double stats_mann_whitney_p(const uint64_t *x, const uint64_t *y, size_t ngroups, int *sign)
{
	double n1 = 0, n2 = 0, below = 0, u = 0, ties = 0, N, mu, var, z;

	for (size_t b = 0; b < ngroups; b++) {
		n1 += (double)x[b];
		n2 += (double)y[b];
	}
	*sign = 0;
	if (n1 == 0 || n2 == 0)
		return 1.0;
	for (size_t b = 0; b < ngroups; b++) {
		double tb = (double)x[b] + (double)y[b];

		/* each loaded value beats every smaller reference value, half a tie */
		u += (double)y[b] * (below + 0.5 * (double)x[b]);
		below += (double)x[b];
		ties += tb * tb * tb - tb;
	}
	N = n1 + n2;
	mu = n1 * n2 / 2;
	var = n1 * n2 / 12.0 * ((N + 1) - ties / (N * (N - 1) > 0 ? N * (N - 1) : 1));
	if (!(var > 0))
		return 1.0;
	*sign = (u > mu) - (u < mu);
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1.0;
	return fmax(erfc(z / M_SQRT2), STATS_P_FLOOR);
}
