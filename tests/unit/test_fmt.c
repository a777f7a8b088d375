/* test_fmt — the TUI's pure parts: glyphs, widths, row formatting, columns,
 * the tree view model (expansion and selection across rebuilds), themes. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fmt.h"
#include "data/profile.h"
#include "theme.h"
#include "data/tree.h"
#include "view_keys.h"
#include "view_log.h"
#include "view_tree.h"

static void add(struct profile *p, unsigned w, const char *folded, uint64_t n)
{
	char buf[1024], *save = NULL, *tok;
	const char *frames[64];
	unsigned nf = 0;

	snprintf(buf, sizeof(buf), "%s", folded);
	for (tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
		frames[nf++] = tok;
	assert_int_equal(profile_add(p, w, frames, nf, 0, NULL, n), 0);
}

static const char *pf =
	"asm_exc_page_fault;exc_page_fault;do_user_addr_fault;handle_mm_fault;"
	"__handle_mm_fault;do_anonymous_page";

static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();
	int w;

	assert_non_null(p);
	w = profile_window_begin(p, COND_LOAD, 0);
	assert_int_equal(w, 0);
	add(p, 0, pf, 900);
	add(p, 0, "asm_exc_page_fault;exc_page_fault", 400);
	add(p, 0, "do_idle;cpuidle_enter;default_idle", 2000);
	add(p, 0, "entry_SYSCALL_64;do_syscall_64;__x64_sys_sched_yield;do_sched_yield;schedule", 60);
	add(p, 0, "entry_SYSCALL_64;do_syscall_64;__x64_sys_read;ksys_read;vfs_read;"
		  "ext4_file_read_iter_with_a_very_long_name_that_cannot_fit_in_any_column_at_all", 120);
	add(p, 0, "ret_from_fork_asm;ret_from_fork;kthread;worker_thread;vmstat_update", 1);
	profile_window_end(p, 0, 1.0);
	return p;
}

static struct tree_node *find_row(struct view_tree *v, const char *name, size_t *idx)
{
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].n->name, name)) {
			if (idx)
				*idx = i;
			return v->rows[i].n;
		}
	return NULL;
}

static void test_glyphs(void **state)
{
	const struct glyphs *u = glyphs_get(1), *a = glyphs_get(0);

	(void)state;
	assert_string_equal(u->g[GLYPH_TEE], "\u251c\u2500");
	assert_string_equal(a->g[GLYPH_TEE], "|-");
	assert_string_equal(a->g[GLYPH_ELBOW], "`-");
	for (int i = 0; i < GLYPH_N; i++) {
		/* each ASCII glyph is pure ASCII and as wide as its UTF-8 twin */
		for (const char *c = a->g[i]; *c; c++)
			assert_true((unsigned char)*c < 0x80);
		assert_int_equal(fmt_width(a->g[i]), fmt_width(u->g[i]));
	}
}

static void test_widths(void **state)
{
	int w;

	(void)state;
	assert_int_equal(fmt_width("abc"), 3);
	assert_int_equal(fmt_width("\u251c\u2500x"), 3);
	assert_int_equal(fmt_width("\u65e5\u672c"), 4);          /* two wide characters */
	assert_int_equal(fmt_fit("\u65e5\u672c", 3, &w), 3);   /* one fits, not half */
	assert_int_equal(w, 2);
	assert_int_equal(fmt_width("a\xff" "b"), 3);             /* invalid byte: one column */
}

static void test_line_trunc(void **state)
{
	struct fmt_line l;
	const struct glyphs *u = glyphs_get(1), *a = glyphs_get(0);

	(void)state;
	fmt_line_reset(&l);
	assert_int_equal(fmt_line_add_trunc(&l, THEME_NORMAL, "handle_mm_fault", 8, u), 8);
	assert_string_equal(l.text, "handle_\u2026");
	fmt_line_reset(&l);
	fmt_line_add_trunc(&l, THEME_NORMAL, "handle_mm_fault", 8, a);
	assert_string_equal(l.text, "handle_~");
	fmt_line_reset(&l);
	fmt_line_add_trunc(&l, THEME_NORMAL, "short", 8, u);
	fmt_line_pad(&l, THEME_DIM, 10);
	assert_string_equal(l.text, "short     ");
	assert_int_equal(l.width, 10);
	assert_int_equal(l.nspan, 2);
	assert_int_equal(fmt_line_role_at(&l, 6), THEME_DIM);
}

static void test_cols(void **state)
{
	struct fmt_cols c;

	(void)state;
	fmt_cols_layout(&c, 80, 0, 0);
	assert_int_equal(c.ncol, 3);
	assert_int_equal(c.namew, 80 - (1 + 7) - (1 + 5) - (1 + 7));
	fmt_cols_layout(&c, 80, 1, 0);
	assert_int_equal(c.ncol, 5);
	assert_true(c.namew >= 40);
	fmt_cols_layout(&c, 40, 1, 0);  /* narrow: ref/s and load/s give way */
	assert_true(c.namew >= 16);
	assert_int_equal(c.col[0], FMT_COL_DELTA);
	fmt_cols_layout(&c, 20, 0, 0);
	assert_true(c.namew >= 12);
}

/* %CPU (issue 24 item 9): the loaded side's share of one CPU, after load/s,
 * when the pane is wide; at 80 columns it goes before anything else does,
 * so the columns and the name's room are those without it. */
static void test_cols_cpu(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL);
	struct view_tree *v = view_tree_new(0.001);
	struct fmt_cols c, plain;
	struct fmt_row_ctx ctx;
	struct fmt_line l;
	struct tree_node *mm;
	size_t i = 0;

	(void)state;
	fmt_cols_layout(&plain, 80, 1, 0);
	fmt_cols_layout(&c, 80, 1, 1);
	assert_int_equal(c.ncol, plain.ncol);
	assert_int_equal(c.namew, plain.namew);
	for (unsigned k = 0; k < c.ncol; k++)
		assert_int_not_equal(c.col[k], FMT_COL_CPU);
	fmt_cols_layout(&c, 96, 1, 1);      /* 160 columns beside the agent pane */
	assert_int_equal(c.ncol, 6);
	assert_int_equal(c.col[1], FMT_COL_LOAD);
	assert_int_equal(c.col[2], FMT_COL_CPU);
	assert_true(c.namew >= FMT_NAME_CPU);
	fmt_cols_layout(&c, 96, 0, 1);      /* live trees: samples % self only */
	assert_int_equal(c.ncol, 3);
	fmt_cols_layout(&c, 96, 1, 0);      /* no frequency, or thread time */
	assert_int_equal(c.ncol, 5);

	assert_non_null(t);
	tree_sort(t, TREE_SORT_TOTAL);
	assert_int_equal(view_tree_set(v, t, 1), 0);
	assert_non_null(find_row(v, "mm", &i));
	mm = v->rows[i].n;
	mm->stat.rate[COND_LOAD] = 249.75;  /* at 999 Hz: 250 CPU-ms/s */
	mm->stat.cpu_ms[COND_LOAD] = 250.0;
	fmt_cols_layout(&c, 96, 1, 1);
	ctx = (struct fmt_row_ctx){ glyphs_get(1), &c, tree_node_sum(t->root), NULL, "samples/s" };
	fmt_row(&l, v, i, &ctx);
	assert_int_equal(fmt_width(l.text), 96);
	if (!strstr(l.text, " 25.0 "))
		fail_msg("row without its %%CPU: %s", l.text);
	fmt_colhead(&l, &ctx);
	if (!strstr(l.text, "load/s   %CPU"))
		fail_msg("heading: %s", l.text);
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
}

static void check_rows(struct view_tree *v, int utf8, int width)
{
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	struct fmt_line l;

	fmt_cols_layout(&cols, width, v->calibrated, 0);
	ctx.gl = glyphs_get(utf8);
	ctx.cols = &cols;
	ctx.root_total = tree_node_sum(v->t->root);
	ctx.match = NULL;
	for (size_t i = 0; i < v->nrows; i++) {
		fmt_row(&l, v, i, &ctx);
		assert_int_equal(l.width, width);
		assert_int_equal(fmt_width(l.text), width);
		assert_int_equal(l.selected, i == v->sel);
	}
	fmt_colhead(&l, &ctx);
	assert_int_equal(fmt_width(l.text), width);
	assert_non_null(strstr(l.text, "samples"));
}

static void test_rows(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL);
	struct view_tree *v = view_tree_new(0.001);
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	struct fmt_line l;
	size_t i = 0;

	(void)state;
	assert_non_null(t);
	tree_sort(t, TREE_SORT_TOTAL);
	assert_int_equal(view_tree_set(v, t, 0), 0);
	/* root and its subsystems; the 1-sample kworker path is below 0.1% */
	assert_non_null(find_row(v, "mm", NULL));
	assert_null(find_row(v, "asm_exc_page_fault", NULL));
	assert_true(v->nhidden >= 1);
	fmt_cols_layout(&cols, 80, 0, 0);
	ctx = (struct fmt_row_ctx){ glyphs_get(1), &cols, tree_node_sum(t->root), NULL, NULL };
	assert_non_null(find_row(v, "mm", &i));
	fmt_row(&l, v, i, &ctx);
	assert_non_null(strstr(l.text, "\u251c\u2500\u25b8 mm"));
	if (!strstr(l.text, " 1301 "))
		fail_msg("row: %s", l.text);
	ctx.gl = glyphs_get(0);
	fmt_row(&l, v, i, &ctx);
	assert_non_null(strstr(l.text, "|-+ mm"));
	check_rows(v, 1, 80);
	check_rows(v, 0, 80);
	check_rows(v, 1, 40);
	/* everything open: deep rows and the long name still fit exactly */
	assert_int_equal(view_tree_expand_all(v), 0);
	assert_non_null(find_row(v, "do_anonymous_page", NULL));
	check_rows(v, 1, 80);
	check_rows(v, 0, 60);
	check_rows(v, 1, 40);
	find_row(v, "ext4_file_read_iter_with_a_very_long_name_that_cannot_fit_in_any_column_at_all",
		 &i);
	fmt_row(&l, v, i, &ctx);
	/* shortened in the middle: both ends stay */
	assert_non_null(strstr(l.text, "ext4_file_read"));
	assert_non_null(strstr(l.text, "at_all"));
	assert_null(strstr(l.text, "cannot_fit"));
	assert_non_null(strstr(l.text, "~"));
	/* a search match is its own span */
	ctx.match = "ANON";
	find_row(v, "do_anonymous_page", &i);
	fmt_row(&l, v, i, &ctx);
	{
		const char *m = strstr(l.text, "anon");

		assert_non_null(m);
		assert_int_equal(fmt_line_role_at(&l, (size_t)(m - l.text)), THEME_SEARCH_MATCH);
		assert_int_equal(fmt_line_role_at(&l, (size_t)(m - l.text) - 1), THEME_NORMAL);
	}
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
}

static void test_state_survives_rebuild(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL), *t2;
	struct view_tree *v = view_tree_new(0.001);
	struct tree_node *n;
	size_t i = 0;

	(void)state;
	tree_sort(t, TREE_SORT_TOTAL);
	view_tree_set(v, t, 0);
	find_row(v, "mm", &i);
	view_tree_move_to(v, i);
	assert_int_equal(view_tree_expand(v), 0);
	view_tree_move(v, 1);
	n = view_tree_selected(v);
	assert_string_equal(n->name, "asm_exc_page_fault");
	/* more samples elsewhere change the order; state is kept by id */
	add(p, 0, "entry_SYSCALL_64;do_syscall_64;__x64_sys_write;ksys_write", 5000);
	t2 = tree_build(p, NULL);
	tree_sort(t2, TREE_SORT_TOTAL);
	assert_int_equal(view_tree_set(v, t2, 0), 0);
	tree_free(t);
	n = view_tree_selected(v);
	assert_string_equal(n->name, "asm_exc_page_fault");
	assert_non_null(find_row(v, "asm_exc_page_fault", NULL));
	/* collapse goes to the parent, then collapses it */
	assert_int_equal(view_tree_collapse(v), 0);
	assert_string_equal(view_tree_selected(v)->name, "mm");
	assert_int_equal(view_tree_collapse(v), 0);
	assert_null(find_row(v, "asm_exc_page_fault", NULL));
	/* search opens the path to a match and selects it */
	assert_int_equal(view_tree_find(v, 1, 0, view_tree_match_name, "ANONYMOUS"), 1);
	assert_string_equal(view_tree_selected(v)->name, "do_anonymous_page");
	assert_non_null(find_row(v, "handle_mm_fault", NULL));
	assert_int_equal(view_tree_find(v, 1, 0, view_tree_match_name, "no_such_frame"), 0);
	view_tree_collapse_all(v);
	assert_null(find_row(v, "handle_mm_fault", NULL));
	view_tree_free(v);
	tree_free(t2);
	profile_free(p);
}

struct row_snap {
	struct tree_node *n;
	unsigned depth, last, expanded, has_kids;
	unsigned char cont[64];
};

static struct row_snap *snap(struct view_tree *v)
{
	struct row_snap *r = calloc(v->nrows, sizeof(*r));

	for (size_t i = 0; i < v->nrows; i++) {
		r[i].n = v->rows[i].n;
		r[i].depth = v->rows[i].depth;
		r[i].last = v->rows[i].last;
		r[i].expanded = v->rows[i].expanded;
		r[i].has_kids = v->rows[i].has_kids;
		/* cont[0] is unused (the root's slot) */
		for (unsigned d = 1; d < r[i].depth && d < 64; d++)
			r[i].cont[d] = v->cont[v->rows[i].cont_off + d];
	}
	return r;
}

/* Toggling splices rows; the result must equal a full flatten. */
static void test_splice_equals_flatten(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL);
	struct view_tree *v = view_tree_new(0);
	struct row_snap *a, *b;
	size_t n, i = 0, sel;

	(void)state;
	tree_sort(t, TREE_SORT_TOTAL);
	view_tree_set(v, t, 0);
	view_tree_expand_all(v);
	for (int round = 0; round < 6; round++) {
		find_row(v, round % 2 ? "exc_page_fault" : "entry_SYSCALL_64", &i);
		view_tree_move_to(v, i + (round % 3 == 2));
		assert_int_equal(view_tree_toggle(v), 0);
		if (round == 3) {
			view_tree_move_to(v, v->nrows - 1);
			assert_int_equal(view_tree_collapse(v), 0);
		}
		n = v->nrows;
		sel = v->sel;
		a = snap(v);
		assert_int_equal(view_tree_flatten(v), 0);
		assert_int_equal(v->nrows, n);
		assert_int_equal(v->sel, sel);
		b = snap(v);
		assert_memory_equal(a, b, n * sizeof(*a));
		free(a);
		free(b);
	}
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
}

static void test_idset(void **state)
{
	struct idset s = { 0 };

	(void)state;
	for (uint64_t i = 0; i < 5000; i++)
		assert_int_equal(idset_add(&s, i * 7919), 0);
	for (uint64_t i = 0; i < 5000; i += 2)
		idset_del(&s, i * 7919);
	for (uint64_t i = 0; i < 5000; i++)
		assert_int_equal(idset_has(&s, i * 7919), (int)(i % 2));
	idset_free(&s);
}

static void test_status(void **state)
{
	struct source_status st = { 0 };
	struct fmt_line l;
	const char *d;

	(void)state;
	st.phase = SOURCE_REF;
	st.window = 1;
	st.nwindows = 6;
	st.samples = 12345;
	st.dropped = 7;
	st.freq_hz = 999;
	st.rate = 1500;
	st.elapsed_s = 65;
	st.probes = 2;
	st.overhead_pct = 0.4;
	st.load_state = "paused";
	fmt_status(&l, &st, 120, glyphs_get(1));
	assert_int_equal(l.width, 120);
	assert_non_null(strstr(l.text, "reference window 2/6"));
	assert_non_null(strstr(l.text, "01:05"));
	assert_non_null(strstr(l.text, "overhead 0.4%"));
	d = strstr(l.text, "dropped 7");
	assert_non_null(d);
	assert_int_equal(fmt_line_role_at(&l, (size_t)(d - l.text)), THEME_DROPPED);
	/* narrow: dropped stays, less important fields go */
	fmt_status(&l, &st, 40, glyphs_get(0));
	assert_int_equal(l.width, 40);
	assert_non_null(strstr(l.text, "dropped 7"));
	assert_null(strstr(l.text, "overhead"));
	st.dropped = 0;
	fmt_status(&l, &st, 80, glyphs_get(0));
	d = strstr(l.text, "dropped 0");
	assert_non_null(d);
	assert_int_equal(fmt_line_role_at(&l, (size_t)(d - l.text)), THEME_STATUS);
}

/* Issue 24 item 9: at 80 columns the status bar showed "load runnin".  It
 * is the screen's last row, whose last cell is never written
 * (screen_put_line): at every width, with the pane's phase and the --auto
 * warning or without, the last column is blank, so each field shows whole
 * or not at all. */
static void test_status_last_column(void **state)
{
	struct source_status st = { 0 };
	struct fmt_line l;
	const char *phases[] = { NULL, "waiting for you", "step measuring (3s left)" };

	(void)state;
	st.phase = SOURCE_DONE;
	st.samples = 1825;
	st.elapsed_s = 7;
	st.load_state = "running";
	for (int u = 0; u <= 1; u++)
		for (unsigned p = 0; p < sizeof(phases) / sizeof(phases[0]); p++)
			for (int warn = 0; warn <= 1; warn++)
				for (int w = 24; w <= 200; w++) {
					const char *r;

					fmt_status_ex(&l, &st, w, glyphs_get(u), phases[p],
						      warn ? "AUTO: steps load without asking" : NULL);
					assert_int_equal(l.width, w);
					if (l.text[l.len - 1] != ' ')
						print_message("%d: '%s'\n", w, l.text);
					assert_int_equal(l.text[l.len - 1], ' ');
					r = strstr(l.text, "load runnin");
					if (r)
						assert_int_equal(r[strlen("load runnin")], 'g');
				}
}

/* Issue 13 item 5: the header says what the run is, never cut, and the
 * process with -p; the title gives way in the middle. */
static void test_header_state(void **state)
{
	struct source_status st = { 0 };
	struct fmt_line l;
	const char *title = "argus --load /usr/lib/very/long/path/to/a/load/binary --seconds 120";
	const char *subs = "mm +3000% · idle -60% · irq new (n.s.) · fs +67% (n.s.) · net +1%";
	const struct fmt_header_sum sum0 = { .text = subs }, *sum = &sum0;
	const char *rt = "argus replay procs-session.jsonl";

	(void)state;
	st.nwindows = 24;
	st.phase = SOURCE_STARTING;
	assert_string_equal(fmt_run_state(&st, 0), "calibrating");
	assert_true(fmt_run_measuring(&st));
	st.phase = SOURCE_LOAD;
	assert_string_equal(fmt_run_state(&st, 0), "calibrating");
	st.phase = SOURCE_DONE;
	assert_string_equal(fmt_run_state(&st, 0), "calibration done");
	assert_false(fmt_run_measuring(&st));
	assert_string_equal(fmt_run_state(&st, 1), "replay");
	st.nwindows = 0;
	st.phase = SOURCE_LIVE;
	assert_string_equal(fmt_run_state(&st, 0), "live");
	assert_false(fmt_run_measuring(&st));
	st.phase = SOURCE_STATIC;
	assert_string_equal(fmt_run_state(&st, 0), "recorded");

	for (int w = 40; w <= 160; w += 40) {
		fmt_header(&l, w, title, "calibrating · pid 4242 (cow_fault)", sum, glyphs_get(1));
		assert_int_equal(l.width, w);
		assert_non_null(strstr(l.text, "calibrating · pid 4242 (cow_fault)"));
		if (w >= 80)   /* narrower, the state first */
			assert_non_null(strstr(l.text, " argus --"));
	}
	/* 80 columns: the title shortened in the middle (both ends show), the
	 * summary after the state */
	fmt_header(&l, 80, title, "calibration done", sum, glyphs_get(1));
	assert_non_null(strstr(l.text, "…"));
	assert_non_null(strstr(l.text, "120 · calibration done  mm +3000%"));
	/* Displaced work, as the analysis hands it over (struct analysis's
	 * fields: no text is parsed).  Wide: all of it, the subsystems, the
	 * separator, the processes. */
	{
		static const struct analysis_displaced d[] = {
			{ "bgjob [200]", 812.4 }, { "cron [31]", 45.0 }, { "make [100]", 3.2 },
		};
		struct fmt_header_sum ds = {
			.text = "mm +7408% · fs −37% · irq +12% · idle time −33% (not ranked: not work)",
			.displaced = d, .ndisplaced = 1,
		};
		struct fmt_header_sum da = {
			.text = "mm +7408% | fs -37% | irq +12% | idle time -33% (not ranked: not work)",
			.displaced = d, .ndisplaced = 1,
		};

		fmt_header(&l, 160, rt, "replay, by process", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 160);
		assert_non_null(strstr(l.text, "replay, by process  mm +7408% · fs −37% · irq +12% · "
					  "idle time −33% (not ranked: not work) · displaced: "
					  "bgjob [200] −812/s"));
		assert_null(strstr(l.text, "…"));   /* nothing cut */
		/* 80 columns: the subsystems yield, the displaced process stays
		 * whole after a separator */
		fmt_header(&l, 80, rt, "replay", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_non_null(strstr(l.text, "replay  mm +7408%"));
		assert_non_null(strstr(l.text, "… · displaced: bgjob [200] −812/s"));
		/* a longer state leaves under 8 columns for them: the process alone */
		fmt_header(&l, 80, rt, "replay, by process", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_null(strstr(l.text, "mm +"));
		assert_non_null(strstr(l.text, "replay, by process  displaced: bgjob [200] −812/s"));
		/* ascii: its separator and minus, no doubled separator */
		fmt_header(&l, 80, rt, "replay", &da, glyphs_get(0));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_non_null(strstr(l.text, "~ | displaced: bgjob [200] -812/s"));
		assert_null(strstr(l.text, "| |"));
		/* three processes: at 80 no room for the subsystems; whole entries
		 * from the first, the rest counted, or cut when even that does
		 * not fit; at 120 all three and the subsystems cut; at 160 all */
		ds.ndisplaced = 3;
		fmt_header(&l, 80, rt, "replay", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_null(strstr(l.text, "mm +"));
		assert_non_null(strstr(l.text, "replay  displaced: bgjob [200] −812/s, +2 more"));
		fmt_header(&l, 80, rt, "replay, by process", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_non_null(strstr(l.text, "displaced: bgjob [200] −812/s, …"));
		fmt_header(&l, 120, "argus", "replay", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 120);
		assert_non_null(strstr(l.text, "replay  mm +7408%"));
		assert_non_null(strstr(l.text, "… · displaced: bgjob [200] −812/s, cron [31] −45/s, "
					  "make [100] −3/s"));
		fmt_header(&l, 160, "argus", "replay", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 160);
		assert_non_null(strstr(l.text, "(not ranked: not work) · displaced: bgjob [200] −812/s, "
					  "cron [31] −45/s, make [100] −3/s"));
		/* displaced work and no subsystems (a note's place): no separator */
		ds.text = NULL;
		fmt_header(&l, 160, rt, "live", &ds, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_non_null(strstr(l.text, "live  displaced: bgjob [200] −812/s"));
	}
	/* issue 24 item 9: --victim's title names the victim, then the load
	 * in an aside; short of room the aside goes whole, never a cut that
	 * joins the two names */
	{
		const char *vt = "victim: starved --seconds 60  (load paused in ref: spinner --threads 2)";
		const struct fmt_header_sum vs = { .text = "sched +2925% · user −67% · irq +100%" };

		fmt_header(&l, 160, vt, "calibrating", &vs, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 160);
		assert_non_null(strstr(l.text, " victim: starved --seconds 60  (load paused in ref: "
					  "spinner --threads 2) · calibrating  sched +2925%"));
		fmt_header(&l, 80, vt, "calibration done", &vs, glyphs_get(1));
		print_message("%s\n", l.text);
		assert_int_equal(l.width, 80);
		assert_non_null(strstr(l.text, " victim: starved --seconds 60 · calibration done  sched "));
		assert_null(strstr(l.text, "load paused"));
		/* however narrow, the state stays whole */
		for (int w = 30; w <= 80; w++) {
			fmt_header(&l, w, vt, "calibration done", &vs, glyphs_get(1));
			assert_int_equal(l.width, w);
			assert_non_null(strstr(l.text, " · calibration done"));
		}
	}
	/* no state: as before */
	fmt_header(&l, 80, "argus", NULL, NULL, glyphs_get(0));
	assert_string_equal(l.text, " argus" "                                        "
			    "                                  ");
}

/* Issue 13 items 5 and 7: the ◆ path in one line, provisional while the
 * windows run, shortened by whole frames in the middle. */
static void test_verdict_line(void **state)
{
	char *path[] = { "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
			 "handle_mm_fault", "__handle_mm_fault", "do_wp_page" };
	struct fmt_verdict v = { .found = 1, .provisional = 1, .subsystem = "mm",
				 .path = path, .npath = 6 };
	struct fmt_line l;

	(void)state;
	fmt_verdict_line(&l, 160, &v, glyphs_get(1));
	assert_int_equal(l.width, 160);
	assert_non_null(strstr(l.text, "◆ provisional: mm › asm_exc_page_fault › exc_page_fault"
			       " › do_user_addr_fault › handle_mm_fault › __handle_mm_fault"
			       " › do_wp_page"));
	assert_int_equal(fmt_line_role_at(&l, (size_t)(strstr(l.text, "provisional") - l.text)),
			 THEME_STATUS_WARN);
	v.provisional = 0;
	fmt_verdict_line(&l, 80, &v, glyphs_get(1));
	assert_int_equal(l.width, 80);
	assert_null(strstr(l.text, "provisional"));
	/* the first part and the leaf end stay; frames go from the middle */
	assert_non_null(strstr(l.text, "◆ verdict: mm › … › "));
	assert_non_null(strstr(l.text, "› __handle_mm_fault › do_wp_page"));
	assert_null(strstr(l.text, "exc_page_fault ›"));
	/* very narrow: characters out of the middle, still the leaf's end */
	fmt_verdict_line(&l, 30, &v, glyphs_get(0));
	assert_int_equal(l.width, 30);
	assert_non_null(strstr(l.text, "# verdict: mm"));
	assert_non_null(strstr(l.text, "p_page"));
	/* a spread verdict says how many more branches */
	v.nbranches = 3;
	fmt_verdict_line(&l, 100, &v, glyphs_get(0));
	assert_non_null(strstr(l.text, "do_wp_page  +2 more"));
	/* a blocked verdict names its waker apart from its subsystem */
	v.nbranches = 0;
	v.waker = "softirq BLOCK";
	fmt_verdict_line(&l, 160, &v, glyphs_get(0));
	assert_non_null(strstr(l.text, "do_wp_page  woken by softirq BLOCK"));
	v.waker = NULL;
	/* nothing found */
	v.found = 0;
	v.provisional = 1;
	fmt_verdict_line(&l, 80, &v, glyphs_get(0));
	assert_non_null(strstr(l.text, "# provisional: no bottleneck found so far"));
}

static void test_numbers(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(fmt_count(99999, 7, b, sizeof(b)), "  99999");
	assert_string_equal(fmt_count(123456, 7, b, sizeof(b)), " 123.5k");
	assert_string_equal(fmt_signed(12.34, 0, b, sizeof(b)), "+12.3");
	assert_string_equal(fmt_signed(-4500, 0, b, sizeof(b)), "-4500");
	assert_string_equal(fmt_elapsed(3725, b, sizeof(b)), "1:02:05");
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static void test_theme_builtin_matches_file(void **state)
{
	struct theme builtin, file;
	char *cause = NULL, *text = read_all("themes/default.theme");

	(void)state;
	assert_non_null(text);
	theme_default(&builtin);
	theme_default(&file);
	assert_int_equal(theme_parse(&file, text, "default.theme", &cause), 0);
	assert_null(cause);
	assert_memory_equal(builtin.role, file.role, sizeof(builtin.role));
	free(text);
	/* the other shipped themes parse */
	for (int i = 0; i < 3; i++) {
		static const char *const names[] = { "light", "high-contrast", "mono" };
		struct theme t;

		assert_int_equal(theme_load(&t, names[i], &cause), 0);
		assert_string_equal(t.name, names[i]);
	}
}

static void expect_error(const char *text, const char *want)
{
	struct theme t;
	char *cause = NULL;

	theme_default(&t);
	assert_int_equal(theme_parse(&t, text, "x.theme", &cause), -22);
	assert_non_null(cause);
	if (!strstr(cause, want))
		fail_msg("cause '%s' lacks '%s'", cause, want);
	free(cause);
}

static void test_theme_parse(void **state)
{
	struct theme t;
	struct theme_style s;
	char *cause = NULL;

	(void)state;
	theme_default(&t);
	assert_int_equal(theme_parse(&t, "# c\n\n delta-up = 196 default bold,underline # x\n"
				     "dim = 8 - | white - dim | dim\n", "t", &cause), 0);
	s = theme_resolve(&t, THEME_DELTA_UP, THEME_DEPTH_256);
	assert_int_equal(s.fg, 196);
	assert_int_equal(s.bg, THEME_COLOR_DEFAULT);
	assert_int_equal(s.attrs, THEME_A_BOLD | THEME_A_UNDERLINE);
	s = theme_resolve(&t, THEME_DELTA_UP, THEME_DEPTH_8);   /* derived: no colors */
	assert_int_equal(s.fg, THEME_COLOR_DEFAULT);
	assert_int_equal(s.attrs, THEME_A_BOLD | THEME_A_UNDERLINE);
	s = theme_resolve(&t, THEME_DIM, THEME_DEPTH_8);
	assert_int_equal(s.fg, 7);
	expect_error("normal = 1 2\nfoo = 1 2\n", "x.theme:2: unknown role 'foo'");
	expect_error("\n\nnormal = 300 1\n", "x.theme:3: 256-color color '300'");
	expect_error("normal = 1 2 | 9 1\n", "x.theme:1: 8-color color '9'");
	expect_error("normal = 1 2 blink\n", "x.theme:1: unknown attribute 'blink'");
	expect_error("normal = 1\n", "x.theme:1: 256-color part needs");
	expect_error("normal 1 2\n", "x.theme:1: expected 'role = ");
	expect_error("normal = 1 2 | 1 2 | bold | x\n", "x.theme:1: too many");
	expect_error("normal = 1 2 | 1 2 | bold underline\n", "x.theme:1: mono part");
}

static void test_theme_mono(void **state)
{
	struct theme t;

	(void)state;
	theme_default(&t);
	assert_int_equal(theme_depth_for(256, "1"), THEME_DEPTH_MONO);   /* NO_COLOR */
	assert_int_equal(theme_depth_for(256, ""), THEME_DEPTH_256);     /* empty: ignored */
	assert_int_equal(theme_depth_for(8, NULL), THEME_DEPTH_8);
	assert_int_equal(theme_depth_for(0, NULL), THEME_DEPTH_MONO);
	/* the delta meaning survives mono */
	assert_true(theme_resolve(&t, THEME_DELTA_UP, THEME_DEPTH_MONO).attrs & THEME_A_BOLD);
	assert_true(theme_resolve(&t, THEME_DELTA_DOWN, THEME_DEPTH_MONO).attrs & THEME_A_UNDERLINE);
	assert_true(theme_resolve(&t, THEME_INSIGNIFICANT, THEME_DEPTH_MONO).attrs & THEME_A_DIM);
	assert_true(theme_resolve(&t, THEME_SELECTED, THEME_DEPTH_MONO).attrs & THEME_A_REVERSE);
	assert_int_equal(theme_resolve(&t, THEME_DELTA_UP, THEME_DEPTH_MONO).fg,
			 THEME_COLOR_DEFAULT);
	for (int r = 0; r < THEME_ROLE_N; r++) {
		assert_non_null(theme_role_name((enum theme_role)r));
		assert_int_equal(theme_role_from_name(theme_role_name((enum theme_role)r)), r);
	}
}

static void test_keys(void **state)
{
	(void)state;
	for (const struct key_binding *b = key_table; b->label; b++) {
		assert_non_null(b->help);
		assert_true(b->code[0] != 0);
		for (int i = 0; i < 4 && b->code[i]; i++)
			assert_int_equal(key_lookup(b->code[i]), b->action);
	}
	assert_int_equal(key_lookup('q'), KEY_ACT_QUIT);
	assert_int_equal(key_lookup('/'), KEY_ACT_SEARCH);
	assert_int_equal(key_lookup('Z'), KEY_ACT_NONE);
	/* one key, one meaning (issue 24 item 11): p groups by process in a
	 * replay as live, b steps back there and is no live key; a replay key
	 * that the live tree binds too does the same there (n excepted: the
	 * next event, the next match live; a replay's is >) */
	assert_int_equal(key_lookup('p'), KEY_ACT_GROUP);
	assert_int_equal(key_lookup_replay('p'), KEY_ACT_GROUP);
	assert_int_equal(key_lookup_replay('b'), KEY_ACT_REPLAY_PREV);
	assert_int_equal(key_lookup('b'), KEY_ACT_NONE);
	for (const struct key_binding *b = key_replay_table; b->label; b++)
		for (int i = 0; i < 4 && b->code[i]; i++) {
			const struct key_binding *k = key_binding_of(b->code[i]);

			if (k && b->code[i] != 'n')
				assert_int_equal(k->action, b->action);
		}
	/* 0 resets live sampling's counts; a replay has no such key */
	assert_int_equal(key_lookup('0'), KEY_ACT_RESET);
	assert_int_equal(key_lookup_replay('0'), KEY_ACT_NONE);
}

static void test_log_ring(void **state)
{
	struct log_ring *r = log_ring_new(3, NULL);

	(void)state;
	log_ring_feed(r, "libbpf: one\nlibbpf: t", 21);
	assert_int_equal(log_ring_count(r), 1);
	log_ring_feed(r, "wo\nthree\nfour\n", 14);
	assert_int_equal(log_ring_count(r), 3);
	assert_string_equal(log_ring_line(r, 0), "libbpf: two");
	assert_string_equal(log_ring_line(r, 2), "four");
	assert_int_equal(log_ring_total(r), 4);
	log_ring_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glyphs),
		cmocka_unit_test(test_widths),
		cmocka_unit_test(test_line_trunc),
		cmocka_unit_test(test_cols),
		cmocka_unit_test(test_cols_cpu),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_state_survives_rebuild),
		cmocka_unit_test(test_splice_equals_flatten),
		cmocka_unit_test(test_idset),
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_status_last_column),
		cmocka_unit_test(test_header_state),
		cmocka_unit_test(test_verdict_line),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_theme_builtin_matches_file),
		cmocka_unit_test(test_theme_parse),
		cmocka_unit_test(test_theme_mono),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_log_ring),
	};

	if (!setlocale(LC_ALL, "C.UTF-8"))
		setlocale(LC_ALL, "C.utf8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
