/* csapp — a family of closed-loop client/server apps for `argus model`
 * (issue 25): one program, the structure chosen by options, so the bench
 * can try the model on structures argus's own tier3 does not have.
 *
 *   --ipc pipe|unix|tcp|udp|socketpair   how a request travels
 *   --server epoll|thread|pool|fork      one thread with epoll over every
 *        connection; a thread per connection; --pool K worker threads on
 *        one epoll (EPOLLONESHOT); a process per connection (fork)
 *   --clients-as threads|procs           N client threads of this process
 *        beside a main thread that only waits (a sleep loop watching the
 *        clock), or N client processes (fork) and a waiting parent
 *   --work-us U      CPU per request in the server (thread CPU time)
 *   --lock-us L      then L us of CPU inside one mutex shared by every
 *        server thread and process (process-shared, in shared memory)
 *   --disk           then one 4 KiB O_DIRECT read at a random offset of a
 *        16 MiB file (real disk reads)
 *   --chain          the server calls a back tier (one process "cs-back",
 *        a thread per connection, --back-us of CPU) over Unix stream
 *        sockets before it replies: a multi-tier chain
 *   --think-ms T     each client's think time (a timer sleep)
 * Names: clients "cs-client", the server "cs-server", the back "cs-back",
 * the waiting main thread "cs-main".
 *
 * Output: "csapp: steady begin" after --warmup seconds, then at the end
 *   csapp: clients=N ops=.. seconds=.. ops_per_sec=.. resp_ms=..
 * counted after the warmup. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "scen.h"

#define CS_MSG 64
#define CS_MAXC 256
#define CS_BLOCK 4096

enum { IPC_PIPE, IPC_UNIX, IPC_TCP, IPC_UDP, IPC_SOCKPAIR };
enum { SRV_EPOLL, SRV_THREAD, SRV_POOL, SRV_FORK };

static struct {
	unsigned clients, pool, work_us, lock_us, back_us;
	double seconds, warmup_s, think_ms;
	int ipc, server, procs, disk, chain;
} opt = { .clients = 2, .pool = 2, .work_us = 500, .back_us = 300, .seconds = 10,
	  .warmup_s = 1, .think_ms = 5 };

/* shared by every process of the app */
struct cs_shared {
	pthread_mutex_t lock;
	unsigned long long ops[CS_MAXC];
	double resp_s[CS_MAXC];
	volatile int measuring, stop;
};
static struct cs_shared *sh;
static int cs_file = -1;
static char cs_path[108], cs_back_path[108], cs_data[64];
static struct sockaddr_in cs_tcp;
/* per client c: its two ends (client side cfd_r/cfd_w, server sfd_r/sfd_w) */
static int cfd_r[CS_MAXC], cfd_w[CS_MAXC], sfd_r[CS_MAXC], sfd_w[CS_MAXC];
static int cs_listen_fd = -1;

static double cs_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void cs_work(unsigned us)
{
	double end = cs_cpu() + us / 1e6;

	while (us && cs_cpu() < end)
		;
}

static int cs_full(int fd, void *buf, size_t len, int wr)
{
	size_t o = 0;

	while (o < len) {
		ssize_t n = wr ? write(fd, (char *)buf + o, len - o) : read(fd, (char *)buf + o, len - o);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		o += (size_t)n;
	}
	return 0;
}

static void cs_name(const char *n)
{
	prctl(PR_SET_NAME, n, 0, 0, 0);
}

/* a process of the app dies with its parent (argus may SIGKILL the load) */
static void cs_child(const char *n)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	cs_name(n);
}

static int cs_unix_connect(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	for (int i = 0; fd >= 0 && i < 200; i++) {
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return fd;
		usleep(10000);
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static int cs_unix_listen(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 64))
		return -1;
	return fd;
}

/* ---- the back tier: a thread per connection ---- */

static void *cs_back_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char m[CS_MSG];

	while (!cs_full(fd, m, sizeof(m), 0)) {
		cs_work(opt.back_us);
		if (cs_full(fd, m, sizeof(m), 1))
			break;
	}
	close(fd);
	return NULL;
}

static void cs_back_main(int lfd)
{
	cs_child("cs-back");
	for (;;) {
		pthread_t t;
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0) {
			if (errno == EINTR)
				continue;
			_exit(0);
		}
		pthread_create(&t, NULL, cs_back_conn, (void *)(intptr_t)fd);
		pthread_detach(t);
	}
}

/* ---- a request in the server ---- */

/* One request's work; back: this handler's connection to the back (or -1). */
static void cs_serve(int *back)
{
	char m[CS_MSG] = { 0 };

	cs_work(opt.work_us);
	if (opt.lock_us) {
		pthread_mutex_lock(&sh->lock);
		cs_work(opt.lock_us);
		pthread_mutex_unlock(&sh->lock);
	}
	if (opt.disk && cs_file >= 0) {
		static __thread void *blk;

		if (blk || !posix_memalign(&blk, CS_BLOCK, CS_BLOCK)) {
			off_t off = (off_t)(random() % (16 * 1024 * 1024 / CS_BLOCK)) * CS_BLOCK;

			if (pread(cs_file, blk, CS_BLOCK, off) < 0)
				perror("csapp: pread");
		}
	}
	if (opt.chain) {
		if (*back < 0)
			*back = cs_unix_connect(cs_back_path);
		if (*back >= 0 && (cs_full(*back, m, sizeof(m), 1) || cs_full(*back, m, sizeof(m), 0))) {
			close(*back);
			*back = -1;
		}
	}
}

/* Reads one request from r and answers on w; UDP: one datagram on r.
 * 0, or -1 when the connection ended. */
static int cs_one(int r, int w, int *back)
{
	char m[CS_MSG];

	if (opt.ipc == IPC_UDP) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		ssize_t n = recvfrom(r, m, sizeof(m), 0, (struct sockaddr *)&ss, &sl);

		if (n <= 0)
			return n < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
		cs_serve(back);
		sendto(r, m, (size_t)n, 0, (struct sockaddr *)&ss, sl);
		return 0;
	}
	if (cs_full(r, m, sizeof(m), 0))
		return -1;
	cs_serve(back);
	return cs_full(w, m, sizeof(m), 1);
}

struct cs_conn { int r, w; };

static void *cs_conn_thread(void *arg)
{
	struct cs_conn c = *(struct cs_conn *)arg;
	int back = -1;

	free(arg);
	while (!cs_one(c.r, c.w, &back))
		;
	return NULL;
}

/* the connections the server gets: accepted (unix, tcp) or made before
 * (pipe, socketpair: index i); -1 when there are no more */
static int cs_next_conn(unsigned *i, struct cs_conn *c)
{
	if (opt.ipc == IPC_UNIX || opt.ipc == IPC_TCP) {
		int fd = accept(cs_listen_fd, NULL, NULL), one = 1;

		if (fd < 0)
			return -1;
		if (opt.ipc == IPC_TCP)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->r = c->w = fd;
		return 0;
	}
	if (*i >= opt.clients)
		return -1;
	c->r = sfd_r[*i];
	c->w = sfd_w[*i];
	(*i)++;
	return 0;
}

static int pool_ep;

static void *cs_pool_worker(void *arg)
{
	int back = -1;

	(void)arg;
	for (;;) {
		struct epoll_event ev;
		struct cs_conn *c;

		if (epoll_wait(pool_ep, &ev, 1, -1) != 1)
			continue;
		c = ev.data.ptr;
		if (cs_one(c->r, c->w, &back))
			continue; /* ended: not rearmed */
		ev.events = EPOLLIN | EPOLLONESHOT;
		epoll_ctl(pool_ep, EPOLL_CTL_MOD, c->r, &ev);
	}
	return NULL;
}

static void cs_server_main(void)
{
	unsigned i = 0, n = 0;
	struct cs_conn c, conns[CS_MAXC];
	int ep, back = -1;

	cs_child("cs-server");
	/* the clients' ends are theirs alone: a handler sees the end of a pipe */
	for (unsigned k = 0; (opt.ipc == IPC_PIPE || opt.ipc == IPC_SOCKPAIR) && k < opt.clients; k++) {
		close(cfd_r[k]);
		if (cfd_w[k] != cfd_r[k])
			close(cfd_w[k]);
	}
	switch (opt.server) {
	case SRV_EPOLL:
		ep = epoll_create1(0);
		if (opt.ipc == IPC_UDP) {
			conns[n].r = conns[n].w = sfd_r[0];
			n++;
		} else if (opt.ipc == IPC_UNIX || opt.ipc == IPC_TCP) {
			conns[n].r = conns[n].w = cs_listen_fd; /* the listener: accept */
			n++;
		} else {
			while (!cs_next_conn(&i, &c) && n < CS_MAXC)
				conns[n++] = c;
		}
		for (unsigned k = 0; k < n; k++) {
			struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &conns[k] };

			epoll_ctl(ep, EPOLL_CTL_ADD, conns[k].r, &ev);
		}
		for (;;) {
			struct epoll_event evs[16];
			int k = epoll_wait(ep, evs, 16, -1);

			for (int e = 0; e < k; e++) {
				struct cs_conn *cc = evs[e].data.ptr;

				if (cc->r == cs_listen_fd && opt.ipc != IPC_UDP) {
					struct epoll_event ev = { .events = EPOLLIN };

					if (cs_next_conn(&i, &c) || n == CS_MAXC)
						continue;
					conns[n] = c;
					ev.data.ptr = &conns[n++];
					epoll_ctl(ep, EPOLL_CTL_ADD, c.r, &ev);
				} else if (cs_one(cc->r, cc->w, &back)) {
					epoll_ctl(ep, EPOLL_CTL_DEL, cc->r, NULL);
				}
			}
		}
	case SRV_POOL:
		pool_ep = epoll_create1(0);
		for (unsigned k = 0; k < opt.pool; k++) {
			pthread_t t;

			pthread_create(&t, NULL, cs_pool_worker, NULL);
		}
		if (opt.ipc == IPC_UDP) {
			static struct cs_conn u;
			struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &u };

			/* every worker may take the next datagram */
			u.r = u.w = sfd_r[0];
			fcntl(u.r, F_SETFL, O_NONBLOCK);
			epoll_ctl(pool_ep, EPOLL_CTL_ADD, u.r, &ev);
			for (;;)
				pause();
		}
		while (!cs_next_conn(&i, &c) && n < CS_MAXC) {
			struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };

			conns[n] = c;
			ev.data.ptr = &conns[n++];
			epoll_ctl(pool_ep, EPOLL_CTL_ADD, c.r, &ev);
		}
		for (;;)
			pause();
	case SRV_THREAD:
		if (opt.ipc == IPC_UDP) {
			fprintf(stderr, "csapp: --server thread has no connections over udp\n");
			_exit(2);
		}
		while (!cs_next_conn(&i, &c)) {
			struct cs_conn *p = malloc(sizeof(*p));
			pthread_t t;

			*p = c;
			pthread_create(&t, NULL, cs_conn_thread, p);
			pthread_detach(t);
		}
		for (;;)
			pause();
	case SRV_FORK:
		if (opt.ipc == IPC_UDP) {
			fprintf(stderr, "csapp: --server fork has no connections over udp\n");
			_exit(2);
		}
		signal(SIGCHLD, SIG_IGN);
		while (!cs_next_conn(&i, &c)) {
			if (fork() == 0) {
				cs_child("cs-handler");
				while (!cs_one(c.r, c.w, &back))
					;
				_exit(0);
			}
			if (opt.ipc == IPC_UNIX || opt.ipc == IPC_TCP)
				close(c.r);
		}
		for (;;)
			pause();
	}
	_exit(0);
}

/* ---- clients ---- */

static int cs_client_fds(unsigned k, int *r, int *w)
{
	int one = 1;

	switch (opt.ipc) {
	case IPC_PIPE:
	case IPC_SOCKPAIR:
		*r = cfd_r[k];
		*w = cfd_w[k];
		return 0;
	case IPC_UNIX:
		*r = *w = cs_unix_connect(cs_path);
		return *r < 0 ? -1 : 0;
	case IPC_TCP:
	case IPC_UDP:
		*r = *w = socket(AF_INET, opt.ipc == IPC_TCP ? SOCK_STREAM : SOCK_DGRAM, 0);
		if (*r < 0)
			return -1;
		if (opt.ipc == IPC_TCP)
			setsockopt(*r, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		for (int i = 0; i < 200; i++) {
			if (!connect(*r, (struct sockaddr *)&cs_tcp, sizeof(cs_tcp)))
				return 0;
			usleep(10000);
		}
		return -1;
	}
	return -1;
}

static void *cs_client(void *arg)
{
	unsigned k = (unsigned)(uintptr_t)arg;
	struct timespec think = { (time_t)(opt.think_ms / 1000),
				  (long)((opt.think_ms - 1000 * (time_t)(opt.think_ms / 1000)) * 1e6) };
	char m[CS_MSG] = { 0 };
	int r, w;

	cs_name("cs-client");
	if (cs_client_fds(k, &r, &w)) {
		fprintf(stderr, "csapp: client %u cannot connect: %s\n", k, strerror(errno));
		return NULL;
	}
	while (!sh->stop) {
		double t0;

		if (opt.think_ms > 0)
			nanosleep(&think, NULL);
		t0 = scen_now();
		if (opt.ipc == IPC_UDP) {
			if (send(w, m, sizeof(m), 0) < 0 || recv(r, m, sizeof(m), 0) <= 0)
				break;
		} else if (cs_full(w, m, sizeof(m), 1) || cs_full(r, m, sizeof(m), 0)) {
			break;
		}
		if (sh->measuring) {
			sh->ops[k]++;
			sh->resp_s[k] += scen_now() - t0;
		}
	}
	return NULL;
}

static int cs_arg(const char *v, const char *const *names, int n, const char *what)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return i;
	fprintf(stderr, "csapp: bad --%s '%s'\n", what, v);
	exit(2);
}

int main(int argc, char **argv)
{
	static const char *const ipcs[] = { "pipe", "unix", "tcp", "udp", "socketpair" };
	static const char *const srvs[] = { "epoll", "thread", "pool", "fork" };
	static const char *const cls[] = { "threads", "procs" };
	static const struct option lo[] = {
		{ "ipc", 1, NULL, 'i' }, { "server", 1, NULL, 's' }, { "clients-as", 1, NULL, 'a' },
		{ "clients", 1, NULL, 'c' }, { "pool", 1, NULL, 'P' }, { "work-us", 1, NULL, 'u' },
		{ "lock-us", 1, NULL, 'l' }, { "back-us", 1, NULL, 'b' }, { "disk", 0, NULL, 'D' },
		{ "chain", 0, NULL, 'C' }, { "think-ms", 1, NULL, 't' }, { "seconds", 1, NULL, 'S' },
		{ "warmup", 1, NULL, 'W' }, { NULL, 0, NULL, 0 },
	};
	pid_t server = -1, back = -1, kids[CS_MAXC];
	pthread_t th[CS_MAXC];
	pthread_mutexattr_t ma;
	double t0, t1, end;
	unsigned long long ops = 0;
	double resp = 0;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i': opt.ipc = cs_arg(optarg, ipcs, 5, "ipc"); break;
		case 's': opt.server = cs_arg(optarg, srvs, 4, "server"); break;
		case 'a': opt.procs = cs_arg(optarg, cls, 2, "clients-as"); break;
		case 'c': opt.clients = (unsigned)atoi(optarg); break;
		case 'P': opt.pool = (unsigned)atoi(optarg); break;
		case 'u': opt.work_us = (unsigned)atoi(optarg); break;
		case 'l': opt.lock_us = (unsigned)atoi(optarg); break;
		case 'b': opt.back_us = (unsigned)atoi(optarg); break;
		case 'D': opt.disk = 1; break;
		case 'C': opt.chain = 1; break;
		case 't': opt.think_ms = atof(optarg); break;
		case 'S': opt.seconds = atof(optarg); break;
		case 'W': opt.warmup_s = atof(optarg); break;
		default:
			fprintf(stderr, "usage: csapp [--ipc pipe|unix|tcp|udp|socketpair] [--server "
				"epoll|thread|pool|fork] [--clients-as threads|procs] [--clients N] [--pool K] "
				"[--work-us U] [--lock-us L] [--disk] [--chain [--back-us B]] [--think-ms T] "
				"[--seconds S] [--warmup S]\n");
			return 2;
		}
	}
	if (!opt.clients || opt.clients > CS_MAXC || !opt.pool || opt.pool > 64) {
		fprintf(stderr, "csapp: --clients 1..%d, --pool 1..64\n", CS_MAXC);
		return 2;
	}
	/* the server is ended before the clients: a client writing then must
	 * see EPIPE, not die of SIGPIPE before the throughput line */
	signal(SIGPIPE, SIG_IGN);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&sh->lock, &ma);
	snprintf(cs_path, sizeof(cs_path), "/tmp/csapp-%d.sock", (int)getpid());
	snprintf(cs_back_path, sizeof(cs_back_path), "/tmp/csapp-%d.back", (int)getpid());
	if (opt.disk) {
		char *buf = calloc(1, 1 << 20);

		snprintf(cs_data, sizeof(cs_data), "/var/tmp/csapp-%d.data", (int)getpid());
		cs_file = open(cs_data, O_RDWR | O_CREAT | O_TRUNC, 0600);
		for (int i = 0; buf && cs_file >= 0 && i < 16; i++)
			if (write(cs_file, buf, 1 << 20) != 1 << 20)
				break;
		free(buf);
		if (cs_file >= 0) {
			fsync(cs_file);
			close(cs_file);
			cs_file = open(cs_data, O_RDONLY | O_DIRECT);
		}
		unlink(cs_data);
		if (cs_file < 0) {
			perror("csapp: the data file");
			return 1;
		}
	}
	switch (opt.ipc) {
	case IPC_PIPE:
	case IPC_SOCKPAIR:
		for (unsigned k = 0; k < opt.clients; k++) {
			int a[2], b[2];

			if (opt.ipc == IPC_PIPE ? pipe(a) || pipe(b)
			    : socketpair(AF_UNIX, SOCK_STREAM, 0, a)) {
				perror("csapp: pipe");
				return 1;
			}
			if (opt.ipc == IPC_PIPE) {
				cfd_w[k] = a[1]; sfd_r[k] = a[0];
				sfd_w[k] = b[1]; cfd_r[k] = b[0];
			} else {
				cfd_r[k] = cfd_w[k] = a[0];
				sfd_r[k] = sfd_w[k] = a[1];
			}
		}
		break;
	case IPC_UNIX:
		cs_listen_fd = cs_unix_listen(cs_path);
		break;
	case IPC_TCP:
	case IPC_UDP: {
		socklen_t sl = sizeof(cs_tcp);
		int fd = socket(AF_INET, opt.ipc == IPC_TCP ? SOCK_STREAM : SOCK_DGRAM, 0), one = 1;

		cs_tcp.sin_family = AF_INET;
		cs_tcp.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, (struct sockaddr *)&cs_tcp, sizeof(cs_tcp)) ||
		    getsockname(fd, (struct sockaddr *)&cs_tcp, &sl) ||
		    (opt.ipc == IPC_TCP && listen(fd, 64))) {
			perror("csapp: socket");
			return 1;
		}
		if (opt.ipc == IPC_TCP)
			cs_listen_fd = fd;
		else
			sfd_r[0] = fd;
		break;
	}
	}
	if (opt.ipc == IPC_UNIX && cs_listen_fd < 0) {
		perror("csapp: listen");
		return 1;
	}
	if (opt.chain) {
		int lfd = cs_unix_listen(cs_back_path);

		if (lfd < 0) {
			perror("csapp: back listen");
			return 1;
		}
		back = fork();
		if (back == 0)
			cs_back_main(lfd);
		close(lfd);
	}
	server = fork();
	if (server == 0)
		cs_server_main();
	/* the clients' process keeps only the client ends */
	if (cs_listen_fd >= 0)
		close(cs_listen_fd);
	for (unsigned k = 0; opt.ipc == IPC_PIPE && k < opt.clients; k++) {
		close(sfd_r[k]);
		close(sfd_w[k]);
	}
	if (opt.ipc == IPC_SOCKPAIR)
		for (unsigned k = 0; k < opt.clients; k++)
			close(sfd_r[k]);
	if (opt.ipc == IPC_UDP)
		close(sfd_r[0]);
	end = scen_begin(opt.seconds);
	t0 = scen_now();
	for (unsigned k = 0; k < opt.clients; k++) {
		if (opt.procs) {
			kids[k] = fork();
			if (kids[k] == 0) {
				signal(SIGINT, SIG_IGN);
				signal(SIGTERM, SIG_IGN);
				prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
				cs_client((void *)(uintptr_t)k);
				_exit(0);
			}
		} else {
			pthread_create(&th[k], NULL, cs_client, (void *)(uintptr_t)k);
		}
	}
	/* the main thread only waits: it is not a client */
	cs_name("cs-main");
	while (scen_running(end) && scen_now() < t0 + opt.warmup_s)
		usleep(100000);
	sh->measuring = 1;
	t1 = scen_now();
	printf("csapp: steady begin\n");
	fflush(stdout);
	while (scen_running(end))
		usleep(100000);
	sh->measuring = 0;
	t1 = scen_now() - t1;
	printf("csapp: steady end\n");
	sh->stop = 1;
	for (unsigned k = 0; k < opt.clients; k++) {
		ops += sh->ops[k];
		resp += sh->resp_s[k];
	}
	/* the clients may be blocked on a server that is gone: end it first */
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	if (back > 0) {
		kill(back, SIGKILL);
		waitpid(back, NULL, 0);
	}
	for (unsigned k = 0; k < opt.clients; k++)
		if (opt.procs) {
			kill(kids[k], SIGKILL);
			waitpid(kids[k], NULL, 0);
		}
	unlink(cs_path);
	unlink(cs_back_path);
	printf("csapp: clients=%u ops=%llu seconds=%.3f ops_per_sec=%.1f resp_ms=%.3f\n", opt.clients,
	       ops, t1, t1 > 0 ? ops / t1 : 0.0, ops ? resp / ops * 1e3 : 0.0);
	fflush(stdout);
	return 0;
}
