/* seqtest — the mixture likelihood ratio of two Poisson rates (see
 * seqtest.h).
 *
 * With theta(rho) = rho b / (a + rho b) and u = log rho, the log likelihood
 * ratio of pair i at u is
 *     l_i log(theta / theta0) + r_i log((1 - theta) / (1 - theta0))
 *   = l_i u + n_i c_i(u),   c_i(u) = log(a_i + b_i) - log(a_i + e^u b_i),
 * so a node's log E at grid point j is u_j * sum(l) + sum_i n_i c_i(u_j):
 * the c table is per tree, the node adds n_i times a row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "base/seqtest.h"

#define SEQTEST_P_FLOOR 1e-300

struct seqtest {
	unsigned npairs, ngrid;
	double *u;      /* ngrid grid points (log rho) */
	double *lw;     /* log prior weight of each */
	double *c;      /* npairs x ngrid: c_i(u_j) */
};

void seqtest_free(struct seqtest *s)
{
	if (!s)
		return;
	free(s->u);
	free(s->lw);
	free(s->c);
	free(s);
}

struct seqtest *seqtest_new(const double *ref_secs, const double *load_secs, unsigned npairs)
{
	struct seqtest *s;
	unsigned half = (unsigned)lround(SEQTEST_GRID_MAX / SEQTEST_GRID_STEP), g;
	double z = 0;

	if (!npairs || !ref_secs || !load_secs) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->npairs = npairs;
	s->ngrid = 2 * half;
	s->u = malloc(s->ngrid * sizeof(*s->u));
	s->lw = malloc(s->ngrid * sizeof(*s->lw));
	s->c = malloc((size_t)npairs * s->ngrid * sizeof(*s->c));
	if (!s->u || !s->lw || !s->c) {
		seqtest_free(s);
		errno = ENOMEM;
		return NULL;
	}
	for (g = 0; g < s->ngrid; g++) {
		/* -half..-1, 1..half: rho = 1 itself carries no evidence */
		int k = g < half ? (int)g - (int)half : (int)(g - half) + 1;

		s->u[g] = k * SEQTEST_GRID_STEP;
		s->lw[g] = -s->u[g] * s->u[g] / (2 * SEQTEST_PRIOR_SD * SEQTEST_PRIOR_SD);
		z += exp(s->lw[g]);
	}
	z = log(z);
	for (g = 0; g < s->ngrid; g++)
		s->lw[g] -= z;
	for (unsigned i = 0; i < npairs; i++) {
		double a = ref_secs[i], b = load_secs[i];
		double *row = s->c + (size_t)i * s->ngrid;

		for (g = 0; g < s->ngrid; g++) {
			if (!(a > 0) || !(b > 0) || !isfinite(a) || !isfinite(b)) {
				row[g] = NAN; /* a pair that counts nothing */
				continue;
			}
			/* log(a + b) - log(a + e^u b), stable for large |u| */
			if (s->u[g] > 0)
				row[g] = log(a + b) - s->u[g] - log(a * exp(-s->u[g]) + b);
			else
				row[g] = log(a + b) - log(a + exp(s->u[g]) * b);
		}
	}
	return s;
}

unsigned seqtest_pairs(const struct seqtest *s)
{
	return s ? s->npairs : 0;
}

double seqtest_log_e(const struct seqtest *s, const uint64_t *ref, const uint64_t *load,
		     unsigned npairs)
{
	double best = -INFINITY, sum = 0, *lj;
	double stack[256];
	unsigned g, used = 0;

	if (!s || !npairs)
		return 0;
	if (npairs > s->npairs)
		npairs = s->npairs;
	lj = s->ngrid <= 256 ? stack : malloc(s->ngrid * sizeof(*lj));
	if (!lj)
		return 0; /* no evidence rather than a false one */
	for (g = 0; g < s->ngrid; g++)
		lj[g] = s->lw[g];
	for (unsigned i = 0; i < npairs; i++) {
		const double *row = s->c + (size_t)i * s->ngrid;
		double l = (double)load[i], n = (double)ref[i] + l;

		if (n == 0 || isnan(row[0]))
			continue;
		used++;
		for (g = 0; g < s->ngrid; g++)
			lj[g] += l * s->u[g] + n * row[g];
	}
	if (!used) {
		/* the weights sum to 1: exactly no evidence, not a rounding of it */
		if (lj != stack)
			free(lj);
		return 0;
	}
	for (g = 0; g < s->ngrid; g++)
		if (lj[g] > best)
			best = lj[g];
	for (g = 0; g < s->ngrid; g++)
		sum += exp(lj[g] - best);
	if (lj != stack)
		free(lj);
	return best + log(sum);
}

double seqtest_p_of(double log_e)
{
	double p;

	if (isnan(log_e) || log_e <= 0)
		return 1.0;
	if (log_e >= -log(SEQTEST_P_FLOOR))
		return SEQTEST_P_FLOOR;
	p = exp(-log_e);
	return p < SEQTEST_P_FLOOR ? SEQTEST_P_FLOOR : p;
}
