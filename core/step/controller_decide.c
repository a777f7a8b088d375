/* controller_decide — the decisions on a proposal: accept (with batch's
 * pre-flight gate), veto, another, undo, talk, focus, cancel (see
 * controller.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step/controller.h"
#include "step/controller_priv.h"
#include "step/step_exec.h"
#include "step/step_preflight.h"

static int need_proposal(struct controller *c, const char *what)
{
	if (c->mode == CTL_PROPOSAL && c->prop)
		return 0;
	ctl_say(c, CTL_LINE_INFO, "nothing to %s: no proposal is waiting", what);
	return -ENOENT;
}

/* batch: the pre-flight right before a run (validated, attached briefly,
 * its rate and overhead estimated); over the budget it is not run.  0 when
 * it may run; otherwise the agent is told why, the step is counted and a
 * new turn asked for. */
static int gate(struct controller *c, struct step *s)
{
	struct ctl_event ev = { .kind = CTL_EV_PREFLIGHT, .step_no = c->nsteps + 1, .step = s };
	char line[1024], nr[512];
	double budget;
	int err, fit = 0;

	ctl_gate_clear(c);
	c->gate = calloc(1, sizeof(*c->gate));
	if (!c->gate)
		return -ENOMEM;
	err = c->o.exec->preflight(c->o.exec_arg, s, ctl_caps(c), c->gate);
	step_preflight_line(c->gate, line, sizeof(line));
	{
		size_t n = strlen(line);
		char sc[256];

		snprintf(line + n, sizeof(line) - n, "; scope: %s",
			 step_scope_describe(s, &c->o.scope, sc, sizeof(sc)));
	}
	ev.text = line;
	budget = ctl_budget(c, s);
	ev.why = line;
	if (!err && (fit = ctl_fit_budget(c, s, c->gate, nr, sizeof(nr))) > 0) {
		/* a duty cycle fits it: run it attached part of each window */
		size_t n = strlen(line);

		snprintf(line + n, sizeof(line) - n, "; %s", nr);
		ctl_say(c, CTL_LINE_INFO, "pre-flight: %s", nr);
	} else if (!err && fit < 0) {
		/* it would be detached at once: say so instead of running it */
		c->gate->ok = 0;
		free(c->gate->cause);
		if (asprintf(&c->gate->cause, "estimated overhead %.1f%% of a CPU is over the budget "
			     "of %g%% (raise it with --budget)", c->gate->overhead_pct, budget) < 0)
			c->gate->cause = NULL;
		snprintf(nr, sizeof(nr), "not run: %s", c->gate->cause ? c->gate->cause : "over budget");
		ev.why = nr;
		ev.over_budget = 1;
		err = -EDQUOT;
	}
	ev.pf = c->gate;
	ev.ok = err == 0;
	ctl_emit(c, &ev);
	if (!err)
		return 0;
	/* the agent hears why, and may propose something else */
	ctl_tell(c, AGENT_EV_VETOED, ev.why, s, NULL);
	{
		struct ctl_event res = { .kind = CTL_EV_RESULT, .step_no = c->nsteps + 1, .step = s,
					 .text = ev.why, .pf = c->gate };

		ctl_emit(c, &res);
	}
	ctl_gate_clear(c);
	c->nsteps++;
	ctl_drop_proposal(c);
	ctl_want_turn(c);
	return err;
}

int ctl_do_accept(struct controller *c, const struct step *edited, const char *diff,
			 const char *by)
{
	struct ctl_event ev = { .kind = CTL_EV_DECISION, .by = by };
	struct step *s, *own = NULL;
	struct ctl_run *r;
	char *cause = NULL, gone[64];
	int err, is_edit = edited && diff && *diff;

	err = need_proposal(c, "accept");
	if (err)
		return err;
	if (ctl_load_gone(c, gone, sizeof(gone))) {
		/* it ended while the card waited: nothing to measure */
		ctl_say(c, CTL_LINE_ERROR, "not run: the load %s, and a step measures it in "
			"reference and loaded windows; the verdict stands on the windows measured",
			gone);
		ctl_drop_proposal(c);
		if (c->o.batch)
			ctl_end(c, 0, NULL);
		else
			ctl_set_mode(c, CTL_IDLE);
		return -ESRCH;
	}
	if (edited) {
		own = step_clone(edited);
		if (!own)
			return -ENOMEM;
	}
	s = own ? own : c->prop;
	if (c->o.batch) {
		ev.step_no = c->nsteps + 1;
		ev.decision = CTL_DEC_ACCEPT;
		ev.step = c->prop;
		ctl_emit(c, &ev);
		if (gate(c, s) < 0) {
			step_free(own);
			return 0;
		}
		ctl_tell(c, AGENT_EV_ACCEPTED, NULL, s, NULL);
	} else {
		if (ctl_validate(c, s)) {
			ctl_say(c, CTL_LINE_ERROR, "cannot accept: %s%s%s; fix it (e) or veto it (v)",
				c->err.field, c->err.field[0] ? ": " : "", c->err.msg);
			step_free(own);
			return -EINVAL;
		}
		if (c->nrun >= CTL_MAX_RUNS || c->nrun >= c->o.steps) {
			ctl_say(c, CTL_LINE_ERROR, "the step budget (%u) is spent; undo a step (u) first",
				c->o.steps);
			step_free(own);
			return -ENOSPC;
		}
		if (is_edit) {
			ctl_say(c, CTL_LINE_HUMAN, "accepted step %u, edited: %s", c->nsteps + 1, diff);
			ctl_tell(c, AGENT_EV_EDITED, NULL, s, NULL);
		} else {
			ctl_say(c, CTL_LINE_HUMAN, "accepted step %u", c->nsteps + 1);
			ctl_tell(c, AGENT_EV_ACCEPTED, NULL, s, NULL);
		}
	}
	r = &c->run[c->nrun];
	memset(r, 0, sizeof(*r));
	r->idx = c->nsteps;
	errno = 0;
	r->x = c->o.exec->start(c->o.exec_arg, s, &cause);
	if (!r->x) {
		err = errno ? -errno : -EIO;
		ctl_say(c, CTL_LINE_ERROR, "%s", cause ? cause : strerror(-err));
		step_free(own);
		if (c->o.batch) {
			ctl_end(c, err, "%s", cause ? cause : strerror(-err));
			free(cause);
			return err;
		}
		free(cause);
		/* nothing runs: the proposal stays for a veto, an edit or another try */
		ctl_set_mode(c, CTL_PROPOSAL);
		return err;
	}
	if (!c->o.batch) {
		ev.step_no = r->idx + 1;
		ev.decision = is_edit ? CTL_DEC_EDIT : CTL_DEC_ACCEPT;
		ev.text = is_edit ? diff : NULL;
		ev.step = c->prop;
		ev.edited = is_edit ? s : NULL;
		ctl_emit(c, &ev);
	}
	if (is_edit) {
		r->step = own;
		r->original = c->prop;
	} else {
		r->step = own ? own : c->prop;
		if (own)
			step_free(c->prop);
	}
	c->prop = NULL;
	c->nrun++;
	c->nsteps++;
	ctl_say(c, CTL_LINE_INFO, "step %u loads and measures in reference and loaded windows",
		r->idx + 1);
	ctl_set_mode(c, CTL_RUNNING);
	return 0;
}

int ctl_accept(struct controller *c, const struct step *edited, const char *diff)
{
	return ctl_do_accept(c, edited, diff, c->o.auto_accept ? "auto" : "human");
}

int ctl_veto(struct controller *c, const char *reason, const struct step *shown)
{
	struct ctl_event ev = { .kind = CTL_EV_DECISION, .decision = CTL_DEC_VETO, .by = "human" };
	int err = need_proposal(c, "veto");

	if (err)
		return err;
	if (reason && *reason)
		ctl_say(c, CTL_LINE_HUMAN, "vetoed: %s", reason);
	else
		ctl_say(c, CTL_LINE_HUMAN, "vetoed (no reason given)");
	ev.step_no = c->nsteps + 1;
	ev.text = reason && *reason ? reason : NULL;
	ev.step = c->prop;
	ctl_emit(c, &ev);
	ctl_tell(c, AGENT_EV_VETOED, reason ? reason : "", shown ? shown : c->prop, NULL);
	ctl_drop_proposal(c);
	ctl_say(c, CTL_LINE_INFO, "nothing was loaded; the agent looks again");
	ctl_want_turn(c);
	return 0;
}

int ctl_another(struct controller *c)
{
	if (c->mode == CTL_PROPOSAL) {
		struct ctl_event ev = { .kind = CTL_EV_DECISION, .decision = CTL_DEC_VETO,
					.by = "human", .step_no = c->nsteps + 1,
					.text = "asked for another proposal", .step = c->prop };

		ctl_say(c, CTL_LINE_HUMAN, "another proposal, please");
		ctl_emit(c, &ev);
		ctl_tell(c, AGENT_EV_VETOED, "asked for another proposal", c->prop, NULL);
		ctl_drop_proposal(c);
	} else if (c->mode == CTL_IDLE) {
		ctl_say(c, CTL_LINE_HUMAN, "another turn, please");
	} else {
		ctl_say(c, CTL_LINE_INFO, "wait: %s",
			c->mode == CTL_RUNNING ? "a step is measuring (u stops it)" :
			c->mode == CTL_WAIT ? "the calibration is not done" : "the agent is thinking");
		return -EBUSY;
	}
	ctl_want_turn(c);
	return 0;
}

int ctl_undo(struct controller *c)
{
	struct ctl_event ev = { .kind = CTL_EV_DECISION, .decision = CTL_DEC_UNDO, .by = "human" };
	struct ctl_run *r;
	unsigned idx;
	int running;

	if (!c->nrun) {
		ctl_say(c, CTL_LINE_INFO, "nothing to undo: no step was accepted");
		return -ENOENT;
	}
	r = &c->run[c->nrun - 1];
	idx = r->idx;
	running = r->x != NULL;
	if (r->data)
		c->need_rebuild = 1;
	ev.step_no = idx + 1;
	ev.text = running ? "stopped and detached" : "results dropped";
	ev.step = r->original ? r->original : r->step;
	ctl_emit(c, &ev);
	ctl_run_clear(c, r);
	c->nrun--;
	if (c->nverdicts)
		snprintf(c->explore, sizeof(c->explore), "after undoing step %u", idx + 1);
	ctl_say(c, CTL_LINE_HUMAN, "undo step %u: %s", idx + 1,
		running ? "stopped and detached, its windows dropped" :
			  "its results dropped from the tree");
	if (c->mode == CTL_RUNNING || c->mode == CTL_THINKING)
		ctl_set_mode(c, CTL_IDLE);
	return 0;
}

static int first_word_is(const char *s, const char *w)
{
	size_t n = strlen(w);

	while (isspace((unsigned char)*s))
		s++;
	return !strncasecmp(s, w, n) && (!s[n] || isspace((unsigned char)s[n]));
}

int ctl_talk(struct controller *c, const char *text)
{
	if (!text || !*text)
		return 0;
	ctl_say(c, CTL_LINE_HUMAN, "%s", text);
	if (c->nverdicts)
		snprintf(c->explore, sizeof(c->explore), "talk: %s", text);
	ctl_tell(c, AGENT_EV_SAY, text, NULL, NULL);
	if (first_word_is(text, "focus") || first_word_is(text, "stop")) {
		if (c->mode == CTL_PROPOSAL) {
			ctl_say(c, CTL_LINE_INFO, "the waiting proposal is withdrawn");
			ctl_drop_proposal(c);
		}
		if (c->mode != CTL_RUNNING && c->mode != CTL_WAIT) {
			if (first_word_is(text, "focus"))
				ctl_say(c, CTL_LINE_INFO, "the descent restarts there");
			ctl_want_turn(c);
		}
	}
	return 0;
}

int ctl_focus(struct controller *c, const struct tree_node *n, const char *path)
{
	if (!n)
		return -EINVAL;
	ctl_say(c, CTL_LINE_HUMAN, "focus on %s", path ? path : n->name);
	if (c->nverdicts)
		snprintf(c->explore, sizeof(c->explore), "focus on %s", n->name);
	ctl_tell(c, AGENT_EV_FOCUS, n->name, NULL, n);
	if (c->mode == CTL_PROPOSAL) {
		ctl_say(c, CTL_LINE_INFO, "the waiting proposal is withdrawn");
		ctl_drop_proposal(c);
	}
	if (c->mode != CTL_RUNNING && c->mode != CTL_WAIT)
		ctl_want_turn(c);
	return 0;
}

void ctl_cancel(struct controller *c)
{
	struct ctl_event ev = { .kind = CTL_EV_TURN_END };

	if (c->mode != CTL_THINKING)
		return;
	c->turn_wanted = 0;
	c->in_flight = 0;
	if (c->agent && c->agent->ops->cancel)
		c->agent->ops->cancel(c->agent);
	ctl_emit(c, &ev);
	ctl_say(c, CTL_LINE_HUMAN, "cancelled the agent's turn (r asks again)");
	ctl_set_mode(c, CTL_IDLE);
}
