/* verdict_json — the JSON form of a verdict, shared by diagnose, diff and
 * session files (declared in verdict.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/util.h"
#include "data/step_data.h"
#include "data/verdict.h"

/* cJSON prints NaN and infinities as null; say so explicitly. */
static cJSON *num(double d)
{
	return isfinite(d) ? cJSON_CreateNumber(d) : cJSON_CreateNull();
}

static cJSON *branch_json(const struct verdict_branch *b)
{
	cJSON *o = cJSON_CreateObject(), *a;
	int ok = o != NULL;

	if (!ok)
		return NULL;
	if (b->process)
		ok &= cJSON_AddStringToObject(o, "process", b->process) != NULL;
	ok &= cJSON_AddStringToObject(o, "subsystem", b->subsystem) != NULL;
	ok &= cJSON_AddStringToObject(o, "time", b->time) != NULL;
	a = cJSON_AddArrayToObject(o, "path");
	ok &= a != NULL;
	for (unsigned i = 0; a && i < b->npath; i++)
		ok &= cJSON_AddItemToArray(a, cJSON_CreateString(b->path[i] ? b->path[i] : ""));
	if (b->npath)
		ok &= cJSON_AddStringToObject(o, "leaf", b->path[b->npath - 1]) != NULL;
	else
		ok &= cJSON_AddNullToObject(o, "leaf") != NULL;
	ok &= cJSON_AddItemToObject(o, "delta", num(b->delta));
	ok &= cJSON_AddItemToObject(o, "mass", num(b->mass));
	ok &= cJSON_AddItemToObject(o, "share", num(b->share));
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

static int branches_json(cJSON *o, const char *key, const struct verdict_branch *b, unsigned n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);

	if (!a)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		cJSON *x = branch_json(&b[i]);

		if (!x || !cJSON_AddItemToArray(a, x)) {
			cJSON_Delete(x);
			return -ENOMEM;
		}
	}
	return 0;
}

/* "convergence": {"function","rise","callers":[{"caller","mass","share"}]}
 * (issue 23), only when the increase converged */
static int convergence_json(cJSON *o, const struct verdict *v)
{
	cJSON *c, *a;

	if (!v->convergence)
		return 0;
	c = cJSON_AddObjectToObject(o, "convergence");
	if (!c || !cJSON_AddStringToObject(c, "function", v->convergence) ||
	    !cJSON_AddItemToObject(c, "rise", num(v->convergence_rise)))
		return -ENOMEM;
	a = cJSON_AddArrayToObject(c, "callers");
	if (!a)
		return -ENOMEM;
	for (unsigned i = 0; i < v->ncallers; i++) {
		cJSON *x = cJSON_CreateObject();

		if (!x || !cJSON_AddItemToArray(a, x) ||
		    !cJSON_AddStringToObject(x, "caller", v->callers[i].name) ||
		    !cJSON_AddItemToObject(x, "mass", num(v->callers[i].mass)) ||
		    !cJSON_AddItemToObject(x, "share", num(v->callers[i].share)))
			return -ENOMEM;
	}
	return 0;
}

/* reads "convergence" back (replay); absent: none */
static int get_convergence(const cJSON *o, struct verdict *v, char **cause)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "convergence"), *f, *a, *e;

	if (!c)
		return 0;
	f = cJSON_GetObjectItemCaseSensitive(c, "function");
	a = cJSON_GetObjectItemCaseSensitive(c, "callers");
	if (!cJSON_IsObject(c) || !cJSON_IsString(f) || (a && !cJSON_IsArray(a)))
		return util_fail(cause, -EINVAL, "verdict: 'convergence' needs a string 'function' and an array 'callers'");
	v->convergence = strdup(f->valuestring);
	if (!v->convergence)
		return -ENOMEM;
	e = cJSON_GetObjectItemCaseSensitive(c, "rise");
	v->convergence_rise = cJSON_IsNumber(e) ? e->valuedouble : NAN;
	cJSON_ArrayForEach(e, a) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(e, "caller");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(e, "mass");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "share");

		if (!cJSON_IsString(n))
			return util_fail(cause, -EINVAL, "verdict: convergence.callers[%u] has no 'caller'",
					 v->ncallers);
		if (verdict_caller_add(v, n->valuestring, cJSON_IsNumber(m) ? m->valuedouble : NAN,
				       cJSON_IsNumber(s) ? s->valuedouble : NAN))
			return -ENOMEM;
	}
	return 0;
}

/* "phase": {"from_window","windows","earlier"} (issue 23 item 4), only
 * when the load changed character while measured and the verdict is its
 * later phase's */
static int phase_json(cJSON *o, const struct verdict *v)
{
	cJSON *c;

	if (!v->phase_earlier)
		return 0;
	c = cJSON_AddObjectToObject(o, "phase");
	if (!c || !cJSON_AddNumberToObject(c, "from_window", v->phase_from_win) ||
	    !cJSON_AddNumberToObject(c, "windows", v->phase_windows) ||
	    !cJSON_AddStringToObject(c, "earlier", v->phase_earlier))
		return -ENOMEM;
	return 0;
}

/* reads "phase" back (replay); absent: steady */
static int get_phase(const cJSON *o, struct verdict *v, char **cause)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "phase"), *f, *n, *e;

	if (!c)
		return 0;
	f = cJSON_GetObjectItemCaseSensitive(c, "from_window");
	n = cJSON_GetObjectItemCaseSensitive(c, "windows");
	e = cJSON_GetObjectItemCaseSensitive(c, "earlier");
	if (!cJSON_IsObject(c) || !cJSON_IsNumber(f) || !cJSON_IsNumber(n) || !cJSON_IsString(e) ||
	    !(f->valuedouble >= 1) || !(n->valuedouble > f->valuedouble) || n->valuedouble > 1e6)
		return util_fail(cause, -EINVAL, "verdict: 'phase' needs 'from_window' >= 1 below "
				 "'windows' and a string 'earlier'");
	v->phase_from_win = (unsigned)f->valuedouble;
	v->phase_windows = (unsigned)n->valuedouble;
	v->phase_earlier = strdup(e->valuestring);
	return v->phase_earlier ? 0 : -ENOMEM;
}

/* "call_sites": [{"site","frames","rise","share"}] (issue 27), only when
 * the profile had user frames; site is the leaf-first line people read */
static int callsites_json(cJSON *o, const struct verdict *v)
{
	cJSON *a;

	if (!v->ncallsites)
		return 0;
	a = cJSON_AddArrayToObject(o, "call_sites");
	if (!a)
		return -ENOMEM;
	for (unsigned i = 0; i < v->ncallsites; i++) {
		const struct verdict_callsite *c = &v->callsites[i];
		cJSON *x = cJSON_CreateObject(), *f;
		char site[512];

		verdict_callsite_format(c, 6, site, sizeof(site));
		if (!x || !cJSON_AddItemToArray(a, x) || !cJSON_AddStringToObject(x, "site", site) ||
		    !(f = cJSON_AddArrayToObject(x, "frames")) ||
		    !cJSON_AddItemToObject(x, "rise", num(c->rise)) ||
		    !cJSON_AddItemToObject(x, "share", num(c->share)))
			return -ENOMEM;
		for (unsigned k = 0; k < c->nframes; k++)
			if (!cJSON_AddItemToArray(f, cJSON_CreateString(c->frames[k])))
				return -ENOMEM;
	}
	return 0;
}

/* reads "call_sites" back (replay); absent: none */
static int get_callsites(const cJSON *o, struct verdict *v, char **cause)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "call_sites"), *e;

	if (!a)
		return 0;
	if (!cJSON_IsArray(a))
		return util_fail(cause, -EINVAL, "verdict: 'call_sites' is not an array");
	cJSON_ArrayForEach(e, a) {
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(e, "frames"), *x;
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(e, "rise");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "share");
		const char *fr[256];
		unsigned n = 0;

		if (!cJSON_IsArray(f) || cJSON_GetArraySize(f) > 256)
			return util_fail(cause, -EINVAL, "verdict: call_sites[%u] needs an array "
					 "'frames' of at most 256", v->ncallsites);
		cJSON_ArrayForEach(x, f) {
			if (!cJSON_IsString(x))
				return util_fail(cause, -EINVAL, "verdict: call_sites[%u]: a frame "
						 "is not a string", v->ncallsites);
			fr[n++] = x->valuestring;
		}
		if (verdict_callsite_add(v, fr, n, cJSON_IsNumber(r) ? r->valuedouble : NAN,
					 cJSON_IsNumber(s) ? s->valuedouble : NAN))
			return -ENOMEM;
	}
	return 0;
}

/* Where the call sites came from ("call_sites_source": "sampler" or
 * "step", "call_sites_step": N) and what they could not see
 * ("ustack_errors": counted without a user stack; "ustack_samples": the
 * sampler's samples, its denominator): a found verdict's, 0 included, so
 * that a reader tells "none missing" from "not counted" (an old session:
 * the fields absent). */
static int ustack_json(cJSON *o, const struct verdict *v)
{
	if (!v->found)
		return 0;
	if (v->ncallsites &&
	    (!cJSON_AddStringToObject(o, "call_sites_source", v->callsites_step ? "step" : "sampler") ||
	     !cJSON_AddStringToObject(o, "call_sites_unit", verdict_callsites_unit(v)) ||
	     (v->callsites_step &&
	      !cJSON_AddNumberToObject(o, "call_sites_step", v->callsites_step))))
		return -ENOMEM;
	if (!cJSON_AddNumberToObject(o, "ustack_errors", (double)v->callsites_ustack_errors) ||
	    (v->callsites_samples &&
	     !cJSON_AddNumberToObject(o, "ustack_samples", (double)v->callsites_samples)))
		return -ENOMEM;
	return 0;
}

static int get_num(const cJSON *o, const char *k, double fallback, double *out, char **cause);
static int get_count(const cJSON *o, const char *k, unsigned *out, char **cause);

/* reads them back; absent (an older session): 0 */
static int get_ustack(const cJSON *o, struct verdict *v, char **cause)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "call_sites_unit");
	double e = 0, s = 0;
	int err;

	if ((err = get_count(o, "call_sites_step", &v->callsites_step, cause)) ||
	    (err = get_num(o, "ustack_errors", 0, &e, cause)) ||
	    (err = get_num(o, "ustack_samples", 0, &s, cause)))
		return err;
	if (!(e >= 0 && e < 1.8e19 && s >= 0 && s < 1.8e19))
		return util_fail(cause, -EINVAL, "verdict: 'ustack_errors' or 'ustack_samples' is not a count");
	v->callsites_ustack_errors = (uint64_t)e;
	v->callsites_samples = (uint64_t)s;
	/* the unit of the rises, one of the profiles' (it is shown as it
	 * is); absent (an older session): the sampler's samples, a step's
	 * events */
	if (u && !step_data_unit_known(cJSON_GetStringValue(u)))
		return util_fail(cause, -EINVAL, "verdict: 'call_sites_unit' is not one of samples, "
				 "events, us blocked, intervals");
	snprintf(v->callsites_unit, sizeof(v->callsites_unit), "%s",
		 u && strcmp(u->valuestring, STEP_UNIT_SAMPLES) ? u->valuestring
		 : !u && v->callsites_step ? STEP_UNIT_EVENTS : "");
	return 0;
}

int verdict_json_add_paths(cJSON *o, const struct verdict *v)
{
	if (convergence_json(o, v) || callsites_json(o, v) || ustack_json(o, v) ||
	    phase_json(o, v))
		return -ENOMEM;
	if (!cJSON_AddStringToObject(o, "time", v->time) ||
	    !cJSON_AddItemToObject(o, "rise", num(v->rise)))
		return -ENOMEM;
	if (v->waker[0] && (!cJSON_AddStringToObject(o, "waker", v->waker) ||
			    !cJSON_AddStringToObject(o, "waker_class", v->waker_class)))
		return -ENOMEM;
	if (v->nbranches && branches_json(o, "branches", v->branches, v->nbranches))
		return -ENOMEM;
	if (branches_json(o, "falls", v->falls, v->nfalls) ||
	    branches_json(o, "displaced", v->displaced, v->ndisplaced))
		return -ENOMEM;
	return 0;
}

cJSON *verdict_json_new(const struct verdict *v)
{
	cJSON *o = cJSON_CreateObject(), *a, *ev;
	int ok = o != NULL;

	if (!ok)
		return NULL;
	ok &= cJSON_AddBoolToObject(o, "found", v->found != 0) != NULL;
	ok &= cJSON_AddStringToObject(o, "subsystem", v->subsystem) != NULL;
	a = cJSON_AddArrayToObject(o, "path");
	ok &= a != NULL;
	for (unsigned i = 0; a && i < v->npath && i < VERDICT_MAX_PATH; i++)
		ok &= cJSON_AddItemToArray(a, cJSON_CreateString(v->path[i] ? v->path[i] : ""));
	if (v->leaf)
		ok &= cJSON_AddStringToObject(o, "leaf", v->leaf) != NULL;
	else
		ok &= cJSON_AddNullToObject(o, "leaf") != NULL;
	ok &= cJSON_AddItemToObject(o, "confidence", num(v->confidence));
	ok &= cJSON_AddStringToObject(o, "summary", v->summary ? v->summary : "") != NULL;
	ev = cJSON_AddObjectToObject(o, "evidence");
	ok &= ev != NULL;
	if (ev) {
		ok &= cJSON_AddItemToObject(ev, "rate_ref", num(v->rate_ref));
		ok &= cJSON_AddItemToObject(ev, "rate_load", num(v->rate_load));
		ok &= cJSON_AddItemToObject(ev, "delta", num(v->delta));
		ok &= cJSON_AddItemToObject(ev, "ratio", num(v->ratio));
		ok &= cJSON_AddItemToObject(ev, "q", num(v->q));
		ok &= cJSON_AddNumberToObject(ev, "pairs", v->pairs) != NULL;
		ok &= cJSON_AddNumberToObject(ev, "pairs_agree", v->pairs_agree) != NULL;
		ok &= cJSON_AddItemToObject(ev, "share_of_root", num(v->share_of_root));
	}
	a = cJSON_AddArrayToObject(o, "notes");
	ok &= a != NULL;
	for (unsigned i = 0; a && i < v->nnotes; i++)
		ok &= cJSON_AddItemToArray(a, cJSON_CreateString(v->notes[i] ? v->notes[i] : ""));
	ok &= verdict_json_add_paths(o, v) == 0;
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* A number field; null reads as fallback (ratio: infinite), absent as 0. */
static int get_num(const cJSON *o, const char *k, double fallback, double *out, char **cause)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!x) {
		*out = 0;
		return 0;
	}
	if (cJSON_IsNull(x)) {
		*out = fallback;
		return 0;
	}
	if (!cJSON_IsNumber(x))
		return util_fail(cause, -EINVAL, "verdict: '%s' is not a number", k);
	*out = x->valuedouble;
	return 0;
}

static int get_count(const cJSON *o, const char *k, unsigned *out, char **cause)
{
	double d = 0;
	int err = get_num(o, k, 0, &d, cause);
	if (err)
		return err;
	if (!(d >= 0 && d <= 4294967295.0))
		return util_fail(cause, -EINVAL, "verdict: '%s' is out of range", k);
	*out = (unsigned)d;
	return 0;
}

static char *dup_str(const cJSON *x)
{
	return strdup(x->valuestring);
}

static int get_label(const cJSON *o, const char *k, char *out, size_t len, char **cause)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);

	if (x && !cJSON_IsString(x))
		return util_fail(cause, -EINVAL, "verdict: '%s' is not a string", k);
	if (x)
		snprintf(out, len, "%s", x->valuestring);
	return 0;
}

/* an array of branch objects under key; absent is none */
static int get_branches(const cJSON *o, const char *key, struct verdict_branch **list,
			unsigned *n, char **cause)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, key), *e, *f;
	unsigned i = 0;
	int err;

	if (!x)
		return 0;
	if (!cJSON_IsArray(x))
		return util_fail(cause, -EINVAL, "verdict: '%s' is not an array", key);
	cJSON_ArrayForEach(e, x) {
		struct verdict_branch b = { 0 };
		char *path[VERDICT_MAX_PATH];
		const cJSON *p;

		if (!cJSON_IsObject(e))
			return util_fail(cause, -EINVAL, "verdict: %s[%u] is not an object", key, i);
		p = cJSON_GetObjectItemCaseSensitive(e, "process");
		if (p && !cJSON_IsString(p) && !cJSON_IsNull(p))
			return util_fail(cause, -EINVAL, "verdict: %s[%u].process is not a string", key, i);
		b.process = p && cJSON_IsString(p) ? p->valuestring : NULL;
		if ((err = get_label(e, "subsystem", b.subsystem, sizeof(b.subsystem), cause)) ||
		    (err = get_label(e, "time", b.time, sizeof(b.time), cause)) ||
		    (err = get_num(e, "delta", NAN, &b.delta, cause)) ||
		    (err = get_num(e, "mass", NAN, &b.mass, cause)) ||
		    (err = get_num(e, "share", NAN, &b.share, cause)))
			return err;
		p = cJSON_GetObjectItemCaseSensitive(e, "path");
		if (p && !cJSON_IsArray(p))
			return util_fail(cause, -EINVAL, "verdict: %s[%u].path is not an array", key, i);
		cJSON_ArrayForEach(f, p) {
			if (!cJSON_IsString(f) || b.npath >= VERDICT_MAX_PATH)
				return util_fail(cause, -EINVAL, "verdict: %s[%u].path holds a non-string or is "
					   "too long", key, i);
			path[b.npath++] = f->valuestring;
		}
		b.path = path;
		if (verdict_branch_add(list, n, &b))
			return util_fail(cause, -ENOMEM, "verdict: out of memory");
		i++;
	}
	return 0;
}

int verdict_json_parse(const cJSON *o, struct verdict *v, char **cause)
{
	const cJSON *x, *ev, *e;
	int err = -EINVAL;

	memset(v, 0, sizeof(*v));
	if (!cJSON_IsObject(o))
		return util_fail(cause, -EINVAL, "verdict: not a JSON object");
	x = cJSON_GetObjectItemCaseSensitive(o, "found");
	if (x && !cJSON_IsBool(x) && !cJSON_IsNumber(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'found' is not a boolean");
		goto fail;
	}
	v->found = x ? (cJSON_IsBool(x) ? cJSON_IsTrue(x) : x->valuedouble != 0) : 0;
	x = cJSON_GetObjectItemCaseSensitive(o, "subsystem");
	if (x && !cJSON_IsString(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'subsystem' is not a string");
		goto fail;
	}
	if (x)
		snprintf(v->subsystem, sizeof(v->subsystem), "%s", x->valuestring);
	x = cJSON_GetObjectItemCaseSensitive(o, "path");
	if (x && !cJSON_IsArray(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'path' is not an array");
		goto fail;
	}
	cJSON_ArrayForEach(e, x) {
		if (!cJSON_IsString(e)) {
			err = util_fail(cause, -EINVAL, "verdict: path[%u] is not a string", v->npath);
			goto fail;
		}
		if (v->npath >= VERDICT_MAX_PATH) {
			err = util_fail(cause, -EINVAL, "verdict: path longer than %d frames", VERDICT_MAX_PATH);
			goto fail;
		}
		if (!(v->path[v->npath] = dup_str(e)))
			goto nomem;
		v->npath++;
	}
	x = cJSON_GetObjectItemCaseSensitive(o, "leaf");
	if (x && !cJSON_IsString(x) && !cJSON_IsNull(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'leaf' is not a string");
		goto fail;
	}
	if (x && cJSON_IsString(x) && !(v->leaf = dup_str(x)))
		goto nomem;
	x = cJSON_GetObjectItemCaseSensitive(o, "summary");
	if (x && !cJSON_IsString(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'summary' is not a string");
		goto fail;
	}
	if (x && !(v->summary = dup_str(x)))
		goto nomem;
	if ((err = get_num(o, "confidence", NAN, &v->confidence, cause)))
		goto fail;
	ev = cJSON_GetObjectItemCaseSensitive(o, "evidence");
	if (ev && !cJSON_IsObject(ev)) {
		err = util_fail(cause, -EINVAL, "verdict: 'evidence' is not an object");
		goto fail;
	}
	if (ev) {
		if ((err = get_num(ev, "rate_ref", NAN, &v->rate_ref, cause)) ||
		    (err = get_num(ev, "rate_load", NAN, &v->rate_load, cause)) ||
		    (err = get_num(ev, "delta", NAN, &v->delta, cause)) ||
		    (err = get_num(ev, "ratio", INFINITY, &v->ratio, cause)) ||
		    (err = get_num(ev, "q", NAN, &v->q, cause)) ||
		    (err = get_count(ev, "pairs", &v->pairs, cause)) ||
		    (err = get_count(ev, "pairs_agree", &v->pairs_agree, cause)) ||
		    (err = get_num(ev, "share_of_root", NAN, &v->share_of_root, cause)))
			goto fail;
	}
	if ((err = get_label(o, "time", v->time, sizeof(v->time), cause)) ||
	    (err = get_label(o, "waker", v->waker, sizeof(v->waker), cause)) ||
	    (err = get_label(o, "waker_class", v->waker_class, sizeof(v->waker_class), cause)) ||
	    (err = get_num(o, "rise", NAN, &v->rise, cause)) ||
	    (err = get_branches(o, "branches", &v->branches, &v->nbranches, cause)) ||
	    (err = get_branches(o, "falls", &v->falls, &v->nfalls, cause)) ||
	    (err = get_branches(o, "displaced", &v->displaced, &v->ndisplaced, cause)) ||
	    (err = get_convergence(o, v, cause)) || (err = get_callsites(o, v, cause)) ||
	    (err = get_ustack(o, v, cause)) || (err = get_phase(o, v, cause)))
		goto fail;
	x = cJSON_GetObjectItemCaseSensitive(o, "notes");
	if (x && !cJSON_IsArray(x)) {
		err = util_fail(cause, -EINVAL, "verdict: 'notes' is not an array");
		goto fail;
	}
	cJSON_ArrayForEach(e, x) {
		if (!cJSON_IsString(e)) {
			err = util_fail(cause, -EINVAL, "verdict: notes[%u] is not a string", v->nnotes);
			goto fail;
		}
		if (verdict_add_note(v, "%s", e->valuestring))
			goto nomem;
	}
	return 0;
nomem:
	err = -ENOMEM;
	util_fail(cause, -EINVAL, "verdict: out of memory");
fail:
	verdict_clear(v);
	return err;
}

int verdict_json_report(FILE *out, const struct verdict *v, char *const *lines,
			unsigned nlines, const char *steps_json, double elapsed_s)
{
	cJSON *o = cJSON_CreateObject(), *vj = verdict_json_new(v), *a, *steps = NULL;
	char *text = NULL;
	int err = -ENOMEM;

	if (!o || !vj)
		goto out;
	cJSON_AddItemToObject(o, "verdict", vj);
	vj = NULL;
	a = cJSON_AddArrayToObject(o, "decisions");
	if (!a)
		goto out;
	for (unsigned i = 0; i < nlines; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(lines[i] ? lines[i] : ""));
	steps = steps_json ? cJSON_Parse(steps_json) : cJSON_CreateArray();
	if (!steps) {
		err = steps_json ? -EINVAL : -ENOMEM;
		goto out;
	}
	cJSON_AddItemToObject(o, "steps", steps);
	cJSON_AddItemToObject(o, "elapsed_s", num(elapsed_s));
	text = cJSON_PrintUnformatted(o);
	if (!text)
		goto out;
	err = fprintf(out, "%s\n", text) < 0 || fflush(out) ? -EIO : 0;
out:
	free(text);
	cJSON_Delete(vj);
	cJSON_Delete(o);
	return err;
}
