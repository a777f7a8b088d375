/* seqstop — when to stop measuring: after each reference/loaded pair the
 * analysis runs; measuring stops when its verdict is settled, else at the
 * maximum (--pairs).
 *
 * Settled, at a look after pair k (k >= min_pairs):
 *   - the same verdict path over the last `stable` looks (path = subsystem
 *     and frames; "no bottleneck found" never settles early: more data can
 *     only help a thin effect, so it runs to the maximum);
 *   - every decision on it significant at each of those looks, under the
 *     anytime-valid test (calib_opts.sequential, core/base/seqtest.h: q is
 *     e-BH, valid at whatever pair this rule stops);
 *   - the load not changing character in the last loaded window (the
 *     descent's steady check, verdict.phase_pending: a cold first pass
 *     ending); a change seen earlier makes the verdict the later phase's
 *     (core/analysis/analysis.h), which must then hold like any other;
 *   - no on-CPU time of the verdict filling a cache (verdict.cache_fill:
 *     block reads under a lookup, slab growth): a cold start's first pass
 *     looks like that for seconds and then stops; such a verdict runs to
 *     the deadline (or the maximum), where the phase check judges it;
 *   - not near the significance threshold: calibrated at 5 x alpha, the
 *     descent does not go further down (a shallow path that holds only
 *     because the nodes below it are not significant yet is not settled);
 *   - the descent's stop rules not near their thresholds: the descent run
 *     again with its explain share moved by -margin and +margin gives the
 *     same path (one share parameter governs "enter the child", "the
 *     function itself is the hot spot", "the cost is the caller's
 *     interrupts-off section" and "children spread").  A path that holds over
 *     2 x stable looks settles even so (more data cannot move a share that
 *     truly sits at the threshold; the reason says "near a
 *     threshold").
 * The verdict reported is the one at the stopping look; its q-values are
 * the anytime-valid ones, so the false-alarm rate holds at that time
 * (tests/unit/test_seqstop.c checks it by simulation).
 *
 * Adaptive windows (seqstop_windows): from the first pair, the window
 * length that gives about SEQSTOP_TARGET_SAMPLES samples of the increase per
 * loaded window (the shares the descent judges are of the increase), and
 * the settle time after which the load's rate has reached its level after a
 * resume (its own samples in 25 ms slices); both within bounds.
 */
#ifndef ARGUS_SEQSTOP_H
#define ARGUS_SEQSTOP_H

#include <stdint.h>

#include "analysis/calib.h"
#include "data/profile.h"
#include "data/tree.h"

#define SEQSTOP_DEFAULT_MAX_PAIRS 12
#define SEQSTOP_DEFAULT_MIN_PAIRS 2
#define SEQSTOP_DEFAULT_STABLE 2
#define SEQSTOP_DEFAULT_MARGIN 0.05
#define SEQSTOP_TARGET_SAMPLES 300.0
#define SEQSTOP_RELAX_ALPHA 5.0
/* issue 26: no verdict later than 10 s.  Measuring stops when the next
 * pair would end past this (from the measurement's start; the rest of the
 * 10 s is the load's start, the probes and the last analysis).  The
 * anytime-valid test holds at any stopping time, so a stop on the clock
 * costs no false alarms: only a verdict that had not settled is reported
 * as it stands, its reason saying so. */
#define SEQSTOP_DEFAULT_DEADLINE_S 8.5
/* ... but not before this many pairs: a victim's pairs are long (thin data:
 * 1 s windows), and two looks that still disagree under a loaded machine
 * gave a wrong verdict (tests/live/diagnose_victims.sh, load average 17) */
#define SEQSTOP_DEADLINE_MIN_PAIRS 3

struct seqstop_opts {
	unsigned min_pairs;  /* never stop before (--min-pairs) */
	unsigned max_pairs;  /* always stop at (--pairs) */
	unsigned stable;     /* looks the path must hold for */
	double alpha;        /* each decision's q must be <= this */
	double margin;       /* the explain share moved by +-margin */
	double deadline_s;   /* stop when the next pair would end past it
	                      * (seqstop_look.elapsed_s); 0: none */
};

void seqstop_opts_default(struct seqstop_opts *o);

/* What one look saw (seqstop_look_build fills it from a tree). */
struct seqstop_look {
	unsigned pair;       /* pairs measured at this look, 1-based */
	int found;
	uint64_t path_hash;  /* of the subsystem and path names; 0 when not found */
	unsigned depth;      /* frames on the path */
	double max_q;        /* the largest q of the decisions on the path; 1 when none */
	int all_significant; /* every node entered was significant */
	int robust;          /* the same path with explain +- margin */
	char leaf[64];       /* for the words: the path's last frame */
	char near[96];       /* when not robust: which way it moved */
	double elapsed_s;    /* measuring time at this look, from the start
	                      * (the caller sets it after seqstop_look_build); 0:
	                      * not known, no deadline */
	double rises;        /* the sum of the subsystems' rises, samples/s
	                      * (idle left out): for the adaptive windows */
	int changing;        /* the load changed character in the last loaded
	                      * window (verdict.phase_pending): no settling on
	                      * what may be its first phase */
	int filling;         /* on-CPU time of the verdict fills a cache
	                      * (verdict.cache_fill): no settling before the
	                      * deadline, which a cold start may outlast */
};

/* The look after pair `pair`: analysis_run (core/analysis/analysis.h) of p under ao
 * (ao->calib: the sequential calibration), and three more with the explain
 * share at -margin and +margin and with SEQSTOP_RELAX_ALPHA times alpha (a
 * verdict that goes deeper there is near the significance threshold: more
 * pairs may carry it further).  A profile that cannot be calibrated yet is a
 * look without a verdict.  Fills look.  Returns 0, or -errno with *cause
 * (caller frees). */
struct analysis_opts;
int seqstop_look_build(const struct profile *p, const struct analysis_opts *ao, double margin,
		       unsigned pair, struct seqstop_look *look, char **cause);

struct seqstop_decision {
	int stop;            /* measuring ends after this look */
	int settled;         /* ... because the verdict is settled */
	unsigned pairs;      /* pairs measured at the last look */
	char reason[200];    /* "settled after 3 pairs: path stable over 2 pairs,
	                      * q <= 1e-09 at every step", "maximum of 12 pairs
	                      * reached; the verdict still moved at pair 11";
	                      * while measuring, what is still missing */
	char brief[72];      /* for a status bar: "settled after 3 pairs, q <= 1e-09",
	                      * "maximum of 12 pairs: the verdict still moved" */
};

/* The rule over the looks so far (looks[0..n), in order).  Pure. */
void seqstop_decide(const struct seqstop_look *looks, unsigned n, const struct seqstop_opts *o,
		    struct seqstop_decision *d);

/* Adaptive windows. */
struct seqstop_window_in {
	double window_s, settle_s;  /* what the first pair used */
	double ref_rate, load_rate; /* the increase is load_rate - ref_rate:
	                             * measure_seq passes the sum of the
	                             * subsystems' rises (idle left out) as
	                             * load_rate and 0 */
	const double *slice;        /* busy samples in each slice after the first
	                             * resume (settle time and window), may be NULL */
	unsigned nslice;
	double slice_s;             /* slice length */
};

struct seqstop_window_bounds {
	double window_min_s, window_max_s, settle_min_s, settle_max_s;
};

struct seqstop_window_out {
	double window_s, settle_s;
	char why[200];
};

void seqstop_window_bounds_default(struct seqstop_window_bounds *b);

/* The windows for the pairs after the first.  Pure. */
void seqstop_windows(const struct seqstop_window_in *in, const struct seqstop_window_bounds *b,
		     struct seqstop_window_out *out);

#endif
