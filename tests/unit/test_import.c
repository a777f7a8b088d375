/* Unit tests of core/import: folded stacks and perf script text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "data/import.h"

#ifndef TEST_DATA
#define TEST_DATA "tests/data"
#endif

/* Imports text into a fresh profile's window 0 of condition c. */
static int load(const char *text, enum cond c, struct profile **out,
		struct import_info *info, char **cause)
{
	struct profile *p = profile_new();
	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, c, 0), 0);
	int err = import_buf("t.folded", text, strlen(text), p, 0, info, cause);
	*out = p;
	return err;
}

static const struct profile_stack *find(const struct profile *p, const char *folded,
					uint32_t tgid)
{
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		char buf[4096];
		size_t o = 0;
		for (uint32_t k = 0; k < s->nframes && o < sizeof(buf) - 1; k++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", k ? ";" : "",
					      s->frames[k]);
		if (!strcmp(buf, folded) && s->tgid == tgid)
			return s;
	}
	return NULL;
}

static void expect_error(const char *text, const char *needle)
{
	struct profile *p;
	char *cause = NULL;
	int err = load(text, COND_REF, &p, NULL, &cause);
	assert_int_not_equal(err, 0);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("cause '%s' lacks '%s'", cause, needle);
	free(cause);
	profile_free(p);
}

static void test_folded_basic(void **state)
{
	struct profile *p;
	struct import_info info;
	char *cause = NULL;
	const char *text =
		"a;b;c 5\r\n"
		"a;b 3   \n"
		"\n"
		"# a comment\n"
		"x;foo [nf_tables];bar  7\n"
		"a;b;c 2\n"
		"a;zero 0\n";
	assert_int_equal(load(text, COND_REF, &p, &info, &cause), 0);
	assert_null(cause);
	assert_int_equal(info.format, IMPORT_FOLDED);
	assert_int_equal(info.samples, 17);
	assert_int_equal(info.stacks, 5);
	assert_int_equal(info.secs_known, 0);
	assert_true(p->wins[0].secs == 1.0);
	const struct profile_stack *s = find(p, "a;b;c", 0);
	assert_non_null(s);
	assert_int_equal(s->win[0], 7);
	assert_int_equal(s->nframes, 3);
	assert_string_equal(s->frames[0], "a");
	assert_string_equal(s->frames[2], "c");
	s = find(p, "a;b", 0);
	assert_non_null(s);
	assert_int_equal(s->win[0], 3);
	s = find(p, "x;foo [nf_tables];bar", 0);
	assert_non_null(s);
	assert_int_equal(s->win[0], 7);
	assert_string_equal(s->frames[1], "foo [nf_tables]");
	assert_null(find(p, "a;zero", 0));
	profile_free(p);
}

static void test_folded_window_header(void **state)
{
	struct profile *p;
	struct import_info info;
	char *cause = NULL;
	const char *text =
		"# argus-window secs=2.5 cond=load\n"
		"a;b 4\n"
		"# argus-window secs=3 cond=load start=10\n"
		"a;b 6\n";
	assert_int_equal(load(text, COND_LOAD, &p, &info, &cause), 0);
	assert_int_equal(p->nwin, 2);
	assert_true(p->wins[0].secs == 2.5);
	assert_true(p->wins[1].secs == 3.0);
	assert_true(p->wins[1].start_s == 10.0);
	assert_int_equal(p->wins[1].cond, COND_LOAD);
	assert_int_equal(info.windows, 2);
	assert_int_equal(info.secs_known, 1);
	const struct profile_stack *s = find(p, "a;b", 0);
	assert_non_null(s);
	assert_int_equal(s->win[0], 4);
	assert_int_equal(s->win[1], 6);
	profile_free(p);

	/* a loaded window offered as the reference is refused */
	expect_error("# argus-window secs=2 cond=load\na 1\n", "t.folded:1: window says cond=load");
	expect_error("a 1\n# argus-window secs=zero\n", "t.folded:2: expected '# argus-window");
}

static void test_folded_kernel_annotations(void **state)
{
	struct profile *p;
	char *cause = NULL;
	/* stackcollapse-perf.pl --kernel: keep the _[k] frames only */
	assert_int_equal(load("pf;main;asm_exc_page_fault_[k];exc_page_fault_[k] 9\n",
			      COND_REF, &p, NULL, &cause), 0);
	const struct profile_stack *s = find(p, "asm_exc_page_fault;exc_page_fault", 0);
	assert_non_null(s);
	assert_int_equal(s->win[0], 9);
	profile_free(p);
}

static void test_folded_errors(void **state)
{
	expect_error("a;b 3\na;b;c\n", "t.folded:2: expected 'frames COUNT', got 'a;b;c'");
	expect_error("a;b 3\n\n\na;b x\n", "t.folded:4: expected 'frames COUNT'");
	expect_error("a;b 3\na;;b 4\n", "t.folded:2: empty frame");
	expect_error("a;b 3\n 7\n", "t.folded:2:");
	expect_error("a 99999999999999999999999\n", "too large");
	expect_error("", "no stacks in the file");
	expect_error("# only a comment\n\n", "no stacks in the file");
	expect_error("a 0\n", "no samples");
	expect_error("hello world\n", "t.folded:1: neither folded stacks");
	static const char junk[] = "a;b 3\n\x7f" "ELF\x00\x01\x02 garbage";
	struct profile *p = profile_new();
	char *cause = NULL;
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_not_equal(import_buf("j.bin", junk, sizeof(junk) - 1, p, 0, NULL, &cause), 0);
	assert_non_null(strstr(cause, "j.bin: binary data"));
	free(cause);
	profile_free(p);
}

static const char perf_text[] =
	"pf  7383 [000]   404.046213:    1001001 cpu-clock:ppp: \n"
	"\tffffffff821eb0e7 clear_page_erms+0x7 ([kernel.kallsyms])\n"
	"\tffffffff815ebeb5 do_anonymous_page+0x325 ([kernel.kallsyms])\n"
	"\tffffffffc0a01234 nft_do_chain+0x44 ([nf_tables])\n"
	"\tffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
	"\t            10f0 main+0x70 (/tmp/imp/pf)\n"
	"\t               0 [unknown] ([unknown])\n"
	"\n"
	"Web 2 Content  812/815 [001]   405.046213:    1001001 cpu-clock:ppp: \n"
	"\tffffffff821eb0e7 clear_page_erms+0x7 ([kernel.kallsyms])\n"
	"\tffffffff815ebeb5 do_anonymous_page+0x325 ([kernel.kallsyms])\n"
	"\tffffffffc0a01234 nft_do_chain+0x44 ([nf_tables])\n"
	"\tffffffff81000c82 asm_exc_page_fault+0x22 ([kernel.kallsyms])\n"
	"\n"
	"pf  7383 [000]   404.546213:    1001001 cpu-clock:ppp: \n"
	"\t            10f0 main+0x70 (/tmp/imp/pf)\n"
	"\tdfdfdfdf00000000 [unknown] ([unknown])\n"
	"\n";

static void test_perf_script(void **state)
{
	struct profile *p;
	struct import_info info;
	char *cause = NULL;
	assert_int_equal(load(perf_text, COND_LOAD, &p, &info, &cause), 0);
	assert_int_equal(info.format, IMPORT_PERF_SCRIPT);
	assert_int_equal(info.stacks, 3);
	assert_int_equal(info.samples, 2);
	assert_int_equal(info.user_only, 1);
	assert_int_equal(info.secs_known, 1);
	/* 404.046213 .. 405.046213 plus one period of 1001001 ns */
	assert_true(p->wins[0].secs > 1.00099 && p->wins[0].secs < 1.00101);
	const char *path = "asm_exc_page_fault;nft_do_chain [nf_tables];do_anonymous_page;clear_page_erms";
	const struct profile_stack *s = find(p, path, 7383);
	assert_non_null(s);
	assert_int_equal(s->win[0], 1);
	assert_string_equal(s->comm, "pf");
	s = find(p, path, 812);
	assert_non_null(s);
	assert_string_equal(s->comm, "Web 2 Content");
	profile_free(p);
}

static void test_perf_script_fields(void **state)
{
	/* perf script -F comm,pid,tid,event,ip,sym: no cpu, time or dso */
	static const char text[] =
		"pf  7383/7384  cpu-clock:ppp: \n"
		"\tffffffff821eb0e7 clear_page_erms\n"
		"\tffffffff815ebeb5 do_anonymous_page\n"
		"\t            10f0 main\n"
		"\n"
		"pf  7383/7384  cpu-clock:ppp: \n"
		"\tffffffff821eb0e7 clear_page_erms\n"
		"\tffffffff815ebeb5 do_anonymous_page\n";
	struct profile *p;
	struct import_info info;
	char *cause = NULL;
	assert_int_equal(load(text, COND_REF, &p, &info, &cause), 0);
	assert_int_equal(info.samples, 2);
	assert_int_equal(info.secs_known, 0);
	const struct profile_stack *s = find(p, "do_anonymous_page;clear_page_erms", 7383);
	assert_non_null(s);
	assert_int_equal(s->win[0], 2);
	assert_string_equal(s->comm, "pf");
	profile_free(p);
}

static void test_perf_script_errors(void **state)
{
	expect_error("pf 1 [000] 1.0: cpu-clock:\n"
		     "\tffffffff821eb0e7 clear_page_erms ([kernel.kallsyms])\n"
		     "\n"
		     "this is not a header\n"
		     "\tffffffff821eb0e7 clear_page_erms ([kernel.kallsyms])\n",
		     "t.folded:4: expected a perf script sample header");
	expect_error("\tffffffff821eb0e7 clear_page_erms ([kernel.kallsyms])\n",
		     "t.folded:1: call-chain line outside a sample");
	expect_error("pf 1 [000] 1.0: cpu-clock:\n\t    10f0 main (/bin/pf)\n",
		     "no kernel call chains");
}

static void test_fixtures(void **state)
{
	static const char *const files[] = {
		TEST_DATA "/ref.folded", TEST_DATA "/load.folded",
		TEST_DATA "/ref.perfscript", TEST_DATA "/load.perfscript",
	};
	for (int i = 0; i < 4; i++) {
		struct profile *p = profile_new();
		struct import_info info;
		char *cause = NULL;
		enum cond c = i % 2 ? COND_LOAD : COND_REF;
		assert_int_equal(profile_window_begin(p, c, 0), 0);
		int err = import_file_info(files[i], p, 0, &info, &cause);
		if (err)
			fail_msg("%s: %s", files[i], cause);
		assert_int_equal(info.format, i < 2 ? IMPORT_FOLDED : IMPORT_PERF_SCRIPT);
		assert_true(info.samples > 300);
		assert_int_equal(info.secs_known, 1);
		uint64_t anon = 0;
		for (size_t k = 0; k < p->nstacks; k++)
			for (uint32_t f = 0; f < p->stacks[k].nframes; f++)
				if (!strcmp(p->stacks[k].frames[f], "do_anonymous_page"))
					anon += p->stacks[k].win[0];
		/* the loaded runs fault all the time; the idle ones barely */
		if (c == COND_LOAD)
			assert_true(anon * 5 > info.samples);
		else
			assert_true(anon * 50 < info.samples);
		profile_free(p);
	}
	char *cause = NULL;
	struct profile *p = profile_new();
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_not_equal(import_file(TEST_DATA "/no-such-file", p, 0, &cause), 0);
	assert_non_null(strstr(cause, "no-such-file"));
	free(cause);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded_basic),
		cmocka_unit_test(test_folded_window_header),
		cmocka_unit_test(test_folded_kernel_annotations),
		cmocka_unit_test(test_folded_errors),
		cmocka_unit_test(test_perf_script),
		cmocka_unit_test(test_perf_script_fields),
		cmocka_unit_test(test_perf_script_errors),
		cmocka_unit_test(test_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
