/* calib — reference calibration: rates, deltas and which deltas are real.
 *
 * For every node: a rate per condition (samples per second of window time),
 * the delta loaded - reference, the ratio, a two-sided p-value from the
 * conditional binomial test of two Poisson rates (core/base/stats.h,
 * stats_poisson_p), a Benjamini–Hochberg q-value across all nodes, and sign
 * consistency over the reference/loaded window pairs.  A node is significant when q <= alpha and
 * at least min_agree of its pairs agree with the overall sign.
 * With calib_opts.sequential the p-value is the anytime-valid one of
 * core/base/seqtest.h instead (measuring that stops when the verdict settles).
 */
#ifndef ARGUS_CALIB_H
#define ARGUS_CALIB_H

#include "data/tree.h"

struct calib_opts {
	double alpha;          /* FDR level; 0.05 by default */
	double freq_hz;        /* sampling frequency, for CPU-ms/s; 0 = unknown */
	double min_agree;      /* fraction of pairs that must agree; 0.5 default:
	                        * "more than half" when there are >= 2 pairs */
	uint64_t min_count;    /* nodes with fewer samples (both conditions
	                        * together) are never significant; default 5 */
	int sequential;        /* p from the anytime-valid mixture test over
	                        * the window pairs (core/base/seqtest.h), so BH is
	                        * e-BH: valid when the caller looks after every
	                        * pair and stops on the answer; 0 (default): the
	                        * fixed-sample conditional binomial test */
};

/* Defaults above. */
void calib_opts_default(struct calib_opts *o);

/* Fills node->stat for every node of t.  Needs at least one window of each
 * condition; returns -EINVAL (nothing to compare) otherwise, 0 on success. */
int calib_run(struct tree *t, const struct calib_opts *o);

/* Fills stat.rise and stat.fall of every node from the significance of the
 * nodes and their self counts (calib_run calls it last; callers that change
 * significance afterwards, such as the step calibration, call it again).
 * A step's node (TREE_F_STEP) under a node of the calibration counts
 * another unit: it is left out of its parent's sums. */
void calib_masses(struct tree *t);

/* Calibrates the nodes steps added (TREE_F_STEP, left out of calib_run's
 * own pass) from their annotations (core/data/tree_annot.h): rates, the Poisson
 * test, Benjamini–Hochberg within each step, pair signs, latency
 * Mann–Whitney; then node->stat of step nodes from their first annotation.
 * core/analysis/calib_annot.c; calib_run calls it after its own pass, with
 * its options (o not NULL: -EINVAL).  0 or -errno. */
int calib_annot_run(struct tree *t, const struct calib_opts *o);

struct tree_annot;
/* Rates, Poisson test, pair signs and latency test of one annotation (q =
 * p; calib_annot_run sets q across the step's family). */
void calib_annot_stats(struct tree_annot *a);

/* One line for people saying why n is (not) marked, e.g.
 * "+412.0/s (ref 3.1/s, load 415.1/s, x133.9), p=1e-40 q=2e-38, 3/3 pairs agree".
 * Writes into buf (len bytes); returns buf. */
char *calib_explain(const struct tree_node *n, char *buf, size_t len);

/* Summary of subsystems for a header line: "mm +41% · sched -3% · ...",
 * significant ones first, each group by |delta| per second; idle is not
 * ranked (the CPUs idle less whenever anything runs: not a cost) and comes
 * last as "idle time -100% (not ranked: not work)".  utf8 chooses the
 * separator. Returns buf. */
char *calib_summary(const struct tree *t, int utf8, char *buf, size_t len);

#endif
