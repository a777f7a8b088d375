/* test_fmt_agent — the agent pane's pure formatting: wrapping, transcript
 * entries, the proposal card at 40 and 80 columns (errors by their field),
 * key hints, the status bar's --auto warning; and the tree row whose Δ%
 * once pushed the significance glyph into the next row. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/calib.h"
#include "fmt.h"
#include "fmt_agent.h"
#include "data/profile.h"
#include "data/step.h"
#include "data/tree.h"
#include "view_tree.h"

static const struct glyphs *gl_utf8(void)
{
	return glyphs_get(1);
}

static void test_wrap(void **state)
{
	size_t off[16], len[16];
	const char *s = "the quick brown fox jumps";
	unsigned n;

	(void)state;
	n = fmt_agent_wrap(s, 10, off, len, 16);
	assert_int_equal(n, 3);
	assert_int_equal(len[0], 9);
	assert_memory_equal(s + off[0], "the quick", 9);
	assert_memory_equal(s + off[1], "brown fox", 9);
	assert_memory_equal(s + off[2], "jumps", 5);
	/* a word longer than the width is cut */
	n = fmt_agent_wrap("abcdefghijklmnop", 5, off, len, 16);
	assert_int_equal(n, 4);
	assert_int_equal(len[0], 5);
	assert_int_equal(len[3], 1);
	/* '\n' forces a break */
	n = fmt_agent_wrap("a\nb", 40, off, len, 16);
	assert_int_equal(n, 2);
	assert_int_equal(len[0], 1);
	assert_memory_equal("a\nb" + off[1], "b", 1);
	/* widths in columns: "→" is 3 bytes, 1 column */
	n = fmt_agent_wrap("a\u2192b c\u2192d", 3, off, len, 16);
	assert_int_equal(n, 2);
	assert_int_equal(len[0], 5);
	/* more lines than max: counted, not written past max */
	n = fmt_agent_wrap("a b c d e f", 1, off, len, 2);
	assert_int_equal(n, 6);
}

static void test_entry(void **state)
{
	struct fmt_line out[16];
	struct fmt_agent_entry e = { FMT_AGENT_HUMAN,
				     "vetoed: the page cache is not the question here, look at anon faults" };
	unsigned n;

	(void)state;
	n = fmt_agent_entry_lines(out, 16, &e, 30, gl_utf8());
	assert_true(n >= 3);
	assert_true(!strncmp(out[0].text, "you> vetoed:", 12));
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fmt_width(out[i].text), 30);
	assert_true(!strncmp(out[1].text, "  ", 2));            /* continuation indented */
	assert_int_equal(fmt_line_role_at(&out[0], 6), THEME_HUMAN);
	/* the verdict glyph, ASCII too */
	e.kind = FMT_AGENT_VERDICT;
	e.text = "mm: do_anonymous_page";
	fmt_agent_entry_lines(out, 16, &e, 60, glyphs_get(0));
	assert_true(!strncmp(out[0].text, "# verdict> mm:", 14));
	/* counting only */
	assert_int_equal(fmt_agent_entry_lines(out, 0, &e, 60, gl_utf8()), 1);
}

static struct step *pf_step(void)
{
	struct step *s = step_new();
	struct step_error e;

	assert_non_null(s);
	assert_int_equal(step_set_field(s, "kind", "tracepoint_stacks", &e), 0);
	assert_int_equal(step_set_field(s, "target", "exceptions:page_fault_user", &e), 0);
	assert_int_equal(step_set_field(s, "duration_s", "5", &e), 0);
	assert_int_equal(step_set_field(s, "rationale",
					"an mm delta through the page-fault path: count faults "
					"per kernel stack", &e), 0);
	assert_int_equal(step_set_field(s, "expect", "user page faults grow when loaded", &e), 0);
	return s;
}

static int find_line(struct fmt_line *l, unsigned n, const char *want)
{
	for (unsigned i = 0; i < n; i++)
		if (strstr(l[i].text, want))
			return (int)i;
	return -1;
}

static void check_card(int width)
{
	struct fmt_line out[64];
	struct step *s = pf_step();
	struct step_error err = { 0 };
	struct fmt_agent_prop p = { .step = s, .index = 2, .max = 5 };
	unsigned n;
	int d, e;

	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	assert_true(n >= 7);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fmt_width(out[i].text), width);
	assert_true(find_line(out, n, "step 2 of at most 5") == 0);
	assert_true(find_line(out, n, "kind") > 0);
	assert_true(find_line(out, n, "exceptions:page_fault_user") > 0);
	assert_true(find_line(out, n, "5 s per condition") > 0);
	assert_true(find_line(out, n, "why") > 0);
	assert_true(find_line(out, n, "expects") > 0);
	assert_true(find_line(out, n, "overhead") > 0);
	/* a long overhead estimate wraps: its last words show at 40 columns too */
	p.estimate = "about 1200 events/s expected from the reference, 0.4% of one CPU "
		     "at 250 ns each: low";
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	assert_true(find_line(out, n, "each: low") > find_line(out, n, "overhead"));
	p.estimate = NULL;
	/* no estimate: a reason, never "not estimated (no pre-flight ...)" */
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	assert_true(find_line(out, n, "not estimated") < 0);
	assert_true(find_line(out, n, "not measured") > 0);
	p.replay = 1;
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	assert_true(find_line(out, n, "not recorded") > 0);
	p.replay = 0;
	/* the scope line replaces the filter line, and wraps to its hint */
	assert_true(find_line(out, n, "filter") > 0);
	p.scope = "the load (cgroup argus-123-1); scope=system widens it";
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	assert_true(find_line(out, n, "scope") > 0);
	assert_true(find_line(out, n, "widens it") >= find_line(out, n, "scope"));
	assert_true(find_line(out, n, "filter") < 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fmt_width(out[i].text), width);
	p.scope = NULL;
	/* a validation error shows right below its field */
	snprintf(err.field, sizeof(err.field), "duration_s");
	snprintf(err.msg, sizeof(err.msg), "999 s is over the limit (30 s)");
	p.err = &err;
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	d = find_line(out, n, "per condition");
	e = find_line(out, n, "^ duration_s");
	assert_true(d > 0);
	assert_int_equal(e, d + 1);
	assert_int_equal(fmt_line_role_at(&out[e], (size_t)(strstr(out[e].text, "^") - out[e].text)),
			 THEME_STATUS_WARN);
	/* editing: every field listed, the cursor's line selected, the error by it */
	p.editing = 1;
	p.cursor = 9;              /* duration_s (after scope) */
	n = fmt_agent_proposal(out, 64, &p, width, gl_utf8());
	d = find_line(out, n, "duration_s");
	assert_true(d > 0);
	assert_true(out[d].selected);
	assert_true(strstr(out[d + 1].text, "^ duration_s") != NULL);
	assert_true(find_line(out, n, "filter.comm") > 0);
	assert_true(find_line(out, n, "scope") > 0);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(fmt_width(out[i].text), width);
	/* max lines respected */
	assert_true(fmt_agent_proposal(out, 3, &p, width, gl_utf8()) <= 3);
	step_free(s);
}

static void test_proposal(void **state)
{
	(void)state;
	check_card(40);
	check_card(80);
}

static void test_fields(void **state)
{
	struct step *s = pf_step();
	char buf[256];

	(void)state;
	assert_string_equal(fmt_agent_field_value(s, "target", buf, sizeof(buf)),
			    "exceptions:page_fault_user");
	assert_string_equal(fmt_agent_field_value(s, "duration_s", buf, sizeof(buf)), "5");
	assert_string_equal(fmt_agent_field_value(s, "filter.comm", buf, sizeof(buf)), "");
	assert_true(fmt_agent_field_match("target[1]", "target"));
	assert_true(fmt_agent_field_match("filter.comm", "filter.comm"));
	assert_false(fmt_agent_field_match("filter.comm", "filter.pid"));
	assert_false(fmt_agent_field_match("", "kind"));
	assert_int_equal(fmt_agent_fields[FMT_AGENT_NFIELDS], NULL);
	step_free(s);
}

static void test_hints(void **state)
{
	struct fmt_line l;

	(void)state;
	fmt_agent_hints(&l, 80, FMT_AGENT_MODE_PROPOSAL);
	assert_non_null(strstr(l.text, "a accept  e edit  v veto  r another  u undo  : talk"));
	assert_int_equal(fmt_line_role_at(&l, (size_t)(strstr(l.text, "a accept") - l.text)),
			 THEME_KEY);
	assert_int_equal(fmt_width(l.text), 80);
	fmt_agent_hints(&l, 30, FMT_AGENT_MODE_PROPOSAL);
	assert_int_equal(fmt_width(l.text), 30);
	assert_non_null(strstr(l.text, "a accept"));
	fmt_agent_hints(&l, 80, FMT_AGENT_MODE_EDIT);
	assert_non_null(strstr(l.text, "Esc abandon"));
	fmt_agent_title(&l, 40, "heuristic", FMT_AGENT_MODE_PROPOSAL, 1, gl_utf8());
	assert_non_null(strstr(l.text, "agent (heuristic)"));
	assert_int_equal(fmt_line_role_at(&l, 1), THEME_FOCUS);
}

static void test_status_auto(void **state)
{
	struct source_status st = { .phase = SOURCE_DONE, .overhead_pct = -1, .probes = 1 };
	struct fmt_line l;
	char buf[64];

	(void)state;
	fmt_status_ex(&l, &st, 110, gl_utf8(), "waiting for you", "AUTO: steps load without asking");
	assert_non_null(strstr(l.text, "AUTO: steps load without asking"));
	assert_non_null(strstr(l.text, "waiting for you"));
	assert_non_null(strstr(l.text, "1 probe"));
	assert_int_equal(fmt_line_role_at(&l, 2), THEME_STATUS_WARN);
	/* too narrow for the rest: the warning stays */
	fmt_status_ex(&l, &st, 40, gl_utf8(), "waiting for you", "AUTO: steps load without asking");
	assert_non_null(strstr(l.text, "AUTO"));
	assert_string_equal(fmt_agent_phase(FMT_AGENT_MODE_PROPOSAL, 1, NULL, buf, sizeof(buf)),
			    "waiting for you");
	assert_null(fmt_agent_phase(FMT_AGENT_MODE_WAIT, 0, NULL, buf, sizeof(buf)));
}

/* A node whose loaded rate is 500x its reference rate: its Δ% column must
 * stay 6 columns wide, so the row stays exactly the pane's width. */
static void test_row_big_ratio(void **state)
{
	struct profile *p = profile_new();
	const char *fr[] = { "asm_exc_page_fault", "exc_page_fault", "do_anonymous_page" };
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	struct view_tree *v;
	struct calib_opts co;
	struct tree *t;
	struct fmt_line l;
	int w;

	(void)state;
	assert_non_null(p);
	for (unsigned i = 0; i < 6; i++) {
		w = profile_window_begin(p, i % 2 ? COND_LOAD : COND_REF, i);
		assert_int_equal(w, (int)i);
		assert_int_equal(profile_add(p, (unsigned)w, fr, 3, 0, NULL, i % 2 ? 50000 : 100), 0);
		profile_window_end(p, (unsigned)w, 1.0);
	}
	t = tree_build(p, NULL);
	assert_non_null(t);
	calib_opts_default(&co);
	assert_int_equal(calib_run(t, &co), 0);
	v = view_tree_new(0.001);
	assert_non_null(v);
	assert_int_equal(view_tree_set(v, t, 1), 0);
	assert_int_equal(view_tree_expand_all(v), 0);
	for (int width = 60; width <= 130; width += 10) {
		fmt_cols_layout(&cols, width, 1, 0);
		ctx.gl = gl_utf8();
		ctx.cols = &cols;
		ctx.root_total = tree_node_sum(t->root);
		ctx.match = NULL;
		for (size_t i = 0; i < v->nrows; i++) {
			fmt_row(&l, v, i, &ctx);
			assert_int_equal(fmt_width(l.text), width);
		}
	}
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_entry),
		cmocka_unit_test(test_proposal),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_status_auto),
		cmocka_unit_test(test_row_big_ratio),
	};

	setlocale(LC_ALL, "C.UTF-8");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
