/* A duty-cycled window's per-thread times made exact from /proc
 * (core/probe/schedtime_wall): this test's own thread computes and then
 * sleeps between two fixes; the snapshot says the programs saw little of
 * it.  After the fix its on-CPU entry holds what the kernel counted
 * (checked against CLOCK_THREAD_CPUTIME_ID), its blocked placeholder the
 * sleep, a thread /proc has not counted before is scaled by wall /
 * attached time, and a snapshot attached all along is left as it is.
 * No privileges needed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <cmocka.h>

#include "probe/schedtime_wall.h"

static double clock_s(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct probe_schedtime_entry entry(uint32_t pid, uint32_t kind, uint32_t other, uint64_t ns)
{
	struct probe_schedtime_entry e;

	memset(&e, 0, sizeof(e));
	e.key.pid = pid;
	e.key.tgid = (uint32_t)getpid();
	e.key.kind = kind;
	e.key.other_kind = other;
	e.key.stack_id = 7;
	e.val.count = ns ? 10 : 0;
	e.val.total_ns = ns;
	e.val.hist[10] = ns ? 10 : 0;
	return e;
}

static const struct probe_schedtime_entry *find(const struct probe_schedtime_snap *s, uint32_t pid,
						uint32_t kind)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].key.pid == pid && s->e[i].key.kind == kind)
			return &s->e[i];
	return NULL;
}

static void test_fix(void **state)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid), ghost = 0x7ffffff0u;
	struct schedtime_wall_thread th[2] = { { .pid = tid, .tgid = (uint32_t)getpid() },
					       { .pid = ghost, .tgid = (uint32_t)getpid() } };
	struct schedtime_wall w = { 0 };
	struct probe_schedtime_snap *s = calloc(1, sizeof(*s));
	const struct probe_schedtime_entry *e;
	volatile double x = 0;
	double cpu0, wall0, cpu, wall;
	struct timespec nap = { 0, 80 * 1000 * 1000 };

	(void)state;
	assert_non_null(s);
	memcpy(th[0].comm, "self", 5);
	/* the first fix only counts (no earlier count: nothing to scale to) */
	s->e = calloc(4, sizeof(*s->e));
	assert_non_null(s->e);
	assert_int_equal(schedtime_wall_fix(&w, th, 2, s), 0);
	cpu0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
	wall0 = clock_s(CLOCK_MONOTONIC);
	while (clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0 < 0.05)
		x += 1;
	nanosleep(&nap, NULL);
	cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	wall = clock_s(CLOCK_MONOTONIC) - wall0;
	/* what the programs saw: 1 ms on-CPU, a blocked placeholder, and a
	 * thread /proc does not know (gone) with 2 ms blocked */
	s->e[0] = entry(tid, SCHEDTIME_ONCPU, SCHEDTIME_OTHER_NONE, 1000000);
	s->e[1] = entry(tid, SCHEDTIME_BLOCKED, SCHEDTIME_OTHER_NONE, 0);
	s->e[2] = entry(ghost, SCHEDTIME_BLOCKED, SCHEDTIME_OTHER_TASK, 2000000);
	s->n = 3;
	s->secs = wall;
	s->attached_secs = wall / 5;
	assert_int_equal(schedtime_wall_fix(&w, th, 2, s), 0);
	e = find(s, tid, SCHEDTIME_ONCPU);
	assert_non_null(e);
	/* the kernel's count, not the 1 ms seen nor 5 ms scaled */
	assert_true(fabs(e->val.total_ns / 1e9 - cpu) < 0.01);
	e = find(s, tid, SCHEDTIME_BLOCKED);
	assert_non_null(e);
	assert_int_equal(e->key.stack_id, 7); /* the placeholder's stack */
	assert_true(e->val.total_ns / 1e9 > 0.07 && e->val.total_ns / 1e9 < wall - cpu + 0.01);
	e = find(s, ghost, SCHEDTIME_BLOCKED);
	assert_non_null(e);
	assert_true(llabs((long long)e->val.total_ns - 10000000) < 1000); /* x5 */
	assert_int_equal(e->val.count, 50);
	free(s->e);

	/* attached all along: exact already, left as it is */
	s->e = calloc(1, sizeof(*s->e));
	assert_non_null(s->e);
	s->e[0] = entry(tid, SCHEDTIME_ONCPU, SCHEDTIME_OTHER_NONE, 1000000);
	s->n = 1;
	s->secs = s->attached_secs = 0.1;
	assert_int_equal(schedtime_wall_fix(&w, th, 2, s), 0);
	assert_int_equal(s->n, 1);
	assert_int_equal(s->e[0].val.total_ns, 1000000);
	probe_schedtime_snap_free(s);
	schedtime_wall_fini(&w);
	(void)x;
}

/* A thread the programs saw nothing of in the window (it ran and slept
 * only while they were detached) gets stackless entries of its times. */
static void test_unseen_thread(void **state)
{
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct schedtime_wall_thread th = { .pid = tid, .tgid = (uint32_t)getpid() };
	struct schedtime_wall w = { 0 };
	struct probe_schedtime_snap *s = calloc(1, sizeof(*s));
	const struct probe_schedtime_entry *e;
	struct timespec nap = { 0, 30 * 1000 * 1000 };
	double t0;

	(void)state;
	assert_non_null(s);
	memcpy(th.comm, "quiet", 6);
	assert_int_equal(schedtime_wall_fix(&w, &th, 1, s), 0);
	t0 = clock_s(CLOCK_MONOTONIC);
	nanosleep(&nap, NULL);
	s->secs = clock_s(CLOCK_MONOTONIC) - t0;
	s->attached_secs = s->secs / 4;
	assert_int_equal(schedtime_wall_fix(&w, &th, 1, s), 0);
	e = find(s, tid, SCHEDTIME_BLOCKED);
	assert_non_null(e);
	assert_int_equal(e->key.stack_id, SCHEDTIME_NO_STACK);
	assert_int_equal(e->key.other_kind, SCHEDTIME_OTHER_NONE);
	assert_string_equal(e->key.comm, "quiet");
	assert_true(e->val.total_ns / 1e9 > 0.025);
	probe_schedtime_snap_free(s);
	schedtime_wall_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fix),
		cmocka_unit_test(test_unseen_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
