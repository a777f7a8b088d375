/* session — JSON Lines writer and reader; the format is in session.h and
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

#include "json_safe.h"
#include "sanitize.h"
#include "session.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "unknown"
#endif

/* Bounds on what a reader takes from a file, so memory stays bounded on any
 * input: a line argus writes is ~50 KB, a note a line of text. */
#define SESSION_MAX_FILE (256ull << 20) /* 256 MiB */
#define SESSION_MAX_LINE (16u << 20)    /* one event */
#define SESSION_MAX_STR (1u << 20)      /* a note, a name, an LLM reply */
#define SESSION_MAX_EVENTS 1000000
#define SESSION_MAX_STEP 10000
#define SESSION_MAX_FRAMES 1024

static const char *const ev_names[SESSION_EV_N] = {
	[SESSION_EV_WINDOW] = "window",
	[SESSION_EV_PROPOSAL] = "proposal",
	[SESSION_EV_DECISION] = "decision",
	[SESSION_EV_STEP_RESULT] = "step_result",
	[SESSION_EV_TRANSCRIPT] = "transcript",
	[SESSION_EV_LLM_TURN] = "llm_turn",
	[SESSION_EV_VERDICT] = "verdict",
	[SESSION_EV_NOTE] = "note",
};

static const char *const decision_names[SESSION_DECISION_N] = {
	"accept", "edit", "veto", "undo",
};

const char *session_event_name(enum session_event_type t)
{
	return (unsigned)t < SESSION_EV_N ? ev_names[t] : "unknown";
}

const char *session_decision_name(enum session_decision d)
{
	return (unsigned)d < SESSION_DECISION_N ? decision_names[d] : "unknown";
}

__attribute__((format(printf, 3, 4)))
static int fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (cause) {
		free(*cause);
		if (vasprintf(cause, fmt, ap) < 0)
			*cause = NULL;
	}
	va_end(ap);
	return err;
}

/* ---- writer ------------------------------------------------------------------- */

struct session {
	FILE *f;
	char *path;
	struct timespec t0;
	int err;
};

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
			fail(cause, -ENOENT, "cannot find a directory for sessions: neither XDG_STATE_HOME nor HOME is set; give --session FILE");
			errno = ENOENT;
			return NULL;
		}
		if (asprintf(&d, "%s/.local/state/argus/sessions", home) < 0)
			d = NULL;
	}
	if (!d) {
		fail(cause, -ENOMEM, "out of memory");
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
		fail(cause, err, "cannot create %s: %s; give --session FILE", d, strerror(-err));
		free(d);
		errno = -err;
		return NULL;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (asprintf(&p, "%s/argus-%s.jsonl", d, stamp) < 0) {
		fail(cause, -ENOMEM, "out of memory");
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
	if (!cJSON_AddStringToObject(o, "type", ev_names[t]) ||
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
		err = fail(cause, -ENOMEM, "out of memory");
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	if (path) {
		if (!(s->path = strdup(path))) {
			err = fail(cause, -ENOMEM, "out of memory");
			goto fail;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0) {
			err = fail(cause, -errno, "cannot create the session file %s: %s",
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
			err = fail(cause, errno ? -errno : -ENOMEM, "cannot create a session file like %s: %s; give --session FILE",
				   base, strerror(errno ? errno : ENOMEM));
			free(base);
			goto fail;
		}
		free(base);
	}
	s->f = fdopen(fd, "w");
	if (!s->f) {
		err = fail(cause, -errno, "cannot open %s: %s", s->path, strerror(errno));
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
		fail(cause, err, "out of memory");
		goto fail;
	}
	err = add_json(o, "caps", h && h->caps_json ? h->caps_json : "{}");
	if (!err)
		err = add_json(o, "options", h && h->options_json ? h->options_json : "{}");
	if (err) {
		fail(cause, err, "%s: the session header's %s are not valid JSON",
		     s->path, err == -EINVAL ? "caps or options" : "fields");
		goto fail;
	}
	err = emit(s, o, 1);
	o = NULL;
	if (err) {
		fail(cause, err, "cannot write %s: %s", s->path, strerror(-err));
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
	}
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
	if ((err = add_str(o, "action", decision_names[d])) ||
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
	cJSON *o = event_new(s, SESSION_EV_VERDICT), *vj;
	int err;

	if (!o)
		return -ENOMEM;
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

/* ---- reader ------------------------------------------------------------------- */

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
	char *s = NULL, **n;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return -ENOMEM;
	n = realloc(l->notes, (l->nnotes + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return -ENOMEM;
	}
	n[l->nnotes++] = s;
	l->notes = n;
	return 0;
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
		struct profile **n = realloc(l->step_profile, (step + 1) * sizeof(*n));
		if (!n)
			return NULL;
		memset(n + l->nstep_profile, 0, (step + 1 - l->nstep_profile) * sizeof(*n));
		l->step_profile = n;
		l->nstep_profile = step + 1;
	}
	if (!l->step_profile[step])
		l->step_profile[step] = profile_new();
	return l->step_profile[step];
}

/* Adds the window event o to p; its index must be p's next window.  Returns
 * the window index, or -errno with a message (without file:line) in cause. */
static int window_apply(const cJSON *o, struct profile *p, char **cause)
{
	const cJSON *stacks, *e;
	const char *frames_stack[64];
	const char **frames = frames_stack;
	uint64_t index, lost, count, tgid;
	double secs, start;
	int bad = 0, w, err = -EINVAL;
	const char *cs = get_str(o, "cond", &bad);
	enum cond c;

	if (!cs || bad)
		return fail(cause, -EINVAL, "window: 'cond' must be \"ref\" or \"load\"");
	if (!strcmp(cs, "ref"))
		c = COND_REF;
	else if (!strcmp(cs, "load"))
		c = COND_LOAD;
	else
		return fail(cause, -EINVAL, "window: 'cond' must be \"ref\" or \"load\", not '%.20s'", cs);
	if (get_uint(o, "index", 1e6, UINT64_MAX, &index) || index == UINT64_MAX)
		return fail(cause, -EINVAL, "window: 'index' missing or not a window number");
	if (index != p->nwin)
		return fail(cause, -EINVAL, "window: index %llu out of order (expected %u)",
			    (unsigned long long)index, p->nwin);
	if (get_double(o, "secs", 0, &secs) || secs < 0)
		return fail(cause, -EINVAL, "window: 'secs' is not a length in seconds");
	if (get_double(o, "start", 0, &start) || start < 0)
		return fail(cause, -EINVAL, "window: 'start' is not a time in seconds");
	if (get_uint(o, "lost", 1.8e19, 0, &lost))
		return fail(cause, -EINVAL, "window: 'lost' is not a count");
	stacks = cJSON_GetObjectItemCaseSensitive(o, "stacks");
	if (stacks && !cJSON_IsArray(stacks))
		return fail(cause, -EINVAL, "window: 'stacks' is not an array");
	w = profile_window_begin(p, c, start);
	if (w < 0)
		return fail(cause, w, "window: %s", strerror(-w));
	profile_window_end(p, (unsigned)w, secs);
	p->wins[w].lost = lost;
	unsigned si = 0;
	cJSON_ArrayForEach(e, stacks) {
		const cJSON *fr = cJSON_GetArrayItem(e, 0), *x, *f;
		const char *comm;
		unsigned nf = 0;
		if (!cJSON_IsArray(e) || cJSON_GetArraySize(e) != 4 || !cJSON_IsArray(fr)) {
			err = fail(cause, -EINVAL, "window: stacks[%u]: expected [[frames...], tgid, comm, count]", si);
			goto out;
		}
		x = cJSON_GetArrayItem(e, 1);
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 4294967295.0) {
			err = fail(cause, -EINVAL, "window: stacks[%u]: tgid is not a process id", si);
			goto out;
		}
		tgid = (uint64_t)x->valuedouble;
		x = cJSON_GetArrayItem(e, 2);
		if (!cJSON_IsString(x)) {
			err = fail(cause, -EINVAL, "window: stacks[%u]: comm is not a string", si);
			goto out;
		}
		comm = x->valuestring;
		x = cJSON_GetArrayItem(e, 3);
		if (!cJSON_IsNumber(x) || !(x->valuedouble >= 0) || x->valuedouble > 1.8e19 ||
		    x->valuedouble != floor(x->valuedouble)) {
			err = fail(cause, -EINVAL, "window: stacks[%u]: count is not a count", si);
			goto out;
		}
		count = (uint64_t)x->valuedouble;
		int nfr = cJSON_GetArraySize(fr);
		if (nfr > SESSION_MAX_FRAMES) {
			err = fail(cause, -EINVAL, "window: stacks[%u]: more than %d frames", si, SESSION_MAX_FRAMES);
			goto out;
		}
		if (nfr > 64 && frames == frames_stack) {
			frames = malloc(SESSION_MAX_FRAMES * sizeof(*frames));
			if (!frames) {
				frames = frames_stack;
				err = fail(cause, -ENOMEM, "out of memory");
				goto out;
			}
		}
		cJSON_ArrayForEach(f, fr) {
			if (!cJSON_IsString(f)) {
				err = fail(cause, -EINVAL, "window: stacks[%u]: frame %u is not a string", si, nf);
				goto out;
			}
			frames[nf++] = f->valuestring;
		}
		if (count) {
			err = profile_add(p, (unsigned)w, frames, nf, (uint32_t)tgid, comm, count);
			if (err) {
				fail(cause, err, "window: stacks[%u]: %s", si, strerror(-err));
				goto out;
			}
		}
		si++;
	}
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
		return fail(r->cause, -EINVAL,
			    "%s:%u: not an argus session (the first line must be the header {\"type\":\"header\",\"format\":\"%s\",...})",
			    r->name, r->line, SESSION_FORMAT);
	const char *ver = get_str(o, "argus", &bad);
	if (get_uint(o, "version", 1e9, 0, &v) || v < 1)
		return fail(r->cause, -EINVAL, "%s:%u: the session header has no valid 'version'",
			    r->name, r->line);
	if (v > SESSION_VERSION)
		return fail(r->cause, -EPROTONOSUPPORT,
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
		return fail(r->cause, -ENOMEM, "out of memory");
	if (bad)
		return fail(r->cause, -EINVAL, "%s:%u: the session header has a field of the wrong type",
			    r->name, r->line);
	if ((!l->caps_json && !(l->caps_json = strdup("{}"))) ||
	    (!l->options_json && !(l->options_json = strdup("{}"))))
		return fail(r->cause, -ENOMEM, "out of memory");
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
		return fail(r->cause, -EINVAL, "%s:%u: event without a \"type\"", r->name, r->line);
	int t;
	for (t = 0; t < SESSION_EV_N; t++)
		if (!strcmp(type, ev_names[t]))
			break;
	if (!strcmp(type, "header"))
		return fail(r->cause, -EINVAL, "%s:%u: a second header inside the session",
			    r->name, r->line);
	if (t == SESSION_EV_N)
		return note_unknown(r, type), 1;
	e->type = (enum session_event_type)t;
	e->window = -1;
	if (get_double(o, "t", -1, &e->t) || e->t < 0)
		return fail(r->cause, -EINVAL, "%s:%u: %s event without a valid \"t\" (seconds since start)",
			    r->name, r->line, type);
	if (get_uint(o, "step", SESSION_MAX_STEP, 0, &step))
		return fail(r->cause, -EINVAL, "%s:%u: %s: 'step' is not a step number (0..%d)",
			    r->name, r->line, type, SESSION_MAX_STEP);
	e->step = (unsigned)step;

	switch (e->type) {
	case SESSION_EV_WINDOW: {
		struct profile *p = step_profile(l, e->step);
		if (!p)
			return fail(r->cause, -ENOMEM, "out of memory");
		int w = window_apply(o, p, &why);
		if (w < 0) {
			err = fail(r->cause, w, "%s:%u: %s", r->name, r->line, why ? why : "bad window");
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
			if (!strcmp(a, decision_names[d]))
				break;
		if (!a || d == SESSION_DECISION_N)
			return fail(r->cause, -EINVAL,
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
			err = fail(r->cause, err, "%s:%u: %s", r->name, r->line,
				   why ? why : "bad verdict");
			free(why);
			return err;
		}
		err = get_lines(o, "lines", &e->lines, &e->nlines);
		break;
	}
	case SESSION_EV_NOTE:
		what = "note";
		err = dup_opt(&e->text, get_str(o, "text", &bad));
		break;
	default:
		break;
	}
	if (err == -ENOMEM)
		return fail(r->cause, -ENOMEM, "out of memory");
	if (err || bad)
		return fail(r->cause, -EINVAL, "%s:%u: %s: a field has the wrong type",
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
		err = fail(cause, -EINVAL, "%s: empty file, not an argus session", r.name);
		goto fail;
	}
	while (pos < len) {
		const char *s = buf + pos, *nl = memchr(s, '\n', len - pos);
		if (!nl) {
			if (!have_header) {
				err = fail(cause, -EINVAL,
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
			err = fail(cause, -EINVAL, "%s:%u: binary data (a NUL byte); not an argus session",
				   r.name, r.line);
			goto fail;
		}
		if (n > SESSION_MAX_LINE) {
			err = fail(cause, -EFBIG, "%s:%u: a line of %zu bytes; an event is at most %u MiB "
				   "(the file is damaged or not argus's)", r.name, r.line, n,
				   SESSION_MAX_LINE >> 20);
			goto fail;
		}
		if (out->nev >= SESSION_MAX_EVENTS) {
			err = fail(cause, -EFBIG, "%s:%u: more than %u events; not a session argus wrote",
				   r.name, r.line, SESSION_MAX_EVENTS);
			goto fail;
		}
		const char *end = NULL, *what = NULL;
		o = cJSON_ParseWithLengthOpts(s, n, &end, 0);
		/* every string escaped before any reader takes it (core/json_safe.h) */
		if (o && (err = json_safe_tree(o, SESSION_MAX_STR, 0, &what)) < 0) {
			char w[48];

			sanitize_into(w, sizeof(w), what ? what : "?", 0);
			err = err == -E2BIG ?
				fail(cause, -EFBIG, "%s:%u: '%s' is longer than %u KiB or nested too "
				     "deep; the file is damaged or not argus's", r.name, r.line, w,
				     SESSION_MAX_STR >> 10) :
				fail(cause, err, "%s:%u: out of memory", r.name, r.line);
			goto fail;
		}
		while (o && end && end < s + n && (*end == ' ' || *end == '\t'))
			end++;
		if (!o || !cJSON_IsObject(o) || (end && end != s + n)) {
			if (!have_header)
				err = fail(cause, -EINVAL,
					   "%s: not an argus session (line %u is not a JSON object)",
					   r.name, r.line);
			else
				err = fail(cause, -EINVAL,
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
			if (out->nev == cap) {
				size_t nc = cap ? cap * 2 : 64;
				struct session_event *ne = realloc(out->ev, nc * sizeof(*ne));
				if (!ne) {
					err = fail(cause, -ENOMEM, "out of memory");
					goto fail;
				}
				out->ev = ne;
				cap = nc;
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
					err = fail(cause, -ENOMEM, "out of memory");
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
		err = fail(cause, -EINVAL, "%s: no session header; not an argus session", r.name);
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
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, err;

	memset(out, 0, sizeof(*out));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(cause, -errno, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= SESSION_MAX_FILE) {
				err = fail(cause, -EFBIG, "%s: larger than %llu MiB; not a session argus wrote",
					   path, SESSION_MAX_FILE >> 20);
				goto out;
			}
			cap = cap ? cap * 2 : 65536;
			char *b = realloc(buf, cap);
			if (!b) {
				err = fail(cause, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			buf = b;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = fail(cause, -errno, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	err = session_read_buf(path, buf ? buf : "", len, out, cause);
out:
	close(fd);
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
		int w = !o ? -ENOMEM : json_safe_tree(o, SESSION_MAX_STR, 0, NULL);

		if (w >= 0)
			w = window_apply(o, p, &why);
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
