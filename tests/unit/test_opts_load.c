/* test_opts_load — the shared load options: parsing, errors, CMD splitting. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/util.h"
#include "opts_load.h"

/* Parses argv fully; returns -1 on the first error, else how many
 * arguments were not load options. Messages go to errbuf. */
static int parse_all(struct opts_load *ol, int argc, char **argv, char *errbuf, size_t len)
{
	FILE *err = fmemopen(errbuf, len, "w");
	int other = 0, ret = 0;

	for (int i = 1; i < argc;) {
		int r = opts_load_parse(ol, argc, argv, &i, err);

		if (r < 0) {
			ret = -1;
			break;
		}
		if (r == 0) {
			other++;
			i++;
		}
	}
	fclose(err);
	return ret < 0 ? -1 : other;
}

static void test_parse_all_options(void **state)
{
	char *argv[] = { "diagnose", "--batch", "--load", "stress --vm 1", "--victim=./v -x",
			 "--background", "noisy", "--pairs", "5", "--window=0.5", "--settle",
			 "0.1", "--freq", "499", "--json", NULL };
	struct opts_load ol;
	char err[256] = "";

	(void)state;
	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 15, argv, err, sizeof(err)), 2);
	assert_string_equal(err, "");
	assert_string_equal(ol.m.load_argv[0], "stress");
	assert_string_equal(ol.m.load_argv[1], "--vm");
	assert_string_equal(ol.m.load_argv[2], "1");
	assert_null(ol.m.load_argv[3]);
	assert_string_equal(ol.load_cmd, "stress --vm 1");
	assert_string_equal(ol.m.victim_argv[0], "./v");
	assert_string_equal(ol.m.victim_argv[1], "-x");
	assert_string_equal(ol.m.background_argv[0], "noisy");
	assert_int_equal(ol.m.pairs, 5);
	assert_true(ol.m.window_s == 0.5);
	assert_true(ol.m.settle_s == 0.1);
	assert_int_equal(ol.m.freq_hz, 499);
	assert_int_equal(opts_load_finish(&ol, 1, stderr), 0);
	opts_load_free(&ol);
}

static void test_dash_dash_and_pid(void **state)
{
	char *argv[] = { "argus", "-p", "42", "--pause", "--", "make", "-j2", NULL };
	char *argv2[] = { "argus", "--", "make", "-j2", NULL };
	struct opts_load ol;
	char err[256] = "";

	(void)state;
	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 7, argv, err, sizeof(err)), 0);
	assert_int_equal(ol.m.pid, 42);
	assert_true(ol.m.pause);
	assert_string_equal(ol.m.load_argv[0], "make");
	assert_string_equal(ol.m.load_argv[1], "-j2");
	/* -p and a command are two loads */
	err[0] = 0;
	{
		FILE *f = fmemopen(err, sizeof(err), "w");

		assert_int_equal(opts_load_finish(&ol, 1, f), -1);
		fclose(f);
	}
	assert_string_equal(err, "argus: --load (or -- CMD) and -p are two loads; give one\n");
	opts_load_free(&ol);

	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 4, argv2, err, sizeof(err)), 0);
	assert_int_equal(opts_load_finish(&ol, 1, stderr), 0);
	opts_load_free(&ol);
}

/* Issue 24 item 9: with --victim the title names the victim (what is
 * diagnosed) first and the load (what is paused) in an aside, programs
 * without their directories; it named only the load ("argus --load ..."). */
static void test_title(void **state)
{
	char *argv[] = { "argus", "--load", "/opt/s/spinner --threads 2", "--victim",
			 "/home/u/build/starved --seconds 60", NULL };
	char *argv2[] = { "argus", "--load", "stress --vm 1", NULL };
	char pid[16], *argv3[] = { "argus", "--victim-pid", pid, "--load", "sh -c 'x | y'", NULL };
	struct opts_load ol;
	char err[256] = "", title[256];

	(void)state;
	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 5, argv, err, sizeof(err)), 0);
	assert_string_equal(opts_load_title(&ol, title, sizeof(title)),
			    "victim: starved --seconds 60  (load paused in ref: spinner --threads 2)");
	opts_load_free(&ol);

	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 3, argv2, err, sizeof(err)), 0);
	assert_string_equal(opts_load_title(&ol, title, sizeof(title)), "argus --load stress --vm 1");
	opts_load_free(&ol);

	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 5, argv3, err, sizeof(err)), 0);
	opts_load_title(&ol, title, sizeof(title));
	assert_true(strncmp(title, "victim: PID ", 12) == 0);
	assert_non_null(strstr(title, "  (load paused in ref: sh -c 'x | y')"));
	opts_load_free(&ol);
}

static void expect_error(int argc, char **argv, int at_finish, const char *msg)
{
	struct opts_load ol;
	char err[512] = "";

	opts_load_init(&ol);
	if (!at_finish) {
		assert_int_equal(parse_all(&ol, argc, argv, err, sizeof(err)), -1);
	} else {
		FILE *f;

		assert_true(parse_all(&ol, argc, argv, err, sizeof(err)) >= 0);
		f = fmemopen(err, sizeof(err), "w");
		assert_int_equal(opts_load_finish(&ol, 1, f), -1);
		fclose(f);
	}
	assert_string_equal(err, msg);
	opts_load_free(&ol);
}

static void test_errors(void **state)
{
	char *a1[] = { "x", "--pairs", "0", NULL };
	char *a2[] = { "x", "--window", NULL };
	char *a3[] = { "x", "--load", "a", "--load", "b", NULL };
	char *a4[] = { "x", "--pause", "--load", "a", NULL };
	char *a5[] = { "x", "--victim", "v", NULL };
	char *a6[] = { "x", "-p", "abc", NULL };
	char *a7[] = { "x", "--pause=1", NULL };
	char *a8[] = { "x", "--", NULL };
	char *a9[] = { "x", "--freq", "9", NULL };

	(void)state;
	expect_error(3, a1, 0, "argus: --pairs: '0' is out of range: give a whole number between 1 "
		     "and 1000 (pairs)\n");
	expect_error(2, a2, 0, "argus: --window needs S\n");
	expect_error(5, a3, 0, "argus: --load given twice\n");
	expect_error(4, a4, 1, "argus: --pause goes with -p PID\n");
	expect_error(3, a5, 1, "argus: a victim needs a load to pause: add --load CMD, or -p PID --pause\n");
	expect_error(3, a6, 0, "argus: -p: 'abc' is not a whole number between 1 and 4194304 (a "
		     "process ID)\n");
	expect_error(2, a7, 0, "argus: --pause takes no value\n");
	expect_error(2, a8, 0, "argus: '--' must be followed by a command\n");
	(void)a9;
}

static void test_split(void **state)
{
	char **a;

	(void)state;
	a = opts_load_split("  sleep   10 ");
	assert_string_equal(a[0], "sleep");
	assert_string_equal(a[1], "10");
	assert_null(a[2]);
	opts_load_argv_free(a);
	a = opts_load_split("yes > /dev/null");
	assert_string_equal(a[0], "/bin/sh");
	assert_string_equal(a[1], "-c");
	assert_string_equal(a[2], "yes > /dev/null");
	assert_null(a[3]);
	opts_load_argv_free(a);
	assert_null(opts_load_split("   "));
	assert_null(opts_load_split(""));
}

static void test_help_from_table(void **state)
{
	char buf[4096] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	opts_load_help(f);
	fclose(f);
	assert_non_null(strstr(buf, "--load CMD"));
	assert_non_null(strstr(buf, "-p, --pid PID"));
	assert_non_null(strstr(buf, "--settle S"));
	assert_non_null(strstr(buf, "-- CMD ARGS"));
}

/* "did you mean" (issue 24 item 11): recrod -> record, --lod -> --load;
 * nothing for a word that is near no name. */
static void test_nearest(void **state)
{
	const char *cmds[] = { "record", "replay", "diagnose", "reference", "export" };
	const char *names[64];
	size_t n = opts_load_names(names, 64);

	(void)state;
	assert_true(n > 3 && n <= 64);
	assert_string_equal(util_nearest("recrod", cmds, 5), "record");
	assert_string_equal(util_nearest("diagnsoe", cmds, 5), "diagnose");
	assert_null(util_nearest("xyzzy", cmds, 5));
	assert_null(util_nearest("record", cmds, 5));   /* itself is no suggestion */
	assert_string_equal(util_nearest("--lod", names, n), "--load");
	assert_null(util_nearest("--zzzzzz", names, n));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_all_options),
		cmocka_unit_test(test_dash_dash_and_pid),
		cmocka_unit_test(test_title),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_nearest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
