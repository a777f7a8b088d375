/* kind — the table of step kinds, and what is known of a kind without
 * opening it (units, targets, costs, budgets, the rate estimate). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/step_data.h"
#include "probe/kind.h"
#include "probe/kind_util.h"
#include "probe/probe_counts.h"
#include "probe/probe_funclat.h"
#include "probe/probe_offcpu.h"
#include "probe/probe_profile.h"
#include "probe/probe_tplat.h"
#include "probe/probe_tpstacks.h"
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
	case STEP_SAMPLE: return STEP_UNIT_SAMPLES;
	case STEP_TRACEPOINT_STACKS: return STEP_UNIT_EVENTS;
	case STEP_TRACEPOINT_LATENCY:
	case STEP_FUNCTION_LATENCY: return STEP_UNIT_INTERVALS;
	case STEP_OFFCPU: return STEP_UNIT_US_BLOCKED;
	case STEP_COUNTS: return STEP_UNIT_EVENTS;
	default: return STEP_UNIT_EVENTS;
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

double kind_default_budget(enum step_kind k)
{
	return k == STEP_SAMPLE ? KIND_SAMPLE_BUDGET_PCT : KIND_EVENT_BUDGET_PCT;
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
