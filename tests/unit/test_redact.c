/* core/redact: stable placeholders, whole-word matching, paths, commands,
 * and the way back from a placeholder. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/redact.h"

static void test_names_stable(void **state)
{
	struct redact *r = redact_new();
	const char *a, *b;

	assert_non_null(r);
	a = redact_name(r, REDACT_PROC, "postgres");
	b = redact_name(r, REDACT_PROC, "nginx");
	assert_string_equal(a, "proc-1");
	assert_string_equal(b, "proc-2");
	assert_ptr_equal(redact_name(r, REDACT_PROC, "postgres"), a);
	assert_string_equal(redact_name(r, REDACT_PATH, "/srv/x"), "path-1");
	assert_string_equal(redact_name(r, REDACT_CMD, "nginx -g daemon"), "cmd-1");
	/* a placeholder is not registered again */
	assert_string_equal(redact_name(r, REDACT_PROC, "proc-2"), "proc-2");
	assert_int_equal(redact_count(r), 4);
	assert_string_equal(redact_reverse(r, "proc-1"), "postgres");
	assert_null(redact_reverse(r, "proc-9"));
	assert_null(redact_name(r, REDACT_PROC, ""));
	assert_int_equal(errno, EINVAL);
	redact_free(r);
	redact_free(NULL);
}

static void test_text(void **state)
{
	struct redact *r = redact_new();
	char *s;

	redact_name(r, REDACT_PROC, "db");
	redact_name(r, REDACT_PROC, "db [12]");
	s = redact_text(r, "db [12] faults; db_flush and mydb stay; db, /var/lib/db.sqlite: "
			   "open(\"/etc/x\") cgroup=/sys/fs/cgroup/a ratio 3/4 events/s");
	assert_string_equal(s, "proc-2 faults; db_flush and mydb stay; proc-1, path-1: "
			    "open(\"path-2\") cgroup=path-3 ratio 3/4 events/s");
	free(s);
	/* the same path again: the same placeholder */
	s = redact_text(r, "/var/lib/db.sqlite");
	assert_string_equal(s, "path-1");
	free(s);
	/* kernel symbols and tracepoints pass */
	s = redact_text(r, "exceptions:page_fault_user  handle_mm_fault  [tp] kmem:mm_page_alloc");
	assert_string_equal(s, "exceptions:page_fault_user  handle_mm_fault  [tp] kmem:mm_page_alloc");
	free(s);
	s = redact_text(NULL, "/x");
	assert_string_equal(s, "/x");
	free(s);
	redact_free(r);
}

static void test_command(void **state)
{
	struct redact *r = redact_new();
	char *s;

	assert_int_equal(redact_add_command(r, "/opt/app/bin/thp-aggressor --data /data/set1 -n 4"), 0);
	s = redact_text(r, "load: /opt/app/bin/thp-aggressor --data /data/set1 -n 4; "
			   "comm thp-aggressor reads /data/set1");
	assert_string_equal(s, "load: cmd-1; comm proc-1 reads path-2");
	free(s);
	/* a comm is cut to 15 bytes */
	assert_int_equal(redact_add_command(r, "averyveryverylongname x"), 0);
	assert_non_null(redact_reverse(r, "proc-2"));
	assert_string_equal(redact_reverse(r, "proc-2"), "averyveryverylo");
	redact_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_stable),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
