/* pane — the agent pane's model: turns, decisions, steps, transcript. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "pane.h"
#include "session_step.h"

/* ---- transcript ------------------------------------------------------------------ */

/* the transcript's "who" of an entry kind */
static const char *pane_who(enum fmt_agent_kind kind)
{
	switch (kind) {
	case FMT_AGENT_HUMAN:
		return "human";
	case FMT_AGENT_REASON:
	case FMT_AGENT_PROPOSAL:
	case FMT_AGENT_VERDICT:
	case FMT_AGENT_TEXT:
		return "agent";
	default:
		return "argus";
	}
}

static int pane_vsay(struct pane *p, enum fmt_agent_kind kind, const char *fmt, va_list ap)
{
	char *text;

	if (p->ntr == p->trcap) {
		unsigned cap = p->trcap ? p->trcap * 2 : 64;
		struct pane_entry *n = realloc(p->tr, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->tr = n;
		p->trcap = cap;
	}
	if (vasprintf(&text, fmt, ap) < 0)
		return -ENOMEM;
	p->tr[p->ntr].kind = kind;
	p->tr[p->ntr].text = text;
	if (p->o.ses)
		session_write_transcript(p->o.ses, pane_who(kind), text);
	p->ntr++;
	p->scroll = 0;            /* new text: back to the end */
	p->version++;
	return 0;
}

int pane_say(struct pane *p, enum fmt_agent_kind kind, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = pane_vsay(p, kind, fmt, ap);
	va_end(ap);
	return err;
}

static void set_mode(struct pane *p, enum fmt_agent_mode m)
{
	p->mode = m;
	p->version++;
}

/* a new turn once the tree is up to date (pane_tick) */
static void want_turn(struct pane *p)
{
	p->turn_wanted = 1;
	set_mode(p, FMT_AGENT_MODE_THINKING);
}

/* ---- life ------------------------------------------------------------------------ */

struct pane *pane_new(const struct pane_opts *o, struct agent *agent)
{
	struct pane *p = calloc(1, sizeof(*p));

	if (!p) {
		agent_free(agent);
		return NULL;
	}
	if (o)
		p->o = *o;
	if (!p->o.steps)
		p->o.steps = PANE_DEFAULT_STEPS;
	p->agent = agent;
	p->mode = FMT_AGENT_MODE_WAIT;
	if (pane_say(p, FMT_AGENT_INFO, "the agent (%s) proposes its first step when the "
		     "calibration windows are done; nothing is loaded before you accept%s",
		     agent ? agent->ops->name : "none",
		     p->o.auto_accept ? " (--auto: every step is accepted for you)" : "") < 0) {
		pane_free(p);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

static void run_clear(struct pane_run *r)
{
	pane_exec_free(r->x);
	pane_result_free(r->res);
	step_free(r->step);
	step_free(r->original);
	memset(r, 0, sizeof(*r));
}

void pane_free(struct pane *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->nrun; i++)
		run_clear(&p->run[i]);
	if (p->agent && p->in_flight && p->agent->ops->cancel)
		p->agent->ops->cancel(p->agent);
	agent_free(p->agent);
	pane_stream_free(p->stream);
	for (unsigned i = 0; i < p->ntr; i++)
		free(p->tr[i].text);
	free(p->tr);
	step_free(p->prop);
	step_free(p->edit);
	free(p);
}

/* ---- helpers ----------------------------------------------------------------------- */

char *pane_node_path(const struct tree_node *n, const char *sep, unsigned max, char *buf,
		     size_t len)
{
	const struct tree_node *path[128];
	unsigned np = 0;
	size_t off = 0;

	buf[0] = 0;
	for (; n && n->parent && np < 128; n = n->parent)
		path[np++] = n;
	if (max < 2)
		max = 2;
	for (unsigned i = np; i-- > 0 && off < len;) {
		unsigned k = np - 1 - i;    /* 0 = the outermost */
		int w;

		if (np > max && k > 0 && i > max - 2) {
			if (k == 1)
				w = snprintf(buf + off, len - off, "%s...", off ? sep : "");
			else
				continue;
		} else {
			w = snprintf(buf + off, len - off, "%s%s", off ? sep : "", path[i]->name);
		}
		if (w < 0)
			break;
		off += (size_t)w;
	}
	return buf;
}

static const struct caps *pane_caps(struct pane *p)
{
	return p->o.caps ? p->o.caps : caps_cached();
}

static int validate(struct pane *p, struct step *s)
{
	const struct caps *c = pane_caps(p);
	int err;

	memset(&p->err, 0, sizeof(p->err));
	err = step_check_required(s, &p->err);
	if (!err && c)
		err = step_validate(s, c, NULL, &p->err);
	p->has_err = err != 0;
	p->version++;
	return err;
}

/* the estimate the card shows; the probe is closed again before return */
static void preflight(struct pane *p, struct step *s)
{
	p->estimate[0] = 0;
	if (!p->o.preflight)
		return;
	if (pane_exec_preflight(s, p->estimate, sizeof(p->estimate)) < 0)
		pane_say(p, FMT_AGENT_ERROR, "pre-flight: %s", p->estimate);
}

/* The first turn's reasoning in full; later turns repeat most of the
 * descent, so only their last lines ("why" asks for all of them). */
static void reply_lines(struct pane *p, const struct agent_reply *r)
{
	unsigned from = 0;

	if (p->nturns++ > 0 && r->nlines > PANE_REASON_LINES) {
		from = r->nlines - PANE_REASON_LINES;
		pane_say(p, FMT_AGENT_INFO, "%u reasoning lines before these (': why' shows them)",
			 from);
	}
	for (unsigned i = 0; i < r->nlines; i++)   /* the LLM's latency and tokens: always */
		if (i >= from || !strncmp(r->lines[i], "llm: ", 5))
			pane_say(p, FMT_AGENT_REASON, "%s", r->lines[i]);
}

/* The agent's hypothesis ledger (an LLM keeps one; the heuristic none),
 * shown whenever a turn changed it, so the person sees why it drills where
 * it does. */
static void hypothesis_lines(struct pane *p)
{
	const struct agent_hyp *h = NULL;
	unsigned n = agent_hypotheses(p->agent, &h), last = 0;

	for (unsigned i = 0; i < n; i++)
		if (h[i].turn > last)
			last = h[i].turn;
	if (!n || last == p->hyp_turn)
		return;
	p->hyp_turn = last;
	pane_say(p, FMT_AGENT_INFO, "hypotheses:");
	for (unsigned i = 0; i < n; i++)
		pane_say(p, FMT_AGENT_REASON, "  %s: %s%s%s", h[i].name, h[i].status,
			 h[i].evidence[0] ? " - " : "", h[i].evidence);
}

static void drop_proposal(struct pane *p)
{
	step_free(p->prop);
	step_free(p->edit);
	p->prop = p->edit = NULL;
	p->has_err = 0;
	p->estimate[0] = 0;
	memset(&p->err, 0, sizeof(p->err));
}

static int do_turn(struct pane *p, struct tree *t);

static int take_reply(struct pane *p, struct tree *t, struct agent_reply *r)
{
	char desc[256];
	int err = 0;

	reply_lines(p, r);
	if (p->agent)
		hypothesis_lines(p);
	if (r->focus && !p->keep_selection) {
		p->focus_id = r->focus->id;
		p->select_focus = 1;
	}
	p->keep_selection = 0;
	switch (r->kind) {
	case AGENT_REPLY_PROPOSAL:
		if (!r->step) {
			pane_say(p, FMT_AGENT_ERROR, "the agent proposed nothing it could say");
			set_mode(p, FMT_AGENT_MODE_IDLE);
			break;
		}
		drop_proposal(p);
		p->prop = r->step;
		r->step = NULL;
		session_step_proposal(p->o.ses, p->nsteps + 1, p->agent->ops->name, p->prop,
				      r->lines, r->nlines, r->focus ? r->focus->name : NULL);
		pane_say(p, FMT_AGENT_PROPOSAL, "step %u of at most %u: %s", p->nrun + 1,
			 p->o.steps, step_describe(p->prop, desc, sizeof(desc)));
		if (validate(p, p->prop))
			pane_say(p, FMT_AGENT_ERROR, "the proposal does not validate here: %s%s%s; "
				 "edit it (e) or veto it (v)", p->err.field,
				 p->err.field[0] ? ": " : "", p->err.msg);
		else
			preflight(p, p->prop);
		set_mode(p, FMT_AGENT_MODE_PROPOSAL);
		if (p->o.auto_accept && !p->has_err) {
			pane_say(p, FMT_AGENT_HUMAN, "(--auto) accepted");
			err = pane_accept(p, t);
		}
		break;
	case AGENT_REPLY_VERDICT:
		if (p->o.ses)
			session_write_verdict(p->o.ses, &r->verdict, r->lines, r->nlines);
		pane_say(p, FMT_AGENT_VERDICT, "%s",
			 r->verdict.summary ? r->verdict.summary :
			 r->verdict.found ? "found" : "no bottleneck found");
		set_mode(p, FMT_AGENT_MODE_IDLE);
		break;
	case AGENT_REPLY_TEXT:
		pane_say(p, FMT_AGENT_TEXT, "%s", r->text ? r->text : "");
		set_mode(p, FMT_AGENT_MODE_IDLE);
		break;
	}
	agent_reply_clear(r);
	return err;
}

static int do_turn(struct pane *p, struct tree *t)
{
	struct agent_ctx ctx = { 0 };
	struct agent_reply r;
	int err;

	if (!p->agent || !t)
		return -EINVAL;
	ctx.tree = t;
	ctx.step_index = p->nrun;
	ctx.step_max = p->o.steps;
	p->started = 1;
	memset(&r, 0, sizeof(r));
	err = p->agent->ops->turn(p->agent, &ctx, &r);
	if (err == -EINPROGRESS) {
		p->in_flight = 1;
		pane_stream_begin(p->stream);
		set_mode(p, FMT_AGENT_MODE_THINKING);
		return 0;
	}
	if (err < 0) {
		agent_reply_clear(&r);
		pane_say(p, FMT_AGENT_ERROR, "the agent's turn failed: %s", strerror(-err));
		set_mode(p, FMT_AGENT_MODE_IDLE);
		return err;
	}
	return take_reply(p, t, &r);
}

/* the agent's answer to something it was told */
static void tell(struct pane *p, enum agent_event_kind kind, const char *text,
		 const struct step *s, const struct tree_node *n)
{
	struct agent_event ev = { .kind = kind, .text = text, .step = s, .node = n };
	struct agent_reply r;
	int err;

	if (!p->agent || !p->agent->ops->tell)
		return;
	memset(&r, 0, sizeof(r));
	err = p->agent->ops->tell(p->agent, &ev, &r);
	if (err < 0)
		pane_say(p, FMT_AGENT_ERROR, "the agent could not take it in: %s", strerror(-err));
	else if (r.kind == AGENT_REPLY_TEXT && r.text)
		pane_say(p, FMT_AGENT_TEXT, "%s", r.text);
	agent_reply_clear(&r);
}

/* ---- the loop ----------------------------------------------------------------------- */

static void run_finished(struct pane *p, struct pane_run *r)
{
	char reason[200], *sum = NULL;

	pane_exec_reason(r->x, reason, sizeof(reason));
	r->res = pane_exec_take(r->x);
	if (r->res)
		sum = pane_result_summary(r->res, r->step, p->o.utf8);
	pane_exec_record(p->o.ses, r->x, r->res, r->step, r->idx + 1,
			 sum ? sum : reason[0] ? reason : NULL);
	pane_exec_free(r->x);
	r->x = NULL;
	if (!r->res) {
		pane_say(p, FMT_AGENT_ERROR, "step %u measured nothing%s%s", r->idx + 1,
			 reason[0] ? ": " : "", reason);
		tell(p, AGENT_EV_RESULT, "the step measured nothing", r->step, NULL);
	} else {
		pane_say(p, FMT_AGENT_RESULT, "step %u: %s%s%s", r->idx + 1,
			 sum ? sum : "measured", reason[0] ? "; " : "", reason);
		tell(p, AGENT_EV_RESULT, sum ? sum : "measured", r->step, NULL);
		free(sum);
		p->need_rebuild = 1;
	}
	want_turn(p);   /* the next turn follows the rebuild */
}

int pane_tick(struct pane *p, struct tree *t, int calibrated, const struct source_status *st,
	      double now)
{
	unsigned v = p->version;
	struct pane_run *r = p->nrun ? &p->run[p->nrun - 1] : NULL;

	if (p->mode == FMT_AGENT_MODE_WAIT) {
		if (!t || !calibrated || !st ||
		    (st->phase != SOURCE_DONE && st->phase != SOURCE_STATIC))
			return 0;
		pane_say(p, FMT_AGENT_INFO, "calibration done: the agent's first turn");
		do_turn(p, t);
		return 1;
	}
	if (r && r->x) {
		char *cause = NULL;
		int rc = pane_exec_tick(r->x, now, &cause);

		if (rc < 0) {
			pane_say(p, FMT_AGENT_ERROR, "step %u failed: %s", r->idx + 1,
				 cause ? cause : strerror(-rc));
			free(cause);
			run_finished(p, r);
		} else if (pane_exec_finished(r->x)) {
			run_finished(p, r);
		}
		if (rc > 0)
			p->version++;
		return 1;
	}
	if (p->turn_wanted && !p->need_rebuild && t) {
		p->turn_wanted = 0;
		do_turn(p, t);
	} else if (p->in_flight && p->agent && p->agent->ops->poll) {
		struct agent_reply rep;
		int rc;

		memset(&rep, 0, sizeof(rep));
		rc = p->agent->ops->poll(p->agent, &rep);
		if (rc != -EINPROGRESS) {
			p->in_flight = 0;
			pane_stream_end(p->stream);
		}
		if (pane_stream_changed(p->stream, &p->stream_seen))
			p->version++;   /* streamed text or the elapsed seconds */
		if (rc == 0) {
			take_reply(p, t, &rep);
		} else if (rc != -EINPROGRESS) {
			agent_reply_clear(&rep);
			pane_say(p, FMT_AGENT_ERROR, "the agent's turn failed: %s", strerror(-rc));
			set_mode(p, FMT_AGENT_MODE_IDLE);
		}
	}
	return p->version != v;
}

int pane_timeout_ms(struct pane *p, double now)
{
	struct pane_run *r = p->nrun ? &p->run[p->nrun - 1] : NULL;

	if (r && r->x)
		return pane_exec_timeout_ms(r->x, now);
	if (p->turn_wanted && !p->need_rebuild)
		return 0;
	if (p->in_flight) {   /* the agent's own deadline, the elapsed seconds shown */
		int a = agent_timeout_ms(p->agent), s = pane_stream_timeout_ms(p->stream);

		if (a < 0 || (s >= 0 && s < a))
			a = s;
		return a < 0 || a > 1000 ? 1000 : a;
	}
	return -1;
}

/* ---- decisions ----------------------------------------------------------------------- */

static int need_proposal(struct pane *p, const char *what)
{
	if (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT)
		return 0;
	pane_say(p, FMT_AGENT_INFO, "nothing to %s: no proposal is waiting", what);
	return -ENOENT;
}

/* "duration_s 5 -> 3, target a -> b" into buf */
static void edit_diff(const struct step *a, const struct step *b, char *buf, size_t len)
{
	char va[512], vb[512];
	size_t off = 0;

	buf[0] = 0;
	for (int i = 0; fmt_agent_fields[i] && off < len; i++) {
		int w;

		fmt_agent_field_value(a, fmt_agent_fields[i], va, sizeof(va));
		fmt_agent_field_value(b, fmt_agent_fields[i], vb, sizeof(vb));
		if (!strcmp(va, vb))
			continue;
		w = snprintf(buf + off, len - off, "%s%s %s -> %s", off ? ", " : "",
			     fmt_agent_fields[i], va[0] ? va : "(none)", vb[0] ? vb : "(none)");
		if (w < 0)
			break;
		off += (size_t)w;
	}
}

int pane_accept(struct pane *p, struct tree *t)
{
	struct step *s;
	struct pane_run *r;
	char *cause = NULL, diff[512] = "";
	int err;

	(void)t;
	err = need_proposal(p, "accept");
	if (err)
		return err;
	s = p->edit ? p->edit : p->prop;
	if (validate(p, s)) {
		pane_say(p, FMT_AGENT_ERROR, "cannot accept: %s%s%s; fix it (e) or veto it (v)",
			 p->err.field, p->err.field[0] ? ": " : "", p->err.msg);
		return -EINVAL;
	}
	if (p->nrun >= PANE_MAX_RUNS || p->nrun >= p->o.steps) {
		pane_say(p, FMT_AGENT_ERROR, "the step budget (%u) is spent; undo a step (u) first",
			 p->o.steps);
		return -ENOSPC;
	}
	if (p->edit)
		edit_diff(p->prop, p->edit, diff, sizeof(diff));
	if (p->edit && diff[0]) {
		pane_say(p, FMT_AGENT_HUMAN, "accepted step %u, edited: %s", p->nrun + 1, diff);
		tell(p, AGENT_EV_EDITED, NULL, p->edit, NULL);
	} else {
		pane_say(p, FMT_AGENT_HUMAN, "accepted step %u", p->nrun + 1);
		tell(p, AGENT_EV_ACCEPTED, NULL, s, NULL);
	}
	r = &p->run[p->nrun];
	memset(r, 0, sizeof(*r));
	r->idx = p->nsteps;
	r->x = pane_exec_new(s, p->o.load, p->o.sequential, &cause);
	if (!r->x) {
		err = errno ? -errno : -EIO;
		pane_say(p, FMT_AGENT_ERROR, "%s", cause ? cause : strerror(-err));
		free(cause);
		/* nothing runs: the proposal stays for a veto, an edit or another try */
		set_mode(p, p->edit ? FMT_AGENT_MODE_EDIT : FMT_AGENT_MODE_PROPOSAL);
		return err;
	}
	if (p->edit && diff[0])
		session_step_decision(p->o.ses, r->idx + 1, SESSION_EDIT,
				      p->o.auto_accept ? "auto" : "human", diff, p->prop, p->edit);
	else
		session_step_decision(p->o.ses, r->idx + 1, SESSION_ACCEPT,
				      p->o.auto_accept ? "auto" : "human", NULL, p->prop, NULL);
	if (p->edit && diff[0]) {
		r->step = p->edit;
		r->original = p->prop;
	} else {
		r->step = p->prop;
		step_free(p->edit);
	}
	p->prop = p->edit = NULL;
	p->nrun++;
	p->nsteps++;
	pane_say(p, FMT_AGENT_INFO, "step %u loads and measures in reference and loaded "
		 "windows", r->idx + 1);
	set_mode(p, FMT_AGENT_MODE_RUNNING);
	return 0;
}

int pane_veto(struct pane *p, struct tree *t, const char *reason)
{
	int err = need_proposal(p, "veto");

	(void)t;
	if (err)
		return err;
	if (reason && *reason)
		pane_say(p, FMT_AGENT_HUMAN, "vetoed: %s", reason);
	else
		pane_say(p, FMT_AGENT_HUMAN, "vetoed (no reason given)");
	session_step_decision(p->o.ses, p->nsteps + 1, SESSION_VETO, "human",
			      reason && *reason ? reason : NULL, p->prop, NULL);
	tell(p, AGENT_EV_VETOED, reason ? reason : "", p->edit ? p->edit : p->prop, NULL);
	drop_proposal(p);
	pane_say(p, FMT_AGENT_INFO, "nothing was loaded; the agent looks again");
	want_turn(p);
	return 0;
}

int pane_another(struct pane *p, struct tree *t)
{
	if (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT) {
		pane_say(p, FMT_AGENT_HUMAN, "another proposal, please");
		session_step_decision(p->o.ses, p->nsteps + 1, SESSION_VETO, "human",
				      "asked for another proposal", p->prop, NULL);
		tell(p, AGENT_EV_VETOED, "asked for another proposal", p->prop, NULL);
		drop_proposal(p);
	} else if (p->mode == FMT_AGENT_MODE_IDLE) {
		pane_say(p, FMT_AGENT_HUMAN, "another turn, please");
	} else {
		pane_say(p, FMT_AGENT_INFO, "wait: %s",
			 p->mode == FMT_AGENT_MODE_RUNNING ? "a step is measuring (u stops it)" :
			 p->mode == FMT_AGENT_MODE_WAIT ? "the calibration is not done" :
							  "the agent is thinking");
		return -EBUSY;
	}
	(void)t;
	want_turn(p);
	return 0;
}

int pane_undo(struct pane *p)
{
	struct pane_run *r;
	unsigned idx;
	int running;

	if (!p->nrun) {
		pane_say(p, FMT_AGENT_INFO, "nothing to undo: no step was accepted");
		return -ENOENT;
	}
	r = &p->run[p->nrun - 1];
	idx = r->idx;
	running = r->x != NULL;
	if (r->res)
		p->need_rebuild = 1;
	session_step_decision(p->o.ses, idx + 1, SESSION_UNDO, "human",
			      running ? "stopped and detached" : "results dropped",
			      r->original ? r->original : r->step, NULL);
	run_clear(r);
	p->nrun--;
	pane_say(p, FMT_AGENT_HUMAN, "undo step %u: %s", idx + 1,
		 running ? "stopped and detached, its windows dropped" :
			   "its results dropped from the tree");
	if (p->mode == FMT_AGENT_MODE_RUNNING || p->mode == FMT_AGENT_MODE_THINKING)
		set_mode(p, FMT_AGENT_MODE_IDLE);
	return 0;
}

static int first_word_is(const char *s, const char *w)
{
	size_t n = strlen(w);

	while (isspace((unsigned char)*s))
		s++;
	return !strncasecmp(s, w, n) && (!s[n] || isspace((unsigned char)s[n]));
}

int pane_talk(struct pane *p, struct tree *t, const char *text)
{
	if (!text || !*text)
		return 0;
	pane_say(p, FMT_AGENT_HUMAN, "%s", text);
	tell(p, AGENT_EV_SAY, text, NULL, NULL);
	if (first_word_is(text, "focus") || first_word_is(text, "stop")) {
		if (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT) {
			pane_say(p, FMT_AGENT_INFO, "the waiting proposal is withdrawn");
			drop_proposal(p);
		}
		if (p->mode != FMT_AGENT_MODE_RUNNING && p->mode != FMT_AGENT_MODE_WAIT) {
			if (first_word_is(text, "focus"))
				pane_say(p, FMT_AGENT_INFO, "the descent restarts there");
			want_turn(p);
		}
	}
	(void)t;
	return 0;
}

int pane_focus(struct pane *p, struct tree *t, const struct tree_node *n)
{
	char path[512];

	if (!n)
		return -EINVAL;
	pane_say(p, FMT_AGENT_HUMAN, "focus on %s", pane_node_path(n, " > ", 6, path, sizeof(path)));
	tell(p, AGENT_EV_FOCUS, n->name, NULL, n);
	p->focus_id = n->id;
	if (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT) {
		pane_say(p, FMT_AGENT_INFO, "the waiting proposal is withdrawn");
		drop_proposal(p);
	}
	if (p->mode != FMT_AGENT_MODE_RUNNING && p->mode != FMT_AGENT_MODE_WAIT)
		want_turn(p);
	(void)t;
	return 0;
}

void pane_cancel(struct pane *p)
{
	if (p->mode != FMT_AGENT_MODE_THINKING)
		return;
	p->turn_wanted = 0;
	p->in_flight = 0;
	if (p->agent && p->agent->ops->cancel)
		p->agent->ops->cancel(p->agent);
	pane_stream_end(p->stream);
	pane_say(p, FMT_AGENT_HUMAN, "cancelled the agent's turn (r asks again)");
	set_mode(p, FMT_AGENT_MODE_IDLE);
}

/* ---- editing -------------------------------------------------------------------------- */

const struct step *pane_shown_step(const struct pane *p)
{
	return p->edit ? p->edit : p->prop;
}

int pane_edit_begin(struct pane *p)
{
	int err = need_proposal(p, "edit");

	if (err)
		return err;
	if (!p->edit) {
		p->edit = step_clone(p->prop);
		if (!p->edit)
			return -ENOMEM;
	}
	p->cursor = 0;
	if (p->has_err)
		for (int i = 0; fmt_agent_fields[i]; i++)
			if (fmt_agent_field_match(p->err.field, fmt_agent_fields[i]))
				p->cursor = i;
	set_mode(p, FMT_AGENT_MODE_EDIT);
	return 0;
}

int pane_edit_set(struct pane *p, const char *field, const char *value)
{
	struct step_error e;
	int err;

	if (!p->edit)
		return -ENOENT;
	memset(&e, 0, sizeof(e));
	err = step_set_field(p->edit, field, value, &e);
	if (err) {
		p->err = e;
		if (!p->err.field[0])
			snprintf(p->err.field, sizeof(p->err.field), "%s", field);
		p->has_err = 1;
		p->version++;
		return err;
	}
	err = validate(p, p->edit);
	if (!err && strcmp(field, "rationale") && strcmp(field, "expect"))
		preflight(p, p->edit);
	return err;
}

int pane_edit_json(struct pane *p, const char *json)
{
	struct step *s = NULL;
	struct step_error e;
	int err;

	if (!p->edit)
		return -ENOENT;
	memset(&e, 0, sizeof(e));
	err = step_parse_json(json, strlen(json), &s, &e);
	if (err) {
		p->err = e;
		p->has_err = 1;
		p->version++;
		return err;
	}
	step_free(p->edit);
	p->edit = s;
	return validate(p, p->edit);
}

void pane_edit_abandon(struct pane *p)
{
	if (p->mode != FMT_AGENT_MODE_EDIT)
		return;
	step_free(p->edit);
	p->edit = NULL;
	validate(p, p->prop);
	pane_say(p, FMT_AGENT_HUMAN, "abandoned the edit: the agent's proposal stands");
	set_mode(p, FMT_AGENT_MODE_PROPOSAL);
}

/* ---- the tree --------------------------------------------------------------------------- */

void pane_merge(struct pane *p, struct tree *t)
{
	for (unsigned i = 0; i < p->nrun; i++) {
		struct pane_run *r = &p->run[i];
		int err;

		if (!r->res)
			continue;
		err = pane_result_merge(r->res, r->step, t, r->idx);
		if (err && !r->where_said) {
			pane_say(p, FMT_AGENT_ERROR, "step %u: its results cannot go into the tree: %s",
				 r->idx + 1, strerror(-err));
			r->where_said = 1;
		}
	}
}

struct find_step {
	unsigned idx;
	const struct tree_node *best;
	uint64_t best_total;
};

static int find_step_cb(struct tree_node *n, void *arg)
{
	struct find_step *f = arg;

	n->flags &= ~TREE_F_FOCUS;
	if (n->kind != TREE_EVENT || !n->parent || n->parent->kind == TREE_EVENT)
		return 0;
	/* prefer where stacks met the calibrated path (under a frame) over the
	 * target's own node below its subsystem */
	if (f->best && f->best->parent->kind == TREE_FRAME && n->parent->kind != TREE_FRAME)
		return 0;
	if ((f->best && n->parent->kind == TREE_FRAME && f->best->parent->kind != TREE_FRAME) ||
	    n->total[COND_REF] + n->total[COND_LOAD] > f->best_total || !f->best) {
		f->best = n;
		f->best_total = n->total[COND_REF] + n->total[COND_LOAD];
	}
	return 0;
}

void pane_after_rebuild(struct pane *p, struct tree *t)
{
	struct tree_node *fn;

	p->need_rebuild = 0;
	if (!t || !t->root)
		return;
	for (unsigned i = 0; i < p->nrun; i++) {
		struct pane_run *r = &p->run[i];
		struct find_step f = { .idx = r->idx };
		char path[512];

		if (!r->res || r->where_said)
			continue;
		tree_walk(t->root, find_step_cb, &f);
		r->where_said = 1;
		if (f.best) {
			pane_say(p, FMT_AGENT_INFO, "results under %s",
				 pane_node_path(f.best, p->o.utf8 ? " \u203a " : " > ", 5, path,
						sizeof(path)));
			p->focus_id = f.best->id;
			p->select_focus = 1;
			p->keep_selection = 1;    /* the next turn leaves it there */
		} else {
			pane_say(p, FMT_AGENT_INFO, "step %u added no node to the tree", r->idx + 1);
		}
	}
	tree_walk(t->root, find_step_cb, &(struct find_step){ 0 });
	fn = p->focus_id ? tree_find_id(t, p->focus_id) : NULL;
	if (fn)
		fn->flags |= TREE_F_FOCUS;
	p->version++;
}

/* ---- replay ------------------------------------------------------------------------------ */

int pane_replay(struct pane *p, const struct session_log *l, size_t nev)
{
	int err = 0;

	for (unsigned i = 0; i < p->ntr; i++)
		free(p->tr[i].text);
	p->ntr = 0;
	p->o.ses = NULL;          /* a replay writes nothing */
	drop_proposal(p);
	for (size_t i = 0; l && i < nev && i < l->nev && !err; i++) {
		const struct session_event *e = &l->ev[i];
		enum fmt_agent_kind k = FMT_AGENT_INFO;

		if (e->type != SESSION_EV_TRANSCRIPT || !e->text)
			continue;
		if (e->who && !strcmp(e->who, "human"))
			k = FMT_AGENT_HUMAN;
		else if (e->who && !strcmp(e->who, "agent"))
			k = FMT_AGENT_REASON;
		err = pane_say(p, k, "%s", e->text);
	}
	p->mode = FMT_AGENT_MODE_IDLE;
	p->version++;
	return err;
}

/* ---- status -------------------------------------------------------------------------------- */

const char *pane_status(struct pane *p, struct source_status *st, char *buf, size_t len)
{
	struct pane_run *r = p->nrun ? &p->run[p->nrun - 1] : NULL;
	char ph[96];

	if (r && r->x) {
		struct source_status xs;

		pane_exec_status(r->x, &xs);
		st->probes += xs.probes;
		if (xs.overhead_pct >= 0)
			st->overhead_pct = xs.overhead_pct;
		if (xs.dropped)
			st->dropped += xs.dropped;
		if (xs.nwindows)
			snprintf(ph, sizeof(ph), "measuring, window %u/%u", xs.window + 1, xs.nwindows);
		else
			snprintf(ph, sizeof(ph), "measuring");
		return fmt_agent_phase(FMT_AGENT_MODE_RUNNING, r->idx + 1, ph, buf, len);
	}
	return fmt_agent_phase(p->mode, p->nrun, NULL, buf, len);
}
