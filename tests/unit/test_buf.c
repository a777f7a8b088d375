/* core/base/buf and core/base/vec: growth, the NUL, the limits, overflow
 * refused (nothing changed), take/free. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/buf.h"
#include "base/vec.h"

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

struct pair {
	uint64_t a, b;
};

static void test_vec_grow(void **state)
{
	struct pair *v = NULL;
	size_t cap = 0, n = 0;
	unsigned ucap = 0;
	int *u = NULL;

	(void)state;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(vec_grow(&v, &cap, n + 1, sizeof(*v)), 0);
		assert_true(cap >= n + 1);
		v[n].a = (uint64_t)i;
		v[n++].b = (uint64_t)i * 3;
	}
	assert_true(cap < 2048); /* doubling, not one at a time or wildly */
	for (size_t i = 0; i < n; i++)
		assert_true(v[i].a == i && v[i].b == 3 * i); /* kept across growth */
	assert_int_equal(vec_grow(&v, &cap, 10, sizeof(*v)), 0); /* no shrink */
	assert_true(cap >= 1000);
	/* a size that does not fit: refused, array and capacity untouched */
	{
		struct pair *keep = v;
		size_t kcap = cap;

		assert_int_equal(vec_grow(&v, &cap, SIZE_MAX / sizeof(*v) + 1, sizeof(*v)), -EOVERFLOW);
		assert_ptr_equal(v, keep);
		assert_int_equal(cap, kcap);
		assert_int_equal(vec_grow(&v, &cap, SIZE_MAX, sizeof(*v)), -EOVERFLOW);
	}
	free(v);

	assert_int_equal(vec_grow_u(&u, &ucap, 1, sizeof(*u)), 0);
	assert_true(ucap >= 1);
	u[0] = 7;
	assert_int_equal(vec_grow_u(&u, &ucap, 100, sizeof(*u)), 0);
	assert_true(ucap >= 100);
	assert_int_equal(u[0], 7);
	/* beyond what an unsigned capacity can count */
	assert_int_equal(vec_grow_u(&u, &ucap, (size_t)UINT32_MAX + 1, 1), -EOVERFLOW);
	assert_true(ucap >= 100 && ucap < 1000);
	free(u);
}

static void test_vec_resize(void **state)
{
	char **v = NULL;

	(void)state;
	assert_int_equal(vec_resize(&v, 3, sizeof(*v)), 0);
	assert_non_null(v);
	v[2] = "x";
	assert_int_equal(vec_resize(&v, 5, sizeof(*v)), 0);
	assert_string_equal(v[2], "x");
	assert_int_equal(vec_resize(&v, SIZE_MAX / 4, sizeof(*v)), -EOVERFLOW);
	assert_string_equal(v[2], "x"); /* untouched */
	assert_int_equal(vec_resize(&v, 0, sizeof(*v)), 0);
	assert_null(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_append),
		cmocka_unit_test(test_buf_printf),
		cmocka_unit_test(test_buf_limits),
		cmocka_unit_test(test_vec_grow),
		cmocka_unit_test(test_vec_resize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
