/* core/base/buf: growth, the NUL, the limits, overflow refused, take/free. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"

static void test_buf_append(void **state)
{
	struct buf b = BUF_INIT;
	char big[5000];

	(void)state;
	assert_int_equal(buf_append(&b, NULL, 0), 0);
	assert_non_null(b.p); /* terminated even when empty */
	assert_string_equal(b.p, "");
	assert_int_equal(buf_puts(&b, "abc"), 0);
	assert_int_equal(buf_append(&b, "defgh", 2), 0);
	assert_string_equal(b.p, "abcde");
	assert_int_equal(b.len, 5);
	memset(big, 'x', sizeof(big));
	assert_int_equal(buf_append(&b, big, sizeof(big)), 0); /* grows past the first block */
	assert_int_equal(b.len, 5 + sizeof(big));
	assert_true(b.cap > b.len);
	assert_int_equal(b.p[b.len], '\0');
	assert_int_equal(b.p[5], 'x');
	buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.p, "");
	buf_free(&b);
	assert_null(b.p);
	assert_int_equal(b.cap, 0);
	buf_free(NULL);
}

static void test_buf_printf(void **state)
{
	struct buf b = BUF_INIT;
	char *s;

	(void)state;
	assert_int_equal(buf_printf(&b, "%d-%s", 42, "x"), 0);
	for (int i = 0; i < 200; i++)
		assert_int_equal(buf_printf(&b, "%03d", i), 0);
	assert_int_equal(b.len, 4 + 600);
	assert_int_equal(strncmp(b.p, "42-x000001", 10), 0);
	assert_string_equal(b.p + b.len - 3, "199");
	s = buf_take(&b);
	assert_non_null(s);
	assert_null(b.p);
	assert_int_equal(b.len, 0);
	free(s);
	s = buf_take(&b); /* nothing added: "" of its own */
	assert_string_equal(s, "");
	free(s);
}

static void test_buf_limits(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_append_max(&b, "abcd", 4, 5), 0); /* 4 bytes and the NUL */
	assert_int_equal(buf_append_max(&b, "e", 1, 5), -E2BIG);
	assert_string_equal(b.p, "abcd"); /* nothing added */
	assert_int_equal(buf_append_max(&b, "e", SIZE_MAX, 5), -E2BIG);
	/* sizes that do not fit a size_t are refused before any allocation */
	assert_int_equal(buf_reserve(&b, SIZE_MAX), -EOVERFLOW);
	assert_int_equal(buf_reserve(&b, SIZE_MAX - 4), -EOVERFLOW);
	assert_int_equal(buf_append(&b, "x", SIZE_MAX - 2), -EOVERFLOW);
	assert_int_equal(b.len, 4);
	assert_int_equal(buf_reserve(&b, 10), 0);
	assert_true(b.cap >= 15);
	buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_append),
		cmocka_unit_test(test_buf_printf),
		cmocka_unit_test(test_buf_limits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
