/* kind — the table of step kinds: the ops of each (core/probe/kind_ops.h,
 * implemented by core/probe/probe_NAME.c), and what the executor, the
 * pre-flight and the session need to know of a kind without opening it:
 * its targets, its unit, its cost per event, its default CPU budget, and
 * the rate estimate before a heavier step.
 *
 * The table sits above the kinds: it includes their headers, they never
 * include it.
 */
#ifndef ARGUS_KIND_H
#define ARGUS_KIND_H

#include <stdint.h>

#include "probe/kind_ops.h"
#include "data/step.h"

/* The ops of kind k, or NULL when this build has no probe for it. */
const struct kind_ops *kind_ops_get(enum step_kind k);

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

/* The CPU a kind's probe may cost by default, % of one CPU: 2% for sample,
 * whose cost is fixed by its frequency; 5% for the kinds that run on every
 * event (a raw tracepoint costs ~0.1-0.2 us a firing here, and page faults
 * fire ~100k times a second under a fault-heavy load), and for the
 * scheduler-time programs, which run on every switch and wakeup
 * (core/probe/schedtime_duty.h).  The executor's overhead guard holds a step
 * to it (core/step/step_exec.h). */
#define KIND_SAMPLE_BUDGET_PCT 2.0
#define KIND_EVENT_BUDGET_PCT 5.0
/* KIND_SAMPLE_BUDGET_PCT for sample, KIND_EVENT_BUDGET_PCT for the others. */
double kind_default_budget(enum step_kind k);

/* Pre-flight: firings per second of a validated step's tracepoints
 * (tracepoint_stacks, counts: its targets; tracepoint_latency: begin),
 * with its filter, counted for secs seconds.  0 or -errno with *cause. */
int kind_estimate_rate(const struct step *s, double secs, double *rate, char **cause);

#endif
