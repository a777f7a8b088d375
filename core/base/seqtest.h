/* seqtest — an anytime-valid test of two Poisson rates, for looking after
 * every reference/loaded pair and stopping when the answer is settled.
 *
 * Why not the fixed-sample p-value (core/base/stats.h) after each pair: its
 * 5% holds for one look at a sample size fixed in advance.  Looking after
 * every pair and stopping at the first significant answer is "optional
 * stopping": over 12 looks its false-alarm rate is several times alpha
 * (tests/unit/test_seqtest.c measures it on the same synthetic trees).
 *
 * The choice: an e-process (a test martingale), not alpha spending.
 * Alpha spending (O'Brien–Fleming, Pocock) needs the looks planned in
 * advance and a per-look boundary for a test statistic; here the window
 * length may change after the first pair (core/analysis/seqstop.h, adaptive windows)
 * and the number of looks is open up to --pairs, and hundreds of nodes are
 * tested at once.  An e-process handles all three: any stopping rule, any
 * predictable change of the windows, and multiplicity by e-BH.
 *
 * The model.  Pair i is a reference window of a_i seconds with r_i samples
 * in a node and a loaded window of b_i seconds with l_i.  Given
 * n_i = r_i + l_i, l_i ~ Binomial(n_i, theta_i(rho)), theta_i(rho) =
 * rho b_i / (a_i + rho b_i), rho = the loaded/reference rate ratio; H0 is
 * rho = 1.  Each pair's likelihood ratio LR_i(rho) = P(l_i | rho) / P(l_i |
 * 1) has expectation 1 under H0 given everything measured before it (the
 * pairs are independent, and that holds given the other nodes' past too), so
 * E_k(rho) = prod_{i<=k} LR_i(rho) is a nonnegative martingale, and so is
 * the mixture E_k = sum_j w_j E_k(rho_j) over a fixed prior.  Ville's
 * inequality: P(sup_k E_k >= 1/alpha) <= alpha under H0, whatever the
 * stopping rule; E at any stopping time is an e-value (expectation <= 1).
 * The pair's own window lengths enter theta_i exactly, so windows of
 * different lengths (and a window length chosen from the first pair) keep
 * it valid.
 *
 * The prior: log rho on a grid of SEQTEST_GRID_STEP from -SEQTEST_GRID_MAX
 * to +SEQTEST_GRID_MAX (rho from 1/3000 to 3000; 0 left out), weights a
 * normal of sd SEQTEST_PRIOR_SD on log rho.  Two-sided.  The grid's log
 * terms depend only on the windows, so they are computed once per tree and
 * every node costs a multiply-add per pair and grid point.
 *
 * Multiplicity: p = min(1, 1/E) is an anytime-valid p-value, and
 * Benjamini–Hochberg over these p is exactly e-BH (Wang & Ramdas 2022):
 * FDR <= alpha under any dependence between the nodes (a tree's nodes are
 * nested sums), at any stopping time.  calib_run does that when
 * calib_opts.sequential is set; the sign-consistency rule stays on top.
 */
#ifndef ARGUS_SEQTEST_H
#define ARGUS_SEQTEST_H

#include <stddef.h>
#include <stdint.h>

#define SEQTEST_GRID_STEP 0.1
#define SEQTEST_GRID_MAX 8.0
#define SEQTEST_PRIOR_SD 2.0

struct seqtest;

/* The test for npairs pairs of windows: ref_secs[i] and load_secs[i] are
 * the lengths of pair i's windows (> 0; a pair with a length <= 0 counts
 * nothing).  Copies what it needs.  NULL with errno set (EINVAL when npairs
 * is 0, ENOMEM). Free with seqtest_free. */
struct seqtest *seqtest_new(const double *ref_secs, const double *load_secs, unsigned npairs);
void seqtest_free(struct seqtest *s); /* NULL-safe */

unsigned seqtest_pairs(const struct seqtest *s);

/* log E after the pairs [0, npairs) (npairs <= seqtest_pairs(s)) for a node
 * with ref[i] and load[i] samples in pair i.  0 when there is nothing (E =
 * 1); +inf never (large counts give large finite values). */
double seqtest_log_e(const struct seqtest *s, const uint64_t *ref, const uint64_t *load,
		     unsigned npairs);

/* The anytime-valid p-value min(1, 1/E) from log E, floored at 1e-300 as
 * calib's p-values are. */
double seqtest_p_of(double log_e);

#endif
