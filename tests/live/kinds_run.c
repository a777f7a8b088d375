/* kinds_run — driver for tests/live/kinds.sh and tests/bench/kinds.sh: runs
 * one step through its kind_ops for SECS seconds in one loaded window and
 * prints what it measured, one "key value" per line (the hottest stacks as
 * "top COUNT COMM FRAMES", each followed by its user frames as
 * "utop COUNT COMM UFRAMES"):
 *
 *   kinds_run [--force] 'STEP JSON' SECS
 *
 *   kinds_run load-nanosleep SECS   a process "argus-nsleep" doing nanosleep(1 ms)
 *   kinds_run load-pipe SECS        "argus-preader" blocked reading a pipe that
 *                                   "argus-pwriter" writes a byte to every 2 ms
 *   kinds_run load-pingpong SECS    two processes bouncing a byte over pipes;
 *                                   prints ops_per_sec
 *
 * After the probe is open it prints "attached" (flushed), so that a
 * benchmark can start its load then.
 *
 * --force: when validation refuses the step (a kind this kernel lacks), try
 * to open it anyway with the targets as given, to show the kernel's refusal.
 * Exit 0 ok, 2 invalid step, 3 open refused (cause printed), 1 other.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int load_nanosleep(double secs)
{
	struct timespec ms = { 0, 1000000 };
	double end = now() + secs;

	prctl(PR_SET_NAME, "argus-nsleep");
	while (now() < end)
		nanosleep(&ms, NULL);
	return 0;
}

/* Two processes bouncing a byte over two pipes: context switches and
 * wakeups as fast as they go; prints ops_per_sec (round trips). */
static int load_pingpong(double secs)
{
	int a[2], b[2];
	double t0 = now(), end = t0 + secs;
	unsigned long n = 0;
	char c = 'x';
	pid_t k;

	if (pipe(a) || pipe(b))
		return 1;
	k = fork();
	if (k == 0) {
		prctl(PR_SET_NAME, "argus-pong");
		close(a[1]);
		close(b[0]);
		while (read(a[0], &c, 1) == 1 && write(b[1], &c, 1) == 1)
			;
		_exit(0);
	}
	prctl(PR_SET_NAME, "argus-ping");
	close(a[0]);
	close(b[1]);
	while (now() < end) {
		for (int i = 0; i < 100; i++)
			if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
				return 1;
		n += 100;
	}
	close(a[1]);
	waitpid(k, NULL, 0);
	printf("ops=%lu seconds=%.3f ops_per_sec=%.0f\n", n, now() - t0, n / (now() - t0));
	return 0;
}

static int load_pipe(double secs)
{
	struct timespec ms2 = { 0, 2000000 };
	double end = now() + secs;
	int p[2];
	pid_t c;
	char b = 'x';

	if (pipe(p))
		return 1;
	c = fork();
	if (c == 0) {
		prctl(PR_SET_NAME, "argus-preader");
		close(p[1]);
		while (read(p[0], &b, 1) == 1)
			;
		_exit(0);
	}
	prctl(PR_SET_NAME, "argus-pwriter");
	close(p[0]);
	while (now() < end) {
		nanosleep(&ms2, NULL);
		if (write(p[1], &b, 1) != 1)
			break;
	}
	close(p[1]);
	waitpid(c, NULL, 0);
	return 0;
}

#include "probe/caps.h"
#include "probe/kind.h"
#include "probe/probe_tpstacks.h"
#include "data/step_data.h"
#include "data/ksym.h"
#include "data/step.h"

static int by_count(const void *a, const void *b)
{
	const struct profile_stack *x = *(const struct profile_stack *const *)a;
	const struct profile_stack *y = *(const struct profile_stack *const *)b;

	return x->total < y->total ? 1 : x->total > y->total ? -1 : 0;
}

int main(int argc, char **argv)
{
	const struct kind_ops *ops;
	struct kind_probe *kp = NULL;
	struct step_error serr;
	struct step_data *d = NULL;
	struct ksym_table *ks;
	struct kind_stats st;
	struct step *s = NULL;
	struct timespec ts;
	char *cause = NULL;
	int force = 0, w, rc = 1, err;
	double secs;

	if (argc == 3 && !strcmp(argv[1], "load-nanosleep"))
		return load_nanosleep(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "load-pingpong"))
		return load_pingpong(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "load-pipe"))
		return load_pipe(atof(argv[2]));
	if (argc > 1 && !strcmp(argv[1], "--force")) {
		force = 1;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: kinds_run [--force] STEP-JSON SECS\n");
		return 1;
	}
	secs = atof(argv[2]);
	if (step_parse_json(argv[1], strlen(argv[1]), &s, &serr)) {
		printf("invalid %s: %s\n", serr.field, serr.msg);
		return 2;
	}
	if (step_validate(s, caps_cached(), NULL, &serr)) {
		printf("invalid %s: %s\n", serr.field, serr.msg);
		if (!force) {
			rc = 2;
			goto out;
		}
		s->resolved = calloc(s->ntargets + 2, sizeof(char *));
		if (s->begin)
			s->resolved[s->nresolved++] = strdup(s->begin);
		if (s->end)
			s->resolved[s->nresolved++] = strdup(s->end);
		for (unsigned i = 0; i < s->ntargets; i++)
			s->resolved[s->nresolved++] = strdup(s->targets[i]);
	}
	ks = ksym_load(NULL);
	ops = kind_ops_get(s->kind);
	printf("kind %s\n", step_kind_name(s->kind));
	err = ops->open(s, &kp, &cause);
	if (err) {
		printf("open_error %d %s\n", err, strerror(-err));
		printf("cause %s\n", cause ? cause : "(none)");
		rc = 3;
		ksym_free(ks);
		goto out;
	}
	if (s->kind == STEP_TRACEPOINT_STACKS)
		printf("every %u\n", kind_tpstacks_every(kp));
	printf("attached\n");
	fflush(stdout);
	d = step_data_new(kind_ntargets(s), kind_unit(s->kind));
	ops->discard(kp);
	w = step_data_window_begin(d, COND_LOAD, 0);
	/* as the executor does: its overhead guard reads the stats four
	 * times a second (tracepoint_stacks retunes its 1-in-N there) */
	for (double left = secs; left > 0; left -= 0.25) {
		double nap = left < 0.25 ? left : 0.25;
		struct kind_stats kst;

		ts.tv_sec = (time_t)nap;
		ts.tv_nsec = (long)((nap - (double)ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);
		ops->stats(kp, &kst);
	}
	err = ops->collect(kp, d, (unsigned)w, ks);
	step_data_window_end(d, (unsigned)w, secs);
	if (err) {
		printf("collect_error %d %s\n", err, strerror(-err));
		goto done;
	}
	printf("unit %s\n", d->unit);
	for (unsigned t = 0; t < d->ntargets; t++) {
		struct step_target_win *tw = step_data_target(d, (unsigned)w, t);

		printf("t%u.events %llu\n", t, (unsigned long long)tw->events);
		printf("t%u.recorded %llu\n", t, (unsigned long long)tw->recorded);
		printf("t%u.rate %.1f\n", t, tw->events / secs);
		printf("t%u.total_ns %llu\n", t, (unsigned long long)tw->total_ns);
		printf("t%u.p50_ns %.0f\n", t, step_data_hist_percentile(tw->hist, 50));
		printf("t%u.p99_ns %.0f\n", t, step_data_hist_percentile(tw->hist, 99));
	}
	printf("lost %llu\n", (unsigned long long)d->lost);
	printf("stacks %zu\n", d->prof->nstacks);
	{
		struct profile_stack **v = calloc(d->prof->nstacks + 1, sizeof(*v));
		uint64_t total = 0;

		for (size_t i = 0; i < d->prof->nstacks; i++) {
			v[i] = &d->prof->stacks[i];
			total += v[i]->total;
		}
		printf("prof_total %llu\n", (unsigned long long)total);
		qsort(v, d->prof->nstacks, sizeof(*v), by_count);
		for (size_t i = 0; i < d->prof->nstacks && i < 8; i++) {
			printf("top %llu %s ", (unsigned long long)v[i]->total, v[i]->comm);
			for (uint32_t f = 0; f < v[i]->nframes; f++)
				printf("%s%s", f ? ";" : "", v[i]->frames[f]);
			printf("\n");
			/* its user frames (issue 27), root first, "-" when none */
			printf("utop %llu %s ", (unsigned long long)v[i]->total, v[i]->comm);
			for (uint32_t f = 0; f < v[i]->nuframes; f++)
				printf("%s%s", f ? ";" : "", v[i]->uframes[f]);
			printf("%s\n", v[i]->nuframes ? "" : "-");
		}
		free(v);
	}
	ops->stats(kp, &st);
	printf("stats.events %llu\nstats.lost %llu\nstats.run_ns %llu\nstats.run_cnt %llu\n"
	       "stats.progs %u\n", (unsigned long long)st.events, (unsigned long long)st.lost,
	       (unsigned long long)st.run_ns, (unsigned long long)st.run_cnt, st.progs);
	rc = 0;
done:
	ops->close(kp);
	step_data_free(d);
	ksym_free(ks);
out:
	free(cause);
	step_free(s);
	caps_cached_free();
	return rc;
}
