/* core/base/numfmt: each p/q-value style at its edges (the floor, the
 * switch to the fixed form, non-finite values), names, short buffers,
 * rates and percentages. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/numfmt.h"

static void check_p(const char *name, double p, enum numfmt_p_style st, const char *want)
{
	char b[32];

	assert_ptr_equal(numfmt_p(b, sizeof(b), name, p, st), b);
	assert_string_equal(b, want);
}

static void test_words(void **state)
{
	(void)state;
	check_p(NULL, 0, NUMFMT_P_WORDS, "<1e-300");
	check_p(NULL, 1e-300, NUMFMT_P_WORDS, "<1e-300");
	check_p(NULL, 3.2e-5, NUMFMT_P_WORDS, "3e-05");
	check_p(NULL, 0.0099, NUMFMT_P_WORDS, "1e-02");
	check_p(NULL, 0.01, NUMFMT_P_WORDS, "0.01");
	check_p(NULL, 0.5, NUMFMT_P_WORDS, "0.50");
	check_p("q", 0.05, NUMFMT_P_WORDS, "q=0.05");
	check_p("q", 1e-301, NUMFMT_P_WORDS, "q<1e-300");
	check_p("p", 3.2e-5, NUMFMT_P_WORDS1, "p=3.2e-05");
	check_p("p", 1e-300, NUMFMT_P_WORDS1, "p<1e-300");
}

static void test_table_brief(void **state)
{
	(void)state;
	check_p(NULL, NAN, NUMFMT_P_TABLE, "-");
	check_p(NULL, INFINITY, NUMFMT_P_TABLE, "-");
	/* the floor itself is a number in these styles */
	check_p(NULL, 1e-300, NUMFMT_P_TABLE, "1e-300");
	check_p(NULL, 1e-301, NUMFMT_P_TABLE, "<1e-300");
	check_p(NULL, 0.0005, NUMFMT_P_TABLE, "5e-04");
	check_p(NULL, 0.042, NUMFMT_P_TABLE, "0.042");
	check_p("q", 0.042, NUMFMT_P_BRIEF, "q=0.042");
	check_p("q", 0.5, NUMFMT_P_BRIEF, "q=0.5");
	check_p("q", 0.0005, NUMFMT_P_BRIEF, "q=5e-04");
	check_p("q", 0, NUMFMT_P_BRIEF, "q<1e-300");
}

static void test_short_buffer(void **state)
{
	char b[4] = "xyz";

	(void)state;
	assert_string_equal(numfmt_p(b, sizeof(b), "q", 0.05, NUMFMT_P_WORDS), "q=0");
	assert_string_equal(numfmt_p(b, 2, "q", 0.05, NUMFMT_P_WORDS), "q");
	b[0] = 'x';
	numfmt_p(b, 0, "q", 0.05, NUMFMT_P_WORDS);
	assert_int_equal(b[0], 'x');
	assert_string_equal(numfmt_rate(b, sizeof(b), 120), "+12");
}

static void test_rate_pct(void **state)
{
	char b[32];

	(void)state;
	assert_string_equal(numfmt_rate(b, sizeof(b), 120), "+120.0/s");
	assert_string_equal(numfmt_rate(b, sizeof(b), -3.24), "-3.2/s");
	assert_string_equal(numfmt_rate(b, sizeof(b), 0), "+0.0/s");
	assert_string_equal(numfmt_pct(b, sizeof(b), 42.4, 0), "42%");
	assert_string_equal(numfmt_pct(b, sizeof(b), 42.4, 1), "+42%");
	assert_string_equal(numfmt_pct(b, sizeof(b), -7, 1), "-7%");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_table_brief),
		cmocka_unit_test(test_short_buffer),
		cmocka_unit_test(test_rate_pct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
