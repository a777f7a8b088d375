/* bench_tui — redrawing a 50k-node fully expanded tree after a keypress.
 *
 * Builds a random calling-context tree of ~50 000 nodes, expands all of it,
 * and times what the TUI does after a key: the view update (flatten), the
 * formatting of the visible rows, and the curses drawing (newterm on
 * /dev/null, so the terminal's own speed is left out).  Printed side by side
 * in one run: Down, PgDn (every row changes), PgDn with the line cache
 * disabled (a full repaint), Enter on the root's biggest child (rows spliced
 * out and back in) and a live refresh (the whole tree flattened again).
 * Target (issue 2): under 10 ms per redraw after a keypress. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curses.h>
#include <locale.h>

#include "fmt.h"
#include "data/profile.h"
#include "theme.h"
#include "data/tree.h"
#include "view_screen.h"
#include "view_tree.h"

#define NODES 50000
#define ITER 200

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct profile *random_profile(unsigned n)
{
	struct profile *p = profile_new();
	unsigned *parent = calloc(n, sizeof(*parent));
	char (*names)[24] = calloc(n, sizeof(*names));
	const char *frames[128];
	unsigned seed = 12345;

	if (!p || !parent || !names)
		exit(1);
	profile_window_begin(p, COND_LOAD, 0);
	for (unsigned k = 0; k < n; k++) {
		unsigned depth = 0, chain[128], c;

		seed = seed * 1103515245u + 12345u;
		parent[k] = k ? (seed >> 8) % k : 0;
		snprintf(names[k], sizeof(names[k]), k == 0 ? "do_syscall_64" : "fn_%u", k);
		for (c = k; depth < 128; c = parent[c]) {
			chain[depth++] = c;
			if (!c)
				break;
		}
		for (unsigned d = 0; d < depth; d++)
			frames[d] = names[chain[depth - 1 - d]];
		profile_add(p, 0, frames, depth, 0, NULL, 1 + (seed >> 20) % 50);
	}
	profile_window_end(p, 0, 1.0);
	free(parent);
	free(names);
	return p;
}

struct run {
	const char *what;
	double ms;
	unsigned long drawn, skipped;
};

static void draw(struct screen *s, struct view_tree *v, struct fmt_row_ctx *ctx)
{
	struct source_status st = { .phase = SOURCE_LIVE, .freq_hz = 999, .rate = 1998,
				    .samples = 123456, .overhead_pct = -1 };

	screen_draw_header(s, "argus bench", "live", NULL, ctx->gl);
	screen_draw_tree(s, v, ctx, NULL, THEME_NORMAL, 0);
	screen_draw_status(s, &st, ctx->gl);
	screen_flush(s);
}

enum bench_key { BK_DOWN, BK_PAGE, BK_TOGGLE, BK_REFRESH };

/* One keypress as the app handles it: navigation only moves the selection,
 * a toggle splices rows, a live refresh flattens the whole tree again. */
static void bench(struct screen *s, struct view_tree *v, struct fmt_row_ctx *ctx,
		  enum bench_key key, int nocache, struct run *r)
{
	double t0;

	view_tree_move_to(v, key == BK_TOGGLE ? 1 : 0);
	draw(s, v, ctx);
	s->drawn = s->skipped = 0;
	t0 = now_ms();
	for (int i = 0; i < ITER; i++) {
		switch (key) {
		case BK_DOWN:
			view_tree_move(v, 1);
			break;
		case BK_PAGE:
			view_tree_move(v, (long)v->height);
			break;
		case BK_TOGGLE:   /* the root's biggest child: most of the tree */
			if (view_tree_toggle(v) < 0)
				exit(1);
			break;
		case BK_REFRESH:
			if (view_tree_flatten(v) < 0)
				exit(1);
			break;
		}
		if (nocache)
			screen_invalidate(s);
		draw(s, v, ctx);
	}
	r->ms = (now_ms() - t0) / ITER;
	r->drawn = s->drawn;
	r->skipped = s->skipped;
}

int main(void)
{
	struct profile *p;
	struct tree *t;
	struct view_tree *v;
	struct screen s;
	struct theme th;
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	struct run runs[5] = {
		{ "Down (format+draw)", 0, 0, 0 },
		{ "PgDn (format+draw)", 0, 0, 0 },
		{ "PgDn, no line cache", 0, 0, 0 },
		{ "Enter on a big subtree (splice)", 0, 0, 0 },
		{ "live refresh (full flatten)", 0, 0, 0 },
	};
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	SCREEN *scr;
	double t0, build_ms, set_ms;

	setlocale(LC_ALL, "C.UTF-8");
	t0 = now_ms();
	p = random_profile(NODES);
	t = tree_build(p, NULL);
	if (!t)
		return 1;
	tree_sort(t, TREE_SORT_TOTAL);
	build_ms = now_ms() - t0;
	v = view_tree_new(0);
	t0 = now_ms();
	if (!v || view_tree_set(v, t, 0) < 0)
		return 1;
	set_ms = now_ms() - t0;
	if (view_tree_expand_all(v) < 0)
		return 1;

	scr = newterm("xterm-256color", out, in);
	if (!scr) {
		fprintf(stderr, "bench_tui: newterm failed\n");
		return 1;
	}
	set_term(scr);
	resizeterm(50, 160);
	start_color();
	use_default_colors();
	memset(&s, 0, sizeof(s));
	if (screen_init(&s) < 0)
		return 1;
	theme_default(&th);
	screen_set_theme(&s, &th, THEME_DEPTH_256);
	view_tree_set_height(v, (unsigned)screen_tree_rows(&s));
	fmt_cols_layout(&cols, s.tree.w, 0);
	ctx = (struct fmt_row_ctx){ glyphs_get(1), &cols, tree_node_sum(t->root), NULL };

	bench(&s, v, &ctx, BK_DOWN, 0, &runs[0]);
	bench(&s, v, &ctx, BK_PAGE, 0, &runs[1]);
	bench(&s, v, &ctx, BK_PAGE, 1, &runs[2]);
	bench(&s, v, &ctx, BK_TOGGLE, 0, &runs[3]);
	bench(&s, v, &ctx, BK_REFRESH, 0, &runs[4]);
	screen_fini(&s);
	endwin();
	delscreen(scr);

	printf("tree: %zu nodes, %zu visible rows (all expanded), built in %.0f ms; "
	       "screen 160x50, %d rows per page\n", t->nnodes, v->nrows, build_ms,
	       screen_tree_rows(&s));
	printf("view of a new tree (after each live rebuild, once): %.1f ms\n", set_ms);
	printf("%-30s %10s %12s %12s\n", "after a keypress", "ms/redraw", "rows drawn",
	       "rows skipped");
	for (int i = 0; i < 5; i++)
		printf("%-30s %10.3f %12lu %12lu\n", runs[i].what, runs[i].ms, runs[i].drawn,
		       runs[i].skipped);
	printf("ratio PgDn no-cache / cached: %.2f; ratio full flatten / splice: %.1f\n",
	       runs[1].ms > 0 ? runs[2].ms / runs[1].ms : 0,
	       runs[3].ms > 0 ? runs[4].ms / runs[3].ms : 0);
	printf("target < 10 ms per redraw after a keypress: %s\n",
	       runs[0].ms < 10 && runs[1].ms < 10 && runs[3].ms < 10 ? "met" : "NOT met");
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
	fclose(out);
	fclose(in);
	return 0;
}
