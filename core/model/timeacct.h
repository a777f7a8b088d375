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

/* Tracks the processes tgids (their children join), sampling at freq_hz;
 * exclude_tgid is never tracked (argus).  NULL with errno and *cause
 * (caller frees). */
struct timeacct *timeacct_open(const uint32_t *tgids, size_t ntgids, unsigned freq_hz,
			       uint32_t exclude_tgid, char **cause);
void timeacct_close(struct timeacct *ta); /* NULL-safe: detaches */

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
