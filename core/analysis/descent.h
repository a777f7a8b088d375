/* descent — the tree-guided descent (descent_run), its reasoning lines, and
 * the little it shares with the heuristic agent's rule table
 * (core/agent/agent_heuristic.c, whose agent_descend wraps descent_run).
 * Its files call down, never back: descent.c (the walk) calls
 * descent_converge.c; both call descent_paths.c (the paths written),
 * descent_frame.c (what a frame is) and descent_why.c (the reasoning
 * lines), which call none of them (tests/docs/circles.py). */
#ifndef ARGUS_DESCENT_H
#define ARGUS_DESCENT_H

#include <string.h>

#include "data/tree.h"
#include "data/verdict.h"

/* The explain share a child must carry of its parent's rise (0.5). */
#define DESCENT_EXPLAIN_DEFAULT 0.5

/* The descent's reasoning: one line per decision, owned (freed with
 * descent_why_clear, or taken over by whoever holds the lines). */
struct descent_why {
	char **lines;
	unsigned nlines;
};

/* core/analysis/descent_why.c: appends a formatted line to w; w NULL:
 * quiet, 0.  0 or -ENOMEM. */
int descent_line(struct descent_why *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void descent_why_clear(struct descent_why *w);

/* Tree-guided descent (doc/ARCHITECTURE.md, "The analysis"): from start (the
 * root when NULL), follow the child with the largest significant positive
 * delta while it explains at least `explain` (DESCENT_EXPLAIN_DEFAULT when
 * out of (0, 1]) of its parent's delta; stop where the delta spreads or at a
 * leaf.  Fills v (found=0 with the numbers when no node is significant) and
 * appends one line per decision to why (may be NULL).  Marks the verdict
 * path with TREE_F_VERDICT.  0 or -errno. */
int descent_run(struct tree *t, const struct tree_node *start, double explain,
		struct verdict *v, struct descent_why *why);

/* core/analysis/descent_paths.c */
/* b from node n: its frames root first (b->path points into names, at most
 * max of them, the tree's strings), the TREE_TIME level above it ("on-cpu"
 * without one), the subsystem of its deepest classified frame, its delta.
 * Blocked or runnable time: the subsystem it waited in, the deepest
 * classified frame above the scheduler's (schedule, io_schedule,
 * preempt_schedule_irq, and the interrupt that preempted it), so a wait on
 * the page cache is mm, on an rwsem locking, for a request block; sched
 * only when nothing else is known above (nanosleep, sched_yield). */
void descent_branch_of(const struct tree_node *n, struct verdict_branch *b, char **names,
		       unsigned max);
/* The waker of blocked time at or below n: the "[woken by ...]" marker
 * (core/model/timeacct.h) with the largest rise there, else the largest loaded
 * count, into who ("softirq BLOCK") and cls ("softirq"); "" when none. */
void descent_waker_of(const struct tree_node *n, char *who, size_t wlen, char *cls,
		      size_t clen);
/* Marks n and its ancestors TREE_F_VERDICT. */
void descent_mark_path(struct tree_node *n);
/* "blocked, mm: ... > a > b" for summaries; fallback when b has no frames. */
void descent_short_path(const struct verdict_branch *b, const char *fallback, char *buf,
			size_t len);
/* Notes on v for the tops of the significant chains of sign below under
 * (at most 5, then a count).  0 or -errno. */
int descent_note_moves(struct verdict *v, struct tree_node *under, int sign);

/* core/analysis/descent_frame.c: what a frame is to the descent, by name */
/* a grouping level (the root, process, time, subsystem, command): not a code
 * path, its children are unrelated entries */
int descent_is_grouping(const struct tree_node *n);
/* a frame that only dispatches: syscall and exception entry, kthread loops */
int descent_is_dispatch(const struct tree_node *n);
/* a generic syscall or exception entry or exit frame (not __x64_sys_getpid,
 * which names its syscall): no branch ends at one */
int descent_is_entry(const struct tree_node *n);

/* a scheduler frame a thread enters to wait (schedule, io_schedule,
 * schedule_timeout...), not one it is preempted in or yields through: the
 * switch below it is that wait's cost */
int descent_is_wait_entry(const char *name);
/* A frame that fills a cache (page cache or directory block read, slab
 * growth, an inode read in): what a cold start does (descent_frame.c). */
int descent_is_cache_fill(const char *name);

/* v, a verdict over t: when t is the later phase of a measurement
 * (t->phase_earlier), v says so (its phase fields, and a note naming the
 * earlier phase's verdict).  descent_run calls it; so does the analysis
 * for the verdict it keeps.  0 or -ENOMEM. */
int descent_phase_carry(const struct tree *t, struct verdict *v);

/* a grouping level, a dispatch frame (syscall, exception, kthread entry) or
 * a skid frame: not a code path of its own */
int descent_not_a_path(const struct tree_node *n);

/* sampling skid by frame name (no hardware PMU: cpu-clock cannot fire with
 * interrupts off, so that time lands where they come back on) */
enum descent_skid {
	DESCENT_SKID_NONE,
	DESCENT_SKID_ENTRY,   /* self time is entry cost with interrupts off: pass through */
	DESCENT_SKID_UNLOCK,  /* self time belongs to the caller's interrupts-off section */
};
enum descent_skid descent_skid_of(const struct tree_node *n);

/* an unlock frame whose self time is sampling skid
 * (finish_task_switch, _raw_spin_unlock_irqrestore): the time belongs to
 * the interrupts-off section of whoever called it */
int descent_is_unlock_skid(const struct tree_node *n);

/* a call that turns interrupts back on (a
 * paravirtualised kernel's pvm_irq_enable, xen_irq_enable_direct and their
 * thunks): its subtree is sampling skid of its caller's interrupts-off
 * section, counted as the caller's own time */
int descent_is_irq_on(const struct tree_node *n);
/* the rise per second (load - reference) of n's irq-on children's subtrees */
double descent_irq_on_below(const struct tree_node *n, const double secs[COND_N]);

/* core/analysis/descent_converge.c: when the walk's answer (walk_stop, in v) is
 * spread or weak, the function the increase converges on, summed over its
 * callers below start, replaces v's path, leaf, subsystem and evidence and
 * fills v->convergence and v->callers.  secs: the windows' seconds per
 * condition.  1 when it did, 0 when nothing converges, -errno. */
int descent_converge(struct tree *t, const struct tree_node *start, double explain,
		     const struct tree_node *walk_stop, const double secs[COND_N],
		     struct verdict *v, struct descent_why *r);

/* name equals want once a compiler suffix (".isra.0", ".cold", ...) is cut */
static inline int descent_name_is(const char *name, const char *want)
{
	size_t n = strcspn(name, ".");

	return strlen(want) == n && !strncmp(name, want, n);
}

/* a node whose own delta rises significantly */
static inline int descent_is_up(const struct tree_node *n)
{
	return n->stat.significant && n->stat.sign > 0 && n->stat.delta > 0;
}

#endif
