/* step_data — what one step measured: a profile whose windows mirror the
 * executor's windows, and per-target rows per window (core/probe/kind.h says what
 * each kind puts in them). */
#ifndef ARGUS_STEP_DATA_H
#define ARGUS_STEP_DATA_H

#include <stdint.h>

#include "data/profile.h"

#define KIND_HIST_BUCKETS 64   /* log2 buckets of nanoseconds: bucket i holds
                                * values in [2^i, 2^(i+1)) ns; bucket 0 holds 0..1 */

/* What one kind measured in one window, per target (tracepoint, function,
 * begin/end pair: index into the step's resolved targets; 0 for sample and
 * offcpu). */
struct step_target_win {
	uint64_t events;            /* firings / completed intervals (scaled when
	                             * sampled 1-in-N: honest estimate) */
	uint64_t recorded;          /* what was actually recorded */
	uint64_t total_ns;          /* latency kinds: summed durations */
	uint64_t hist[KIND_HIST_BUCKETS]; /* latency kinds: log2 histogram */
};

/* Measurements of one step: stacks go into a profile whose windows mirror
 * the executor's windows (counts = samples for sample, scaled firings for
 * tracepoint_stacks, microseconds blocked for offcpu, intervals begun for
 * tracepoint_latency/function_latency); per-target numbers per window. */
struct step_data {
	struct profile *prof;       /* owned; frames root first; the kernel path
	                             * is followed by a synthetic marker frame at
	                             * the LEAF end ("[tp] category:name",
	                             * "[offcpu] woken by ...", "[fn] name"): see
	                             * "Marker frames" in kind.h */
	struct step_target_win *tw; /* ntargets * nwin, row-major by window */
	unsigned ntargets, nwin, cap_win;
	const char *unit;           /* "samples", "events", "us blocked", "intervals" */
	uint64_t lost;              /* events lost (ring buffer full, map full) */
};

/* Returns an empty step_data for ntargets targets, or NULL with errno set. */
struct step_data *step_data_new(unsigned ntargets, const char *unit);
void step_data_free(struct step_data *d); /* NULL-safe */
/* Opens a window of condition c in both the profile and the target rows;
 * returns its index or -errno. */
int step_data_window_begin(struct step_data *d, enum cond c, double start_s);
void step_data_window_end(struct step_data *d, unsigned w, double secs);
/* Row of target t in window w. */
struct step_target_win *step_data_target(struct step_data *d, unsigned w, unsigned t);

#endif
