/* core/sanitize: control characters, C1, bidi and invalid UTF-8 escaped;
 * valid UTF-8 kept; buffers cut on whole units. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/sanitize.h"

static void check(const char *in, unsigned flags, const char *want)
{
	char *out = sanitize_str(in, flags);

	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(sanitize_is_clean(in, flags), !strcmp(in, want));
	free(out);
}

static void test_escapes(void **state)
{
	(void)state;
	check("plain", 0, "plain");
	check("\x1b[2J\x1b]0;PWN\x07", 0, "\\x1b[2J\\x1b]0;PWN\\x07");
	check("a\nb\tc\r", 0, "a\\x0ab\\x09c\\x0d");
	check("a\nb\tc\r", SANITIZE_TEXT, "a\nb\tc\\x0d");
	check("del\x7f", 0, "del\\x7f");
	/* valid UTF-8 is kept: é, →, 𝔸 */
	check("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9d\x94\xb8", 0,
	      "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9d\x94\xb8");
	/* C1 CSI U+009B, bidi override U+202E */
	check("x\xc2\x9b" "2J", 0, "x\\u009b2J");
	check("a\xe2\x80\xae" "b", 0, "a\\u202eb");
	/* invalid: stray continuation, overlong, surrogate, cut, > U+10FFFF */
	check("\x80", 0, "\\x80");
	check("\xc0\xaf", 0, "\\xc0\\xaf");
	check("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");
	check("ab\xe2\x86", 0, "ab\\xe2\\x86");
	check("\xf4\x90\x80\x80", 0, "\\xf4\\x90\\x80\\x80");
	check("\xff", 0, "\\xff");
	assert_null(sanitize_str(NULL, 0));
	assert_true(sanitize_is_clean(NULL, 0));
}

static void test_mem_nul(void **state)
{
	char *out = sanitize_mem("a\0b", 3, 0);

	(void)state;
	assert_string_equal(out, "a\\x00b");
	free(out);
}

static void test_into(void **state)
{
	char buf[8];
	size_t n;

	(void)state;
	n = sanitize_into(buf, sizeof(buf), "\x1b[2J", 0);
	assert_int_equal(n, strlen("\\x1b[2J"));
	assert_string_equal(buf, "\\x1b[2J");
	/* an escape is never cut in two */
	n = sanitize_into(buf, 6, "ab\x1b" "cd", 0);
	assert_int_equal(n, 8);
	assert_string_equal(buf, "ab");
	/* nor a UTF-8 sequence */
	n = sanitize_into(buf, 5, "abc\xe2\x86\x92", 0);
	assert_int_equal(n, 6);
	assert_string_equal(buf, "abc");
	assert_int_equal(sanitize_into(NULL, 0, "abc", 0), 3);
	assert_int_equal(sanitize_into(buf, sizeof(buf), NULL, 0), 0);
	assert_string_equal(buf, "");
}

static void test_stream(void **state)
{
	char *mem = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&mem, &len);
	char *s = strdup("ok");
	char *bad = strdup("a\x07");

	(void)state;
	assert_non_null(f);
	assert_int_equal(sanitize_fputs("x\x1b" "y", f, 0), 0);
	assert_int_equal(sanitize_fprintf(f, 0, " %s=%d", "k\x9b", 4), 0);
	fclose(f);
	assert_string_equal(mem, "x\\x1by k\\x9b=4");
	free(mem);

	assert_int_equal(sanitize_inplace(&s, 0), 0);
	assert_string_equal(s, "ok");
	assert_int_equal(sanitize_inplace(&bad, 0), 0);
	assert_string_equal(bad, "a\\x07");
	free(s);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_mem_nul),
		cmocka_unit_test(test_into),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
