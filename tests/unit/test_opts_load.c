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
#include "opt.h"
#include "opts_load.h"

/* What a command that takes the load options adds (--batch, --json): the
 * tests parse as a command does, through tui/opt.h. */
static const struct opt other_table[] = {
	{ 0, "--batch", NULL, NULL, "no terminal" },
	{ 1, "--json", NULL, NULL, "JSON" },
};
static const struct opt_group other_group = OPT_GROUP(NULL, other_table);
static const struct opt_group *const groups[] = { &other_group, &opts_load_group };

/* Parses argv fully; returns -1 on the first error, else how many
 * options were not load options. Messages go to errbuf. */
static int parse_all(struct opts_load *ol, int argc, char **argv, char *errbuf, size_t len)
{
	FILE *err = fmemopen(errbuf, len, "w");
	const struct opt_parser p = { NULL, groups, 2, err };
	struct opt_hit h;
	int other = 0, ret = 0, r;

	for (int i = 1; (r = opt_next(&p, argc, argv, &i, &h)) != OPT_END;) {
		if (r == OPT_DASHDASH) {
			ret = opts_load_dashdash(ol, argc, argv, i, err);
			break;
		}
		if (r == OPT_OPTION && h.group == &opts_load_group)
			r = opts_load_apply(ol, &h, err);
		else if (r == OPT_OPTION)
			other++;
		else if (r == OPT_OPERAND)
			r = -1;
		if (r < 0) {
			ret = -1;
			break;
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
	expect_error(2, a2, 0, "argus: missing value for '--window'; 'argus --help' lists the "
		     "options\n");
	expect_error(5, a3, 0, "argus: --load given twice\n");
	expect_error(4, a4, 1, "argus: --pause goes with -p PID\n");
	expect_error(3, a5, 1, "argus: a victim needs a load to pause: add --load CMD, or -p PID --pause\n");
	expect_error(3, a6, 0, "argus: -p: 'abc' is not a whole number between 1 and 4194304 (a "
		     "process ID)\n");
	expect_error(2, a7, 0, "argus: '--pause' takes no value; 'argus --help' lists the "
		     "options\n");
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
	char buf[8192] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	opt_help(f, groups, 2);
	fclose(f);
	assert_non_null(strstr(buf, "--load CMD"));
	assert_non_null(strstr(buf, "-p, --pid PID"));
	assert_non_null(strstr(buf, "--settle S"));
	assert_non_null(strstr(buf, "-- CMD ARGS"));
	assert_non_null(strstr(buf, "\nload options:\n"));
	/* wrapped for an 80-column terminal */
	for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
		assert_true(nl - line <= 79);
}

/* "did you mean" (issue 24 item 11): recrod -> record, --lod -> --load;
 * nothing for a word that is near no name; an abbreviation is read as the
 * one option it begins, and an ambiguous one is said. */
static void test_nearest(void **state)
{
	const char *cmds[] = { "record", "replay", "diagnose", "reference", "export" };
	char *lod[] = { "x", "--lod", "a", NULL }, *zz[] = { "x", "--zzzzzz", NULL };
	char *abbr[] = { "x", "--min", "3", "--bat", NULL }, *amb[] = { "x", "--pa", "3", NULL };
	struct opts_load ol;
	char err[512] = "";

	(void)state;
	assert_string_equal(util_nearest("recrod", cmds, 5), "record");
	assert_string_equal(util_nearest("diagnsoe", cmds, 5), "diagnose");
	assert_null(util_nearest("xyzzy", cmds, 5));
	assert_null(util_nearest("record", cmds, 5));   /* itself is no suggestion */
	{       /* a tie: the name the word left a letter out of */
		const char *near[] = { "--log", "--load" };

		assert_string_equal(util_nearest("--lod", near, 2), "--load");
		assert_string_equal(util_nearest("--lgo", near, 2), "--log");
	}
	opts_load_init(&ol);
	assert_int_equal(parse_all(&ol, 3, lod, err, sizeof(err)), -1);
	assert_string_equal(err, "argus: unknown option '--lod'; did you mean '--load'? ('argus "
			    "--help' lists them)\n");
	assert_int_equal(parse_all(&ol, 2, zz, err, sizeof(err)), -1);
	assert_string_equal(err, "argus: unknown option '--zzzzzz'; 'argus --help' lists them\n");
	assert_int_equal(parse_all(&ol, 4, abbr, err, sizeof(err)), 1);
	assert_int_equal(ol.m.min_pairs, 3);
	assert_int_equal(parse_all(&ol, 3, amb, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "ambiguous option '--pa': it begins"));
	assert_non_null(strstr(err, "--pairs"));
	assert_non_null(strstr(err, "--pause"));
	opts_load_free(&ol);
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
