/* view_screen — windows, the one layout, diffed line drawing, overlays. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "view_screen.h"
#include "view_tree.h"

static int cache_resize(struct line_cache *c, int n)
{
	struct fmt_line *nl;
	unsigned char *nv;

	if (n < 1)
		n = 1;
	nl = realloc(c->line, (size_t)n * sizeof(*nl));
	if (!nl)
		return -ENOMEM;
	c->line = nl;
	nv = realloc(c->valid, (size_t)n);
	if (!nv)
		return -ENOMEM;
	c->valid = nv;
	memset(c->valid, 0, (size_t)n);
	c->n = n;
	return 0;
}

static void cache_free(struct line_cache *c)
{
	free(c->line);
	free(c->valid);
	memset(c, 0, sizeof(*c));
}

static void del_windows(struct screen *s)
{
	if (s->whead)
		delwin(s->whead);
	if (s->wtree)
		delwin(s->wtree);
	if (s->wstatus)
		delwin(s->wstatus);
	if (s->wagent)
		delwin(s->wagent);
	if (s->overlay)
		delwin(s->overlay);
	s->whead = s->wtree = s->wstatus = s->wagent = s->overlay = NULL;
}

/* The one place that decides where everything goes. */
static void screen_layout(struct screen *s)
{
	int mid = s->rows - 2;

	s->header = (struct rect){ 0, 0, 1, s->cols };
	s->status = (struct rect){ s->rows - 1, 0, 1, s->cols };
	s->tree = (struct rect){ 1, 0, mid, s->cols };
	s->agent = (struct rect){ 0, 0, 0, 0 };
	if (!s->want_agent || s->zoom == SCREEN_ZOOM_TREE)
		return;
	if (s->zoom == SCREEN_ZOOM_AGENT) {
		s->agent = s->tree;
		s->tree = (struct rect){ 1, 0, 0, 0 };
	} else if (s->cols >= 120) {    /* side by side */
		int tw = s->cols * 3 / 5;

		s->tree.w = tw;          /* one blank column between the panes */
		s->agent = (struct rect){ 1, tw + 1, mid, s->cols - tw - 1 };
	} else {                        /* stacked: the agent needs room for a proposal
					 * and the verdict line above it (its row
					 * comes from the tree, not the transcript) */
		int th = (mid - 1) / 2;

		s->tree.h = th;
		s->agent = (struct rect){ 1 + th, 0, mid - th, s->cols };
	}
}

int screen_tree_shown(const struct screen *s)
{
	return !s->too_small && s->wtree && s->tree.h > 0;
}

int screen_agent_shown(const struct screen *s)
{
	return !s->too_small && s->wagent && s->agent.h > 0;
}

int screen_relayout(struct screen *s)
{
	return screen_resize(s, s->rows, s->cols);
}

int screen_resize(struct screen *s, int rows, int cols)
{
	s->rows = rows;
	s->cols = cols;
	del_windows(s);
	s->too_small = cols < SCREEN_MIN_COLS || rows < SCREEN_MIN_ROWS;
	werase(stdscr);
	wnoutrefresh(stdscr);
	if (s->too_small)
		return 0;
	screen_layout(s);
	s->whead = newwin(s->header.h, s->header.w, s->header.y, s->header.x);
	if (s->tree.h > 0 && s->tree.w > 0)
		s->wtree = newwin(s->tree.h, s->tree.w, s->tree.y, s->tree.x);
	s->wstatus = newwin(s->status.h, s->status.w, s->status.y, s->status.x);
	if (s->agent.h > 0 && s->agent.w > 0) {
		s->wagent = newwin(s->agent.h, s->agent.w, s->agent.y, s->agent.x);
		if (!s->wagent)
			return -ENOMEM;
	}
	if (!s->whead || (!s->wtree && s->tree.h > 0) || !s->wstatus)
		return -ENOMEM;
	if (cache_resize(&s->chead, 1) || cache_resize(&s->ctree, s->tree.h) ||
	    cache_resize(&s->cstatus, 1) || cache_resize(&s->cagent, s->agent.h))
		return -ENOMEM;
	return 0;
}

int screen_init(struct screen *s)
{
	int rows, cols;

	getmaxyx(stdscr, rows, cols);
	return screen_resize(s, rows, cols);
}

void screen_fini(struct screen *s)
{
	del_windows(s);
	cache_free(&s->chead);
	cache_free(&s->ctree);
	cache_free(&s->cstatus);
	cache_free(&s->cagent);
}

static attr_t map_attrs(unsigned a)
{
	attr_t r = A_NORMAL;

	if (a & THEME_A_BOLD)
		r |= A_BOLD;
	if (a & THEME_A_UNDERLINE)
		r |= A_UNDERLINE;
	if (a & THEME_A_REVERSE)
		r |= A_REVERSE;
	if (a & THEME_A_DIM)
		r |= A_DIM;
	if (a & THEME_A_ITALIC)
		r |= A_ITALIC;
	if (a & THEME_A_STANDOUT)
		r |= A_STANDOUT;
	return r;
}

void screen_set_theme(struct screen *s, const struct theme *t, enum theme_depth d)
{
	s->depth = d;
	for (unsigned i = 0; i < THEME_ROLE_N; i++) {
		struct theme_style st = theme_resolve(t, (enum theme_role)i, d);

		s->attr[i] = map_attrs(st.attrs);
		if (d != THEME_DEPTH_MONO) {
			short fg = st.fg, bg = st.bg;

			if (fg >= COLORS)
				fg = (short)(fg % 8);
			if (bg >= COLORS)
				bg = (short)(bg % 8);
			if (init_pair((short)(i + 1), fg, bg) == OK)
				s->attr[i] |= COLOR_PAIR(i + 1);
		}
	}
	if (s->wtree)
		wbkgdset(s->wtree, ' ' | s->attr[THEME_NORMAL]);
	if (s->wagent)
		wbkgdset(s->wagent, ' ' | s->attr[THEME_NORMAL]);
	screen_invalidate(s);
}

void screen_invalidate(struct screen *s)
{
	if (s->chead.valid)
		memset(s->chead.valid, 0, (size_t)s->chead.n);
	if (s->ctree.valid)
		memset(s->ctree.valid, 0, (size_t)s->ctree.n);
	if (s->cstatus.valid)
		memset(s->cstatus.valid, 0, (size_t)s->cstatus.n);
	if (s->cagent.valid)
		memset(s->cagent.valid, 0, (size_t)s->cagent.n);
	clearok(curscr, TRUE);
}

int screen_tree_rows(const struct screen *s)
{
	return s->tree.h > 2 ? s->tree.h - 2 : 1;
}

void screen_put_line(struct screen *s, WINDOW *w, struct line_cache *c, int y,
		     const struct fmt_line *l)
{
	int maxw, used = 0, bx, by;

	if (!w || y < 0 || y >= c->n)
		return;
	maxw = getmaxx(w);
	getbegyx(w, by, bx);
	/* never the bottom-right cell of the screen: writing it scrolls or
	 * leaves the cursor in the margin on some terminals */
	if (by + y == s->rows - 1 && bx + maxw == s->cols && maxw > 1)
		maxw--;
	if (c->valid[y] && fmt_line_eq(&c->line[y], l)) {
		s->skipped++;
		return;
	}
	s->drawn++;
	wmove(w, y, 0);
	for (unsigned i = 0; i < l->nspan && used < maxw; i++) {
		const struct fmt_span *sp = &l->span[i];
		attr_t a = s->attr[sp->role];
		int sw = fmt_widthn(l->text + sp->start, sp->len);
		size_t n = sp->len;

		if (l->selected)
			a = s->attr[THEME_SELECTED] | (a & (A_BOLD | A_UNDERLINE));
		/* a line wider than its window would wrap into the next row */
		if (used + sw > maxw) {
			char tmp[FMT_LINE_MAX];

			memcpy(tmp, l->text + sp->start, sp->len);
			tmp[sp->len] = 0;
			n = fmt_fit(tmp, maxw - used, &sw);
		}
		wattrset(w, a);
		waddnstr(w, l->text + sp->start, (int)n);
		used += sw;
	}
	wattrset(w, s->attr[l->selected ? THEME_SELECTED : THEME_NORMAL]);
	if (used < maxw)
		wclrtoeol(w);
	memcpy(&c->line[y], l, sizeof(*l));
	c->valid[y] = 1;
}

void screen_draw_header(struct screen *s, const char *title, const char *state,
			const struct fmt_header_sum *summary, const struct glyphs *gl)
{
	if (s->too_small)
		return;
	fmt_header(&s->scratch, s->header.w, title, state, summary, gl);
	screen_put_line(s, s->whead, &s->chead, 0, &s->scratch);
}

void screen_draw_tree(struct screen *s, struct view_tree *v, const struct fmt_row_ctx *ctx,
		      const char *footer_text, enum theme_role footer_role, double threshold)
{
	int nrows = screen_tree_rows(s);

	if (!screen_tree_shown(s))
		return;
	fmt_colhead(&s->scratch, ctx);
	screen_put_line(s, s->wtree, &s->ctree, 0, &s->scratch);
	for (int i = 0; i < nrows; i++) {
		size_t idx = v->top + (size_t)i;

		if (idx < v->nrows) {
			fmt_row(&s->scratch, v, idx, ctx);
		} else {
			fmt_line_reset(&s->scratch);
			fmt_line_pad(&s->scratch, THEME_NORMAL, s->tree.w);
		}
		screen_put_line(s, s->wtree, &s->ctree, 1 + i, &s->scratch);
	}
	if (footer_text) {
		fmt_line_reset(&s->scratch);
		fmt_line_add(&s->scratch, footer_role, footer_text, s->tree.w);
		fmt_line_pad(&s->scratch, footer_role, s->tree.w);
	} else {
		char path[1024];

		view_tree_path(v, path, sizeof(path));
		fmt_footer(&s->scratch, s->tree.w, path, v->nhidden, threshold, ctx->gl);
	}
	screen_put_line(s, s->wtree, &s->ctree, s->tree.h - 1, &s->scratch);
}

void screen_draw_status(struct screen *s, const struct source_status *st,
			const struct glyphs *gl)
{
	if (s->too_small)
		return;
	fmt_status(&s->scratch, st, s->status.w, gl);
	screen_put_line(s, s->wstatus, &s->cstatus, 0, &s->scratch);
}

/* One display line of an overlay: bytes [off, off + len) of line i; cont
 * lines (the rest of a line too wide) are indented by two columns. */
struct ov_seg {
	int i, cont;
	size_t off, len;
};

/* Splits lines into segments of at most maxw columns, at a space when one
 * is in the last two thirds.  Returns the count (segs may be NULL to count). */
static int ov_wrap(const char *const *lines, int nlines, int maxw, struct ov_seg *segs)
{
	int n = 0;

	for (int i = 0; i < nlines; i++) {
		const char *l = lines[i];
		size_t off = 0, len = strlen(l);
		int cont = 0;

		do {
			int room = cont ? maxw - 2 : maxw;
			size_t take = len - off, next;

			if (room < 4)
				room = 4;
			if (fmt_width(l + off) > room) {
				size_t cut = fmt_fit(l + off, room, NULL), sp = cut;

				while (sp > cut / 3 && l[off + sp] != ' ')
					sp--;
				take = sp > cut / 3 ? sp : cut;
				if (!take)
					take = 1;
			}
			next = off + take;
			while (next < len && l[next] == ' ' && take < len - off)
				next++;
			if (segs)
				segs[n] = (struct ov_seg){ i, cont, off, take };
			n++;
			off = next;
			cont = 1;
		} while (off < len);
	}
	return n;
}

void screen_draw_overlay(struct screen *s, const char *title, const char *const *lines,
			 int nlines, int *top)
{
	int w = 0, h, inner, y0, x0, ascii = !glyphs_locale_utf8(), nseg;
	const struct glyphs *gl = glyphs_get(!ascii);
	struct ov_seg *seg;

	if (s->too_small)
		return;
	for (int i = 0; i < nlines; i++) {
		int lw = fmt_width(lines[i]);

		if (lw > w)
			w = lw;
	}
	if (fmt_width(title) + 4 > w)
		w = fmt_width(title) + 4;
	w += 4;
	if (w > s->cols - 2)
		w = s->cols - 2;
	/* lines wider than the box wrap (a long path in y, a glossary text in x) */
	nseg = ov_wrap(lines, nlines, w - 4, NULL);
	seg = calloc((size_t)nseg + 1, sizeof(*seg));
	if (!seg)
		return;
	ov_wrap(lines, nlines, w - 4, seg);
	h = nseg + 2;
	if (h > s->rows - 2)
		h = s->rows - 2;
	inner = h - 2;
	if (*top > nseg - inner)
		*top = nseg - inner;
	if (*top < 0)
		*top = 0;
	y0 = (s->rows - h) / 2;
	x0 = (s->cols - w) / 2;
	if (s->overlay)
		delwin(s->overlay);
	s->overlay = newwin(h, w, y0, x0);
	if (!s->overlay)
		goto out;
	wbkgdset(s->overlay, ' ' | s->attr[THEME_NORMAL]);
	werase(s->overlay);
	wattrset(s->overlay, s->attr[THEME_HEADER]);
	if (ascii)
		wborder(s->overlay, '|', '|', '-', '-', '+', '+', '+', '+');
	else
		box(s->overlay, 0, 0);
	fmt_line_reset(&s->scratch);
	fmt_line_add(&s->scratch, THEME_HEADER, " ", -1);
	fmt_line_add_trunc(&s->scratch, THEME_HEADER, title, w - 4, gl);
	fmt_line_add(&s->scratch, THEME_HEADER, " ", -1);
	mvwaddnstr(s->overlay, 0, 2, s->scratch.text, s->scratch.len);
	wattrset(s->overlay, s->attr[THEME_NORMAL]);
	for (int i = 0; i < inner && *top + i < nseg; i++) {
		const struct ov_seg *g = &seg[*top + i];

		fmt_line_reset(&s->scratch);
		if (g->cont)
			fmt_line_add(&s->scratch, THEME_NORMAL, "  ", -1);
		fmt_line_addn(&s->scratch, THEME_NORMAL, lines[g->i] + g->off, g->len);
		mvwaddnstr(s->overlay, 1 + i, 2, s->scratch.text, s->scratch.len);
	}
	if (nseg > inner) {
		char more[64];

		snprintf(more, sizeof(more), " %d-%d of %d, j/k scroll ", *top + 1,
			 *top + inner, nseg);
		wattrset(s->overlay, s->attr[THEME_DIM]);
		if ((int)strlen(more) + 4 < w)
			mvwaddstr(s->overlay, h - 1, w - 2 - (int)strlen(more), more);
	}
out:
	free(seg);
}

void screen_close_overlay(struct screen *s)
{
	if (s->overlay) {
		delwin(s->overlay);
		s->overlay = NULL;
	}
	/* the cells no pane owns (the column between the tree and the agent
	 * pane) kept the overlay's characters: blank them first, the panes are
	 * drawn over it at the next render (Ctrl-L alone repaints the stale
	 * virtual screen) */
	werase(stdscr);
	wnoutrefresh(stdscr);
	if (s->whead)
		touchwin(s->whead);
	if (s->wtree)
		touchwin(s->wtree);
	if (s->wstatus)
		touchwin(s->wstatus);
	if (s->wagent)
		touchwin(s->wagent);
}

void screen_draw_too_small(struct screen *s)
{
	char l1[64], l2[64];
	int y = s->rows / 2 - 1;

	snprintf(l1, sizeof(l1), "terminal too small (%dx%d)", s->cols, s->rows);
	snprintf(l2, sizeof(l2), "need at least %dx%d", SCREEN_MIN_COLS, SCREEN_MIN_ROWS);
	werase(stdscr);
	wattrset(stdscr, s->attr[THEME_STATUS_WARN]);
	if (y < 0)
		y = 0;
	if ((int)strlen(l1) + (int)strlen(l2) + 2 <= s->cols) {
		char all[160];

		snprintf(all, sizeof(all), "%s; %s", l1, l2);
		mvwaddnstr(stdscr, y + 1, (s->cols - (int)strlen(all)) / 2, all, s->cols);
	} else {
		int x1 = (s->cols - (int)strlen(l1)) / 2, x2 = (s->cols - (int)strlen(l2)) / 2;

		mvwaddnstr(stdscr, y, x1 > 0 ? x1 : 0, l1, s->cols);
		if (y + 1 < s->rows)
			mvwaddnstr(stdscr, y + 1, x2 > 0 ? x2 : 0, l2, s->cols);
	}
	wattrset(stdscr, A_NORMAL);
	wnoutrefresh(stdscr);
}

void screen_flush(struct screen *s)
{
	if (!s->too_small) {
		wnoutrefresh(s->whead);
		if (s->wtree)
			wnoutrefresh(s->wtree);
		if (s->wagent)
			wnoutrefresh(s->wagent);
		wnoutrefresh(s->wstatus);
		if (s->overlay) {
			touchwin(s->overlay);
			wnoutrefresh(s->overlay);
		}
	}
	doupdate();
}
