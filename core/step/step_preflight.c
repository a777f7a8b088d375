/* step_preflight — validate, attach briefly, estimate (see step_preflight.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/probe.h"
#include "step/step_exec.h"
#include "analysis/step_merge.h"
#include "step/step_preflight.h"
#include "base/util.h"

void step_preflight_clear(struct step_preflight *pf)
{
	if (!pf)
		return;
	free(pf->cause);
	memset(pf, 0, sizeof(*pf));
}

int step_preflight(struct step *s, const struct caps *c, const struct step_limits *lim,
		   double secs, const struct kind_ops *ops, struct step_preflight *pf)
{
	struct kind_stats a = { 0 }, b = { 0 };
	struct kind_probe *kp = NULL;
	struct timespec ts;
	double t0, t1;
	int err, stats = -1;

	memset(pf, 0, sizeof(*pf));
	pf->kind = s->kind;
	pf->overhead_pct = -1;
	if (!(secs > 0))
		secs = STEP_PREFLIGHT_DEFAULT_S;
	if (c) {
		err = step_validate(s, c, lim, &pf->err);
		if (err) {
			if (asprintf(&pf->cause, "%s%s%s", pf->err.field, *pf->err.field ? ": " : "",
				     pf->err.msg) < 0)
				pf->cause = NULL;
			return err;
		}
	}
	if (!ops)
		ops = kind_ops_get(s->kind);
	if (!ops) {
		if (asprintf(&pf->cause, "this build has no probe for %s steps",
			     step_kind_name(s->kind)) < 0)
			pf->cause = NULL;
		return -ENOSYS;
	}
	stats = probe_bpf_stats_begin(NULL);
	err = ops->open(s, &kp, &pf->cause);
	if (err < 0 || !kp) {
		if (!pf->cause && asprintf(&pf->cause, "cannot attach: %s", strerror(err ? -err : EIO)) < 0)
			pf->cause = NULL;
		probe_bpf_stats_end(stats);
		return err ? err : -EIO;
	}
	/* kinds count events when they collect or discard */
	if (ops->discard)
		ops->discard(kp);
	t0 = util_mono_s();
	if (ops->stats)
		ops->stats(kp, &a);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = (long)((secs - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	if (ops->discard)
		ops->discard(kp);
	if (ops->stats)
		ops->stats(kp, &b);
	t1 = util_mono_s();
	ops->close(kp);
	pf->ok = 1;
	pf->secs = t1 - t0;
	pf->events = b.events - a.events;
	if (!pf->events && b.run_cnt > a.run_cnt)
		pf->events = b.run_cnt - a.run_cnt; /* program runs: firings */
	pf->lost = b.lost;
	pf->progs = b.progs;
	pf->rate = pf->secs > 0 ? pf->events / pf->secs : 0;
	if (stats >= 0 || b.run_ns) {
		pf->overhead_pct = step_exec_overhead_pct(b.run_ns - a.run_ns, pf->secs);
	} else {
		/* no statistics: what the kind is known to cost per event */
		pf->overhead_pct = pf->rate * kind_event_cost_ns(s->kind) / 1e9 * 100.0;
		pf->overhead_estimated = 1;
	}
	probe_bpf_stats_end(stats);
	return 0;
}

char *step_preflight_line(const struct step_preflight *pf, char *buf, size_t len)
{
	char rate[32], ov[128] = "";

	if (!pf->ok) {
		snprintf(buf, len, "does not attach: %s", pf->cause ? pf->cause : "unknown reason");
		return buf;
	}
	snprintf(ov, sizeof(ov), ", overhead ~%.2f%% of a CPU",
		 pf->overhead_pct > 0 ? pf->overhead_pct : 0);
	if (pf->overhead_estimated) {
		size_t n = strlen(ov);

		snprintf(ov + n, sizeof(ov) - n, " (estimated: %s x ~%.0f ns; no BPF statistics)",
			 step_fmt_rate(pf->rate, rate, sizeof(rate)), kind_event_cost_ns(pf->kind));
	}
	snprintf(buf, len, "attaches (%u program%s); ~%s events, %llu lost%s", pf->progs,
		 pf->progs == 1 ? "" : "s", step_fmt_rate(pf->rate, rate, sizeof(rate)),
		 (unsigned long long)pf->lost, ov);
	return buf;
}
