/* noisy — a busy neighbour for the noisy-neighbour scenario: threads that
 * spin on a cheap system call (getppid: syscall entry/exit only) so that its
 * kernel profile is hot but stays on its own path, or a pipe ping-pong
 * between two threads (--mode pipe: anon_pipe_read/write and wakeups).
 * It runs in both conditions (--background): its cost must cancel.
 *
 *   noisy [--seconds N] [--threads T] [--mode getppid|pipe]
 *
 * ops = system calls (getppid) or round trips (pipe).
 */
#include <errno.h>
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
	int c, nthreads = 2, pipe_mode = 0;
	pthread_t th[64];

	while ((c = getopt_long(argc, argv, "s:t:M:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 't': nthreads = atoi(optarg); break;
		case 'M': pipe_mode = !strcmp(optarg, "pipe"); break;
		default:
			fprintf(stderr, "usage: noisy [--seconds N] [--threads T] [--mode getppid|pipe]\n");
			return 2;
		}
	}
	if (nthreads < 1 || nthreads > 64)
		nthreads = 2;
	end_time = scen_begin(seconds);
	t0 = scen_now();
	if (pipe_mode) {
		if (pipe(ping) < 0 || pipe(pong) < 0)
			return 1;
		pthread_create(&th[0], NULL, echo, NULL);
		pthread_create(&th[1], NULL, pingpong, NULL);
		pthread_join(th[1], NULL);
		pthread_join(th[0], NULL);
	} else {
		for (int i = 0; i < nthreads; i++)
			pthread_create(&th[i], NULL, spin, NULL);
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
	}
	scen_report("noisy", total, t0);
	return 0;
}
