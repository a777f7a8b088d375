/* step_json — a step's results as JSON (see step_json.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "step/step_json.h"
#include "analysis/step_merge.h"

static void sj_num(cJSON *o, const char *k, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *sj_pair(double ref, double load)
{
	cJSON *o = cJSON_CreateObject();

	sj_num(o, "ref", ref);
	sj_num(o, "load", load);
	return o;
}

struct sj_top {
	const struct profile_stack *st;
	uint64_t n;
};

static int sj_top_cmp(const void *a, const void *b)
{
	const struct sj_top *x = a, *y = b;

	return (x->n < y->n) - (x->n > y->n);
}

/* The STEP_JSON_TOP_STACKS stacks with the most counts in condition c. */
static cJSON *sj_stacks(const struct step_data *d, enum cond c)
{
	const struct profile *p = d->prof;
	cJSON *arr = cJSON_CreateArray();
	struct sj_top *v = calloc(p->nstacks + 1, sizeof(*v));
	double secs = profile_cond_secs(p, c);
	size_t n = 0;

	if (!v)
		return arr;
	for (size_t i = 0; i < p->nstacks; i++) {
		uint64_t k = 0;

		for (unsigned w = 0; w < p->nwin; w++)
			if (p->wins[w].cond == c)
				k += p->stacks[i].win[w];
		if (k) {
			v[n].st = &p->stacks[i];
			v[n++].n = k;
		}
	}
	qsort(v, n, sizeof(*v), sj_top_cmp);
	for (size_t i = 0; i < n && i < STEP_JSON_TOP_STACKS; i++) {
		cJSON *o = cJSON_CreateObject(), *fr = cJSON_AddArrayToObject(o, "frames");

		for (uint32_t f = 0; f < v[i].st->nframes; f++)
			cJSON_AddItemToArray(fr, cJSON_CreateString(v[i].st->frames[f]));
		cJSON_AddNumberToObject(o, "count", (double)v[i].n);
		sj_num(o, "rate", secs > 0 ? v[i].n / secs : 0);
		if (v[i].st->comm && *v[i].st->comm)
			cJSON_AddStringToObject(o, "comm", v[i].st->comm);
		cJSON_AddItemToArray(arr, o);
	}
	free(v);
	return arr;
}

static void sj_data(cJSON *o, const struct step *s, const struct step_data *d)
{
	struct step_target_result *r = NULL;
	cJSON *wins, *tg, *st;
	int n;

	cJSON_AddStringToObject(o, "unit", d->unit ? d->unit : "events");
	wins = cJSON_AddArrayToObject(o, "windows");
	for (unsigned w = 0; w < d->nwin; w++) {
		cJSON *jw = cJSON_CreateObject(), *ev = cJSON_AddArrayToObject(jw, "events");

		cJSON_AddStringToObject(jw, "cond", cond_name(d->prof->wins[w].cond));
		sj_num(jw, "secs", d->prof->wins[w].secs);
		for (unsigned t = 0; t < d->ntargets; t++)
			cJSON_AddItemToArray(ev, cJSON_CreateNumber(
				(double)step_data_target((struct step_data *)d, w, t)->events));
		/* events counted without their user stack (issue 27): in no
		 * call site of this step's */
		cJSON_AddNumberToObject(jw, "ustack_errors", (double)d->prof->wins[w].ustack_errors);
		cJSON_AddItemToArray(wins, jw);
	}
	tg = cJSON_AddArrayToObject(o, "targets");
	n = step_results(s, d, 0.05, &r);
	for (int i = 0; i < n; i++) {
		cJSON *jt = cJSON_CreateObject();

		cJSON_AddStringToObject(jt, "name", r[i].name);
		cJSON_AddItemToObject(jt, "events", sj_pair((double)r[i].events[COND_REF],
							     (double)r[i].events[COND_LOAD]));
		cJSON_AddItemToObject(jt, "rate", sj_pair(r[i].rate[COND_REF], r[i].rate[COND_LOAD]));
		sj_num(jt, "delta", r[i].delta);
		sj_num(jt, "ratio", r[i].ratio);
		sj_num(jt, "p", r[i].p);
		sj_num(jt, "q", r[i].q);
		cJSON_AddBoolToObject(jt, "significant", r[i].significant);
		cJSON_AddNumberToObject(jt, "pairs", r[i].pairs);
		cJSON_AddNumberToObject(jt, "pairs_agree", r[i].pairs_agree);
		if (r[i].has_lat) {
			cJSON *jl = cJSON_AddObjectToObject(jt, "latency");

			cJSON_AddItemToObject(jl, "intervals",
					      sj_pair((double)r[i].intervals[COND_REF],
						      (double)r[i].intervals[COND_LOAD]));
			cJSON_AddItemToObject(jl, "p50_ns", sj_pair(r[i].p50_ns[COND_REF],
								    r[i].p50_ns[COND_LOAD]));
			cJSON_AddItemToObject(jl, "p99_ns", sj_pair(r[i].p99_ns[COND_REF],
								    r[i].p99_ns[COND_LOAD]));
			sj_num(jl, "p", r[i].lat_p);
			cJSON_AddBoolToObject(jl, "significant", r[i].lat_significant);
		}
		cJSON_AddItemToArray(tg, jt);
	}
	free(r);
	st = cJSON_AddObjectToObject(o, "stacks");
	cJSON_AddItemToObject(st, "ref", sj_stacks(d, COND_REF));
	cJSON_AddItemToObject(st, "load", sj_stacks(d, COND_LOAD));
	cJSON_AddNumberToObject(o, "lost", (double)d->lost);
}

char *step_report_json(const struct step_report *r)
{
	cJSON *o = cJSON_CreateObject(), *spec = NULL, *res;
	char *js, *out = NULL, *sum = NULL;

	if (!o || !r || !r->s) {
		cJSON_Delete(o);
		errno = EINVAL;
		return NULL;
	}
	cJSON_AddNumberToObject(o, "index", r->index);
	if (r->decision)
		cJSON_AddStringToObject(o, "decision", r->decision);
	js = step_to_json(r->s);
	if (js)
		spec = cJSON_Parse(js);
	free(js);
	if (spec)
		cJSON_AddItemToObject(o, "spec", spec);
	res = cJSON_AddArrayToObject(o, "resolved");
	for (unsigned i = 0; i < r->s->nresolved; i++)
		cJSON_AddItemToArray(res, cJSON_CreateString(r->s->resolved[i]));
	if (r->pf) {
		cJSON *p = cJSON_AddObjectToObject(o, "preflight");

		cJSON_AddBoolToObject(p, "ok", r->pf->ok);
		if (r->pf->ok) {
			sj_num(p, "secs", r->pf->secs);
			sj_num(p, "rate", r->pf->rate);
			cJSON_AddNumberToObject(p, "events", (double)r->pf->events);
			cJSON_AddNumberToObject(p, "lost", (double)r->pf->lost);
			if (r->pf->overhead_pct >= 0)
				sj_num(p, "overhead_pct", r->pf->overhead_pct);
			else
				cJSON_AddNullToObject(p, "overhead_pct");
		}
		if (r->pf->cause)
			cJSON_AddStringToObject(p, "cause", r->pf->cause);
	}
	if (r->info) {
		cJSON *ov;

		cJSON_AddStringToObject(o, "state", step_exec_state_name(r->info->state));
		cJSON_AddStringToObject(o, "reason", r->info->reason);
		cJSON_AddNumberToObject(o, "pairs", r->info->pairs);
		if (r->info->stopping[0]) {
			cJSON *jst = cJSON_AddObjectToObject(o, "stopping");

			cJSON_AddStringToObject(jst, "reason", r->info->stopping);
			cJSON_AddNumberToObject(jst, "pairs", r->info->windows / 2);
			cJSON_AddBoolToObject(jst, "settled", r->info->settled);
		}
		sj_num(o, "window_s", r->info->window_s);
		sj_num(o, "settle_s", r->info->settle_s);
		sj_num(o, "elapsed_s", r->info->elapsed_s);
		ov = cJSON_AddObjectToObject(o, "overhead");
		if (r->info->overhead_pct >= 0) {
			sj_num(ov, "pct", r->info->overhead_pct);
			sj_num(ov, "max_pct", r->info->overhead_max_pct);
		} else {
			cJSON_AddNullToObject(ov, "pct");
			cJSON_AddNullToObject(ov, "max_pct");
		}
		sj_num(ov, "budget_pct", r->info->budget_pct);
		cJSON_AddNumberToObject(ov, "run_ns", (double)r->info->run_ns);
		cJSON_AddNumberToObject(ov, "run_cnt", (double)r->info->run_cnt);
		cJSON_AddNumberToObject(ov, "progs", r->info->progs);
		/* the duty cycle: what part of each window was measured, and why */
		if (r->info->duty > 0) {
			sj_num(ov, "duty", r->info->duty);
			sj_num(ov, "duty_start", r->info->duty_start);
			if (r->info->attached_pct >= 0)
				sj_num(ov, "attached_pct", r->info->attached_pct);
			if (r->info->duty_note[0])
				cJSON_AddStringToObject(ov, "duty_note", r->info->duty_note);
		}
	}
	if (r->d)
		sj_data(o, r->s, r->d);
	if (r->summary)
		cJSON_AddStringToObject(o, "summary", r->summary);
	else if (r->d && (sum = step_summary(r->s, r->d, 1)))
		cJSON_AddStringToObject(o, "summary", sum);
	free(sum);
	out = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!out)
		errno = ENOMEM;
	return out;
}

char *step_report_array(char *const *entries, unsigned n)
{
	size_t len = 3;
	char *s, *p;

	for (unsigned i = 0; i < n; i++)
		len += strlen(entries[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	p = s;
	*p++ = '[';
	for (unsigned i = 0; i < n; i++) {
		size_t l = strlen(entries[i]);

		if (i)
			*p++ = ',';
		memcpy(p, entries[i], l);
		p += l;
	}
	*p++ = ']';
	*p = 0;
	return s;
}
