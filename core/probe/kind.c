/* kind — the table of step kinds, and what the kinds share (units,
 * targets, histogram percentiles, the rate estimate). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe/kind.h"
#include "probe/kind_util.h"
#include "probe/probe_counts.h"
#include "base/util.h"

const struct kind_ops *kind_ops_get(enum step_kind k)
{
	switch (k) {
	case STEP_SAMPLE: return &probe_profile_kind_ops;
	case STEP_TRACEPOINT_STACKS: return &probe_tpstacks_kind_ops;
	case STEP_TRACEPOINT_LATENCY: return &probe_tplat_kind_ops;
	case STEP_FUNCTION_LATENCY: return &probe_funclat_kind_ops;
	case STEP_OFFCPU: return &kind_offcpu_ops;
	case STEP_COUNTS: return &probe_counts_kind_ops;
	default: return NULL;
	}
}

double kind_hist_percentile(const uint64_t *hist, double pct)
{
	uint64_t total = 0, cum = 0;
	double want;

	for (unsigned i = 0; i < KIND_HIST_BUCKETS; i++)
		total += hist[i];
	if (!total)
		return 0;
	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	want = pct / 100.0 * (double)total;
	for (unsigned i = 0; i < KIND_HIST_BUCKETS; i++) {
		cum += hist[i];
		if (hist[i] && (double)cum >= want) {
			double edge = 2.0; /* bucket i ends at 2^(i+1) */

			for (unsigned k = 0; k < i; k++)
				edge *= 2;
			return edge;
		}
	}
	return 0;
}

unsigned kind_ntargets(const struct step *s)
{
	switch (s->kind) {
	case STEP_TRACEPOINT_STACKS:
	case STEP_COUNTS:
	case STEP_FUNCTION_LATENCY:
		return s->nresolved ? s->nresolved : 1;
	default:
		return 1;
	}
}

const char *kind_unit(enum step_kind k)
{
	switch (k) {
	case STEP_SAMPLE: return "samples";
	case STEP_TRACEPOINT_STACKS: return "events";
	case STEP_TRACEPOINT_LATENCY:
	case STEP_FUNCTION_LATENCY: return "intervals";
	case STEP_OFFCPU: return "us blocked";
	case STEP_COUNTS: return "events";
	default: return "events";
	}
}

double kind_event_cost_ns(enum step_kind k)
{
	switch (k) {
	case STEP_SAMPLE: return 4200;
	case STEP_TRACEPOINT_STACKS: return 195;
	case STEP_TRACEPOINT_LATENCY: return 1400;
	case STEP_FUNCTION_LATENCY: return 1500;
	case STEP_OFFCPU: return 2200;
	case STEP_COUNTS: return 58;
	default: return 2000;
	}
}

int kind_estimate_rate(const struct step *s, double secs, double *rate, char **cause)
{
	struct kind_filter f;
	unsigned n = s->nresolved;
	int err;

	*rate = 0;
	if (s->kind == STEP_TRACEPOINT_LATENCY)
		n = n ? 1 : 0;
	else if (s->kind != STEP_TRACEPOINT_STACKS && s->kind != STEP_COUNTS)
		n = 0;
	if (!n) {
		util_cause(cause, "no tracepoints to count in this step");
		return -EINVAL;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		return err;
	return probe_counts_rate((const char *const *)s->resolved, n, &f, secs, rate, cause);
}
