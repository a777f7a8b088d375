/* load — start, pause, resume and end the loads a measurement compares.
 * See load.h for what happens on each exit path. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/load.h"
#include "host/load_guard.h"
#include "host/load_proc.h"
#include "base/util.h"
#include "base/vec.h"

#define LOAD_STOP_GRACE_MS 2000
#define LOAD_FREEZE_WAIT_MS 1000

struct load {
	pid_t pid;
	int owned;          /* started by argus */
	int started;        /* exec released (owned) */
	int paused;
	int reaped;         /* owned main process waited for */
	int status;         /* its wait status when reaped */
	int stopped;        /* load_stop done */
	int own_end;        /* the main process had ended when load_stop began */
	int ready_fd;       /* write end: one byte lets the child exec */
	int err_fd;         /* read end: errno of a failed exec, EOF on success */
	char *cgroup;       /* cgroup directory, or NULL */
	char *cmd;          /* argv[0], for messages */
	char *path;         /* resolved executable */
	char **argv;        /* copy, NULL-terminated */
	int out_fd[2];      /* read ends of its stdout / stderr pipes, or -1 */
	pid_t *held;        /* attached: the descendants load_pause stopped */
	size_t nheld, held_cap;
	struct load *next;  /* registry */
};

static struct load *load_registry;
static FILE *load_log_file;
static unsigned load_counter;
static int load_atexit_done;

void load_set_log(FILE *log)
{
	load_log_file = log;
}

__attribute__((format(printf, 1, 2)))
static void load_log(const char *fmt, ...)
{
	va_list ap;

	if (!load_log_file)
		return;
	va_start(ap, fmt);
	vfprintf(load_log_file, fmt, ap);
	va_end(ap);
	fputc('\n', load_log_file);
	fflush(load_log_file);
}

/* Tells the guard (core/host/load_guard.h); says once when it cannot. */
static void load_guard_note(enum load_guard_what what, const char *arg, int add)
{
	static int said;
	int err = load_guard_set(what, arg, add);

	if (err && !said) {
		said = 1;
		load_log("load: no guard process (%s): if argus is killed by SIGKILL, what its "
			 "load forked runs on until the next argus starts", strerror(-err));
	}
}

static void load_guard_pid_note(enum load_guard_what what, pid_t pid, int add)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%d", (int)pid);
	load_guard_note(what, buf, add);
}

static void load_sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

const char *load_cgroup2_mount(void)
{
	static char mount[PATH_MAX];
	static int done;

	if (!done) {
		done = 1;
		if (util_cgroup2_mount(mount, sizeof(mount)))
			mount[0] = '\0';
	}
	return mount[0] ? mount : NULL;
}

/* Our own cgroup v2 path ("/" or "/user.slice/..."), from /proc/self/cgroup. */
static int load_own_cgroup(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[PATH_MAX + 32];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "0::", 3)) {
			size_t n = strcspn(line + 3, "\n");

			if (n >= len)
				n = len - 1;
			memcpy(buf, line + 3, n);
			buf[n] = 0;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

static int load_write_file(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX];
	int fd, err = 0;
	size_t n = strlen(val);

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, val, n) != (ssize_t)n)
		err = -errno;
	close(fd);
	return err;
}

/* Value of KEY in a "key value" file such as cgroup.events; -errno. */
static long load_read_key(const char *dir, const char *name, const char *key)
{
	char path[PATH_MAX], line[256];
	size_t klen = strlen(key);
	long val = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, klen) && line[klen] == ' ') {
			val = strtol(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/* Makes <mount><own>/argus-PID-N; NULL when cgroup v2 is absent or refuses. */
/* Removes the cgroups of argus runs that died without cleaning up (SIGKILL):
 * argus-PID-N under dir whose PID is gone.  Such a cgroup holds only loads
 * that argus started, and may be frozen (killed during a reference window),
 * so its load is treated as that argus would have on a clean exit: thawed
 * (cgroup.freeze 0), then ended (cgroup.kill 1), and the cgroup removed once
 * empty.  Loads argus did not start (-p) are never in one. */
static void load_cgroup_sweep(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	if (!d)
		return;
	while ((e = readdir(d))) {
		int pid;
		unsigned n;

		if (sscanf(e->d_name, "argus-%d-%u", &pid, &n) != 2 || pid <= 0 ||
		    pid == getpid() || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= sizeof(path))
			continue;
		if (rmdir(path) == 0) {
			load_log("load: removed the stale cgroup %s (argus %d is gone)", path, pid);
			continue;
		}
		if (errno != EBUSY)
			continue;
		load_write_file(path, "cgroup.freeze", "0");
		load_write_file(path, "cgroup.kill", "1");
		for (int i = 0; i < 100 && rmdir(path) < 0 && errno == EBUSY; i++)
			usleep(10000);
		if (access(path, F_OK) < 0)
			load_log("load: argus %d is gone and left its load in %s (frozen or running): "
				 "thawed, ended, removed", pid, path);
		else
			load_log("load: argus %d is gone; its cgroup %s could not be emptied: %s",
				 pid, path, strerror(errno));
	}
	closedir(d);
}

static char *load_cgroup_create(void)
{
	const char *mnt = load_cgroup2_mount();
	char own[PATH_MAX / 2], path[PATH_MAX + PATH_MAX / 2 + 64];
	char *ret;

	if (!mnt)
		return NULL;
	if (load_own_cgroup(own, sizeof(own)) < 0)
		snprintf(own, sizeof(own), "/");
	if (!strcmp(own, "/"))
		own[0] = 0;
	if (load_counter == 0) {
		snprintf(path, sizeof(path), "%s%s", mnt, own);
		load_cgroup_sweep(path);
		if (own[0]) /* the fallback place, below the mount itself */
			load_cgroup_sweep(mnt);
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		snprintf(path, sizeof(path), "%s%s/argus-%d-%u", mnt,
			 attempt == 0 ? own : "", (int)getpid(), ++load_counter);
		if (mkdir(path, 0755) == 0) {
			ret = strdup(path);
			if (!ret)
				rmdir(path);
			else
				load_guard_note(LOAD_GUARD_CGROUP, ret, 1);
			return ret;
		}
	}
	return NULL;
}

static void load_cgroup_remove(struct load *l)
{
	if (!l->cgroup)
		return;
	/* An emptied cgroup may still report populated for a moment. */
	for (int i = 0; i < 300; i++) {
		if (rmdir(l->cgroup) == 0 || errno == ENOENT)
			break;
		if (errno != EBUSY)
			break;
		load_sleep_ms(10);
	}
	if (access(l->cgroup, F_OK) == 0)
		/* left registered: the guard kills what is in it and retries
		 * the rmdir once argus is gone */
		load_log("load: cannot remove cgroup %s: %s", l->cgroup, strerror(errno));
	else
		load_guard_note(LOAD_GUARD_CGROUP, l->cgroup, 0);
	free(l->cgroup);
	l->cgroup = NULL;
}

/* The executable argv0 names, as execvp would find it; caller frees. */
static char *load_resolve(const char *argv0, int *err)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];
	int saw_eacces = 0;

	if (!*argv0) {
		*err = ENOENT;
		return NULL;
	}
	if (strchr(argv0, '/')) {
		if (access(argv0, X_OK) < 0) {
			*err = errno;
			return NULL;
		}
		return strdup(argv0);
	}
	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)(n ? n : 1), n ? path : ".", argv0);
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(buf, X_OK) == 0)
				return strdup(buf);
			saw_eacces = 1;
		}
		path += n;
		if (*path == ':')
			path++;
	}
	*err = saw_eacces ? EACCES : ENOENT;
	return NULL;
}

static void load_register(struct load *l)
{
	if (!load_atexit_done) {
		atexit(load_registry_cleanup);
		load_atexit_done = 1;
	}
	l->next = load_registry;
	load_registry = l;
}

static void load_unregister(struct load *l)
{
	for (struct load **p = &load_registry; *p; p = &(*p)->next) {
		if (*p == l) {
			*p = l->next;
			break;
		}
	}
}

/* Child side of load_spawn, between fork and exec: only async-signal-safe
 * calls. */
__attribute__((noreturn))
static void load_child(struct load *l, int ready_rd, int err_wr, pid_t parent,
		       unsigned flags, const int *outw)
{
	sigset_t none;
	char c;
	int e, fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	/* argus blocks signals for its signalfd and may ignore some: the load
	 * must start with the defaults. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		if (flags & LOAD_F_QUIET) {
			dup2(fd, 1);
			dup2(fd, 2);
		} else if (flags & LOAD_F_STDOUT_STDERR) {
			dup2(2, 1);
		}
		if (fd > 2)
			close(fd);
	}
	/* the pipes argus reads (their fds are close-on-exec; dup2's are not) */
	if (outw[0] >= 0)
		dup2(outw[0], 1);
	if (outw[1] >= 0)
		dup2(outw[1], 2);
	/* Hold until the parent has set the sampler filter. */
	while (read(ready_rd, &c, 1) < 0 && errno == EINTR)
		;
	if (c != 'g')
		_exit(0);
	execv(l->path, l->argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) < 0) {
		/* nothing left to tell */
	}
	_exit(127);
}

static void load_release(struct load *l)
{
	if (l->ready_fd >= 0)
		close(l->ready_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->ready_fd = l->err_fd = -1;
	for (int i = 0; i < 2; i++)
		if (l->out_fd[i] >= 0)
			close(l->out_fd[i]);
	load_cgroup_remove(l);
	if (l->argv)
		for (char **a = l->argv; *a; a++)
			free(*a);
	free(l->argv);
	free(l->held);
	free(l->path);
	free(l->cmd);
	free(l);
}

struct load *load_spawn(char *const argv[], unsigned flags, char **cause)
{
	struct load *l = NULL;
	int ready[2] = { -1, -1 }, errp[2] = { -1, -1 }, outp[2][2] = { { -1, -1 }, { -1, -1 } };
	int outw[2] = { -1, -1 }, err = 0, n;
	pid_t parent = getpid(), pid;
	char buf[32];

	if (!argv || !argv[0]) {
		util_cause(cause, "no command to run");
		err = EINVAL;
		goto fail;
	}
	l = calloc(1, sizeof(*l));
	if (!l) {
		err = errno;
		goto fail;
	}
	l->ready_fd = l->err_fd = -1;
	l->out_fd[0] = l->out_fd[1] = -1;
	l->owned = 1;
	l->cmd = strdup(argv[0]);
	for (n = 0; argv[n]; n++)
		;
	l->argv = calloc(n + 1, sizeof(*l->argv));
	if (!l->cmd || !l->argv) {
		err = ENOMEM;
		goto fail;
	}
	for (int i = 0; i < n; i++) {
		l->argv[i] = strdup(argv[i]);
		if (!l->argv[i]) {
			err = ENOMEM;
			goto fail;
		}
	}
	l->path = load_resolve(argv[0], &err);
	if (!l->path) {
		util_cause(cause, "cannot run '%s': %s", argv[0], strerror(err));
		goto fail;
	}
	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		err = errno;
		util_cause(cause, "cannot start '%s': pipe: %s", argv[0], strerror(err));
		goto fail;
	}
	for (int i = 0; i < 2; i++) {
		if (!(flags & (i ? LOAD_F_PIPE_STDERR : LOAD_F_PIPE_STDOUT)))
			continue;
		if (pipe2(outp[i], O_CLOEXEC) < 0) {
			err = errno;
			util_cause(cause, "cannot start '%s': pipe for its output: %s", argv[0],
				   strerror(err));
			goto fail;
		}
		/* room for a chatty load while argus is busy elsewhere (best effort) */
		fcntl(outp[i][1], F_SETPIPE_SZ, 1 << 20);
		fcntl(outp[i][0], F_SETFL, O_NONBLOCK);
		outw[i] = outp[i][1];
	}
	if (!(flags & LOAD_F_NO_CGROUP))
		l->cgroup = load_cgroup_create();
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = errno;
		util_cause(cause, "cannot start '%s': fork: %s", argv[0], strerror(err));
		goto fail;
	}
	if (pid == 0) {
		close(ready[1]);
		close(errp[0]);
		load_child(l, ready[0], errp[1], parent, flags, outw);
	}
	close(ready[0]);
	close(errp[1]);
	for (int i = 0; i < 2; i++) {
		if (outp[i][1] >= 0)
			close(outp[i][1]);
		l->out_fd[i] = outp[i][0];
		outp[i][0] = outp[i][1] = -1;
	}
	l->pid = pid;
	l->ready_fd = ready[1];
	l->err_fd = errp[0];
	setpgid(pid, pid); /* the child does it too: whoever runs first */
	if (l->cgroup) {
		snprintf(buf, sizeof(buf), "%d", (int)pid);
		if (load_write_file(l->cgroup, "cgroup.procs", buf) < 0) {
			load_log("load: cgroup %s refused PID %d, pausing by process group", l->cgroup,
				 (int)pid);
			load_cgroup_remove(l);
		}
	}
	if (!l->cgroup)
		load_guard_pid_note(LOAD_GUARD_PGRP, pid, 1);
	load_register(l);
	load_log("load: '%s' is PID %d (process group %d%s%s)", l->cmd, (int)pid, (int)pid,
		 l->cgroup ? ", cgroup " : "", l->cgroup ? l->cgroup : "");
	return l;
fail:
	for (int i = 0; i < 2; i++) {
		if (ready[i] >= 0)
			close(ready[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		for (int k = 0; k < 2; k++)
			if (outp[i][k] >= 0)
				close(outp[i][k]);
	}
	if (l)
		load_release(l);
	errno = err ? err : EINVAL;
	return NULL;
}

int load_output_take(struct load *l, int which)
{
	int fd;

	if (!l || (which != 1 && which != 2))
		return -1;
	fd = l->out_fd[which - 1];
	l->out_fd[which - 1] = -1;
	return fd;
}

int load_start(struct load *l, char **cause)
{
	int e = 0;
	ssize_t n;

	if (!l || !l->owned || l->started)
		return 0;
	l->started = 1;
	if (write(l->ready_fd, "g", 1) != 1) {
		e = errno;
		util_cause(cause, "cannot start '%s': %s", l->cmd, strerror(e));
		return -e;
	}
	close(l->ready_fd);
	l->ready_fd = -1;
	do
		n = read(l->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == (ssize_t)sizeof(e) && e) {
		util_cause(cause, "cannot run '%s': %s", l->cmd, strerror(e));
		if (waitpid(l->pid, &l->status, 0) == l->pid)
			l->reaped = 1;
		return -e;
	}
	return 0;
}

struct load *load_attach_pid(pid_t pid, char **cause)
{
	struct load *l;
	char st;

	if (pid <= 0 || !load_proc_alive(pid) || !(st = load_proc_stat(pid, NULL, NULL)) ||
	    st == 'Z' || st == 'X') {
		util_cause(cause, "no process with PID %d", (int)pid);
		errno = ESRCH;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->ready_fd = l->err_fd = -1;
	l->out_fd[0] = l->out_fd[1] = -1;
	l->pid = pid;
	l->started = 1;
	if (asprintf(&l->cmd, "PID %d", (int)pid) < 0) {
		free(l);
		errno = ENOMEM;
		return NULL;
	}
	load_register(l);
	return l;
}

static void load_reap(struct load *l)
{
	int st;

	if (!l->owned || l->reaped || !l->pid)
		return;
	if (waitpid(l->pid, &st, WNOHANG) == l->pid) {
		l->reaped = 1;
		l->status = st;
	}
}

int load_alive(struct load *l)
{
	if (!l || !l->pid)
		return 0;
	if (l->owned) {
		load_reap(l);
		return !l->reaped;
	}
	return load_proc_alive(l->pid) && load_proc_stat(l->pid, NULL, NULL) != 'Z';
}

int load_exit_status(struct load *l, int *status)
{
	if (!l->owned)
		return -ECHILD;
	load_reap(l);
	if (!l->reaped)
		return -EAGAIN;
	if (status)
		*status = l->status;
	return 0;
}

int load_failed(struct load *l, char *buf, size_t len)
{
	if (!l || !l->owned || !l->started)
		return 0;
	if (!l->stopped)
		load_reap(l);
	if (!l->reaped || (l->stopped && !l->own_end))
		return 0;
	if (WIFEXITED(l->status) && WEXITSTATUS(l->status) == 0)
		return 0;
	if (buf && len)
		load_state(l, buf, len);
	return 1;
}

pid_t load_pid(const struct load *l)
{
	return l ? l->pid : 0;
}

int load_started(const struct load *l)
{
	return l && l->started;
}

int load_paused(const struct load *l)
{
	return l && l->paused;
}

int load_has_cgroup(const struct load *l)
{
	return l && l->cgroup;
}

const char *load_cgroup_path(const struct load *l)
{
	return l ? l->cgroup : NULL;
}

/* Waits until the main process shows state T (SIGSTOP is asynchronous). */
static void load_wait_stopped(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		char s = load_proc_stat(pid, NULL, NULL);

		if (!s || s == 'T' || s == 't' || s == 'Z')
			return;
		load_sleep_ms(1);
	}
}

/* 1 when pid is argus or one of its descendants, found by walking pid's
 * parents up to top (an attached shell may have started this argus:
 * stopping argus would leave nobody to resume the tree). */
static int load_is_ours(pid_t pid, pid_t top)
{
	pid_t self = getpid();

	for (int depth = 0; pid > 1 && pid != top && depth < 64; depth++) {
		if (pid == self)
			return 1;
		if (!load_proc_stat(pid, &pid, NULL))
			return 0;
	}
	return 0;
}

static int load_held_has(const struct load *l, pid_t pid)
{
	for (size_t i = 0; i < l->nheld; i++)
		if (l->held[i] == pid)
			return 1;
	return 0;
}

/* Stops an attached PID's descendants (the PID itself is stopped already):
 * a reference window of a shell is no reference while its find runs.
 * Rescans until a pass stops nobody new, since a child may fork before it
 * is stopped.  The stopped ones are kept for load_resume and the guard.
 * 0 or -errno. */
static int load_pause_tree(struct load *l)
{
	enum { MAX = 4096 };
	uint32_t *tg = malloc(MAX * sizeof(*tg));
	int err = 0;

	if (!tg)
		return -ENOMEM;
	for (int pass = 0; pass < 16; pass++) {
		int n = load_tgids(l, tg, MAX), added = 0;

		if (n < 0) {
			err = n;
			break;
		}
		for (int i = 0; i < n && i < MAX; i++) {
			pid_t pid = (pid_t)tg[i];

			if (pid == l->pid || load_held_has(l, pid) || load_is_ours(pid, l->pid))
				continue;
			err = vec_grow(&l->held, &l->held_cap, l->nheld + 1, sizeof(*l->held));
			if (err)
				goto out;
			if (kill(pid, SIGSTOP) < 0)
				continue;         /* exited meanwhile */
			l->held[l->nheld++] = pid;
			load_guard_pid_note(LOAD_GUARD_STOPPED, pid, 1);
			added++;
		}
		if (!added)
			break;
	}
	for (size_t i = 0; i < l->nheld; i++)
		load_wait_stopped(l->held[i]);
out:
	free(tg);
	return err;
}

int load_pause(struct load *l)
{
	int err = 0;

	if (!l || l->paused || !l->started || !load_alive(l))
		return 0;
	if (l->cgroup) {
		double deadline = util_mono_ms() + LOAD_FREEZE_WAIT_MS;

		err = load_write_file(l->cgroup, "cgroup.freeze", "1");
		if (err == 0) {
			l->paused = 1;
			while (load_read_key(l->cgroup, "cgroup.events", "frozen") == 0 &&
			       util_mono_ms() < deadline)
				load_sleep_ms(1);
			return 0;
		}
		/* fall back to signals */
	}
	if (kill(l->owned ? -l->pid : l->pid, SIGSTOP) < 0)
		return -errno;
	l->paused = 1;
	load_wait_stopped(l->pid);
	if (l->owned)
		return 0;
	load_guard_pid_note(LOAD_GUARD_STOPPED, l->pid, 1);
	err = load_pause_tree(l);
	if (l->nheld)
		load_log("load: paused PID %d and %zu of its descendants with SIGSTOP; if argus "
			 "is killed before it resumes them, run: kill -CONT %d and its "
			 "children (pgrep -P %d)", (int)l->pid, l->nheld, (int)l->pid,
			 (int)l->pid);
	else
		load_log("load: paused PID %d with SIGSTOP; if argus is killed before it "
			 "resumes it, run: kill -CONT %d", (int)l->pid, (int)l->pid);
	return err;
}

int load_resume(struct load *l)
{
	int err = 0;

	if (!l || !l->paused)
		return 0;
	if (l->cgroup)
		err = load_write_file(l->cgroup, "cgroup.freeze", "0");
	/* an attached PID's descendants before the PID: a shell resumed
	 * first would find its find stopped (waitpid WUNTRACED) and take it
	 * for a stopped job; continued before it looks, it sees nothing */
	for (size_t i = l->nheld; i-- > 0;) {
		kill(l->held[i], SIGCONT);
		load_guard_pid_note(LOAD_GUARD_STOPPED, l->held[i], 0);
	}
	l->nheld = 0;
	/* SIGCONT as well: covers the signal fallback and any stop that came
	 * from elsewhere while frozen.  Harmless on a running group. */
	if (kill(l->owned ? -l->pid : l->pid, SIGCONT) < 0 && errno != ESRCH && !l->cgroup)
		err = -errno;
	if (!l->owned && !l->cgroup)
		load_guard_pid_note(LOAD_GUARD_STOPPED, l->pid, 0);
	l->paused = 0;
	return err;
}

static int load_tgids_cgroup(struct load *l, uint32_t *out, size_t max)
{
	char path[PATH_MAX];
	size_t n = 0;
	FILE *f;
	int pid;

	snprintf(path, sizeof(path), "%s/cgroup.procs", l->cgroup);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fscanf(f, "%d", &pid) == 1) {
		if (n < max)
			out[n] = (uint32_t)pid;
		n++;
	}
	fclose(f);
	return (int)n;
}

int load_tgids(struct load *l, uint32_t *out, size_t max)
{
	struct load_collect c = { 0 };
	int ret;

	if (!l || !l->pid)
		return 0;
	if (l->cgroup && l->started)
		return load_tgids_cgroup(l, out, max);
	if (l->owned) {
		load_reap(l);
		c.pgrp = l->pid;
		c.out = out;
		c.max = max;
		ret = load_proc_each(load_collect_pgrp, &c);
		return ret < 0 ? ret : (int)c.n;
	}
	if (!load_alive(l))
		return 0;
	c.cap = 16;
	c.set = malloc(c.cap * sizeof(*c.set));
	if (!c.set)
		return -ENOMEM;
	c.set[c.nset++] = l->pid;
	while ((ret = load_proc_each(load_collect_desc, &c)) == 1)
		;
	if (ret == 0) {
		for (size_t i = 0; i < c.nset && i < max; i++)
			out[i] = (uint32_t)c.set[i];
		ret = (int)c.nset;
	}
	free(c.set);
	return ret;
}

/* Members other than the reaped main process still exist. */
static int load_members_left(struct load *l)
{
	uint32_t buf[1];

	if (l->cgroup)
		return load_read_key(l->cgroup, "cgroup.events", "populated") > 0;
	load_reap(l);
	return !l->reaped || load_tgids(l, buf, 1) > 0;
}

static void load_signal_all(struct load *l, int sig)
{
	uint32_t pids[256];
	int n;

	if (!l->reaped)
		kill(l->pid, sig);
	kill(-l->pid, sig);
	if (l->cgroup) {
		n = load_tgids_cgroup(l, pids, 256);
		for (int i = 0; i < n && i < 256; i++)
			kill((pid_t)pids[i], sig);
	}
}

/* The end of load_stop: the cgroup removed, the guard told. */
static void load_stop_done(struct load *l)
{
	if (!l->cgroup) {
		/* a process group without a cgroup: unregistered once no member
		 * is left (else the guard kills it if argus dies now) */
		if (!load_members_left(l))
			load_guard_pid_note(LOAD_GUARD_PGRP, l->pid, 0);
	}
	load_cgroup_remove(l);
}

int load_stop(struct load *l)
{
	double deadline;

	if (!l || l->stopped)
		return 0;
	load_resume(l);
	if (!l->owned) {
		l->stopped = 1;
		return 0;
	}
	l->stopped = 1;
	if (!l->started) {
		/* Held before exec: closing the pipe makes it exit. */
		if (l->ready_fd >= 0)
			close(l->ready_fd);
		l->ready_fd = -1;
		kill(l->pid, SIGKILL);
		if (waitpid(l->pid, &l->status, 0) == l->pid)
			l->reaped = 1;
		load_stop_done(l);
		return 0;
	}
	load_reap(l);
	l->own_end = l->reaped;     /* a status from now on may be argus's SIGTERM */
	if (load_members_left(l)) {
		load_signal_all(l, SIGTERM);
		deadline = util_mono_ms() + LOAD_STOP_GRACE_MS;
		while (util_mono_ms() < deadline) {
			load_reap(l);
			if (!load_members_left(l))
				break;
			load_sleep_ms(5);
		}
		if (load_members_left(l)) {
			load_log("load: '%s' still running %d ms after SIGTERM, sending SIGKILL",
				 l->cmd, LOAD_STOP_GRACE_MS);
			if (l->cgroup)
				load_write_file(l->cgroup, "cgroup.kill", "1");
			load_signal_all(l, SIGKILL);
			if (!l->reaped && waitpid(l->pid, &l->status, 0) == l->pid)
				l->reaped = 1;
			deadline = util_mono_ms() + 1000;
			while (load_members_left(l) && util_mono_ms() < deadline)
				load_sleep_ms(5);
		}
	}
	if (!l->reaped && waitpid(l->pid, &l->status, 0) == l->pid)
		l->reaped = 1;
	load_stop_done(l);
	return 0;
}

void load_free(struct load *l)
{
	if (!l)
		return;
	load_stop(l);
	load_unregister(l);
	load_release(l);
}

char *load_state(struct load *l, char *buf, size_t len)
{
	int st;

	if (!l)
		snprintf(buf, len, "none");
	else if (!l->started)
		snprintf(buf, len, "not started");
	else if (l->owned && load_exit_status(l, &st) == 0) {
		if (WIFSIGNALED(st))
			snprintf(buf, len, "killed (%s)", sigabbrev_np(WTERMSIG(st)) ?
				 sigabbrev_np(WTERMSIG(st)) : "?");
		else
			snprintf(buf, len, "exited (%d)", WEXITSTATUS(st));
	} else if (!load_alive(l))
		snprintf(buf, len, "gone");
	else
		snprintf(buf, len, "%s", l->paused ? "paused" : "running");
	return buf;
}

void load_registry_cleanup(void)
{
	/* Resume everything first: a paused load must never outlive argus. */
	for (struct load *l = load_registry; l; l = l->next)
		load_resume(l);
	for (struct load *l = load_registry; l; l = l->next)
		load_stop(l);
	load_guard_end();
}
