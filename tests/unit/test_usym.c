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
	const char *fns[] = { "callsite_read_raw", "callsite_fill", "callsite_run", "main" };
	struct usym *u;
	pid_t fp, nofp;
	uint64_t a;

	(void)state;
	if (access(scen("callsite_fp"), X_OK) || access(scen("callsite"), X_OK))
		skip(); /* before usym_new: a skip leaves the test at once */
	u = usym_new();
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
	const char *fns[] = { "callsite_read_raw", "callsite_read_zero", "callsite_fill",
			      "callsite_run", "main" };
	uint64_t ips[6] = { 0 };
	char **names = NULL;
	struct usym *u;
	pid_t pid;
	int n;

	(void)state;
	if (access(scen("callsite_fp"), X_OK))
		skip(); /* before usym_new: a skip leaves the test at once */
	u = usym_new();
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
	struct usym *u;
	uint64_t a = 0, ips[2] = { 0 };
	char **names = NULL;
	pid_t pid;
	int n;

	(void)state;
	if (access("/usr/bin/sleep", X_OK))
		skip(); /* before usym_new: a skip leaves the test at once */
	u = usym_new();
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

/* The GNU build-id readelf -n reads in path, hex, into buf ("" none). */
static void readelf_build_id(const char *path, char *buf, size_t len)
{
	char cmd[4200], line[512];
	FILE *f;

	buf[0] = 0;
	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", path);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *b = strstr(line, "Build ID: ");

		if (b && sscanf(b + 10, "%127s", buf) == 1)
			break;
	}
	pclose(f);
	assert_true(len > 128);
}

/* The start of pid's first executable mapping of path (0 when none). */
static uint64_t exec_map(pid_t pid, const char *path)
{
	char maps[64], line[4400], perm[8], file[4096];
	unsigned long long lo = 0, hi;
	uint64_t at = 0;
	FILE *f;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	assert_non_null(f);
	while (!at && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %4095s", &lo, &hi, perm, file) == 4 &&
		    perm[2] == 'x' && !strcmp(file, path))
			at = lo;
	fclose(f);
	return at;
}

/* The module i of u named name: its path and build-id; 0 when none. */
static int module_of(struct usym *u, const char *name, const char **path, const char **bid)
{
	for (size_t i = 0; i < usym_nmodules(u); i++) {
		const char *n;

		if (!usym_module(u, i, &n, path, bid) && !strcmp(n, name))
			return 1;
	}
	return 0;
}

/* Issue 27 item 3: each module a stack names comes with its full path as
 * /proc/PID/maps names it and its GNU build-id, the same as readelf -n
 * reads: a Debian program (stripped: an address, no symbol), its libc, and
 * the scenario callsite (its own symbols). */
static void test_module_build_ids(void **state)
{
	struct usym *u;
	const char *path, *bid, *libc = NULL;
	char want[160], cs[4096];
	uint64_t ips[2] = { 0 };
	char **names = NULL;
	pid_t pid;
	int n;

	(void)state;
	if (access("/usr/bin/sleep", X_OK) || system("readelf -v >/dev/null 2>&1"))
		skip(); /* before usym_new: a skip leaves the test at once */
	u = usym_new();
	assert_non_null(u);
	pid = spawn("/usr/bin/sleep", "5", NULL);
	/* a leaf in sleep's own code (no symbol there), then libc's read */
	ips[0] = exec_map(pid, "/usr/bin/sleep") + 0x10;
	assert_true(ips[0] > 0x10);
	n = usym_stack(u, (uint32_t)pid, NULL, ips, 1, &names);
	assert_true(n >= 1);
	assert_true(has(names, n, "sleep+0x"));
	usym_names_free(names, (unsigned)n);
	assert_int_equal(usym_find_symbol(u, (uint32_t)pid, "__libc_read", &ips[0]), 0);
	ips[0] += 8;
	n = usym_stack(u, (uint32_t)pid, NULL, ips, 1, &names);
	assert_true(n >= 1);
	usym_names_free(names, (unsigned)n);
	reap(pid);

	assert_true(module_of(u, "sleep", &path, &bid));
	assert_string_equal(path, "/usr/bin/sleep");
	readelf_build_id("/usr/bin/sleep", want, sizeof(want));
	assert_true(want[0]);
	assert_string_equal(bid, want);
	assert_true(module_of(u, "libc.so.6", &libc, &bid));
	assert_true(libc[0] == '/' && strstr(libc, "libc.so.6"));
	readelf_build_id(libc, want, sizeof(want));
	assert_string_equal(bid, want);
	assert_int_equal(usym_module(u, usym_nmodules(u), &path, &path, &bid), -ENOENT);

	if (!access(scen("callsite"), X_OK) && realpath(scen("callsite"), cs)) {
		pid = spawn(scen("callsite"), "--seconds", "5");
		assert_int_equal(usym_find_symbol(u, (uint32_t)pid, "main", &ips[0]), 0);
		ips[0] += 4;
		n = usym_stack(u, (uint32_t)pid, NULL, ips, 1, &names);
		assert_true(n >= 1);
		assert_true(has(names, n, "main (callsite)"));
		usym_names_free(names, (unsigned)n);
		reap(pid);
		assert_true(module_of(u, "callsite", &path, &bid));
		assert_string_equal(path, cs);
		readelf_build_id(cs, want, sizeof(want));
		assert_true(want[0]);
		assert_string_equal(bid, want);
	} else {
		print_message("callsite not built: its build-id not checked\n");
	}
	usym_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_cut),
		cmocka_unit_test(test_frame_pointers),
		cmocka_unit_test(test_fp_chain),
		cmocka_unit_test(test_exited),
		cmocka_unit_test(test_module_build_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
