/* bench_record_rss — a day of `argus record --push --every 1` without the
 * waiting (issue 21): RSS against the number of one-second windows.
 *
 *   build/bench/bench_record_rss [--windows N] [--grow]
 *
 * Each window feeds the same per-window path record --push runs
 * (tui/cmd_record.c, record_push): samples of the interval into the live
 * source's profile (profile_add, as probe_profile_collect does), the
 * interval's gain taken (push_delta_take) and encoded (pprof_write); then,
 * as record does without a whole-run output, the profile starts over
 * (profile_fresh_like, what source_live_rotate does) and push_delta_reset.
 * --grow leaves that step out: the recorder before issue 21, whose profile
 * kept every stack it ever saw (up to the kernel counts map's 65 536 keys,
 * PROBE_PROFILE_DEFAULT_COUNTS; new keys beyond it are dropped, as the
 * kernel does).
 *
 * The stacks change: 200 live at a time, 20 frames deep on average from a
 * vocabulary of 3000 kernel symbols; each window 5% of them are replaced
 * by stacks of a new process (a new tgid: process churn on a host).
 * Prints peak RSS (getrusage) at 1 000, 10 000 and 86 400 windows (or N),
 * and the profile's stacks then. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "data/pprof.h"
#include "data/profile.h"
#include "data/push_delta.h"

#define LIVE 200
#define VOCAB 3000
#define MAXD 32
#define KEYS_MAX 65536

struct syn {
	unsigned nf;
	unsigned f[MAXD];
	uint32_t tgid;
};

static uint64_t rng = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static void syn_new(struct syn *s, uint32_t tgid)
{
	s->nf = 10 + rnd(21);
	for (unsigned i = 0; i < s->nf; i++)
		s->f[i] = i < 3 ? i : rnd(VOCAB); /* a common root, then anything */
	s->tgid = tgid;
}

static long rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
	static char names[VOCAB][48];
	static struct syn live[LIVE];
	unsigned long windows = 86400, dropped = 0;
	int grow = 0;
	uint32_t next_tgid = 1000;
	struct profile *p = profile_new();
	struct push_delta *pd = push_delta_new();
	struct pprof_write_opts wo = { .freq_hz = 999, .cond = COND_N, .plain = 1 };

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--grow"))
			grow = 1;
		else if (!strcmp(argv[i], "--windows") && i + 1 < argc)
			windows = strtoul(argv[++i], NULL, 10);
		else {
			fprintf(stderr, "usage: bench_record_rss [--windows N] [--grow]\n");
			return 2;
		}
	}
	if (!p || !pd || profile_window_begin(p, COND_LOAD, 0) < 0)
		return 1;
	for (unsigned i = 0; i < VOCAB; i++)
		snprintf(names[i], sizeof(names[i]), "kernel_function_%04u+0x%x", i, 16 * (i % 97));
	for (unsigned i = 0; i < LIVE; i++)
		syn_new(&live[i], next_tgid++);
	printf("mode %s: %u live stacks, 5%% replaced a window\n", grow ? "grow (before)" : "rotate",
	       LIVE);
	printf("%9s %12s %10s\n", "windows", "peak RSS KB", "stacks");
	for (unsigned long w = 1; w <= windows; w++) {
		const char *fr[MAXD];
		struct profile *d;
		uint8_t *buf = NULL;
		size_t len = 0;
		uint64_t n = 0;
		char *cause = NULL;

		for (unsigned i = 0; i < LIVE / 20; i++)
			syn_new(&live[rnd(LIVE)], next_tgid++);
		for (unsigned i = 0; i < LIVE; i++) {
			char comm[16];

			if (grow && p->nstacks >= KEYS_MAX) {
				dropped++; /* the kernel's map is full (an approximation:
				            * known keys would still count) */
				continue;
			}
			for (unsigned k = 0; k < live[i].nf; k++)
				fr[k] = names[live[i].f[k]];
			snprintf(comm, sizeof(comm), "proc%u", live[i].tgid % 50);
			if (profile_add(p, 0, fr, live[i].nf, live[i].tgid, comm, 1 + rnd(5)))
				return 1;
		}
		profile_window_end(p, 0, (double)w);
		d = push_delta_take(pd, p, 0, COND_LOAD, (double)(w - 1), 1, &n);
		if (!d || pprof_write(d, &wo, &buf, &len, NULL, &cause))
			return 1;
		free(buf);
		profile_free(d);
		if (!grow) {
			struct profile *q = profile_fresh_like(p);

			if (!q)
				return 1;
			profile_free(p);
			p = q;
			push_delta_reset(pd);
		}
		if (w == 1000 || w == 10000 || w == 86400 || w == windows)
			printf("%9lu %12ld %10zu\n", w, rss_kb(), p->nstacks);
		fflush(stdout);
	}
	if (dropped)
		printf("samples of new keys dropped once the map was full: %lu\n", dropped);
	profile_free(p);
	push_delta_free(pd);
	return 0;
}
