/* step_preflight — what a person sees before accepting a step: does it
 * attach here, how many events will it see, what will it cost.
 *
 * step_preflight validates the step (step_validate: targets exist, are not
 * inlined away, are traceable), then opens the kind's own probe for a short
 * while (secs, ~0.25 s; the load in whatever condition it is in now), reads
 * its event count, lost events and BPF run time, and closes it.  The same
 * probe the step would run gives both the attach check and honest
 * estimates.  It blocks for secs.
 */
#ifndef ARGUS_STEP_PREFLIGHT_H
#define ARGUS_STEP_PREFLIGHT_H

#include <stdint.h>

#include "probe/kind.h"
#include "data/step.h"

struct caps;

#define STEP_PREFLIGHT_DEFAULT_S 0.25

struct step_preflight {
	int ok;                     /* validated and attached */
	enum step_kind kind;        /* the step's */
	char *cause;                /* why not (field: message); owned */
	struct step_error err;      /* the validation error, when that failed */
	double secs;                /* how long the probe counted */
	uint64_t events, lost;
	double rate;                /* events per second (all targets) */
	double overhead_pct;        /* BPF run time, % of one CPU; always >= 0 once
	                               ok: measured, or estimated (below) */
	int overhead_estimated;     /* no BPF statistics here: the events seen
	                               times the kind's cost (kind_event_cost_ns) */
	unsigned progs;             /* programs attached */
};

/* Validates s (filling s->resolved) against c and lim (NULL: defaults) and,
 * when that passes, counts with its probe for secs (<= 0: the default).
 * ops NULL: kind_ops_get(s->kind).  Fills *pf (clear with
 * step_preflight_clear).  Returns 0 when the step may be offered, -EINVAL
 * (validation), -ENOSYS (no probe for the kind in this build) or the
 * probe's -errno, with pf->cause set. */
int step_preflight(struct step *s, const struct caps *c, const struct step_limits *lim,
		   double secs, const struct kind_ops *ops, struct step_preflight *pf);

void step_preflight_clear(struct step_preflight *pf);

/* "attaches (1 program); ~12.1k events/s, 0 lost, overhead ~0.4% of a CPU"
 * ("..., overhead ~0.4% of a CPU (estimated: 12.1k events/s x ~195 ns)"
 * without BPF statistics) or "does not attach: CAUSE".  Returns buf. */
char *step_preflight_line(const struct step_preflight *pf, char *buf, size_t len);

#endif
