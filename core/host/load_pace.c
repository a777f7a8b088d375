/* load_pace — a load's pace from /proc (see load_pace.h). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/load_pace.h"

/* More threads (processes) than this are not followed: a read costs a
 * file each. */
#define PACE_MAX_THREADS 8192
#define PACE_MAX_TGIDS 1024

/* One thread's switch-ins, or one process's read/write calls, so far. */
struct pace_count {
	uint32_t id;
	uint64_t n;
};

/* A read's counts, each array sorted by id. */
struct pace_snapshot {
	struct pace_count *threads, *procs;
	size_t nthreads, nprocs;
};

struct load_pace {
	struct pace_snapshot prev;
	int read_once;
};

struct load_pace *load_pace_new(void)
{
	return calloc(1, sizeof(struct load_pace));
}

static void pace_snapshot_clear(struct pace_snapshot *s)
{
	free(s->threads);
	free(s->procs);
	memset(s, 0, sizeof(*s));
}

void load_pace_free(struct load_pace *p)
{
	if (!p)
		return;
	pace_snapshot_clear(&p->prev);
	free(p);
}

/* The sum of two "NAME: N" counters of a /proc file (status's context
 * switches, io's read and write calls).  -errno when the file has gone,
 * -ENOENT when it lacks either. */
static int pace_two_counters(const char *path, const char *a, const char *b, uint64_t *out)
{
	char line[128];
	size_t la = strlen(a), lb = strlen(b);
	unsigned long long va = 0, vb = 0;
	int got = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, a, la) && line[la] == ':')
			got += sscanf(line + la + 1, "%llu", &va) == 1;
		else if (!strncmp(line, b, lb) && line[lb] == ':')
			got += sscanf(line + lb + 1, "%llu", &vb) == 1;
	}
	fclose(f);
	if (got != 2)
		return -ENOENT;
	*out = va + vb;
	return 0;
}

/* A thread's switch-ins so far: schedstat's timeslices, else status's two
 * context-switch counts.  -errno when it has gone. */
static int pace_thread_switches(uint32_t tgid, uint32_t tid, uint64_t *out)
{
	char path[64];
	unsigned long long run, wait, slices;
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
	return pace_two_counters(path, "voluntary_ctxt_switches", "nonvoluntary_ctxt_switches", out);
}

/* A process's read and write calls so far, its ended threads' included
 * (/proc/TGID/io: syscr + syscw).  -errno when it has gone or the kernel
 * keeps no I/O accounting. */
static int pace_proc_rw_calls(uint32_t tgid, uint64_t *out)
{
	char path[48];

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/io", tgid);
	return pace_two_counters(path, "syscr", "syscw", out);
}

static int pace_by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct pace_count *)a)->id, y = ((const struct pace_count *)b)->id;

	return x < y ? -1 : x > y;
}

/* Appends the threads of tgid to th (*n of them, room for max). */
static void pace_read_threads(uint32_t tgid, struct pace_count *th, size_t *n, size_t max)
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
		if (!pace_thread_switches(tgid, (uint32_t)tid, &th[*n].n))
			th[(*n)++].id = (uint32_t)tid;
	}
	closedir(d);
}

/* What the ids of now (sorted) did since prev (sorted): an id not there
 * then is new since (all of its count); a count that went down is an id
 * reused (the same). */
static uint64_t pace_since(const struct pace_count *prev, size_t nprev, const struct pace_count *now,
			   size_t n)
{
	uint64_t sum = 0;
	size_t j = 0;

	for (size_t i = 0; i < n; i++) {
		while (j < nprev && prev[j].id < now[i].id)
			j++;
		if (j < nprev && prev[j].id == now[i].id && prev[j].n <= now[i].n)
			sum += now[i].n - prev[j].n;
		else
			sum += now[i].n;
	}
	return sum;
}

int load_pace_read(struct load_pace *p, struct load *l, struct load_pace_delta *delta)
{
	uint32_t *tgids = malloc(PACE_MAX_TGIDS * sizeof(*tgids));
	struct pace_snapshot now = {
		.threads = malloc(PACE_MAX_THREADS * sizeof(*now.threads)),
		.procs = malloc(PACE_MAX_TGIDS * sizeof(*now.procs)),
	};
	int ntg, err = 0;

	memset(delta, 0, sizeof(*delta));
	if (!tgids || !now.threads || !now.procs) {
		err = -ENOMEM;
		goto out;
	}
	ntg = load_tgids(l, tgids, PACE_MAX_TGIDS);
	if (ntg < 0) {
		err = ntg;
		goto out;
	}
	for (int i = 0; i < ntg && i < PACE_MAX_TGIDS; i++) {
		pace_read_threads(tgids[i], now.threads, &now.nthreads, PACE_MAX_THREADS);
		if (!pace_proc_rw_calls(tgids[i], &now.procs[now.nprocs].n))
			now.procs[now.nprocs++].id = tgids[i];
	}
	qsort(now.threads, now.nthreads, sizeof(*now.threads), pace_by_id);
	qsort(now.procs, now.nprocs, sizeof(*now.procs), pace_by_id);
	if (p->read_once) {
		delta->switches = pace_since(p->prev.threads, p->prev.nthreads, now.threads, now.nthreads);
		delta->rw_calls = pace_since(p->prev.procs, p->prev.nprocs, now.procs, now.nprocs);
	}
	/* the arrays are kept at their full size: a few hundred KiB per
	 * meter, one meter per run */
	pace_snapshot_clear(&p->prev);
	p->prev = now;
	memset(&now, 0, sizeof(now));
out:
	p->read_once = !err;
	free(tgids);
	pace_snapshot_clear(&now);
	return err;
}
