/* step_merge — a step's results in the calling-context tree, calibrated.
 *
 * Placement.  Every stack a step recorded (frames root first, after the
 * kind's synthetic first frame "[tp] category:name" / "[offcpu]", which
 * names the event) is classified to a subsystem (subsys_classify) and its
 * frames are matched root first against the tree under that subsystem's
 * node (tree_child).  The nodes of the matched prefix get an annotation
 * (the event's rate through them in each condition).  A TREE_EVENT node
 * named after the event ("[tp] exceptions:page_fault_user") is added under
 * the deepest matched node — "this event fires here" — and frames that the
 * tree does not have yet (the path is new) go below it as TREE_FRAME nodes.
 * When not even the first frame matches, the stack goes under the event's
 * own node directly below the subsystem node.  Besides, every target gets
 * its own TREE_EVENT node under its subsystem holding its exact totals and,
 * for latency kinds, its histograms.
 *
 * Units.  Nodes a step added (flag TREE_F_STEP) count events (or intervals,
 * samples of the step, microseconds blocked: annot->unit), not the
 * calibration's samples, and their windows are the step's, so their
 * node->total[] is in that unit and their win_total[] stays zero.  Their
 * parents' counts are not changed.  calib_run leaves TREE_F_STEP nodes out
 * of its own family and calls calib_annot_run (core/analysis/calib_annot.c) which
 * fills their node->stat from their first annotation: rates per second of
 * step window time, the two-rate Poisson test, Benjamini–Hochberg across
 * all annotations of one step, sign consistency over the step's pairs.
 * share_of_parent of a step node under a node of the calibration is 0
 * (other unit); the descent (descent_run) turns to such a node only when
 * no child in the parent's unit rises.
 *
 * Latency.  Per condition p50/p99 from the log2 histograms (upper bucket
 * edges), and a Mann–Whitney U test of "loaded intervals are longer"
 * (two-sided; normal approximation with the tie correction, each log2
 * bucket a tie group) — it compares whole distributions, so a shift of the
 * tail that leaves p50 alone still shows.  Significant when its p-value
 * (not FDR-adjusted: one test per target) <= alpha.
 */
#ifndef ARGUS_STEP_MERGE_H
#define ARGUS_STEP_MERGE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/calib.h"
#include "probe/kind.h"
#include "data/step.h"
#include "data/tree.h"
#include "data/tree_annot.h"

/* Merges step s's data d into t as described above, tagging annotations
 * with step index idx.  t must have been built (and may be calibrated);
 * run calib_run afterwards.  Does not take d.  0 or -errno. */
int step_merge_into_tree(struct tree *t, const struct step *s, const struct step_data *d,
			 unsigned idx);

/* ---- per-target results and words ----------------------------------------- */

struct step_target_result {
	const char *name;           /* resolved target (or the kind); borrowed from s */
	uint64_t events[COND_N];
	double secs[COND_N];
	double rate[COND_N], delta, ratio, p, q;
	unsigned pairs, pairs_agree;
	int significant, sign;
	int has_lat;
	uint64_t intervals[COND_N];
	double p50_ns[COND_N], p99_ns[COND_N], lat_p;
	int lat_significant;
};

/* Per-target numbers of one step (q: Benjamini–Hochberg across targets).
 * *out is malloc'd, caller frees; returns the count or -errno. */
int step_results(const struct step *s, const struct step_data *d, double alpha,
		 struct step_target_result **out);

/* "1.2k/s", "48.3k/s", "3.1/s", "2.4M/s" into buf; returns buf. */
char *step_fmt_rate(double per_s, char *buf, size_t len);
/* "850 us", "0.3 ms", "12 ms", "1.2 s" into buf; returns buf. */
char *step_fmt_ns(double ns, char *buf, size_t len);

/* One line for a target: rates ("page_fault_user 12.1k/s → 48.3k/s
 * (+300%), q=1e-40") and, for latency kinds, percentiles ("compaction p99
 * 0.3 ms → 12 ms (p50 0.1 ms → 2 ms), p=3e-05").  utf8 picks "→" or "->".
 * Returns buf. */
char *step_result_line(const struct step_target_result *r, int utf8, char *buf, size_t len);

/* One line for a whole step: the most telling target's line (latency lines
 * first, then the largest significant change), plus "(+N more targets)".
 * Caller frees; NULL with errno. */
char *step_summary(const struct step *s, const struct step_data *d, int utf8);

#endif
