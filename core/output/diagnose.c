/* diagnose — calibrated verdict and naive answer from one profile; JSON. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/vec.h"
#include "agent/agent.h"
#include "agent/agent_heuristic.h"
#include "agent/agent_select.h"
#include "analysis/analysis.h"
#include "step/controller.h"
#include "data/step.h"
#include "probe/caps.h"
#include "output/session_sink.h"
#include "step/step_exec.h"
#include "step/step_json.h"
#include "analysis/step_merge.h"
#include "step/step_preflight.h"
#include "measure/source.h"
#include "output/diagnose.h"
#include "data/tree.h"
#include "base/util.h"

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
	for (unsigned i = 0; i < r->nnaive_diff; i++)
		free(r->naive_diff_path[i]);
	free(r->hyp);
	memset(r, 0, sizeof(*r));
}

/* Moves the naive answer of an over to r. */
static void diag_take_naive(struct analysis *an, struct diagnose_result *r)
{
	snprintf(r->summary, sizeof(r->summary), "%s", an->summary);
	memcpy(r->naive_subsystem, an->naive_subsystem, sizeof(r->naive_subsystem));
	memcpy(r->naive_path, an->naive_path, an->nnaive * sizeof(*r->naive_path));
	r->nnaive = an->nnaive;
	an->nnaive = 0;
	memcpy(r->naive_diff_subsystem, an->naive_diff_subsystem, sizeof(r->naive_diff_subsystem));
	memcpy(r->naive_diff_path, an->naive_diff_path,
	       an->nnaive_diff * sizeof(*r->naive_diff_path));
	r->nnaive_diff = an->nnaive_diff;
	an->nnaive_diff = 0;
}

/* The analysis of p without steps; an error when it cannot be calibrated
 * (a verdict needs both conditions). */
static int diag_analyse(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
			uint32_t exclude_tgid, struct analysis *an, char **cause)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .exclude_tgid = exclude_tgid,
				    .calib = co, .freq_hz = freq_hz, .explain = 0.5 };
	char why[160];
	int err = analysis_run(p, NULL, 0, &ao, an, cause);

	if (err)
		return err;
	if (!an->calibrated) {
		util_cause(cause, "cannot calibrate: %s", analysis_calib_reason(an, why, sizeof(why)));
		return an->calib_err;
	}
	return 0;
}

/* Moves reply's lines to the end of r->decisions. */
static int diag_take_lines(struct diagnose_result *r, struct agent_reply *reply)
{
	if (!reply->nlines)
		return 0;
	if (vec_resize(&r->decisions, (size_t)r->ndecisions + reply->nlines, sizeof(*r->decisions)))
		return -ENOMEM;
	memcpy(r->decisions + r->ndecisions, reply->lines, reply->nlines * sizeof(*r->decisions));
	r->ndecisions += reply->nlines;
	free(reply->lines);
	reply->lines = NULL;
	reply->nlines = 0;
	return 0;
}

/* Moves the descent's verdict (when it gave one) and its lines to the end
 * of r->decisions. */
static int diag_take_descent(struct analysis *an, struct diagnose_result *r)
{
	struct agent_reply dr = { 0 };
	int err;

	if (an->descended) {
		verdict_clear(&r->verdict);
		analysis_take_verdict(an, &r->verdict, &dr.lines, &dr.nlines);
	} else {
		struct verdict none = { 0 };

		analysis_take_verdict(an, &none, &dr.lines, &dr.nlines);
		verdict_clear(&none);
	}
	err = diag_take_lines(r, &dr);
	agent_reply_clear(&dr);
	return err;
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
static int diag_agent(struct analysis *an, struct agent *a, int stop_fd,
		      struct diagnose_result *r, char **cause)
{
	struct agent_ctx ctx = { .tree = an->t, .step_index = 0, .step_max = 0 };
	struct agent_reply reply = { 0 };
	unsigned declined = 0;
	int err = 0;

	snprintf(r->agent, sizeof(r->agent), "%s", agent_name(a));
	for (;;) {
		char desc[256];
		struct agent_event ev = { .kind = AGENT_EV_VETOED };

		err = agent_turn_wait(a, &ctx, &reply, stop_fd);
		if (err) {
			util_cause(cause, "the %s agent failed: %s", agent_name(a), strerror(-err));
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
				err = diag_take_lines(r, &reply);
			if (!err)
				err = diag_take_descent(an, r);
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
		util_cause(cause, "the %s agent failed: %s", agent_name(a), strerror(-err));
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
	struct analysis an = { 0 };
	double t0 = util_mono_s();
	int err;

	memset(r, 0, sizeof(*r));
	err = diag_analyse(p, co, freq_hz, exclude_tgid, &an, cause);
	if (err < 0)
		goto out;
	if (a) {
		err = diag_agent(&an, a, stop_fd, r, cause);
		if (err < 0)
			goto out;
		diag_take_naive(&an, r);
		goto out;
	}
	if (!an.descended) {
		err = an.descent_err;
		util_cause(cause, "the descent failed: %s", strerror(-err));
		goto out;
	}
	/* the verdict and its reasoning lines are the descent's */
	err = diag_take_descent(&an, r);
	diag_take_naive(&an, r);
out:
	if (err >= 0 && r->verdict.found && !r->verdict.ncallsites)
		err = verdict_callsites_fill(&r->verdict, p, exclude_tgid);
	analysis_clear(&an);
	r->thinking_s = util_mono_s() - t0;
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
	if (verdict_json_add_paths(jv, v))
		err = -ENOMEM;

	if (r->summary[0])
		cJSON_AddStringToObject(o, "header", r->summary);
	jn = cJSON_AddObjectToObject(o, "naive");
	cJSON_AddStringToObject(jn, "subsystem", r->naive_subsystem);
	cJSON_AddItemToObject(jn, "path", diag_strings(r->naive_path, r->nnaive));
	if (r->nnaive)
		cJSON_AddStringToObject(jn, "leaf", r->naive_path[r->nnaive - 1]);
	else
		cJSON_AddNullToObject(jn, "leaf");

	jn = cJSON_AddObjectToObject(o, "naive_diff");
	cJSON_AddStringToObject(jn, "subsystem", r->naive_diff_subsystem);
	cJSON_AddItemToObject(jn, "path", diag_strings(r->naive_diff_path, r->nnaive_diff));
	if (r->nnaive_diff)
		cJSON_AddStringToObject(jn, "leaf", r->naive_diff_path[r->nnaive_diff - 1]);
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
		if (p->wins[w].lost) /* samples or scheduler intervals not counted */
			cJSON_AddNumberToObject(jw, "lost", (double)p->wins[w].lost);
		/* counted, but without a user stack: in no call site (issue 27) */
		cJSON_AddNumberToObject(jw, "ustack_errors", (double)p->wins[w].ustack_errors);
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
		if (info->scope_ref && info->scope_load) {
			cJSON *jsc = cJSON_AddObjectToObject(o, "scope");

			cJSON_AddStringToObject(jsc, "reference", info->scope_ref);
			cJSON_AddStringToObject(jsc, "loaded", info->scope_load);
		}
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

__attribute__((format(printf, 2, 3)))
static int diag_decision(struct diagnose_result *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = util_lines_vadd(&r->decisions, &r->ndecisions, fmt, ap);
	va_end(ap);
	return err;
}

static int diag_push(char ***v, unsigned *n, char *s)
{
	if (!s)
		return -ENOMEM;
	if (vec_resize(v, (size_t)*n + 1, sizeof(**v))) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*n)++] = s;
	return 0;
}

/* The analysis again over p with the kept steps; it replaces *an.  A step
 * that cannot be merged or a tree that does not calibrate any more fails. */
static int diag_reanalyse(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
			  uint32_t exclude_tgid, struct analysis_step *kept, unsigned nkept,
			  struct analysis *an, char **cause)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .exclude_tgid = exclude_tgid,
				    .calib = co, .freq_hz = freq_hz, .explain = 0.5 };
	struct analysis next;
	int err = analysis_run(p, kept, nkept, &ao, &next, cause);

	if (err)
		return err;
	for (unsigned i = 0; i < nkept && !err; i++)
		err = kept[i].err;
	if (!err && !next.calibrated)
		err = next.calib_err;
	analysis_clear(an);
	*an = next;
	return err;
}

/* Batch's share of the controller's events: the session records its
 * proposals, decisions and results; the decision lines, the log, the
 * "steps" report and the verdict's notes are collected here. */
struct diag_batch {
	const struct diagnose_steps_opts *o;
	struct diagnose_result *r;
	struct session_sink sink;
	char **entries, **notes;
	unsigned nentries, nnotes;
	double ts, texec;          /* the running step's start; time in steps */
	int err;                   /* the first -ENOMEM */
};

static void diag_keep(struct diag_batch *b, int err)
{
	if (err && !b->err)
		b->err = err;
}

static enum ctl_decide diag_decide(void *arg, struct controller *c, const struct step *s,
				   const char **why)
{
	struct diag_batch *b = arg;

	(void)s;
	if (!b->o->auto_accept)
		return CTL_DECIDE_STOP;
	if (ctl_next_step_no(c) > b->o->max_steps) {   /* steps tried, refused ones too */
		/* over the budget (an LLM may not count): declined, a verdict asked for */
		*why = "the step budget is spent: give your verdict from the tree as measured";
		return CTL_DECIDE_DECLINE;
	}
	return CTL_DECIDE_ACCEPT;
}

static void diag_event(void *arg, const struct ctl_event *ev)
{
	struct diag_batch *b = arg;
	struct diagnose_result *r = b->r;
	struct step_report rep = { .index = ev->step_no ? ev->step_no - 1 : 0, .s = ev->step,
				   .decision = "auto" };
	char desc[256] = "";

	session_sink_event(&b->sink, ev);
	if (ev->step)
		step_describe(ev->step, desc, sizeof(desc));
	switch (ev->kind) {
	case CTL_EV_REPLY:
		for (unsigned i = 0; i < ev->reply->nlines; i++)
			diag_keep(b, diag_decision(r, "%s", ev->reply->lines[i]));
		break;
	case CTL_EV_DECLINED:
		diag_keep(b, diag_decision(r, "proposed %s: not run (the budget of %u steps is "
					   "spent)", desc, b->o->max_steps));
		break;
	case CTL_EV_NOT_RUN:
		diag_log(b->o->log, "the agent proposes a step: %s; batch diagnose runs steps only "
			 "with --auto (or accept it in the interactive argus)", desc);
		rep.decision = "not run (needs --auto or a person's accept)";
		diag_keep(b, diag_push(&b->entries, &b->nentries, step_report_json(&rep)));
		diag_keep(b, diag_decision(r, "proposed %s: not run without --auto", desc));
		break;
	case CTL_EV_DECISION:
		b->ts = util_mono_s();       /* its pre-flight and run are time in steps */
		break;
	case CTL_EV_PREFLIGHT:
		diag_log(b->o->log, "step %u (auto-accepted): %s; pre-flight: %s", ev->step_no, desc,
			 ev->text);
		if (ev->over_budget)
			diag_log(b->o->log, "step %u: %s", ev->step_no, ev->why);
		if (ev->ok)
			break;
		rep.pf = ev->pf;
		diag_keep(b, diag_push(&b->entries, &b->nentries, step_report_json(&rep)));
		diag_keep(b, diag_decision(r, "step %u %s: pre-flight failed: %s", ev->step_no, desc,
					   ev->pf && ev->pf->cause ? ev->pf->cause : "?"));
		break;
	case CTL_EV_RESULT:
		if (!ev->info)
			break;            /* not run: said at its pre-flight */
		b->texec += util_mono_s() - b->ts;
		if (!ev->ok)
			break;            /* the run failed: diagnose fails */
		rep.pf = ev->pf;
		rep.d = ev->data;
		rep.info = ev->info;
		rep.summary = ev->summary;
		diag_keep(b, diag_push(&b->entries, &b->nentries, step_report_json(&rep)));
		if (ev->summary) {
			char *note = NULL;

			diag_log(b->o->log, "step %u result: %s", ev->step_no, ev->summary);
			diag_keep(b, diag_decision(r, "step %u %s: %s", ev->step_no, desc, ev->summary));
			if (asprintf(&note, "step %u, %s: %s", ev->step_no,
				     step_kind_name(ev->step->kind), ev->summary) < 0)
				note = NULL;
			diag_keep(b, diag_push(&b->notes, &b->nnotes, note));
		}
		break;
	default:
		break;
	}
}

/* The measurement still running beside the steps: its descriptors (the
 * loads' output pipes) for the loop's poll, and a tick that reads them. */
static int diag_running_fds(struct source *s, struct pollfd *fds, int max)
{
	int n = s && s->ops->pollfds ? s->ops->pollfds(s, fds, max) : 0;

	return n > 0 ? n : 0;
}

static void diag_running_tick(struct source *s, FILE *log)
{
	char *why = NULL;

	if (s && s->ops->tick(s, util_mono_s(), &why) < 0 && log)
		fprintf(log, "argus: the measurement beside the steps: %s\n", why ? why : "failed");
	free(why);
}

/* The verdict's call sites: from the sampler's profile p, else from the
 * kept steps' profiles (issue 27: a path through a step's node, a
 * tracepoint_stacks or offcpu step, has its user frames there).  0 or
 * -ENOMEM. */
static int diag_callsites(struct verdict *v, const struct profile *p, struct controller *c,
			  uint32_t exclude_tgid)
{
	struct analysis_step kept[CTL_MAX_RUNS];
	const struct profile *sp[CTL_MAX_RUNS];
	const char *units[CTL_MAX_RUNS];
	unsigned n = ctl_steps(c, kept, CTL_MAX_RUNS);
	int err;

	for (unsigned i = 0; i < n; i++) {
		sp[i] = kept[i].data ? kept[i].data->prof : NULL;
		units[i] = kept[i].data ? kept[i].data->unit : NULL;
	}
	err = verdict_callsites_fill_steps(v, p, sp, units, n, exclude_tgid);
	/* an index into kept: the session's step number is what people read */
	if (!err && v->callsites_step && v->callsites_step <= n)
		v->callsites_step = kept[v->callsites_step - 1].idx + 1;
	return err;
}

/* Runs c until it is done: the one poll loop of batch (the agent's sockets,
 * the running step's timer, stop_fd), the analysis again after every
 * result. */
static int diag_drive(struct controller *c, struct diag_batch *b, const struct profile *p,
		      const struct calib_opts *co, unsigned freq_hz, uint32_t exclude_tgid,
		      struct analysis *an, char **cause)
{
	const struct diagnose_steps_opts *o = b->o;
	struct analysis_step kept[CTL_MAX_RUNS];
	int err;

	for (;;) {
		struct pollfd fds[1 + 16];
		int n = 0, tmo, rc;

		if (ctl_need_rebuild(c)) {
			unsigned nk = ctl_steps(c, kept, CTL_MAX_RUNS);

			err = diag_reanalyse(p, co, freq_hz, exclude_tgid, kept, nk, an, cause);
			if (err)
				return err;
			ctl_rebuilt(c);
		}
		rc = ctl_tick(c, an->t, 1, NULL, util_mono_s());
		if (b->err)
			return b->err;
		if (rc < 0 || ctl_mode(c) == CTL_DONE) {
			const char *why;

			ctl_outcome(c, &why);
			if (rc < 0 && why && cause && !*cause)
				util_cause(cause, "%s", why);
			return rc < 0 ? rc : 0;
		}
		tmo = ctl_timeout_ms(c, util_mono_s());
		if (tmo == 0)
			continue;
		if (o->stop_fd >= 0)
			fds[n++] = (struct pollfd){ .fd = o->stop_fd, .events = POLLIN };
		n += ctl_pollfds(c, fds + n, 8);
		n += diag_running_fds(o->running, fds + n, 8);
		if (ctl_in_flight(c) && (tmo < 0 || tmo > 200))
			tmo = 200;
		rc = poll(fds, (nfds_t)n, tmo < 0 ? 200 : tmo);
		diag_running_tick(o->running, o->log);
		if (rc > 0 && o->stop_fd >= 0 && (fds[0].revents & POLLIN)) {
			const char *why;

			/* a signal: the step detached (its windows kept), the turn cancelled */
			ctl_stop(c);
			err = ctl_outcome(c, &why);
			if (why && cause && !*cause)
				util_cause(cause, "%s", why);
			return err ? err : -EINTR;
		}
	}
}

int diagnose_run_steps(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		       uint32_t exclude_tgid, const struct diagnose_steps_opts *o,
		       struct diagnose_result *r, char **steps_json, char **cause)
{
	struct diag_batch b = { .o = o, .r = r };
	struct agent *a;
	struct controller *c = NULL;
	struct analysis an = { 0 };
	struct ctl_opts cop = { 0 };
	double t0 = util_mono_s();
	int err;

	memset(r, 0, sizeof(*r));
	*steps_json = NULL;
	b.sink = (struct session_sink){ .ses = o->ses, .exclude_tgid = exclude_tgid };
	a = o->agent ? o->agent : agent_heuristic_new();
	if (!a) {
		err = -ENOMEM;
		goto out;
	}
	cop.steps = o->max_steps;
	cop.auto_accept = o->auto_accept;
	cop.utf8 = 1;
	cop.caps = o->caps;
	cop.batch = 1;
	cop.max_turns = 2 * o->max_steps + 3;
	cop.budget_pct = o->exec ? o->exec->budget_pct : 0;
	cop.decide = diag_decide;
	cop.decide_arg = &b;
	cop.agent_borrowed = o->agent != NULL;
	cop.exec_arg = (void *)o->exec;
	if (o->scope)
		cop.scope = *o->scope;
	cop.sinks[0] = (struct ctl_sink){ diag_event, &b };
	c = ctl_new(&cop, a);
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	err = diag_analyse(p, co, freq_hz, exclude_tgid, &an, cause);
	if (err < 0)
		goto out;
	/* the naive answer from the calibration alone, before steps add nodes */
	diag_take_naive(&an, r);
	err = diag_drive(c, &b, p, co, freq_hz, exclude_tgid, &an, cause);
	if (err < 0)
		goto out;
	/* the last turn's verdict, with the steps' evidence */
	if (ctl_take_verdict(c, &r->verdict) == -ENOENT) {
		/* proposals without an interim verdict to the end (an LLM): the
		 * tree's own descent, steps' nodes included */
		err = diag_decision(r, "no verdict from the %s agent: the verdict is the tree's own "
				    "descent", agent_name(a));
		if (!err && !an.descended)
			err = an.descent_err;
		if (!err)
			err = diag_take_descent(&an, r);
		if (err)
			goto out;
	}
	err = diag_agent_extras(a, r);
	for (unsigned i = 0; i < b.nnotes && !err; i++)
		err = verdict_add_note(&r->verdict, "%s", b.notes[i]);
	if (!err && r->verdict.found && !r->verdict.ncallsites)
		err = diag_callsites(&r->verdict, p, c, exclude_tgid);
	if (!err) {
		*steps_json = step_report_array(b.entries, b.nentries);
		if (!*steps_json)
			err = -ENOMEM;
	}
out:
	for (unsigned i = 0; i < b.nentries; i++)
		free(b.entries[i]);
	free(b.entries);
	for (unsigned i = 0; i < b.nnotes; i++)
		free(b.notes[i]);
	free(b.notes);
	if (c)
		ctl_free(c);          /* frees a unless it is the caller's */
	else if (!o->agent)
		agent_free(a);
	analysis_clear(&an);
	r->thinking_s = util_mono_s() - t0 - b.texec;
	r->steps_s = b.texec;
	if (err < 0 && cause && !*cause)
		util_cause(cause, "diagnose with steps failed: %s", strerror(-err));
	return err;
}

int session_write_diagnosis(struct session *s, const struct diagnose_result *r)
{
	return session_write_conclusion(s, r->decisions, r->ndecisions, r->naive_subsystem,
					r->naive_path, r->nnaive, &r->verdict);
}
