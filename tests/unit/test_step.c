/* test_step — step specs: parsing, serialising, editing, and validation
 * against a hand-built struct caps (no kernel needed). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "probe/caps.h"
#include "data/step.h"
#include "step/step_scope.h"

#define assert_contains(hay, needle) do { \
	if (!strstr((hay), (needle))) \
		fail_msg("'%s' does not contain '%s'", (hay), (needle)); \
} while (0)

static struct step *parse_ok(const char *json)
{
	struct step *s = NULL;
	struct step_error e;
	int rc = step_parse_json(json, strlen(json), &s, &e);

	if (rc)
		fail_msg("parse failed: [%s] %s", e.field, e.msg);
	return s;
}

static int parse_err(const char *json, struct step_error *e)
{
	struct step *s = (struct step *)1;
	int rc = step_parse_json(json, strlen(json), &s, e);

	assert_int_equal(rc, -EINVAL);
	assert_null(s);
	return rc;
}

/* A kernel like the development machines, plus fentry so that function
 * targets can be checked. */
static struct caps *fake_caps(int categories_known)
{
	struct caps *c = caps_new();
	const char *cat = categories_known ? NULL : "?";
	static const char *const tps[][2] = {
		{ "exceptions", "page_fault_user" }, { "exceptions", "page_fault_kernel" },
		{ "kmem", "mm_page_alloc" }, { "kmem", "mm_page_free" },
		{ "huge_memory", "mm_khugepaged_scan_pmd" }, { "huge_memory", "mm_collapse_huge_page" },
		{ "compaction", "mm_compaction_begin" }, { "compaction", "mm_compaction_end" },
		{ "vmscan", "mm_vmscan_direct_reclaim_begin" }, { "vmscan", "mm_vmscan_direct_reclaim_end" },
		{ "raw_syscalls", "sys_enter" }, { "raw_syscalls", "sys_exit" },
		{ "sched", "sched_switch" }, { "sched", "sched_wakeup" },
	};

	assert_non_null(c);
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		assert_int_equal(caps_add_tracepoint(c, cat ? cat : tps[i][0], tps[i][1],
						     CAPS_TP_RAW | (cat ? 0 : CAPS_TP_TRACEFS)), 0);
	if (categories_known)
		assert_int_equal(caps_add_tracepoint(c, "syscalls", "sys_enter_read", CAPS_TP_TRACEFS), 0);
	assert_int_equal(caps_add_function(c, "vfs_read", CAPS_FN_KALLSYMS | CAPS_FN_BTF), 0);
	assert_int_equal(caps_add_function(c, "vfs_write", CAPS_FN_KALLSYMS | CAPS_FN_BTF), 0);
	assert_int_equal(caps_add_function(c, "do_fault", CAPS_FN_KALLSYMS | CAPS_FN_BTF), 0);
	assert_int_equal(caps_add_function(c, "handle_mm_fault", CAPS_FN_KALLSYMS | CAPS_FN_BTF), 0);
	assert_int_equal(caps_add_function(c, "btf_only_fn", CAPS_FN_BTF), 0);
	assert_int_equal(caps_add_function(c, "asm_only_fn", CAPS_FN_KALLSYMS), 0);
	assert_int_equal(caps_add_function(c, "opt_copy_fn", CAPS_FN_SUFFIXED), 0);
	caps_finish(c);
	c->categories_known = categories_known;
	c->mech[CAPS_FENTRY].probed = 1;
	c->mech[CAPS_FENTRY].err = 0;
	c->mech[CAPS_KPROBE].probed = 1;
	c->mech[CAPS_KPROBE].err = -ENOENT;
	for (int k = 0; k < STEP_KIND_N; k++)
		caps_set_kind(c, k, 1, "test");
	return c;
}

static void validate_err(const char *json, const struct caps *c, const struct step_limits *lim,
			 const char *field, const char *needle)
{
	struct step *s = parse_ok(json);
	struct step_error e;

	assert_int_equal(step_validate(s, c, lim, &e), -EINVAL);
	assert_string_equal(e.field, field);
	assert_contains(e.msg, needle);
	assert_int_equal(s->nresolved, 0);
	step_free(s);
}

/* ---- parsing ------------------------------------------------------------- */

static void test_parse_good(void **state)
{
	struct step *s = parse_ok(
		"{\"kind\": \"tracepoint_stacks\",\n"
		" \"target\": [\"exceptions:page_fault_user\", \"kmem:mm_page_alloc\"],\n"
		" \"filter\": {\"pid\": 12, \"comm\": \"thp-fault\", \"cgroup\": \"/x\"},\n"
		" \"duration_s\": 5.5, \"sample_every\": 8, \"max_stacks\": 2048,\n"
		" \"rationale\": \"page faults dominate\", \"expect\": \"do_anonymous_page\"}");

	assert_int_equal(s->kind, STEP_TRACEPOINT_STACKS);
	assert_int_equal(s->ntargets, 2);
	assert_string_equal(s->targets[1], "kmem:mm_page_alloc");
	assert_int_equal(s->filter.pid, 12);
	assert_string_equal(s->filter.comm, "thp-fault");
	assert_string_equal(s->filter.cgroup, "/x");
	assert_true(s->duration_s == 5.5);
	assert_int_equal(s->sample_every, 8);
	assert_int_equal(s->max_stacks, 2048);
	assert_string_equal(s->rationale, "page faults dominate");
	assert_string_equal(s->expect, "do_anonymous_page");
	step_free(s);

	s = parse_ok("{\"kind\":\"sample\",\"duration_s\":3,\"freq_hz\":199}");
	assert_int_equal(s->kind, STEP_SAMPLE);
	assert_int_equal(s->ntargets, 0);
	assert_int_equal(s->freq_hz, 199);
	step_free(s);

	s = parse_ok("{\"kind\":\"tracepoint_latency\",\"begin\":\"compaction:mm_compaction_begin\","
		     "\"end\":\"compaction:mm_compaction_end\",\"duration_s\":10}");
	assert_string_equal(s->begin, "compaction:mm_compaction_begin");
	assert_string_equal(s->end, "compaction:mm_compaction_end");
	step_free(s);
}

static void test_parse_unknown_key(void **state)
{
	struct step_error e;

	parse_err("{\"kind\":\"counts\",\"targets\":\"kmem:*\",\"duration_s\":1}", &e);
	assert_string_equal(e.field, "targets");
	assert_contains(e.msg, "unknown key 'targets'");
	assert_contains(e.msg, "did you mean 'target'");

	parse_err("{\"kind\":\"sample\",\"duration_s\":1,\"filter\":{\"process\":1}}", &e);
	assert_string_equal(e.field, "filter.process");
	assert_contains(e.msg, "unknown key 'process'");
	assert_contains(e.msg, "pid, tgid, comm, cgroup");

	parse_err("{\"kind\":\"sample\",\"duration_s\":1,\"duration_s\":2}", &e);
	assert_string_equal(e.field, "duration_s");
	assert_contains(e.msg, "duplicate key");
}

static void test_parse_missing(void **state)
{
	struct step_error e;

	parse_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"kmem:mm_page_alloc\"}", &e);
	assert_string_equal(e.field, "duration_s");
	assert_contains(e.msg, "missing required key 'duration_s'");

	parse_err("{\"target\":\"kmem:mm_page_alloc\",\"duration_s\":2}", &e);
	assert_string_equal(e.field, "kind");
	assert_contains(e.msg, "missing required key 'kind'");

	parse_err("{\"kind\":\"tracepoint_stacks\",\"duration_s\":2}", &e);
	assert_string_equal(e.field, "target");
	assert_contains(e.msg, "tracepoint_stacks needs a target");

	parse_err("{\"kind\":\"tracepoint_latency\",\"begin\":\"a:b\",\"duration_s\":2}", &e);
	assert_string_equal(e.field, "end");
	assert_contains(e.msg, "needs 'end'");

	parse_err("{\"kind\":\"tracepoint_latency\",\"end\":\"a:b\",\"duration_s\":2}", &e);
	assert_string_equal(e.field, "begin");
	assert_contains(e.msg, "needs 'begin'");
}

static void test_parse_types(void **state)
{
	struct step_error e;

	parse_err("{\"kind\":\"sample\",\"duration_s\":\"5\"}", &e);
	assert_string_equal(e.field, "duration_s");
	assert_contains(e.msg, "must be a number of seconds, not a string");

	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"freq_hz\":9.5}", &e);
	assert_string_equal(e.field, "freq_hz");
	assert_contains(e.msg, "whole number");
	/* the real limits in the message, not UINT_MAX */
	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"freq_hz\":-5}", &e);
	assert_string_equal(e.field, "freq_hz");
	assert_contains(e.msg, "between 1 and 10000");
	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"freq_hz\":20000}", &e);
	assert_contains(e.msg, "freq_hz 20000 is not a whole number between 1 and 10000 (Hz)");
	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"max_stacks\":1e308}", &e);
	assert_contains(e.msg, "between 1 and 16384");

	parse_err("{\"kind\":\"counts\",\"target\":[],\"duration_s\":5}", &e);
	assert_string_equal(e.field, "target");
	assert_contains(e.msg, "empty list");

	parse_err("{\"kind\":\"counts\",\"target\":[\"kmem:*\", 3],\"duration_s\":5}", &e);
	assert_string_equal(e.field, "target[1]");
	assert_contains(e.msg, "must be a string, not a number");

	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"comm\":\"a-name-over-15-bytes\"}}", &e);
	assert_string_equal(e.field, "filter.comm");
	assert_contains(e.msg, "too long");

	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"pid\":-3}}", &e);
	assert_string_equal(e.field, "filter.pid");

	parse_err("{\"kind\":\"tracepoint_stack\",\"target\":\"a:b\",\"duration_s\":5}", &e);
	assert_string_equal(e.field, "kind");
	assert_contains(e.msg, "unknown kind 'tracepoint_stack'; did you mean 'tracepoint_stacks'?");
	assert_contains(e.msg, "kinds: sample, tracepoint_stacks, tracepoint_latency, function_latency, offcpu, counts");

	parse_err("[{\"kind\":\"sample\"}]", &e);
	assert_string_equal(e.field, "");
	assert_contains(e.msg, "must be a JSON object");

	parse_err("{\"kind\":\"sample\",\"duration_s\":5,\"target\":\"kmem:x\"}", &e);
	assert_string_equal(e.field, "target");
	assert_contains(e.msg, "sample takes no target");
}

static void test_parse_syntax_line_col(void **state)
{
	struct step_error e;

	/* the second comma on line 3 */
	parse_err("{\n  \"kind\": \"sample\",\n  \"duration_s\": 5,,\n}", &e);
	assert_string_equal(e.field, "");
	assert_contains(e.msg, "not valid JSON");
	assert_int_equal(e.line, 3);
	assert_in_range(e.col, 18, 20);

	parse_err("{\"kind\": \"sample\",\n\"duration_s\": 5} trailing", &e);
	assert_contains(e.msg, "text after the object");
	assert_int_equal(e.line, 2);
	assert_int_equal(e.col, 18);

	parse_err("", &e);
	assert_contains(e.msg, "ends too early");
	assert_int_equal(e.line, 1);

	parse_err("{\"kind\": \"sample\",\n \"duration_s\": 5", &e);
	assert_contains(e.msg, "not valid JSON");
	assert_int_equal(e.line, 2);
}

static void test_round_trip(void **state)
{
	const char *in =
		"{\"kind\":\"tracepoint_stacks\",\"target\":[\"exceptions:page_fault_user\",\"kmem:*\"],"
		"\"filter\":{\"pid\":7,\"tgid\":7,\"comm\":\"x\",\"cgroup\":\"a/b\"},\"duration_s\":2.25,"
		"\"sample_every\":3,\"max_stacks\":100,\"rationale\":\"r \\\"q\\\" \\n\",\"expect\":\"e\"}";
	struct step *a = parse_ok(in), *b, *c;
	char *ja = step_to_json(a), *jb, *jc;

	assert_non_null(ja);
	b = parse_ok(ja);
	jb = step_to_json(b);
	assert_string_equal(ja, jb);
	assert_int_equal(b->kind, a->kind);
	assert_int_equal(b->ntargets, 2);
	assert_string_equal(b->targets[1], "kmem:*");
	assert_true(b->duration_s == 2.25);
	assert_int_equal(b->filter.tgid, 7);
	assert_string_equal(b->filter.cgroup, "a/b");
	assert_string_equal(b->rationale, "r \"q\" \n");

	c = step_clone(b);
	assert_non_null(c);
	jc = step_to_json(c);
	assert_string_equal(jc, jb);
	assert_ptr_not_equal(c->targets[0], b->targets[0]);

	/* one target serialises as a string */
	step_free(a);
	a = parse_ok("{\"kind\":\"offcpu\",\"duration_s\":4}");
	free(ja);
	ja = step_to_json(a);
	assert_contains(ja, "\"kind\":\t\"offcpu\"");
	assert_null(strstr(ja, "target"));
	assert_null(strstr(ja, "freq_hz"));

	free(ja);
	free(jb);
	free(jc);
	step_free(a);
	step_free(b);
	step_free(c);
}

static void test_set_field(void **state)
{
	struct step *s = step_new();
	struct step_error e;
	char buf[160];

	assert_int_equal(step_set_field(s, "kind", "tracepoint_stacks", &e), 0);
	assert_int_equal(step_set_field(s, "target", "exceptions:page_fault_user, kmem:mm_page_alloc", &e), 0);
	assert_int_equal(s->ntargets, 2);
	assert_string_equal(s->targets[1], "kmem:mm_page_alloc");
	assert_int_equal(step_set_field(s, "duration_s", "5", &e), 0);
	assert_int_equal(step_set_field(s, "filter.comm", "thp", &e), 0);
	assert_string_equal(step_describe(s, buf, sizeof(buf)),
			    "tracepoint_stacks exceptions:page_fault_user,kmem:mm_page_alloc comm=thp 5s");

	assert_int_equal(step_set_field(s, "duration_s", "five", &e), -EINVAL);
	assert_string_equal(e.field, "duration_s");
	assert_int_equal(step_set_field(s, "kind", "offcpux", &e), -EINVAL);
	assert_contains(e.msg, "did you mean 'offcpu'");
	assert_int_equal(step_set_field(s, "filter.pid", "-1", &e), -EINVAL);
	assert_string_equal(e.field, "filter.pid");
	/* typed values go through core/base/num.c: NaN, inf and 1e308 refused */
	assert_int_equal(step_set_field(s, "duration_s", "nan", &e), -EINVAL);
	assert_int_equal(step_set_field(s, "duration_s", "inf", &e), -EINVAL);
	assert_int_equal(step_set_field(s, "duration_s", "1e308", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "between 0.001 and 30"));
	assert_int_equal(step_set_field(s, "freq_hz", "20000", &e), -EINVAL);
	assert_non_null(strstr(e.msg, "between 1 and 10000"));
	assert_int_equal(step_set_field(s, "colour", "red", &e), -EINVAL);
	assert_int_equal(step_set_field(s, "filter.comm", "", &e), 0);
	assert_null(s->filter.comm);
	step_free(s);
	step_free(NULL);
}

/* ---- validation ------------------------------------------------------------ */

static void test_validate_good(void **state)
{
	struct caps *c = fake_caps(1);
	struct step *s = parse_ok("{\"kind\":\"tracepoint_stacks\",\"target\":[\"exceptions:page_fault_user\","
				  "\"huge_memory:*\",\"*:mm_page_alloc\",\"page_fault_kernel\"],\"duration_s\":5}");
	struct step_error e;

	assert_int_equal(step_validate(s, c, NULL, &e), 0);
	assert_int_equal(s->nresolved, 5);
	assert_string_equal(s->resolved[0], "exceptions:page_fault_user");
	assert_string_equal(s->resolved[3], "kmem:mm_page_alloc");
	assert_string_equal(s->resolved[4], "exceptions:page_fault_kernel");
	/* validating again gives the same result, not a doubled list */
	assert_int_equal(step_validate(s, c, NULL, &e), 0);
	assert_int_equal(s->nresolved, 5);
	step_free(s);

	s = parse_ok("{\"kind\":\"function_latency\",\"target\":\"vfs_read\",\"duration_s\":5}");
	assert_int_equal(step_validate(s, c, NULL, &e), 0);
	assert_string_equal(s->resolved[0], "vfs_read");
	step_free(s);

	s = parse_ok("{\"kind\":\"tracepoint_latency\",\"begin\":\"vmscan:mm_vmscan_direct_reclaim_begin\","
		     "\"end\":\"mm_vmscan_direct_reclaim_end\",\"duration_s\":5}");
	assert_int_equal(step_validate(s, c, NULL, &e), 0);
	assert_string_equal(s->resolved[1], "vmscan:mm_vmscan_direct_reclaim_end");
	step_free(s);

	/* the filter: this process is live */
	{
		char json[256];
		snprintf(json, sizeof(json), "{\"kind\":\"sample\",\"duration_s\":1,\"freq_hz\":999,"
			 "\"filter\":{\"pid\":%d,\"tgid\":%d}}", (int)getpid(), (int)getpid());
		s = parse_ok(json);
		assert_int_equal(step_validate(s, c, NULL, &e), 0);
		step_free(s);
	}
	caps_free(c);
}

static void test_validate_kind(void **state)
{
	struct caps *c = fake_caps(1);
	struct step *s = parse_ok("{\"kind\":\"offcpu\",\"duration_s\":5}");
	struct step_error e;

	s->kind = (enum step_kind)42;
	assert_int_equal(step_validate(s, c, NULL, &e), -EINVAL);
	assert_string_equal(e.field, "kind");
	assert_contains(e.msg, "unknown kind 42; kinds: sample, tracepoint_stacks");
	step_free(s);

	caps_set_kind(c, STEP_FUNCTION_LATENCY, 0, "fentry refused by the kernel (load: EPERM), "
		      "no kprobes (kprobe PMU absent)");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"vfs_read\",\"duration_s\":5}", c, NULL,
		     "kind", "function_latency is not available on this kernel: fentry refused by "
		     "the kernel (load: EPERM), no kprobes (kprobe PMU absent); available: sample, "
		     "tracepoint_stacks, tracepoint_latency, offcpu, counts");
	caps_free(c);
}

static void test_validate_tracepoints(void **state)
{
	struct caps *c = fake_caps(1), *u = fake_caps(0);
	struct step_limits lim;

	validate_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"page_fault_usr\",\"duration_s\":5}",
		     c, NULL, "target", "unknown tracepoint 'page_fault_usr'; nearest: exceptions:page_fault_user");
	validate_err("{\"kind\":\"counts\",\"target\":[\"kmem:mm_page_alloc\",\"kmem:mm_page_alocc\"],"
		     "\"duration_s\":5}", c, NULL, "target[1]", "nearest: kmem:mm_page_alloc");
	validate_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"sched:page_fault_user\",\"duration_s\":5}",
		     c, NULL, "target", "nearest: exceptions:page_fault_user");
	validate_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"zzzz:qqqqqqqqqq\",\"duration_s\":5}",
		     c, NULL, "target", "unknown tracepoint 'zzzz:qqqqqqqqqq'; 'argus probes --list-tracepoints' lists them");
	validate_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"nosuch:*\",\"duration_s\":5}",
		     c, NULL, "target", "'nosuch:*' matches no tracepoint on this kernel");
	validate_err("{\"kind\":\"tracepoint_stacks\",\"target\":\"syscalls:sys_enter_read\",\"duration_s\":5}",
		     c, NULL, "target", "use raw_syscalls:sys_enter / raw_syscalls:sys_exit");
	validate_err("{\"kind\":\"counts\",\"target\":\"syscalls:*\",\"duration_s\":5}",
		     c, NULL, "target", "matches only events without a raw tracepoint");
	validate_err("{\"kind\":\"counts\",\"target\":\"kmem:mm page\",\"duration_s\":5}",
		     c, NULL, "target", "is not a tracepoint name");
	validate_err("{\"kind\":\"tracepoint_latency\",\"begin\":\"compaction:*\",\"end\":\"compaction:mm_compaction_end\","
		     "\"duration_s\":5}", c, NULL, "begin", "begin must name one tracepoint, not a pattern");
	validate_err("{\"kind\":\"tracepoint_latency\",\"begin\":\"compaction:mm_compaction_end\","
		     "\"end\":\"mm_compaction_end\",\"duration_s\":5}", c, NULL, "end", "same tracepoint");

	/* too many after expansion */
	step_limits_default(&lim);
	lim.max_targets = 1;
	validate_err("{\"kind\":\"counts\",\"target\":\"huge_memory:*\",\"duration_s\":5}",
		     c, &lim, "target", "the targets expand to 2 tracepoints; at most 1 per step");

	/* without tracefs categories: names match, category globs cannot */
	validate_err("{\"kind\":\"counts\",\"target\":\"huge_memory:*\",\"duration_s\":5}",
		     u, NULL, "target", "tracepoint categories are unknown without tracefs");
	{
		struct step *s = parse_ok("{\"kind\":\"counts\",\"target\":[\"*:page_fault_user\",\"kmem:mm_page_alloc\"],\"duration_s\":5}");
		struct step_error e;
		assert_int_equal(step_validate(s, u, NULL, &e), 0);
		assert_string_equal(s->resolved[0], "?:page_fault_user");
		assert_string_equal(s->resolved[1], "kmem:mm_page_alloc");
		step_free(s);
	}
	caps_free(c);
	caps_free(u);
}

static void test_validate_functions(void **state)
{
	struct caps *c = fake_caps(1);

	validate_err("{\"kind\":\"function_latency\",\"target\":\"do_read_fault\",\"duration_s\":5}", c, NULL,
		     "target", "function 'do_read_fault' cannot be traced: not traceable, inlined on this "
		     "kernel (into do_fault, which can be traced)");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"vfs_raed\",\"duration_s\":5}", c, NULL,
		     "target", "unknown function 'vfs_raed': not in kallsyms or BTF (misspelled, or inlined "
		     "away on this kernel); nearest: vfs_read");
	validate_err("{\"kind\":\"function_latency\",\"target\":[\"vfs_read\",\"btf_only_fn\"],\"duration_s\":5}",
		     c, NULL, "target[1]", "inlined on this kernel (in BTF but no symbol in kallsyms)");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"asm_only_fn\",\"duration_s\":5}", c, NULL,
		     "target", "cannot be traced with fentry: it has no BTF entry");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"opt_copy_fn\",\"duration_s\":5}", c, NULL,
		     "target", "only optimised copies");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"vfs_read.isra.0\",\"duration_s\":5}", c, NULL,
		     "target", "without its suffix: 'vfs_read'");
	validate_err("{\"kind\":\"function_latency\",\"target\":\"vfs_*\",\"duration_s\":5}", c, NULL,
		     "target", "exact function names, not patterns");
	caps_free(c);
}

static void test_validate_limits(void **state)
{
	struct caps *c = fake_caps(1);

	validate_err("{\"kind\":\"sample\",\"duration_s\":31}", c, NULL, "duration_s",
		     "duration_s 31 is over the limit of 30 seconds");
	validate_err("{\"kind\":\"sample\",\"duration_s\":0}", c, NULL, "duration_s",
		     "duration_s must be more than 0 seconds, not 0");
	validate_err("{\"kind\":\"sample\",\"duration_s\":-2}", c, NULL, "duration_s",
		     "more than 0 seconds, not -2");
	validate_err("{\"kind\":\"offcpu\",\"duration_s\":5,\"freq_hz\":99}", c, NULL, "freq_hz",
		     "freq_hz applies only to kind sample, not offcpu");
	validate_err("{\"kind\":\"counts\",\"target\":\"kmem:mm_page_alloc\",\"duration_s\":5,"
		     "\"sample_every\":10}", c, NULL, "sample_every", "applies only to tracepoint_stacks");
	validate_err("{\"kind\":\"offcpu\",\"duration_s\":5,\"duty\":0.5}", c, NULL, "duty",
		     "duty applies only to tracepoint_stacks and counts");
	caps_free(c);
}

/* duty: the part of each window attached (a duty cycle for the budget) */
static void test_duty(void **state)
{
	struct step *s = parse_ok("{\"kind\":\"counts\",\"target\":\"kmem:mm_page_alloc\","
				  "\"duration_s\":5,\"duty\":0.25}"), *b;
	struct step_error e;
	char buf[160], *j;

	assert_true(s->duty == 0.25);
	assert_string_equal(step_describe(s, buf, sizeof(buf)),
			    "counts kmem:mm_page_alloc 5s duty 0.25");
	j = step_to_json(s);
	assert_contains(j, "\"duty\":\t0.25");
	b = parse_ok(j);
	assert_true(b->duty == 0.25);
	free(j);
	step_free(b);
	assert_int_equal(step_set_field(s, "duty", "0.01", &e), -EINVAL);
	assert_string_equal(e.field, "duty");
	assert_int_equal(step_set_field(s, "duty", "abc", &e), -EINVAL);
	assert_int_equal(step_set_field(s, "duty", "0.6", &e), 0);
	assert_true(s->duty == 0.6);
	assert_int_equal(step_set_field(s, "duty", "", &e), 0);   /* all of each window */
	assert_true(s->duty == 0);
	j = step_to_json(s);
	assert_null(strstr(j, "duty"));
	free(j);
	step_free(s);
	s = NULL;
	{
		const char *bad = "{\"kind\":\"counts\",\"target\":\"a:b\",\"duration_s\":5,"
				  "\"duty\":1.5}";

		assert_int_equal(step_parse_json(bad, strlen(bad), &s, &e), -EINVAL);
	}
	assert_string_equal(e.field, "duty");
	step_free(s);
}

static void test_validate_filter(void **state)
{
	struct caps *c = fake_caps(1);
	char json[256], comm[32] = "";
	FILE *f;

	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"pid\":4000000}}", c, NULL,
		     "filter.pid", "filter.pid 4000000 names no live process or thread");
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"tgid\":4000000}}", c, NULL,
		     "filter.tgid", "filter.tgid 4000000 names no live process");
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"comm\":\"no-such-task9\"}}", c, NULL,
		     "filter.comm", "filter.comm 'no-such-task9' matches no running task");
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"cgroup\":\"no/such/cgroup\"}}", c, NULL,
		     "filter.cgroup", "no/such/cgroup");
	/* a cgroup filter resolves inside the cgroup2 mount and is a cgroup */
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"cgroup\":\"/etc\"}}", c, NULL,
		     "filter.cgroup", "is not a cgroup");
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"cgroup\":\"../../../../etc\"}}",
		     c, NULL, "filter.cgroup", "resolves to /etc, outside the cgroup2 mount");
	validate_err("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"cgroup\":\"../../../../proc/self\"}}",
		     c, NULL, "filter.cgroup", "outside the cgroup2 mount");
	{
		/* the root cgroup is a cgroup */
		struct step *s = parse_ok("{\"kind\":\"sample\",\"duration_s\":5,\"filter\":{\"cgroup\":\"/\"}}");
		struct step_error e;

		if (!access("/proc/mounts", R_OK))
			assert_int_equal(step_validate(s, c, NULL, &e), 0);
		step_free(s);
	}

	/* our own comm matches */
	f = fopen("/proc/self/comm", "r");
	assert_non_null(f);
	assert_non_null(fgets(comm, sizeof(comm), f));
	fclose(f);
	comm[strcspn(comm, "\n")] = 0;
	snprintf(json, sizeof(json), "{\"kind\":\"offcpu\",\"duration_s\":5,\"filter\":{\"comm\":\"%s\"}}", comm);
	{
		struct step *s = parse_ok(json);
		struct step_error e;
		assert_int_equal(step_validate(s, c, NULL, &e), 0);
		step_free(s);
	}
	caps_free(c);
}

static void test_caps_lookup(void **state)
{
	struct caps *c = fake_caps(1);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(caps_find_tracepoint(c, "exceptions", "page_fault_user"));
	assert_null(caps_find_tracepoint(c, "kmem", "page_fault_user"));
	assert_non_null(caps_find_tracepoint(c, NULL, "page_fault_user"));
	assert_non_null(caps_find_function(c, "vfs_read"));
	assert_null(caps_find_function(c, "vfs_rea"));
	assert_int_equal(caps_list_tracepoints(c, "huge_memory:", f), 2);
	assert_int_equal(caps_list_tracepoints(c, "*fault*", f), 2);
	assert_int_equal(caps_list_functions(c, "vfs_", f), 2);
	fclose(f);
	assert_contains(buf, "huge_memory:mm_collapse_huge_page\n");
	assert_contains(buf, "vfs_write\n");
	free(buf);
	caps_free(c);
	caps_free(NULL);
}

/* prompts/step.schema.json and the parser must agree: same keys, same kinds,
 * and every example in the schema parses. */
static void test_schema_matches_parser(void **state)
{
	FILE *f = fopen("prompts/step.schema.json", "r");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	cJSON *root, *props, *p, *kinds, *ex;
	unsigned nkinds = 0;

	if (!f)
		f = fopen("../prompts/step.schema.json", "r");
	if (!f) /* a shipped file: missing is a failure, not a skip */
		fail_msg("cannot open prompts/step.schema.json (run from the source tree)");
	do {
		char *t = realloc(text, cap += 65536);
		assert_non_null(t);
		text = t;
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n);
	fclose(f);
	text[len] = 0;
	root = cJSON_Parse(text);
	assert_non_null(root);
	props = cJSON_GetObjectItemCaseSensitive(root, "properties");
	assert_non_null(props);
	cJSON_ArrayForEach(p, props) {
		/* each property is a key the parser knows (the error would say "unknown key") */
		char json[512];
		struct step *s = NULL;
		struct step_error e;
		snprintf(json, sizeof(json), "{\"%s\": 12345}", p->string);
		step_parse_json(json, strlen(json), &s, &e);
		step_free(s);
		if (strstr(e.msg, "unknown key"))
			fail_msg("schema key '%s' is unknown to the parser", p->string);
	}
	kinds = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(props, "kind"), "enum");
	assert_non_null(kinds);
	cJSON_ArrayForEach(p, kinds) {
		assert_int_equal(step_kind_parse(p->valuestring), (int)nkinds);
		nkinds++;
	}
	assert_int_equal(nkinds, STEP_KIND_N);
	cJSON_ArrayForEach(ex, cJSON_GetObjectItemCaseSensitive(root, "examples")) {
		char *j = cJSON_PrintUnformatted(ex);
		struct step *s = parse_ok(j);
		step_free(s);
		free(j);
	}
	cJSON_Delete(root);
	free(text);
}

/* issue 13 item 2: a step is scoped to the diagnosed processes unless it
 * says scope system or names its own processes */
static void test_scope(void **state)
{
	const char *js = "{\"kind\":\"counts\",\"target\":\"exceptions:page_fault_user\","
			 "\"duration_s\":2}";
	struct step_scope cg = { .by = STEP_SCOPE_BY_CGROUP, .cgroup = "/sys/fs/cgroup/x/argus-9-1",
				 .tgid = 9, .what = "the load" };
	struct step_scope pid = { .by = STEP_SCOPE_BY_TGID, .tgid = 1234, .what = "PID 1234",
				  .no_reference = 1 };
	struct step_error e;
	struct step *s = NULL, *t = NULL;
	char buf[256], *txt;

	(void)state;
	assert_int_equal(step_parse_json(js, strlen(js), &s, &e), 0);
	assert_int_equal(s->scope, STEP_SCOPE_AUTO);
	/* no run scope: untouched, system-wide */
	assert_int_equal(step_scope_apply(NULL, s, &e), 0);
	assert_null(s->filter.cgroup);
	assert_non_null(strstr(step_scope_describe(s, NULL, buf, sizeof(buf)), "system-wide"));
	/* the load's cgroup goes into the filter; the card says whose and how to widen */
	assert_int_equal(step_scope_apply(&cg, s, &e), 0);
	assert_string_equal(s->filter.cgroup, cg.cgroup);
	assert_int_equal(s->scope, STEP_SCOPE_LOAD);
	step_scope_describe(s, &cg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "the load (cgroup argus-9-1)"));
	assert_non_null(strstr(buf, "scope=system widens it"));
	step_describe(s, buf, sizeof(buf));
	assert_string_equal(buf, "counts exceptions:page_fault_user scope=load 2s");
	/* recorded as run: scope and filter survive JSON */
	txt = step_to_json(s);
	assert_non_null(txt);
	assert_non_null(strstr(txt, "\"scope\""));
	assert_int_equal(step_parse_json(txt, strlen(txt), &t, &e), 0);
	assert_int_equal(t->scope, STEP_SCOPE_LOAD);
	assert_string_equal(t->filter.cgroup, cg.cgroup);
	free(txt);
	step_free(t);
	/* widening: scope=system clears the load's filter and is not refilled */
	assert_int_equal(step_set_field(s, "scope", "system", &e), 0);
	assert_null(s->filter.cgroup);
	assert_int_equal(step_scope_apply(&cg, s, &e), 0);
	assert_null(s->filter.cgroup);
	step_scope_describe(s, &cg, buf, sizeof(buf));
	assert_non_null(strstr(buf, "system-wide; scope=load narrows it to the load"));
	step_describe(s, buf, sizeof(buf));
	assert_non_null(strstr(buf, "scope=system"));
	/* and back: scope=load refills it from the run */
	assert_int_equal(step_set_field(s, "scope", "load", &e), 0);
	assert_int_equal(step_scope_apply(&cg, s, &e), 0);
	assert_string_equal(s->filter.cgroup, cg.cgroup);
	assert_int_equal(step_set_field(s, "scope", "everyone", &e), -EINVAL);
	assert_string_equal(e.field, "scope");
	/* scope load where the run has no processes: refused by its field */
	assert_int_equal(step_set_field(s, "scope", "load", &e), 0);
	assert_int_equal(step_scope_apply(NULL, s, &e), -EINVAL);
	assert_string_equal(e.field, "scope");
	step_free(s);
	/* -p without --pause: the tgid, and no reference said */
	assert_int_equal(step_parse_json(js, strlen(js), &s, &e), 0);
	assert_int_equal(step_scope_apply(&pid, s, &e), 0);
	assert_int_equal(s->filter.tgid, 1234);
	step_scope_describe(s, &pid, buf, sizeof(buf));
	assert_non_null(strstr(buf, "PID 1234 (tgid 1234)"));
	assert_non_null(strstr(buf, "no reference"));
	assert_non_null(strstr(step_scope_no_reference(&pid, buf, sizeof(buf)),
			       "this step has no reference: PID 1234 is not paused"));
	assert_string_equal(step_scope_no_reference(&cg, buf, sizeof(buf)), "");
	step_free(s);
	/* an agent's own process filter is kept */
	js = "{\"kind\":\"counts\",\"target\":\"x:y\",\"filter\":{\"tgid\":77},\"duration_s\":2}";
	assert_int_equal(step_parse_json(js, strlen(js), &s, &e), 0);
	assert_int_equal(step_scope_apply(&cg, s, &e), 0);
	assert_null(s->filter.cgroup);
	assert_int_equal(s->filter.tgid, 77);
	assert_int_equal(s->scope, STEP_SCOPE_AUTO);
	step_free(s);
	js = "{\"kind\":\"counts\",\"target\":\"x:y\",\"scope\":\"all\",\"duration_s\":2}";
	assert_int_equal(step_parse_json(js, strlen(js), &s, &e), -EINVAL);
	assert_string_equal(e.field, "scope");
}

static void test_edit_distance(void **state)
{
	assert_int_equal(step_edit_distance("kitten", "sitting", 10), 3);
	assert_int_equal(step_edit_distance("", "abc", 10), 3);
	assert_int_equal(step_edit_distance("abc", "abc", 10), 0);
	assert_int_equal(step_edit_distance("abcdefgh", "zzzzzzzz", 3), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_unknown_key),
		cmocka_unit_test(test_parse_missing),
		cmocka_unit_test(test_parse_types),
		cmocka_unit_test(test_parse_syntax_line_col),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_set_field),
		cmocka_unit_test(test_validate_good),
		cmocka_unit_test(test_validate_kind),
		cmocka_unit_test(test_validate_tracepoints),
		cmocka_unit_test(test_validate_functions),
		cmocka_unit_test(test_validate_limits),
		cmocka_unit_test(test_duty),
		cmocka_unit_test(test_validate_filter),
		cmocka_unit_test(test_caps_lookup),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_schema_matches_parser),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
