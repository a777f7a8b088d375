/* session_write — the session writer: one JSON line per event, flushed
 * (fsynced where a kill must not lose it); the format is in session.h and
 * tests/data/SESSION-FORMAT.md. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "measure/session.h"
#include "base/vec.h"
#include "measure/session_priv.h"
#include "base/util.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "unknown"
#endif

/* A module whose path and build-id a window of step wrote (issue 27):
 * each step's windows are read into a profile of their own, so each names
 * its modules once. */
struct session_mod {
	unsigned step;
	char *name;               /* owned */
};

struct session {
	FILE *f;
	char *path;
	struct timespec t0;
	int err;
	uint32_t *named;          /* tgids whose identity is written, sorted */
	size_t nnamed, named_cap;
	struct session_mod *mods; /* the modules written, per step */
	size_t nmods, mods_cap;
};

static int u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* 1 when tgid's identity was written already; else records it (0), or
 * -ENOMEM. */
static int session_named(struct session *s, uint32_t tgid)
{
	size_t lo = 0, hi = s->nnamed;

	if (s->nnamed && bsearch(&tgid, s->named, s->nnamed, sizeof(*s->named), u32_cmp))
		return 1;
	if (vec_grow(&s->named, &s->named_cap, s->nnamed + 1, sizeof(*s->named)))
		return -ENOMEM;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->named[mid] < tgid)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->named + lo + 1, s->named + lo, (s->nnamed - lo) * sizeof(*s->named));
	s->named[lo] = tgid;
	s->nnamed++;
	return 0;
}

/* "procs": the identity of each process of window w not named before in
 * this session (issue 15), so a replay names processes too. */
static int session_add_procs(struct session *s, cJSON *o, const struct profile *p, unsigned w,
			     uint32_t exclude_tgid)
{
	cJSON *a = NULL;

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		const struct profile_ident *id;
		const struct { const char *key, *val; } f[] = {
			{ "comm", NULL }, { "cmdline", NULL }, { "exe", NULL }, { "cgroup", NULL },
			{ "unit", NULL }, { "container", NULL }, { "role", NULL }, { "threads", NULL },
		};
		cJSON *e;
		int r;

		if (!st->win[w] || !st->tgid || st->tgid == exclude_tgid ||
		    !(id = profile_ident_find(p, st->tgid)))
			continue;
		r = session_named(s, st->tgid);
		if (r < 0)
			return r;
		if (r)
			continue;
		if (!a && !(a = cJSON_AddArrayToObject(o, "procs")))
			return -ENOMEM;
		e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			return -ENOMEM;
		}
		if (!cJSON_AddNumberToObject(e, "tgid", id->tgid))
			return -ENOMEM;
		const char *vals[] = { id->comm, id->cmdline, id->exe, id->cgroup, id->unit,
				       id->container, id->role, id->threads };
		for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
			if (vals[k] && *vals[k] && !cJSON_AddStringToObject(e, f[k].key, vals[k]))
				return -ENOMEM;
		if (id->kthread && !cJSON_AddBoolToObject(e, "kthread", 1))
			return -ENOMEM;
	}
	return 0;
}

/* "modules": the file and build-id of each user-space module of p not
 * written before with a window of this step (issue 27), so an export
 * without root writes the same pprof mappings as the live run. */
static int session_add_modules(struct session *s, cJSON *o, const struct profile *p,
			       unsigned step)
{
	cJSON *a = NULL;

	for (size_t i = 0; i < p->nmodules; i++) {
		const struct profile_module *m = &p->modules[i];
		size_t k = 0;
		cJSON *e;

		while (k < s->nmods && (s->mods[k].step != step || strcmp(s->mods[k].name, m->name)))
			k++;
		if (k < s->nmods)
			continue;
		if (vec_grow(&s->mods, &s->mods_cap, s->nmods + 1, sizeof(*s->mods)) ||
		    !(s->mods[s->nmods].name = strdup(m->name)))
			return -ENOMEM;
		s->mods[s->nmods].step = step;
		s->nmods++;
		if (!a && !(a = cJSON_AddArrayToObject(o, "modules")))
			return -ENOMEM;
		e = cJSON_CreateObject();
		if (!e || !cJSON_AddItemToArray(a, e)) {
			cJSON_Delete(e);
			return -ENOMEM;
		}
		if (!cJSON_AddStringToObject(e, "name", m->name) ||
		    (*m->path && !cJSON_AddStringToObject(e, "path", m->path)) ||
		    (*m->build_id && !cJSON_AddStringToObject(e, "build_id", m->build_id)))
			return -ENOMEM;
	}
	return 0;
}

/* "kwork": the work functions each kworker ran in window w, counted by
 * the workqueue tracepoint (issue 15), so a replay names the kworkers
 * whose samples their stacks do not; only in a window it counted (an
 * empty array: it counted none). */
static int session_add_kwork(cJSON *o, const struct profile *p, unsigned w, uint32_t exclude_tgid)
{
	cJSON *a;

	if (!p->wins[w].works_traced)
		return 0;
	if (!(a = cJSON_AddArrayToObject(o, "kwork")))
		return -ENOMEM;
	for (size_t i = 0; i < p->nworks; i++) {
		const struct profile_work *e = &p->works[i];
		cJSON *j;

		if (e->win != w || !e->count || (exclude_tgid && e->pid == exclude_tgid))
			continue;
		j = cJSON_CreateObject();
		if (!j || !cJSON_AddItemToArray(a, j)) {
			cJSON_Delete(j);
			return -ENOMEM;
		}
		if (!cJSON_AddNumberToObject(j, "pid", e->pid) ||
		    !cJSON_AddStringToObject(j, "function", e->func) ||
		    !cJSON_AddNumberToObject(j, "executions", (double)e->count))
			return -ENOMEM;
	}
	return 0;
}

/* "diag": which processes are the diagnosed work (struct profile_diag,
 * issue 11), so a replay tells displaced work as the live run did. */
static int session_add_diag(cJSON *o, const struct profile_diag *d)
{
	cJSON *x, *a;

	if (!d->known)
		return 0;
	x = cJSON_AddObjectToObject(o, "diag");
	if (!x || !cJSON_AddBoolToObject(x, "all", d->all) ||
	    !(a = cJSON_AddArrayToObject(x, "tgids")))
		return -ENOMEM;
	for (unsigned i = 0; i < d->ntgids && i < PROFILE_DIAG_MAX; i++)
		if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(d->tgids[i])))
			return -ENOMEM;
	return 0;
}

static int mkdir_p(char *path, mode_t mode)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		int r = mkdir(path, mode);
		*p = '/';
		if (r && errno != EEXIST)
			return -errno;
	}
	if (mkdir(path, mode) && errno != EEXIST)
		return -errno;
	return 0;
}

static char *state_dir(char **cause)
{
	const char *x = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *d = NULL;

	if (x && x[0] == '/') {
		if (asprintf(&d, "%s/argus/sessions", x) < 0)
			d = NULL;
	} else {
		if (!home || home[0] != '/') {
			struct passwd *pw = getpwuid(getuid());
			home = pw ? pw->pw_dir : NULL;
		}
		if (!home) {
			util_fail(cause, -ENOENT, "cannot find a directory for sessions: neither XDG_STATE_HOME nor HOME is set; give --session FILE");
			errno = ENOENT;
			return NULL;
		}
		if (asprintf(&d, "%s/.local/state/argus/sessions", home) < 0)
			d = NULL;
	}
	if (!d) {
		util_fail(cause, -ENOMEM, "out of memory");
		errno = ENOMEM;
	}
	return d;
}

char *session_default_path(char **cause)
{
	char *d = state_dir(cause), *p = NULL, stamp[32];
	time_t now = time(NULL);
	struct tm tm;
	int err;

	if (!d)
		return NULL;
	err = mkdir_p(d, 0700);
	if (err) {
		util_fail(cause, err, "cannot create %s: %s; give --session FILE", d, strerror(-err));
		free(d);
		errno = -err;
		return NULL;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (asprintf(&p, "%s/argus-%s.jsonl", d, stamp) < 0) {
		util_fail(cause, -ENOMEM, "out of memory");
		errno = ENOMEM;
		p = NULL;
	}
	free(d);
	return p;
}

static double elapsed(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

double session_elapsed(const struct session *s)
{
	return elapsed(&s->t0);
}

const char *session_path(const struct session *s)
{
	return s->path;
}

/* Appends o as one line; consumes o. */
static int emit(struct session *s, cJSON *o, int sync)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;
	int err = 0;

	cJSON_Delete(o);
	if (!text)
		return -ENOMEM;
	if (fputs(text, s->f) < 0 || fputc('\n', s->f) < 0 || fflush(s->f))
		err = errno ? -errno : -EIO;
	else if (sync && fsync(fileno(s->f)) && errno != EINVAL && errno != EROFS)
		err = -errno;
	free(text);
	if (err && !s->err)
		s->err = err;
	return err;
}

static cJSON *event_new(struct session *s, enum session_event_type t)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	if (!cJSON_AddStringToObject(o, "type", session_event_name(t)) ||
	    !cJSON_AddNumberToObject(o, "t", round(session_elapsed(s) * 1e6) / 1e6)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Adds key: the parsed JSON text (or null when text is NULL). */
static int add_json(cJSON *o, const char *key, const char *text)
{
	cJSON *v;
	if (!text)
		return cJSON_AddNullToObject(o, key) ? 0 : -ENOMEM;
	v = cJSON_Parse(text);
	if (!v)
		return -EINVAL;
	return cJSON_AddItemToObject(o, key, v) ? 0 : -ENOMEM;
}

static int add_str(cJSON *o, const char *key, const char *s)
{
	cJSON *v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
	return v && cJSON_AddItemToObject(o, key, v) ? 0 : -ENOMEM;
}

static int add_lines(cJSON *o, const char *key, char *const *lines, unsigned n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);
	if (!a)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		cJSON *v = cJSON_CreateString(lines[i] ? lines[i] : "");
		if (!v || !cJSON_AddItemToArray(a, v))
			return -ENOMEM;
	}
	return 0;
}

struct session *session_open(const char *path, const struct session_header *h, char **cause)
{
	struct session *s = calloc(1, sizeof(*s));
	struct utsname u;
	char created[32];
	time_t now = time(NULL);
	struct tm tm;
	cJSON *o = NULL;
	int fd = -1, err;

	if (!s) {
		err = util_fail(cause, -ENOMEM, "out of memory");
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	if (path) {
		if (!(s->path = strdup(path))) {
			err = util_fail(cause, -ENOMEM, "out of memory");
			goto fail;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = util_fail(cause, -errno, "cannot create the session file %s: %s",
				   path, strerror(errno));
			goto fail;
		}
	} else {
		char *base = session_default_path(cause);
		if (!base) {
			err = -errno;
			goto fail;
		}
		size_t bl = strlen(base) - strlen(".jsonl");
		for (int i = 1; i < 100 && fd < 0; i++) {
			free(s->path);
			s->path = NULL;
			if (i == 1)
				s->path = strdup(base);
			else if (asprintf(&s->path, "%.*s-%d.jsonl", (int)bl, base, i) < 0)
				s->path = NULL;
			if (!s->path)
				break;
			fd = open(s->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
			if (fd < 0 && errno != EEXIST)
				break;
		}
		if (fd < 0) {
			err = util_fail(cause, errno ? -errno : -ENOMEM, "cannot create a session file like %s: %s; give --session FILE",
				   base, strerror(errno ? errno : ENOMEM));
			free(base);
			goto fail;
		}
		free(base);
	}
	s->f = fdopen(fd, "w");
	if (!s->f) {
		err = util_fail(cause, -errno, "cannot open %s: %s", s->path, strerror(errno));
		goto fail;
	}
	fd = -1;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	gmtime_r(&now, &tm);
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
	o = cJSON_CreateObject();
	err = -ENOMEM;
	if (!o || !cJSON_AddStringToObject(o, "type", "header") ||
	    !cJSON_AddStringToObject(o, "format", SESSION_FORMAT) ||
	    !cJSON_AddNumberToObject(o, "version", SESSION_VERSION) ||
	    !cJSON_AddStringToObject(o, "argus", ARGUS_VERSION) ||
	    !cJSON_AddStringToObject(o, "host", h && h->host ? h->host : u.nodename) ||
	    !cJSON_AddStringToObject(o, "kernel", h && h->kernel ? h->kernel : u.release) ||
	    !cJSON_AddStringToObject(o, "created", created)) {
		util_fail(cause, err, "out of memory");
		goto fail;
	}
	err = add_json(o, "caps", h && h->caps_json ? h->caps_json : "{}");
	if (!err)
		err = add_json(o, "options", h && h->options_json ? h->options_json : "{}");
	if (err) {
		util_fail(cause, err, "%s: the session header's %s are not valid JSON",
		     s->path, err == -EINVAL ? "caps or options" : "fields");
		goto fail;
	}
	err = emit(s, o, 1);
	o = NULL;
	if (err) {
		util_fail(cause, err, "cannot write %s: %s", s->path, strerror(-err));
		goto fail;
	}
	return s;
fail:
	cJSON_Delete(o);
	if (fd >= 0)
		close(fd);
	if (s) {
		if (s->f)
			fclose(s->f);
		free(s->path);
		free(s);
	}
	errno = -err;
	return NULL;
}

int session_close(struct session *s)
{
	int err;

	if (!s)
		return 0;
	err = s->err;
	if (fflush(s->f) && !err)
		err = -errno;
	if (fsync(fileno(s->f)) && errno != EINVAL && errno != EROFS && !err)
		err = -errno;
	if (fclose(s->f) && !err)
		err = -errno;
	free(s->named);
	for (size_t i = 0; i < s->nmods; i++)
		free(s->mods[i].name);
	free(s->mods);
	free(s->path);
	free(s);
	return err;
}

int session_write_window(struct session *s, const struct profile *p, unsigned w,
			 unsigned step)
{
	return session_write_window_without(s, p, w, step, 0);
}

int session_write_window_without(struct session *s, const struct profile *p, unsigned w,
				 unsigned step, uint32_t exclude_tgid)
{
	cJSON *o, *stacks;
	uint64_t samples = 0;

	if (!p || w >= p->nwin)
		return -EINVAL;
	o = event_new(s, SESSION_EV_WINDOW);
	if (!o)
		return -ENOMEM;
	const struct profile_window *pw = &p->wins[w];
	cJSON_AddNumberToObject(o, "step", step);
	cJSON_AddNumberToObject(o, "index", w);
	cJSON_AddStringToObject(o, "cond", cond_name(pw->cond));
	cJSON_AddNumberToObject(o, "start", pw->start_s);
	cJSON_AddNumberToObject(o, "secs", pw->secs);
	for (size_t i = 0; i < p->nstacks; i++)
		if (!exclude_tgid || p->stacks[i].tgid != exclude_tgid)
			samples += p->stacks[i].win[w];
	cJSON_AddNumberToObject(o, "samples", (double)samples);
	cJSON_AddNumberToObject(o, "lost", (double)pw->lost);
	/* issue 27: what the call sites could not see (read back optional:
	 * older sessions lack it) */
	cJSON_AddNumberToObject(o, "ustack_errors", (double)pw->ustack_errors);
	stacks = cJSON_AddArrayToObject(o, "stacks");
	if (!stacks)
		goto nomem;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		if (!st->win[w] || (exclude_tgid && st->tgid == exclude_tgid))
			continue;
		cJSON *e = cJSON_CreateArray(), *fr = cJSON_CreateArray();
		if (!e || !fr || !cJSON_AddItemToArray(stacks, e)) {
			cJSON_Delete(e);
			cJSON_Delete(fr);
			goto nomem;
		}
		cJSON_AddItemToArray(e, fr);
		for (uint32_t k = 0; k < st->nframes; k++)
			if (!cJSON_AddItemToArray(fr, cJSON_CreateString(st->frames[k])))
				goto nomem;
		if (!cJSON_AddItemToArray(e, cJSON_CreateNumber(st->tgid)) ||
		    !cJSON_AddItemToArray(e, cJSON_CreateString(st->comm ? st->comm : "")) ||
		    !cJSON_AddItemToArray(e, cJSON_CreateNumber((double)st->win[w])))
			goto nomem;
		if (st->nuframes) {
			/* issue 27: the user-space frames, root first, as a 5th item */
			cJSON *uf = cJSON_CreateArray();

			if (!uf || !cJSON_AddItemToArray(e, uf)) {
				cJSON_Delete(uf);
				goto nomem;
			}
			for (uint32_t k = 0; k < st->nuframes; k++)
				if (!cJSON_AddItemToArray(uf, cJSON_CreateString(st->uframes[k])))
					goto nomem;
		}
	}
	if (session_add_procs(s, o, p, w, exclude_tgid) < 0 || session_add_diag(o, &p->diag) < 0 ||
	    session_add_kwork(o, p, w, exclude_tgid) < 0 || session_add_modules(s, o, p, step) < 0)
		goto nomem;
	return emit(s, o, 1);
nomem:
	cJSON_Delete(o);
	return -ENOMEM;
}

int session_write_proposal(struct session *s, unsigned step, const char *agent,
			   const char *spec_json, char *const *lines, unsigned nlines,
			   const char *focus)
{
	cJSON *o = event_new(s, SESSION_EV_PROPOSAL);
	int err;

	if (!o)
		return -ENOMEM;
	cJSON_AddNumberToObject(o, "step", step);
	if ((err = add_str(o, "agent", agent ? agent : "")) ||
	    (err = add_json(o, "spec", spec_json ? spec_json : "{}")) ||
	    (err = add_lines(o, "lines", lines, nlines)) ||
	    (err = add_str(o, "focus", focus))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 0);
}

int session_write_decision(struct session *s, unsigned step, enum session_decision d,
			   const char *by, const char *reason, const char *original_json,
			   const char *edited_json)
{
	cJSON *o;
	int err;

	if ((unsigned)d >= SESSION_DECISION_N)
		return -EINVAL;
	o = event_new(s, SESSION_EV_DECISION);
	if (!o)
		return -ENOMEM;
	cJSON_AddNumberToObject(o, "step", step);
	if ((err = add_str(o, "action", session_decision_name(d))) ||
	    (err = add_str(o, "by", by ? by : "human")) ||
	    (err = add_str(o, "reason", reason)) ||
	    (err = add_json(o, "original", original_json)) ||
	    (err = add_json(o, "edited", edited_json))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 0);
}

int session_write_step_result(struct session *s, unsigned step, const char *status,
			      const char *summary, const char *result_json)
{
	cJSON *o = event_new(s, SESSION_EV_STEP_RESULT);
	int err;

	if (!o)
		return -ENOMEM;
	cJSON_AddNumberToObject(o, "step", step);
	if ((err = add_str(o, "status", status ? status : "ok")) ||
	    (err = add_str(o, "summary", summary ? summary : "")) ||
	    (err = add_json(o, "result", result_json))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 0);
}

int session_write_transcript(struct session *s, const char *who, const char *text)
{
	cJSON *o = event_new(s, SESSION_EV_TRANSCRIPT);
	int err;

	if (!o)
		return -ENOMEM;
	if ((err = add_str(o, "who", who ? who : "argus")) ||
	    (err = add_str(o, "text", text ? text : ""))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 0);
}

int session_write_llm_turn(struct session *s, const struct session_llm_turn *lt)
{
	cJSON *o = event_new(s, SESSION_EV_LLM_TURN);
	int err;

	if (!o)
		return -ENOMEM;
	if ((err = add_str(o, "provider", lt->provider ? lt->provider : "")) ||
	    (err = add_str(o, "model", lt->model ? lt->model : "")) ||
	    !cJSON_AddNumberToObject(o, "latency_s", isfinite(lt->latency_s) ? lt->latency_s : 0) ||
	    !cJSON_AddNumberToObject(o, "tokens_in", (double)lt->tokens_in) ||
	    !cJSON_AddNumberToObject(o, "tokens_out", (double)lt->tokens_out) ||
	    (err = add_str(o, "status", lt->status ? lt->status : "ok")) ||
	    (err = add_str(o, "error", lt->error))) {
		cJSON_Delete(o);
		return err ? err : -ENOMEM;
	}
	return emit(s, o, 0);
}

int session_write_verdict(struct session *s, const struct verdict *v,
			  char *const *lines, unsigned nlines)
{
	return session_write_finding(s, v, lines, nlines, NULL);
}

int session_write_finding(struct session *s, const struct verdict *v,
			  char *const *lines, unsigned nlines, const char *exploration)
{
	cJSON *o = event_new(s, SESSION_EV_VERDICT), *vj;
	int err;

	if (!o)
		return -ENOMEM;
	if (exploration && (err = add_str(o, "exploration", exploration))) {
		cJSON_Delete(o);
		return err;
	}
	vj = verdict_json_new(v);
	if (!vj || !cJSON_AddItemToObject(o, "verdict", vj)) {
		cJSON_Delete(vj);
		cJSON_Delete(o);
		return -ENOMEM;
	}
	if ((err = add_lines(o, "lines", lines, nlines))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 1);
}

int session_write_conclusion(struct session *s, char *const *lines, unsigned nlines,
			     const char *naive_subsystem, char *const *naive_path, unsigned nnaive,
			     const struct verdict *v)
{
	int err;

	for (unsigned i = 0; i < nlines; i++)
		if ((err = session_write_transcript(s, "agent", lines[i])))
			return err;
	if (nnaive) {
		char line[512];
		size_t off = 0;

		off += (size_t)snprintf(line, sizeof(line), "a profiler without a reference would "
					"point at the hottest path: %s", naive_subsystem);
		for (unsigned i = 0; i < nnaive && off < sizeof(line); i++)
			off += (size_t)snprintf(line + off, sizeof(line) - off, " > %s",
						naive_path[i]);
		if ((err = session_write_transcript(s, "argus", line)))
			return err;
	}
	return session_write_verdict(s, v, lines, nlines);
}

char *session_json_quote(const char *str)
{
	cJSON *v = cJSON_CreateString(str ? str : "");
	char *out = v ? cJSON_PrintUnformatted(v) : NULL;

	cJSON_Delete(v);
	if (!out)
		errno = ENOMEM;
	return out;
}

int session_write_note(struct session *s, const char *text)
{
	cJSON *o = event_new(s, SESSION_EV_NOTE);
	int err;

	if (!o)
		return -ENOMEM;
	if ((err = add_str(o, "text", text ? text : ""))) {
		cJSON_Delete(o);
		return err;
	}
	return emit(s, o, 0);
}

int session_write_model(struct session *s, const char *model_json, const char *chain,
			const char *windows, unsigned first, unsigned last, unsigned n)
{
	cJSON *o = event_new(s, SESSION_EV_MODEL), *w = NULL;
	int err = -ENOMEM;

	if (!o)
		return -ENOMEM;
	if (!model_json || (err = add_json(o, "model", model_json)) ||
	    (chain && (err = add_str(o, "chain", chain))))
		goto fail;
	if (windows) {
		/* which loaded windows it was built from (1-based), as the view said */
		err = -ENOMEM;
		w = cJSON_AddObjectToObject(o, "windows");
		if (!w || !cJSON_AddStringToObject(w, "used", windows) ||
		    !cJSON_AddNumberToObject(w, "first", first + 1) ||
		    !cJSON_AddNumberToObject(w, "last", last + 1) ||
		    !cJSON_AddNumberToObject(w, "of", n))
			goto fail;
	}
	return emit(s, o, 1);
fail:
	cJSON_Delete(o);
	return model_json ? err : -EINVAL;
}
