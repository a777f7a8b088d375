/* scen.h — what the scenario loads share: --seconds, a stop flag set by
 * SIGINT/SIGTERM/SIGHUP, a shared file removed by whoever made it, a clock, the throughput line printed at the end, and the
 * options of the loads on a file.  Header-only: each scenario is built from
 * its own .c alone (Makefile). */
#ifndef ARGUS_SCEN_H
#define ARGUS_SCEN_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t scen_stop;

static inline double scen_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void scen_on_signal(int sig)
{
	(void)sig;
	scen_stop = 1;
}

/* Installs the handlers; returns the end time for `seconds` (0: forever). */
static inline double scen_begin(double seconds)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = scen_on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return seconds > 0 ? scen_now() + seconds : 0;
}

/* Opens path read-write, creating it when absent; *created says this
 * process made it, and then it removes it at its end (scen_shared_done):
 * the victim and the aggressor share /dev/shm/argus-shared.UID, and the
 * one that came first leaves nothing on disk (the other keeps its open
 * file until it ends).  -1 with errno. */
static inline int scen_shared_open(const char *path, int *created)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_RDWR);
	return fd;
}

static inline void scen_shared_done(const char *path, int fd, int created)
{
	if (fd >= 0)
		close(fd);
	if (created)
		unlink(path);
}

static inline int scen_running(double end)
{
	return !scen_stop && (end == 0 || scen_now() < end);
}

static inline void scen_report(const char *name, unsigned long long ops, double t0)
{
	double secs = scen_now() - t0;

	printf("%s: ops=%llu seconds=%.3f ops_per_sec=%.0f\n", name, ops, secs,
	       secs > 0 ? ops / secs : 0.0);
	fflush(stdout);
}

/* The options of a load on a file: --seconds N (0: until a signal), --mib M
 * (the file's size, or a rewrite's), --file PATH. */
struct scen_file_args {
	double seconds;
	size_t bytes;
	char path[4096];
};

/* Parses argv for the scenario name into a, with mib MiB and the file
 * PREFIX.UID as the defaults.  0, or the exit status 2 after printing the
 * usage. */
static inline int scen_file_args(int argc, char **argv, const char *name, size_t mib,
				 const char *prefix, struct scen_file_args *a)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	a->seconds = 0;
	a->bytes = mib << 20;
	a->path[0] = 0;
	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->seconds = atof(optarg); break;
		case 'm': a->bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(a->path, sizeof(a->path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: %s [--seconds N] [--mib M] [--file PATH]\n", name);
			return 2;
		}
	}
	if (!a->path[0])
		snprintf(a->path, sizeof(a->path), "%s.%d", prefix, (int)getuid());
	return 0;
}

#endif
