/* tree — the calling-context tree built from a profile.
 *
 * Root "all" -> subsystem nodes (mm, sched, fs, ...; see core/subsys) ->
 * kernel frames, root first.  With TREE_BY_PROCESS a process level sits
 * between the root and the subsystems.  Every node carries, per condition,
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

#include "profile.h"
#include "subsys.h"

enum tree_node_kind {
	TREE_ROOT,
	TREE_PROCESS,   /* only with TREE_BY_PROCESS */
	TREE_SUBSYS,
	TREE_FRAME,
	TREE_EVENT,     /* a tracepoint's own node (instrumentation steps) */
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
	unsigned pairs;           /* reference/loaded pairs compared */
	unsigned pairs_agree;     /* pairs whose delta has the sign of delta */
	int significant;          /* q <= alpha and sign-consistent */
	int sign;                 /* +1, -1 or 0 (not significant) */
	double share_of_parent;   /* delta / parent's delta (descent); 0 when
	                           * the parent's delta is 0, 1 for the root */
	const char *why;          /* static text: why (not) significant */
};

struct tree_annot; /* step results attached to a node (core/tree_annot.h) */

struct tree_node {
	uint64_t id;              /* hash of the path from the root */
	const char *name;         /* owned by the tree */
	enum tree_node_kind kind;
	enum subsys subsys;       /* subsystem of the path it belongs to */
	uint32_t tgid;            /* TREE_PROCESS nodes only */
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
};

#define TREE_F_VERDICT  0x1u  /* on the verdict path */
#define TREE_F_FOCUS    0x2u  /* the node a proposal concerns */
#define TREE_F_STEP     0x4u  /* added by a step: counts in the step's unit over
                               * the step's windows (core/step_merge.h) */

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
	/* private: */
	struct tree_priv *priv;
};

/* Builds the tree of profile p.  opts may be NULL (by subsystem, all stacks).
 * Returns NULL with errno set.  Free with tree_free. */
struct tree *tree_build(const struct profile *p, const struct tree_opts *opts);
void tree_free(struct tree *t); /* NULL-safe */

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
