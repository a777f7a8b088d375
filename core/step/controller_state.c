/* controller_state — the proposal and the runs as both the loop
 * (controller.c) and the decisions (controller_decide.c) handle them: a step
 * checked before it runs (this kernel's caps, the scope, the required
 * fields, the CPU budget, the load still there), and the waiting proposal,
 * the gate's pre-flight and a run dropped.
 *
 * Below both files, which call it and which it never calls: the loop calls
 * the decisions (--auto accepts through ctl_do_accept), so what both need
 * lives here, and the files call down only (tests/docs/circles.py). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/caps.h"
#include "probe/kind.h"
#include "step/controller.h"
#include "step/controller_priv.h"
#include "step/step_exec.h"
#include "step/step_preflight.h"

/* ---- a step checked before it runs ------------------------------------------------ */

const struct caps *ctl_caps(struct controller *c)
{
	return c->o.caps ? c->o.caps : caps_cached();
}

int ctl_validate(struct controller *c, struct step *s)
{
	const struct caps *k = ctl_caps(c);
	int err;

	if (!s)
		s = c->prop;
	if (!s)
		return -ENOENT;
	memset(&c->err, 0, sizeof(c->err));
	/* an edit may have asked for scope load again, or cleared the filter */
	err = step_scope_apply(&c->o.scope, s, &c->err);
	if (!err)
		err = step_check_required(s, &c->err);
	if (!err && k)
		err = step_validate(s, k, NULL, &c->err);
	c->has_err = err != 0;
	return err;
}

double ctl_budget(const struct controller *c, const struct step *s)
{
	return c->o.budget_pct > 0 ? c->o.budget_pct : kind_default_budget(s->kind);
}

int ctl_fit_budget(struct controller *c, struct step *s, const struct step_preflight *pf,
		   char *why, size_t len)
{
	double budget = ctl_budget(c, s), duty = s->duty > 0 && s->duty < 1 ? s->duty : 1, f;

	if (why && len)
		why[0] = 0;
	if (!pf->ok || !(pf->overhead_pct * duty > budget))
		return 0;
	if (!step_exec_kind_can_duty(s->kind)) {
		if (why)
			snprintf(why, len, "estimated %.1f%% of a CPU is over the %g%% budget and a "
				 "%s step cannot be attached part of the time: it would be stopped "
				 "(raise --budget, narrow the scope or the targets)", pf->overhead_pct,
				 budget, step_kind_name(s->kind));
		return -EDQUOT;
	}
	f = STEP_EXEC_DUTY_AIM * budget / pf->overhead_pct;
	if (f < STEP_DUTY_MIN) {
		if (why)
			snprintf(why, len, "estimated %.1f%% of a CPU is over the %g%% budget even "
				 "attached %.0f%% of each window: it would be stopped (raise --budget, "
				 "narrow the scope or the targets)", pf->overhead_pct, budget,
				 STEP_DUTY_MIN * 100);
		return -EDQUOT;
	}
	f = (double)(unsigned)(f * 100) / 100;   /* two digits, rounded down: fits */
	if (f < STEP_DUTY_MIN)
		f = STEP_DUTY_MIN;
	s->duty = f;
	if (why)
		snprintf(why, len, "attached all the time it would cost ~%.1f%% of a CPU, over the "
			 "%g%% budget: it is attached %.0f%% of each window instead (duty %.2f; "
			 "rates per attached second)", pf->overhead_pct, budget, f * 100, f);
	return 1;
}

int ctl_load_gone(struct controller *c, char *buf, size_t len)
{
	if (len)
		buf[0] = 0;
	return c->o.exec->load_gone ? c->o.exec->load_gone(c->o.exec_arg, buf, len) : 0;
}

/* ---- dropped ------------------------------------------------------------------------ */

void ctl_drop_proposal(struct controller *c)
{
	step_free(c->prop);
	c->prop = NULL;
	c->has_err = 0;
	memset(&c->err, 0, sizeof(c->err));
}

void ctl_gate_clear(struct controller *c)
{
	if (c->gate) {
		step_preflight_clear(c->gate);
		free(c->gate);
		c->gate = NULL;
	}
}

void ctl_run_clear(struct controller *c, struct ctl_run *r)
{
	if (r->x)
		c->o.exec->free(r->x);
	step_data_free(r->data);
	step_free(r->step);
	step_free(r->original);
	memset(r, 0, sizeof(*r));
}
