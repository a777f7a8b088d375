/* test_load_pace — a load's pace read from /proc (core/host/load_pace.c): a
 * child that writes and sleeps a known number of times is counted exactly
 * that many read/write calls (with its two on the pipes), and about that
 * many switch-ins: each sleep blocks, a switch out and, its timer
 * expired, a switch in, and preemptions add.  About: 501 in 150 runs
 * here, idle, under ASan and beside two CPU hogs, but an earlier form of
 * this test that asked for at least 500 failed 3 of 14 times inside full
 * suite runs, by an amount it did not print (a sleep whose timer fires
 * before the task gives up the CPU does not switch); now at least 90%,
 * and the count is printed when it is not.  The first read counts nothing,
 * each later one what happened since the last; a load gone counts
 * nothing. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/load.h"
#include "host/load_pace.h"

#define ROUNDS 500

/* A child that, for each byte it reads, writes to /dev/null and sleeps
 * ROUNDS times and answers a byte: ROUNDS + 2 read/write calls. */
static pid_t sleeper_child(int *to, int *from)
{
	int a[2], b[2];
	pid_t pid;

	assert_int_equal(pipe(a), 0);
	assert_int_equal(pipe(b), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char c;

		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		close(a[1]);
		close(b[0]);
		while (null >= 0 && read(a[0], &c, 1) == 1) {
			for (int i = 0; i < ROUNDS; i++) {
				if (write(null, &c, 1) != 1)
					_exit(1);
				usleep(100);
			}
			if (write(b[1], &c, 1) != 1)
				break;
		}
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	*to = a[1];
	*from = b[0];
	return pid;
}

/* Lets the child sleep its ROUNDS and waits for its answer. */
static void sleep_rounds(int to, int from)
{
	char c = 'x';

	assert_int_equal(write(to, &c, 1), 1);
	assert_int_equal(read(from, &c, 1), 1);
}

static void test_counts_the_blocks(void **state)
{
	int to, from;
	pid_t pid = sleeper_child(&to, &from);
	struct load *l = load_attach_pid(pid, NULL);
	struct load_pace *p = load_pace_new();
	struct load_pace_delta d = { 1, 1 };

	(void)state;
	assert_non_null(l);
	assert_non_null(p);
	assert_int_equal(load_pace_read(p, l, &d), 0);
	assert_int_equal(d.rw_calls, 0); /* a first read */
	assert_int_equal(d.switches, 0);
	for (int round = 0; round < 2; round++) { /* each read counts since the last */
		sleep_rounds(to, from);
		assert_int_equal(load_pace_read(p, l, &d), 0);
		assert_int_equal(d.rw_calls, ROUNDS + 2);
		if (d.switches < ROUNDS * 9 / 10 || d.switches > 2 * ROUNDS + 4)
			fail_msg("%llu switch-ins for %d sleeps", (unsigned long long)d.switches, ROUNDS);
	}
	close(to);
	close(from);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* gone: no thread to read (an error or none) */
	assert_true(load_pace_read(p, l, &d) <= 0);
	assert_int_equal(d.rw_calls, 0);
	assert_int_equal(d.switches, 0);
	load_pace_free(p);
	load_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_the_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
