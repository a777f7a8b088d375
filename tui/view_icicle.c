/* view_icicle — the icicle view's layout, moves and lines (see view_icicle.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_icicle.h"

#define ICICLE_MAX_LEVELS 128

/* What a width is proportional to: loaded samples, or all of them when
 * the tree has no loaded window (a live tree, an import). */
static uint64_t icicle_weight(const struct icicle *ic, const struct tree_node *n)
{
	/* a step's node counts events, not its parent's samples: under a
	 * node of the calibration it takes no width (zoomed into, it and the
	 * step's nodes below it share one unit) */
	if (tree_node_unit(n) && n != ic->root && n->parent && !tree_node_unit(n->parent))
		return 0;
	if (ic->t && ic->t->root && ic->t->root->total[COND_LOAD])
		return n->total[COND_LOAD];
	return tree_node_sum(n);
}

void icicle_open(struct icicle *ic, const struct tree_node *at)
{
	struct icicle_cell *cells = ic->cells;
	size_t cap = ic->cap;

	memset(ic, 0, sizeof(*ic));
	ic->cells = cells;       /* kept for the next layout */
	ic->cap = cap;
	ic->root_id = ic->sel_id = at ? at->id : 0;
}

void icicle_fini(struct icicle *ic)
{
	free(ic->cells);
	memset(ic, 0, sizeof(*ic));
}

static int icicle_add(struct icicle *ic, const struct tree_node *n, unsigned level, int x0,
		      int x1)
{
	if (ic->ncells == ic->cap) {
		size_t ncap = ic->cap ? ic->cap * 2 : 256;
		struct icicle_cell *nc = realloc(ic->cells, ncap * sizeof(*nc));

		if (!nc)
			return -ENOMEM;
		ic->cells = nc;
		ic->cap = ncap;
	}
	ic->cells[ic->ncells++] = (struct icicle_cell){ .n = n, .level = level, .x0 = x0, .x1 = x1 };
	if (level + 1 > ic->nlevels)
		ic->nlevels = level + 1;
	return 0;
}

/* n over columns [x, x + span) at level; its children below, left to right. */
static int icicle_place(struct icicle *ic, const struct tree_node *n, double x, double span,
			unsigned level)
{
	int x0 = (int)(x + 0.5), x1 = (int)(x + span + 0.5);
	uint64_t w = icicle_weight(ic, n);
	double cx = x;
	int err;

	if (x1 <= x0 || level >= ICICLE_MAX_LEVELS)
		return 0;
	err = icicle_add(ic, n, level, x0, x1);
	if (err || !w)
		return err;
	for (unsigned i = 0; i < n->nchild; i++) {
		double cs = span * (double)icicle_weight(ic, n->child[i]) / (double)w;

		err = icicle_place(ic, n->child[i], cx, cs, level + 1);
		if (err)
			return err;
		cx += cs;
	}
	return 0;
}

static const struct icicle_cell *icicle_cell_of(const struct icicle *ic,
						const struct tree_node *n)
{
	for (size_t i = 0; i < ic->ncells; i++)
		if (ic->cells[i].n == n)
			return &ic->cells[i];
	return NULL;
}

int icicle_layout(struct icicle *ic, const struct tree *t, int calibrated, int width,
		  unsigned rows)
{
	const struct icicle_cell *sc;
	int err;

	ic->t = t;
	ic->calibrated = calibrated;
	ic->width = width > 0 ? width : 0;
	ic->rows = rows;
	ic->ncells = 0;
	ic->nlevels = 0;
	ic->root = t ? tree_find_id(t, ic->root_id) : NULL;
	if (!ic->root && t)
		ic->root = t->root;       /* gone after a rebuild: start again */
	if (!ic->root) {
		ic->sel = NULL;
		return 0;
	}
	ic->root_id = ic->root->id;
	err = icicle_place(ic, ic->root, 0, (double)ic->width, 0);
	if (err)
		return err;
	ic->sel = tree_find_id(t, ic->sel_id);
	if (!ic->sel || !icicle_cell_of(ic, ic->sel))
		ic->sel = ic->root;       /* gone, or too narrow to be drawn */
	ic->sel_id = ic->sel->id;
	sc = icicle_cell_of(ic, ic->sel);
	if (sc && rows) {
		if (sc->level < ic->top)
			ic->top = sc->level;
		else if (sc->level >= ic->top + rows)
			ic->top = sc->level - rows + 1;
	}
	if (ic->top && ic->top + rows > ic->nlevels)
		ic->top = ic->nlevels > rows ? ic->nlevels - rows : 0;
	return 0;
}

int icicle_move(struct icicle *ic, enum icicle_move m)
{
	const struct icicle_cell *sc = ic->sel ? icicle_cell_of(ic, ic->sel) : NULL, *best = NULL;
	size_t at;

	if (!sc)
		return 0;
	at = (size_t)(sc - ic->cells);
	switch (m) {
	case ICICLE_UP:
		if (ic->sel == ic->root || !ic->sel->parent)
			return 0;
		ic->sel_id = ic->sel->parent->id;
		ic->sel = ic->sel->parent;
		return 1;
	case ICICLE_DOWN:
		/* its children follow it in pre-order, one level down */
		for (size_t i = at + 1; i < ic->ncells && ic->cells[i].level > sc->level; i++)
			if (ic->cells[i].level == sc->level + 1 &&
			    (!best || ic->cells[i].x1 - ic->cells[i].x0 > best->x1 - best->x0))
				best = &ic->cells[i];
		break;
	case ICICLE_LEFT:
		for (size_t i = at; i-- > 0;)
			if (ic->cells[i].level == sc->level) {
				best = &ic->cells[i];
				break;
			}
		break;
	case ICICLE_RIGHT:
		for (size_t i = at + 1; i < ic->ncells; i++)
			if (ic->cells[i].level == sc->level) {
				best = &ic->cells[i];
				break;
			}
		break;
	}
	if (!best)
		return 0;
	ic->sel = best->n;
	ic->sel_id = best->n->id;
	return 1;
}

int icicle_zoom(struct icicle *ic)
{
	if (!ic->sel || ic->sel == ic->root)
		return 0;
	ic->root = ic->sel;
	ic->root_id = ic->sel_id;
	ic->top = 0;
	return 1;
}

int icicle_unzoom(struct icicle *ic)
{
	if (!ic->root || !ic->root->parent)
		return 0;
	ic->root = ic->root->parent;
	ic->root_id = ic->root->id;
	ic->top = 0;
	return 1;
}

void icicle_head(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl)
{
	char name[256], buf[512];
	const char *rn = ic->root ? fmt_node_name(ic->root, gl, name, sizeof(name)) : "(empty)";

	fmt_line_reset(l);
	fmt_line_add(l, THEME_DIM, " icicle of ", ic->width);
	fmt_line_add_mid(l, THEME_HEADER, rn, ic->width / 2 > 8 ? ic->width / 2 : 8, gl);
	if (ic->top)
		snprintf(buf, sizeof(buf), "  %s%u levels above", gl->g[GLYPH_ELLIPSIS], ic->top);
	else
		snprintf(buf, sizeof(buf), "  %u level%s", ic->nlevels, ic->nlevels == 1 ? "" : "s");
	fmt_line_add(l, THEME_DIM, buf, ic->width - l->width);
	fmt_line_add(l, THEME_DIM, "  Enter zoom  Bksp out  Esc back", ic->width - l->width);
	fmt_line_pad(l, THEME_DIM, ic->width);
}

static enum theme_role icicle_role(const struct icicle *ic, const struct tree_node *n)
{
	if (n == ic->sel)
		return THEME_SELECTED;
	if (!ic->calibrated)
		return n->kind == TREE_FRAME ? THEME_NORMAL : THEME_HEADER;
	return fmt_delta_role(n, 1);
}

void icicle_row(struct fmt_line *l, const struct icicle *ic, unsigned row,
		const struct glyphs *gl)
{
	unsigned level = ic->top + row;

	fmt_line_reset(l);
	for (size_t i = 0; i < ic->ncells; i++) {
		const struct icicle_cell *c = &ic->cells[i];
		enum theme_role r;
		char name[256];
		int w;

		if (c->level != level)
			continue;
		r = icicle_role(ic, c->n);
		w = c->x1 - c->x0;
		fmt_line_pad(l, THEME_NORMAL, c->x0);
		if (w >= 4) {
			/* the last column stays blank: where the next cell begins */
			if ((c->n->flags & TREE_F_VERDICT) && w >= 8) {
				fmt_line_add(l, r == THEME_SELECTED ? r : THEME_VERDICT,
					     gl->g[GLYPH_VERDICT], -1);
				fmt_line_add(l, r, " ", -1);
			}
			fmt_line_add_mid(l, r, fmt_node_name(c->n, gl, name, sizeof(name)),
					 c->x1 - 1 - l->width, gl);
			fmt_line_pad(l, r, c->x1 - 1);
		} else {
			fmt_line_add(l, r, gl->g[GLYPH_SEP], -1);
			fmt_line_pad(l, r, c->x1 - 1);
		}
		fmt_line_pad(l, THEME_NORMAL, c->x1);
	}
	fmt_line_pad(l, THEME_NORMAL, ic->width);
}

void icicle_detail(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl)
{
	const struct tree_node *n = ic->sel;
	char name[256], buf[256], a[32], b[32], d[32];
	uint64_t rw = ic->root ? icicle_weight(ic, ic->root) : 0;

	fmt_line_reset(l);
	if (!n) {
		fmt_line_pad(l, THEME_NORMAL, ic->width);
		return;
	}
	fmt_line_add(l, THEME_NORMAL, " ", -1);
	fmt_line_add_mid(l, icicle_role(ic, n) == THEME_SELECTED ? THEME_HEADER : icicle_role(ic, n),
			 fmt_node_name(n, gl, name, sizeof(name)), ic->width / 2, gl);
	if (ic->calibrated) {
		const struct calib_stat *s = &n->stat;

		const char *u = tree_node_unit(n);

		snprintf(buf, sizeof(buf), "  load %s%s%s/s  ref %s/s  %s %s/s%s",
			 fmt_rate(s->rate[COND_LOAD], 0, a, sizeof(a)), u ? " " : "", u ? u : "",
			 fmt_rate(s->rate[COND_REF], 0, b, sizeof(b)), gl->g[GLYPH_DELTA],
			 fmt_signed(s->delta, 0, d, sizeof(d)), s->significant ? " (significant)" : "");
		fmt_line_add(l, fmt_delta_role(n, 1), buf, ic->width - l->width);
	} else {
		snprintf(buf, sizeof(buf), "  %s samples  self %s",
			 fmt_count(tree_node_sum(n), 0, a, sizeof(a)),
			 fmt_count(n->self[COND_REF] + n->self[COND_LOAD], 0, b, sizeof(b)));
		fmt_line_add(l, THEME_NORMAL, buf, ic->width - l->width);
	}
	snprintf(buf, sizeof(buf), "  %.1f%% of the view", rw ? 100.0 * (double)icicle_weight(ic, n) /
		 (double)rw : 0.0);
	fmt_line_add(l, THEME_DIM, buf, ic->width - l->width);
	fmt_line_pad(l, THEME_NORMAL, ic->width);
}

void icicle_path(struct fmt_line *l, const struct icicle *ic, const struct glyphs *gl)
{
	const char *sep = gl->utf8 ? " \u203a " : " > ";
	const struct tree_node *chain[ICICLE_MAX_LEVELS * 2];
	char path[4096], name[256];
	size_t n = 0, at = 0, from = 0;
	int left = ic->width - 1;

	fmt_line_reset(l);
	for (const struct tree_node *x = ic->sel; x && n < sizeof(chain) / sizeof(chain[0]);
	     x = x->parent)
		chain[n++] = x;
	path[0] = '\0';
	while (n-- > 0) {
		int w = snprintf(path + at, sizeof(path) - at, "%s%s", at ? sep : "",
				 fmt_node_name(chain[n], gl, name, sizeof(name)));

		if (w < 0 || (size_t)w >= sizeof(path) - at)
			break;
		at += (size_t)w;
	}
	fmt_line_add(l, THEME_NORMAL, " ", -1);
	if (fmt_width(path) > left) {
		/* keep the end (the selected frame): the shortest suffix that fits */
		int ew = fmt_width(gl->g[GLYPH_ELLIPSIS]);

		for (from = 1; path[from]; from++)
			if (((unsigned char)path[from] & 0xc0) != 0x80 &&
			    fmt_width(path + from) <= left - ew)
				break;
		fmt_line_add(l, THEME_DIM, gl->g[GLYPH_ELLIPSIS], -1);
	}
	fmt_line_add(l, THEME_NORMAL, path + from, ic->width - l->width);
	fmt_line_pad(l, THEME_NORMAL, ic->width);
}
