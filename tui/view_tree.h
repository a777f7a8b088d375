/* view_tree — the tree pane's model: which nodes are visible, in what order,
 * which one is selected.  No curses here (view_screen.c draws).
 *
 * Expanded state and the selection are keyed by node id (a hash of the path,
 * see core/data/tree.h), so they survive the rebuild that follows every live
 * refresh and any re-sorting.  Nodes whose total is below the display
 * threshold (a fraction of the root's total) are not shown, unless they are
 * significant or on the verdict path; they are counted for the footer line.
 */
#ifndef ARGUS_VIEW_TREE_H
#define ARGUS_VIEW_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "data/tree.h"

/* A set of node ids (open addressing). */
struct idset {
	uint64_t *slot;
	size_t cap, n;
	int has_zero;
};

int idset_add(struct idset *s, uint64_t id);       /* 0 or -ENOMEM */
int idset_has(const struct idset *s, uint64_t id);
void idset_del(struct idset *s, uint64_t id);
void idset_clear(struct idset *s);                 /* keeps the memory */
void idset_free(struct idset *s);                  /* frees the memory */

/* One visible row.  cont[0..depth) (in view_tree.cont, from cont_off) says
 * for each ancestor level whether a vertical line continues there. */
struct view_row {
	struct tree_node *n;
	uint32_t vi;              /* index in view_tree.vn */
	uint32_t cont_off;
	uint16_t depth;           /* display depth: root is 0 */
	uint8_t last;             /* last visible child of its parent */
	uint8_t expanded;         /* shown expanded (and has visible children) */
	uint8_t has_kids;         /* has children that could be shown */
};

/* A displayable node in display order (pre-order of the sorted tree). */
struct view_node {
	struct tree_node *n;
	uint32_t end;             /* index past its displayable subtree */
	uint32_t parent;          /* index of its parent (the root: 0) */
	uint16_t depth;
	uint8_t last;             /* last displayable child of its parent */
	uint8_t has_kids;         /* has displayable children */
	uint8_t expanded;         /* mirrors the expanded set */
};

struct view_tree {
	struct tree *t;           /* not owned */
	int calibrated;           /* nodes carry calib stats */
	double threshold;         /* fraction of the root total; 0.001 default */
	uint64_t min_total;       /* threshold in samples for the current tree */
	struct idset expanded;
	uint64_t sel_id;
	size_t sel;               /* row index of the selection */
	size_t top;               /* first row shown */
	unsigned height;          /* rows the pane shows (for paging/scrolling) */
	struct view_row *rows;
	size_t nrows, rows_cap;
	unsigned char *cont;
	size_t ncont, cont_cap;
	size_t cont_at_flatten;   /* pool size after the last full flatten */
	size_t nhidden;           /* nodes below the threshold in the whole tree */
	int initialized;          /* default expansion done */
	/* every displayable node in display order, expanded or not */
	struct view_node *vn;
	size_t nvn, vn_cap;
	/* the filter (&): only matching nodes, their ancestors and their
	 * subtrees are shown; "" shows everything */
	char filter[128];
	struct idset keep;        /* ids the filter keeps */
	size_t nmatch;            /* nodes whose name matches the filter */
};

/* Returns a view with nothing shown, or NULL with errno set. */
struct view_tree *view_tree_new(double threshold);
void view_tree_free(struct view_tree *v); /* NULL-safe; does not free the tree */

/* Shows tree t (not owned; keep it alive until the next set or free).
 * Keeps expansion and selection by id; the first time expands the root and
 * the verdict path.  Returns 0 or -ENOMEM. */
int view_tree_set(struct view_tree *v, struct tree *t, int calibrated);

/* Recomputes the visible rows after expansion changes.  0 or -ENOMEM. */
int view_tree_flatten(struct view_tree *v);

/* Sets the number of rows the pane shows and keeps the selection visible. */
void view_tree_set_height(struct view_tree *v, unsigned height);

/* The selected node, or NULL when the tree is empty. */
struct tree_node *view_tree_selected(const struct view_tree *v);

/* Navigation: moves the selection by delta rows (clamped). */
void view_tree_move(struct view_tree *v, long delta);
void view_tree_move_to(struct view_tree *v, size_t row);
/* Selects node n (expanding its ancestors); 0 or -errno. */
int view_tree_select_node(struct view_tree *v, struct tree_node *n);

/* Expansion of the selected node; each returns 0 or -ENOMEM. */
int view_tree_toggle(struct view_tree *v);
int view_tree_expand(struct view_tree *v);
/* Collapses the selected node, or moves to its parent when already collapsed. */
int view_tree_collapse(struct view_tree *v);
int view_tree_expand_all(struct view_tree *v);
int view_tree_collapse_all(struct view_tree *v);

/* Sets the filter (case-insensitive substring of node names; NULL or ""
 * clears it) and the threshold (< 0: unchanged), then lays the tree out
 * again.  0 or -ENOMEM. */
int view_tree_refilter(struct view_tree *v, const char *filter, double threshold);

/* Collapses everything but the verdict path and selects its deepest node;
 * -ENOENT when there is no verdict path, else 0 or -ENOMEM. */
int view_tree_verdict_only(struct view_tree *v);

/* Writes the selected node's path from the root ("a;b;c", folded-stack
 * style, root left out) into buf; returns its length (0: no selection). */
size_t view_tree_path(const struct view_tree *v, char *buf, size_t len);

/* Node predicate for view_tree_find. */
typedef int (*view_tree_match_cb)(const struct tree_node *n, void *arg);

/* Finds the next (dir > 0) or previous (dir < 0) displayable node after the
 * selection in display order, wrapping, that matches; from_self includes
 * the selected node itself.  Selects it (expanding ancestors) and returns
 * 1, or 0 when none matches. */
int view_tree_find(struct view_tree *v, int dir, int from_self,
		   view_tree_match_cb match, void *arg);

/* Case-insensitive substring match of a node name (arg: the query). */
int view_tree_match_name(const struct tree_node *n, void *query);
/* Significant node (calibrated trees; arg unused). */
int view_tree_match_significant(const struct tree_node *n, void *arg);

/* Whether node n is shown at all (threshold, significance, verdict path). */
int view_tree_displayable(const struct view_tree *v, const struct tree_node *n);

#endif
