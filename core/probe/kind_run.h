/* kind_run — what a step kind's probe does between open and close, the
 * same for every kind over one BPF program (core/probe_NAME.c): the counts
 * since open, the snapshot of monotonic map values and the stack cache
 * (core/probe/kind_util.h), BPF run-time statistics held on, and the window pass
 * behind collect, discard and stats (core/probe/kind.h's ops).
 *
 * A kind's struct starts with a struct kind_run, so that a struct
 * kind_probe * is one: kind_run_collect, kind_run_discard and
 * kind_run_stats are then the kind's ops themselves, and the kind provides
 * only what differs (open, close, its pass over its maps, its programs' run
 * time).  Nothing here knows a skeleton.
 */
#ifndef ARGUS_KIND_RUN_H
#define ARGUS_KIND_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "probe/kind.h"
#include "probe/kind_util.h"

struct kind_run;

/* Reads what accrued since the last pass into window w of d (d NULL: the
 * pass discards, only the counts since open and the snapshots move).
 * 0 or -errno. */
typedef int (*kind_run_pass_fn)(struct kind_run *r, struct step_data *d, unsigned w);
/* Adds the kind's programs' run time and run count to *ns and *cnt. */
typedef void (*kind_run_runtime_fn)(struct kind_run *r, uint64_t *ns, uint64_t *cnt);

struct kind_run {
	/* set by the kind's open */
	kind_run_pass_fn pass;
	kind_run_runtime_fn runtime;
	unsigned progs;             /* programs attached (kind_stats.progs) */
	unsigned ntargets;          /* a collect's step_data must have as many
	                               targets (0: not checked) */
	/* owned; kind_run_open, kind_run_start */
	struct kind_snap *snap;     /* the kind's map key -> values last seen */
	struct kind_stacks *stacks; /* NULL for a kind without stacks */
	int stats_fd;               /* kind_stats_enable's, or -1 */
	uint64_t events, lost;      /* since open */
	/* the pass in progress */
	struct step_data *d;        /* NULL while discarding */
	unsigned w;
	const struct ksym_table *ks;
};

/* The first step of a kind's open, on its zeroed struct: r holds nothing
 * yet (kind_run_fini is safe from here on) and gets pass, runtime and
 * progs; s's filter is resolved into *f, and a snapshot of key_size-byte
 * keys to nv values is made (key_size 0: none).  0, or -errno with *cause
 * (caller frees). */
int kind_run_open(struct kind_run *r, const struct step *s, kind_run_pass_fn pass,
		  kind_run_runtime_fn runtime, unsigned progs, size_t key_size, unsigned nv,
		  struct kind_filter *f, char **cause);
/* The last step of a kind's open, once its probe is attached: the stack
 * cache reading stacks with read(probe) (read NULL: none), and BPF run-time
 * statistics turned on while r lives.  0, or -ENOMEM with *cause. */
int kind_run_start(struct kind_run *r, kind_stack_read_cb read, void *probe, char **cause);
/* Releases what r holds (not r itself, part of the kind's struct). */
void kind_run_fini(struct kind_run *r);

/* The kind ops over a struct whose first member is a struct kind_run. */
int kind_run_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
		     const struct ksym_table *ks);
int kind_run_discard(struct kind_probe *kp);
void kind_run_stats(struct kind_probe *kp, struct kind_stats *st);

/* For a pass: the growth of the monotonic count of key since the last pass
 * (kept in r's snapshot, value 0) goes to the profile of window r->w as
 * count stack_id's frames then the marker frame, for process tgid and comm
 * (comm_len bytes).  Nothing is added while discarding.  0 or -errno. */
int kind_run_stack(struct kind_run *r, const void *key, uint64_t count, uint32_t stack_id,
		   const char *marker, uint32_t tgid, const char *comm, size_t comm_len);

/* For a pass of an interval kind: what a probe's cumulative totals grew by
 * since the last pass goes to target i of window w of d (d NULL: only to
 * the counts since open): ev completed intervals (events = recorded), lost
 * (also the window's), ns their summed durations, and the histogram's
 * growth, from prev_hist to hist (nb log2 buckets of 64-bit counters
 * each). */
void kind_run_intervals(struct kind_run *r, struct step_data *d, unsigned w, unsigned i,
			uint64_t ev, uint64_t lost, uint64_t ns, const void *hist,
			const void *prev_hist, unsigned nb);

#endif
