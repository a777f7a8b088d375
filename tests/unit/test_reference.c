/* test_reference — saved references: round trip, refusals with reasons. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/reference.h"

static char dir[] = "/tmp/argus-test-refdir.XXXXXX";

static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();
	const char *a[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read" };
	const char *b[] = { "asm_exc_page_fault", "exc_page_fault" };

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	assert_int_equal(profile_window_begin(p, COND_REF, 2), 2);
	profile_window_end(p, 0, 1.0);
	profile_window_end(p, 1, 1.0);
	profile_window_end(p, 2, 0.5);
	assert_int_equal(profile_add(p, 0, a, 3, 10, "kworker/0:1", 4), 0);
	assert_int_equal(profile_add(p, 2, a, 3, 10, "kworker/0:1", 6), 0);
	assert_int_equal(profile_add(p, 1, b, 2, 11, "load", 100), 0); /* not saved */
	assert_int_equal(profile_add(p, 2, b, 2, 12, "cron", 1), 0);
	return p;
}

static void test_round_trip(void **state)
{
	struct reference_meta m, got;
	struct profile *p = sample_profile(), *q = profile_new();
	char path[256], *cause = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/sub/dir/ref.jsonl", dir);
	reference_meta_here(&m, "sample@999Hz", 999);
	assert_int_equal(reference_save(p, &m, path, &cause), 0);
	assert_null(cause);
	assert_int_equal(reference_load(path, &m, 0, q, &got, &cause), 0);
	assert_null(cause);
	assert_string_equal(got.probe_set, "sample@999Hz");
	assert_int_equal(got.freq_hz, 999);
	assert_int_equal(q->nwin, 2);                 /* the two reference windows */
	assert_int_equal(q->wins[0].cond, COND_REF);
	assert_true(q->wins[1].secs == 0.5);
	assert_int_equal(profile_cond_samples(q, COND_REF), 11);
	assert_int_equal(profile_cond_samples(q, COND_LOAD), 0);
	assert_int_equal(q->nstacks, 2);
	profile_free(p);
	profile_free(q);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_refusals(void **state)
{
	struct reference_meta m, other;
	struct profile *p = sample_profile(), *q;
	char path[256], bad[256], old[256], *cause = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s/r.jsonl", dir);
	reference_meta_here(&m, "sample@999Hz", 999);
	assert_int_equal(reference_save(p, &m, path, &cause), 0);

	other = m;
	snprintf(other.probe_set, sizeof(other.probe_set), "sample@99Hz");
	q = profile_new();
	assert_int_equal(reference_load(path, &other, 0, q, NULL, &cause), -ESTALE);
	assert_non_null(strstr(cause, "measured sample@999Hz, this run measures sample@99Hz"));
	free(cause);
	cause = NULL;
	assert_int_equal(q->nwin, 0);

	other = m;
	snprintf(other.kernel, sizeof(other.kernel), "1.2.3");
	assert_int_equal(reference_load(path, &other, 0, q, NULL, &cause), -ESTALE);
	assert_non_null(strstr(cause, "this is 1.2.3"));
	free(cause);
	cause = NULL;

	other = m;
	snprintf(other.host, sizeof(other.host), "elsewhere");
	assert_int_equal(reference_load(path, &other, 0, q, NULL, &cause), -ESTALE);
	assert_non_null(strstr(cause, "this is 'elsewhere'"));
	free(cause);
	cause = NULL;

	/* stale: created a day and a bit ago */
	snprintf(old, sizeof(old), "%s/old.jsonl", dir);
	{
		char text[1024];

		snprintf(text, sizeof(text),
			 "{\"format\":\"argus-reference\",\"version\":1,\"host\":\"%s\",\"kernel\":\"%s\","
			 "\"probe_set\":\"sample@999Hz\",\"freq_hz\":999,\"created\":%ld,"
			 "\"windows\":[{\"secs\":1}]}\n", m.host, m.kernel, (long)time(NULL) - 90000);
		write_file(old, text);
	}
	assert_int_equal(reference_load(old, &m, 0, q, NULL, &cause), -ESTALE);
	assert_non_null(strstr(cause, "is stale: recorded 25.0 h ago (limit 24 h)"));
	free(cause);
	cause = NULL;

	/* not a reference; a bad stack line names its line */
	snprintf(bad, sizeof(bad), "%s/bad.jsonl", dir);
	write_file(bad, "a;b;c 3\n");
	assert_int_equal(reference_load(bad, &m, 0, q, NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "line 1: not an argus reference"));
	free(cause);
	cause = NULL;
	{
		char text[1024];

		snprintf(text, sizeof(text),
			 "{\"format\":\"argus-reference\",\"version\":1,\"host\":\"%s\",\"kernel\":\"%s\","
			 "\"probe_set\":\"sample@999Hz\",\"freq_hz\":999,\"created\":%ld,"
			 "\"windows\":[{\"secs\":1}]}\n{\"win\":0,\"count\":1,\"frames\":[\"a\"]}\n"
			 "{\"win\":5,\"count\":1,\"frames\":[\"a\"]}\n", m.host, m.kernel,
			 (long)time(NULL));
		write_file(bad, text);
	}
	profile_free(q);
	q = profile_new();
	assert_int_equal(reference_load(bad, &m, 0, q, NULL, &cause), -EINVAL);
	assert_non_null(strstr(cause, "line 3: not a reference stack line"));
	free(cause);
	cause = NULL;

	assert_int_equal(reference_load("/nonexistent/x.jsonl", &m, 0, q, NULL, &cause), -ENOENT);
	assert_non_null(strstr(cause, "record one with 'argus reference save'"));
	free(cause);
	profile_free(q);
	profile_free(p);
}

static void test_default_path(void **state)
{
	struct reference_meta m = { .host = "h/x", .kernel = "6.1", .probe_set = "sample@999Hz" };
	char *p;

	(void)state;
	setenv("XDG_STATE_HOME", "/st", 1);
	p = reference_default_path(&m);
	assert_string_equal(p, "/st/argus/reference-h_x-6.1-sample_999Hz.jsonl");
	free(p);
	unsetenv("XDG_STATE_HOME");
	setenv("HOME", "/home/u", 1);
	p = reference_default_path(&m);
	assert_string_equal(p, "/home/u/.local/state/argus/reference-h_x-6.1-sample_999Hz.jsonl");
	free(p);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
