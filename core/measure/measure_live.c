/* measure_live — the live sampler behind struct measure_sampler: the
 * perf-event profile probe, the workqueue tracepoint (which work functions
 * the kworkers ran, per window: core/probe/probe_workqueue.h; optional), and with
 * --time wall the time accounting of blocked and runnable threads
 * (measure.c opens it unless a test gave its own sampler; the header is
 * private to core/measure*.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/ksym.h"
#include "measure/measure_opts.h"
#include "measure/measure_live.h"
#include "probe/probe.h"
#include "probe/probe_profile.h"
#include "probe/probe_workqueue.h"
#include "model/timeacct.h"
#include "base/util.h"

/* {worker, function} pairs the workqueue probe counts over a measurement
 * (pairs beyond are not counted; a busy machine shows a few hundred) */
#define MEASURE_LIVE_WQ_KEYS 16384

struct measure_live {
	struct probe_profile *pp;
	struct ksym_table *ks;
	struct timeacct *ta;         /* --time wall; NULL otherwise */
	struct probe_workqueue *wq;  /* the work items kworkers ran; NULL when
	                              * it did not load (their stacks name them) */
	FILE *log;                   /* o->log: the probe's cost at close */
	double t_open;
};

static int live_add_tgid(void *ctx, uint32_t tgid)
{
	struct measure_live *l = ctx;
	int err = probe_profile_add_tgid(l->pp, tgid);

	if (!err && l->ta)
		err = timeacct_add_tgid(l->ta, tgid);
	return err;
}

static int64_t live_collect(void *ctx, struct profile *p, unsigned win)
{
	struct measure_live *l = ctx;
	int64_t n, e;

	if (l->ta)
		n = timeacct_collect(l->ta, l->pp, p, win, l->ks);
	else
		n = probe_profile_collect(l->pp, p, win, l->ks);
	/* the same window (a settle time's go with its samples) */
	if (n >= 0 && l->wq && (e = probe_workqueue_collect(l->wq, l->ks, p, win)) < 0)
		return e;
	return n;
}

/* The workqueue probe's cost, when the BPF run-time statistics were on
 * while it ran (tests/bench/wq_cost.sh turns them on): per work item and
 * as a share of one CPU over the time it was attached. */
static void live_wq_cost(const struct measure_live *l)
{
	uint64_t ns, cnt;
	double secs = util_mono_s() - l->t_open;

	probe_workqueue_runtime(l->wq, &ns, &cnt);
	if (!l->log || !cnt || secs <= 0)
		return;
	fprintf(l->log, "argus: workqueue tracepoint: %llu work items in %.1f s (%.0f/s), "
		"%.2f us each, %.3f%% of one CPU (BPF run-time statistics)\n",
		(unsigned long long)cnt, secs, cnt / secs, ns / 1e3 / cnt, ns / (secs * 1e9) * 100);
}

static void live_counters(void *ctx, uint64_t *dropped, uint64_t *lost, uint64_t *ustack_errors)
{
	struct probe_profile_stats st;

	if (probe_profile_stats(((struct measure_live *)ctx)->pp, &st) == 0) {
		*dropped = st.dropped;
		*lost = st.lost;
		*ustack_errors = st.ustack_error;
	}
}

static const struct waitgraph *live_waits(void *ctx)
{
	return timeacct_waits(((struct measure_live *)ctx)->ta);
}

static void live_window(void *ctx, double start, double len, double now)
{
	timeacct_window(((struct measure_live *)ctx)->ta, start, len, now);
}

static int live_tick(void *ctx, double now, char **cause)
{
	return timeacct_tick(((struct measure_live *)ctx)->ta, now, cause);
}

static double live_next(void *ctx)
{
	return timeacct_next(((struct measure_live *)ctx)->ta);
}

/* What the wall-clock accounting cost, and whether it was duty-cycled:
 * said on the log, as a step's cost is (tests/live/victim_duty.sh and
 * tests/bench/victim_duty.sh read it). */
static void live_ta_cost(const struct measure_live *l)
{
	struct timeacct_cost c;

	if (!l->ta || !l->log)
		return;
	timeacct_cost(l->ta, util_mono_s(), &c);
	if (!c.cycle) {
		fprintf(l->log, "argus: wall-clock accounting: the scheduler-time programs cost "
			"%.2f%% of one CPU (%s), watched all the time (--time-budget 0)\n",
			c.cost_pct, c.measured ? "BPF run-time statistics" : "estimated from the switches");
		return;
	}
	fprintf(l->log, "argus: wall-clock accounting: the scheduler-time programs cost %.2f%% "
		"of one CPU (%.2f%% while attached, %s; budget %.1f%%), attached %.0f%% of %.1f s "
		"in %u on-phase%s\n", c.cost_pct, c.cost_on_pct,
		c.measured ? "BPF run-time statistics" : "estimated from the switches",
		c.budget_pct, c.attached * 100, c.secs, c.phases, c.phases == 1 ? "" : "s");
}

static void live_close(void *ctx)
{
	struct measure_live *l = ctx;

	if (!l)
		return;
	live_wq_cost(l);
	live_ta_cost(l);
	probe_workqueue_close(l->wq);
	timeacct_close(l->ta);
	probe_profile_close(l->pp);
	ksym_free(l->ks);
	free(l);
}

int measure_live_open(struct measure_sampler *smp, const struct measure_opts *o,
		      const uint32_t *tgids, size_t ntgids, int filter,
		      const uint32_t *time_tgids, size_t ntime, char **cause)
{
	struct probe_profile_opts po = { 0 };
	struct measure_live *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return -ENOMEM;
	l->ks = ksym_load(NULL);
	if (!l->ks) {
		err = -errno;
		util_cause(cause, "cannot read /proc/kallsyms: %s", strerror(errno));
		free(l);
		return err;
	}
	po.freq_hz = o->freq_hz;
	po.tgids = filter ? tgids : NULL;
	po.ntgids = filter ? ntgids : 0;
	po.filter = filter;
	po.follow_forks = filter;
	po.no_user_stacks = o->kernel_only;
	{
		/* test hook (measure.h): a small stack map, so that stacks are lost */
		const char *e = getenv("ARGUS_TEST_STACKS");

		if (e && atoi(e) > 0)
			po.stack_entries = (unsigned)atoi(e);
	}
	l->pp = probe_profile_open(&po, cause);
	if (!l->pp) {
		err = -errno;
		ksym_free(l->ks);
		free(l);
		return err ? err : -EIO;
	}
	if (measure_time_wall(o)) {
		char *why = NULL;

		struct timeacct_opts to = {
			.freq_hz = o->freq_hz,
			.exclude_tgid = (uint32_t)getpid(),
			.budget_pct = o->time_budget_pct,
			.stats = 1,
			.user_stacks = !po.no_user_stacks,
		};

		l->ta = timeacct_open(time_tgids, ntime, &to, &why);
		if (!l->ta) {
			err = errno ? -errno : -EIO;
			util_cause(cause, "cannot account blocked and runnable time (--time wall): %s; "
				   "use --time cpu to sample on-CPU time only", why ? why : strerror(-err));
			free(why);
			live_close(l);
			return err;
		}
	}
	{
		char *why = NULL;

		/* optional: without it a kworker is named by its stacks only */
		l->wq = probe_workqueue_open(MEASURE_LIVE_WQ_KEYS, &why);
		if (!l->wq) {
			if (o->log)
				fprintf(o->log, "argus: kworkers named by their sampled stacks only: %s\n",
					why ? why : strerror(errno));
			else
				probe_log(PROBE_LOG_WARN, "argus: kworkers named by their sampled "
					  "stacks only: %s\n", why ? why : strerror(errno));
		}
		free(why);
		l->log = o->log;
		l->t_open = util_mono_s();
	}
	smp->ctx = l;
	smp->add_tgid = live_add_tgid;
	smp->collect = live_collect;
	smp->counters = live_counters;
	smp->close = live_close;
	smp->waits = live_waits;
	if (l->ta) {
		smp->window = live_window;
		smp->tick = live_tick;
		smp->next = live_next;
	}
	return 0;
}
