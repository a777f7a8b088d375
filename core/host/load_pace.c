/* load_pace — a load's switch-ins from /proc (see load_pace.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/load_pace.h"

/* More threads than this are not followed (a read costs a file each). */
#define PACE_MAX_THREADS 8192
#define PACE_MAX_TGIDS 1024

struct pace_thread {
	uint32_t tid;
	uint64_t switches;
};

struct load_pace {
	struct pace_thread *prev; /* the previous read, by tid */
	size_t nprev;
	int read_once;
};

struct load_pace *load_pace_new(void)
{
	return calloc(1, sizeof(struct load_pace));
}

void load_pace_free(struct load_pace *p)
{
	if (!p)
		return;
	free(p->prev);
	free(p);
}

/* A thread's switch-ins so far: schedstat's timeslices, else status's two
 * context-switch counts.  -errno when it has gone. */
static int pace_thread_switches(uint32_t tgid, uint32_t tid, uint64_t *out)
{
	char path[64], line[128];
	unsigned long long run, wait, slices, v = 0, n = 0;
	int got = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/schedstat", tgid, tid);
	f = fopen(path, "re");
	if (f) {
		got = fscanf(f, "%llu %llu %llu", &run, &wait, &slices) == 3;
		fclose(f);
		if (got) {
			*out = slices;
			return 0;
		}
	}
	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/status", tgid, tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		got += sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1;
		got += sscanf(line, "nonvoluntary_ctxt_switches: %llu", &n) == 1;
	}
	fclose(f);
	if (got != 2)
		return -ENOENT;
	*out = v + n;
	return 0;
}

static int pace_by_tid(const void *a, const void *b)
{
	uint32_t x = ((const struct pace_thread *)a)->tid, y = ((const struct pace_thread *)b)->tid;

	return x < y ? -1 : x > y;
}

/* Appends the threads of tgid to *th (n of them, room for max). */
static void pace_read_tgid(uint32_t tgid, struct pace_thread *th, size_t *n, size_t max)
{
	char path[48];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task", tgid);
	d = opendir(path);
	if (!d)
		return; /* gone since it was listed */
	while (*n < max && (de = readdir(d))) {
		char *end;
		unsigned long tid = strtoul(de->d_name, &end, 10);

		if (*end || !tid)
			continue;
		if (!pace_thread_switches(tgid, (uint32_t)tid, &th[*n].switches))
			th[(*n)++].tid = (uint32_t)tid;
	}
	closedir(d);
}

int load_pace_read(struct load_pace *p, struct load *l, uint64_t *delta)
{
	uint32_t *tgids = malloc(PACE_MAX_TGIDS * sizeof(*tgids));
	struct pace_thread *now = malloc(PACE_MAX_THREADS * sizeof(*now));
	size_t n = 0, j = 0;
	uint64_t sum = 0;
	int ntg, err = 0;

	*delta = 0;
	if (!tgids || !now) {
		err = -ENOMEM;
		p->read_once = 0;
		goto out;
	}
	ntg = load_tgids(l, tgids, PACE_MAX_TGIDS);
	if (ntg < 0) {
		err = ntg;
		p->read_once = 0;
		goto out;
	}
	for (int i = 0; i < ntg && i < PACE_MAX_TGIDS; i++)
		pace_read_tgid(tgids[i], now, &n, PACE_MAX_THREADS);
	qsort(now, n, sizeof(*now), pace_by_tid);
	/* each thread's count since the previous read: a tid not there then
	 * started since (all of its count); a count that went down is a tid
	 * reused by a new thread (the same) */
	for (size_t i = 0; i < n; i++) {
		while (j < p->nprev && p->prev[j].tid < now[i].tid)
			j++;
		if (j < p->nprev && p->prev[j].tid == now[i].tid && p->prev[j].switches <= now[i].switches)
			sum += now[i].switches - p->prev[j].switches;
		else
			sum += now[i].switches;
	}
	if (p->read_once)
		*delta = sum;
	p->read_once = 1;
	free(p->prev);
	p->prev = n ? realloc(now, n * sizeof(*now)) : NULL; /* what it tracks, no more */
	if (n && !p->prev)
		p->prev = now;
	else if (!n)
		free(now);
	p->nprev = n;
	now = NULL;
out:
	free(tgids);
	free(now);
	return err;
}
