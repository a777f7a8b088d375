/* timeacct — the wall-clock tree's counts: each diagnosed thread's whole
 * time, per measurement window, in one profile (issue 11 item 4).
 *
 * The sampler (core/probe_profile) gives on-CPU time by kernel stack;
 * core/probe_schedtime gives blocked time (by the kernel stack at the
 * block, with the waker) and runnable time (with who ran instead), and the
 * exact on-CPU time per thread.  timeacct_collect reads both at the same
 * instant into one profile window:
 *
 *   [on-cpu]   ; <sampled kernel stack>                      (sampler)
 *   [on-cpu]   ; [user space]          on-CPU time the sampler has no
 *                                      kernel stack for: user mode, and
 *                                      samples lost (exact on-CPU minus the
 *                                      kernel samples, per process)
 *   [blocked]  ; <stack at the block> ; [woken by task COMM (tgid T)]
 *                                     | [woken by softirq BLOCK]
 *                                     | [woken by hardirq N] | [woken by hardirq timer]
 *                                     | [no wakeup seen] | [still blocked at a read]
 *   [runnable] ; <stack at preemption or block> ;
 *                [ran instead: cgroup /PATH] ; [ran instead: COMM] ; [tgid T]
 *                                     | [ran instead: idle] | [still runnable at a read]
 *              (who ran instead grouped by cgroup, when the task has one
 *              of its own, and by command: several worker processes of one
 *              aggressor are one node)
 *
 * Unit: the sampler's.  Blocked, runnable and the user-space remainder are
 * turned into sample-equivalents at the sampling frequency (ns * freq /
 * 1e9, the remainder carried to the next window per key), so the tree,
 * the calibration and the descent compare the three kinds with the same
 * machinery, and a node's cpu_ms reads as thread-ms per second: a thread's
 * three parts add up to 1000 thread-ms per second.  (Samples rather than
 * seconds because every consumer of profiles — calibration, sessions,
 * export — counts integers at the sampling frequency.)  The markers are
 * ordinary frames of the profile, so sessions record them and replay and
 * export show the same tree; core/tree groups them (enum tree_time).
 */
#ifndef ARGUS_TIMEACCT_H
#define ARGUS_TIMEACCT_H

#include <stddef.h>
#include <stdint.h>

#include "data/ksym.h"
#include "probe/probe_profile.h"
#include "data/profile.h"

struct timeacct;

struct timeacct_opts {
	unsigned freq_hz;            /* the sampler's frequency (the unit) */
	uint32_t exclude_tgid;       /* never tracked (argus); 0: none */
	double budget_pct;           /* the scheduler-time programs' CPU budget, %
	                              * of one CPU: above it they are attached only
	                              * part of each window (the duty cycle below);
	                              * 0: KIND_EVENT_BUDGET_PCT; < 0: attached all
	                              * the time */
	int stats;                   /* the cost from BPF run-time statistics (else
	                              * switches * SCHEDTIME_DUTY_NS_PER_SWITCH) */
	int user_stacks;             /* blocked and runnable time with the user
	                              * stack where it began (issue 27), as the
	                              * sampler's on-CPU stacks have theirs */
};

/* Tracks the processes tgids (their children join).  NULL with errno and
 * *cause (caller frees). */
struct timeacct *timeacct_open(const uint32_t *tgids, size_t ntgids,
			       const struct timeacct_opts *o, char **cause);
void timeacct_close(struct timeacct *ta); /* NULL-safe: detaches */

/* The duty cycle (issue 26).  The programs run on every context switch of
 * the tracked threads: a message-heavy victim (a ping-pong: ~3*10^5 a
 * second) costs 7-14% of a CPU watched all the time, over the 5% budget.
 * So, as `argus model` does (core/probe/schedtime_duty.h), when their cost
 * while attached is over the budget they are attached only at the end of
 * each window, as long as the budget allows, and detached the rest; the
 * window's blocked and runnable intervals are corrected for the length
 * bias of the phases, and each thread's on-CPU, runnable and blocked
 * totals in the window are the kernel's own, shared over the stacks and
 * wakers the programs saw (probe_schedtime_read_window with wall_totals:
 * core/probe/schedtime_wall.h), so a node's thread-ms per second means
 * what it means watched all the time.  What it costs: where a thread's
 * waits are longer than an on-phase, their shares among its stacks are
 * less sure (no weight sees what is never whole in a phase); its totals
 * are not.
 *
 * timeacct_window: the next window is [start, start + len) (its on-phase
 * ends just before its read); timeacct_tick attaches or detaches when due
 * (0 or -errno with *cause); timeacct_next: when it is due next
 * (util_mono_s's base; a large value when never). */
void timeacct_window(struct timeacct *ta, double start, double len, double now);
int timeacct_tick(struct timeacct *ta, double now, char **cause);
double timeacct_next(const struct timeacct *ta);

/* What the programs cost so far: the attached fraction of the time, the
 * on-phases that ended, and their BPF run time in % of one CPU, on average
 * and while attached; budget_pct the budget in force. */
struct timeacct_cost {
	double attached, cost_pct, cost_on_pct, budget_pct, secs;
	unsigned phases;
	int measured;                /* from BPF run-time statistics */
	int cycle;                   /* could be duty-cycled (budget >= 0) */
};
void timeacct_cost(const struct timeacct *ta, double now, struct timeacct_cost *out);

/* Adds a process (a load started later).  0 or -errno. */
int timeacct_add_tgid(struct timeacct *ta, uint32_t tgid);

/* Reads the sampler pp and the scheduler times since the previous collect
 * into window win of p (stacks symbolised with ks).  Returns the samples
 * and sample-equivalents added, or -errno. */
int64_t timeacct_collect(struct timeacct *ta, struct probe_profile *pp, struct profile *p,
			 unsigned win, const struct ksym_table *ks);

/* What the last collect read, as a wait graph (core/data/waitgraph.h: who
 * woke whom, blocked time by stack, on-CPU and runnable time per thread),
 * for the model (core/model/model.h); its secs is 0 (the caller knows the
 * interval).  NULL before the first collect; valid until the next one. */
struct waitgraph;
const struct waitgraph *timeacct_waits(const struct timeacct *ta);

/* Text of a blocked/runnable entry's last frame (see above) into buf. */
struct schedtime_key;
char *timeacct_leaf(const struct schedtime_key *k, char *buf, size_t len);

#endif
