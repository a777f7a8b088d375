/* tree_write_json (parsed back with cJSON) and tree_write_folded (exact). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cJSON.h>

#include "data/profile.h"
#include "data/tree.h"
#include "data/verdict.h"

#define ADD(p, w, count, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	assert_int_equal(profile_add(p, w, fr_, sizeof(fr_) / sizeof(fr_[0]), \
				     1, "x", count), 0); \
} while (0)

static struct tree *build(struct profile **pp)
{
	struct profile *p = profile_new();
	struct tree *t;

	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	ADD(p, 1, 5, "asm_exc_page_fault", "exc_page_fault");
	ADD(p, 1, 7, "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
	    "handle_mm_fault.isra.0");
	ADD(p, 0, 2, "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
	    "handle_mm_fault");
	ADD(p, 0, 3, "do_idle", "weird\"name\\x");
	t = tree_build(p, NULL);
	assert_non_null(t);
	*pp = p;
	return t;
}

static char *capture(const struct tree *t, enum cond c, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(json ? tree_write_json(t, c, f) : tree_write_folded(t, c, f), 0);
	fclose(f);
	return buf;
}

static const cJSON *child(const cJSON *n, const char *name)
{
	const cJSON *c;

	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children"))
		if (strcmp(cJSON_GetObjectItemCaseSensitive(c, "name")->valuestring, name) == 0)
			return c;
	return NULL;
}

static double num(const cJSON *n, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(n, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void test_json(void **state)
{
	struct profile *p;
	struct tree *t = build(&p);
	char *s = capture(t, COND_N, 1);
	cJSON *root = cJSON_Parse(s);
	const cJSON *mm, *n;

	(void)state;
	assert_non_null(root);
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "name")->valuestring, "all");
	assert_true(num(root, "total") == 17);
	assert_true(num(root, "self") == 0);
	assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(root, "children")));
	mm = child(root, "mm");
	assert_non_null(mm);
	assert_true(num(mm, "total") == 14);
	n = child(child(child(child(mm, "asm_exc_page_fault"), "exc_page_fault"),
			"do_user_addr_fault"), "handle_mm_fault");
	assert_non_null(n);
	assert_true(num(n, "total") == 9);
	assert_true(num(n, "self") == 9);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(n, "children")), 0);
	/* escaping survives the round trip */
	n = child(child(child(root, "idle"), "do_idle"), "weird\"name\\x");
	assert_non_null(n);
	cJSON_Delete(root);
	free(s);

	/* one condition: nodes without counts in it are left out */
	s = capture(t, COND_REF, 1);
	root = cJSON_Parse(s);
	assert_non_null(root);
	assert_true(num(root, "total") == 5);
	mm = child(root, "mm");
	assert_true(num(mm, "total") == 2);
	n = child(child(mm, "asm_exc_page_fault"), "exc_page_fault");
	assert_true(num(n, "self") == 0);
	cJSON_Delete(root);
	free(s);
	tree_free(t);
	profile_free(p);
}

static void test_folded(void **state)
{
	struct profile *p;
	struct tree *t = build(&p);
	char *s;

	(void)state;
	s = capture(t, COND_N, 0);
	assert_string_equal(s,
		"asm_exc_page_fault;exc_page_fault 5\n"
		"asm_exc_page_fault;exc_page_fault;do_user_addr_fault;handle_mm_fault 9\n"
		"do_idle;weird\"name\\x 3\n");
	free(s);
	s = capture(t, COND_LOAD, 0);
	assert_string_equal(s,
		"asm_exc_page_fault;exc_page_fault 5\n"
		"asm_exc_page_fault;exc_page_fault;do_user_addr_fault;handle_mm_fault 7\n");
	free(s);
	s = capture(t, COND_REF, 0);
	assert_string_equal(s,
		"asm_exc_page_fault;exc_page_fault;do_user_addr_fault;handle_mm_fault 2\n"
		"do_idle;weird\"name\\x 3\n");
	free(s);
	tree_free(t);
	profile_free(p);
}

static void test_empty(void **state)
{
	struct profile *p = profile_new();
	struct tree *t = tree_build(p, NULL);
	char *s;

	(void)state;
	s = capture(t, COND_N, 1);
	assert_string_equal(s, "{\"name\":\"all\",\"total\":0,\"self\":0,\"children\":[]}\n");
	free(s);
	s = capture(t, COND_N, 0);
	assert_string_equal(s, "");
	free(s);
	tree_free(t);
	profile_free(p);
}

static void test_verdict(void **state)
{
	struct verdict v = { 0 };

	(void)state;
	v.path[0] = strdup("mm");
	v.path[1] = strdup("handle_mm_fault");
	v.npath = 2;
	v.leaf = strdup("handle_mm_fault");
	v.summary = strdup("page faults");
	v.found = 1;
	assert_int_equal(verdict_add_note(&v, "note %d", 1), 0);
	assert_int_equal(verdict_add_note(&v, "%s", "two"), 0);
	assert_int_equal(v.nnotes, 2);
	assert_string_equal(v.notes[0], "note 1");
	assert_string_equal(v.notes[1], "two");
	verdict_clear(&v);
	assert_int_equal(v.npath, 0);
	assert_int_equal(v.nnotes, 0);
	assert_null(v.notes);
	assert_int_equal(v.found, 0);
	verdict_clear(&v);
	verdict_clear(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
