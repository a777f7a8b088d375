/* step_data — what one step measured: a profile whose windows mirror the
 * executor's windows, and per-target rows per window; and the vocabulary
 * of what the kinds put in them (marker frames, log2 histograms), which the
 * kinds (core/probe/) write and the analysis (core/analysis/) reads. */
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

/* The units of a step's counts, one a kind (core/probe/kind.c kind_unit
 * chooses): the names sessions, the JSON and the screen carry. */
#define STEP_UNIT_SAMPLES "samples"
#define STEP_UNIT_EVENTS "events"
#define STEP_UNIT_US_BLOCKED "us blocked"
#define STEP_UNIT_INTERVALS "intervals"

/* Whether u is one of those (a unit read from a file is shown as it is:
 * nothing else is taken). */
int step_data_unit_known(const char *u);

/* Measurements of one step: stacks go into a profile whose windows mirror
 * the executor's windows (counts = samples for sample, scaled firings for
 * tracepoint_stacks, microseconds blocked for offcpu, intervals begun for
 * tracepoint_latency/function_latency); per-target numbers per window. */
struct step_data {
	struct profile *prof;       /* owned; frames root first; the kernel path
	                             * is followed by a synthetic marker frame at
	                             * the LEAF end ("[tp] category:name",
	                             * "[offcpu] woken by ...", "[fn] name"): see
	                             * "Marker frames" below */
	struct step_target_win *tw; /* ntargets * nwin, row-major by window */
	unsigned ntargets, nwin, cap_win;
	const char *unit;           /* one of the STEP_UNIT_* */
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

/* Percentile (0..100) of a log2 histogram in nanoseconds (KIND_HIST_BUCKETS
 * buckets): the upper edge of the bucket where the cumulative count crosses
 * it; 0 when empty. */
double step_data_hist_percentile(const uint64_t *hist, double pct);

/* Marker frames.  Every stack a kind puts in step_data.prof is the kernel
 * path of the event's context, ROOT FIRST, followed by one marker frame at
 * the LEAF end whose name starts with '[' (step_data_frame_is_marker):
 *
 *   sample              no marker: plain sampled stacks
 *   tracepoint_stacks   <stack> ; "[tp] category:name"          (the firing)
 *   tracepoint_latency  <stack at begin> ; "[tp] <begin tracepoint>"
 *   function_latency    <stack at entry> ; "[fn] NAME"
 *   offcpu              <blocked stack> ; "[offcpu] woken by COMM (tgid N, ...)"
 *                       ; <waker's stack, LEAF first>  (or "[offcpu] no wakeup seen")
 *   counts              no stacks (per-target events only)
 *
 * The executor matches the frames before the first marker root first
 * against the tree and hangs the marker (and what follows it) under the
 * deepest matching node, or under the tracepoint's own node when nothing
 * matches.  Frames after the marker are information about the event (the
 * waker's stack), not a path of the event's own context.  A stack may be
 * the marker alone (no kernel stack could be taken).  Frames of the BPF
 * machinery itself (bpf_prog_*, bpf_trace_run*, __bpf_trace_*) are dropped.
 *
 * ntargets of step_data for each kind: kind_ntargets() (core/probe/kind.h). */

/* Nonzero when name is a marker frame (starts with '['). */
static inline int step_data_frame_is_marker(const char *name)
{
	return name && name[0] == '[';
}

#endif
