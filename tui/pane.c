/* pane — the agent pane's view state over the step controller. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane.h"

/* ---- transcript ------------------------------------------------------------------ */

static const enum fmt_agent_kind pane_kinds[] = {
	[CTL_LINE_INFO] = FMT_AGENT_INFO,
	[CTL_LINE_HUMAN] = FMT_AGENT_HUMAN,
	[CTL_LINE_REASON] = FMT_AGENT_REASON,
	[CTL_LINE_PROPOSAL] = FMT_AGENT_PROPOSAL,
	[CTL_LINE_VERDICT] = FMT_AGENT_VERDICT,
	[CTL_LINE_TEXT] = FMT_AGENT_TEXT,
	[CTL_LINE_ERROR] = FMT_AGENT_ERROR,
	[CTL_LINE_RESULT] = FMT_AGENT_RESULT,
};

static enum ctl_line pane_line(enum fmt_agent_kind k)
{
	for (unsigned i = 0; i < sizeof(pane_kinds) / sizeof(pane_kinds[0]); i++)
		if (pane_kinds[i] == k)
			return (enum ctl_line)i;
	return CTL_LINE_INFO;
}

/* Appends a transcript entry (text copied). */
static int pane_add(struct pane *p, enum fmt_agent_kind kind, const char *text)
{
	char *t;

	if (p->ntr == p->trcap) {
		unsigned cap = p->trcap ? p->trcap * 2 : 64;
		struct pane_entry *n = realloc(p->tr, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->tr = n;
		p->trcap = cap;
	}
	t = strdup(text);
	if (!t)
		return -ENOMEM;
	p->tr[p->ntr].kind = kind;
	p->tr[p->ntr].text = t;
	p->ntr++;
	p->scroll = 0;            /* new text: back to the end */
	p->version++;
	return 0;
}

int pane_say(struct pane *p, enum fmt_agent_kind kind, const char *fmt, ...)
{
	char *text;
	va_list ap;
	int err, n0 = (int)p->ntr;

	va_start(ap, fmt);
	err = vasprintf(&text, fmt, ap) < 0 ? -ENOMEM : 0;
	va_end(ap);
	if (err)
		return err;
	/* through the controller: the session records it too */
	if (p->ctl && !p->replay)
		ctl_say(p->ctl, pane_line(kind), "%s", text);
	else
		err = pane_add(p, kind, text);
	if (!err && (int)p->ntr == n0)
		err = -ENOMEM;
	free(text);
	return err;
}

static void drop_edit(struct pane *p)
{
	step_free(p->edit);
	p->edit = NULL;
	p->has_err = 0;
	p->estimate[0] = 0;
	p->est_pct = -1;
	p->refused = p->not_accepted = p->over_confirm = 0;
	memset(&p->err, 0, sizeof(p->err));
}

static enum fmt_agent_mode pane_mode(const struct pane *p, enum ctl_mode m)
{
	switch (m) {
	case CTL_WAIT:
		return FMT_AGENT_MODE_WAIT;
	case CTL_THINKING:
		return FMT_AGENT_MODE_THINKING;
	case CTL_PROPOSAL:
		return p->edit ? FMT_AGENT_MODE_EDIT : FMT_AGENT_MODE_PROPOSAL;
	case CTL_RUNNING:
		return FMT_AGENT_MODE_RUNNING;
	default:
		return FMT_AGENT_MODE_IDLE;
	}
}

/* the pane as a sink of the controller's events */
static void pane_event(void *arg, const struct ctl_event *ev)
{
	struct pane *p = arg;

	switch (ev->kind) {
	case CTL_EV_SAY:
		pane_add(p, pane_kinds[ev->line], ev->text);
		break;
	case CTL_EV_MODE:
		if (ev->mode != CTL_PROPOSAL)
			drop_edit(p);
		else if (!p->edit) {      /* the proposal's own validation */
			p->has_err = ctl_step_error(p->ctl, &p->err);
		}
		p->mode = pane_mode(p, ev->mode);
		p->version++;
		break;
	case CTL_EV_PROPOSAL:
		drop_edit(p);
		break;
	case CTL_EV_ESTIMATE:
		snprintf(p->estimate, sizeof(p->estimate), "%s", ev->text ? ev->text : "");
		p->est_pct = ev->text && *ev->text ? ctl_est_pct(p->ctl) : -1;
		p->over_confirm = 0;
		p->version++;
		break;
	case CTL_EV_FOCUS:
		if (ev->node_id && !p->keep_selection) {
			p->focus_id = ev->node_id;
			p->select_focus = 1;
		}
		p->keep_selection = 0;
		break;
	case CTL_EV_TURN_BEGIN:
		pane_stream_begin(p->stream);
		break;
	case CTL_EV_TURN_END:
		pane_stream_end(p->stream);
		break;
	default:
		break;
	}
}

/* the controller's flags the loop reads, after every call into it */
static void pane_sync(struct pane *p)
{
	p->in_flight = ctl_in_flight(p->ctl);
	p->need_rebuild = ctl_need_rebuild(p->ctl);
}

/* ---- life ------------------------------------------------------------------------ */

struct pane *pane_new(const struct pane_opts *o, struct agent *agent)
{
	struct pane *p = calloc(1, sizeof(*p));
	struct ctl_opts co = { 0 };

	if (!p) {
		agent_free(agent);
		return NULL;
	}
	if (o)
		p->o = *o;
	if (!p->o.steps)
		p->o.steps = PANE_DEFAULT_STEPS;
	p->mode = FMT_AGENT_MODE_WAIT;
	p->est_pct = -1;
	p->sink = (struct session_sink){ .ses = p->o.ses, .transcript = 1, .verdicts = 1 };
	step_exec_opts_default(&p->exec);
	p->exec.load = p->o.load;
	p->exec.collect_s = 0.5;
	p->exec.budget_pct = p->o.budget_pct;
	p->exec.sequential = p->o.sequential; /* a step stops when settled */
	co.steps = p->o.steps;
	co.auto_accept = p->o.auto_accept;
	co.budget_pct = p->o.budget_pct;
	co.utf8 = p->o.utf8;
	co.preflight = p->o.preflight;
	co.scope = p->o.scope;
	co.caps = p->o.caps;
	co.exec_arg = &p->exec;
	co.sinks[0] = (struct ctl_sink){ pane_event, p };
	co.sinks[1] = (struct ctl_sink){ session_sink_event, &p->sink };
	p->ctl = ctl_new(&co, agent);
	if (!p->ctl || !p->ntr) {
		pane_free(p);
		errno = ENOMEM;
		return NULL;
	}
	p->agent = agent;
	return p;
}

void pane_free(struct pane *p)
{
	if (!p)
		return;
	ctl_free(p->ctl);
	pane_stream_free(p->stream);
	for (unsigned i = 0; i < p->ntr; i++)
		free(p->tr[i].text);
	free(p->tr);
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

static int validate(struct pane *p, struct step *s)
{
	int err = ctl_validate(p->ctl, s);

	p->has_err = ctl_step_error(p->ctl, &p->err);
	p->version++;
	return err;
}

/* the estimate the card shows; the probe is closed again before return */
static void preflight(struct pane *p, struct step *s)
{
	p->estimate[0] = 0;
	p->est_pct = -1;
	p->over_confirm = 0;
	if (!p->o.preflight)
		return;
	if (ctl_estimate(p->ctl, s, p->estimate, sizeof(p->estimate)) < 0)
		pane_say(p, FMT_AGENT_ERROR, "pre-flight: %s", p->estimate);
	else
		p->est_pct = ctl_est_pct(p->ctl);
}

/* ---- the loop ----------------------------------------------------------------------- */

int pane_tick(struct pane *p, struct tree *t, int calibrated, const struct source_status *st,
	      double now)
{
	unsigned v = p->version;
	int rc;

	if (p->replay)
		return 0;
	if (p->mode == FMT_AGENT_MODE_WAIT && !st)
		return 0;
	rc = ctl_tick(p->ctl, t, calibrated, st, now);
	pane_sync(p);
	if (pane_stream_changed(p->stream, &p->stream_seen))
		p->version++;   /* streamed text or the elapsed seconds */
	if (rc > 0 && p->mode == FMT_AGENT_MODE_RUNNING)
		p->version++;
	return rc > 0 || p->version != v;
}

int pane_timeout_ms(struct pane *p, double now)
{
	struct source_status st;

	if (p->replay)
		return -1;
	if (ctl_in_flight(p->ctl) && !ctl_turn_due(p->ctl) &&
	    ctl_run_status(p->ctl, &st, NULL) < 0) {
		/* the agent's own deadline, the elapsed seconds shown */
		int a = agent_timeout_ms(p->agent), s = pane_stream_timeout_ms(p->stream);

		if (a < 0 || (s >= 0 && s < a))
			a = s;
		return a < 0 || a > 1000 ? 1000 : a;
	}
	return ctl_timeout_ms(p->ctl, now);
}

int pane_pollfds(struct pane *p, struct pollfd *fds, int max)
{
	return p->replay ? 0 : ctl_pollfds(p->ctl, fds, max);
}

const char *pane_agent_name(const struct pane *p)
{
	return p->agent ? p->agent->ops->name : NULL;
}

/* ---- decisions ----------------------------------------------------------------------- */

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
	char diff[512] = "";
	double est, budget;
	int err;

	(void)t;
	if (p->mode == FMT_AGENT_MODE_EDIT && p->refused) {
		/* the card shows the spec before the refused input: running
		 * it would run what the person did not ask for */
		p->not_accepted = 1;
		pane_say(p, FMT_AGENT_ERROR, "not accepted: your edit of %s was refused, so the "
			 "card still holds the value before it; fix it (Enter) or abandon the edit "
			 "(Esc)", p->err.field[0] ? p->err.field : "the step");
		p->version++;
		return -EINVAL;
	}
	if ((p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT) &&
	    !p->o.auto_accept && pane_over_budget(p, &est, &budget) && !p->over_confirm) {
		/* batch refuses such a step; a person may run it, knowingly */
		p->over_confirm = 1;
		pane_say(p, FMT_AGENT_ERROR, "not accepted yet: step %u is estimated at %.1f%% of a "
			 "CPU, over the budget of %g%%; it is stopped if it measures over it. a again "
			 "runs it anyway, e edits it (a shorter or narrower step), v vetoes it",
			 ctl_next_step_no(p->ctl), est, budget);
		p->version++;
		return -EDQUOT;
	}
	if (p->edit && ctl_proposal(p->ctl))
		edit_diff(ctl_proposal(p->ctl), p->edit, diff, sizeof(diff));
	err = ctl_accept(p->ctl, p->edit, diff);
	if (err == -EINVAL) {         /* the error by its field on the card */
		p->has_err = ctl_step_error(p->ctl, &p->err);
		p->version++;
	}
	pane_sync(p);
	return err;
}

int pane_veto(struct pane *p, struct tree *t, const char *reason)
{
	int err;

	(void)t;
	err = ctl_veto(p->ctl, reason, p->edit);
	pane_sync(p);
	return err;
}

int pane_another(struct pane *p, struct tree *t)
{
	int err;

	(void)t;
	err = ctl_another(p->ctl);
	pane_sync(p);
	return err;
}

int pane_undo(struct pane *p)
{
	int err = ctl_undo(p->ctl);

	pane_sync(p);
	return err;
}

int pane_talk(struct pane *p, struct tree *t, const char *text)
{
	int err;

	(void)t;
	err = ctl_talk(p->ctl, text);
	pane_sync(p);
	return err;
}

int pane_focus(struct pane *p, struct tree *t, const struct tree_node *n)
{
	char path[512];
	int err;

	(void)t;
	if (!n)
		return -EINVAL;
	pane_node_path(n, " > ", 6, path, sizeof(path));
	p->focus_id = n->id;
	err = ctl_focus(p->ctl, n, path);
	pane_sync(p);
	return err;
}

void pane_cancel(struct pane *p)
{
	ctl_cancel(p->ctl);
	pane_sync(p);
}

/* ---- editing -------------------------------------------------------------------------- */

static int need_proposal(struct pane *p, const char *what)
{
	if (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT)
		return 0;
	pane_say(p, FMT_AGENT_INFO, "nothing to %s: no proposal is waiting", what);
	return -ENOENT;
}

int pane_edit_begin(struct pane *p)
{
	int err = need_proposal(p, "edit");

	if (err)
		return err;
	if (!p->edit) {
		p->edit = step_clone(ctl_proposal(p->ctl));
		if (!p->edit)
			return -ENOMEM;
	}
	p->cursor = 0;
	if (p->has_err)
		for (int i = 0; fmt_agent_fields[i]; i++)
			if (fmt_agent_field_match(p->err.field, fmt_agent_fields[i]))
				p->cursor = i;
	p->mode = FMT_AGENT_MODE_EDIT;
	p->version++;
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
		p->refused = 1;
		p->version++;
		return err;
	}
	p->refused = p->not_accepted = 0;
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
		p->refused = 1;
		/* the cursor on the field at fault, so the view keeps it in sight */
		for (int i = 0; fmt_agent_fields[i]; i++)
			if (fmt_agent_field_match(p->err.field, fmt_agent_fields[i]))
				p->cursor = i;
		p->version++;
		return err;
	}
	step_free(p->edit);
	p->edit = s;
	p->refused = p->not_accepted = 0;
	err = validate(p, p->edit);
	if (!err)
		preflight(p, p->edit);
	return err;
}

void pane_edit_abandon(struct pane *p)
{
	if (p->mode != FMT_AGENT_MODE_EDIT)
		return;
	step_free(p->edit);
	p->edit = NULL;
	p->refused = p->not_accepted = 0;
	validate(p, NULL);           /* NULL: the controller's proposal */
	if (p->o.preflight && !p->has_err)
		preflight(p, NULL);
	pane_say(p, FMT_AGENT_HUMAN, "abandoned the edit: the agent's proposal stands");
	p->mode = FMT_AGENT_MODE_PROPOSAL;
	p->version++;
}

/* ---- the tree --------------------------------------------------------------------------- */

unsigned pane_steps(struct pane *p, struct analysis_step *out, unsigned max)
{
	return p->replay ? 0 : ctl_steps(p->ctl, out, max);
}

void pane_merged(struct pane *p, const struct analysis_step *steps, unsigned n)
{
	for (unsigned k = 0; k < n; k++) {
		unsigned i, idx = 0, nrun = ctl_nrun(p->ctl);

		for (i = 0; i < nrun; i++)
			if (ctl_run_measured(p->ctl, i, &idx) == 1 && idx == steps[k].idx)
				break;
		if (i < nrun && steps[k].err && ctl_run_say_once(p->ctl, i))
			pane_say(p, FMT_AGENT_ERROR, "step %u: its results cannot go into the tree: %s",
				 idx + 1, strerror(-steps[k].err));
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

	ctl_rebuilt(p->ctl);
	p->need_rebuild = 0;
	if (!t || !t->root)
		return;
	for (unsigned i = 0; i < ctl_nrun(p->ctl); i++) {
		unsigned idx = 0;
		struct find_step f;
		char path[512];

		if (ctl_run_measured(p->ctl, i, &idx) != 1 || !ctl_run_say_once(p->ctl, i))
			continue;
		f = (struct find_step){ .idx = idx };
		tree_walk(t->root, find_step_cb, &f);
		if (f.best) {
			pane_say(p, FMT_AGENT_INFO, "results under %s",
				 pane_node_path(f.best, p->o.utf8 ? " \u203a " : " > ", 5, path,
						sizeof(path)));
			p->focus_id = f.best->id;
			p->select_focus = 1;
			p->keep_selection = 1;    /* the next turn leaves it there */
		} else {
			pane_say(p, FMT_AGENT_INFO, "step %u added no node to the tree", idx + 1);
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
	p->sink.ses = NULL;
	p->replay = 1;
	drop_edit(p);
	/* argus's warnings about the run's data (a reference recorded on a
	 * busy system) hold for the whole session: first, at any position,
	 * as the run's pane said them before its first window */
	for (size_t i = 0; l && i < l->nev && !err; i++) {
		const struct session_event *e = &l->ev[i];

		if (e->type == SESSION_EV_NOTE && e->text && !strncmp(e->text, "warning: ", 9))
			err = pane_add(p, FMT_AGENT_ERROR, e->text);
	}
	for (size_t i = 0; l && i < nev && i < l->nev && !err; i++) {
		const struct session_event *e = &l->ev[i];
		enum fmt_agent_kind k = FMT_AGENT_INFO;

		if (e->type != SESSION_EV_TRANSCRIPT || !e->text)
			continue;
		if (e->who && !strcmp(e->who, "human"))
			k = FMT_AGENT_HUMAN;
		else if (e->who && !strcmp(e->who, "agent"))
			k = FMT_AGENT_REASON;
		err = pane_add(p, k, e->text);
	}
	p->mode = FMT_AGENT_MODE_IDLE;
	p->version++;
	return err;
}

/* ---- status -------------------------------------------------------------------------------- */

const char *pane_status(struct pane *p, struct source_status *st, char *buf, size_t len)
{
	struct source_status xs;
	unsigned step_no;
	char ph[96];

	/* dropped: the calibration's windows and every step's, as the
	 * session's windows add up */
	st->dropped += ctl_lost(p->ctl);
	if (ctl_run_status(p->ctl, &xs, &step_no) == 0) {
		st->probes += xs.probes;
		if (xs.overhead_pct >= 0)
			st->overhead_pct = xs.overhead_pct;
		if (xs.nwindows)
			snprintf(ph, sizeof(ph), "measuring, window %u/%u", xs.window + 1, xs.nwindows);
		else
			snprintf(ph, sizeof(ph), "measuring");
		return fmt_agent_phase(FMT_AGENT_MODE_RUNNING, step_no, ph, buf, len);
	}
	return fmt_agent_phase(p->mode, ctl_last_run_no(p->ctl), NULL, buf, len);
}
