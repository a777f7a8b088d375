/* pagefault — a page-fault loop: mmap anonymous memory, touch every page,
 * munmap, repeat; until killed or for --seconds N.  Prints its throughput at
 * the end (pages_per_sec=N) so benchmarks can compare runs.
 *
 *   pagefault [--seconds N] [--mib M] [--threads T] [--procs P] [--no-thp]
 *
 * --no-thp: no transparent huge pages for it (PR_SET_THP_DISABLE): only 4 KiB
 * faults, and no compaction on a fragmented machine to draw an agent's
 * first step elsewhere (tests/live/step_duty).
 *
 * Also prints cpu_seconds (its own CPU time, children included) and
 * pages_per_cpu_sec: the cost of a page fault, which other processes
 * competing for the CPUs blur far less than wall-clock throughput.
 *
 * --procs runs P processes (each with T threads, each its own mm), which
 * keeps every CPU busy without mmap_lock contention between the loops.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static double seconds;   /* 0: until killed */
static size_t bytes = 64ul << 20;
/* shared with the --procs children */
struct totals {
	atomic_ullong pages, iters;
};
static struct totals *tot;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *loop(void *arg)
{
	long page = sysconf(_SC_PAGESIZE);
	double end = *(double *)arg;

	while (!stop && (end == 0 || now() < end)) {
		char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t n = 0;

		if (p == MAP_FAILED) {
			fprintf(stderr, "pagefault: mmap: %s\n", strerror(errno));
			exit(1);
		}
		for (size_t off = 0; off < bytes && !stop; off += page, n++)
			p[off] = 1;
		munmap(p, bytes);
		atomic_fetch_add(&tot->pages, n);
		atomic_fetch_add(&tot->iters, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ "threads", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'P' },
		{ "no-thp", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sigaction sa;
	pthread_t *th;
	int c, nthreads = 1, nprocs = 1;
	pid_t *kids;
	double t0, t1, end;

	while ((c = getopt_long(argc, argv, "s:m:t:P:nh", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 't': nthreads = atoi(optarg); break;
		case 'P': nprocs = atoi(optarg); break;
		case 'n':
			if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) < 0) {
				perror("pagefault: PR_SET_THP_DISABLE");
				return 1;
			}
			break;
		case 'h':
			printf("usage: pagefault [--seconds N] [--mib M] [--threads T] [--procs P] [--no-thp]\n");
			return 0;
		default:
			fprintf(stderr, "usage: pagefault [--seconds N] [--mib M] [--threads T] [--procs P] [--no-thp]\n");
			return 2;
		}
	}
	if (bytes == 0 || nthreads < 1 || nprocs < 1 || seconds < 0) {
		fprintf(stderr, "pagefault: --mib, --threads and --procs must be positive\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	tot = mmap(NULL, sizeof(*tot), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	th = calloc(nthreads, sizeof(*th));
	kids = calloc(nprocs, sizeof(*kids));
	if (tot == MAP_FAILED || !th || !kids)
		return 1;
	t0 = now();
	end = seconds > 0 ? t0 + seconds : 0;
	for (int p = 0; p < nprocs; p++) {
		kids[p] = nprocs > 1 ? fork() : 0;
		if (kids[p] < 0) {
			fprintf(stderr, "pagefault: fork: %s\n", strerror(errno));
			return 1;
		}
		if (kids[p] > 0)
			continue;
		for (int i = 0; i < nthreads; i++)
			if (pthread_create(&th[i], NULL, loop, &end)) {
				fprintf(stderr, "pagefault: cannot start thread %d\n", i);
				return 1;
			}
		for (int i = 0; i < nthreads; i++)
			pthread_join(th[i], NULL);
		if (nprocs > 1)
			_exit(0);
	}
	if (nprocs > 1) {
		for (int p = 0; p < nprocs; p++) {
			/* a signal to us is passed on: the children share our group,
			 * but a kill of our pid alone must stop them too */
			while (waitpid(kids[p], NULL, 0) < 0 && errno == EINTR)
				if (stop)
					for (int q = 0; q < nprocs; q++)
						kill(kids[q], SIGTERM);
		}
	}
	t1 = now();
	{
		struct rusage self, kids_ru;
		double cpu;

		getrusage(RUSAGE_SELF, &self);
		getrusage(RUSAGE_CHILDREN, &kids_ru);
		cpu = self.ru_utime.tv_sec + self.ru_utime.tv_usec / 1e6 +
		      self.ru_stime.tv_sec + self.ru_stime.tv_usec / 1e6 +
		      kids_ru.ru_utime.tv_sec + kids_ru.ru_utime.tv_usec / 1e6 +
		      kids_ru.ru_stime.tv_sec + kids_ru.ru_stime.tv_usec / 1e6;
		printf("iterations=%llu pages=%llu seconds=%.3f cpu_seconds=%.3f "
		       "pages_per_sec=%.0f pages_per_cpu_sec=%.0f\n",
		       (unsigned long long)tot->iters, (unsigned long long)tot->pages, t1 - t0, cpu,
		       t1 > t0 ? tot->pages / (t1 - t0) : 0.0, cpu > 0 ? tot->pages / cpu : 0.0);
	}
	free(th);
	free(kids);
	return 0;
}
