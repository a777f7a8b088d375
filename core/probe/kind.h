/* kind — one step kind's probe behind a uniform interface, for the executor.
 *
 * The executor (core/step/step_exec.c) runs a validated step in alternating
 * reference/loaded windows.  It does not know how a kind measures: it opens
 * the kind's probe once, and at every window boundary asks it to collect
 * what accrued since the previous collect into a struct step_data window.
 * Probes never delete from their maps while BPF runs: they keep user-side
 * snapshots and report differences.
 *
 * Files: core/probe_NAME.c (the only file that includes NAME.skel.h) loads
 * and reads bpf/NAME.bpf.c and provides the ops of its kind (most over
 * core/probe/kind_run.c's shared open/pass/stats); core/probe/kind.c holds the table;
 * core/data/step_data.c the measurements they fill.
 */
#ifndef ARGUS_KIND_H
#define ARGUS_KIND_H

#include <stdint.h>

#include "data/profile.h"
#include "data/step.h"
#include "data/step_data.h"

struct ksym_table;

/* Percentile (0..100) of a log2 histogram in nanoseconds: the upper edge of
 * the bucket where the cumulative count crosses it; 0 when empty. */
double kind_hist_percentile(const uint64_t *hist, double pct);

struct kind_stats {
	uint64_t events;            /* since open */
	uint64_t lost;              /* since open */
	uint64_t run_ns;            /* BPF run time of its programs (bpf_stats) */
	uint64_t run_cnt;
	unsigned progs;             /* programs attached */
};

struct kind_probe;

struct kind_ops {
	enum step_kind kind;
	/* Loads and attaches the kind's programs for validated step s (its
	 * resolved targets and filter).  Returns 0 with *out set, or -errno
	 * with *cause (caller frees) saying what failed and what to do. */
	int (*open)(const struct step *s, struct kind_probe **out, char **cause);
	/* Adds what accrued since the last collect (or open) into window w of
	 * d.  ks symbolises kernel stacks.  0 or -errno. */
	int (*collect)(struct kind_probe *kp, struct step_data *d, unsigned w,
		       const struct ksym_table *ks);
	/* Drops what accrued since the last collect (settle time). */
	int (*discard)(struct kind_probe *kp);
	void (*stats)(struct kind_probe *kp, struct kind_stats *st);
	/* Detaches and unloads; NULL-safe. */
	void (*close)(struct kind_probe *kp);
	/* Optional (NULL when the kind cannot): detach the programs, keeping
	 * maps and snapshots, and attach them again.  What a duty cycle needs
	 * to hold a step whose events fire faster than its budget allows to
	 * that budget (step_exec.h).  0 or -errno. */
	int (*pause)(struct kind_probe *kp);
	int (*resume)(struct kind_probe *kp);
};

/* The ops of kind k, or NULL when this build has no probe for it. */
const struct kind_ops *kind_ops_get(enum step_kind k);

/* The ops each probe file provides, for kind_ops_get. */
extern const struct kind_ops probe_profile_kind_ops;   /* sample */
extern const struct kind_ops probe_tpstacks_kind_ops;  /* tracepoint_stacks */
extern const struct kind_ops probe_tplat_kind_ops;     /* tracepoint_latency */
extern const struct kind_ops probe_funclat_kind_ops;   /* function_latency */
extern const struct kind_ops kind_offcpu_ops;          /* offcpu */
extern const struct kind_ops probe_counts_kind_ops;    /* counts */

/* --- added by the kinds branch (additive) ---
 *
 * Marker frames.  Every stack a kind puts in step_data.prof is the kernel
 * path of the event's context, ROOT FIRST, followed by one marker frame at
 * the LEAF end whose name starts with '[' (kind_frame_is_marker):
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
 * ntargets of step_data for each kind: kind_ntargets(). */

/* Nonzero when name is a marker frame (starts with '['). */
static inline int kind_frame_is_marker(const char *name)
{
	return name && name[0] == '[';
}

/* How many per-target rows a validated step has: nresolved for
 * tracepoint_stacks, counts, function_latency; 1 for the others (a
 * tracepoint_latency pair is one target). */
unsigned kind_ntargets(const struct step *s);
/* The unit of the profile counts for kind k ("samples", "events",
 * "intervals", "us blocked"). */
const char *kind_unit(enum step_kind k);

/* What one event of kind k costs in BPF run time, in nanoseconds, as
 * tests/bench/kinds.sh measured it here (BENCH.md: sample ~4.2 us a sample
 * at 999 Hz, tracepoint_stacks ~195 ns a firing with 1-in-N stacks, counts
 * ~58 ns, offcpu ~2.2 us a switch, tracepoint_latency ~1.4 us an interval;
 * function_latency as a kprobe pair, ~1.5 us).  The pre-flight's estimate
 * when the kernel gives no BPF statistics: this times the events seen. */
double kind_event_cost_ns(enum step_kind k);

/* tracepoint_stacks with sample_every 0: the rate of the targets (with the
 * filter) is counted for KIND_RATE_PROBE_S seconds by the counts probe
 * before attaching, and 1 in N firings is recorded with a stack, N =
 * ceil(rate / KIND_TPSTACKS_BUDGET) (each recorded firing costs a stack
 * walk, 1-2 us here: 5k/s is ~1% of one CPU; every firing also costs ~100 ns
 * to count, tests/bench/kinds.sh).  Every firing is still counted exactly
 * (step_target_win.events); profile counts are recorded x N. */
#define KIND_TPSTACKS_BUDGET 5000.0    /* recorded firings per second */
#define KIND_RATE_PROBE_S 0.2
/* N for a measured rate (events per second); at least 1. */
unsigned kind_tpstacks_auto_every(double rate);
/* The 1-in-N a tracepoint_stacks probe uses (after automatic choice). */
unsigned kind_tpstacks_every(const struct kind_probe *kp);

/* Pre-flight: firings per second of a validated step's tracepoints
 * (tracepoint_stacks, counts: its targets; tracepoint_latency: begin),
 * with its filter, counted for secs seconds.  0 or -errno with *cause. */
int kind_estimate_rate(const struct step *s, double secs, double *rate, char **cause);

#endif
