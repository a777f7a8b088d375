/* test_icicle — the icicle view's layout (widths by loaded samples, levels,
 * narrow nodes left out), its moves, zoom and unzoom, ids kept across a
 * rebuild, and its lines (names shortened in the middle, the selection). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "analysis/calib.h"
#include "fmt.h"
#include "data/profile.h"
#include "data/tree.h"
#include "view_icicle.h"

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

/* ref window 0, load window 1: under asm_exc_page_fault, a 3:1 split of the
 * loaded samples; a tiny sibling; a reference-only path (no loaded width). */
static struct tree *sample(void)
{
	struct profile *p = profile_new();
	struct calib_opts co;
	struct tree *t;

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	profile_window_end(p, 0, 1.0);
	profile_window_end(p, 1, 1.0);
	add(p, 1, "asm_exc_page_fault;exc_page_fault;do_anonymous_page", 600);
	add(p, 1, "asm_exc_page_fault;exc_page_fault;a_very_long_function_name_for_the_cell", 200);
	add(p, 1, "asm_exc_page_fault;tiny", 1);
	add(p, 0, "asm_exc_page_fault;exc_page_fault;do_anonymous_page", 10);
	add(p, 0, "cpu_startup_entry;do_idle", 500);
	t = tree_build(p, NULL);
	assert_non_null(t);
	calib_opts_default(&co);
	assert_int_equal(calib_run(t, &co), 0);
	tree_sort(t, TREE_SORT_LOAD);
	profile_free(p);
	return t;
}

static const struct icicle_cell *cell(const struct icicle *ic, const char *name)
{
	for (size_t i = 0; i < ic->ncells; i++)
		if (!strcmp(ic->cells[i].n->name, name))
			return &ic->cells[i];
	return NULL;
}

static void test_layout(void **state)
{
	struct tree *t = sample();
	struct icicle ic = { 0 };
	const struct icicle_cell *a, *b, *e;

	(void)state;
	icicle_open(&ic, NULL);
	assert_int_equal(icicle_layout(&ic, t, 1, 80, 10), 0);
	assert_ptr_equal(ic.root, t->root);
	assert_ptr_equal(ic.sel, t->root);
	/* all -> mm -> asm_exc_page_fault -> exc_page_fault -> the two leaves */
	assert_int_equal(ic.nlevels, 5);
	e = cell(&ic, "exc_page_fault");
	a = cell(&ic, "do_anonymous_page");
	b = cell(&ic, "a_very_long_function_name_for_the_cell");
	assert_non_null(e);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->level, 4);
	/* widths by loaded samples: 600 against 200 */
	assert_int_equal(a->x0, e->x0);
	assert_true(a->x1 - a->x0 >= 3 * (b->x1 - b->x0) - 1);
	assert_true(a->x1 - a->x0 <= 3 * (b->x1 - b->x0) + 1);
	assert_int_equal(b->x0, a->x1);
	/* one sample of 801: under one column, not drawn; idle has no loaded samples */
	assert_null(cell(&ic, "tiny"));
	assert_null(cell(&ic, "idle"));
	icicle_fini(&ic);
	tree_free(t);
}

static void test_moves_and_zoom(void **state)
{
	struct tree *t = sample(), *t2;
	struct icicle ic = { 0 };
	struct fmt_line l;
	const struct glyphs *gl = glyphs_get(0);

	(void)state;
	icicle_open(&ic, NULL);
	assert_int_equal(icicle_layout(&ic, t, 1, 60, 10), 0);
	assert_int_equal(icicle_move(&ic, ICICLE_UP), 0);      /* the root has no parent here */
	for (int i = 0; i < 4; i++)
		assert_int_equal(icicle_move(&ic, ICICLE_DOWN), 1);
	assert_string_equal(ic.sel->name, "do_anonymous_page");
	assert_int_equal(icicle_move(&ic, ICICLE_DOWN), 0);    /* a leaf */
	assert_int_equal(icicle_move(&ic, ICICLE_RIGHT), 1);
	assert_string_equal(ic.sel->name, "a_very_long_function_name_for_the_cell");
	assert_int_equal(icicle_move(&ic, ICICLE_RIGHT), 0);
	assert_int_equal(icicle_move(&ic, ICICLE_LEFT), 1);
	assert_int_equal(icicle_move(&ic, ICICLE_UP), 1);
	assert_string_equal(ic.sel->name, "exc_page_fault");
	/* Enter: exc_page_fault is the root; its children fill the width */
	assert_int_equal(icicle_zoom(&ic), 1);
	assert_int_equal(icicle_layout(&ic, t, 1, 60, 10), 0);
	assert_string_equal(ic.root->name, "exc_page_fault");
	assert_int_equal(ic.nlevels, 2);
	assert_int_equal(cell(&ic, "do_anonymous_page")->x0, 0);
	assert_int_equal(cell(&ic, "a_very_long_function_name_for_the_cell")->x1, 60);
	assert_int_equal(icicle_move(&ic, ICICLE_UP), 0);      /* not above the view's root */
	/* the lines: the root's name, the long name shortened in the middle */
	icicle_head(&l, &ic, gl);
	assert_non_null(strstr(l.text, "icicle of exc_page_fault"));
	icicle_row(&l, &ic, 1, gl);
	assert_int_equal(l.width, 60);
	assert_non_null(strstr(l.text, "do_anonymous_page"));
	assert_non_null(strstr(l.text, "a_very_~"));            /* shortened in the middle (ASCII ellipsis) */
	assert_non_null(strstr(l.text, "_cell"));
	icicle_detail(&l, &ic, gl);
	if (!strstr(l.text, " exc_page_fault  load 800.0/s  ref 10.0/s  d +790.0/s"))
		fail_msg("detail line: '%s'", l.text);
	icicle_path(&l, &ic, gl);
	assert_non_null(strstr(l.text, "all > mm > asm_exc_page_fault > exc_page_fault"));
	/* a rebuild: the same nodes found again by id */
	t2 = sample();
	assert_int_equal(icicle_layout(&ic, t2, 1, 60, 10), 0);
	assert_string_equal(ic.root->name, "exc_page_fault");
	assert_ptr_equal(ic.root, tree_find_id(t2, ic.root_id));
	tree_free(t);
	/* Backspace: one level out */
	assert_int_equal(icicle_unzoom(&ic), 1);
	assert_int_equal(icicle_layout(&ic, t2, 1, 60, 10), 0);
	assert_string_equal(ic.root->name, "asm_exc_page_fault");
	/* a root that is gone: the tree's root */
	ic.root_id = 12345;
	assert_int_equal(icicle_layout(&ic, t2, 1, 60, 10), 0);
	assert_ptr_equal(ic.root, t2->root);
	icicle_fini(&ic);
	tree_free(t2);
}

/* The selection stays on screen when the tree is deeper than the rows. */
static void test_scroll(void **state)
{
	struct tree *t = sample();
	struct icicle ic = { 0 };

	(void)state;
	icicle_open(&ic, NULL);
	assert_int_equal(icicle_layout(&ic, t, 1, 40, 2), 0);
	for (int i = 0; i < 4; i++)
		icicle_move(&ic, ICICLE_DOWN);
	assert_int_equal(icicle_layout(&ic, t, 1, 40, 2), 0);
	assert_int_equal(ic.top, 3);
	icicle_fini(&ic);
	tree_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_moves_and_zoom),
		cmocka_unit_test(test_scroll),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
