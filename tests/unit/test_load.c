/* test_load — spawn, pause, resume and stop loads (core/host/load.c). */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "host/load.h"

static char proc_state(pid_t pid)
{
	char path[64], buf[512], *p, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		st = p[2];
	fclose(f);
	return st;
}

/* how long a wait for another process (its resume, its children's exec)
 * may take before it is a failure: 10 s, for a machine busy enough that the
 * process is not scheduled for a while; a wait ends as soon as it is met */
#define WAIT_MS 10000

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void test_spawn_pause_resume_stop(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	char *cause = NULL;
	struct load *l;
	uint32_t tg[8];
	char buf[64];
	pid_t pid;
	int st;

	(void)state;
	l = load_spawn(argv, 0, &cause);
	assert_non_null(l);
	assert_null(cause);
	pid = load_pid(l);
	assert_true(pid > 0);
	assert_string_equal(load_state(l, buf, sizeof(buf)), "not started");
	assert_int_equal(load_start(l, &cause), 0);
	assert_null(cause);
	assert_true(load_alive(l));
	assert_int_equal(load_tgids(l, tg, 8), 1);
	assert_int_equal(tg[0], (uint32_t)pid);
	assert_int_equal(load_exit_status(l, &st), -EAGAIN);

	assert_int_equal(load_pause(l), 0);
	assert_true(load_paused(l));
	assert_string_equal(load_state(l, buf, sizeof(buf)), "paused");
	if (!load_has_cgroup(l))
		assert_int_equal(proc_state(pid), 'T');
	assert_int_equal(load_resume(l), 0);
	assert_false(load_paused(l));
	assert_string_equal(load_state(l, buf, sizeof(buf)), "running");

	/* Stopping a paused load resumes it first, then ends it. */
	assert_int_equal(load_pause(l), 0);
	assert_int_equal(load_stop(l), 0);
	assert_false(load_alive(l));
	assert_int_equal(load_exit_status(l, &st), 0);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGTERM);
	assert_int_equal(kill(pid, 0), -1);
	load_free(l);
}

static void test_no_cgroup_uses_signals(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	struct load *l;
	pid_t pid;

	(void)state;
	l = load_spawn(argv, LOAD_F_NO_CGROUP, NULL);
	assert_non_null(l);
	assert_false(load_has_cgroup(l));
	assert_int_equal(load_start(l, NULL), 0);
	pid = load_pid(l);
	assert_int_equal(load_pause(l), 0);
	assert_int_equal(proc_state(pid), 'T');
	assert_int_equal(load_resume(l), 0);
	for (int i = 0; i < WAIT_MS && proc_state(pid) == 'T'; i++)
		sleep_ms(1);
	assert_int_not_equal(proc_state(pid), 'T');
	load_free(l);
	assert_int_equal(kill(pid, 0), -1);
}

static void test_exec_failure(void **state)
{
	char *argv[] = { "argus-no-such-command-xyz", NULL };
	char *abs[] = { "/nonexistent/argus-cmd", NULL };
	char *cause = NULL;
	struct load *l;

	(void)state;
	errno = 0;
	l = load_spawn(argv, 0, &cause);
	assert_null(l);
	assert_int_equal(errno, ENOENT);
	assert_non_null(cause);
	assert_string_equal(cause, "cannot run 'argus-no-such-command-xyz': No such file or directory");
	free(cause);
	cause = NULL;
	l = load_spawn(abs, 0, &cause);
	assert_null(l);
	assert_int_equal(errno, ENOENT);
	assert_string_equal(cause, "cannot run '/nonexistent/argus-cmd': No such file or directory");
	free(cause);
}

static void test_exec_failure_after_fork(void **state)
{
	/* A directory passes access(X_OK) but execv refuses it: reported
	 * through the CLOEXEC pipe at load_start. */
	char *argv[] = { "/tmp", NULL };
	char *cause = NULL;
	struct load *l;
	int st;

	(void)state;
	l = load_spawn(argv, 0, &cause);
	assert_non_null(l);
	assert_int_equal(load_start(l, &cause), -EACCES);
	assert_non_null(cause);
	assert_string_equal(cause, "cannot run '/tmp': Permission denied");
	free(cause);
	assert_int_equal(load_exit_status(l, &st), 0);
	assert_int_equal(WEXITSTATUS(st), 127);
	load_free(l);
}

static void test_attach_dead_pid(void **state)
{
	char *cause = NULL;
	struct load *l;
	pid_t pid;
	char want[64];

	(void)state;
	pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	l = load_attach_pid(pid, &cause);
	assert_null(l);
	assert_int_equal(errno, ESRCH);
	snprintf(want, sizeof(want), "no process with PID %d", (int)pid);
	assert_string_equal(cause, want);
	free(cause);
}

static void test_attach_pause_resume_never_kills(void **state)
{
	struct load *l;
	pid_t pid;
	int st;

	(void)state;
	pid = fork();
	if (pid == 0) {
		execlp("sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	l = load_attach_pid(pid, NULL);
	assert_non_null(l);
	assert_true(load_alive(l));
	assert_int_equal(load_pause(l), 0);
	assert_int_equal(proc_state(pid), 'T');
	load_registry_cleanup();              /* resumes, never kills */
	for (int i = 0; i < WAIT_MS && proc_state(pid) == 'T'; i++)
		sleep_ms(1);
	assert_int_not_equal(proc_state(pid), 'T');
	assert_int_equal(kill(pid, 0), 0);
	assert_int_equal(load_exit_status(l, &st), -ECHILD);
	load_free(l);
	assert_int_equal(kill(pid, 0), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void test_registry_cleanup_ends_owned(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 30 & sleep 30; wait", NULL };
	struct load *l;
	uint32_t tg[8];
	pid_t pid;
	int n;

	(void)state;
	l = load_spawn(argv, 0, NULL);
	assert_non_null(l);
	assert_int_equal(load_start(l, NULL), 0);
	pid = load_pid(l);
	for (int i = 0; i < WAIT_MS / 2 && (n = load_tgids(l, tg, 8)) < 3; i++)
		sleep_ms(2);
	assert_int_equal(load_tgids(l, tg, 8), 3);
	assert_int_equal(load_pause(l), 0);
	load_registry_cleanup();
	assert_false(load_alive(l));
	assert_int_equal(kill(pid, 0), -1);
	for (int i = 0; i < 3; i++)
		assert_true(kill((pid_t)tg[i], 0) == -1 || proc_state((pid_t)tg[i]) == 'Z');
	load_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spawn_pause_resume_stop),
		cmocka_unit_test(test_no_cgroup_uses_signals),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_exec_failure_after_fork),
		cmocka_unit_test(test_attach_dead_pid),
		cmocka_unit_test(test_attach_pause_resume_never_kills),
		cmocka_unit_test(test_registry_cleanup_ends_owned),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
