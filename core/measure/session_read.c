/* session_read — the session reader: a file back into a struct
 * session_log (events, per-step profiles); the format is in session.h and
 * tests/data/SESSION-FORMAT.md. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "base/vec.h"
#include "base/json_safe.h"
#include "base/sanitize.h"
#include "measure/session.h"
#include "measure/session_priv.h"
#include "base/util.h"

struct rd {
	const char *name;
	unsigned line;
	struct session_log *log;
	char **cause;
	struct {
		char name[32];
		unsigned count, first;
	} unknown[8];
	unsigned nunknown, unknown_other;
};

static int add_note(struct session_log *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int add_note(struct session_log *l, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = util_lines_vadd(&l->notes, &l->nnotes, fmt, ap);
	va_end(ap);
	return err;
}

/* String member, or NULL (also when of another type: *bad set). */
static const char *get_str(const cJSON *o, const char *k, int *bad)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!x || cJSON_IsNull(x))
		return NULL;
	if (!cJSON_IsString(x)) {
		*bad = 1;
		return NULL;
	}
	return x->valuestring;
}

static int dup_opt(char **dst, const char *s)
{
	if (!s)
		return 0;
	*dst = strdup(s);
	return *dst ? 0 : -ENOMEM;
}

/* Compact JSON of member k, or NULL when absent or null. */
static int dup_json(char **dst, const cJSON *o, const char *k)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!x || cJSON_IsNull(x))
		return 0;
	*dst = cJSON_PrintUnformatted(x);
	return *dst ? 0 : -ENOMEM;
}

/* A non-negative integer member (absent: *out = dflt). */
static int get_uint(const cJSON *o, const char *k, double max, uint64_t dflt, uint64_t *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!x) {
		*out = dflt;
		return 0;
	}
	if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > max ||
	    x->valuedouble != floor(x->valuedouble))
		return -EINVAL;
	*out = (uint64_t)x->valuedouble;
	return 0;
}

static int get_double(const cJSON *o, const char *k, double dflt, double *out)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!x || cJSON_IsNull(x)) {
		*out = dflt;
		return 0;
	}
	if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble))
		return -EINVAL;
	*out = x->valuedouble;
	return 0;
}

static int get_lines(const cJSON *o, const char *k, char ***lines, unsigned *n)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k), *e;
	int count = 0;
	if (!x || cJSON_IsNull(x))
		return 0;
	if (!cJSON_IsArray(x))
		return -EINVAL;
	count = cJSON_GetArraySize(x);
	if (!count)
		return 0;
	*lines = calloc((size_t)count, sizeof(char *));
	if (!*lines)
		return -ENOMEM;
	cJSON_ArrayForEach(e, x) {
		if (!cJSON_IsString(e))
			return -EINVAL;
		if (!((*lines)[*n] = strdup(e->valuestring)))
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

/* The profile for step, created on first use. */
static struct profile *step_profile(struct session_log *l, unsigned step)
{
	if (step == 0) {
		if (!l->profile)
			l->profile = profile_new();
		return l->profile;
	}
	if (step >= l->nstep_profile) {
		if (step == UINT_MAX ||
		    vec_resize(&l->step_profile, (size_t)step + 1, sizeof(*l->step_profile)))
			return NULL;
		memset(l->step_profile + l->nstep_profile, 0,
		       (step + 1 - l->nstep_profile) * sizeof(*l->step_profile));
		l->nstep_profile = step + 1;
	}
	if (!l->step_profile[step])
		l->step_profile[step] = profile_new();
	return l->step_profile[step];
}

/* The "procs" of a window (identities, issue 15) into p; absent: nothing. */
static int procs_apply(const cJSON *o, struct profile *p, char **cause)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "procs"), *e;
	unsigned i = 0;

	if (!a || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return util_fail(cause, -EINVAL, "window: 'procs' is not an array");
	cJSON_ArrayForEach(e, a) {
		struct profile_ident id = { 0 };
		const cJSON *kt = cJSON_GetObjectItemCaseSensitive(e, "kthread");
		uint64_t tgid;
		int bad = 0, err;

		if (!cJSON_IsObject(e) || get_uint(e, "tgid", 4294967295.0, 0, &tgid) || !tgid)
			return util_fail(cause, -EINVAL, "window: procs[%u]: expected {\"tgid\":N,...}", i);
		id.tgid = (uint32_t)tgid;
		id.comm = get_str(e, "comm", &bad);
		id.cmdline = get_str(e, "cmdline", &bad);
		id.exe = get_str(e, "exe", &bad);
		id.cgroup = get_str(e, "cgroup", &bad);
		id.unit = get_str(e, "unit", &bad);
		id.container = get_str(e, "container", &bad);
		id.role = get_str(e, "role", &bad);
		id.threads = get_str(e, "threads", &bad);
		if (bad || (kt && !cJSON_IsBool(kt)))
			return util_fail(cause, -EINVAL, "window: procs[%u]: a field of the wrong type", i);
		id.kthread = kt && cJSON_IsTrue(kt);
		err = profile_ident_set(p, &id);
		if (err)
			return util_fail(cause, err, "window: procs[%u]: %s", i, strerror(-err));
		i++;
	}
	return 0;
}

/* The "modules" of a window (issue 27: user-space files and build-ids)
 * into p; absent (older sessions): frames keep their module names only. */
static int modules_apply(const cJSON *o, struct profile *p, char **cause)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "modules"), *e;
	unsigned i = 0;

	if (!a || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return util_fail(cause, -EINVAL, "window: 'modules' is not an array");
	cJSON_ArrayForEach(e, a) {
		const char *name, *path, *bid;
		int bad = 0, err;

		if (!cJSON_IsObject(e))
			return util_fail(cause, -EINVAL, "window: modules[%u]: expected {\"name\":...}", i);
		name = get_str(e, "name", &bad);
		path = get_str(e, "path", &bad);
		bid = get_str(e, "build_id", &bad);
		if (bad || !name || !*name)
			return util_fail(cause, -EINVAL, "window: modules[%u]: a field missing or of the wrong type", i);
		err = profile_module_set(p, name, path, bid);
		if (err)
			return util_fail(cause, err, "window: modules[%u]: %s", i, strerror(-err));
		i++;
	}
	return 0;
}

/* The "diag" of a window (the diagnosed processes, issue 11) added to p's;
 * absent (older sessions): unknown, as before. */
static int diag_apply(const cJSON *o, struct profile *p, char **cause)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(o, "diag"), *all, *a, *e;

	if (!d || cJSON_IsNull(d))
		return 0;
	all = cJSON_GetObjectItemCaseSensitive(d, "all");
	a = cJSON_GetObjectItemCaseSensitive(d, "tgids");
	if (!cJSON_IsObject(d) || (all && !cJSON_IsBool(all)) || (a && !cJSON_IsArray(a)))
		return util_fail(cause, -EINVAL, "window: 'diag' is not {\"all\":bool,\"tgids\":[...]}");
	p->diag.known = 1;
	if (all && cJSON_IsTrue(all))
		p->diag.all = 1;
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) || e->valuedouble > 4294967295.0 ||
		    e->valuedouble != floor(e->valuedouble))
			return util_fail(cause, -EINVAL, "window: diag: a tgid is not a process id");
		profile_diag_add(&p->diag, (uint32_t)e->valuedouble);
	}
	return 0;
}

/* The "kwork" of window w (the work functions the kworkers ran, by the
 * workqueue tracepoint, issue 15) into p; absent (not traced, or an older
 * session): the window is not traced, its kworkers named by their stacks. */
static int kwork_apply(const cJSON *o, struct profile *p, unsigned w, char **cause)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, "kwork"), *e;
	unsigned i = 0;

	if (!a || cJSON_IsNull(a))
		return 0;
	if (!cJSON_IsArray(a))
		return util_fail(cause, -EINVAL, "window: 'kwork' is not an array");
	p->wins[w].works_traced = 1;
	cJSON_ArrayForEach(e, a) {
		uint64_t pid, n;
		int bad = 0, err;
		const char *f = cJSON_IsObject(e) ? get_str(e, "function", &bad) : NULL;

		if (!f || bad || !*f || get_uint(e, "pid", 4294967295.0, 0, &pid) || !pid ||
		    get_uint(e, "executions", 1.8e19, 0, &n))
			return util_fail(cause, -EINVAL, "window: kwork[%u]: expected {\"pid\":N,"
					 "\"function\":\"NAME\",\"executions\":N}", i);
		err = profile_work_add(p, w, (uint32_t)pid, f, n);
		if (err)
			return util_fail(cause, err, "window: kwork[%u]: %s", i, strerror(-err));
		i++;
	}
	return 0;
}

/* Adds the window event o to p; its index must be p's next window.  Returns
 * the window index, or -errno with a message (without file:line) in cause. */
static int window_apply(const cJSON *o, struct profile *p, char **cause)
{
	const cJSON *stacks, *e;
	const char *frames_stack[64];
	const char **frames = frames_stack;
	uint64_t index, lost, uerr, count, tgid;
	double secs, start;
	int bad = 0, w, err = -EINVAL;
	const char *cs = get_str(o, "cond", &bad);
	enum cond c;

	if (!cs || bad)
		return util_fail(cause, -EINVAL, "window: 'cond' must be \"ref\" or \"load\"");
	if (!strcmp(cs, "ref"))
		c = COND_REF;
	else if (!strcmp(cs, "load"))
		c = COND_LOAD;
	else
		return util_fail(cause, -EINVAL, "window: 'cond' must be \"ref\" or \"load\", not '%.20s'", cs);
	if (get_uint(o, "index", 1e6, UINT64_MAX, &index) || index == UINT64_MAX)
		return util_fail(cause, -EINVAL, "window: 'index' missing or not a window number");
	if (index != p->nwin)
		return util_fail(cause, -EINVAL, "window: index %llu out of order (expected %u)",
			    (unsigned long long)index, p->nwin);
	if (get_double(o, "secs", 0, &secs) || secs < 0)
		return util_fail(cause, -EINVAL, "window: 'secs' is not a length in seconds");
	if (get_double(o, "start", 0, &start) || start < 0)
		return util_fail(cause, -EINVAL, "window: 'start' is not a time in seconds");
	if (get_uint(o, "lost", 1.8e19, 0, &lost))
		return util_fail(cause, -EINVAL, "window: 'lost' is not a count");
	/* absent in sessions older than the count: 0 */
	if (get_uint(o, "ustack_errors", 1.8e19, 0, &uerr))
		return util_fail(cause, -EINVAL, "window: 'ustack_errors' is not a count");
	stacks = cJSON_GetObjectItemCaseSensitive(o, "stacks");
	if (stacks && !cJSON_IsArray(stacks))
		return util_fail(cause, -EINVAL, "window: 'stacks' is not an array");
	w = profile_window_begin(p, c, start);
	if (w < 0)
		return util_fail(cause, w, "window: %s", strerror(-w));
	profile_window_end(p, (unsigned)w, secs);
	p->wins[w].lost = lost;
	p->wins[w].ustack_errors = uerr;
	unsigned si = 0;
	cJSON_ArrayForEach(e, stacks) {
		const cJSON *fr = cJSON_GetArrayItem(e, 0), *x, *f;
		const char *comm;
		unsigned nf = 0;
		const cJSON *uf = cJSON_GetArrayItem(e, 4);
		const char *uframes[SESSION_MAX_UFRAMES];
		unsigned nu = 0;
		if (!cJSON_IsArray(e) || (cJSON_GetArraySize(e) != 4 && cJSON_GetArraySize(e) != 5) ||
		    !cJSON_IsArray(fr) || (uf && !cJSON_IsArray(uf))) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: expected [[frames...], tgid, comm, count, [user frames...]?]", si);
			goto out;
		}
		if (uf && cJSON_GetArraySize(uf) > SESSION_MAX_UFRAMES) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: more than %d user frames", si, SESSION_MAX_UFRAMES);
			goto out;
		}
		cJSON_ArrayForEach(f, uf) {
			if (!cJSON_IsString(f)) {
				err = util_fail(cause, -EINVAL, "window: stacks[%u]: user frame %u is not a string", si, nu);
				goto out;
			}
			uframes[nu++] = f->valuestring;
		}
		x = cJSON_GetArrayItem(e, 1);
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 4294967295.0) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: tgid is not a process id", si);
			goto out;
		}
		tgid = (uint64_t)x->valuedouble;
		x = cJSON_GetArrayItem(e, 2);
		if (!cJSON_IsString(x)) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: comm is not a string", si);
			goto out;
		}
		comm = x->valuestring;
		x = cJSON_GetArrayItem(e, 3);
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 1.8e19 ||
		    x->valuedouble != floor(x->valuedouble)) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: count is not a count", si);
			goto out;
		}
		count = (uint64_t)x->valuedouble;
		int nfr = cJSON_GetArraySize(fr);
		if (nfr > SESSION_MAX_FRAMES) {
			err = util_fail(cause, -EINVAL, "window: stacks[%u]: more than %d frames", si, SESSION_MAX_FRAMES);
			goto out;
		}
		if (nfr > 64 && frames == frames_stack) {
			frames = malloc(SESSION_MAX_FRAMES * sizeof(*frames));
			if (!frames) {
				frames = frames_stack;
				err = util_fail(cause, -ENOMEM, "out of memory");
				goto out;
			}
		}
		cJSON_ArrayForEach(f, fr) {
			if (!cJSON_IsString(f)) {
				err = util_fail(cause, -EINVAL, "window: stacks[%u]: frame %u is not a string", si, nf);
				goto out;
			}
			frames[nf++] = f->valuestring;
		}
		if (count) {
			err = profile_add_user(p, (unsigned)w, frames, nf, uframes, nu, (uint32_t)tgid,
					       comm, count);
			if (err) {
				util_fail(cause, err, "window: stacks[%u]: %s", si, strerror(-err));
				goto out;
			}
		}
		si++;
	}
	err = procs_apply(o, p, cause);
	if (!err)
		err = diag_apply(o, p, cause);
	if (!err)
		err = kwork_apply(o, p, (unsigned)w, cause);
	if (!err)
		err = modules_apply(o, p, cause);
	if (!err)
		err = w;
out:
	if (frames != frames_stack)
		free(frames);
	return err;
}

static void event_free(struct session_event *e)
{
	free(e->json);
	free(e->agent);
	free(e->spec_json);
	for (unsigned i = 0; i < e->nlines; i++)
		free(e->lines[i]);
	free(e->lines);
	free(e->focus);
	free(e->windows);
	free(e->by);
	free(e->edited_json);
	free(e->status);
	free(e->result_json);
	free(e->who);
	free(e->text);
	free(e->provider);
	free(e->model);
	verdict_clear(&e->verdict);
}

static int note_unknown(struct rd *r, const char *type)
{
	for (unsigned i = 0; i < r->nunknown; i++)
		if (!strcmp(r->unknown[i].name, type)) {
			r->unknown[i].count++;
			return 0;
		}
	if (r->nunknown < sizeof(r->unknown) / sizeof(r->unknown[0])) {
		snprintf(r->unknown[r->nunknown].name, sizeof(r->unknown[0].name), "%s", type);
		r->unknown[r->nunknown].count = 1;
		r->unknown[r->nunknown].first = r->line;
		r->nunknown++;
	} else {
		r->unknown_other++;
	}
	return 0;
}

static int read_header(struct rd *r, const cJSON *o)
{
	struct session_log *l = r->log;
	int bad = 0;
	const char *type = get_str(o, "type", &bad), *fmt = get_str(o, "format", &bad);
	uint64_t v;

	if (!type || strcmp(type, "header") || !fmt || strcmp(fmt, SESSION_FORMAT))
		return util_fail(r->cause, -EINVAL,
			    "%s:%u: not an argus session (the first line must be the header {\"type\":\"header\",\"format\":\"%s\",...})",
			    r->name, r->line, SESSION_FORMAT);
	const char *ver = get_str(o, "argus", &bad);
	if (get_uint(o, "version", 1e9, 0, &v) || v < 1)
		return util_fail(r->cause, -EINVAL, "%s:%u: the session header has no valid 'version'",
			    r->name, r->line);
	if (v > SESSION_VERSION)
		return util_fail(r->cause, -EPROTONOSUPPORT,
			    "%s: session format version %llu (written by argus %.40s) is newer than this argus %s reads (version %d); replay it with a newer argus",
			    r->name, (unsigned long long)v, ver ? ver : "?", ARGUS_VERSION,
			    SESSION_VERSION);
	l->version = (int)v;
	bad = 0;
	if (dup_opt(&l->argus_version, ver) ||
	    dup_opt(&l->host, get_str(o, "host", &bad)) ||
	    dup_opt(&l->kernel, get_str(o, "kernel", &bad)) ||
	    dup_opt(&l->created, get_str(o, "created", &bad)) ||
	    dup_json(&l->caps_json, o, "caps") || dup_json(&l->options_json, o, "options"))
		return util_fail(r->cause, -ENOMEM, "out of memory");
	if (bad)
		return util_fail(r->cause, -EINVAL, "%s:%u: the session header has a field of the wrong type",
			    r->name, r->line);
	if ((!l->caps_json && !(l->caps_json = strdup("{}"))) ||
	    (!l->options_json && !(l->options_json = strdup("{}"))))
		return util_fail(r->cause, -ENOMEM, "out of memory");
	return 0;
}

/* Fills e from o by type; returns 0, 1 (skip: unknown type) or -errno. */
static int read_event(struct rd *r, const cJSON *o, struct session_event *e)
{
	struct session_log *l = r->log;
	int bad = 0, err = 0;
	const char *type = get_str(o, "type", &bad), *what = "";
	uint64_t step = 0;
	char *why = NULL;

	if (!type)
		return util_fail(r->cause, -EINVAL, "%s:%u: event without a \"type\"", r->name, r->line);
	int t;
	for (t = 0; t < SESSION_EV_N; t++)
		if (!strcmp(type, session_event_name(t)))
			break;
	if (!strcmp(type, "header"))
		return util_fail(r->cause, -EINVAL, "%s:%u: a second header inside the session",
			    r->name, r->line);
	if (t == SESSION_EV_N)
		return note_unknown(r, type), 1;
	e->type = (enum session_event_type)t;
	e->window = -1;
	if (get_double(o, "t", -1, &e->t) || e->t < 0)
		return util_fail(r->cause, -EINVAL, "%s:%u: %s event without a valid \"t\" (seconds since start)",
			    r->name, r->line, type);
	if (get_uint(o, "step", SESSION_MAX_STEP, 0, &step))
		return util_fail(r->cause, -EINVAL, "%s:%u: %s: 'step' is not a step number (0..%d)",
			    r->name, r->line, type, SESSION_MAX_STEP);
	e->step = (unsigned)step;

	switch (e->type) {
	case SESSION_EV_WINDOW: {
		struct profile *p = step_profile(l, e->step);
		if (!p)
			return util_fail(r->cause, -ENOMEM, "out of memory");
		int w = window_apply(o, p, &why);
		if (w < 0) {
			err = util_fail(r->cause, w, "%s:%u: %s", r->name, r->line, why ? why : "bad window");
			free(why);
			return err;
		}
		e->window = w;
		e->cond = p->wins[w].cond;
		for (size_t i = 0; i < p->nstacks; i++)
			e->samples += p->stacks[i].win[w];
		return 0;
	}
	case SESSION_EV_PROPOSAL:
		what = "proposal";
		err = dup_opt(&e->agent, get_str(o, "agent", &bad));
		if (!err)
			err = dup_json(&e->spec_json, o, "spec");
		if (!err)
			err = dup_opt(&e->focus, get_str(o, "focus", &bad));
		if (!err)
			err = get_lines(o, "lines", &e->lines, &e->nlines);
		break;
	case SESSION_EV_DECISION: {
		what = "decision";
		const char *a = get_str(o, "action", &bad);
		int d;
		for (d = 0; a && d < SESSION_DECISION_N; d++)
			if (!strcmp(a, session_decision_name(d)))
				break;
		if (!a || d == SESSION_DECISION_N)
			return util_fail(r->cause, -EINVAL,
				    "%s:%u: decision: 'action' must be accept, edit, veto or undo",
				    r->name, r->line);
		e->decision = (enum session_decision)d;
		err = dup_opt(&e->by, get_str(o, "by", &bad));
		if (!err)
			err = dup_opt(&e->text, get_str(o, "reason", &bad));
		if (!err)
			err = dup_json(&e->spec_json, o, "original");
		if (!err)
			err = dup_json(&e->edited_json, o, "edited");
		break;
	}
	case SESSION_EV_STEP_RESULT:
		what = "step_result";
		err = dup_opt(&e->status, get_str(o, "status", &bad));
		if (!err)
			err = dup_opt(&e->text, get_str(o, "summary", &bad));
		if (!err)
			err = dup_json(&e->result_json, o, "result");
		break;
	case SESSION_EV_TRANSCRIPT:
		what = "transcript";
		err = dup_opt(&e->who, get_str(o, "who", &bad));
		if (!err)
			err = dup_opt(&e->text, get_str(o, "text", &bad));
		break;
	case SESSION_EV_LLM_TURN:
		what = "llm_turn";
		err = dup_opt(&e->provider, get_str(o, "provider", &bad));
		if (!err)
			err = dup_opt(&e->model, get_str(o, "model", &bad));
		if (!err)
			err = dup_opt(&e->status, get_str(o, "status", &bad));
		if (!err)
			err = dup_opt(&e->text, get_str(o, "error", &bad));
		if (!err && (get_double(o, "latency_s", 0, &e->latency_s) ||
			     get_uint(o, "tokens_in", 1.8e19, 0, &e->tokens_in) ||
			     get_uint(o, "tokens_out", 1.8e19, 0, &e->tokens_out)))
			bad = 1;
		break;
	case SESSION_EV_VERDICT: {
		what = "verdict";
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "verdict");
		err = verdict_json_parse(v, &e->verdict, &why);
		if (err) {
			err = util_fail(r->cause, err, "%s:%u: %s", r->name, r->line,
				   why ? why : "bad verdict");
			free(why);
			return err;
		}
		err = get_lines(o, "lines", &e->lines, &e->nlines);
		if (!err)
			err = dup_opt(&e->focus, get_str(o, "exploration", &bad));
		break;
	}
	case SESSION_EV_NOTE:
		what = "note";
		err = dup_opt(&e->text, get_str(o, "text", &bad));
		break;
	case SESSION_EV_MODEL:
		what = "model";
		if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "model")))
			bad = 1;
		else
			err = dup_json(&e->result_json, o, "model");
		if (!err)
			err = dup_opt(&e->text, get_str(o, "chain", &bad));
		{
			/* absent in sessions before the model's windows were recorded */
			cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "windows");

			if (w && !cJSON_IsObject(w))
				bad = 1;
			else if (w && !err)
				err = dup_opt(&e->windows, get_str(w, "used", &bad));
		}
		break;
	default:
		break;
	}
	if (err == -ENOMEM)
		return util_fail(r->cause, -ENOMEM, "out of memory");
	if (err || bad)
		return util_fail(r->cause, -EINVAL, "%s:%u: %s: a field has the wrong type",
			    r->name, r->line, what);
	return 0;
}

void session_log_clear(struct session_log *l)
{
	if (!l)
		return;
	free(l->argus_version);
	free(l->host);
	free(l->kernel);
	free(l->created);
	free(l->caps_json);
	free(l->options_json);
	profile_free(l->profile);
	for (unsigned i = 0; i < l->nstep_profile; i++)
		profile_free(l->step_profile[i]);
	free(l->step_profile);
	for (size_t i = 0; i < l->nev; i++)
		event_free(&l->ev[i]);
	free(l->ev);
	for (unsigned i = 0; i < l->nnotes; i++)
		free(l->notes[i]);
	free(l->notes);
	memset(l, 0, sizeof(*l));
}

int session_read_buf(const char *name, const char *buf, size_t len,
		     struct session_log *out, char **cause)
{
	struct rd r = { .name = name ? name : "-", .log = out, .cause = cause };
	size_t pos = 0, cap = 0;
	int have_header = 0, err = 0;
	cJSON *o = NULL;

	memset(out, 0, sizeof(*out));
	if (!len) {
		err = util_fail(cause, -EINVAL, "%s: empty file, not an argus session", r.name);
		goto fail;
	}
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		if (!nl) {
			if (!have_header) {
				err = util_fail(cause, -EINVAL,
					   "%s: the session header is incomplete (the file ends at byte %zu, mid-line)",
					   r.name, len);
				goto fail;
			}
			out->truncated = 1;
			add_note(out, "session ends mid-event at byte %zu (argus probably stopped mid-write); replaying up to there",
				 pos);
			break;
		}
		size_t n = (size_t)(nl - s);
		r.line++;
		pos += n + 1;
		out->bytes = pos;
		while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
			n--;
		if (!n)
			continue;
		if (memchr(s, 0, n)) {
			err = util_fail(cause, -EINVAL, "%s:%u: binary data (a NUL byte); not an argus session",
				   r.name, r.line);
			goto fail;
		}
		if (n > SESSION_MAX_LINE) {
			err = util_fail(cause, -EFBIG, "%s:%u: a line of %zu bytes; an event is at most "
					   "%u MiB (the file is damaged or not argus's)", r.name, r.line, n,
					   SESSION_MAX_LINE >> 20);
			goto fail;
		}
		if (out->nev >= SESSION_MAX_EVENTS) {
			err = util_fail(cause, -EFBIG, "%s:%u: more than %u events; not a session argus "
					   "wrote", r.name, r.line, SESSION_MAX_EVENTS);
			goto fail;
		}
		const char *end = NULL, *what = NULL;
		o = cJSON_ParseWithLengthOpts(s, n, &end, 0);
		/* every string escaped before any reader takes it (core/base/json_safe.h) */
		if (o && (err = json_safe_tree(o, SESSION_MAX_STR, 0, &what)) < 0) {
			char w[48];

			sanitize_into(w, sizeof(w), what ? what : "?", 0);
			err = err == -E2BIG ?
				util_fail(cause, -EFBIG, "%s:%u: '%s' is longer than %u KiB or nested "
					     "too deep; the file is damaged or not argus's", r.name, r.line,
					     w, SESSION_MAX_STR >> 10) :
				util_fail(cause, err, "%s:%u: out of memory", r.name, r.line);
			goto fail;
		}
		while (o && end && end < s + n && (*end == ' ' || *end == '\t'))
			end++;
		if (!o || !cJSON_IsObject(o) || (end && end != s + n)) {
			if (!have_header)
				err = util_fail(cause, -EINVAL,
					   "%s: not an argus session (line %u is not a JSON object)",
					   r.name, r.line);
			else
				err = util_fail(cause, -EINVAL,
					   "%s:%u: not a JSON object on one line; the file is damaged",
					   r.name, r.line);
			goto fail;
		}
		if (!have_header) {
			err = read_header(&r, o);
			if (err)
				goto fail;
			have_header = 1;
		} else {
			if (vec_grow(&out->ev, &cap, out->nev + 1, sizeof(*out->ev))) {
				err = util_fail(cause, -ENOMEM, "out of memory");
				goto fail;
			}
			struct session_event *e = &out->ev[out->nev];
			memset(e, 0, sizeof(*e));
			e->line = r.line;
			err = read_event(&r, o, e);
			if (err < 0) {
				event_free(e);
				goto fail;
			}
			if (err == 0) {
				if (!(e->json = strndup(s, n))) {
					event_free(e);
					err = util_fail(cause, -ENOMEM, "out of memory");
					goto fail;
				}
				out->nev++;
			} else {
				event_free(e);
			}
			err = 0;
		}
		cJSON_Delete(o);
		o = NULL;
	}
	if (!have_header) {
		err = util_fail(cause, -EINVAL, "%s: no session header; not an argus session", r.name);
		goto fail;
	}
	for (unsigned i = 0; i < r.nunknown; i++)
		add_note(out, "%s:%u: skipped %u event%s of unknown type '%s' (from a newer argus?)",
			 r.name, r.unknown[i].first, r.unknown[i].count,
			 r.unknown[i].count == 1 ? "" : "s", r.unknown[i].name);
	if (r.unknown_other)
		add_note(out, "%s: skipped %u more events of other unknown types", r.name,
			 r.unknown_other);
	return 0;
fail:
	cJSON_Delete(o);
	session_log_clear(out);
	return err;
}

int session_read(const char *path, struct session_log *out, char **cause)
{
	char *buf;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	err = util_read_file_cause(path, SESSION_MAX_FILE, &buf, &len, cause);
	if (err == -EFBIG)
		return util_fail(cause, err, "%s: larger than %llu MiB; not a session argus wrote",
				 path, SESSION_MAX_FILE >> 20);
	if (err)
		return err;
	err = session_read_buf(path, buf, len, out, cause);
	free(buf);
	return err;
}

const struct profile *session_log_profile(const struct session_log *l, unsigned step)
{
	if (step == 0)
		return l->profile;
	return step < l->nstep_profile ? l->step_profile[step] : NULL;
}

struct profile *session_log_profile_upto(const struct session_log *l, size_t nev,
					 unsigned step)
{
	struct profile *p = profile_new();
	char *why = NULL;

	if (!p)
		return NULL;
	for (size_t i = 0; i < nev && i < l->nev; i++) {
		const struct session_event *e = &l->ev[i];
		if (e->type != SESSION_EV_WINDOW || e->step != step)
			continue;
		cJSON *o = cJSON_Parse(e->json);

		if (o && json_safe_tree(o, SESSION_MAX_STR, 0, NULL) < 0) {
			cJSON_Delete(o);
			o = NULL;
		}
		int w = o ? window_apply(o, p, &why) : -ENOMEM;
		cJSON_Delete(o);
		free(why);
		why = NULL;
		if (w < 0) {
			profile_free(p);
			errno = -w;
			return NULL;
		}
	}
	return p;
}

const struct session_event *session_log_diagnosis(const struct session_log *l, size_t nev)
{
	if (!l)
		return NULL;
	if (nev > l->nev)
		nev = l->nev;
	for (size_t i = nev; i > 0; i--)
		if (l->ev[i - 1].type == SESSION_EV_VERDICT && !l->ev[i - 1].focus)
			return &l->ev[i - 1];
	return NULL;
}

const struct session_event *session_log_model(const struct session_log *l)
{
	for (size_t i = l ? l->nev : 0; i > 0; i--)
		if (l->ev[i - 1].type == SESSION_EV_MODEL && l->ev[i - 1].result_json)
			return &l->ev[i - 1];
	return NULL;
}
