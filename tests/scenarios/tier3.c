/* tier3 — a 3-tier closed loop for `argus model`: N client threads with a
 * think time -> a front process -> a back process, over loopback sockets
 * (AF_UNIX stream by default, TCP on 127.0.0.1 with --tcp).
 *
 *   client (this process, N threads "t3-client"): think --think-ms (a timer
 *     sleep), send a request to the front, wait for the reply; the response
 *     time is measured per request.
 *   front  (this program re-executed with --role front): one thread
 *     "t3-front" per client connection: --front-us of CPU, then one call to
 *     the back over a connection of its own, then the reply.
 *   back   (--role back): one thread "t3-back" per front connection:
 *     --back-us of CPU, then --lock-us of CPU holding one process-wide
 *     pthread mutex (the lock), then --io reads of 4 KiB with O_DIRECT at
 *     random offsets of a --mib MiB file (real disk reads), then the reply.
 *
 * CPU work is measured in thread CPU time, so a request's CPU demand does
 * not depend on how often it is preempted.  The front and the back are
 * separate processes (their own cmdline), so /proc names them.
 *
 * Output: "tier3: steady begin" after --warmup seconds and "tier3: steady
 * end" at the end (phase marks for `argus model --mark`), then one line
 *   tier3: clients=N ops=.. seconds=.. ops_per_sec=.. resp_ms=..
 * counted between the marks only.  With --progress S, every S seconds
 *   tier3: at T s N requests
 * the requests answered since the start (T seconds after it), and once
 * more when the clients have ended, so a test
 * can count those of any span (the windows a model was built from). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "scen.h"

#define T3_MSG 64
#define T3_BLOCK 4096

struct t3_opts {
	unsigned clients;
	double seconds, warmup_s, think_ms, progress_s;
	unsigned front_us, back_us, lock_us, io;
	unsigned mib;
	int tcp;
	const char *file;
};

static struct t3_opts opt = {
	.clients = 4, .think_ms = 20, .warmup_s = 1,
	.front_us = 300, .back_us = 400, .lock_us = 500, .io = 1, .mib = 16,
};

struct t3_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

static struct t3_addr t3_back_addr;

static double t3_cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Spins for us microseconds of this thread's CPU time. */
static void t3_work(unsigned us)
{
	double end = t3_cpu_now() + us / 1e6;
	volatile unsigned long x = 0;

	while (t3_cpu_now() < end)
		for (int i = 0; i < 200; i++)
			x += i;
}

static int t3_full(int fd, void *buf, size_t len, int wr)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int t3_connect(const struct t3_addr *a)
{
	int fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)&a->ss, a->len)) {
		close(fd);
		return -1;
	}
	if (a->ss.ss_family == AF_INET)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* A listening socket: an abstract AF_UNIX name, or 127.0.0.1 on a port the
 * kernel picks; *a receives the address to connect to. */
static int t3_listen(const char *tag, struct t3_addr *a)
{
	int fd, one = 1;

	memset(a, 0, sizeof(*a));
	if (opt.tcp) {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->len = sizeof(*in);
	} else {
		struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;
		int n;

		un->sun_family = AF_UNIX;
		n = snprintf(un->sun_path + 1, sizeof(un->sun_path) - 1, "argus-tier3-%d-%s",
			     (int)getpid(), tag);
		a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	}
	fd = socket(a->ss.ss_family, SOCK_STREAM, 0); /* inherited by the tiers */
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a->ss, a->len) || listen(fd, 256)) {
		close(fd);
		return -1;
	}
	if (opt.tcp)
		getsockname(fd, (struct sockaddr *)&a->ss, &a->len);
	return fd;
}

/* "@name" (abstract AF_UNIX) or "port" (127.0.0.1): how the front is told
 * where the back listens. */
static void t3_format_addr(const struct t3_addr *a, char *buf, size_t len)
{
	if (a->ss.ss_family == AF_INET)
		snprintf(buf, len, "%u", ntohs(((const struct sockaddr_in *)&a->ss)->sin_port));
	else
		snprintf(buf, len, "@%s", ((const struct sockaddr_un *)&a->ss)->sun_path + 1);
}

static int t3_parse_addr(const char *s, struct t3_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (s[0] == '@') {
		struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;
		size_t n = strlen(s + 1);

		if (n + 2 > sizeof(un->sun_path))
			return -1;
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path + 1, s + 1, n);
		a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)&a->ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		in->sin_port = htons((uint16_t)atoi(s));
		a->len = sizeof(*in);
	}
	return 0;
}

/* ---- back ---- */

static pthread_mutex_t t3_lock = PTHREAD_MUTEX_INITIALIZER;
static int t3_file = -1;

static void *t3_back_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char msg[T3_MSG];
	void *blk = NULL;
	unsigned seed = (unsigned)fd * 7919u;
	off_t nblocks = (off_t)opt.mib * (1 << 20) / T3_BLOCK;

	prctl(PR_SET_NAME, "t3-back");
	if (posix_memalign(&blk, T3_BLOCK, T3_BLOCK))
		goto out;
	while (!t3_full(fd, msg, sizeof(msg), 0)) {
		t3_work(opt.back_us);
		pthread_mutex_lock(&t3_lock);
		t3_work(opt.lock_us);
		pthread_mutex_unlock(&t3_lock);
		for (unsigned i = 0; i < opt.io; i++) {
			off_t b = (off_t)(rand_r(&seed) % nblocks);

			if (pread(t3_file, blk, T3_BLOCK, b * T3_BLOCK) < 0) {
				perror("tier3: back: pread");
				goto out;
			}
		}
		if (t3_full(fd, msg, sizeof(msg), 1))
			break;
	}
out:
	free(blk);
	close(fd);
	return NULL;
}

/* The data file: written once, synced, dropped from the page cache,
 * unlinked while open (nothing is left behind), read with O_DIRECT. */
static int t3_back_file(void)
{
	char path[256], *buf;
	int fd;

	if (opt.file)
		snprintf(path, sizeof(path), "%s", opt.file);
	else
		snprintf(path, sizeof(path), "/var/tmp/argus-tier3.%d.dat", (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		fprintf(stderr, "tier3: back: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	buf = malloc(1 << 20);
	if (!buf) {
		close(fd);
		return -1;
	}
	for (unsigned i = 0; i < (1u << 20); i++)
		buf[i] = (char)(i * 31u);
	for (unsigned m = 0; m < opt.mib; m++)
		if (write(fd, buf, 1 << 20) != 1 << 20) {
			fprintf(stderr, "tier3: back: cannot write %s: %s\n", path, strerror(errno));
			free(buf);
			close(fd);
			unlink(path);
			return -1;
		}
	free(buf);
	fsync(fd);
	close(fd);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	unlink(path);
	if (fd < 0)
		fprintf(stderr, "tier3: back: cannot open %s with O_DIRECT: %s\n", path,
			strerror(errno));
	return fd;
}

static int t3_serve(int lfd, void *(*conn)(void *))
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), one = 1;
		pthread_t th;

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return 1;
		}
		if (opt.tcp)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (pthread_create(&th, NULL, conn, (void *)(intptr_t)fd)) {
			close(fd);
			continue;
		}
		pthread_detach(th);
	}
}

/* ---- front ---- */

static void *t3_front_conn(void *arg)
{
	int fd = (int)(intptr_t)arg, bfd;
	char msg[T3_MSG];

	prctl(PR_SET_NAME, "t3-front");
	bfd = t3_connect(&t3_back_addr);
	if (bfd < 0) {
		perror("tier3: front: connect to the back");
		close(fd);
		return NULL;
	}
	while (!t3_full(fd, msg, sizeof(msg), 0)) {
		t3_work(opt.front_us);
		if (t3_full(bfd, msg, sizeof(msg), 1) || t3_full(bfd, msg, sizeof(msg), 0) ||
		    t3_full(fd, msg, sizeof(msg), 1))
			break;
	}
	close(bfd);
	close(fd);
	return NULL;
}

/* ---- client ---- */

static double t3_begin_at, t3_end_at;
static pthread_mutex_t t3_stat_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long t3_ops;
static unsigned long long t3_answered; /* all, for --progress (atomic) */
static double t3_resp_sum;
static struct t3_addr t3_front_addr;

static void *t3_client(void *arg)
{
	char msg[T3_MSG] = "request";
	struct timespec think = {
		.tv_sec = (time_t)(opt.think_ms / 1000),
		.tv_nsec = (long)((opt.think_ms - 1000.0 * (time_t)(opt.think_ms / 1000)) * 1e6),
	};
	unsigned long long ops = 0;
	double resp = 0;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "t3-client");
	fd = t3_connect(&t3_front_addr);
	if (fd < 0) {
		perror("tier3: client: connect to the front");
		return NULL;
	}
	while (scen_running(t3_end_at)) {
		double t, now;

		if (opt.think_ms > 0)
			nanosleep(&think, NULL);
		t = scen_now();
		if (t3_full(fd, msg, sizeof(msg), 1) || t3_full(fd, msg, sizeof(msg), 0))
			break;
		now = scen_now();
		__atomic_add_fetch(&t3_answered, 1, __ATOMIC_RELAXED);
		if (t >= t3_begin_at && (t3_end_at == 0 || now <= t3_end_at)) {
			ops++;
			resp += now - t;
		}
	}
	close(fd);
	pthread_mutex_lock(&t3_stat_lock);
	t3_ops += ops;
	t3_resp_sum += resp;
	pthread_mutex_unlock(&t3_stat_lock);
	return NULL;
}

/* Re-executes this program as one tier, with its listening socket lfd
 * (the other listening socket, other, is closed in the child) and, for the
 * front, the back's address in back. */
static pid_t t3_spawn(const char *self, const char *role, int lfd, int other,
		      const char *backarg)
{
	char fdarg[16], mib[16], fu[16], bu[16], lu[16], io[16];
	char *argv[24];
	int n = 0;
	pid_t pid;

	snprintf(fdarg, sizeof(fdarg), "%d", lfd);
	snprintf(mib, sizeof(mib), "%u", opt.mib);
	snprintf(fu, sizeof(fu), "%u", opt.front_us);
	snprintf(bu, sizeof(bu), "%u", opt.back_us);
	snprintf(lu, sizeof(lu), "%u", opt.lock_us);
	snprintf(io, sizeof(io), "%u", opt.io);
	argv[n++] = (char *)self;
	argv[n++] = "--role";
	argv[n++] = (char *)role;
	argv[n++] = "--listen-fd";
	argv[n++] = fdarg;
	argv[n++] = "--front-us"; argv[n++] = fu;
	argv[n++] = "--back-us"; argv[n++] = bu;
	argv[n++] = "--lock-us"; argv[n++] = lu;
	argv[n++] = "--io"; argv[n++] = io;
	argv[n++] = "--mib"; argv[n++] = mib;
	if (opt.tcp)
		argv[n++] = "--tcp";
	if (opt.file) {
		argv[n++] = "--file";
		argv[n++] = (char *)opt.file;
	}
	if (backarg) {
		argv[n++] = "--back";
		argv[n++] = (char *)backarg;
	}
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		close(other);
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	return pid;
}

static const char t3_usage[] =
	"usage: tier3 [--clients N] [--seconds S] [--think-ms T] [--warmup S] [--tcp]\n"
	"             [--front-us U] [--back-us U] [--lock-us U] [--io N] [--mib M] [--file PATH]\n"
	"             [--progress S]\n";

/* Waits 10 ms, and says the requests answered so far when --progress
 * asks (*next: when next). */
static void t3_tick(double t0, double *next)
{
	usleep(10000);
	if (opt.progress_s <= 0 || scen_now() < *next)
		return;
	*next += opt.progress_s;
	printf("tier3: at %.3f s %llu requests\n", scen_now() - t0,
	       __atomic_load_n(&t3_answered, __ATOMIC_RELAXED));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "clients", required_argument, NULL, 'c' },
		{ "seconds", required_argument, NULL, 's' },
		{ "think-ms", required_argument, NULL, 't' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "front-us", required_argument, NULL, 'F' },
		{ "back-us", required_argument, NULL, 'B' },
		{ "lock-us", required_argument, NULL, 'L' },
		{ "io", required_argument, NULL, 'i' },
		{ "mib", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ "tcp", no_argument, NULL, 'T' },
		{ "role", required_argument, NULL, 'r' },
		{ "listen-fd", required_argument, NULL, 'l' },
		{ "back", required_argument, NULL, 'b' },
		{ "progress", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *role = NULL, *backarg = NULL;
	char backbuf[128];
	int lfd = -1, c, bl, fl;
	pthread_t *th;
	pid_t back, front;
	double t0, next;

	while ((c = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (c) {
		case 'c': opt.clients = (unsigned)strtoul(optarg, NULL, 10); break;
		case 's': opt.seconds = strtod(optarg, NULL); break;
		case 't': opt.think_ms = strtod(optarg, NULL); break;
		case 'w': opt.warmup_s = strtod(optarg, NULL); break;
		case 'F': opt.front_us = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'B': opt.back_us = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'L': opt.lock_us = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'i': opt.io = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'm': opt.mib = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': opt.file = optarg; break;
		case 'P': opt.progress_s = strtod(optarg, NULL); break;
		case 'T': opt.tcp = 1; break;
		case 'r': role = optarg; break;
		case 'l': lfd = atoi(optarg); break;
		case 'b': backarg = optarg; break;
		case 'h': fputs(t3_usage, stdout); return 0;
		default: fputs(t3_usage, stderr); return 2;
		}
	}
	if (opt.clients == 0 || opt.clients > 4096 || opt.mib == 0 || opt.think_ms < 0) {
		fputs("tier3: give --clients 1..4096, --mib >= 1, --think-ms >= 0\n", stderr);
		return 2;
	}
	if (role && !strcmp(role, "back")) {
		prctl(PR_SET_NAME, "t3-back-main");
		if (opt.io) {
			t3_file = t3_back_file();
			if (t3_file < 0)
				return 1;
		}
		return t3_serve(lfd, t3_back_conn);
	}
	if (role && !strcmp(role, "front")) {
		prctl(PR_SET_NAME, "t3-front-main");
		if (!backarg || t3_parse_addr(backarg, &t3_back_addr)) {
			fputs("tier3: front: missing or bad --back\n", stderr);
			return 2;
		}
		return t3_serve(lfd, t3_front_conn);
	}
	if (role) {
		fprintf(stderr, "tier3: unknown --role '%s'\n", role);
		return 2;
	}

	fl = t3_listen("front", &t3_front_addr);
	bl = t3_listen("back", &t3_back_addr);
	if (fl < 0 || bl < 0) {
		perror("tier3: cannot listen");
		return 1;
	}
	t3_format_addr(&t3_back_addr, backbuf, sizeof(backbuf));
	back = t3_spawn(argv[0], "back", bl, fl, NULL);
	front = t3_spawn(argv[0], "front", fl, bl, backbuf);
	close(bl);
	close(fl);
	if (back < 0 || front < 0) {
		perror("tier3: fork");
		return 1;
	}
	t3_end_at = scen_begin(opt.seconds);
	t0 = scen_now();
	t3_begin_at = t0 + opt.warmup_s;
	next = t0 + opt.progress_s;
	th = calloc(opt.clients, sizeof(*th));
	if (!th)
		return 1;
	/* the tiers are ready when the front accepts (its listen queue holds
	 * the connections until then) */
	for (unsigned i = 0; i < opt.clients; i++)
		if (pthread_create(&th[i], NULL, t3_client, NULL)) {
			perror("tier3: pthread_create");
			return 1;
		}
	while (scen_running(t3_begin_at) && scen_running(t3_end_at))
		t3_tick(t0, &next);
	printf("tier3: steady begin\n");
	fflush(stdout);
	while (opt.progress_s > 0 && scen_running(t3_end_at))
		t3_tick(t0, &next);
	for (unsigned i = 0; i < opt.clients; i++)
		pthread_join(th[i], NULL);
	if (t3_end_at == 0 || scen_now() < t3_end_at)
		t3_end_at = scen_now(); /* stopped by a signal */
	if (opt.progress_s > 0) { /* and the last */
		next = 0;
		t3_tick(t0, &next);
	}
	printf("tier3: steady end\n");
	{
		double secs = t3_end_at - t3_begin_at;

		printf("tier3: clients=%u ops=%llu seconds=%.3f ops_per_sec=%.1f resp_ms=%.3f\n",
		       opt.clients, t3_ops, secs, secs > 0 ? t3_ops / secs : 0.0,
		       t3_ops ? t3_resp_sum / t3_ops * 1e3 : 0.0);
	}
	fflush(stdout);
	free(th);
	kill(front, SIGTERM);
	kill(back, SIGTERM);
	waitpid(front, NULL, 0);
	waitpid(back, NULL, 0);
	return 0;
}
