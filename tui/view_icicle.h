/* view_icicle — a flame-graph-like icicle of a subtree, in the terminal.
 *
 * The root of the view spans the whole width on the first level; below it
 * each level shows the children of the level above, each as wide as its
 * share of its parent's loaded samples (all samples when the tree has no
 * loaded windows), in the tree's order; what a node does itself is the
 * gap at the right of its children.  A node narrower than one column is
 * not drawn (nor its subtree).  Names are shortened in the middle; each
 * cell is coloured as the tree marks its delta (significant rise, fall,
 * insignificant).
 *
 * The root and the selection are kept by node id (core/data/tree.h), so they
 * survive the rebuilds of a live refresh; a node that has gone falls back
 * to the tree's root.  Pure: lines are struct fmt_line, no curses here
 * (tui/app.c draws them in the tree pane).
 */
#ifndef ARGUS_VIEW_ICICLE_H
#define ARGUS_VIEW_ICICLE_H

#include <stddef.h>
#include <stdint.h>

#include "fmt.h"
#include "data/tree.h"

struct icicle_cell {
	const struct tree_node *n;
	unsigned level;           /* 0: the view's root */
	int x0, x1;               /* columns [x0, x1) */
};

struct icicle {
	uint64_t root_id, sel_id;
	/* after icicle_layout: */
	const struct tree *t;     /* not owned */
	const struct tree_node *root, *sel;
	struct icicle_cell *cells; /* pre-order, so by column within a level */
	size_t ncells, cap;
	unsigned nlevels;         /* levels holding a cell */
	unsigned top;             /* first level shown (the selection stays in view) */
	unsigned rows;            /* levels shown */
	int width;
	int calibrated;
};

enum icicle_move {
	ICICLE_UP,                /* to the parent (not above the view's root) */
	ICICLE_DOWN,              /* to the widest child */
	ICICLE_LEFT,              /* to the cell before on the same level */
	ICICLE_RIGHT,             /* to the cell after */
};

/* Starts a view of the subtree of at (the root when NULL), selected. */
void icicle_open(struct icicle *ic, const struct tree_node *at);
/* Frees the cells; the struct can be opened again. */
void icicle_fini(struct icicle *ic);

/* Lays the view of tree t out in width columns, rows levels shown.
 * 0 or -ENOMEM. */
int icicle_layout(struct icicle *ic, const struct tree *t, int calibrated, int width,
		  unsigned rows);

/* Moves the selection (then lay out again); 1 when it moved. */
int icicle_move(struct icicle *ic, enum icicle_move m);
/* Enter: the selection becomes the view's root.  0 when it already is. */
int icicle_zoom(struct icicle *ic);
/* Back out: the root's parent becomes the root.  0 at the tree's root. */
int icicle_unzoom(struct icicle *ic);

/* The heading: the root's name, the levels, the keys. */
void icicle_head(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl);
/* Shown level row (0 .. ic->rows - 1) as a line ic->width wide. */
void icicle_row(struct fmt_line *l, const struct icicle *ic, unsigned row,
		const struct glyphs *gl);
/* The selected node: its name and numbers (rates, delta, share of the
 * view's root), and on a second line its full path from the tree's root
 * (its start gives way when too long). */
void icicle_detail(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl);
void icicle_path(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl);

#endif
