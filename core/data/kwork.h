/* kwork — which work function a kernel worker ran, read from its sampled
 * kernel stack (issue 15: kworkers named by role and by what they ran).
 *
 * In a kworker's stack the frame that process_one_work called is the work
 * function it was executing when sampled:
 *   ret_from_fork_asm; ret_from_fork; kthread; worker_thread;
 *   process_one_work; vmstat_update; refresh_cpu_vm_stats; ...
 *
 * The stacks are the first source: the tree's numbers are samples, and
 * the stack of each sample says which work item that sample was spent in,
 * at no extra probe cost, live and in a replay alike (a session holds the
 * stacks, old sessions included).  The second, since most of a busy
 * kworker's samples are in the workqueue's own code and name nothing: the
 * workqueue tracepoint (core/probe/probe_workqueue.h), counting what each worker
 * executed during the measurement (struct profile_work, the session's
 * "kwork"); core/data/tree_kwork.c merges the two, the stacks first.
 *
 * What the stack cannot tell: a work function that ends in a tail call
 * (compiled as a jump) is replaced by its callee (on 6.18 refresh_vm_stats
 * shows as refresh_cpu_vm_stats; wq_barrier_func, the flush barrier, as
 * complete or _raw_spin_unlock_irqrestore).  A frame under
 * process_one_work that is one of the workqueue's own helpers (the pool
 * lock, a scheduling point, the tracepoint, an interrupt entry) names no
 * work function: those samples stay unnamed rather than be called work
 * they may not be. */
#ifndef ARGUS_KWORK_H
#define ARGUS_KWORK_H

#include <stddef.h>

/* The work function a stack (frames root first) shows: the frame
 * process_one_work called, or NULL when there is none (no
 * process_one_work, an interrupt entered before it, process_one_work is
 * the leaf, or its callee is a workqueue helper).  The result points into
 * frames; *len (may be NULL) is its length without a compiler suffix
 * (".isra.0", ".cold") or " [module]". */
const char *kwork_func(const char *const *frames, size_t nframes, size_t *len);

/* 1 when a task of this name is a workqueue worker: a kernel thread named
 * "kworker/..." (kthread < 0: not known; a task that is known to be no
 * kernel thread can name itself anything). */
int kwork_is_worker(const char *comm, int kthread);

#endif
