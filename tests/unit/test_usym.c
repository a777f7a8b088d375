/* usym: the user-space symbolizer on real binaries — this process's
 * Debian libc (no frame pointers), a Debian program (/usr/bin/sleep,
 * stripped to .dynsym) that exits before its stack is symbolized, and the
 * scenario callsite built with and without frame pointers. */
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
#include <unistd.h>
#include <cmocka.h>

#include "probe/usym.h"

static const char *scen(const char *name)
{
	static char path[4096];
	const char *root = getenv("ROOT");

	snprintf(path, sizeof(path), "%s/build/scenarios/%s", root ? root : ".", name);
	return path;
}

static pid_t spawn(const char *path, const char *arg1, const char *arg2)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(path, path, arg1, arg2, (char *)NULL);
		_exit(127);
	}
	usleep(200 * 1000); /* exec'd by then: its maps are the program's */
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int has(char **names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (strstr(names[i], s))
			return 1;
	return 0;
}

/* Debian's libc keeps no frame pointer in read(): the stack is cut after
 * it, with the reason, and nothing past it is named. */
static void test_libc_cut(void **state)
{
	struct usym *u = usym_new();
	uint64_t rd = 0, ips[3];
	char **names = NULL;
	int n;

	(void)state;
	assert_non_null(u);
	assert_int_equal(usym_find_symbol(u, (uint32_t)getpid(), "__libc_read", &rd), 0);
	assert_int_equal(usym_has_frame_pointer(u, (uint32_t)getpid(), rd), 0);
	/* leaf in read, then what a frame-pointer walk would have found */
	ips[0] = rd + 8;
	ips[1] = (uint64_t)(uintptr_t)&test_libc_cut + 16;
	ips[2] = 0;
	n = usym_stack(u, (uint32_t)getpid(), NULL, ips, 3, &names);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "[ends in libc.so.6: no frame pointers]");
	assert_true(strstr(names[1], "read") && strstr(names[1], "(libc.so.6)"));
	assert_false(has(names, n, "test_libc_cut"));
	usym_names_free(names, (unsigned)n);
	usym_free(u);
}

/* The same function built with and without frame pointers. */
static void test_frame_pointers(void **state)
{
	struct usym *u = usym_new();
	const char *fns[] = { "callsite_read_raw", "callsite_fill", "callsite_run", "main" };
	pid_t fp, nofp;
	uint64_t a;

	(void)state;
	if (access(scen("callsite_fp"), X_OK) || access(scen("callsite"), X_OK))
		skip();
	assert_non_null(u);
	fp = spawn(scen("callsite_fp"), "--seconds", "5");
	nofp = spawn(scen("callsite"), "--seconds", "5");
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		assert_int_equal(usym_find_symbol(u, (uint32_t)fp, fns[i], &a), 0);
		assert_int_equal(usym_has_frame_pointer(u, (uint32_t)fp, a), 1);
		assert_int_equal(usym_find_symbol(u, (uint32_t)nofp, fns[i], &a), 0);
		assert_int_equal(usym_has_frame_pointer(u, (uint32_t)nofp, a), 0);
	}
	reap(fp);
	reap(nofp);
	usym_free(u);
}

/* A chain of the fp build resolves to its own functions, root first,
 * ending where the kernel's walk would (main's caller is glibc's). */
static void test_fp_chain(void **state)
{
	struct usym *u = usym_new();
	const char *fns[] = { "callsite_read_raw", "callsite_read_zero", "callsite_fill",
			      "callsite_run", "main" };
	uint64_t ips[6] = { 0 };
	char **names = NULL;
	pid_t pid;
	int n;

	(void)state;
	if (access(scen("callsite_fp"), X_OK))
		skip();
	assert_non_null(u);
	pid = spawn(scen("callsite_fp"), "--seconds", "5");
	for (int i = 0; i < 5; i++) {
		assert_int_equal(usym_find_symbol(u, (uint32_t)pid, fns[i], &ips[i]), 0);
		ips[i] += i ? 9 : 20; /* the leaf past its prologue; return addresses */
	}
	n = usym_stack(u, (uint32_t)pid, NULL, ips, 5, &names);
	assert_int_equal(n, 6);
	for (int i = 0; i < 5; i++) {
		char want[64];

		snprintf(want, sizeof(want), "%s (callsite_fp)", fns[4 - i]);
		assert_string_equal(names[i + 1], want);
	}
	/* main is no first function and the walk stopped there */
	assert_string_equal(names[0], "[ends in main (callsite_fp): frame chain ends]");
	usym_names_free(names, (unsigned)n);
	reap(pid);
	usym_free(u);
}

/* Maps read while the process lived still resolve after it exits; a
 * process never seen alive says so. */
static void test_exited(void **state)
{
	struct usym *u = usym_new();
	uint64_t a = 0, ips[2] = { 0 };
	char **names = NULL;
	pid_t pid;
	int n;

	(void)state;
	if (access("/usr/bin/sleep", X_OK))
		skip();
	assert_non_null(u);
	pid = spawn("/usr/bin/sleep", "5", NULL);
	assert_int_equal(usym_attach(u, (uint32_t)pid), 0);
	/* .dynsym of a stripped program: an imported function's name is no
	 * code of sleep, so look up libc's in that process */
	assert_int_equal(usym_find_symbol(u, (uint32_t)pid, "__libc_read", &a), 0);
	reap(pid);
	usym_reap_mark(u);
	ips[0] = a + 8;
	n = usym_stack(u, (uint32_t)pid, NULL, ips, 1, &names);
	assert_int_equal(n, 2);
	assert_true(strstr(names[1], "read") && strstr(names[1], "(libc.so.6)"));
	usym_names_free(names, (unsigned)n);
	assert_int_equal(usym_reap(u), 1);
	/* forgotten now, and the process is gone: said, not guessed */
	n = usym_stack(u, (uint32_t)pid, NULL, ips, 1, &names);
	assert_int_equal(n, 1);
	assert_string_equal(names[0],
			    "[user stack unknown: process exited before its maps were read]");
	usym_names_free(names, (unsigned)n);
	usym_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_cut),
		cmocka_unit_test(test_frame_pointers),
		cmocka_unit_test(test_fp_chain),
		cmocka_unit_test(test_exited),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
