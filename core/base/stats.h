/* stats — the fixed-sample tests the analysis uses, in one place: a test
 * of two Poisson rates, the Benjamini–Hochberg adjustment, and the
 * Mann–Whitney test over grouped values.  Plain numbers in, p- or q-values
 * out: nothing here knows a tree, a step or a histogram's unit, so the node
 * calibration (core/analysis/calib.c), the steps' annotations
 * (core/analysis/calib_annot.c), the per-target families (step_merge.c) and
 * the descent share one implementation.  The anytime-valid test for looking
 * after every pair is core/base/seqtest.h. */
#ifndef ARGUS_STATS_H
#define ARGUS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* The smallest p-value any test here returns: below it every p is this
 * (doubles underflow not far past it, and no decision turns on the digits). */
#define STATS_P_FLOOR 1e-300

/* Two-sided p-value that counts k1 over exposure t1 and k2 over exposure t2
 * come from one Poisson rate (conditional binomial test; exact for small
 * counts, the normal approximation for huge ones).  1 when either exposure
 * is not a positive finite number or both counts are 0; otherwise in
 * [STATS_P_FLOOR, 1]. */
double stats_poisson_p(uint64_t k1, double t1, uint64_t k2, double t2);

/* Benjamini–Hochberg: q[i] from p[i] for n values (a p outside [0, 1], NaN
 * too, counts as 1); q may alias p.  Returns 0 or -ENOMEM. */
int stats_bh_adjust(const double *p, double *q, size_t n);

/* Two-sided Mann–Whitney test of y against x, both given as counts per
 * ordered group: x[g] values of the first sample fall in group g, the groups
 * in increasing order, each group one tie (log2 histogram buckets, say).
 * Normal approximation with continuity and tie correction.  *sign is +1
 * when y tends to be larger, -1 smaller, 0 no tendency (or nothing to
 * test, p = 1).  Returns p in [STATS_P_FLOOR, 1]. */
double stats_mann_whitney_p(const uint64_t *x, const uint64_t *y, size_t ngroups, int *sign);

#endif
