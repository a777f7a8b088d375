/* schedtime_run — driver for tests/live/schedtime.sh and
 * tests/bench/schedtime.sh: core/probe_schedtime over loads it starts.
 *
 *   schedtime_run account SECS    starts "st-ping"/"st-pong" (a byte over two
 *                                 pipes), "st-sleep" (nanosleep 1 ms) and
 *                                 "st-wait" (a thread blocked in read(2) the
 *                                 whole run), tracks only them, reads
 *                                 per-window every 0.25 s and prints, per
 *                                 thread, "thread COMM oncpu B blocked B
 *                                 runnable B wall W" (seconds), per key
 *                                 "key COMM KIND OTHER SECS | FRAMES", and
 *                                 "cumulative_blocked_s X windows_blocked_s Y";
 *                                 also "st-tping"/"st-tpong", a byte back
 *                                 and forth over loopback TCP (their
 *                                 wakeups run in the NET_RX softirq), and
 *                                 "st-pwrite"/"st-pread", a byte a ms
 *                                 through a pty (a kworker wakes the
 *                                 reader), and
 *                                 "cumulative_blocked_s X windows_blocked_s Y"
 *   schedtime_run pingpong SECS [MODE]
 *                                 the ping-pong alone for SECS, without the
 *                                 probe (no MODE), or with it: MODE is all
 *                                 (every task tracked) or self (only the
 *                                 ping-pong, as the wall-clock tree tracks a
 *                                 victim and the model its load) or other
 *                                 (only the parent shell: the ping-pong an
 *                                 untracked aggressor), then
 *                                 optionally -exact (no sampling: every
 *                                 interval charged) and -stats (BPF run-time
 *                                 statistics on): prints "ops_per_sec N" and,
 *                                 with the probe, "events N bpf_ns N
 *                                 bpf_runs N"
 * Exit 0 ok, 3 the probe refused (cause printed), 1 other.
 */
#define _GNU_SOURCE /* posix_openpt, ptsname, cfmakeraw */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "data/ksym.h"
#include "probe/probe_schedtime.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Runs fn in a child named name after a byte arrives on go[0]. */
static pid_t spawn(const char *name, int go, void (*fn)(double), double secs)
{
	pid_t p = fork();
	char c;

	if (p)
		return p;
	prctl(PR_SET_NAME, name);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go, &c, 1) != 1)
		_exit(1);
	fn(secs);
	_exit(0);
}

static unsigned long pp_ops;

static void pingpong(double secs)
{
	int a[2], b[2];
	double t0 = now(), end = t0 + secs;
	char c = 'x';
	pid_t k;

	if (pipe(a) || pipe(b))
		_exit(1);
	k = fork();
	if (k == 0) {
		prctl(PR_SET_NAME, "st-pong");
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(a[0]);
	close(b[1]);
	while (now() < end) {
		for (int i = 0; i < 100; i++)
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				_exit(1);
		pp_ops += 100;
	}
	close(a[1]);
	waitpid(k, NULL, 0);
	printf("ops_per_sec %.0f\n", pp_ops / (now() - t0));
	fflush(stdout);
}

/* A byte back and forth over loopback TCP (st-tping here, st-tpong its
 * child): each is woken from the NET_RX softirq that delivers the other's
 * byte. */
static void tcp_pingpong(double secs)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t al = sizeof(a);
	double end = now() + secs;
	int l = socket(AF_INET, SOCK_STREAM, 0), one = 1, fd;
	char c = 'x';
	pid_t k;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &al))
		_exit(1);
	k = fork();
	if (k == 0) {
		prctl(PR_SET_NAME, "st-tpong");
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			_exit(1);
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		while (read(fd, &c, 1) == 1 && write(fd, &c, 1) == 1)
			;
		_exit(0);
	}
	close(l);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		_exit(1);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (now() < end)
		for (int i = 0; i < 100; i++)
			if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
				_exit(1);
	close(fd);
	waitpid(k, NULL, 0);
}

/* A byte a millisecond from st-pwrite into a pty's master, read by st-pread
 * on its slave (raw): a kworker pushes the bytes to the reader
 * (flush_to_ldisc) and makes its wakeups. */
static void pty_feed(double secs)
{
	struct timespec ms = { 0, 1000000 };
	double end = now() + secs;
	struct termios tio;
	int m = posix_openpt(O_RDWR | O_NOCTTY), sl;
	char c = 'x';
	pid_t k;

	if (m < 0 || grantpt(m) || unlockpt(m))
		_exit(1);
	sl = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (sl < 0 || tcgetattr(sl, &tio))
		_exit(1);
	cfmakeraw(&tio);
	if (tcsetattr(sl, TCSANOW, &tio))
		_exit(1);
	k = fork();
	if (k == 0) {
		prctl(PR_SET_NAME, "st-pread");
		close(m);
		while (read(sl, &c, 1) == 1)
			;
		_exit(0);
	}
	close(sl);
	while (now() < end) {
		if (write(m, &c, 1) != 1)
			break;
		nanosleep(&ms, NULL);
	}
	kill(k, SIGKILL);
	waitpid(k, NULL, 0);
}

static void nsleep(double secs)
{
	struct timespec ms = { 0, 1000000 };
	double end = now() + secs;

	while (now() < end)
		nanosleep(&ms, NULL);
}

static int wait_fd = -1, wait_wr = -1;

static void waiter(double secs)
{
	char c;

	(void)secs;
	close(wait_wr);
	if (read(wait_fd, &c, 1) < 0) /* blocked until the driver closes it */
		_exit(1);
}

struct thr {
	uint32_t pid;
	char comm[17];
	double ns[4];
};

static struct thr thr[64];
static int nthr;

static struct thr *thr_of(const struct schedtime_key *k)
{
	for (int i = 0; i < nthr; i++)
		if (thr[i].pid == k->pid) {
			memcpy(thr[i].comm, k->comm, 16); /* the latest name (after exec/prctl) */
			return &thr[i];
		}
	if (nthr == 64)
		return NULL;
	thr[nthr].pid = k->pid;
	memcpy(thr[nthr].comm, k->comm, 16);
	return &thr[nthr++];
}

static const char *kind_name(uint32_t k)
{
	return k == SCHEDTIME_BLOCKED ? "blocked" : k == SCHEDTIME_RUNNABLE ? "runnable" : "oncpu";
}

static int account(double secs)
{
	struct probe_schedtime_opts o = { 0 };
	struct probe_schedtime_snap *s = NULL;
	struct probe_schedtime *ps;
	struct ksym_table *ks = ksym_load(NULL);
	int go[2], wp[2];
	uint32_t tgids[5];
	char *cause = NULL;
	double t0, win_blocked = 0, cum_blocked = 0, win_secs = 0, slowest = 0, slept = 0;
	unsigned nwin = 0;
	pid_t p[5];

	if (!ks || pipe(go) || pipe(wp))
		return 1;
	wait_fd = wp[0];
	wait_wr = wp[1];
	p[2] = spawn("st-wait", go[0], waiter, secs);
	fcntl(wp[1], F_SETFD, FD_CLOEXEC);
	p[0] = spawn("st-ping", go[0], pingpong, secs);
	p[1] = spawn("st-sleep", go[0], nsleep, secs);
	p[3] = spawn("st-tping", go[0], tcp_pingpong, secs);
	p[4] = spawn("st-pwrite", go[0], pty_feed, secs);
	close(wp[0]);
	for (int i = 0; i < 5; i++)
		tgids[i] = (uint32_t)p[i];
	o.tgids = tgids;
	o.ntgids = 5;
	o.follow_forks = 1;
	o.windows = 1;
	ps = probe_schedtime_open(&o, &cause);
	if (!ps) {
		printf("cause %s\n", cause ? cause : "?");
		kill(p[0], SIGKILL); kill(p[1], SIGKILL); kill(p[2], SIGKILL); kill(p[3], SIGKILL);
		kill(p[4], SIGKILL);
		return 3;
	}
	printf("mechanism %s\n", probe_schedtime_mechanism(ps));
	t0 = now();
	if (write(go[1], "xxxxx", 5) != 5)
		return 1;
	while (now() < t0 + secs) {
		double a = now(), b;

		usleep(250000);
		b = now();
		if (probe_schedtime_read_window(ps, ks, &s))
			return 1;
		/* what the windows covered, and the slowest sleep and read */
		win_secs += s->secs;
		nwin++;
		if (b - a > slept)
			slept = b - a;
		if (now() - b > slowest)
			slowest = now() - b;
		for (size_t i = 0; i < s->n; i++) {
			struct thr *t = thr_of(&s->e[i].key);

			if (t)
				t->ns[s->e[i].key.kind] += s->e[i].val.total_ns;
			if (s->e[i].key.kind == SCHEDTIME_BLOCKED)
				win_blocked += s->e[i].val.total_ns / 1e9;
		}
		probe_schedtime_snap_free(s);
	}
	if (probe_schedtime_read(ps, ks, &s))
		return 1;
	for (size_t i = 0; i < s->n; i++) {
		const struct probe_schedtime_entry *e = &s->e[i];
		char other[128];

		if (e->key.kind == SCHEDTIME_BLOCKED)
			cum_blocked += e->val.total_ns / 1e9;
		if (e->val.total_ns < 1000000)
			continue;
		if (e->key.kind == SCHEDTIME_ONCPU)
			snprintf(other, sizeof(other), "-");
		else
			probe_schedtime_other_str(&e->key, other, sizeof(other));
		printf("key %.16s %s %s %.4f |", e->key.comm, kind_name(e->key.kind), other,
		       e->val.total_ns / 1e9);
		for (unsigned f = 0; f < e->nframes; f++)
			printf(" %s", e->frames[f]);
		printf("\n");
	}
	printf("secs %.4f\n", s->secs);
	printf("counters switches %llu wakeups %llu task %llu hardirq %llu softirq %llu unseen %llu "
	       "map_full %llu stack_error %llu via_sender %llu sent %llu delivered %llu\n",
	       (unsigned long long)s->ctr.switches, (unsigned long long)s->ctr.wakeups,
	       (unsigned long long)s->ctr.wake_task, (unsigned long long)s->ctr.wake_hardirq,
	       (unsigned long long)s->ctr.wake_softirq, (unsigned long long)s->ctr.unseen_wakeups,
	       (unsigned long long)s->ctr.map_full, (unsigned long long)s->ctr.stack_error,
	       (unsigned long long)s->ctr.wake_sender, (unsigned long long)s->ctr.sent,
	       (unsigned long long)s->ctr.delivered);
	for (int i = 0; i < nthr; i++)
		printf("thread %s oncpu %.4f blocked %.4f runnable %.4f wall %.4f\n", thr[i].comm,
		       thr[i].ns[SCHEDTIME_ONCPU] / 1e9, thr[i].ns[SCHEDTIME_BLOCKED] / 1e9,
		       thr[i].ns[SCHEDTIME_RUNNABLE] / 1e9,
		       (thr[i].ns[1] + thr[i].ns[2] + thr[i].ns[3]) / 1e9);
	printf("window_s %.4f\n", now() - t0);
	printf("windows %u windows_s %.4f slowest_sleep_s %.4f slowest_read_s %.4f\n", nwin, win_secs,
	       slept, slowest);
	printf("cumulative_blocked_s %.4f windows_blocked_s %.4f\n", cum_blocked, win_blocked);
	probe_schedtime_snap_free(s);
	probe_schedtime_close(ps);
	close(wp[1]);
	for (int i = 0; i < 5; i++)
		waitpid(p[i], NULL, 0);
	ksym_free(ks);
	return 0;
}

static int pingpong_only(double secs, const char *mode)
{
	int probe = mode && (!strncmp(mode, "all", 3) || !strncmp(mode, "self", 4) ||
			     !strncmp(mode, "other", 5));
	int self = probe && !strncmp(mode, "self", 4);
	int other = probe && !strncmp(mode, "other", 5);
	uint32_t tg;
	struct probe_schedtime_opts o = { 0 };
	struct probe_schedtime *ps = NULL;
	struct schedtime_counters c;
	char *cause = NULL;
	uint64_t ns = 0, cnt = 0;
	int go[2];
	pid_t p;

	if (pipe(go))
		return 1;
	fflush(stdout);
	p = spawn("st-ping", go[0], pingpong, secs);
	if (probe) {
		o.exclude_tgid = (uint32_t)getpid();
		o.stats = strstr(mode, "stats") != NULL;
		o.exact = strstr(mode, "exact") != NULL;
		if (self) {
			tg = (uint32_t)p;
			o.tgids = &tg;
			o.ntgids = 1;
			o.follow_forks = 1;
			o.windows = 1;
		} else if (other) {
			/* a victim that is not the ping-pong: the shell that runs
			 * this, waiting; the ping-pong is the aggressor, not
			 * followed (the early exit's case, issue 26) */
			tg = (uint32_t)getppid();
			o.tgids = &tg;
			o.ntgids = 1;
			o.follow_forks = 1;
			o.windows = 1;
		}
		ps = probe_schedtime_open(&o, &cause);
		if (!ps) {
			printf("cause %s\n", cause ? cause : "?");
			kill(p, SIGKILL);
			return 3;
		}
	}
	if (write(go[1], "x", 1) != 1)
		return 1;
	waitpid(p, NULL, 0);
	if (ps) {
		probe_schedtime_counters(ps, &c);
		probe_schedtime_runtime(ps, &ns, &cnt);
		printf("events %llu bpf_ns %llu bpf_runs %llu map_full %llu intervals %llu unsampled %llu\n",
		       (unsigned long long)c.switches, (unsigned long long)ns, (unsigned long long)cnt,
		       (unsigned long long)c.map_full, (unsigned long long)c.intervals,
		       (unsigned long long)c.unsampled);
		probe_schedtime_close(ps);
	}
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "account"))
		return account(atof(argv[2]));
	if (argc >= 3 && !strcmp(argv[1], "pingpong"))
		return pingpong_only(atof(argv[2]), argc > 3 ? argv[3] : NULL);
	fprintf(stderr, "usage: schedtime_run account SECS | pingpong SECS [all|self|other][-exact][-stats]\n");
	return 2;
}
