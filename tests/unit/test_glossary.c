/* Unit tests of core/glossary: the size of the table, every entry's
 * subsystem agrees with core/subsys, lookups strip compiler suffixes, and a
 * node's numbers in words. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/glossary.h"
#include "data/tree_annot.h"

static void test_size(void **state)
{
	(void)state;
	assert_true(glossary_count >= 150);
	for (int s = 0; s < SUBSYS_N; s++)
		assert_true(strlen(glossary_subsys_text((enum subsys)s)) > 40);
}

static void test_subsystems_agree(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < glossary_count; i++) {
		const struct glossary_entry *e = &glossary_table[i];
		enum subsys got = subsys_of_function(e->name);

		if (got != e->subsys) {
			fprintf(stderr, "glossary: %s claims %s, subsys_of_function says %s\n", e->name,
				e->subsys == SUBSYS_N ? "(none)" : subsys_name(e->subsys),
				got == SUBSYS_N ? "(none)" : subsys_name(got));
			bad++;
		}
		/* two or three sentences, not an essay and not a stub */
		if (strlen(e->text) < 30 || strlen(e->text) > 420) {
			fprintf(stderr, "glossary: %s: text of %zu characters\n", e->name,
				strlen(e->text));
			bad++;
		}
		for (size_t k = 0; k < i; k++)
			if (!strcmp(glossary_table[k].name, e->name)) {
				fprintf(stderr, "glossary: %s twice\n", e->name);
				bad++;
			}
	}
	assert_int_equal(bad, 0);
}

static void test_find(void **state)
{
	(void)state;
	assert_non_null(glossary_find("do_anonymous_page"));
	assert_string_equal(glossary_find("do_wp_page.isra.0")->name, "do_wp_page");
	assert_string_equal(glossary_find("clear_page_erms.cold")->name, "clear_page_erms");
	assert_string_equal(glossary_find("__alloc_frozen_pages_noprof")->name, "__alloc_frozen_pages");
	assert_string_equal(glossary_find("vma_alloc_folio_noprof.constprop.0")->name, "vma_alloc_folio");
	assert_null(glossary_find("no_such_function_here"));
	assert_null(glossary_find(""));
}

static void test_explain(void **state)
{
	struct tree_node n;
	char buf[1024];

	(void)state;
	memset(&n, 0, sizeof(n));
	n.kind = TREE_FRAME;
	n.name = "shmem_fault";
	n.subsys = SUBSYS_MM;
	assert_non_null(strstr(glossary_explain(&n, buf, sizeof(buf)), "tmpfs"));
	n.name = "frobnicate_widget";
	glossary_explain(&n, buf, sizeof(buf));
	assert_non_null(strstr(buf, "No glossary entry for frobnicate_widget"));
	assert_non_null(strstr(buf, "Memory management"));
	n.kind = TREE_SUBSYS;
	n.name = "sched";
	n.subsys = SUBSYS_SCHED;
	assert_non_null(strstr(glossary_explain(&n, buf, sizeof(buf)), "scheduler"));
	/* issue 24 item 9: time accounting's user-space time, as a subsystem
	 * and as its frame, in its own words: not "kernel code the table does
	 * not place" */
	n.name = "user";
	n.subsys = SUBSYS_USER;
	glossary_explain(&n, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ran in user space: on-CPU time with no kernel sample"));
	n.kind = TREE_FRAME;
	n.name = "[user space]";
	n.subsys = SUBSYS_OTHER;   /* however it was classified */
	glossary_explain(&n, buf, sizeof(buf));
	assert_non_null(strstr(buf, "ran in user space: on-CPU time with no kernel sample"));
	assert_null(strstr(buf, "does not place"));
	assert_null(strstr(buf, "No glossary entry"));
}

static void test_numbers(void **state)
{
	struct tree_node n;
	char buf[1024];

	(void)state;
	memset(&n, 0, sizeof(n));
	n.kind = TREE_FRAME;
	n.name = "do_anonymous_page";
	n.total[COND_REF] = 18;
	n.total[COND_LOAD] = 2472;
	n.stat.rate[COND_REF] = 3;
	n.stat.rate[COND_LOAD] = 412;
	n.stat.ratio = 412.0 / 3;
	n.stat.delta = 409;
	n.stat.q = 1e-40;
	n.stat.pairs = 6;
	n.stat.pairs_agree = 6;
	n.stat.significant = 1;
	glossary_numbers(&n, 1, 5000, 0, buf, sizeof(buf));
	assert_string_equal(buf, "This node was sampled 412 times a second while loaded against 3 "
			    "in the reference: 137 times more; the difference is significant "
			    "(q=1e-40) and 6 of 6 window pairs agree.");
	n.stat.rate[COND_REF] = 0;
	n.stat.ratio = 1.0 / 0.0;
	glossary_numbers(&n, 1, 5000, 999, buf, sizeof(buf));
	assert_non_null(strstr(buf, "never in the reference: it is new under load"));
	assert_non_null(strstr(buf, "ms of CPU per second"));
	n.stat.significant = 0;
	n.stat.q = 0.4;
	n.stat.pairs_agree = 3;
	glossary_numbers(&n, 1, 5000, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "not significant (q=0.4, 3 of 6"));
	glossary_numbers(&n, 0, 4980, 0, buf, sizeof(buf));
	assert_non_null(strstr(buf, "2490 samples (50.0% of all)"));
}

/* A step's node counts events: x speaks of them, never of CPU time
 * (issue 24: "491307.8 ms of CPU per second" for a tracepoint's rate). */
static void test_numbers_step(void **state)
{
	struct tree_annot a = { .unit = "events" };
	struct tree_node n;
	char buf[1024];

	(void)state;
	memset(&n, 0, sizeof(n));
	n.kind = TREE_EVENT;
	n.name = "[tp] exceptions:page_fault_user";
	n.flags = TREE_F_STEP;
	n.annot = &a;
	n.total[COND_LOAD] = 2945000;
	n.stat.rate[COND_LOAD] = 490800;
	n.stat.delta = 490800;
	n.stat.q = 1e-40;
	n.stat.significant = 1;
	n.stat.pairs = n.stat.pairs_agree = 6;
	glossary_numbers(&n, 1, 5000, 99, buf, sizeof(buf));
	assert_null(strstr(buf, "ms of CPU"));
	assert_null(strstr(buf, "sampled"));
	assert_non_null(strstr(buf, "events"));
	assert_non_null(strstr(buf, "significant"));
	glossary_numbers(&n, 0, 5000, 99, buf, sizeof(buf));
	assert_null(strstr(buf, "% of all"));
	assert_non_null(strstr(buf, "2945000 events"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_subsystems_agree),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_explain),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_numbers_step),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
