/* probe_schedtime — where tracked threads' time goes off the CPU
 * (bpf/schedtime.bpf.c; the contract between the sides is bpf/schedtime.h).
 *
 * For every tracked thread the kernel aggregates, without an event per
 * context switch to user space:
 *   BLOCKED   switched out not runnable -> its wakeup, by the kernel stack at
 *             the block, with the waker: a task (pid, tgid, comm), a hardirq
 *             (irq number, SCHEDTIME_IRQ_TIMER for an hrtimer expiry,
 *             SCHEDTIME_IRQ_OTHER for IPIs and the like) or a softirq
 *             (vector), or NONE when no wakeup was seen;
 *   RUNNABLE  woken or preempted -> switched in, with the task that ran on
 *             that CPU just before it (pid 0, "swapper/N": the CPU was idle);
 *   ONCPU     switched in -> switched out (no stack; the sampler has the
 *             on-CPU stacks) — so blocked + runnable + on-CPU is the
 *             thread's wall time while tracked.
 * Each {schedtime_key} -> {count, total_ns, log2 histogram}.
 *
 * Cost: these programs run on every context switch and wakeup of the
 * machine (~10^5-10^6 a second under a message-heavy load), so:
 *  - walking a kernel stack is most of a switch's cost: the stack at a
 *    block is walked once per SCHEDTIME_REWALK (32) blocks of the same
 *    thread in the same syscall and task state (or preemption) and reused
 *    in between (two such places cached per thread): a thread that blocks
 *    at two places within one syscall in the same state may see up to 31
 *    of its blocks under the other place's stack;
 *  - sampling: a thread's first sample_after blocked/runnable intervals in
 *    a window (a read_window to the next) are counted exactly; beyond, each
 *    is sampled with probability 1/2^PROBE_SCHEDTIME_SAMPLE_SHIFT and
 *    charged with that weight (count, time, histogram): an unbiased
 *    estimate whose relative error is ~1/sqrt(sampled intervals); on-CPU
 *    time is always exact.  opts.exact turns it off.  Counters.unsampled
 *    says how many intervals were estimated.
 *
 * Two ways to read:
 *   probe_schedtime_read          cumulative since open (or reset);
 *   probe_schedtime_read_window   what accrued since the previous
 *                                 read_window: per-window counts for the
 *                                 calibration, as the sampler's collect.
 * With opts.windows, intervals are split at each read_window: the part of
 * an interval still in progress at the read is returned then, under a key
 * whose other_kind is SCHEDTIME_OTHER_PENDING (the waker is not known yet),
 * and the kernel charges the rest when it ends; so a thread blocked for
 * seconds shows its time in every window it covers, not in a lump at the
 * end.  (An interval that ends during the read itself, between the moving
 * of the epoch and the read of its state, loses its part before the read:
 * at most a read's duration, a few hundred microseconds, per such
 * interval.)  Without opts.windows intervals are charged whole when they
 * end.
 *
 * Filter: opts.filter (pid, tgid, comm, cgroup: the step filter of
 * bpf/filter.bpf.h) and/or a set of processes (opts.tgids, with their
 * children when follow_forks); with neither, every task except
 * exclude_tgid.  Threads of tracked processes that exist at open are seeded
 * from /proc (state R: running or runnable; otherwise blocked since open,
 * no stack), so a thread blocked through the whole run is still counted.
 *
 * Duty cycling: probe_schedtime_detach destroys the programs' links (they
 * cost nothing until probe_schedtime_attach; the maps stay), so a caller
 * can hold a CPU budget on a load that switches too often to be watched
 * all the time (core/probe/schedtime_duty.h decides when).  After a gap a
 * thread's state is stale: blocked and runnable intervals are charged only
 * when they begin and end within one on-phase (those in progress at a
 * detach are lost), on-CPU time is exact over the attached time (the parts
 * in progress at a detach are credited then, as PENDING parts of the next
 * read_window).  A snapshot says how long the programs were attached in
 * it (attached_secs: what its counts are a rate of) and the phases that
 * ended in it; once a gap happened, read_window corrects its blocked and
 * runnable entries for the length bias of the phases
 * (schedtime_duty_reweight).  Call read_window between phases (detached):
 * a phase split by a read is weighted as two.
 *
 * Everything is owned by this process's fds: close (or exit) leaves nothing
 * loaded.
 */
#ifndef ARGUS_PROBE_SCHEDTIME_H
#define ARGUS_PROBE_SCHEDTIME_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include "../../bpf/schedtime.h"
#include "probe/kind_util.h"
#include "probe/schedtime_snap.h"

struct ksym_table;

struct probe_schedtime_opts {
	const struct kind_filter *filter; /* NULL: no step filter */
	const uint32_t *tgids;      /* track only these processes ... */
	size_t ntgids;
	int tgid_set;               /* ... nonzero: even when ntgids is 0 (added
	                             * later with probe_schedtime_add_tgid) */
	int follow_forks;           /* children of tracked processes join */
	uint32_t exclude_tgid;      /* never tracked (argus itself); 0: none */
	int windows;                /* split intervals at read_window (above) */
	int no_stacks;              /* no kernel stacks (stack_id NO_STACK): cheaper,
	                             * for who-wakes-whom without where */
	int exact;                  /* every interval charged (no sampling, above);
	                             * costs more per switch on busy threads */
	unsigned sample_after;      /* exact intervals per thread and window
	                             * before sampling; 0: PROBE_SCHEDTIME_SAMPLE_AFTER */
	int stats;                  /* turn on BPF run-time statistics while open
	                             * (probe_schedtime_runtime; they cost two
	                             * clock reads per program run) */
	int wall_totals;            /* duty-cycled windows: each thread's times
	                             * made exact and per wall second from /proc
	                             * (core/probe/schedtime_wall.h); else they
	                             * are per attached second, as the model wants */
	int user_stacks;            /* the user stack too, at every sampled block
	                             * and preemption (issue 27): the call site
	                             * of a wait, symbolised per entry */
	unsigned max_ustacks;       /* user stack map entries; 0: max_stacks
	                             * (SCHEDTIME_MAX_USTACKS at most) */
	unsigned max_threads;       /* threads tracked at once; 0: 16384 */
	unsigned max_stacks;        /* stack map entries; 0: 16384 */
	unsigned max_keys;          /* aggregate keys; 0: 65536 */
};

#define PROBE_SCHEDTIME_SAMPLE_SHIFT 3    /* 1 in 8 beyond sample_after */
#define PROBE_SCHEDTIME_SAMPLE_AFTER 1024 /* a thread switching less than ~1000
                                           * times a window is counted exactly */

struct probe_schedtime;

/* Loads and attaches (tp_btf, else raw_tp).  NULL with errno set and
 * *cause (caller frees). */
struct probe_schedtime *probe_schedtime_open(const struct probe_schedtime_opts *o,
					     char **cause);
void probe_schedtime_close(struct probe_schedtime *ps); /* NULL-safe */

/* Adds a process to the tracked set (its existing threads are seeded).
 * 0 or -errno; a no-op without a set. */
int probe_schedtime_add_tgid(struct probe_schedtime *ps, uint32_t tgid);

/* Snapshots; stacks symbolised with ks (NULL: hex addresses).  *out is the
 * caller's (probe_schedtime_snap_free, core/probe/schedtime_snap.h).
 * 0 or -errno. */
int probe_schedtime_read(struct probe_schedtime *ps, const struct ksym_table *ks,
			 struct probe_schedtime_snap **out);
int probe_schedtime_read_window(struct probe_schedtime *ps, const struct ksym_table *ks,
				struct probe_schedtime_snap **out);

/* Detaches every program (nothing runs until attach; counts are kept).
 * 0 (also when detached already) or -errno. */
int probe_schedtime_detach(struct probe_schedtime *ps);
/* Attaches them again: a new on-phase.  0 (also when attached) or -errno
 * with *cause (caller frees; the programs stay detached). */
int probe_schedtime_attach(struct probe_schedtime *ps, char **cause);
int probe_schedtime_attached(const struct probe_schedtime *ps);

/* Zeroes what was counted (the programs stay attached).  0 or -errno. */
int probe_schedtime_reset(struct probe_schedtime *ps);

/* Counters summed over CPUs.  0 or -errno. */
int probe_schedtime_counters(struct probe_schedtime *ps, struct schedtime_counters *out);
/* BPF run time and runs of all its programs since load (opts.stats). */
void probe_schedtime_runtime(struct probe_schedtime *ps, uint64_t *ns, uint64_t *cnt);
/* The programs' cost so far, ns of CPU, as a duty cycle needs it: their
 * BPF run time when run-time statistics are on (measured), else their
 * switches at SCHEDTIME_DUTY_NS_PER_SWITCH (core/probe/schedtime_duty.h). */
double probe_schedtime_cost_ns(struct probe_schedtime *ps, int measured);
/* The modules (files, build-ids) its user stacks named so far, into p's
 * table (data/profile.h), for pprof's mappings.  0 or -ENOMEM. */
struct profile;
int probe_schedtime_modules(struct probe_schedtime *ps, struct profile *p);
/* "tp_btf" or "raw_tp". */
const char *probe_schedtime_mechanism(const struct probe_schedtime *ps);

#endif
