/* noisy — a busy neighbour for the noisy-neighbour scenario.  It runs in
 * both conditions (--background): its cost must cancel.  Modes:
 *   zero     (default) threads reading /dev/zero 64 KiB at a time: nearly
 *            all of its time is kernel time on its own path (vfs_read >
 *            read_iter_zero > clear_user), hotter than the page-fault load
 *   getppid  threads spinning on getppid (syscall entry/exit only)
 *   pipe     a ping-pong between two threads (anon_pipe_read/write, wakeups)
 *
 *   noisy [--seconds N] [--threads T] [--mode zero|getppid|pipe]
 *
 * ops = reads (zero), system calls (getppid) or round trips (pipe).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scen.h"

static double end_time;
static atomic_ullong total;

static void *spin(void *arg)
{
	unsigned long long n = 0;

	(void)arg;
	while (scen_running(end_time)) {
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
		n += 1000;
	}
	atomic_fetch_add(&total, n);
	return NULL;
}

static void *zero(void *arg)
{
	static __thread char buf[64 << 10];
	unsigned long long n = 0;
	int fd = open("/dev/zero", O_RDONLY);

	(void)arg;
	if (fd < 0)
		return NULL;
	while (scen_running(end_time)) {
		if (read(fd, buf, sizeof(buf)) < 0)
			break;
		n++;
	}
	close(fd);
	atomic_fetch_add(&total, n);
	return NULL;
}

static int ping[2], pong[2];

static void *echo(void *arg)
{
	char c;

	(void)arg;
	while (read(ping[0], &c, 1) == 1)
		if (write(pong[1], &c, 1) != 1)
			break;
	return NULL;
}

static void *pingpong(void *arg)
{
	unsigned long long n = 0;
	char c = 'x';

	(void)arg;
	while (scen_running(end_time)) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			break;
		n++;
	}
	atomic_fetch_add(&total, n);
	close(ping[1]);
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "mode", required_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, t0;
	int c, nthreads = 2, mode = 0; /* 0 zero, 1 getppid, 2 pipe */
	pthread_t th[64];

	while ((c = getopt_long(argc, argv, "s:t:M:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'M':
			mode = !strcmp(optarg, "pipe") ? 2 : !strcmp(optarg, "getppid") ? 1 : 0;
			break;
		default:
			fprintf(stderr, "usage: noisy [--seconds N] [--threads T] [--mode zero|getppid|pipe]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 2;
	end_time = scen_begin(seconds);
	t0 = scen_now();
	if (mode == 2) {
		if (pipe(ping) < 0 || pipe(pong) < 0)
			return 1;
		pthread_create(&th[0], NULL, echo, NULL);
		pthread_create(&th[1], NULL, pingpong, NULL);
		pthread_join(th[1], NULL);
		pthread_join(th[0], NULL);
	} else {
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, mode ? spin : zero, NULL);
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
	}
	scen_report("noisy", total, t0);
	return 0;
}
