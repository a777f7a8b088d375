/* Identity from /proc: cgroup paths, unit and container ids, kernel thread
 * roles, and this test process itself (a real /proc). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <sys/wait.h>

#include "data/procinfo.h"
#include "data/profile.h"

static void test_cgroup_path(void **state)
{
	char *p;

	(void)state;
	p = procinfo_cgroup_path("0::/system.slice/nginx.service\n");
	assert_string_equal(p, "/system.slice/nginx.service");
	free(p);
	p = procinfo_cgroup_path("9:name=systemd:/user.slice/x.scope\n4:memory:/a\n");
	assert_string_equal(p, "/user.slice/x.scope");
	free(p);
	/* v2 wins over the named v1 hierarchy */
	p = procinfo_cgroup_path("9:name=systemd:/old\n0::/new\n");
	assert_string_equal(p, "/new");
	free(p);
	assert_null(procinfo_cgroup_path("4:memory:/a\n"));
	assert_null(procinfo_cgroup_path(""));
}

static void test_cgroup_parse(void **state)
{
	char unit[128], cid[16];

	(void)state;
	procinfo_cgroup_parse("/system.slice/nginx.service", unit, sizeof(unit), cid, sizeof(cid));
	assert_string_equal(unit, "nginx.service");
	assert_string_equal(cid, "");
	procinfo_cgroup_parse("/system.slice/docker-0123456789abcdef0123456789abcdef"
			      "0123456789abcdef0123456789abcdef.scope", unit, sizeof(unit),
			      cid, sizeof(cid));
	assert_string_equal(cid, "0123456789ab");
	assert_non_null(strstr(unit, "docker-0123"));
	procinfo_cgroup_parse("/kubepods/burstable/pod1/cri-containerd-"
			      "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210.scope",
			      unit, sizeof(unit), cid, sizeof(cid));
	assert_string_equal(cid, "fedcba987654");
	procinfo_cgroup_parse("/docker/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			      unit, sizeof(unit), cid, sizeof(cid));
	assert_string_equal(cid, "aaaaaaaaaaaa");
	assert_string_equal(unit, "");
	/* 65 hex digits are not an id */
	procinfo_cgroup_parse("/x/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
			      unit, sizeof(unit), cid, sizeof(cid));
	assert_string_equal(cid, "");
	/* the service inside a user slice, not the slice */
	procinfo_cgroup_parse("/user.slice/user-0.slice/session-3.scope", unit, sizeof(unit),
			      cid, sizeof(cid));
	assert_string_equal(unit, "session-3.scope");
	procinfo_cgroup_parse("/", unit, sizeof(unit), cid, sizeof(cid));
	assert_string_equal(unit, "");
}

static void test_kthread_role(void **state)
{
	(void)state;
	assert_string_equal(procinfo_kthread_role("kworker/3:1H"), "kworker");
	assert_string_equal(procinfo_kthread_role("ksoftirqd/0"), "softirq");
	assert_string_equal(procinfo_kthread_role("jbd2/vda-8"), "journal");
	assert_null(procinfo_kthread_role("bash"));
}

static void *idle_thread(void *arg)
{
	pthread_barrier_t *b = arg;

	pthread_barrier_wait(b);
	pthread_barrier_wait(b);
	return NULL;
}

static void test_self(void **state)
{
	struct procinfo pi;
	pthread_barrier_t b;
	pthread_t th[2];
	char names[8][16];
	unsigned counts[8];
	int n, found = 0;

	(void)state;
	assert_int_equal(procinfo_read((uint32_t)getpid(), &pi), 0);
	assert_int_equal(pi.tgid, (uint32_t)getpid());
	assert_string_equal(pi.comm, "test_procinfo");
	assert_non_null(strstr(pi.exe, "test_procinfo"));
	assert_non_null(strstr(pi.cmdline, "test_procinfo"));
	assert_int_equal(pi.kthread, 0);
	assert_null(pi.role);
	procinfo_clear(&pi);

	pthread_barrier_init(&b, NULL, 3);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(pthread_create(&th[i], NULL, idle_thread, &b), 0);
		pthread_setname_np(th[i], "pi-worker");
	}
	pthread_barrier_wait(&b);
	n = procinfo_thread_names((uint32_t)getpid(), names, counts, 8);
	assert_int_equal(n, 2);
	for (int i = 0; i < n; i++)
		if (!strcmp(names[i], "pi-worker")) {
			assert_int_equal(counts[i], 2);
			found = 1;
		}
	assert_true(found);
	pthread_barrier_wait(&b);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&b);
}

static void test_kernel_thread(void **state)
{
	struct procinfo pi;

	(void)state;
	/* PID 2 is kthreadd on Linux, unless in a PID namespace */
	if (procinfo_read(2, &pi))
		skip();
	if (!pi.kthread) {
		procinfo_clear(&pi);
		skip();
	}
	assert_string_equal(pi.comm, "kthreadd");
	assert_string_equal(pi.role, "kthreadd");
	assert_string_equal(pi.exe, "");
	assert_string_equal(pi.cmdline, "");
	procinfo_clear(&pi);
	assert_int_equal(procinfo_read(0x7ffffff0u, &pi), -ESRCH);
	procinfo_clear(NULL);
}

/* A profile's processes are identified once each, while they run: this
 * process (its command line and executable), kthreadd (a kernel thread, by
 * role); a process that has exited keeps the comm the sampler saw; argus's
 * own (skip_tgid) and tgid 0 are left out; a second capture reads only new
 * stacks. */
static void test_profile_capture(void **state)
{
	static const char *const fr[] = { "a", "b" }, *const fr2[] = { "c" };
	struct profile *p = profile_new();
	const struct profile_ident *id;
	pid_t gone = fork();

	(void)state;
	assert_true(gone >= 0);
	if (!gone)
		_exit(0);
	assert_int_equal(waitpid(gone, NULL, 0), gone);
	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	assert_int_equal(profile_add(p, 0, fr, 2, (uint32_t)getpid(), "test_procinfo", 5), 0);
	assert_int_equal(profile_add(p, 0, fr2, 1, (uint32_t)getpid(), "test_procinfo", 5), 0);
	assert_int_equal(profile_add(p, 0, fr, 2, (uint32_t)gone, "shortlived", 1), 0);
	assert_int_equal(profile_add(p, 0, fr, 2, 0, "swapper/0", 9), 0);
	assert_int_equal(profile_add(p, 0, fr, 2, 4242424, "argus", 9), 0);
	assert_int_equal(procinfo_profile_capture(p, 4242424), 1);
	assert_int_equal(p->nidents, 2);
	id = profile_ident_find(p, (uint32_t)getpid());
	assert_non_null(id);
	assert_non_null(strstr(id->cmdline, "test_procinfo"));
	assert_non_null(strstr(id->exe, "test_procinfo"));
	assert_int_equal(id->kthread, 0);
	assert_true(*id->threads);
	id = profile_ident_find(p, (uint32_t)gone);
	assert_non_null(id);
	assert_string_equal(id->comm, "shortlived");
	assert_string_equal(id->cmdline, "");
	assert_null(profile_ident_find(p, 0));
	assert_null(profile_ident_find(p, 4242424));
	/* only the new stacks: kthreadd (pid 2) */
	assert_int_equal(procinfo_profile_capture(p, 0), 0);
	assert_int_equal(profile_add(p, 0, fr2, 1, 2, "kthreadd", 1), 0);
	if (access("/proc/2/stat", R_OK) == 0) {
		assert_int_equal(procinfo_profile_capture(p, 0), 1);
		id = profile_ident_find(p, 2);
		assert_non_null(id);
		assert_int_equal(id->kthread, 1);
		assert_string_equal(id->cmdline, "");
	}
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_path),
		cmocka_unit_test(test_cgroup_parse),
		cmocka_unit_test(test_kthread_role),
		cmocka_unit_test(test_self),
		cmocka_unit_test(test_kernel_thread),
		cmocka_unit_test(test_profile_capture),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
