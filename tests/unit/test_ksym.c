/* kallsyms parsing and lookups, from hand-made fixtures (tests/data). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "data/ksym.h"

static const char *fixture(const char *name)
{
	static char path[4096];
	const char *root = getenv("ROOT");

	snprintf(path, sizeof(path), "%s/tests/data/%s", root ? root : ".", name);
	return path;
}

static void test_load_and_lookup(void **state)
{
	struct ksym_table *t = ksym_load(fixture("kallsyms.fixture"));
	const struct ksym *s;
	char buf[64];

	(void)state;
	assert_non_null(t);
	assert_false(ksym_hidden(t));
	/* text: _stext _text do_idle helper weak_func cpu_idle_poll mod_fn
	 * mod_init other_mod_fn do_idle[dup]; _etext is a marker */
	assert_int_equal(ksym_count(t), 10);

	s = ksym_lookup(t, 0xffffffff81001010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "do_idle");
	assert_null(s->module);
	/* the unsorted line is placed by address */
	s = ksym_lookup(t, 0xffffffff81001100ULL);
	assert_string_equal(s->name, "cpu_idle_poll");
	s = ksym_lookup(t, 0xffffffff81001205ULL);
	assert_string_equal(s->name, "helper.isra.0");
	s = ksym_lookup(t, 0xffffffff81001900ULL);
	assert_string_equal(s->name, "weak_func");
	/* aliases: the first listed */
	s = ksym_lookup(t, 0xffffffff81000010ULL);
	assert_string_equal(s->name, "_stext");
	/* past weak_func: some_data bounds it */
	assert_null(ksym_lookup(t, 0xffffffff81002010ULL));
	assert_null(ksym_lookup(t, 0xffffffff81003010ULL));
	/* below the first symbol */
	assert_null(ksym_lookup(t, 0xffffffff80000000ULL));
	assert_null(ksym_lookup(t, 0));
	/* modules */
	s = ksym_lookup(t, 0xffffffffc0001010ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "mod_init");
	assert_string_equal(s->module, "kvm");
	assert_null(ksym_lookup(t, 0xffffffffc0001900ULL)); /* mod_data */
	s = ksym_lookup(t, 0xffffffffc0002900ULL);
	assert_string_equal(s->name, "do_idle");
	assert_string_equal(s->module, "dup");
	/* the last symbol has no end: a bounded size */
	s = ksym_lookup(t, 0xffffffffc0003040ULL);
	assert_non_null(s);
	assert_string_equal(s->name, "other_mod_fn");
	assert_null(ksym_lookup(t, 0xffffffffc0003000ULL + (8u << 20)));

	assert_string_equal(ksym_format(t, 0xffffffffc0001010ULL, buf, sizeof(buf)),
			    "mod_init [kvm]");
	assert_string_equal(ksym_format(t, 0xffffffff81001010ULL, buf, sizeof(buf)),
			    "do_idle");
	assert_string_equal(ksym_format(t, 0xffffffff80000000ULL, buf, sizeof(buf)),
			    "0xffffffff80000000");

	s = ksym_by_name(t, "mod_fn");
	assert_non_null(s);
	assert_int_equal(s->addr, 0xffffffffc0002000ULL);
	assert_string_equal(s->module, "kvm");
	s = ksym_by_name(t, "do_idle");   /* duplicate name: lowest address */
	assert_int_equal(s->addr, 0xffffffff81001000ULL);
	assert_non_null(ksym_by_name(t, "helper.isra.0"));
	assert_null(ksym_by_name(t, "some_data"));
	assert_null(ksym_by_name(t, "_etext"));
	assert_null(ksym_by_name(t, "nope"));
	ksym_free(t);
	ksym_free(NULL);
}

static void test_hidden(void **state)
{
	struct ksym_table *t = ksym_load(fixture("kallsyms-hidden.fixture"));
	char buf[64];

	(void)state;
	assert_non_null(t);
	assert_true(ksym_hidden(t));
	assert_int_equal(ksym_count(t), 4);
	assert_null(ksym_lookup(t, 0));
	assert_null(ksym_lookup(t, 0xffffffff81001000ULL));
	assert_string_equal(ksym_format(t, 0xffffffff81001000ULL, buf, sizeof(buf)),
			    "0xffffffff81001000");
	/* names still validate function targets */
	assert_non_null(ksym_by_name(t, "do_idle"));
	ksym_free(t);
}

static void test_missing(void **state)
{
	(void)state;
	errno = 0;
	assert_null(ksym_load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_and_lookup),
		cmocka_unit_test(test_hidden),
		cmocka_unit_test(test_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
