/* probe_tpstacks — the tracepoint_stacks step's probe: firings of raw tracepoints
 * counted per kernel stack, in the kernel (bpf/tpstacks.bpf.c).
 *
 * Attaches by name (raw_tp: no tracefs needed).  Every firing that passes
 * the filter is counted exactly per tracepoint (totals.fired); 1 in
 * sample_every firings is recorded with its kernel stack.  Recorded counts
 * times sample_every estimate the firings per stack; the difference between
 * that sum and totals.fired is at most sample_every per CPU per tracepoint.
 * Counts are cumulative from open: a reader that wants windows subtracts.
 * Everything is owned by the struct's fds: probe_tpstacks_free (or process exit)
 * detaches and unloads it.
 */
#ifndef ARGUS_PROBE_TPSTACKS_H
#define ARGUS_PROBE_TPSTACKS_H

#include <stdint.h>

#include "probe/kind_ops.h"

struct step;

struct probe_tpstacks_opts {
	const char *const *tracepoints; /* "name" or "category:name" (category ignored) */
	unsigned ntps;                  /* 1 .. 64 */
	unsigned sample_every;          /* 0 or 1: record every firing */
	unsigned max_stacks;            /* distinct stacks; 0 = STEP_DEFAULT_MAX_STACKS */
	int pid, tgid;                  /* 0 = any */
	const char *comm;               /* NULL = any */
	const char *cgroup;             /* cgroup v2 directory; NULL = any */
};

struct probe_tpstacks_stack {
	unsigned tp;                    /* index into opts.tracepoints */
	uint32_t tgid;
	char comm[16];
	const uint64_t *ips;            /* kernel addresses, leaf first; valid during the
	                                   callback; the leaf frames are the BPF machinery
	                                   (bpf_prog_*, bpf_trace_run*): symbolisers drop them */
	unsigned nips;                  /* 0 when no stack could be taken */
	const uint64_t *uips;           /* the user stack under it, leaf first, as
	                                   the kernel walked it (frame pointers) */
	unsigned nuips;                 /* 0: none (a kernel thread, or not taken) */
	uint32_t ustack_id;             /* TPSTACKS_NO_STACK (0xffffffff): none */
	uint64_t count;                 /* recorded firings (multiply by sample_every) */
	uint32_t stack_id;              /* the kernel's stack id (TPSTACKS_NO_STACK:
	                                   none); with tp, tgid and comm it names the
	                                   counter, for readers that keep snapshots */
};

struct probe_tpstacks_totals {
	uint64_t fired;                 /* firings that passed the filter, exact */
	uint64_t filtered_out;
	uint64_t recorded;
	uint64_t stack_error;
	uint64_t count_map_full;        /* recorded but lost: the counts map was full */
	uint64_t ustack_error;          /* counted with no user stack: it could not be taken */
};

typedef int (*probe_tpstacks_cb)(void *arg, const struct probe_tpstacks_stack *s);

struct probe_tpstacks;

/* Loads and attaches.  Returns NULL with errno set and *cause (caller frees)
 * saying what failed and what to do. */
struct probe_tpstacks *probe_tpstacks_open(const struct probe_tpstacks_opts *o, char **cause);
/* The same for a validated tracepoint_stacks step (its resolved targets,
 * filter, sample_every and max_stacks). */
struct probe_tpstacks *probe_tpstacks_open_step(const struct step *s, char **cause);
void probe_tpstacks_free(struct probe_tpstacks *t); /* NULL-safe; detaches */

/* Calls cb once per counted {stack, tracepoint, tgid, comm}; stops when cb
 * returns nonzero and returns that.  0 or -errno otherwise. */
int probe_tpstacks_read(struct probe_tpstacks *t, probe_tpstacks_cb cb, void *arg);
/* Totals of tracepoint tp summed over CPUs; 0 or -errno. */
int probe_tpstacks_totals(struct probe_tpstacks *t, unsigned tp, struct probe_tpstacks_totals *out);
unsigned probe_tpstacks_sample_every(const struct probe_tpstacks *t);
/* Records 1 in n firings from now on (n <= 1: every one); takes effect while
 * attached.  Counts already recorded keep the old n: change it only right
 * after reading them. */
void probe_tpstacks_set_sample_every(struct probe_tpstacks *t, unsigned n);
/* Detaches the programs (maps and counts kept; nothing runs) and attaches
 * them again: a duty cycle's off and on.  attach: 0 or -errno, *cause
 * (may be NULL). */
void probe_tpstacks_detach(struct probe_tpstacks *t);
int probe_tpstacks_attach(struct probe_tpstacks *t, char **cause);
/* Adds the BPF run time and runs of its programs (run-time statistics must
 * be on, see kind_stats_enable) to *ns and *cnt. */
void probe_tpstacks_runtime(struct probe_tpstacks *t, uint64_t *ns, uint64_t *cnt);

/* The tracepoint_stacks kind (core/probe/kind.c's table). */
extern const struct kind_ops probe_tpstacks_kind_ops;

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

#endif
