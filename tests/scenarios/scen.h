/* scen.h — what the scenario loads share: --seconds, a stop flag set by
 * SIGINT/SIGTERM, a clock, and the throughput line printed at the end. */
#ifndef ARGUS_SCEN_H
#define ARGUS_SCEN_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
	return seconds > 0 ? scen_now() + seconds : 0;
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

#endif
