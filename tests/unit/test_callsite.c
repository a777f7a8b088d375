/* verdict call sites (issue 27): from a profile's user frames to the
 * verdict's call_sites, their JSON and back. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "data/profile.h"
#include "data/verdict.h"

static const char *const kpath[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read",
				     "read_zero" };
static const char *const other[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_write" };
static const char *const site_a[] = { "main (prog)", "fill (prog)" };
static const char *const site_b[] = { "[ends in libc.so.6: no frame pointers]",
				      "read (libc.so.6)" };

/* ref 1 s, load 1 s: a rises by 300/s, b by 100/s, c (off the path) and a
 * falling site are left out. */
static struct profile *build(void)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	profile_window_end(p, 1, 1.0);
	assert_int_equal(profile_add_user(p, 0, kpath, 4, site_a, 2, 10, "prog", 50), 0);
	assert_int_equal(profile_add_user(p, 1, kpath, 4, site_a, 2, 10, "prog", 350), 0);
	assert_int_equal(profile_add_user(p, 1, kpath, 4, site_b, 2, 10, "prog", 100), 0);
	assert_int_equal(profile_add_user(p, 1, other, 3, site_a, 2, 10, "prog", 900), 0);
	/* the same kernel path under a site that fell: no call site of the rise */
	assert_int_equal(profile_add_user(p, 0, kpath, 4, site_b + 1, 1, 11, "q", 40), 0);
	/* kernel stacks without user frames count as their own group */
	assert_int_equal(profile_add(p, 1, kpath, 4, 12, "kw", 0), 0);
	return p;
}

static void fill_verdict(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->found = 1;
	for (unsigned i = 0; i < 3; i++) /* a prefix of the stacks' path */
		v->path[v->npath++] = strdup(kpath[i]);
}

static void test_fill(void **state)
{
	struct profile *p = build();
	struct verdict v;
	char buf[256];

	(void)state;
	fill_verdict(&v);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	assert_int_equal(v.ncallsites, 2);
	assert_int_equal(v.callsites[0].nframes, 2);
	assert_string_equal(v.callsites[0].frames[1], "fill (prog)");
	assert_true(fabs(v.callsites[0].rise - 300) < 1e-9);
	assert_true(fabs(v.callsites[0].share - 0.75) < 1e-9);
	assert_true(fabs(v.callsites[1].share - 0.25) < 1e-9);
	verdict_callsite_format(&v.callsites[1], 6, buf, sizeof(buf));
	assert_string_equal(buf, "read (libc.so.6) \u2190 [ends in libc.so.6: no frame pointers]");
	verdict_callsite_format(&v.callsites[0], 1, buf, sizeof(buf));
	assert_string_equal(buf, "fill (prog) \u2190 ...");
	verdict_clear(&v);

	/* excluding the process leaves only the falling one: none rose */
	fill_verdict(&v);
	assert_int_equal(verdict_callsites_fill(&v, p, 10), 0);
	assert_int_equal(v.ncallsites, 0);
	verdict_clear(&v);
	profile_free(p);
}

static void test_json_roundtrip(void **state)
{
	struct profile *p = build();
	struct verdict v, back;
	char *cause = NULL;
	cJSON *o;

	(void)state;
	fill_verdict(&v);
	v.leaf = strdup(kpath[2]);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	o = verdict_json_new(&v);
	assert_non_null(o);
	assert_non_null(cJSON_GetObjectItem(o, "call_sites"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o,
			    "call_sites"), 0), "site")->valuestring, "fill (prog) \u2190 main (prog)");
	assert_int_equal(verdict_json_parse(o, &back, &cause), 0);
	assert_int_equal(back.ncallsites, 2);
	assert_string_equal(back.callsites[1].frames[0], site_b[0]);
	assert_true(fabs(back.callsites[1].rise - 100) < 1e-9);
	/* a hostile one: frames not strings */
	cJSON_AddItemToArray(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(o,
			     "call_sites"), 0), "frames"), cJSON_CreateNumber(3));
	verdict_clear(&back);
	assert_int_equal(verdict_json_parse(o, &back, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	verdict_clear(&back);
	cJSON_Delete(o);
	verdict_clear(&v);
	profile_free(p);
}

/* A step's profile (a tracepoint_stacks step): kernel frames, the marker,
 * as core/probe/probe_tpstacks.c adds them, with user frames. */
static const char *const tps[] = { "entry_SYSCALL_64", "do_syscall_64", "syscall_trace_enter",
				   "[tp] raw_syscalls:sys_enter" };

static struct profile *build_step(void)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	profile_window_end(p, 1, 1.0);
	assert_int_equal(profile_add_user(p, 0, tps, 4, site_a, 2, 10, "prog", 10), 0);
	assert_int_equal(profile_add_user(p, 1, tps, 4, site_a, 2, 10, "prog", 1010), 0);
	return p;
}

static void path_set(struct verdict *v, const char *const *names, unsigned n)
{
	memset(v, 0, sizeof(*v));
	v->found = 1;
	for (unsigned i = 0; i < n; i++)
		v->path[v->npath++] = strdup(names[i]);
}

/* A verdict path through a step's node (the marker hung after the frames
 * the tree matched, or left out as the TUI's path does) finds the step's
 * user frames; the sampler's profile is asked first and wins when it has
 * call sites; paths that leave the stack's frames find none. */
static void test_fill_steps(void **state)
{
	static const char *const through[] = { "entry_SYSCALL_64", "do_syscall_64",
					       "[tp] raw_syscalls:sys_enter", "syscall_trace_enter" };
	static const char *const at_end[] = { "entry_SYSCALL_64", "do_syscall_64",
					      "syscall_trace_enter", "[tp] raw_syscalls:sys_enter" };
	static const char *const frames_only[] = { "entry_SYSCALL_64", "do_syscall_64",
						   "syscall_trace_enter" };
	static const char *const astray[] = { "entry_SYSCALL_64", "[tp] raw_syscalls:sys_enter",
					      "ksys_read" };
	static const char *const wrong_marker[] = { "entry_SYSCALL_64", "do_syscall_64",
						    "[tp] sched:sched_switch", "syscall_trace_enter" };
	struct profile *sp = build_step(), *p = build();
	const struct profile *steps[2] = { NULL, sp };
	struct verdict v;

	(void)state;
	path_set(&v, through, 4);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	assert_int_equal(v.ncallsites, 0); /* the sampler's stacks have no marker */
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_string_equal(v.callsites[0].frames[1], "fill (prog)");
	assert_true(fabs(v.callsites[0].rise - 1000) < 1e-9);
	verdict_clear(&v);

	path_set(&v, at_end, 4);
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	verdict_clear(&v);

	path_set(&v, frames_only, 3);
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	verdict_clear(&v);

	path_set(&v, astray, 3);
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 0);
	verdict_clear(&v);

	path_set(&v, wrong_marker, 4);
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 0);
	verdict_clear(&v);

	/* the sampler's profile first: its call sites, not the step's */
	path_set(&v, kpath, 3);
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 2);
	assert_true(fabs(v.callsites[0].rise - 300) < 1e-9);
	verdict_clear(&v);
	profile_free(sp);
	profile_free(p);
}

/* What the call sites cannot see (the BPF program counted samples whose
 * user stack could not be taken): the verdict says how many, of the
 * sampler's samples or of the step that gave the call sites, in its text
 * and its JSON, and an old verdict without the fields still reads. */
static void test_ustack_errors(void **state)
{
	static const char *const through[] = { "entry_SYSCALL_64", "do_syscall_64",
					       "[tp] raw_syscalls:sys_enter", "syscall_trace_enter" };
	struct profile *p = build(), *sp = build_step();
	const struct profile *steps[2] = { NULL, sp };
	struct verdict v, back;
	char gap[160], *cause = NULL;
	cJSON *o;

	(void)state;
	fill_verdict(&v);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	assert_int_equal(v.callsites_ustack_errors, 0);
	assert_int_equal(verdict_callsites_gap(&v, gap, sizeof(gap)), 0);
	assert_string_equal(gap, "");
	verdict_clear(&v);

	p->wins[0].ustack_errors = 5;
	p->wins[1].ustack_errors = 7;
	fill_verdict(&v);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	assert_int_equal(v.callsites_step, 0);
	assert_int_equal(v.callsites_ustack_errors, 12);
	assert_int_equal(v.callsites_samples, 50 + 350 + 100 + 900 + 40);
	assert_true(verdict_callsites_gap(&v, gap, sizeof(gap)) > 0);
	assert_string_equal(gap, "call sites: 12 of 1440 samples had no user stack (not taken)");
	o = verdict_json_new(&v);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "call_sites_source")->valuestring, "sampler");
	assert_string_equal(cJSON_GetObjectItem(o, "call_sites_unit")->valuestring, "samples");
	assert_int_equal(cJSON_GetObjectItem(o, "ustack_errors")->valuedouble, 12);
	assert_int_equal(cJSON_GetObjectItem(o, "ustack_samples")->valuedouble, 1440);
	assert_int_equal(verdict_json_parse(o, &back, &cause), 0);
	assert_int_equal(back.callsites_ustack_errors, 12);
	assert_int_equal(back.callsites_samples, 1440);
	verdict_clear(&back);
	/* an old session's verdict: no fields, nothing said */
	cJSON_DeleteItemFromObject(o, "ustack_errors");
	cJSON_DeleteItemFromObject(o, "ustack_samples");
	cJSON_DeleteItemFromObject(o, "call_sites_source");
	assert_int_equal(verdict_json_parse(o, &back, &cause), 0);
	assert_int_equal(back.callsites_ustack_errors, 0);
	assert_int_equal(verdict_callsites_gap(&back, gap, sizeof(gap)), 0);
	verdict_clear(&back);
	/* a hostile count */
	cJSON_AddNumberToObject(o, "ustack_errors", -1);
	assert_int_equal(verdict_json_parse(o, &back, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	verdict_clear(&back);
	cJSON_Delete(o);
	verdict_clear(&v);

	/* from a step: its own count, in events, and its number; its rises
	 * in its unit (an offcpu step's: microseconds blocked) */
	sp->wins[1].ustack_errors = 3;
	path_set(&v, through, 4);
	{
		const char *units[2] = { "samples", "us blocked" };

		assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, units, 2, 0), 0);
	}
	assert_string_equal(verdict_callsites_unit(&v), "us blocked");
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites_step, 2);
	assert_int_equal(v.callsites_ustack_errors, 3);
	assert_int_equal(v.callsites_samples, 0);
	verdict_callsites_gap(&v, gap, sizeof(gap));
	assert_string_equal(gap, "call sites (step 2): 3 events had no user stack (not taken)");
	o = verdict_json_new(&v);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "call_sites_source")->valuestring, "step");
	assert_int_equal(cJSON_GetObjectItem(o, "call_sites_step")->valuedouble, 2);
	assert_string_equal(cJSON_GetObjectItem(o, "call_sites_unit")->valuestring, "us blocked");
	assert_int_equal(verdict_json_parse(o, &back, &cause), 0);
	assert_int_equal(back.callsites_step, 2);
	assert_string_equal(verdict_callsites_unit(&back), "us blocked");
	verdict_clear(&back);
	/* an older session's step: events; a unit of none of the profiles'
	 * (it is shown as it is): refused */
	cJSON_DeleteItemFromObject(o, "call_sites_unit");
	assert_int_equal(verdict_json_parse(o, &back, &cause), 0);
	assert_string_equal(verdict_callsites_unit(&back), "events");
	verdict_clear(&back);
	cJSON_AddStringToObject(o, "call_sites_unit", "\x1b[2J");
	assert_int_equal(verdict_json_parse(o, &back, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	verdict_clear(&back);
	cJSON_Delete(o);
	verdict_clear(&v);

	/* no step gave any: the sampler's count stays */
	path_set(&v, other, 3);
	p->wins[1].ustack_errors = 7;
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 0);
	assert_int_equal(v.callsites_step, 0);
	verdict_clear(&v);
	profile_free(sp);
	profile_free(p);
}

/* The frame a step's stack is matched by: the offcpu step's waker marker
 * and the wall-clock tree's waker node read alike, nothing else changes. */
static void test_frame_key(void **state)
{
	static const struct {
		const char *in, *key;
	} cases[] = {
		{ "[offcpu] woken by hardirq timer", "woken by hardirq timer" },
		{ "[woken by hardirq timer]", "woken by hardirq timer" },
		{ "[offcpu] woken by softirq BLOCK", "woken by softirq BLOCK" },
		{ "[woken by softirq BLOCK]", "woken by softirq BLOCK" },
		{ "[offcpu] woken by hardirq 25", "woken by hardirq 25" },
		{ "[woken by hardirq 25]", "woken by hardirq 25" },
		{ "[offcpu] woken by a hardirq", "woken by hardirq" },
		{ "[woken by hardirq]", "woken by hardirq" },
		{ "[offcpu] no wakeup seen", "no wakeup seen" },
		{ "[no wakeup seen]", "no wakeup seen" },
		/* a task: the offcpu step's command line is its own */
		{ "[offcpu] woken by writer (tgid 12: /usr/bin/writer --fast)",
		  "woken by task writer (tgid 12)" },
		{ "[offcpu] woken by writer (tgid 12)", "woken by task writer (tgid 12)" },
		{ "[woken by task writer (tgid 12)]", "woken by task writer (tgid 12)" },
		{ "[woken by task writer (tgid 12) via softirq NET_RX]",
		  "woken by task writer (tgid 12) via softirq NET_RX" },
		/* not a waker, or no waker named: itself */
		{ "__schedule", "__schedule" },
		{ "[blocked]", "[blocked]" },
		{ "[offcpu] woken by ", "[offcpu] woken by " },
		{ "[woken by ]", "[woken by ]" },
		{ "[woken by hardirq timer", "[woken by hardirq timer" },
		{ "[tp] raw_syscalls:sys_enter", "[tp] raw_syscalls:sys_enter" },
		{ "", "" },
	};
	char k[128], tiny[8];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		verdict_callsite_frame_key(cases[i].in, k, sizeof(k));
		assert_string_equal(k, cases[i].key);
	}
	/* cut at the buffer, never past it */
	verdict_callsite_frame_key("[woken by task writer (tgid 12)]", tiny, sizeof(tiny));
	assert_string_equal(tiny, "woken b");
}

/* A wall-clock verdict through blocked time (core/model/timeacct.c: the
 * blocked stacks have no user frames, the on-CPU ones have) and an offcpu
 * step over the same wait: the sampler's call sites are "(no user stack)"
 * alone, so the step's are the verdict's, its marker "[offcpu] woken by
 * hardirq timer" on the path's "[woken by hardirq timer]". */
static const char *const wall_blocked[] = { "[blocked]", "entry_SYSCALL_64", "do_syscall_64",
					    "do_nanosleep", "__schedule",
					    "[woken by hardirq timer]" };
static const char *const wall_oncpu[] = { "[on-cpu]", "entry_SYSCALL_64", "do_syscall_64",
					  "ksys_read", "read_zero" };
static const char *const wall_path[] = { "entry_SYSCALL_64", "do_syscall_64", "do_nanosleep",
					 "__schedule", "[woken by hardirq timer]" };
static const char *const site_nap[] = { "main (prog)", "fill (prog)", "nap_raw (prog)" };

static struct profile *build_wall(void)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	profile_window_end(p, 1, 1.0);
	assert_int_equal(profile_add(p, 1, wall_blocked, 6, 10, "prog", 900), 0);
	assert_int_equal(profile_add_user(p, 1, wall_oncpu, 5, site_a, 2, 10, "prog", 20), 0);
	p->wins[1].ustack_errors = 4;
	return p;
}

static struct profile *build_offcpu(const char *marker, int user)
{
	const char *fr[] = { "entry_SYSCALL_64", "do_syscall_64", "do_nanosleep", "__schedule",
			     marker };
	struct profile *p = profile_new();

	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	profile_window_end(p, 0, 1.0);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 1), 1);
	profile_window_end(p, 1, 1.0);
	if (user)
		assert_int_equal(profile_add_user(p, 1, fr, 5, site_nap, 3, 10, "prog", 5000), 0);
	else /* on the path without user frames, beside a stack with them */
		assert_int_equal(profile_add(p, 1, fr, 5, 10, "prog", 5000) ||
				 profile_add_user(p, 1, other, 3, site_a, 2, 10, "prog", 10), 0);
	return p;
}

static void test_fill_steps_wall(void **state)
{
	struct profile *p = build_wall();
	struct profile *off = build_offcpu("[offcpu] woken by hardirq timer", 1);
	struct profile *other_waker = build_offcpu("[offcpu] woken by softirq TIMER", 1);
	struct profile *nouser = build_offcpu("[offcpu] woken by hardirq timer", 0);
	const struct profile *steps[2] = { NULL, off };
	struct verdict v;

	(void)state;
	/* the sampler alone: one call site, no user frame */
	path_set(&v, wall_path, 5);
	assert_int_equal(verdict_callsites_fill(&v, p, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites[0].nframes, 0);
	verdict_clear(&v);

	/* with the offcpu step: its user frames, its number, its counts */
	path_set(&v, wall_path, 5);
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites[0].nframes, 3);
	assert_string_equal(v.callsites[0].frames[2], "nap_raw (prog)");
	assert_true(fabs(v.callsites[0].rise - 5000) < 1e-9);
	assert_int_equal(v.callsites_step, 2);
	assert_int_equal(v.callsites_ustack_errors, 0);
	assert_int_equal(v.callsites_samples, 0);
	verdict_clear(&v);

	/* the path without its waker node (the TUI's: frames only) too */
	path_set(&v, wall_path, 4);
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.callsites_step, 2);
	assert_int_equal(v.callsites[0].nframes, 3);
	verdict_clear(&v);

	/* another waker is another node: the sampler's "(no user stack)" stays,
	 * with the sampler's counts */
	steps[1] = other_waker;
	path_set(&v, wall_path, 5);
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites[0].nframes, 0);
	assert_int_equal(v.callsites_step, 0);
	assert_int_equal(v.callsites_ustack_errors, 4);
	assert_int_equal(v.callsites_samples, 920);
	verdict_clear(&v);

	/* a step without user frames on the path either: the first found, the
	 * sampler's */
	steps[1] = nouser;
	path_set(&v, wall_path, 5);
	assert_int_equal(verdict_callsites_fill_steps(&v, p, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites[0].nframes, 0);
	assert_int_equal(v.callsites_step, 0);
	assert_int_equal(v.callsites_ustack_errors, 4);
	verdict_clear(&v);

	/* ... and with no sampler's profile, the step's "(no user stack)" */
	path_set(&v, wall_path, 5);
	assert_int_equal(verdict_callsites_fill_steps(&v, NULL, steps, NULL, 2, 0), 0);
	assert_int_equal(v.ncallsites, 1);
	assert_int_equal(v.callsites[0].nframes, 0);
	assert_int_equal(v.callsites_step, 2);
	verdict_clear(&v);

	/* the first step names none, the second does: the second's */
	{
		const struct profile *two[2] = { nouser, off };

		path_set(&v, wall_path, 5);
		assert_int_equal(verdict_callsites_fill_steps(&v, p, two, NULL, 2, 0), 0);
		assert_int_equal(v.callsites_step, 2);
		assert_int_equal(v.callsites[0].nframes, 3);
		verdict_clear(&v);
	}
	profile_free(nouser);
	profile_free(other_waker);
	profile_free(off);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fill),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_fill_steps),
		cmocka_unit_test(test_ustack_errors),
		cmocka_unit_test(test_frame_key),
		cmocka_unit_test(test_fill_steps_wall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
