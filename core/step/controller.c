/* controller — the step loop: turns, decisions, runs, results (see
 * controller.h).  It calls the decisions (controller_decide.c: --auto
 * accepts through ctl_do_accept); both call down into what they share, the
 * events (controller_events.c) and the proposal's and runs' checks and
 * clearing (controller_state.c), and never back. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/caps.h"
#include "step/controller.h"
#include "step/controller_priv.h"
#include "step/step_exec.h"
#include "analysis/step_merge.h"
#include "step/step_preflight.h"

/* ---- life ------------------------------------------------------------------------- */

struct controller *ctl_new(const struct ctl_opts *o, struct agent *agent)
{
	struct controller *c = calloc(1, sizeof(*c));

	if (!c) {
		if (!o || !o->agent_borrowed)
			agent_free(agent);
		return NULL;
	}
	if (o)
		c->o = *o;
	if (!c->o.steps)
		c->o.steps = CTL_DEFAULT_STEPS;
	if (!c->o.exec)
		c->o.exec = &ctl_exec_real;
	c->agent = agent;
	c->mode = CTL_WAIT;
	c->est_pct = -1;
	if (!c->o.batch)
		ctl_say(c, CTL_LINE_INFO, "the agent (%s) proposes its first step when the "
			"calibration windows are done; nothing is loaded before you accept%s",
			agent ? agent->ops->name : "none",
			c->o.auto_accept ? " (--auto: every step is accepted for you)" : "");
	return c;
}

void ctl_free(struct controller *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < c->nrun; i++)
		ctl_run_clear(c, &c->run[i]);
	if (c->agent && c->in_flight && c->agent->ops->cancel)
		c->agent->ops->cancel(c->agent);
	if (!c->o.agent_borrowed)
		agent_free(c->agent);
	step_free(c->prop);
	ctl_gate_clear(c);
	agent_reply_clear(&c->last);
	free(c->cause);
	free(c);
}

/* ---- helpers ------------------------------------------------------------------------ */

/* what the step costs on average, % of a CPU: attached part of each
 * window (a duty), that part of the pre-flight's; <0: not estimated */
static double est_pct(const struct step *s, const struct step_preflight *pf, int err)
{
	double duty = s->duty > 0 && s->duty < 1 ? s->duty : 1;

	if (err || !pf->ok)
		return -1;
	return (pf->overhead_pct > 0 ? pf->overhead_pct : 0) * duty;
}

int ctl_estimate(struct controller *c, struct step *s, char *buf, size_t len)
{
	struct step_preflight pf;
	int err;

	if (!s)
		s = c->prop;
	if (!s) {
		snprintf(buf, len, "no proposal is waiting");
		return -ENOENT;
	}
	memset(&pf, 0, sizeof(pf));
	err = c->o.exec->preflight(c->o.exec_arg, s, caps_cached(), &pf);
	step_preflight_line(&pf, buf, len);
	c->est_pct = est_pct(s, &pf, err);
	step_preflight_clear(&pf);
	return err;
}

unsigned ctl_next_step_no(const struct controller *c)
{
	return c->nsteps + 1;
}

unsigned ctl_last_run_no(const struct controller *c)
{
	return c->nrun ? c->run[c->nrun - 1].idx + 1 : 0;
}

/* the estimate the view shows; the probe is closed again before return.
 * Over the budget, a kind with a duty cycle is changed to fit before a
 * person decides, and says so; another is said to be stopped if run. */
static void preflight(struct controller *c, struct step *s)
{
	struct ctl_event ev = { .kind = CTL_EV_ESTIMATE, .step = s };
	struct step_preflight pf;
	char est[400] = "", fit[400];
	int err, rc;

	if (!c->o.preflight) {
		ev.text = est;
		ctl_emit(c, &ev);
		return;
	}
	memset(&pf, 0, sizeof(pf));
	err = c->o.exec->preflight(c->o.exec_arg, s, caps_cached(), &pf);
	step_preflight_line(&pf, est, sizeof(est));
	if (err < 0) {
		ctl_say(c, CTL_LINE_ERROR, "pre-flight: %s", est);
	} else if ((rc = ctl_fit_budget(c, s, &pf, fit, sizeof(fit))) != 0) {
		size_t n = strlen(est);

		ctl_say(c, rc > 0 ? CTL_LINE_INFO : CTL_LINE_ERROR, "pre-flight: %s", fit);
		if (rc > 0)
			snprintf(est + n, sizeof(est) - n, "; attached %.0f%% of each window: "
				 "~%.2f%% on average", s->duty * 100, pf.overhead_pct * s->duty);
		else
			snprintf(est + n, sizeof(est) - n, "; over the %g%% budget: it would be "
				 "stopped", ctl_budget(c, s));
	}
	c->est_pct = est_pct(s, &pf, err);   /* after the fit: its duty counted */
	step_preflight_clear(&pf);
	ev.text = est;
	ctl_emit(c, &ev);
}

/* The first turn's reasoning in full; later turns repeat most of the
 * descent, so only their last lines ("why" asks for all of them). */
static void reply_lines(struct controller *c, const struct agent_reply *r)
{
	unsigned from = 0;

	if (c->nturns++ > 0 && r->nlines > CTL_REASON_LINES) {
		from = r->nlines - CTL_REASON_LINES;
		ctl_say(c, CTL_LINE_INFO, "%u reasoning lines before these (': why' shows them)",
			from);
	}
	for (unsigned i = 0; i < r->nlines; i++)   /* the LLM's latency and tokens: always */
		if (i >= from || !strncmp(r->lines[i], "llm: ", 5))
			ctl_say(c, CTL_LINE_REASON, "%s", r->lines[i]);
}

/* The agent's hypothesis ledger (an LLM keeps one; the heuristic none),
 * said whenever a turn changed it, so the person sees why it drills where
 * it does. */
static void hypothesis_lines(struct controller *c)
{
	const struct agent_hyp *h = NULL;
	unsigned n = agent_hypotheses(c->agent, &h), last = 0;

	for (unsigned i = 0; i < n; i++)
		if (h[i].turn > last)
			last = h[i].turn;
	if (!n || last == c->hyp_turn)
		return;
	c->hyp_turn = last;
	ctl_say(c, CTL_LINE_INFO, "hypotheses:");
	for (unsigned i = 0; i < n; i++)
		ctl_say(c, CTL_LINE_REASON, "  %s: %s%s%s", h[i].name, h[i].status,
			h[i].evidence[0] ? " - " : "", h[i].evidence);
}

/* The decision on a fresh proposal: o.decide, --auto, or a person later. */
static int decide(struct controller *c)
{
	const char *why = NULL;
	enum ctl_decide d;

	if (!c->o.decide) {
		if (c->o.auto_accept && !c->has_err) {
			ctl_say(c, CTL_LINE_HUMAN, "(--auto) accepted");
			return ctl_do_accept(c, NULL, NULL, "auto");
		}
		return 0;
	}
	d = c->o.decide(c->o.decide_arg, c, c->prop, &why);
	switch (d) {
	case CTL_DECIDE_ACCEPT:
		return ctl_do_accept(c, NULL, NULL, "auto");
	case CTL_DECIDE_DECLINE: {
		struct ctl_event ev = { .kind = CTL_EV_DECLINED, .step = c->prop, .text = why };

		ctl_tell(c, AGENT_EV_VETOED, why ? why : "", c->prop, NULL);
		ctl_emit(c, &ev);
		ctl_drop_proposal(c);
		ctl_want_turn(c);
		return 0;
	}
	case CTL_DECIDE_STOP: {
		struct ctl_event ev = { .kind = CTL_EV_NOT_RUN, .step = c->prop,
					.step_no = c->nsteps + 1 };

		ctl_emit(c, &ev);
		ctl_end(c, 0, NULL);
		return 0;
	}
	default:
		return 0;
	}
}

static int take_reply(struct controller *c, struct agent_reply *r)
{
	struct ctl_event ev = { .kind = CTL_EV_REPLY, .reply = r };
	char desc[256], gone[64];
	int err = 0;

	c->turns++;
	ctl_emit(c, &ev);
	reply_lines(c, r);
	if (c->agent)
		hypothesis_lines(c);
	ev = (struct ctl_event){ .kind = CTL_EV_FOCUS, .node_id = r->focus ? r->focus->id : 0 };
	ctl_emit(c, &ev);
	switch (r->kind) {
	case AGENT_REPLY_PROPOSAL:
		if (r->step && ctl_load_gone(c, gone, sizeof(gone))) {
			/* a step measures the load paused and running: gone, it
			 * would measure nothing, and its "finding" would be noise */
			ctl_say(c, CTL_LINE_INFO, "no step proposed: the load %s, and a step measures "
				"it in reference and loaded windows; the verdict stands on the "
				"windows measured", gone);
			if (c->o.batch)
				ctl_end(c, 0, NULL);
			else
				ctl_set_mode(c, CTL_IDLE);
			break;
		}
		if (!r->step) {
			ctl_say(c, CTL_LINE_ERROR, "the agent proposed nothing it could say");
			if (c->o.batch)
				ctl_end(c, 0, NULL);
			else
				ctl_set_mode(c, CTL_IDLE);
			break;
		}
		ctl_drop_proposal(c);
		c->prop = r->step;
		r->step = NULL;
		/* scoped to the diagnosed processes before anyone sees it: the
		 * session records the step as it would run */
		if (step_scope_apply(&c->o.scope, c->prop, NULL) == -ENOMEM)
			ctl_say(c, CTL_LINE_ERROR, "cannot scope the step to %s: out of memory",
				c->o.scope.what);
		ev = (struct ctl_event){ .kind = CTL_EV_PROPOSAL, .step_no = c->nsteps + 1,
					 .agent = c->agent->ops->name, .step = c->prop,
					 .lines = r->lines, .nlines = r->nlines,
					 .focus = r->focus ? r->focus->name : NULL };
		ctl_emit(c, &ev);
		if (c->o.batch && c->o.max_turns && c->turns > c->o.max_turns) {
			ctl_end(c, 0, NULL);
			break;
		}
		ctl_say(c, CTL_LINE_PROPOSAL, "step %u (run %u of at most %u): %s", c->nsteps + 1,
			c->nrun + 1, c->o.steps, step_describe(c->prop, desc, sizeof(desc)));
		if (c->o.scope.no_reference)   /* before it may be accepted */
			ctl_say(c, CTL_LINE_INFO, "%s",
				step_scope_no_reference(&c->o.scope, desc, sizeof(desc)));
		if (ctl_validate(c, c->prop))
			ctl_say(c, CTL_LINE_ERROR, "the proposal does not validate here: %s%s%s; "
				"edit it (e) or veto it (v)", c->err.field,
				c->err.field[0] ? ": " : "", c->err.msg);
		else
			preflight(c, c->prop);
		ctl_set_mode(c, CTL_PROPOSAL);
		err = decide(c);
		break;
	case AGENT_REPLY_VERDICT:
		ev = (struct ctl_event){ .kind = CTL_EV_VERDICT, .verdict = &r->verdict,
					 .lines = r->lines, .nlines = r->nlines,
					 .focus = c->explore[0] ? c->explore : NULL };
		c->nverdicts++;
		ctl_emit(c, &ev);
		ctl_say(c, CTL_LINE_VERDICT, "%s%s%s%s", c->explore[0] ? "finding (" : "",
			c->explore, c->explore[0] ? "; the verdict stands): " : "",
			r->verdict.summary ? r->verdict.summary :
			r->verdict.found ? "found" : "no bottleneck found");
		if (c->o.batch)
			ctl_end(c, 0, NULL);
		else
			ctl_set_mode(c, CTL_IDLE);
		break;
	case AGENT_REPLY_TEXT:
		ctl_say(c, CTL_LINE_TEXT, "%s", r->text ? r->text : "");
		if (c->o.batch)
			ctl_end(c, 0, NULL);
		else
			ctl_set_mode(c, CTL_IDLE);
		break;
	}
	/* the last reply's verdict (the heuristic gives an interim one with
	 * each proposal): batch's answer when the loop ends */
	verdict_clear(&c->last.verdict);
	c->last.kind = r->kind;
	c->last.verdict = r->verdict;
	memset(&r->verdict, 0, sizeof(r->verdict));
	agent_reply_clear(r);
	return err;
}

static int do_turn(struct controller *c, struct tree *t)
{
	struct agent_ctx ctx = { 0 };
	struct agent_reply r;
	int err;

	if (!c->agent || !t)
		return -EINVAL;
	ctx.tree = t;
	ctx.step_index = c->o.batch ? c->nsteps : c->nrun;
	ctx.step_max = c->o.steps;
	memset(&r, 0, sizeof(r));
	err = c->agent->ops->turn(c->agent, &ctx, &r);
	if (err == -EINPROGRESS) {
		struct ctl_event ev = { .kind = CTL_EV_TURN_BEGIN };

		c->in_flight = 1;
		ctl_emit(c, &ev);
		ctl_set_mode(c, CTL_THINKING);
		return 0;
	}
	if (err < 0) {
		agent_reply_clear(&r);
		ctl_say(c, CTL_LINE_ERROR, "the agent's turn failed: %s", strerror(-err));
		if (c->o.batch)
			ctl_end(c, err, "the agent's turn failed: %s", strerror(-err));
		else
			ctl_set_mode(c, CTL_IDLE);
		return err;
	}
	return take_reply(c, &r);
}

/* ---- running ---------------------------------------------------------------------------- */

/* The summary with what was measured when it was not all of it: a run
 * stopped for its cost (how many windows it kept), a duty cycle (what part
 * of each window).  Takes ownership of sum; returns the string to free. */
static char *summary_measured(char *sum, const struct step_exec_info *info)
{
	char *s2 = NULL;

	if (!sum)
		return NULL;
	if (info->state == STEP_EXEC_OVER_BUDGET &&
	    asprintf(&s2, "%s (%s; measured %u of %u windows)", sum, info->reason, info->windows,
		     2 * info->pairs) >= 0) {
		free(sum);
		sum = s2;
	} else if (info->duty > 0 && info->duty < 1 &&
		   asprintf(&s2, "%s (attached %.0f%% of each window to hold the %g%% budget)", sum,
			    info->duty * 100, info->budget_pct) >= 0) {
		free(sum);
		sum = s2;
	}
	return sum;
}

/* batch: the summary told to the agent, with why a run stopped early */
static char *batch_summary(const struct ctl_run *r, const struct step_exec_info *info)
{
	return summary_measured(r->data ? step_summary(r->step, r->data, 1) : NULL, info);
}

static void run_finished(struct controller *c, struct ctl_run *r, int failed)
{
	struct step_exec_info info;
	struct ctl_event ev = { .kind = CTL_EV_RESULT };
	char reason[200], *sum = NULL;

	c->o.exec->info(r->x, &info);
	snprintf(reason, sizeof(reason), "%s", info.reason);
	r->data = c->o.exec->take(r->x);
	c->o.exec->free(r->x);
	r->x = NULL;
	if (r->data)
		c->lost += profile_lost(r->data->prof);
	ev.step_no = r->idx + 1;
	ev.step = r->step;
	ev.data = r->data;
	ev.info = &info;
	ev.pf = c->gate;
	ev.ok = r->data != NULL && !failed;
	if (c->o.batch) {
		/* the agent, the JSON and the session hear what was measured */
		sum = batch_summary(r, &info);
		ev.summary = sum;
		ev.text = sum;
		ctl_emit(c, &ev);
		ctl_gate_clear(c);
		if (failed)
			return;
		if (r->data)
			c->need_rebuild = 1;
		if (sum)
			ctl_tell(c, AGENT_EV_RESULT, sum, r->step, NULL);
		free(sum);
		ctl_want_turn(c);
		return;
	}
	if (r->data)
		sum = summary_measured(step_summary(r->step, r->data, c->o.utf8), &info);
	if (sum && c->o.scope.no_reference) {
		/* both columns measured it running: said with the numbers too */
		char *s2 = NULL;

		if (asprintf(&s2, "%s (no reference: %s was not paused)", sum,
			     c->o.scope.what[0] ? c->o.scope.what : "the process") >= 0) {
			free(sum);
			sum = s2;
		}
	}
	ev.text = sum ? sum : reason[0] ? reason : NULL;
	ev.summary = sum;
	ctl_emit(c, &ev);
	if (!r->data) {
		ctl_say(c, CTL_LINE_ERROR, "step %u measured nothing%s%s", r->idx + 1,
			reason[0] ? ": " : "", reason);
		ctl_tell(c, AGENT_EV_RESULT, "the step measured nothing", r->step, NULL);
	} else {
		ctl_say(c, CTL_LINE_RESULT, "step %u: %s%s%s", r->idx + 1, sum ? sum : "measured",
			reason[0] ? "; " : "", reason);
		ctl_tell(c, AGENT_EV_RESULT, sum ? sum : "measured", r->step, NULL);
		c->need_rebuild = 1;
	}
	free(sum);
	ctl_want_turn(c);   /* the next turn follows the rebuild */
}

int ctl_tick(struct controller *c, struct tree *t, int calibrated,
	     const struct source_status *st, double now)
{
	struct ctl_run *r = c->nrun ? &c->run[c->nrun - 1] : NULL;
	enum ctl_mode m0 = c->mode;
	int changed = 0;

	if (c->mode == CTL_DONE)
		return c->error;
	if (c->mode == CTL_WAIT) {
		if (!t || !calibrated ||
		    (st && st->phase != SOURCE_DONE && st->phase != SOURCE_STATIC))
			return 0;
		ctl_say(c, CTL_LINE_INFO, "calibration done: the agent's first turn");
		do_turn(c, t);
		return c->mode == CTL_DONE ? c->error : 1;
	}
	if (r && r->x) {
		char *cause = NULL;
		int rc = c->o.exec->tick(r->x, now, &cause);

		if (rc < 0) {
			ctl_say(c, CTL_LINE_ERROR, "step %u failed: %s", r->idx + 1,
				cause ? cause : strerror(-rc));
			if (c->o.batch)
				ctl_end(c, rc, "%s", cause ? cause : strerror(-rc));
			run_finished(c, r, c->o.batch);
			free(cause);
		} else if (c->o.exec->finished(r->x)) {
			run_finished(c, r, 0);
		}
		return c->mode == CTL_DONE ? c->error : 1;
	}
	if (c->turn_wanted && !c->need_rebuild && t) {
		c->turn_wanted = 0;
		do_turn(c, t);
		changed = 1;
	} else if (c->in_flight && c->agent && c->agent->ops->poll) {
		struct agent_reply rep;
		int rc;

		memset(&rep, 0, sizeof(rep));
		rc = c->agent->ops->poll(c->agent, &rep);
		if (rc != -EINPROGRESS) {
			struct ctl_event ev = { .kind = CTL_EV_TURN_END };

			c->in_flight = 0;
			ctl_emit(c, &ev);
			changed = 1;
		}
		if (rc == 0) {
			take_reply(c, &rep);
		} else if (rc != -EINPROGRESS) {
			agent_reply_clear(&rep);
			ctl_say(c, CTL_LINE_ERROR, "the agent's turn failed: %s", strerror(-rc));
			if (c->o.batch)
				ctl_end(c, rc, "the agent's turn failed: %s", strerror(-rc));
			else
				ctl_set_mode(c, CTL_IDLE);
		}
	}
	if (c->mode == CTL_DONE)
		return c->error;
	return changed || c->mode != m0;
}

int ctl_timeout_ms(struct controller *c, double now)
{
	struct ctl_run *r = c->nrun ? &c->run[c->nrun - 1] : NULL;

	if (c->mode == CTL_DONE)
		return -1;
	if (r && r->x)
		return c->o.exec->timeout_ms(r->x, now);
	if (c->turn_wanted && !c->need_rebuild)
		return 0;
	if (c->in_flight) {   /* the agent's own deadline */
		int a = agent_timeout_ms(c->agent);

		return a < 0 || a > 1000 ? 1000 : a;
	}
	return -1;
}

int ctl_pollfds(struct controller *c, struct pollfd *fds, int max)
{
	if (!c->in_flight || !c->agent)
		return 0;
	return agent_pollfds(c->agent, fds, max);
}

unsigned ctl_steps(const struct controller *c, struct analysis_step *out, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < c->nrun && n < max; i++) {
		const struct ctl_run *r = &c->run[i];

		if (!r->data)
			continue;
		out[n++] = (struct analysis_step){ .step = r->step, .data = r->data, .idx = r->idx };
	}
	return n;
}

int ctl_need_rebuild(const struct controller *c)
{
	return c->need_rebuild;
}

void ctl_rebuilt(struct controller *c)
{
	c->need_rebuild = 0;
}

const struct step *ctl_proposal(const struct controller *c)
{
	return c->prop;
}

int ctl_run_status(struct controller *c, struct source_status *st, unsigned *step_no)
{
	struct ctl_run *r = c->nrun ? &c->run[c->nrun - 1] : NULL;

	if (!r || !r->x)
		return -ENOENT;
	c->o.exec->status(r->x, st);
	if (step_no)
		*step_no = r->idx + 1;
	return 0;
}

uint64_t ctl_lost(struct controller *c)
{
	struct source_status st;

	if (ctl_run_status(c, &st, NULL) == 0)
		return c->lost + st.dropped;
	return c->lost;
}

void ctl_stop(struct controller *c)
{
	struct ctl_run *r = c->nrun ? &c->run[c->nrun - 1] : NULL;

	if (c->agent && c->in_flight) {
		if (c->agent->ops->cancel)
			c->agent->ops->cancel(c->agent);
		c->in_flight = 0;
		if (c->o.batch)
			ctl_end(c, -EINTR, "the agent's turn failed: %s", strerror(EINTR));
	}
	if (r && r->x) {
		c->o.exec->stop(r->x);
		if (c->o.batch)
			ctl_end(c, -EINTR, NULL);
		run_finished(c, r, c->o.batch);
	}
	if (c->o.batch && c->mode != CTL_DONE)
		ctl_end(c, -EINTR, NULL);
}


/* ---- what callers read ------------------------------------------------------------------ */

enum ctl_mode ctl_mode(const struct controller *c)
{
	return c->mode;
}

int ctl_in_flight(const struct controller *c)
{
	return c->in_flight;
}

int ctl_turn_due(const struct controller *c)
{
	return c->turn_wanted;
}

int ctl_step_error(const struct controller *c, struct step_error *out)
{
	*out = c->err;
	return c->has_err;
}

double ctl_est_pct(const struct controller *c)
{
	return c->est_pct;
}

int ctl_outcome(const struct controller *c, const char **cause)
{
	if (cause)
		*cause = c->cause;
	return c->error;
}

const struct agent_reply *ctl_last_reply(const struct controller *c)
{
	return &c->last;
}

int ctl_take_verdict(struct controller *c, struct verdict *out)
{
	if (c->last.kind == AGENT_REPLY_PROPOSAL && !c->last.verdict.found &&
	    !c->last.verdict.summary)
		return -ENOENT;
	*out = c->last.verdict;
	memset(&c->last.verdict, 0, sizeof(c->last.verdict));
	return 0;
}

unsigned ctl_nrun(const struct controller *c)
{
	return c->nrun;
}

int ctl_run_measured(const struct controller *c, unsigned i, unsigned *idx)
{
	if (i >= c->nrun)
		return -ENOENT;
	*idx = c->run[i].idx;
	return c->run[i].data != NULL;
}

int ctl_run_say_once(struct controller *c, unsigned i)
{
	if (i >= c->nrun || c->run[i].where_said)
		return 0;
	c->run[i].where_said = 1;
	return 1;
}
