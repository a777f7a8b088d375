/* probe: CPU list parsing, the shared-struct layout, and the privilege
 * message as an unprivileged process would see it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <grp.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <errno.h>

#include <linux/types.h>
#include "../../bpf/profile.h"
#include "probe/probe.h"

static void test_cpulist(void **state)
{
	int v[16];

	(void)state;
	assert_int_equal(probe_parse_cpulist("0-3,8,10-11\n", v, 16), 7);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[3], 3);
	assert_int_equal(v[4], 8);
	assert_int_equal(v[5], 10);
	assert_int_equal(v[6], 11);
	assert_int_equal(probe_parse_cpulist("0", v, 16), 1);
	assert_int_equal(v[0], 0);
	assert_int_equal(probe_parse_cpulist("5-6", v, 1), 2); /* counts past max */
	assert_int_equal(v[0], 5);
	assert_int_equal(probe_parse_cpulist("", v, 16), 0);
	assert_int_equal(probe_parse_cpulist("3-1", v, 16), -EINVAL);
	assert_int_equal(probe_parse_cpulist("a", v, 16), -EINVAL);
	assert_int_equal(probe_parse_cpulist("1-", v, 16), -EINVAL);
	assert_int_equal(probe_parse_cpulist("1;2", v, 16), -EINVAL);
}

static void test_online(void **state)
{
	int *cpus = NULL, n;

	(void)state;
	n = probe_online_cpus(&cpus);
	assert_true(n >= 1);
	assert_non_null(cpus);
	assert_int_equal(n, (int)sysconf(_SC_NPROCESSORS_ONLN));
	free(cpus);
}

static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct profile_key), 28);
	assert_int_equal(offsetof(struct profile_key, ustack_id), 4);
	assert_int_equal(offsetof(struct profile_key, tgid), 8);
	assert_int_equal(offsetof(struct profile_key, comm), 12);
	assert_int_equal(sizeof(struct profile_counters) % 8, 0);
}

/* As root, check it from a child that dropped to nobody (no capabilities). */
static void test_priv_message(void **state)
{
	char *cause = NULL;
	int err, st;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		err = probe_check_privileges(&cause);
		if (err == 0) {
			printf("# an unprivileged user with CAP_BPF and CAP_PERFMON: no refusal to see\n");
			skip();
		}
		assert_int_equal(err, -EPERM);
		assert_non_null(strstr(cause, "CAP_BPF and CAP_PERFMON"));
		free(cause);
		return;
	}
	assert_int_equal(probe_check_privileges(&cause), 0);
	assert_null(cause);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(2);
		err = probe_check_privileges(&cause);
		_exit(err == -EPERM && cause && strstr(cause, "needs root, or CAP_BPF and CAP_PERFMON")
		      ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_priv_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
