/* core/base/hash: FNV-1a's published test vectors, parts hashed in turn,
 * the string separator. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "base/hash.h"

static void test_vectors(void **state)
{
	(void)state;
	assert_true(hash_bytes(HASH_FNV_BASIS, "", 0) == HASH_FNV_BASIS);
	assert_true(hash_bytes(HASH_FNV_BASIS, "a", 1) == 0xaf63dc4c8601ec8cull);
	assert_true(hash_bytes(HASH_FNV_BASIS, "foobar", 6) == 0x85944171f73967e8ull);
	/* in parts as at once */
	assert_true(hash_bytes(hash_bytes(HASH_SEED, "foo", 3), "bar", 3) ==
		    hash_bytes(HASH_SEED, "foobar", 6));
}

static void test_str(void **state)
{
	uint64_t ab_c = hash_str(hash_str(HASH_SEED, "ab", (size_t)-1), "c", (size_t)-1);
	uint64_t a_bc = hash_str(hash_str(HASH_SEED, "a", (size_t)-1), "bc", (size_t)-1);

	(void)state;
	assert_true(ab_c != a_bc);
	/* max cuts the string; the separator follows */
	assert_true(hash_str(HASH_SEED, "abcdef", 3) == hash_str(HASH_SEED, "abc", (size_t)-1));
	assert_true(hash_str(HASH_SEED, "abc", (size_t)-1) ==
		    (hash_bytes(HASH_SEED, "abc", 3) ^ 0xff) * HASH_FNV_PRIME);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
