/* idle — /proc/stat busy share and load average (see idle.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/idle.h"

int idle_snapshot(struct idle_snap *s)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	int n, err = 0;

	if (!f)
		return -errno;
	/* cpu  user nice system idle iowait irq softirq steal ... */
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu",
		   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	if (n < 4)
		err = -EIO;
	fclose(f);
	if (err)
		return err;
	/* idle and iowait are idle time; guest time is already in user */
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->total = s->busy + v[3] + v[4];
	return 0;
}

double idle_busy_share(const struct idle_snap *a, const struct idle_snap *b)
{
	unsigned long long busy = b->busy - a->busy, total = b->total - a->total;

	if (b->total <= a->total || b->busy < a->busy)
		return 0;
	return (double)busy / (double)total;
}

int idle_judge(const struct idle_snap *a, const struct idle_snap *b, char **why)
{
	double share = idle_busy_share(a, b), load[1] = { 0 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	if (ncpu < 1)
		ncpu = 1;
	if (getloadavg(load, 1) < 1)
		return -EIO;
	if (share <= IDLE_MAX_BUSY_SHARE && load[0] <= IDLE_MAX_LOADAVG_PER_CPU * ncpu)
		return 0;
	if (why && asprintf(why, "the system was not idle while recording: %.0f%% of the CPU "
			    "time busy (limit %.0f%%), load average %.2f on %ld CPU%s (limit %.2f); "
			    "a reference stands for the idle system, so stop other work and "
			    "record it again", share * 100, IDLE_MAX_BUSY_SHARE * 100, load[0],
			    ncpu, ncpu == 1 ? "" : "s", IDLE_MAX_LOADAVG_PER_CPU * ncpu) < 0)
		*why = NULL;
	return 1;
}
