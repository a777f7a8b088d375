/* core/num: finite, in range, the unit and the real limits in the message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/num.h"

static void bad_double(const char *in, const char *needle)
{
	char *cause = NULL;
	double v = 42;

	assert_true(num_parse_double(in, 0.05, 600, "seconds", &v, &cause) < 0);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("'%s' gave '%s', not '%s'", in, cause, needle);
	assert_non_null(strstr(cause, "between 0.05 and 600 (seconds)"));
	assert_true(v == 42); /* untouched */
	free(cause);
}

static void test_double(void **state)
{
	double v;
	char *cause = NULL;

	(void)state;
	assert_int_equal(num_parse_double("0.5", 0.05, 600, "seconds", &v, &cause), 0);
	assert_true(v == 0.5);
	assert_int_equal(num_parse_double(" 2 ", 0.05, 600, "seconds", &v, NULL), 0);
	assert_true(v == 2);
	bad_double("nan", "'nan' is not a number");
	bad_double("NaN", "is not a number");
	bad_double("inf", "'inf' is not a number");
	bad_double("-inf", "is not a number");
	bad_double("1e308", "'1e308' is out of range");
	bad_double("1e999", "out of range");
	bad_double("0.01", "out of range");
	bad_double("", "no value");
	bad_double("3s", "is not a number");
	bad_double("\x1b[2J", "'\\x1b[2J' is not"); /* the echo is escaped */
	bad_double(NULL, "no value");
}

static void test_int(void **state)
{
	unsigned u;
	int64_t v;
	char *cause = NULL;

	(void)state;
	assert_int_equal(num_parse_uint("999", 1, 10000, "Hz", &u, NULL), 0);
	assert_int_equal(u, 999);
	assert_true(num_parse_uint("-5", 1, 10000, "Hz", &u, &cause) < 0);
	assert_non_null(strstr(cause, "between 1 and 10000 (Hz)"));
	free(cause);
	cause = NULL;
	assert_true(num_parse_uint("1.5", 1, 10000, "Hz", &u, &cause) < 0);
	assert_non_null(strstr(cause, "not a whole number"));
	free(cause);
	cause = NULL;
	assert_true(num_parse_uint("99999999999999999999", 1, 10000, "Hz", &u, &cause) < 0);
	assert_non_null(strstr(cause, "out of range"));
	free(cause);
	cause = NULL;
	assert_true(num_parse_uint("+3", 1, 10000, "Hz", &u, &cause) < 0);
	free(cause);
	assert_int_equal(num_parse_int64("-3", -10, 10, "steps", &v, NULL), 0);
	assert_int_equal(v, -3);
}

static void test_whole(void **state)
{
	char *m;

	(void)state;
	assert_null(num_check_whole(5, 1, 10000, "Hz"));
	m = num_check_whole(-5, 1, 10000, "Hz");
	assert_string_equal(m, "-5 is not a whole number between 1 and 10000 (Hz)");
	free(m);
	m = num_check_whole(2.5, 1, 10000, "Hz");
	assert_non_null(m);
	free(m);
	m = num_check_whole(1e308, 1, 10000, "Hz");
	assert_non_null(m);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_double),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
