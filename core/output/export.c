/* export — folded stacks, JSON and markdown from a session (see export.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "analysis/analysis.h"
#include "output/export.h"
#include "data/pprof.h"
#include "measure/source_session.h"
#include "measure/source_replay.h"
#include "base/numfmt.h"
#include "base/sanitize.h"
#include "base/util.h"

#define EXPORT_SIBLINGS 6   /* children shown per level of the path */

enum export_format export_format_from_name(const char *name)
{
	if (!name)
		return EXPORT_FORMAT_N;
	if (!strcmp(name, "folded"))
		return EXPORT_FOLDED;
	if (!strcmp(name, "json"))
		return EXPORT_JSON;
	if (!strcmp(name, "markdown") || !strcmp(name, "md"))
		return EXPORT_MARKDOWN;
	if (!strcmp(name, "pprof"))
		return EXPORT_PPROF;
	return EXPORT_FORMAT_N;
}

static void xp_findings_json(cJSON *o, const struct session_log *l, size_t nev);

static unsigned xp_freq(const struct session_log *l)
{
	cJSON *o = l && l->options_json ? cJSON_Parse(l->options_json) : NULL;
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "freq_hz");
	unsigned hz = 0;

	if (cJSON_IsNumber(f) && f->valuedouble > 0 && f->valuedouble < 1e6)
		hz = (unsigned)f->valuedouble;
	cJSON_Delete(o);
	return hz;
}

void export_pprof_opts(const struct session_log *log, int c, struct pprof_write_opts *o)
{
	struct tm tm = { 0 };

	memset(o, 0, sizeof(*o));
	o->freq_hz = xp_freq(log);
	o->cond = c;
	if (log->created && strptime(log->created, "%Y-%m-%dT%H:%M:%SZ", &tm))
		o->time_nanos = (int64_t)timegm(&tm) * 1000000000;
}

void export_service_name(const struct session_log *log, char *buf, size_t len)
{
	static const char *const keys[] = { "victim", "load" };
	cJSON *o = log && log->options_json ? cJSON_Parse(log->options_json) : NULL;

	buf[0] = 0;
	/* the diagnosed program: the victim when there is one (the load is
	 * then what disturbs it), else the load; its first word */
	for (size_t k = 0; k < 2 && !buf[0]; k++) {
		const cJSON *c = o ? cJSON_GetObjectItemCaseSensitive(o, keys[k]) : NULL;

		if (cJSON_IsArray(c))
			c = cJSON_GetArrayItem(c, 0);
		if (cJSON_IsString(c))
			pprof_service_name(c->valuestring, buf, len);
	}
	/* a process given by PID: its name, as the session identified it */
	for (size_t k = 0; k < 2 && !buf[0]; k++) {
		const cJSON *c = o ? cJSON_GetObjectItemCaseSensitive(o, k ? "pid" : "victim_pid") : NULL;
		const struct profile_ident *id = cJSON_IsNumber(c) && c->valuedouble > 0 &&
			c->valuedouble <= UINT32_MAX && log->profile ?
			profile_ident_find(log->profile, (uint32_t)c->valuedouble) : NULL;

		if (id && id->comm && *id->comm)
			pprof_service_name(id->comm, buf, len);
	}
	cJSON_Delete(o);
	if (!buf[0])
		snprintf(buf, len, "argus");
}

void export_view_clear(struct export_view *xv)
{
	if (!xv)
		return;
	profile_free(xv->own_p);
	tree_free(xv->own_t);
	verdict_clear(&xv->own_v);
	for (unsigned i = 0; i < xv->own_nlines; i++)
		free(xv->own_lines[i]);
	free(xv->own_lines);
	memset(xv, 0, sizeof(*xv));
}

int export_view_build(struct export_view *xv, const struct session_log *log, size_t nev,
		      const char *name, char **cause)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .explain = 0.5, .sort = 1 };
	struct analysis an;
	struct calib_opts co;
	int err = 0;

	memset(xv, 0, sizeof(*xv));
	xv->name = name;
	xv->log = log;
	xv->nev = nev > log->nev ? log->nev : nev;
	xv->own_p = session_log_profile_upto(log, xv->nev, 0);
	if (!xv->own_p) {
		err = -errno;
		util_cause(cause, "cannot read the session's windows: %s", strerror(errno));
		goto fail;
	}
	ao.freq_hz = xp_freq(log);
	/* calibrated the way the windows were stopped (sequential or fixed) */
	calib_opts_default(&co);
	co.sequential = session_options_sequential(log->options_json);
	ao.calib = &co;
	err = analysis_run(xv->own_p, NULL, 0, &ao, &an, cause);
	if (err)
		goto fail;
	xv->own_t = xv->t = an.t;
	an.t = NULL;
	if (an.descended) {
		analysis_take_verdict(&an, &xv->own_v, &xv->own_lines, &xv->own_nlines);
		xv->v = &xv->own_v;
		xv->lines = xv->own_lines;
		xv->nlines = xv->own_nlines;
	}
	analysis_clear(&an);
	{
		const struct session_event *d = session_log_diagnosis(log, xv->nev);

		if (d) {
			xv->v = &d->verdict;
			xv->v_recorded = 1;
		}
	}
	return 0;
fail:
	export_view_clear(xv);
	return err;
}

/* ---- folded ------------------------------------------------------------------ */

int export_folded(const struct profile *p, enum cond c, unsigned flags, FILE *out)
{
	int user = 0;
	struct profile *q = profile_new();
	double secs = 0;
	unsigned nw = 0;
	int err = 0;

	if (!q)
		return -ENOMEM;
	if (profile_window_begin(q, c, 0) < 0) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned w = 0; w < p->nwin; w++)
		if (p->wins[w].cond == c) {
			secs += p->wins[w].secs;
			nw++;
		}
	/* user frames (and the "_[k]" marks) only where some were recorded: a
	 * session without them exports as it always did */
	for (size_t i = 0; !(flags & EXPORT_FOLDED_KERNEL_ONLY) && !user && i < p->nstacks; i++)
		user = p->stacks[i].nuframes > 0;
	/* one line per distinct frame list: processes merged */
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint64_t n = 0;

		for (unsigned w = 0; w < p->nwin; w++)
			if (p->wins[w].cond == c)
				n += s->win[w];
		if (n && s->nframes &&
		    (err = profile_add_user(q, 0, s->frames, s->nframes, user ? s->uframes : NULL,
					    user ? s->nuframes : 0, 0, NULL, n)))
			goto out;
	}
	if (nw && fprintf(out, "# argus-window secs=%.6g cond=%s\n", secs, cond_name(c)) < 0) {
		err = -EIO;
		goto out;
	}
	for (size_t i = 0; i < q->nstacks; i++) {
		const struct profile_stack *s = &q->stacks[i];

		for (uint32_t k = 0; k < s->nuframes; k++)
			if (fputs(s->uframes[k], out) < 0 || fputc(';', out) < 0) {
				err = -EIO;
				goto out;
			}
		/* beside user frames the kernel's carry FlameGraph's "_[k]" (its
		 * colours; core/data/import_folded keeps only those) */
		for (uint32_t k = 0; k < s->nframes; k++)
			if (fputs(s->frames[k], out) < 0 || (user && fputs("_[k]", out) < 0) ||
			    (k + 1 < s->nframes && fputc(';', out) < 0)) {
				err = -EIO;
				goto out;
			}
		if (fprintf(out, " %llu\n", (unsigned long long)s->win[0]) < 0) {
			err = -EIO;
			goto out;
		}
	}
	if (fflush(out))
		err = -EIO;
out:
	profile_free(q);
	return err;
}

/* ---- JSON ------------------------------------------------------------------- */

static cJSON *xp_num(double d)
{
	return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
}

static const char *xp_kind(enum tree_node_kind k)
{
	switch (k) {
	case TREE_ROOT: return "root";
	case TREE_PROCESS: return "process";
	case TREE_COMMAND: return "command";
	case TREE_SUBSYS: return "subsystem";
	case TREE_FRAME: return "function";
	case TREE_EVENT: return "event";
	case TREE_TIME: return "time";
	}
	return "?";
}

/* Who a process is (issue 15): the fields /proc showed while it ran. */
static int xp_ident(cJSON *o, const struct tree_ident *id)
{
	cJSON *x = cJSON_AddObjectToObject(o, "identity");

	if (!x)
		return -ENOMEM;
	if (!id)
		return 0;
	if (!cJSON_AddStringToObject(x, "comm", id->comm) ||
	    !cJSON_AddStringToObject(x, "cmdline", id->cmdline) ||
	    !cJSON_AddStringToObject(x, "exe", id->exe) ||
	    !cJSON_AddStringToObject(x, "cgroup", id->cgroup) ||
	    !cJSON_AddStringToObject(x, "unit", id->unit) ||
	    !cJSON_AddStringToObject(x, "container", id->container) ||
	    !cJSON_AddStringToObject(x, "threads", id->threads) ||
	    !cJSON_AddBoolToObject(x, "kthread", id->kthread) ||
	    !(id->kthread ? cJSON_AddStringToObject(x, "role", id->role) :
	      cJSON_AddNullToObject(x, "role")))
		return -ENOMEM;
	return 0;
}

/* "work": what a kworker ran (issue 15), each work function its sampled
 * stacks show (core/data/kwork.h) with its samples, or the workqueue
 * tracepoint counted with its executions (0 when not counted), most
 * samples first, then most executions; only on kworkers (an empty array:
 * neither source names one). */
static int xp_work(cJSON *o, const struct tree_kworker *kw)
{
	cJSON *a;

	if (!kw)
		return 0;
	a = cJSON_AddArrayToObject(o, "work");
	if (!a)
		return -ENOMEM;
	for (unsigned i = 0; i < kw->nwork; i++) {
		const struct tree_work *w = &kw->work[i];
		cJSON *j = cJSON_CreateObject();

		if (!j || !cJSON_AddItemToArray(a, j)) {
			cJSON_Delete(j);
			return -ENOMEM;
		}
		if (!cJSON_AddStringToObject(j, "function", w->func) ||
		    !cJSON_AddNumberToObject(j, "samples",
					     (double)(w->total[COND_REF] + w->total[COND_LOAD])) ||
		    !cJSON_AddNumberToObject(j, "ref_samples", (double)w->total[COND_REF]) ||
		    !cJSON_AddNumberToObject(j, "load_samples", (double)w->total[COND_LOAD]) ||
		    !cJSON_AddNumberToObject(j, "executions",
					     (double)(w->exec[COND_REF] + w->exec[COND_LOAD])) ||
		    !cJSON_AddNumberToObject(j, "ref_executions", (double)w->exec[COND_REF]) ||
		    !cJSON_AddNumberToObject(j, "load_executions", (double)w->exec[COND_LOAD]))
			return -ENOMEM;
	}
	return 0;
}

/* "processes": every process of the tree with its samples, whether it is
 * the diagnosed work, and its identity (an empty one when the session did
 * not record it: older sessions, imported files). */
static int xp_processes(cJSON *o, const struct tree *t)
{
	cJSON *a = cJSON_AddArrayToObject(o, "processes");

	/* whether the work entries' executions were counted at all */
	if (!a || !cJSON_AddBoolToObject(o, "workqueue_traced", t->kwork_traced))
		return -ENOMEM;
	for (const struct tree_proc *e = t->root->procs; e; e = e->next) {
		cJSON *j = cJSON_CreateObject();

		if (!j || !cJSON_AddItemToArray(a, j)) {
			cJSON_Delete(j);
			return -ENOMEM;
		}
		if (!cJSON_AddNumberToObject(j, "tgid", e->tgid) ||
		    !cJSON_AddStringToObject(j, "comm", e->comm ? e->comm : "") ||
		    !cJSON_AddNumberToObject(j, "ref_samples", (double)e->total[COND_REF]) ||
		    !cJSON_AddNumberToObject(j, "load_samples", (double)e->total[COND_LOAD]) ||
		    !cJSON_AddBoolToObject(j, "diagnosed", tree_is_diagnosed(t, e->tgid)) ||
		    xp_ident(j, e->tgid ? tree_ident_of(t, e->tgid) : NULL) < 0 ||
		    xp_work(j, e->tgid ? tree_kworker_of(t, e->tgid) : NULL) < 0)
			return -ENOMEM;
	}
	return 0;
}

static cJSON *xp_node(const struct tree_node *n)
{
	cJSON *o = cJSON_CreateObject(), *c;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "name", n->name);
	cJSON_AddStringToObject(o, "kind", xp_kind(n->kind));
	cJSON_AddStringToObject(o, "subsystem", subsys_name(n->subsys));
	for (int k = 0; k < COND_N; k++) {
		cJSON *x = cJSON_AddObjectToObject(o, cond_name((enum cond)k));

		if (!x)
			goto nomem;
		cJSON_AddNumberToObject(x, "total", (double)n->total[k]);
		cJSON_AddNumberToObject(x, "self", (double)n->self[k]);
		cJSON_AddItemToObject(x, "rate", xp_num(n->stat.rate[k]));
	}
	cJSON_AddItemToObject(o, "delta", xp_num(n->stat.delta));
	cJSON_AddItemToObject(o, "ratio", xp_num(n->stat.ratio));
	cJSON_AddItemToObject(o, "p", xp_num(n->stat.p));
	cJSON_AddItemToObject(o, "q", xp_num(n->stat.q));
	cJSON_AddNumberToObject(o, "pairs", n->stat.pairs);
	cJSON_AddNumberToObject(o, "pairs_agree", n->stat.pairs_agree);
	cJSON_AddBoolToObject(o, "significant", n->stat.significant);
	cJSON_AddBoolToObject(o, "verdict_path", !!(n->flags & TREE_F_VERDICT));
	if (n->kind == TREE_PROCESS) {
		cJSON_AddNumberToObject(o, "tgid", n->tgid);
		if (xp_ident(o, n->ident) < 0 || xp_work(o, n->kwork) < 0)
			goto nomem;
	}
	if (n->kind == TREE_COMMAND)
		cJSON_AddNumberToObject(o, "processes", n->nproc);
	if (n->nchild) {
		c = cJSON_AddArrayToObject(o, "children");
		if (!c)
			goto nomem;
		for (unsigned i = 0; i < n->nchild; i++) {
			cJSON *x = xp_node(n->child[i]);

			if (!x || !cJSON_AddItemToArray(c, x)) {
				cJSON_Delete(x);
				goto nomem;
			}
		}
	}
	return o;
nomem:
	cJSON_Delete(o);
	return NULL;
}

static int xp_print(cJSON *o, FILE *out)
{
	char *s = o ? cJSON_PrintUnformatted(o) : NULL;
	int err = 0;

	if (!s)
		err = -ENOMEM;
	else if (fprintf(out, "%s\n", s) < 0 || fflush(out))
		err = -EIO;
	cJSON_free(s);
	cJSON_Delete(o);
	return err;
}

static void xp_add_raw(cJSON *o, const char *key, const char *json)
{
	cJSON *v = json ? cJSON_Parse(json) : NULL;

	if (v)
		cJSON_AddItemToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

int export_json(const struct export_view *xv, FILE *out)
{
	cJSON *o = cJSON_CreateObject(), *a, *x;
	const struct session_log *l = xv->log;

	if (!o)
		return -ENOMEM;
	cJSON_AddStringToObject(o, "format", "argus-export");
	cJSON_AddNumberToObject(o, "version", 1);
	x = cJSON_AddObjectToObject(o, "session");
	cJSON_AddStringToObject(x, "file", xv->name ? xv->name : "");
	if (l) {
		cJSON_AddStringToObject(x, "host", l->host ? l->host : "");
		cJSON_AddStringToObject(x, "kernel", l->kernel ? l->kernel : "");
		cJSON_AddStringToObject(x, "created", l->created ? l->created : "");
		cJSON_AddStringToObject(x, "argus", l->argus_version ? l->argus_version : "");
		cJSON_AddNumberToObject(x, "events", (double)xv->nev);
		cJSON_AddNumberToObject(x, "events_total", (double)l->nev);
		cJSON_AddBoolToObject(x, "truncated", l->truncated);
		xp_add_raw(o, "options", l->options_json);
	}
	a = cJSON_AddArrayToObject(o, "windows");
	if (xv->t)
		for (unsigned w = 0; w < xv->t->nwin; w++) {
			cJSON *jw = cJSON_CreateObject();

			cJSON_AddStringToObject(jw, "cond", cond_name(xv->t->wins[w].cond));
			cJSON_AddItemToObject(jw, "secs", xp_num(xv->t->wins[w].secs));
			cJSON_AddNumberToObject(jw, "samples", (double)(xv->t->root ?
									 xv->t->root->win_total[w] : 0));
			cJSON_AddItemToArray(a, jw);
		}
	if (xv->v) {
		cJSON *jv = verdict_json_new(xv->v);

		if (jv)
			cJSON_AddItemToObject(o, "verdict", jv);
		cJSON_AddStringToObject(o, "verdict_from", xv->v_recorded ? "session" :
					"descent over the recorded windows");
	} else {
		cJSON_AddNullToObject(o, "verdict");
	}
	xp_findings_json(o, l, xv->nev);
	a = cJSON_AddArrayToObject(o, "transcript");
	x = cJSON_AddArrayToObject(o, "steps");
	for (size_t i = 0; l && i < xv->nev; i++) {
		const struct session_event *e = &l->ev[i];
		cJSON *j;

		switch (e->type) {
		case SESSION_EV_TRANSCRIPT:
			j = cJSON_CreateObject();
			cJSON_AddStringToObject(j, "who", e->who ? e->who : "");
			cJSON_AddStringToObject(j, "text", e->text ? e->text : "");
			cJSON_AddItemToArray(a, j);
			break;
		case SESSION_EV_PROPOSAL:
		case SESSION_EV_DECISION:
		case SESSION_EV_STEP_RESULT:
			j = cJSON_CreateObject();
			cJSON_AddNumberToObject(j, "step", e->step);
			cJSON_AddStringToObject(j, "event", session_event_name(e->type));
			if (e->type == SESSION_EV_PROPOSAL) {
				cJSON_AddStringToObject(j, "agent", e->agent ? e->agent : "");
				xp_add_raw(j, "spec", e->spec_json);
			} else if (e->type == SESSION_EV_DECISION) {
				cJSON_AddStringToObject(j, "action", session_decision_name(e->decision));
				cJSON_AddStringToObject(j, "by", e->by ? e->by : "");
				if (e->text)
					cJSON_AddStringToObject(j, "reason", e->text);
				if (e->edited_json)
					xp_add_raw(j, "edited", e->edited_json);
			} else {
				cJSON_AddStringToObject(j, "status", e->status ? e->status : "");
				cJSON_AddStringToObject(j, "summary", e->text ? e->text : "");
				if (e->result_json)
					xp_add_raw(j, "result", e->result_json);
			}
			cJSON_AddItemToArray(x, j);
			break;
		default:
			break;
		}
	}
	if ((!l || !cJSON_GetArraySize(a)) && xv->nlines)
		for (unsigned i = 0; i < xv->nlines; i++) {
			cJSON *j = cJSON_CreateObject();

			cJSON_AddStringToObject(j, "who", "agent");
			cJSON_AddStringToObject(j, "text", xv->lines[i]);
			cJSON_AddItemToArray(a, j);
		}
	if (xv->t && xv->t->root) {
		cJSON *jt = xp_node(xv->t->root);

		if (!jt || xp_processes(o, xv->t) < 0) {
			cJSON_Delete(jt);
			cJSON_Delete(o);
			return -ENOMEM;
		}
		cJSON_AddItemToObject(o, "tree", jt);
	} else {
		cJSON_AddNullToObject(o, "tree");
	}
	return xp_print(o, out);
}

/* The explorations after the verdict, each its own labelled finding:
 * "findings": [{"exploration": "focus on X", "verdict": {...}}]. */
static void xp_findings_json(cJSON *o, const struct session_log *l, size_t nev)
{
	cJSON *a = cJSON_AddArrayToObject(o, "findings");

	for (size_t i = 0; a && l && i < nev && i < l->nev; i++) {
		const struct session_event *e = &l->ev[i];
		cJSON *j;

		if (e->type != SESSION_EV_VERDICT || !e->focus)
			continue;
		j = cJSON_CreateObject();
		if (!j)
			return;
		cJSON_AddStringToObject(j, "exploration", e->focus);
		cJSON_AddItemToObject(j, "verdict", verdict_json_new(&e->verdict));
		cJSON_AddItemToArray(a, j);
	}
}

int export_replay_json(const struct session_log *l, const char *name, FILE *out)
{
	cJSON *o = cJSON_CreateObject(), *a;
	const struct verdict *v = NULL;
	char text[1024];

	if (!o)
		return -ENOMEM;
	cJSON_AddStringToObject(o, "file", name ? name : "");
	cJSON_AddStringToObject(o, "host", l->host ? l->host : "");
	cJSON_AddStringToObject(o, "kernel", l->kernel ? l->kernel : "");
	cJSON_AddStringToObject(o, "created", l->created ? l->created : "");
	cJSON_AddBoolToObject(o, "truncated", l->truncated);
	cJSON_AddNumberToObject(o, "bytes", (double)l->bytes);
	a = cJSON_AddArrayToObject(o, "notes");
	for (unsigned i = 0; i < l->nnotes; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->notes[i]));
	a = cJSON_AddArrayToObject(o, "events");
	for (size_t i = 0; i < l->nev; i++) {
		const struct session_event *e = &l->ev[i];
		cJSON *j = cJSON_CreateObject();

		cJSON_AddNumberToObject(j, "i", (double)(i + 1));
		cJSON_AddStringToObject(j, "type", session_event_name(e->type));
		cJSON_AddNumberToObject(j, "t", e->t);
		cJSON_AddNumberToObject(j, "line", e->line);
		if (e->type == SESSION_EV_WINDOW) {
			cJSON_AddNumberToObject(j, "step", e->step);
			cJSON_AddNumberToObject(j, "window", e->window);
			cJSON_AddStringToObject(j, "cond", cond_name(e->cond));
			cJSON_AddNumberToObject(j, "samples", (double)e->samples);
		} else if (e->type == SESSION_EV_PROPOSAL || e->type == SESSION_EV_DECISION ||
			   e->type == SESSION_EV_STEP_RESULT) {
			cJSON_AddNumberToObject(j, "step", e->step);
		}
		cJSON_AddStringToObject(j, "text", source_replay_event_text(e, text, sizeof(text)));
		cJSON_AddItemToArray(a, j);
	}
	v = session_log_diagnosis(l, l->nev) ? &session_log_diagnosis(l, l->nev)->verdict : NULL;
	if (v)
		cJSON_AddItemToObject(o, "verdict", verdict_json_new(v));
	else
		cJSON_AddNullToObject(o, "verdict");
	xp_findings_json(o, l, l->nev);
	return xp_print(o, out);
}

/* ---- markdown --------------------------------------------------------------- */

/* Markdown table cells must not hold '|' or newlines. */
static void md_cell(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '\n' || *s == '\r')
			fputc(' ', out);
		else
			fputc(*s, out);
	}
}

static void md_row(FILE *out, const struct tree_node *n, unsigned depth, int on_path)
{
	char q[24];

	numfmt_p(q, sizeof(q), NULL, n->stat.q, NUMFMT_P_TABLE);
	fprintf(out, "| %u | %s", depth, on_path ? "**" : "");
	md_cell(out, n->name);
	fprintf(out, "%s | %.1f | %.1f | %+.1f | %s | %u/%u | %s |\n", on_path ? "**" : "",
		n->stat.rate[COND_REF], n->stat.rate[COND_LOAD], n->stat.delta, q,
		n->stat.pairs_agree, n->stat.pairs,
		on_path ? "verdict path" : n->stat.significant ?
		(n->stat.delta > 0 ? "significant +" : "significant -") : "");
}

static void md_tree(FILE *out, const struct tree *t)
{
	const struct tree_node *n = t->root;
	unsigned depth = 0;

	fprintf(out, "| depth | node | ref/s | load/s | Δ/s | q | pairs agree | |\n"
		"|---:|---|---:|---:|---:|---:|---:|---|\n");
	md_row(out, n, 0, 1);
	while (n && n->nchild) {
		const struct tree_node *next = NULL;
		unsigned shown = 0;

		depth++;
		for (unsigned i = 0; i < n->nchild; i++) {
			const struct tree_node *c = n->child[i];
			int path = !!(c->flags & TREE_F_VERDICT);

			/* several children carry the flag when the verdict has
			 * branches: the table follows the path, the largest rise at
			 * every split (the descent's own rule for verdict.path) */
			if (path && (!next || c->stat.rise > next->stat.rise))
				next = c;
			if (!path && shown >= EXPORT_SIBLINGS - 1)
				continue;
			md_row(out, c, depth, path);
			shown++;
		}
		if (n->nchild > shown)
			fprintf(out, "| %u | *%u more* | | | | | | |\n", depth, n->nchild - shown);
		n = next;
	}
}

/* The user-space call sites of the verdict path (issue 27), leaf first. */
static void md_callsites(FILE *out, const struct verdict *v)
{
	char site[1024], gap[160];

	/* the samples no call site can show: said, not silently left out */
	if (verdict_callsites_gap(v, gap, sizeof(gap)))
		fprintf(out, "%s.\n\n", gap);
	if (!v->ncallsites)
		return;
	fprintf(out, "Called from (user-space frames that carry the rise, leaf first):\n\n"
		"| call site | rise | share |\n|---|---|---|\n");
	for (unsigned i = 0; i < v->ncallsites; i++) {
		verdict_callsite_format(&v->callsites[i], 6, site, sizeof(site));
		fputs("| ", out);
		md_cell(out, site);
		/* in the unit of the profile it came from: a step's is not
		 * samples (an offcpu step's: microseconds blocked) */
		fprintf(out, " | %+.1f %s/s | %.0f%% |\n", v->callsites[i].rise,
			verdict_callsites_unit(v), v->callsites[i].share * 100);
	}
	fputc('\n', out);
}

static void md_verdict(FILE *out, const struct export_view *xv)
{
	const struct verdict *v = xv->v;
	char q[24];

	fprintf(out, "## Verdict\n\n");
	if (!v) {
		fprintf(out, "No verdict: %s.\n\n", xv->t && xv->t->nwin ?
			"the recorded windows lack a reference or a loaded condition" :
			"nothing was measured up to this point");
		return;
	}
	if (!xv->v_recorded && xv->log)
		fprintf(out, "*The session holds no verdict up to here; this is argus's descent over "
			"the recorded windows.*\n\n");
	else if (!xv->v_recorded)
		fprintf(out, "*argus's descent over the windows measured so far.*\n\n");
	fprintf(out, "**%s**", v->found ? "Found" : "No bottleneck found");
	if (v->summary)
		fprintf(out, ": %s", v->summary);
	fprintf(out, "\n\n");
	if (v->npath) {
		fprintf(out, "Path (%s): ", v->subsystem);
		for (unsigned i = 0; i < v->npath; i++)
			fprintf(out, "%s`%s`", i ? " > " : "", v->path[i]);
		fprintf(out, "\n\n");
	}
	numfmt_p(q, sizeof(q), NULL, v->q, NUMFMT_P_TABLE);
	fprintf(out, "| evidence | |\n|---|---|\n");
	fprintf(out, "| reference rate | %.1f /s |\n| loaded rate | %.1f /s |\n", v->rate_ref,
		v->rate_load);
	fprintf(out, "| delta | %+.1f /s |\n", v->delta);
	if (isfinite(v->ratio))
		fprintf(out, "| ratio | x%.2f |\n", v->ratio);
	else
		fprintf(out, "| ratio | new when loaded |\n");
	fprintf(out, "| q (Benjamini-Hochberg) | %s |\n| pairs agreeing | %u of %u |\n", q,
		v->pairs_agree, v->pairs);
	fprintf(out, "| share of the total increase | %.0f%% |\n| confidence | %.2f |\n\n",
		v->share_of_root * 100, v->confidence);
	for (unsigned i = 0; i < v->nnotes; i++)
		fprintf(out, "- %s\n", v->notes[i]);
	if (v->nnotes)
		fputc('\n', out);
	md_callsites(out, v);
}

/* Explorations after the verdict: each its own labelled finding, never the
 * diagnosis above. */
static void md_findings(FILE *out, const struct export_view *xv)
{
	unsigned n = 0;

	for (size_t i = 0; xv->log && i < xv->nev; i++) {
		const struct session_event *e = &xv->log->ev[i];

		if (e->type != SESSION_EV_VERDICT || !e->focus)
			continue;
		if (!n++)
			fprintf(out, "## Explorations after the verdict\n\n"
				"Each is its own finding; the verdict above stands.\n\n");
		fprintf(out, "- %s: %s%s\n", e->focus, e->verdict.found ? "" : "no bottleneck found: ",
			e->verdict.summary ? e->verdict.summary : "");
	}
	if (n)
		fputc('\n', out);
}

/* How each proposed step ended: run, vetoed, undone, not run. */
static void md_steps_tally(FILE *out, const struct export_view *xv)
{
	unsigned run = 0, veto = 0, undo = 0, prop = 0;

	for (size_t i = 0; i < xv->nev; i++) {
		const struct session_event *e = &xv->log->ev[i];

		if (e->type == SESSION_EV_PROPOSAL)
			prop++;
		else if (e->type == SESSION_EV_STEP_RESULT)
			run++;
		else if (e->type == SESSION_EV_DECISION && e->decision == SESSION_VETO)
			veto++;
		else if (e->type == SESSION_EV_DECISION && e->decision == SESSION_UNDO)
			undo++;
	}
	fprintf(out, "\n%u proposed: %u ran, %u vetoed, %u undone.\n", prop, run, veto, undo);
}

/* Whether the agent line i repeats an earlier agent line (a descent is
 * re-told at each turn; the Decisions list shows it once). */
static int md_repeated(const struct export_view *xv, size_t i)
{
	const struct session_event *e = &xv->log->ev[i];

	if (!e->who || strcmp(e->who, "agent") || !e->text)
		return 0;
	for (size_t k = 0; k < i; k++) {
		const struct session_event *p = &xv->log->ev[k];

		if (p->type == SESSION_EV_TRANSCRIPT && p->who && !strcmp(p->who, "agent") &&
		    p->text && !strcmp(p->text, e->text))
			return 1;
	}
	return 0;
}

/* What was diagnosed, from the session's options: the load's command (a
 * string, or argv joined), else "PID N"; "" when the options name none. */
static void md_load(const struct session_log *l, char *buf, size_t len)
{
	cJSON *o = l && l->options_json ? cJSON_Parse(l->options_json) : NULL;
	const cJSON *ld = o ? cJSON_GetObjectItemCaseSensitive(o, "load") : NULL;
	const cJSON *pid = o ? cJSON_GetObjectItemCaseSensitive(o, "pid") : NULL;
	size_t at = 0;

	buf[0] = 0;
	if (cJSON_IsString(ld)) {
		snprintf(buf, len, "%s", ld->valuestring);
	} else if (cJSON_IsArray(ld)) {
		const cJSON *a;

		cJSON_ArrayForEach(a, ld) {
			int w;

			if (!cJSON_IsString(a))
				continue;
			w = snprintf(buf + at, len - at, "%s%s", at ? " " : "", a->valuestring);
			if (w < 0 || (size_t)w >= len - at)
				break;
			at += (size_t)w;
		}
	} else if (cJSON_IsNumber(pid) && pid->valuedouble > 0) {
		snprintf(buf, len, "PID %.0f", pid->valuedouble);
	}
	cJSON_Delete(o);
	/* anyone may have written the session: no control bytes */
	{
		char raw[512];

		snprintf(raw, sizeof(raw), "%s", buf);
		sanitize_into(buf, len, raw, 0);
	}
	/* a backquote would end the code span of the title */
	for (char *p = buf; *p; p++)
		if (*p == '`' || *p == '\n' || *p == '\r')
			*p = '\'';
}

/* Whether proposal line k of event i was printed with an earlier proposal
 * (each turn re-tells the descent: the report says it once). */
static int md_line_seen(const struct export_view *xv, size_t i, unsigned k)
{
	const char *t = xv->log->ev[i].lines[k];

	for (size_t j = 0; j < i; j++) {
		const struct session_event *p = &xv->log->ev[j];

		if (p->type != SESSION_EV_PROPOSAL)
			continue;
		for (unsigned m = 1; m < p->nlines; m++)
			if (p->lines[m] && t && !strcmp(p->lines[m], t))
				return 1;
	}
	return 0;
}

/* argus's warning about the run's data (session_write_note "warning: ..."):
 * said at the top, not among the notes */
static int md_warning(const struct session_event *e)
{
	return e->type == SESSION_EV_NOTE && e->text && !strncmp(e->text, "warning: ", 9);
}

int export_markdown(const struct export_view *xv, FILE *out)
{
	const struct session_log *l = xv->log;
	unsigned nsteps = 0, nlines = 0, nref = 0, nload = 0, heading = 0;
	double secs[COND_N] = { 0, 0 };
	char load[512];
	uint64_t samples = 0;

	md_load(l, load, sizeof(load));
	/* a bug tracker's title: what was diagnosed and what was found, the
	 * file it came from below */
	if (xv->v && xv->v->found && xv->v->leaf)
		fprintf(out, "# argus: `%s` (%s)%s%s%s\n\n", xv->v->leaf, xv->v->subsystem,
			*load ? " in `" : "", load, *load ? "`" : "");
	else if (xv->v)
		fprintf(out, "# argus: no bottleneck found%s%s%s\n\n", *load ? " in `" : "", load,
			*load ? "`" : "");
	else
		fprintf(out, "# argus report%s%s%s\n\n", *load ? ": `" : "", load, *load ? "`" : "");
	if (*load)
		fprintf(out, "- load: `%s`\n", load);
	fprintf(out, "- session: `%s`\n", xv->name ? xv->name : "-");
	if (l) {
		fprintf(out, "- host `%s`, kernel `%s`, recorded %s by argus %s\n",
			l->host ? l->host : "?", l->kernel ? l->kernel : "?",
			l->created ? l->created : "?", l->argus_version ? l->argus_version : "?");
		fprintf(out, "- options: `%s`\n", l->options_json ? l->options_json : "{}");
		if (xv->nev < l->nev)
			fprintf(out, "- replayed up to event %zu of %zu\n", xv->nev, l->nev);
		/* what the verdict's data is worth, before the verdict (a
		 * reference recorded on a busy system): the whole session's */
		for (size_t i = 0; i < l->nev; i++)
			if (md_warning(&l->ev[i]))
				fprintf(out, "- **%s**\n", l->ev[i].text);
	}
	if (xv->t) {
		for (unsigned w = 0; w < xv->t->nwin; w++) {
			if (xv->t->wins[w].cond == COND_REF)
				nref++;
			else
				nload++;
			secs[xv->t->wins[w].cond] += xv->t->wins[w].secs;
		}
		samples = xv->t->root ? tree_node_sum(xv->t->root) : 0;
		fprintf(out, "- %u reference window%s (%.1f s) and %u loaded window%s (%.1f s), "
			"%llu samples\n", nref, nref == 1 ? "" : "s", secs[COND_REF], nload,
			nload == 1 ? "" : "s", secs[COND_LOAD], (unsigned long long)samples);
	}
	fputc('\n', out);
	md_verdict(out, xv);
	md_findings(out, xv);

	if (xv->t && xv->t->root && nref && nload) {
		fprintf(out, "## The tree around the path\n\n"
			"Each level of the verdict path (bold) with its largest siblings; rates "
			"are samples per second in the reference and loaded windows.\n\n");
		md_tree(out, xv->t);
		fputc('\n', out);
	}

	fprintf(out, "## Decisions\n\n");
	for (size_t i = 0; l && i < xv->nev; i++) {
		const struct session_event *e = &l->ev[i];

		if (e->type != SESSION_EV_TRANSCRIPT || md_repeated(xv, i))
			continue;
		fprintf(out, "%u. %s%s%s\n", ++nlines, e->who && strcmp(e->who, "agent") ?
			e->who : "", e->who && strcmp(e->who, "agent") ? ": " : "",
			e->text ? e->text : "");
	}
	if (!nlines)
		for (unsigned i = 0; i < xv->nlines; i++)
			fprintf(out, "%u. %s\n", ++nlines, xv->lines[i]);
	if (!nlines)
		fprintf(out, "None recorded.\n");
	fputc('\n', out);

	fprintf(out, "## Steps\n\n");
	for (size_t i = 0; l && i < xv->nev; i++) {
		const struct session_event *e = &l->ev[i];
		char text[1024];

		if (e->type != SESSION_EV_PROPOSAL && e->type != SESSION_EV_DECISION &&
		    e->type != SESSION_EV_STEP_RESULT)
			continue;
		if (e->type == SESSION_EV_PROPOSAL) {
			nsteps++;
			/* one heading a step number: a vetoed proposal and the
			 * next one (the same number, nothing ran) share it */
			if (e->step != heading)
				fprintf(out, "%s### Step %u\n\n", heading ? "\n" : "", e->step);
			heading = e->step;
		}
		fprintf(out, "- %s\n", source_replay_event_text(e, text, sizeof(text)));
		if (e->type == SESSION_EV_PROPOSAL) {
			unsigned same = 0;

			for (unsigned k = 1; k < e->nlines; k++) {
				if (md_line_seen(xv, i, k)) {
					same++;
					continue;
				}
				fprintf(out, "  - %s\n", e->lines[k]);
			}
			if (same)
				fprintf(out, "  - (%u line%s of the descent as in an earlier step)\n",
					same, same == 1 ? "" : "s");
		}
		if (e->type == SESSION_EV_DECISION && e->edited_json)
			fprintf(out, "  - edited spec: `%s`\n", e->edited_json);
	}
	if (!nsteps)
		fprintf(out, "No instrumentation steps: the verdict rests on the calibration "
			"sampling alone.\n");
	else
		md_steps_tally(out, xv);
	fputc('\n', out);

	if (l) {
		unsigned nn = 0;

		for (size_t i = 0; i < xv->nev; i++)
			if (l->ev[i].type == SESSION_EV_NOTE && !md_warning(&l->ev[i]))
				nn++;
		if (nn || l->nnotes) {
			fprintf(out, "## Notes\n\n");
			for (size_t i = 0; i < xv->nev; i++)
				if (l->ev[i].type == SESSION_EV_NOTE && !md_warning(&l->ev[i]))
					fprintf(out, "- %s\n", l->ev[i].text ? l->ev[i].text : "");
			for (unsigned i = 0; i < l->nnotes; i++)
				fprintf(out, "- %s\n", l->notes[i]);
			fputc('\n', out);
		}
	}
	return fflush(out) || ferror(out) ? -EIO : 0;
}
