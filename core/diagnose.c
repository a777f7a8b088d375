/* diagnose — calibrated verdict and naive answer from one profile; JSON. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "agent_select.h"
#include "step.h"
#include "caps.h"
#include "session_step.h"
#include "step_exec.h"
#include "step_json.h"
#include "step_merge.h"
#include "step_preflight.h"
#include "diagnose.h"
#include "tree.h"

static double diag_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 2, 3)))
static void diag_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (!cause)
		return;
	free(*cause);
	*cause = NULL;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
	va_end(ap);
}

void diagnose_result_clear(struct diagnose_result *r)
{
	if (!r)
		return;
	verdict_clear(&r->verdict);
	for (unsigned i = 0; i < r->ndecisions; i++)
		free(r->decisions[i]);
	free(r->decisions);
	for (unsigned i = 0; i < r->nnaive; i++)
		free(r->naive_path[i]);
	free(r->hyp);
	memset(r, 0, sizeof(*r));
}

/* The reference-less answer: hottest child by loaded total, down to a leaf. */
static int diag_naive(const struct tree *t, struct diagnose_result *r)
{
	const struct tree_node *n = t->root;

	while (n && n->nchild) {
		const struct tree_node *best = NULL;

		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];

			if (c->kind == TREE_SUBSYS && c->subsys == SUBSYS_IDLE)
				continue;
			if (!best || c->total[COND_LOAD] > best->total[COND_LOAD])
				best = c;
		}
		if (!best || !best->total[COND_LOAD])
			break;
		n = best;
		if (n->kind == TREE_SUBSYS) {
			snprintf(r->naive_subsystem, sizeof(r->naive_subsystem), "%s",
				 subsys_name(n->subsys));
			continue;
		}
		if (n->kind != TREE_FRAME && n->kind != TREE_EVENT)
			continue;
		if (r->nnaive == VERDICT_MAX_PATH)
			break;
		r->naive_path[r->nnaive] = strdup(n->name);
		if (!r->naive_path[r->nnaive])
			return -ENOMEM;
		r->nnaive++;
	}
	return 0;
}

/* A copy of p without the stacks of process tgid; NULL with errno. */
static struct profile *diag_without(const struct profile *p, uint32_t tgid)
{
	struct profile *q = profile_new();

	if (!q)
		return NULL;
	for (unsigned w = 0; w < p->nwin; w++) {
		if (profile_window_begin(q, p->wins[w].cond, p->wins[w].start_s) < 0)
			goto fail;
		profile_window_end(q, w, p->wins[w].secs);
		q->wins[w].lost = p->wins[w].lost;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];

		if (s->tgid == tgid)
			continue;
		for (unsigned w = 0; w < p->nwin; w++)
			if (s->win[w] && profile_add(q, w, s->frames, s->nframes, s->tgid, s->comm,
						     s->win[w]) < 0)
				goto fail;
	}
	return q;
fail:
	profile_free(q);
	errno = ENOMEM;
	return NULL;
}

/* Moves reply's lines to the end of r->decisions. */
static int diag_take_lines(struct diagnose_result *r, struct agent_reply *reply)
{
	char **v;

	if (!reply->nlines)
		return 0;
	v = realloc(r->decisions, (r->ndecisions + reply->nlines) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v + r->ndecisions, reply->lines, reply->nlines * sizeof(*v));
	r->decisions = v;
	r->ndecisions += reply->nlines;
	free(reply->lines);
	reply->lines = NULL;
	reply->nlines = 0;
	return 0;
}

#define DIAG_MAX_DECLINED 3

/* What the agent adds to the result: its name, its hypothesis ledger, the
 * LLM's counters. */
static int diag_agent_extras(const struct agent *a, struct diagnose_result *r)
{
	const struct agent_hyp *hyp;
	struct agent_llm_stats st;
	unsigned nh = agent_hypotheses(a, &hyp);

	snprintf(r->agent, sizeof(r->agent), "%s", agent_name(a));
	free(r->hyp);
	r->hyp = NULL;
	r->nhyp = 0;
	if (nh) {
		r->hyp = calloc(nh, sizeof(*r->hyp));
		if (!r->hyp)
			return -ENOMEM;
		memcpy(r->hyp, hyp, nh * sizeof(*hyp));
		r->nhyp = nh;
	}
	if (!agent_llm_stats_of(a, &st)) {
		r->llm = 1;
		r->llm_requests = st.requests;
		r->llm_repairs = st.repairs;
		r->llm_fallbacks = st.fallbacks;
		r->llm_s = st.latency_s;
		r->tokens_in = st.tokens_in;
		r->tokens_out = st.tokens_out;
	}
	return 0;
}

/* Agent turns over the calibrated tree until a verdict (see
 * diagnose_run_agent). */
static int diag_agent(struct tree *t, struct agent *a, int stop_fd, struct diagnose_result *r,
		      char **cause)
{
	struct agent_ctx ctx = { .tree = t, .step_index = 0, .step_max = 0 };
	struct agent_reply reply = { 0 };
	unsigned declined = 0;
	int err = 0;

	snprintf(r->agent, sizeof(r->agent), "%s", agent_name(a));
	for (;;) {
		char desc[256];
		struct agent_event ev = { .kind = AGENT_EV_VETOED };

		err = agent_turn_wait(a, &ctx, &reply, stop_fd);
		if (err) {
			diag_cause(cause, "the %s agent failed: %s", agent_name(a), strerror(-err));
			goto out;
		}
		r->turns++;
		if (reply.kind == AGENT_REPLY_VERDICT) {
			err = diag_take_lines(r, &reply);
			r->verdict = reply.verdict;
			memset(&reply.verdict, 0, sizeof(reply.verdict));
			break;
		}
		if (reply.kind == AGENT_REPLY_PROPOSAL && reply.step)
			step_describe(reply.step, desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "no step (a text reply)");
		err = diag_take_lines(r, &reply);
		if (!err)
			err = agent_reply_line(&reply, "proposed %s: not run (this run executes no "
					       "steps; --auto runs them)", desc);
		if (!err)
			err = diag_take_lines(r, &reply);
		if (err)
			goto out;
		agent_reply_clear(&reply);
		if (++declined == DIAG_MAX_DECLINED) {
			err = agent_reply_line(&reply, "%u replies without a verdict: the verdict is "
					       "the tree's own descent", declined);
			if (!err)
				err = agent_descend(t, NULL, 0.5, &r->verdict, &reply);
			if (!err)
				err = diag_take_lines(r, &reply);
			break;
		}
		ev.text = "no step can run in this mode (step budget 0): give your verdict from "
			  "the tree as measured";
		err = a->ops->tell(a, &ev, NULL);
		if (err)
			goto out;
	}
	err = diag_agent_extras(a, r);
out:
	if (err && err != -EINTR && cause && !*cause)
		diag_cause(cause, "the %s agent failed: %s", agent_name(a), strerror(-err));
	agent_reply_clear(&reply);
	return err;
}

int diagnose_run(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		 uint32_t exclude_tgid, struct diagnose_result *r, char **cause)
{
	return diagnose_run_agent(p, co, freq_hz, exclude_tgid, NULL, -1, r, cause);
}

int diagnose_run_agent(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		       uint32_t exclude_tgid, struct agent *a, int stop_fd,
		       struct diagnose_result *r, char **cause)
{
	struct agent_reply reply = { 0 };
	struct profile *own = NULL;
	struct calib_opts opts;
	struct tree *t = NULL;
	double t0 = diag_now();
	int err;

	memset(r, 0, sizeof(*r));
	if (co)
		opts = *co;
	else
		calib_opts_default(&opts);
	if (!opts.freq_hz)
		opts.freq_hz = freq_hz;
	if (exclude_tgid) {
		own = diag_without(p, exclude_tgid);
		if (!own) {
			err = -errno;
			diag_cause(cause, "cannot filter the profile: %s", strerror(errno));
			goto out;
		}
		p = own;
	}
	t = tree_build(p, NULL);
	if (!t) {
		err = -errno;
		diag_cause(cause, "cannot build the tree: %s", strerror(errno));
		goto out;
	}
	err = calib_run(t, &opts);
	if (err < 0) {
		diag_cause(cause, "cannot calibrate: %s", err == -EINVAL ?
			   "no reference or no loaded window was measured" : strerror(-err));
		goto out;
	}
	if (a) {
		err = diag_agent(t, a, stop_fd, r, cause);
		if (err < 0)
			goto out;
		err = diag_naive(t, r);
		goto out;
	}
	err = agent_descend(t, NULL, 0.5, &r->verdict, &reply);
	if (err < 0) {
		diag_cause(cause, "the descent failed: %s", strerror(-err));
		goto out;
	}
	/* Take the reasoning lines over from the reply. */
	r->decisions = reply.lines;
	r->ndecisions = reply.nlines;
	reply.lines = NULL;
	reply.nlines = 0;
	err = diag_naive(t, r);
out:
	agent_reply_clear(&reply);
	tree_free(t);
	profile_free(own);
	r->thinking_s = diag_now() - t0;
	return err;
}

/* cJSON prints NaN/inf as null; keep finite numbers, null otherwise. */
static void diag_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *diag_strings(char *const *s, unsigned n)
{
	cJSON *a = cJSON_CreateArray();

	for (unsigned i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(s[i] ? s[i] : ""));
	return a;
}

int diagnose_write_json(const struct diagnose_result *r, const struct profile *p,
			const struct diagnose_run_info *info, FILE *out)
{
	const struct verdict *v = &r->verdict;
	cJSON *o = cJSON_CreateObject(), *jv, *ev, *jn, *wins, *tm, *opt;
	char *s;
	int err = 0;

	if (!o)
		return -ENOMEM;
	jv = cJSON_AddObjectToObject(o, "verdict");
	cJSON_AddBoolToObject(jv, "found", v->found);
	cJSON_AddStringToObject(jv, "subsystem", v->subsystem);
	cJSON_AddItemToObject(jv, "path", diag_strings(v->path, v->npath));
	if (v->leaf)
		cJSON_AddStringToObject(jv, "leaf", v->leaf);
	else
		cJSON_AddNullToObject(jv, "leaf");
	diag_num(jv, "confidence", v->confidence);
	cJSON_AddStringToObject(jv, "summary", v->summary ? v->summary : "");
	ev = cJSON_AddObjectToObject(jv, "evidence");
	diag_num(ev, "rate_ref", v->rate_ref);
	diag_num(ev, "rate_load", v->rate_load);
	diag_num(ev, "delta", v->delta);
	diag_num(ev, "ratio", v->ratio);
	diag_num(ev, "q", v->q);
	cJSON_AddNumberToObject(ev, "pairs", v->pairs);
	cJSON_AddNumberToObject(ev, "pairs_agree", v->pairs_agree);
	diag_num(ev, "share_of_root", v->share_of_root);
	if (v->nnotes)
		cJSON_AddItemToObject(jv, "notes", diag_strings(v->notes, v->nnotes));

	jn = cJSON_AddObjectToObject(o, "naive");
	cJSON_AddStringToObject(jn, "subsystem", r->naive_subsystem);
	cJSON_AddItemToObject(jn, "path", diag_strings(r->naive_path, r->nnaive));
	if (r->nnaive)
		cJSON_AddStringToObject(jn, "leaf", r->naive_path[r->nnaive - 1]);
	else
		cJSON_AddNullToObject(jn, "leaf");

	cJSON_AddItemToObject(o, "decisions", diag_strings(r->decisions, r->ndecisions));
	if (r->agent[0]) {
		cJSON *hy = cJSON_CreateArray();

		cJSON_AddStringToObject(o, "agent", r->agent);
		for (unsigned i = 0; hy && i < r->nhyp; i++) {
			cJSON *h = cJSON_CreateObject();

			cJSON_AddStringToObject(h, "name", r->hyp[i].name);
			cJSON_AddStringToObject(h, "state", r->hyp[i].status);
			cJSON_AddStringToObject(h, "evidence", r->hyp[i].evidence);
			cJSON_AddNumberToObject(h, "turn", r->hyp[i].turn);
			cJSON_AddItemToArray(hy, h);
		}
		cJSON_AddItemToObject(o, "hypotheses", hy);
		cJSON_AddNumberToObject(o, "turns", r->turns);
	}
	if (r->llm) {
		cJSON *jl = cJSON_AddObjectToObject(o, "llm");

		cJSON_AddNumberToObject(jl, "requests", r->llm_requests);
		cJSON_AddNumberToObject(jl, "repairs", r->llm_repairs);
		cJSON_AddNumberToObject(jl, "fallbacks", r->llm_fallbacks);
		diag_num(jl, "latency_s", r->llm_s);
		cJSON_AddNumberToObject(jl, "tokens_in", (double)r->tokens_in);
		cJSON_AddNumberToObject(jl, "tokens_out", (double)r->tokens_out);
	}
	{
		cJSON *steps = info && info->steps_json ? cJSON_Parse(info->steps_json) : NULL;

		if (steps)
			cJSON_AddItemToObject(o, "steps", steps);
		else
			cJSON_AddArrayToObject(o, "steps");
	}
	wins = cJSON_AddArrayToObject(o, "windows");
	for (unsigned w = 0; p && w < p->nwin; w++) {
		cJSON *jw = cJSON_CreateObject();
		uint64_t n = 0;

		for (size_t i = 0; i < p->nstacks; i++)
			n += p->stacks[i].win[w];
		cJSON_AddStringToObject(jw, "cond", cond_name(p->wins[w].cond));
		diag_num(jw, "secs", p->wins[w].secs);
		cJSON_AddNumberToObject(jw, "samples", (double)n);
		if (info && w < info->saved_ref_windows)
			cJSON_AddBoolToObject(jw, "saved", 1);
		cJSON_AddItemToArray(wins, jw);
	}
	if (info) {
		diag_num(o, "elapsed_s", info->elapsed_s);
		tm = cJSON_AddObjectToObject(o, "timing");
		diag_num(tm, "measuring_s", info->measuring_s);
		diag_num(tm, "thinking_s", r->thinking_s);
		diag_num(tm, "waiting_for_human_s", r->waiting_s);
		if (info->stop_reason) {
			cJSON *js = cJSON_AddObjectToObject(o, "stopping");

			cJSON_AddStringToObject(js, "reason", info->stop_reason);
			cJSON_AddNumberToObject(js, "pairs", info->stop_pairs);
			cJSON_AddBoolToObject(js, "settled", info->stop_settled);
			cJSON_AddBoolToObject(js, "sequential", info->sequential);
			if (info->stop_windows && info->stop_windows[0])
				cJSON_AddStringToObject(js, "windows", info->stop_windows);
		}
		opt = cJSON_AddObjectToObject(o, "options");
		cJSON_AddNumberToObject(opt, "pairs", info->pairs);
		if (info->sequential)
			cJSON_AddNumberToObject(opt, "min_pairs", info->min_pairs);
		cJSON_AddBoolToObject(opt, "fixed", !info->sequential);
		diag_num(opt, "window_s", info->window_s);
		diag_num(opt, "settle_s", info->settle_s);
		cJSON_AddNumberToObject(opt, "freq_hz", info->freq_hz);
		if (info->load_cmd || info->load_state) {
			cJSON *jl = cJSON_AddObjectToObject(o, "load");

			if (info->load_cmd)
				cJSON_AddStringToObject(jl, "command", info->load_cmd);
			if (info->load_state)
				cJSON_AddStringToObject(jl, "state", info->load_state);
		}
	}
	s = cJSON_PrintUnformatted(o);
	if (!s)
		err = -ENOMEM;
	else if (fprintf(out, "%s\n", s) < 0 || fflush(out) != 0)
		err = -EIO;
	cJSON_free(s);
	cJSON_Delete(o);
	return err;
}

/* ---- with steps (--auto) -------------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static void diag_log(FILE *log, const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	fputs("argus: ", log);
	vfprintf(log, fmt, ap);
	fputc('\n', log);
	fflush(log);
	va_end(ap);
}

static int diag_keep_lines(struct diagnose_result *r, struct agent_reply *reply)
{
	for (unsigned i = 0; i < reply->nlines; i++) {
		char **v = realloc(r->decisions, (r->ndecisions + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->decisions = v;
		r->decisions[r->ndecisions++] = reply->lines[i];
		reply->lines[i] = NULL;
	}
	return 0;
}

__attribute__((format(printf, 2, 3)))
static int diag_decision(struct diagnose_result *r, const char *fmt, ...)
{
	char **v = realloc(r->decisions, (r->ndecisions + 1) * sizeof(*v));
	va_list ap;
	int n;

	if (!v)
		return -ENOMEM;
	r->decisions = v;
	va_start(ap, fmt);
	n = vasprintf(&r->decisions[r->ndecisions], fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->ndecisions++;
	return 0;
}

static int diag_push(char ***v, unsigned *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(*nv));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	*v = nv;
	(*v)[(*n)++] = s;
	return 0;
}

int diagnose_run_steps(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		       uint32_t exclude_tgid, const struct diagnose_steps_opts *o,
		       struct diagnose_result *r, char **steps_json, char **cause)
{
	struct agent_reply reply = { 0 };
	struct agent *own_agent = NULL, *a;
	struct profile *own = NULL;
	struct calib_opts opts;
	struct tree *t = NULL;
	char **entries = NULL, **notes = NULL;
	unsigned nentries = 0, nnotes = 0, ran = 0;
	double t0 = diag_now(), texec = 0;
	int err;

	memset(r, 0, sizeof(*r));
	*steps_json = NULL;
	if (co)
		opts = *co;
	else
		calib_opts_default(&opts);
	if (!opts.freq_hz)
		opts.freq_hz = freq_hz;
	a = o->agent;
	if (!a) {
		a = own_agent = agent_heuristic_new();
		if (!a) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (exclude_tgid) {
		own = diag_without(p, exclude_tgid);
		if (!own) {
			err = -errno;
			diag_cause(cause, "cannot filter the profile: %s", strerror(errno));
			goto out;
		}
		p = own;
	}
	t = tree_build(p, NULL);
	if (!t) {
		err = -errno;
		diag_cause(cause, "cannot build the tree: %s", strerror(errno));
		goto out;
	}
	err = calib_run(t, &opts);
	if (err < 0) {
		diag_cause(cause, "cannot calibrate: %s", err == -EINVAL ?
			   "no reference or no loaded window was measured" : strerror(-err));
		goto out;
	}
	/* the naive answer from the calibration alone, before steps add nodes */
	err = diag_naive(t, r);
	if (err)
		goto out;
	for (unsigned turn = 0;; turn++) {
		struct agent_ctx ctx = { .tree = t, .step_index = ran, .step_max = o->max_steps };
		struct step_report rep = { 0 };
		struct step_preflight pf = { 0 };
		struct step_exec_info info;
		struct step_data *d = NULL;
		struct step_exec *x = NULL;
		struct agent_event ev = { 0 };
		char desc[256], line[512], *summary = NULL;
		double ts;

		agent_reply_clear(&reply);
		err = agent_turn_wait(a, &ctx, &reply, o->stop_fd);
		if (err < 0) {
			if (!*cause)
				diag_cause(cause, "the agent's turn failed: %s", strerror(-err));
			goto out;
		}
		if (reply.kind == AGENT_REPLY_PROPOSAL && reply.step)
			session_step_proposal(o->ses, ran + 1, a->ops->name, reply.step, reply.lines,
					      reply.nlines, reply.focus ? reply.focus->name : NULL);
		err = diag_keep_lines(r, &reply);
		if (err)
			goto out;
		if (reply.kind != AGENT_REPLY_PROPOSAL || !reply.step || turn > 2 * o->max_steps + 2)
			break;
		step_describe(reply.step, desc, sizeof(desc));
		if (o->auto_accept && ran >= o->max_steps) {
			/* over the budget (an LLM may not count): declined, a verdict asked for */
			ev.kind = AGENT_EV_VETOED;
			ev.step = reply.step;
			ev.text = "the step budget is spent: give your verdict from the tree as measured";
			a->ops->tell(a, &ev, NULL);
			err = diag_decision(r, "proposed %s: not run (the budget of %u steps is spent)",
					    desc, o->max_steps);
			if (err)
				goto out;
			continue;
		}
		rep.index = ran;
		rep.s = reply.step;
		if (!o->auto_accept) {
			diag_log(o->log, "the agent proposes a step: %s; batch diagnose runs steps only "
				 "with --auto (or accept it in the interactive argus)", desc);
			rep.decision = "not run (needs --auto or a person's accept)";
			err = diag_push(&entries, &nentries, step_report_json(&rep));
			if (!err)
				err = diag_decision(r, "proposed %s: not run without --auto", desc);
			if (err)
				goto out;
			break;
		}
		rep.decision = "auto";
		session_step_decision(o->ses, ran + 1, SESSION_ACCEPT, "auto", NULL, reply.step, NULL);
		ts = diag_now();
		err = step_preflight(reply.step, o->caps ? o->caps : caps_cached(), NULL, 0, NULL, &pf);
		step_preflight_line(&pf, line, sizeof(line));
		diag_log(o->log, "step %u (auto-accepted): %s; pre-flight: %s", ran + 1, desc, line);
		rep.pf = &pf;
		if (!err && pf.overhead_pct > (o->exec && o->exec->budget_pct > 0 ? o->exec->budget_pct
					       : step_exec_default_budget(reply.step->kind))) {
			/* it would be detached at once: say so instead of running it */
			double b = o->exec && o->exec->budget_pct > 0 ? o->exec->budget_pct
					 : step_exec_default_budget(reply.step->kind);

			pf.ok = 0;
			free(pf.cause);
			if (asprintf(&pf.cause, "estimated overhead %.1f%% of a CPU is over the budget "
				     "of %g%% (raise it with --budget)", pf.overhead_pct, b) < 0)
				pf.cause = NULL;
			snprintf(line, sizeof(line), "not run: %s", pf.cause ? pf.cause : "over budget");
			diag_log(o->log, "step %u: %s", ran + 1, line);
			err = -EDQUOT;
		}
		if (err < 0) {
			/* the agent hears why, and may propose something else */
			ev.kind = AGENT_EV_VETOED;
			ev.step = reply.step;
			ev.text = line;
			a->ops->tell(a, &ev, NULL);
			session_step_result(o->ses, ran + 1, reply.step, NULL, NULL, line, exclude_tgid);
			err = diag_push(&entries, &nentries, step_report_json(&rep));
			if (!err)
				err = diag_decision(r, "step %u %s: pre-flight failed: %s", ran + 1, desc,
						    pf.cause ? pf.cause : "?");
			step_preflight_clear(&pf);
			ran++;
			if (err)
				goto out;
			continue;
		}
		ev.kind = AGENT_EV_ACCEPTED;
		ev.step = reply.step;
		a->ops->tell(a, &ev, NULL);
		x = step_exec_new(reply.step, o->exec, cause);
		if (!x) {
			err = -errno;
			step_preflight_clear(&pf);
			goto out;
		}
		err = step_exec_run(x, o->stop_fd, cause);
		step_exec_info(x, &info);
		d = step_exec_take_data(x);
		step_exec_free(x);
		texec += diag_now() - ts;
		session_step_result(o->ses, ran + 1, reply.step, d, &info, NULL, exclude_tgid);
		if (err < 0) {
			step_data_free(d);
			step_preflight_clear(&pf);
			goto out;
		}
		err = step_merge_into_tree(t, reply.step, d, ran);
		if (!err)
			err = calib_run(t, &opts);
		summary = step_summary(reply.step, d, 1);
		if (summary && info.state == STEP_EXEC_OVER_BUDGET) {
			char *s2 = NULL;

			if (asprintf(&s2, "%s (%s)", summary, info.reason) >= 0) {
				free(summary);
				summary = s2;
			}
		}
		rep.d = d;
		rep.info = &info;
		rep.summary = summary;
		if (!err)
			err = diag_push(&entries, &nentries, step_report_json(&rep));
		if (!err && summary) {
			diag_log(o->log, "step %u result: %s", ran + 1, summary);
			err = diag_decision(r, "step %u %s: %s", ran + 1, desc, summary);
			if (!err) {
				char *note = NULL;

				if (asprintf(&note, "step %u, %s: %s", ran + 1,
					     step_kind_name(reply.step->kind), summary) < 0)
					note = NULL;
				err = diag_push(&notes, &nnotes, note);
			}
			ev.kind = AGENT_EV_RESULT;
			ev.text = summary;
			if (!err)
				a->ops->tell(a, &ev, NULL);
		}
		free(summary);
		step_data_free(d);
		step_preflight_clear(&pf);
		ran++;
		if (err)
			goto out;
	}
	/* the last turn's verdict, with the steps' evidence */
	if (reply.kind == AGENT_REPLY_PROPOSAL && !reply.verdict.found && !reply.verdict.summary) {
		/* proposals without an interim verdict to the end (an LLM): the
		 * tree's own descent, steps' nodes included */
		struct agent_reply dr = { 0 };

		err = agent_reply_line(&dr, "no verdict from the %s agent: the verdict is the "
				       "tree's own descent", agent_name(a));
		if (!err)
			err = agent_descend(t, NULL, 0.5, &reply.verdict, &dr);
		if (!err)
			err = diag_keep_lines(r, &dr);
		agent_reply_clear(&dr);
		if (err)
			goto out;
	}
	r->verdict = reply.verdict;
	memset(&reply.verdict, 0, sizeof(reply.verdict));
	err = diag_agent_extras(a, r);
	for (unsigned i = 0; i < nnotes && !err; i++)
		err = verdict_add_note(&r->verdict, "%s", notes[i]);
	if (!err) {
		*steps_json = step_report_array(entries, nentries);
		if (!*steps_json)
			err = -ENOMEM;
	}
out:
	agent_reply_clear(&reply);
	for (unsigned i = 0; i < nentries; i++)
		free(entries[i]);
	free(entries);
	for (unsigned i = 0; i < nnotes; i++)
		free(notes[i]);
	free(notes);
	agent_free(own_agent);
	tree_free(t);
	profile_free(own);
	r->thinking_s = diag_now() - t0 - texec;
	r->steps_s = texec;
	if (err < 0 && cause && !*cause)
		diag_cause(cause, "diagnose with steps failed: %s", strerror(-err));
	return err;
}
