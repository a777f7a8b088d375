/* load_guard — ends argus's loads when argus cannot (see load_guard.h).
 *
 * The guard runs between fork and _exit only: no exec (the library cannot
 * name argus's binary), no malloc (argus may have had other threads at
 * the fork), no atexit handlers (they are argus's: _exit).  Its table is
 * static and fixed; what does not fit is cleaned by the next argus's
 * stale-cgroup sweep, as before the guard. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/load_guard.h"

#define GUARD_MAX 32
#define GUARD_EMPTY_WAIT_MS 5000

static int guard_fd = -1;
static pid_t guard_pid;
static int guard_failed;

/* The guard's table (only the child writes it). */
static struct guard_ent {
	char what;
	char arg[PATH_MAX];
} guard_tab[GUARD_MAX];

static void guard_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void guard_write(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0) {
		/* nothing more to try: rmdir below says whether it worked */
	}
	close(fd);
}

/* "populated 1" in cgroup.events: 1, 0, or -1 when unreadable (gone). */
static int guard_populated(const char *dir)
{
	char path[PATH_MAX + 32], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strstr(buf, "populated ");
	return p ? p[10] == '1' : -1;
}

/* Its command line reads "argus-guard": argv's bytes are ours to rewrite
 * (arg_start..arg_end of /proc/self/stat, fields 48 and 49). */
static void guard_retitle(void)
{
	char buf[1024], *p;
	unsigned long start = 0, end = 0;
	ssize_t n;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), field = 2;

	prctl(PR_SET_NAME, "argus-guard");
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		return;
	for (p++; *p && field < 49; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 48)
			start = strtoul(p + 1, NULL, 10);
		else if (field == 49)
			end = strtoul(p + 1, NULL, 10);
	}
	if (!start || end <= start + sizeof("argus-guard"))
		return;
	memset((void *)start, 0, end - start);
	memcpy((void *)start, "argus-guard", sizeof("argus-guard"));
}

static void guard_clean(const struct guard_ent *e, pid_t argus)
{
	char msg[PATH_MAX + 160];
	int n = 0, pid = atoi(e->arg), left = 0;

	switch (e->what) {
	case LOAD_GUARD_CGROUP:
		guard_write(e->arg, "cgroup.freeze", "0");
		guard_write(e->arg, "cgroup.kill", "1");
		for (int i = 0; i < GUARD_EMPTY_WAIT_MS / 10 && guard_populated(e->arg) == 1; i++)
			guard_sleep_ms(10);
		/* an emptied cgroup may refuse rmdir for a moment */
		for (int i = 0; i < 100 && rmdir(e->arg) < 0 && errno == EBUSY; i++)
			guard_sleep_ms(10);
		left = access(e->arg, F_OK) == 0;
		n = snprintf(msg, sizeof(msg), "argus: argus %d ended without ending its load: "
			     "killed what was left in %s%s\n", (int)argus, e->arg,
			     left ? " (the cgroup could not be removed)" : "");
		break;
	case LOAD_GUARD_PGRP:
		if (pid > 1) {
			kill(-pid, SIGCONT);
			kill(-pid, SIGKILL);
		}
		n = snprintf(msg, sizeof(msg), "argus: argus %d ended without ending its load: "
			     "killed its process group %d\n", (int)argus, pid);
		break;
	case LOAD_GUARD_STOPPED:
		if (pid > 1)
			kill(pid, SIGCONT);
		n = snprintf(msg, sizeof(msg), "argus: argus %d ended with PID %d paused: "
			     "resumed it\n", (int)argus, pid);
		break;
	}
	if (n > 0 && write(2, msg, (size_t)n) < 0) {
		/* stderr gone: the cleanup is what counts */
	}
}

__attribute__((noreturn))
static void guard_main(int fd, pid_t argus)
{
	char buf[PATH_MAX + 8];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
		int slot = -1;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* argus is gone, cleanly or not */
		buf[n] = 0;
		if (n < 3)
			continue;
		/* "+C/path", "-C/path", "+G123", "-P123" */
		for (int i = 0; i < GUARD_MAX; i++) {
			if (guard_tab[i].what == buf[1] && !strcmp(guard_tab[i].arg, buf + 2)) {
				slot = i;
				break;
			}
			if (!guard_tab[i].what && slot < 0 && buf[0] == '+')
				slot = i;
		}
		if (slot < 0)
			continue;
		if (buf[0] == '+') {
			guard_tab[slot].what = buf[1];
			size_t len = strnlen(buf + 2, sizeof(guard_tab[slot].arg) - 1);

			memcpy(guard_tab[slot].arg, buf + 2, len);
			guard_tab[slot].arg[len] = 0;
		} else if (guard_tab[slot].what == buf[1]) {
			guard_tab[slot].what = 0;
		}
	}
	for (int i = 0; i < GUARD_MAX; i++)
		if (guard_tab[i].what)
			guard_clean(&guard_tab[i], argus);
	_exit(0);
}

static int guard_start(void)
{
	static const int ignore[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN,
				      SIGTTOU, SIGPIPE, 0 };
	int sv[2], nul;
	pid_t argus = getpid(), pid;
	sigset_t none;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		int err = -errno;

		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (pid == 0) {
		setpgid(0, 0);
		for (const int *s = ignore; *s; s++)
			signal(*s, SIG_IGN);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (sv[1] != 3) {
			dup2(sv[1], 3);
			close(sv[1]);
		}
		nul = open("/dev/null", O_RDWR);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		/* nothing of argus's but stderr and the socket: a BPF fd kept
		 * here would keep its program loaded after a SIGKILL */
		close_range(4, ~0U, 0);
		guard_retitle();
		guard_main(3, argus);
	}
	close(sv[1]);
	guard_fd = sv[0];
	guard_pid = pid;
	return 0;
}

int load_guard_set(enum load_guard_what what, const char *arg, int add)
{
	char msg[PATH_MAX + 8];
	int n, err;

	if (guard_failed)
		return -EPIPE;
	if (guard_fd < 0) {
		if (!add)
			return 0;
		err = guard_start();
		if (err) {
			guard_failed = 1;
			return err;
		}
	}
	n = snprintf(msg, sizeof(msg), "%c%c%s", add ? '+' : '-', (char)what, arg);
	if (n < 0 || (size_t)n >= sizeof(msg))
		return -ENAMETOOLONG;
	while (send(guard_fd, msg, (size_t)n, MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		err = -errno;
		guard_failed = 1;
		return err;
	}
	return 0;
}

void load_guard_end(void)
{
	if (guard_fd < 0)
		return;
	close(guard_fd);
	guard_fd = -1;
	while (waitpid(guard_pid, NULL, 0) < 0 && errno == EINTR)
		;
	guard_pid = 0;
}

pid_t load_guard_pid(void)
{
	return guard_pid;
}
