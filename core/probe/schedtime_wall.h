/* schedtime_wall — a duty-cycled window's per-thread times made exact
 * from the kernel's own counters (issue 26 item 2).
 *
 * Why: duty-cycled (core/probe/schedtime_duty.h), the scheduler-time
 * programs see only the intervals that begin and end within an on-phase.
 * Scaling what they saw by wall / attached time is right for a thread of
 * short intervals (a ping-pong's microseconds) and wrong for one that
 * blocks for longer than a phase (a pool's idle worker, a main thread in
 * pthread_join): never seen whole, it vanished from the window (tier3 as a
 * victim: 6.1 thread-s/s of 9.0).  The kernel counts each thread's time
 * exactly whatever argus watches: /proc/TGID/task/TID/schedstat gives its
 * on-CPU time and its time waiting on a run queue (run_delay); the rest of
 * the window's wall time it was blocked.  So each thread's entries of a
 * kind are scaled to that kind's exact total (their shares stay the
 * programs': which stacks, which wakers), and a thread seen blocked at the
 * read with no blocked entry gets its blocked total on its placeholder
 * (the stack it blocked in, "no wakeup seen").
 *
 * Only where the programs were detached in the window: attached all along
 * they are exact already, and reading a file per thread per window would
 * cost more than it gives.  A thread with no earlier count (new, or the
 * first duty-cycled window) or gone from /proc is scaled by wall /
 * attached time instead.  Counts and histograms are scaled by wall /
 * attached time (rates per wall second).
 */
#ifndef ARGUS_SCHEDTIME_WALL_H
#define ARGUS_SCHEDTIME_WALL_H

#include <stddef.h>
#include <stdint.h>

#include "probe/schedtime_snap.h"

struct schedtime_wall_thread {
	uint32_t pid, tgid;
	char comm[SCHEDTIME_COMM_LEN];
};

struct schedtime_wall_base;

struct schedtime_wall {
	struct schedtime_wall_base *base; /* per thread: counters at the last fix */
	size_t n;
};

/* Scales s (a read_window's snapshot, already reweighted for the length
 * bias) as above; th: the tracked threads at the read.  Counters are
 * taken at every call (so the next duty-cycled window has them); s is
 * changed only when s->attached_secs < s->secs.  0 or -ENOMEM. */
int schedtime_wall_fix(struct schedtime_wall *w, const struct schedtime_wall_thread *th, size_t n,
		       struct probe_schedtime_snap *s);
void schedtime_wall_fini(struct schedtime_wall *w);

#endif
