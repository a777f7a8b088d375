/* tree — the calling-context tree built from a profile.
 *
 * Root "all" -> subsystem nodes (mm, sched, fs, ...; see core/subsys) ->
 * kernel frames, root first.  With TREE_BY_PROCESS a process level sits
 * between the root and the subsystems; with time accounting (enum
 * tree_time) a level of the kinds of time sits above the subsystems:
 * all -> [process] -> on-cpu|blocked|runnable -> subsystem -> frames.
 * A command name with several processes gets a TREE_COMMAND level above
 * them: all -> cc1 (x4) -> cc1 [123] -> ....  Every node carries, per condition,
 * its total and self counts and, per window, its total — the raw material of
 * calibration (core/calib), which fills node->stat.
 *
 * Node ids are a hash of the path from the root, so they are stable across
 * rebuilds: the TUI keys its expanded/selected state by them.
 *
 * The tree copies every name it needs; it does not reference the profile
 * after tree_build returns.
 */
#ifndef ARGUS_TREE_H
#define ARGUS_TREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/profile.h"
#include "data/subsys.h"

enum tree_node_kind {
	TREE_ROOT,
	TREE_PROCESS,   /* only with TREE_BY_PROCESS */
	TREE_SUBSYS,
	TREE_FRAME,
	TREE_EVENT,     /* a tracepoint's own node (instrumentation steps) */
	TREE_COMMAND,   /* by process: the processes of one command name
	                 * (comm) when it has two or more, above their
	                 * TREE_PROCESS nodes; named by the comm alone (its id
	                 * stays when processes come and go), nproc says how
	                 * many; its counts are the sum of its processes' */
	TREE_TIME,      /* the kind of time, a grouping level above the
	                 * subsystems: "on-cpu", "blocked", "runnable" (issue 11;
	                 * blocked/runnable counted in sample-equivalents, so all
	                 * three compare with the sampler's counts) */
};

/* Presence of a node in the two conditions. */
enum tree_presence {
	TREE_BOTH,
	TREE_NEW,       /* counts only when loaded */
	TREE_VANISHED,  /* counts only in the reference */
};

/* Filled by calib_run; zero before. */
struct calib_stat {
	double rate[COND_N];      /* samples per second in each condition */
	double cpu_ms[COND_N];    /* CPU-ms per second (rate / freq * 1000) */
	double delta;             /* rate[LOAD] - rate[REF] */
	double ratio;             /* rate[LOAD] / rate[REF]; INFINITY when ref is 0 */
	double p;                 /* two-sided p-value of the rate test */
	double q;                 /* Benjamini–Hochberg adjusted p-value */
	int anytime;              /* p is the anytime-valid sequential one
	                           * (calib_opts.sequential; q is then e-BH) */
	unsigned pairs;           /* reference/loaded pairs compared */
	unsigned pairs_agree;     /* pairs whose delta has the sign of delta */
	int significant;          /* q <= alpha and sign-consistent */
	int sign;                 /* +1, -1 or 0 (not significant) */
	double share_of_parent;   /* delta / parent's delta (descent); 0 when
	                           * the parent's delta is 0, 1 for the root */
	const char *why;          /* static text: why (not) significant */
	/* Rises and falls kept apart (issue 11; calib_masses).  rise: the
	 * significant increase below the node, in its own unit: the larger of
	 * its own delta when it rises significantly and the sum of its
	 * children's rises plus its own significant self increase; fall the
	 * same for decreases (a positive number).  A node whose net delta is
	 * ~0 or negative can still carry a rise: a new path under a parent
	 * whose other paths fall. */
	double rise, fall;
	int self_sign;            /* +1/-1: its self count changed significantly
	                           * (uncorrected rate test at alpha); 0 not */
};

struct strpool;
struct tree_annot; /* step results attached to a node (core/data/tree_annot.h) */

/* Who a node's samples belong to: one entry per process, in a tree by
 * subsystem (a tree by process says it with its process level).  How
 * displaced work is told from the diagnosed work (core/analysis/descent.c). */
struct tree_proc {
	uint32_t tgid;
	const char *comm;          /* owned by the tree */
	uint64_t total[COND_N];
	struct tree_proc *next;
};

/* Who a process is (issue 15): a copy of the profile's struct
 * profile_ident, strings owned by the tree ("" when unknown). */
struct tree_ident {
	uint32_t tgid;
	const char *comm, *cmdline, *exe, *cgroup, *unit, *container, *role, *threads;
	int kthread;
};

/* What a kernel worker ran (issue 15): the work functions its sampled
 * stacks show (core/data/kwork.h), with their samples, and those the workqueue
 * tracepoint counted it executing (struct profile_work), with their
 * executions.  The two sources are merged by name (without a compiler
 * suffix or module); the stacks take precedence: their samples order the
 * functions, executions order those no sample names. */
struct tree_work {
	const char *func;          /* owned by the tree; base name */
	uint64_t total[COND_N];    /* samples whose stack names it */
	uint64_t exec[COND_N];     /* executions the tracepoint counted */
};

struct tree_kworker {
	uint32_t tgid;
	unsigned nwork;
	const struct tree_work *work; /* nwork: most samples first, then most
	                           * executions, then by name */
	uint64_t total[COND_N];    /* all its samples, in a work function or not */
	uint64_t exec[COND_N];     /* all its executions (tracepoint) */
};

struct tree_node {
	uint64_t id;              /* hash of the path from the root */
	const char *name;         /* owned by the tree */
	enum tree_node_kind kind;
	enum subsys subsys;       /* subsystem of the path it belongs to */
	uint32_t tgid;            /* TREE_PROCESS nodes only */
	unsigned nproc;           /* TREE_COMMAND nodes: its processes */
	const struct tree_ident *ident; /* TREE_PROCESS nodes: who it is, when
	                           * the profile knew (owned by the tree); NULL */
	const struct tree_kworker *kwork; /* TREE_PROCESS nodes of kworkers: what
	                           * they ran (owned by the tree); NULL */
	unsigned depth;           /* root is 0 */
	struct tree_node *parent;
	struct tree_node **child; /* nchild children, in build order until
	                           * tree_sort: subsystems in enum order,
	                           * frames by first appearance of the name */
	unsigned nchild, child_cap;
	uint64_t total[COND_N];
	uint64_t self[COND_N];
	uint64_t *win_total;      /* one per window (tree->nwin) */
	enum tree_presence presence;
	struct calib_stat stat;
	struct tree_annot *annot; /* NULL or a list owned by the tree */
	unsigned flags;           /* TREE_F_* */
	struct tree_proc *procs;  /* by-subsystem trees: its processes, owned by
	                           * the tree; in trees by process NULL but on
	                           * TREE_COMMAND nodes (their processes) */
};

#define TREE_F_VERDICT  0x1u  /* on the verdict path */
#define TREE_F_FOCUS    0x2u  /* the node a proposal concerns */
#define TREE_F_STEP     0x4u  /* added by a step: counts in the step's unit over
                               * the step's windows (core/analysis/step_merge.h) */

/* Kinds of time (TREE_TIME nodes).  A profile stack whose first frame is
 * tree_time_marker[k] ("[on-cpu]", "[blocked]", "[runnable]") is grouped
 * under a TREE_TIME node named tree_time_name[k] ("on-cpu", "blocked",
 * "runnable") between the process and the subsystem levels; the marker is
 * not a frame.  When any stack of a profile carries a marker, the stacks
 * without one (the sampler's) go under "on-cpu".  All three count in the
 * sampler's unit: blocked and runnable nanoseconds are turned into
 * sample-equivalents at the sampling frequency (ns * freq / 1e9), so the
 * calibration, rates and cpu_ms (thread-ms per second) apply unchanged. */
enum tree_time {
	TREE_TIME_NONE = 0,
	TREE_TIME_ONCPU,
	TREE_TIME_BLOCKED,
	TREE_TIME_RUNNABLE,
	TREE_TIME_N
};
extern const char *const tree_time_marker[TREE_TIME_N];
extern const char *const tree_time_name[TREE_TIME_N];

enum tree_group {
	TREE_BY_SUBSYS = 0,       /* all -> subsystem -> frames */
	TREE_BY_PROCESS = 1,      /* all -> process -> subsystem -> frames */
};

struct tree_opts {
	enum tree_group group;
	const uint32_t *only_tgids; /* when non-NULL: keep only these stacks */
	size_t nonly;
	uint32_t exclude_tgid;      /* nonzero: leave this process's stacks out
	                             * (argus itself: reading maps costs more when
	                             * loaded, a delta the measurement causes) */
};

struct tree {
	struct tree_node *root;
	size_t nnodes;
	unsigned nwin;
	struct profile_window *wins; /* copy of the profile's windows */
	/* which processes are the diagnosed work, copied from the profile
	 * (struct profile_diag): a fall of another process is displaced work */
	struct profile_diag diag;
	/* the profile's process identities, copied (tree_ident_of), their
	 * strings in ident_names (core/data/tree_ident.c) */
	struct tree_ident *idents;
	size_t nidents;
	struct strpool *ident_names;
	/* the kworkers among the kept stacks' processes, by tgid
	 * (tree_kworker_of), their function names in kwork_names
	 * (core/data/tree_kwork.c) */
	struct tree_kworker *kworkers;
	size_t nkworkers;
	struct tree_work *kwork_items;
	struct strpool *kwork_names;
	int kwork_traced;          /* the workqueue tracepoint counted the work
	                            * items of at least one of its windows */
	/* issue 23 item 4: a tree of the later phase of a measurement whose
	 * load changed character (core/analysis/analysis.c): built from its
	 * windows [phase_from_win, phase_windows); the phase before had
	 * phase_loaded loaded windows, phase_early_s seconds of them, and
	 * phase_earlier is its verdict (owned).  NULL: the whole measurement.
	 * Every descent over it says so (descent_phase_carry). */
	char *phase_earlier;
	unsigned phase_from_win, phase_windows, phase_loaded;
	double phase_early_s;
	/* private: */
	struct tree_priv *priv;
};

/* Builds the tree of profile p.  opts may be NULL (by subsystem, all stacks).
 * Returns NULL with errno set.  Free with tree_free. */
struct tree *tree_build(const struct profile *p, const struct tree_opts *opts);
void tree_free(struct tree *t); /* NULL-safe */

/* The identity of process tgid as the profile had it, or NULL. */
const struct tree_ident *tree_ident_of(const struct tree *t, uint32_t tgid);
/* tree_build and tree_free only: copies p's identities into t (0 or
 * -ENOMEM); frees them (NULL-safe members). */
int tree_idents_copy(struct tree *t, const struct profile *p);
void tree_idents_free(struct tree *t);

/* What kworker tgid ran in the tree's windows, or NULL (not a kworker, or
 * none of its stacks was kept). */
const struct tree_kworker *tree_kworker_of(const struct tree *t, uint32_t tgid);
/* tree_build and tree_free only: the kworkers of p's stacks stacks[0..n)
 * (indexes into p->stacks; the kept ones), after tree_idents_copy (an
 * identity that is no kernel thread is no kworker), with their sampled
 * work functions and the executions p->works counts for them (a worker
 * with no kept stack has no row to name: its executions are left out).
 * 0 or -ENOMEM; frees them (NULL-safe members). */
int tree_kworkers_build(struct tree *t, const struct profile *p, const uint32_t *stacks,
			size_t n);
void tree_kworkers_free(struct tree *t);

/* 1 when process tgid is (part of) the diagnosed work: the profile said
 * so, or said nothing (then every process counts as diagnosed: no work is
 * called displaced without knowing what was diagnosed). */
int tree_is_diagnosed(const struct tree *t, uint32_t tgid);
/* 1 when a task of process tgid that woke the work or ran instead of it
 * is the work's own: as tree_is_diagnosed, but a victim's tree (every
 * stack its) answers from the victim's processes when it lists them. */
int tree_is_work_task(const struct tree *t, uint32_t tgid);

/* Child of parent named name, or NULL — a hash lookup, not a scan. */
struct tree_node *tree_child(const struct tree *t, const struct tree_node *parent,
			     const char *name);
/* Node with this id, or NULL. */
struct tree_node *tree_find_id(const struct tree *t, uint64_t id);

/* Order the children of every node. */
enum tree_sort_key {
	TREE_SORT_TOTAL,          /* loaded + reference total, descending */
	TREE_SORT_DELTA,          /* |calib delta| descending (after calib_run) */
	TREE_SORT_NAME,
	TREE_SORT_LOAD,           /* loaded-condition total, descending */
	TREE_SORT_SELF,           /* self (both conditions), descending */
};
void tree_sort(struct tree *t, enum tree_sort_key key);

/* Pre-order walk; stop when cb returns non-zero (and return that value). */
typedef int (*tree_walk_cb)(struct tree_node *n, void *arg);
int tree_walk(struct tree_node *n, tree_walk_cb cb, void *arg);

/* Path from the root's child down to n (root excluded), written into out
 * (at most max names); returns the depth of n. */
unsigned tree_path(const struct tree_node *n, const char **out, unsigned max);

/* The unit a node counts in when a step added it (TREE_F_STEP: "events",
 * "intervals", ... from its first annotation), NULL for a node of the
 * calibration, whose counts are samples.  Static, never freed. */
const char *tree_node_unit(const struct tree_node *n);

/* Total of a node over both conditions. */
static inline uint64_t tree_node_sum(const struct tree_node *n)
{
	return n->total[COND_REF] + n->total[COND_LOAD];
}

/* Child of parent named name, created (zero counts, win_total sized to
 * t->nwin) when absent: how steps attach TREE_EVENT nodes.  The name is
 * copied (compiler suffixes stripped).  NULL with errno set on failure. */
struct tree_node *tree_node_add(struct tree *t, struct tree_node *parent,
				const char *name, enum tree_node_kind kind);

/* Id of the child named name under a node whose id is parent_id (the
 * name as the tree stores it, suffix stripped); the root's id is
 * tree_id(0, "all"). */
uint64_t tree_id(uint64_t parent_id, const char *name);

/* Output of `argus record`.  JSON nodes {"name","total","self","children"}
 * with the root named "all" (subsystem and process levels included);
 * folded "a;b;c N" lines: kernel frames only, root first, one line per node
 * with self samples — what flame graph tools and `argus diff` read.  When
 * cond is COND_N both conditions are summed.  Return 0 or -errno. */
int tree_write_json(const struct tree *t, enum cond cond, FILE *out);
int tree_write_folded(const struct tree *t, enum cond cond, FILE *out);

#endif
