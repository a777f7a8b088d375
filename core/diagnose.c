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

int diagnose_run(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		 struct diagnose_result *r, char **cause)
{
	struct agent_reply reply = { 0 };
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
	cJSON_AddArrayToObject(o, "steps");
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
		opt = cJSON_AddObjectToObject(o, "options");
		cJSON_AddNumberToObject(opt, "pairs", info->pairs);
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
