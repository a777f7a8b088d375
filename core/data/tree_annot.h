/* tree_annot — a step's numbers attached to a tree node.
 *
 * Owned by the tree: a node's annot list is freed by tree_free (core/data/tree.c
 * calls tree_annot_free directly; no weak reference).  Steps fill them
 * (core/analysis/step_merge.c, step_merge_into_tree); the calibration computes their
 * statistics (core/analysis/calib_annot.c, calib_annot_run, called by calib_run).
 */
#ifndef ARGUS_TREE_ANNOT_H
#define ARGUS_TREE_ANNOT_H

#include <stdint.h>

#include "data/profile.h"   /* enum cond */
#include "data/step_data.h" /* KIND_HIST_BUCKETS */

/* One step's numbers at one node; nodes own a NULL-terminated list. */
struct tree_annot {
	struct tree_annot *next;
	unsigned step;              /* index of the step in the session (0-based) */
	char *label;                /* "[tp] exceptions:page_fault_user"; owned */
	const char *unit;           /* static: "events", "intervals", ... */
	unsigned nwin;
	enum cond *cond;            /* per step window; owned */
	double *secs;               /* per step window; owned */
	uint64_t *win;              /* count per step window; owned */
	uint64_t total[COND_N];
	/* calibration (calib_annot_run) */
	double rate[COND_N], delta, ratio, p, q;
	unsigned pairs, pairs_agree;
	int significant, sign;
	/* latency kinds (target nodes only): histograms summed per condition */
	int has_lat;
	uint64_t hist[COND_N][KIND_HIST_BUCKETS];
	double p50_ns[COND_N], p99_ns[COND_N];
	double lat_p;               /* Mann–Whitney two-sided p */
	int lat_significant, lat_sign;
};

/* Frees a list of annotations (tree_free calls it for every node);
 * NULL-safe. */
void tree_annot_free(struct tree_annot *a);

#endif
