/* step — parse, serialise, copy and edit instrumentation step specs. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "base/json_safe.h"
#include "base/num.h"
#include "data/step.h"

#define STEP_NAME_MAX 127       /* a tracepoint or function name */
#define STEP_TEXT_MAX 4096      /* rationale, expect */
#define STEP_TARGETS_MAX 1024   /* before expansion; the limit proper is in step_limits */
#define STEP_COMM_MAX 15        /* TASK_COMM_LEN - 1 */

static const struct {
	const char *name;
	const char *help;
} step_kinds[STEP_KIND_N] = {
	[STEP_SAMPLE] = { "sample",
		"CPU sampling (cpu-clock at freq_hz) with kernel stacks: where CPU time goes" },
	[STEP_TRACEPOINT_STACKS] = { "tracepoint_stacks",
		"each firing of the target tracepoints counted per kernel stack (1-in-N sampled when frequent)" },
	[STEP_TRACEPOINT_LATENCY] = { "tracepoint_latency",
		"time from a begin tracepoint to an end tracepoint on the same thread: count, log2 histogram, p50/p99, stacks at begin" },
	[STEP_FUNCTION_LATENCY] = { "function_latency",
		"time spent in a kernel function (fentry/fexit or kprobe/kretprobe): count, log2 histogram, stacks" },
	[STEP_OFFCPU] = { "offcpu",
		"time threads spend blocked, per kernel stack, with the waker's stack and identity" },
	[STEP_COUNTS] = { "counts",
		"event rates of a set of tracepoints (e.g. a whole category), no stacks" },
};

const char *step_kind_name(enum step_kind k)
{
	if ((int)k < 0 || k >= STEP_KIND_N)
		return NULL;
	return step_kinds[k].name;
}

const char *step_scope_name(enum step_scope_kind k)
{
	return k == STEP_SCOPE_LOAD ? "load" : k == STEP_SCOPE_SYSTEM ? "system" : "";
}

const char *step_kind_help(enum step_kind k)
{
	if ((int)k < 0 || k >= STEP_KIND_N)
		return NULL;
	return step_kinds[k].help;
}

int step_kind_parse(const char *name)
{
	for (int k = 0; name && k < STEP_KIND_N; k++)
		if (!strcmp(name, step_kinds[k].name))
			return k;
	return -EINVAL;
}

void step_limits_default(struct step_limits *lim)
{
	lim->max_duration_s = STEP_DURATION_MAX_S;
	lim->max_stacks = STEP_STACKS_MAX;
	lim->max_targets = 64;
	lim->max_freq_hz = STEP_FREQ_MAX_HZ;
	lim->max_sample_every = STEP_SAMPLE_EVERY_MAX;
}

int step_error_set(struct step_error *err, const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -EINVAL;
	snprintf(err->field, sizeof(err->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->line = err->col = 0;
	return -EINVAL;
}

unsigned step_edit_distance(const char *a, const char *b, unsigned cap)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[256], best, prev, tmp;

	if (la > 255 || lb > 255)
		return cap;
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			tmp = row[j];
			unsigned sub = prev + (a[i - 1] != b[j - 1]);
			unsigned del = row[j] + 1, ins = row[j - 1] + 1;
			row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
			prev = tmp;
			if (row[j] < best)
				best = row[j];
		}
		if (best >= cap)
			return cap;
	}
	return row[lb] < cap ? row[lb] : cap;
}

struct step *step_new(void)
{
	struct step *s = calloc(1, sizeof(*s));

	if (s)
		s->kind = STEP_SAMPLE;
	return s;
}

static void strv_free(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void step_free(struct step *s)
{
	if (!s)
		return;
	strv_free(s->targets, s->ntargets);
	strv_free(s->resolved, s->nresolved);
	free(s->begin);
	free(s->end);
	free(s->filter.comm);
	free(s->filter.cgroup);
	free(s->rationale);
	free(s->expect);
	free(s);
}

static int strdup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

static int strv_dup(char ***dst, const char *const *src, unsigned n)
{
	*dst = NULL;
	if (!n)
		return 0;
	*dst = calloc(n, sizeof(**dst));
	if (!*dst)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		if (!((*dst)[i] = strdup(src[i])))
			return -ENOMEM; /* the caller frees the partial vector */
	return 0;
}

struct step *step_clone(const struct step *s)
{
	struct step *c;
	int err = 0;

	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		errno = ENOMEM;
		return NULL;
	}
	*c = *s;
	c->targets = c->resolved = NULL;
	c->begin = c->end = c->rationale = c->expect = NULL;
	c->filter.comm = c->filter.cgroup = NULL;
	/* counts stay set so that step_free frees partial vectors */
	err |= strv_dup(&c->targets, (const char *const *)s->targets, s->ntargets);
	if (!c->targets)
		c->ntargets = 0;
	err |= strv_dup(&c->resolved, (const char *const *)s->resolved, s->nresolved);
	if (!c->resolved)
		c->nresolved = 0;
	err |= strdup_opt(&c->begin, s->begin);
	err |= strdup_opt(&c->end, s->end);
	err |= strdup_opt(&c->rationale, s->rationale);
	err |= strdup_opt(&c->expect, s->expect);
	err |= strdup_opt(&c->filter.comm, s->filter.comm);
	err |= strdup_opt(&c->filter.cgroup, s->filter.cgroup);
	if (err) {
		step_free(c);
		errno = ENOMEM;
		return NULL;
	}
	return c;
}

/* ---- parsing ------------------------------------------------------------- */

static const char *const step_keys[] = {
	"kind", "target", "begin", "end", "filter", "scope", "duration_s", "freq_hz",
	"sample_every", "max_stacks", "duty", "rationale", "expect", NULL,
};
static const char *const filter_keys[] = { "pid", "tgid", "comm", "cgroup", NULL };

static void offset_to_line_col(const char *text, size_t len, size_t off, int *line, int *col)
{
	int l = 1, c = 1;

	for (size_t i = 0; i < off && i < len; i++) {
		if (text[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

/* "unknown key 'x' ...; did you mean 'y'" — the nearest of keys, if close. */
static const char *nearest_key(const char *key, const char *const *keys)
{
	const char *best = NULL;
	unsigned bd = 4;

	for (unsigned i = 0; keys[i]; i++) {
		unsigned d = step_edit_distance(key, keys[i], bd);
		if (d < bd) {
			bd = d;
			best = keys[i];
		}
		if (!best && strlen(key) >= 3 && !strncmp(key, keys[i], strlen(key)))
			best = keys[i];
	}
	return best;
}

static int unknown_key(struct step_error *err, const char *where, const char *key,
		       const char *const *keys)
{
	char list[160] = "";
	size_t n = 0;
	const char *near = nearest_key(key, keys);

	for (unsigned i = 0; keys[i]; i++)
		n += snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
			      i ? ", " : "", keys[i]);
	if (near)
		return step_error_set(err, where, "unknown key '%.40s'; did you mean '%s'? keys: %s",
				      key, near, list);
	return step_error_set(err, where, "unknown key '%.40s'; keys: %s", key, list);
}

static const char *json_type_name(const cJSON *j)
{
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	if (cJSON_IsNull(j))
		return "null";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsObject(j))
		return "an object";
	return "invalid";
}

static int get_string(const cJSON *j, const char *field, size_t max, char **dst,
		      struct step_error *err)
{
	size_t n;

	if (!cJSON_IsString(j) || !j->valuestring)
		return step_error_set(err, field, "%s must be a string, not %s", field,
				      json_type_name(j));
	n = strlen(j->valuestring);
	if (n > max)
		return step_error_set(err, field, "%s is too long (%zu bytes; at most %zu)",
				      field, n, max);
	free(*dst);
	*dst = strdup(j->valuestring);
	return *dst ? 0 : -ENOMEM;
}

static int get_name(const cJSON *j, const char *field, char **dst, struct step_error *err)
{
	int rc = get_string(j, field, STEP_NAME_MAX, dst, err);

	if (!rc && !**dst)
		return step_error_set(err, field, "%s is empty; name a tracepoint or function", field);
	return rc;
}

/* An integer in [lo, hi]; JSON numbers are doubles, so check integrality. */
static int get_uint(const cJSON *j, const char *field, double lo, double hi, const char *unit,
		    unsigned *dst, struct step_error *err)
{
	char *msg;
	double v;

	if (!cJSON_IsNumber(j))
		return step_error_set(err, field, "%s must be a whole number, not %s", field,
				      json_type_name(j));
	v = j->valuedouble;
	msg = num_check_whole(v, lo, hi, unit);
	if (msg) {
		step_error_set(err, field, "%s %s", field, msg);
		free(msg);
		return -EINVAL;
	}
	*dst = (unsigned)v;
	return 0;
}

static int parse_filter(const cJSON *obj, struct step_filter *f, struct step_error *err)
{
	const cJSON *j;
	unsigned u;
	int rc;

	if (!cJSON_IsObject(obj))
		return step_error_set(err, "filter",
				      "filter must be an object like {\"comm\": \"name\"}, not %s",
				      json_type_name(obj));
	cJSON_ArrayForEach(j, obj) {
		const char *k = j->string ? j->string : "";
		char field[32];

		snprintf(field, sizeof(field), "filter.%.24s", k);
		for (const cJSON *p = obj->child; p != j; p = p->next)
			if (p->string && !strcmp(p->string, k))
				return step_error_set(err, field, "duplicate key '%.40s' in filter", k);
		if (!strcmp(k, "pid") || !strcmp(k, "tgid")) {
			rc = get_uint(j, field, 1, STEP_PID_MAX, "a process ID", &u, err);
			if (rc)
				return rc;
			*(!strcmp(k, "pid") ? &f->pid : &f->tgid) = (int)u;
		} else if (!strcmp(k, "comm")) {
			rc = get_string(j, field, STEP_COMM_MAX, &f->comm, err);
			if (rc)
				return rc;
			if (!*f->comm)
				return step_error_set(err, field, "filter.comm is empty; give a task name or leave it out");
		} else if (!strcmp(k, "cgroup")) {
			rc = get_string(j, field, PATH_MAX - 1, &f->cgroup, err);
			if (rc)
				return rc;
			if (!*f->cgroup)
				return step_error_set(err, field, "filter.cgroup is empty; give a cgroup v2 path or leave it out");
		} else {
			return unknown_key(err, field, k, filter_keys);
		}
	}
	return 0;
}

static int parse_targets(const cJSON *j, struct step *s, struct step_error *err)
{
	const cJSON *e;
	unsigned n = 0, i = 0;
	int rc;

	if (cJSON_IsString(j)) {
		s->targets = calloc(1, sizeof(char *));
		if (!s->targets)
			return -ENOMEM;
		s->ntargets = 1;
		return get_name(j, "target", &s->targets[0], err);
	}
	if (!cJSON_IsArray(j))
		return step_error_set(err, "target",
				      "target must be a string or an array of strings, not %s",
				      json_type_name(j));
	n = (unsigned)cJSON_GetArraySize(j);
	if (!n)
		return step_error_set(err, "target", "target is an empty list; name at least one");
	if (n > STEP_TARGETS_MAX)
		return step_error_set(err, "target", "target lists %u names; at most %u",
				      n, STEP_TARGETS_MAX);
	s->targets = calloc(n, sizeof(char *));
	if (!s->targets)
		return -ENOMEM;
	s->ntargets = n;
	cJSON_ArrayForEach(e, j) {
		char field[32];

		snprintf(field, sizeof(field), "target[%u]", i);
		rc = get_name(e, field, &s->targets[i], err);
		if (rc)
			return rc;
		i++;
	}
	return 0;
}

static int kind_error(struct step_error *err, const char *given)
{
	char list[128] = "";
	size_t n = 0;
	const char *near = NULL;
	unsigned bd = 5;

	for (int k = 0; k < STEP_KIND_N; k++) {
		unsigned d = step_edit_distance(given, step_kinds[k].name, bd);
		if (d < bd) {
			bd = d;
			near = step_kinds[k].name;
		}
		n += snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0, "%s%s",
			      k ? ", " : "", step_kinds[k].name);
	}
	if (near)
		return step_error_set(err, "kind", "unknown kind '%.40s'; did you mean '%s'? kinds: %s",
				      given, near, list);
	return step_error_set(err, "kind", "unknown kind '%.40s'; kinds: %s", given, list);
}

static int parse_object(const cJSON *root, struct step *s, struct step_error *err)
{
	const cJSON *j;
	int have_kind = 0, have_duration = 0, rc = 0;

	cJSON_ArrayForEach(j, root) {
		const char *k = j->string ? j->string : "";

		for (const cJSON *p = root->child; p != j; p = p->next)
			if (p->string && !strcmp(p->string, k))
				return step_error_set(err, k, "duplicate key '%.40s'", k);
		if (!strcmp(k, "kind")) {
			if (!cJSON_IsString(j))
				return step_error_set(err, "kind", "kind must be a string, not %s",
						      json_type_name(j));
			rc = step_kind_parse(j->valuestring);
			if (rc < 0)
				return kind_error(err, j->valuestring);
			s->kind = rc;
			rc = 0;
			have_kind = 1;
		} else if (!strcmp(k, "target")) {
			rc = parse_targets(j, s, err);
		} else if (!strcmp(k, "begin")) {
			rc = get_name(j, "begin", &s->begin, err);
		} else if (!strcmp(k, "end")) {
			rc = get_name(j, "end", &s->end, err);
		} else if (!strcmp(k, "filter")) {
			rc = parse_filter(j, &s->filter, err);
		} else if (!strcmp(k, "scope")) {
			if (!cJSON_IsString(j) || (strcmp(j->valuestring, "load") &&
						   strcmp(j->valuestring, "system")))
				return step_error_set(err, "scope", "scope must be \"load\" (the "
						      "diagnosed processes) or \"system\" (every "
						      "process)");
			s->scope = !strcmp(j->valuestring, "load") ? STEP_SCOPE_LOAD
								    : STEP_SCOPE_SYSTEM;
		} else if (!strcmp(k, "duration_s")) {
			if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble))
				return step_error_set(err, "duration_s",
						      "duration_s must be a number of seconds, not %s",
						      json_type_name(j));
			s->duration_s = j->valuedouble;
			have_duration = 1;
		} else if (!strcmp(k, "freq_hz")) {
			rc = get_uint(j, "freq_hz", 1, STEP_FREQ_MAX_HZ, "Hz", &s->freq_hz, err);
		} else if (!strcmp(k, "sample_every")) {
			rc = get_uint(j, "sample_every", 0, STEP_SAMPLE_EVERY_MAX, "events",
				      &s->sample_every, err);
		} else if (!strcmp(k, "max_stacks")) {
			rc = get_uint(j, "max_stacks", 1, STEP_STACKS_MAX, "stacks", &s->max_stacks, err);
		} else if (!strcmp(k, "duty")) {
			if (!cJSON_IsNumber(j) || !isfinite(j->valuedouble) ||
			    j->valuedouble < STEP_DUTY_MIN || j->valuedouble > 1)
				return step_error_set(err, "duty", "duty is the fraction of each window "
						      "attached, between %g and 1", STEP_DUTY_MIN);
			s->duty = j->valuedouble;
		} else if (!strcmp(k, "rationale")) {
			rc = get_string(j, "rationale", STEP_TEXT_MAX, &s->rationale, err);
		} else if (!strcmp(k, "expect")) {
			rc = get_string(j, "expect", STEP_TEXT_MAX, &s->expect, err);
		} else {
			return unknown_key(err, k, k, step_keys);
		}
		if (rc)
			return rc;
	}
	if (!have_kind)
		return step_error_set(err, "kind", "missing required key 'kind' (one of: sample, tracepoint_stacks, tracepoint_latency, function_latency, offcpu, counts)");
	if (!have_duration)
		return step_error_set(err, "duration_s", "missing required key 'duration_s' (seconds to measure in each condition)");
	return step_check_required(s, err);
}

int step_parse_json(const char *text, size_t len, struct step **out, struct step_error *err)
{
	const char *end = NULL;
	cJSON *root = NULL;
	struct step *s = NULL;
	int rc = 0;

	*out = NULL;
	if (err)
		memset(err, 0, sizeof(*err));
	if (!text)
		len = 0;
	root = cJSON_ParseWithLengthOpts(text ? text : "", len, &end, 0);
	if (!root) {
		size_t off = end && end >= text ? (size_t)(end - text) : 0;

		rc = step_error_set(err, "", "the step is not valid JSON (%s)",
				    off >= len ? "it ends too early" : "unexpected text here");
		if (err && text)
			offset_to_line_col(text, len, off, &err->line, &err->col);
		else if (err)
			err->line = err->col = 1;
		goto out;
	}
	/* Trailing text after the object is a syntax error too. */
	if (end) {
		size_t off = (size_t)(end - text);
		while (off < len && strchr(" \t\r\n", text[off]))
			off++;
		if (off < len && text[off]) {
			rc = step_error_set(err, "", "the step is not valid JSON (text after the object)");
			if (err)
				offset_to_line_col(text, len, off, &err->line, &err->col);
			goto out;
		}
	}
	if (!cJSON_IsObject(root)) {
		rc = step_error_set(err, "", "a step must be a JSON object like {\"kind\": ...}, not %s",
				    json_type_name(root));
		goto out;
	}
	/* a spec comes from an LLM or a file: its strings are shown, so escape
	 * them first (a rationale holding "\x1b]0;..." retitles no terminal) */
	if (json_safe_tree(root, STEP_TEXT_MAX * 4, 0, NULL) < 0) {
		rc = step_error_set(err, "", "the step holds a string over %d bytes or is nested "
				    "too deep", STEP_TEXT_MAX * 4);
		goto out;
	}
	s = step_new();
	if (!s) {
		rc = -ENOMEM;
		goto out;
	}
	rc = parse_object(root, s, err);
	if (!rc) {
		*out = s;
		s = NULL;
	}
out:
	step_free(s);
	cJSON_Delete(root);
	return rc;
}

int step_check_required(const struct step *s, struct step_error *err)
{
	const char *kn = step_kind_name(s->kind);

	if (!kn)
		return step_error_set(err, "kind", "unknown kind %d; kinds: sample, tracepoint_stacks, tracepoint_latency, function_latency, offcpu, counts",
				      (int)s->kind);
	switch (s->kind) {
	case STEP_TRACEPOINT_STACKS:
	case STEP_COUNTS:
		if (!s->ntargets)
			return step_error_set(err, "target", "%s needs a target: a tracepoint 'category:name', 'category:*', or a list of them", kn);
		break;
	case STEP_FUNCTION_LATENCY:
		if (!s->ntargets)
			return step_error_set(err, "target", "function_latency needs a target: a kernel function name");
		break;
	case STEP_TRACEPOINT_LATENCY:
		if (s->ntargets)
			return step_error_set(err, "target", "tracepoint_latency takes 'begin' and 'end' tracepoints, not 'target'");
		if (!s->begin)
			return step_error_set(err, "begin", "tracepoint_latency needs 'begin' (the tracepoint that starts the interval)");
		if (!s->end)
			return step_error_set(err, "end", "tracepoint_latency needs 'end' (the tracepoint that ends the interval)");
		break;
	case STEP_SAMPLE:
	case STEP_OFFCPU:
		if (s->ntargets)
			return step_error_set(err, "target", "%s takes no target (it covers every CPU); narrow it with 'filter'", kn);
		break;
	default:
		break;
	}
	if (s->kind != STEP_TRACEPOINT_LATENCY && (s->begin || s->end))
		return step_error_set(err, s->begin ? "begin" : "end",
				      "'begin' and 'end' apply only to tracepoint_latency, not %s", kn);
	return 0;
}

/* ---- serialising ---------------------------------------------------------- */

char *step_to_json(const struct step *s)
{
	cJSON *o = NULL, *f;
	char *txt = NULL;
	int ok = 1;

	if (!s || !step_kind_name(s->kind)) {
		errno = EINVAL;
		return NULL;
	}
	o = cJSON_CreateObject();
	if (!o)
		goto out;
	ok &= !!cJSON_AddStringToObject(o, "kind", step_kind_name(s->kind));
	if (s->ntargets == 1) {
		ok &= !!cJSON_AddStringToObject(o, "target", s->targets[0]);
	} else if (s->ntargets > 1) {
		cJSON *a = cJSON_CreateStringArray((const char *const *)s->targets, (int)s->ntargets);
		ok &= a && cJSON_AddItemToObject(o, "target", a);
	}
	if (s->begin)
		ok &= !!cJSON_AddStringToObject(o, "begin", s->begin);
	if (s->end)
		ok &= !!cJSON_AddStringToObject(o, "end", s->end);
	if (s->filter.pid || s->filter.tgid || s->filter.comm || s->filter.cgroup) {
		f = cJSON_AddObjectToObject(o, "filter");
		ok &= !!f;
		if (f && s->filter.pid)
			ok &= !!cJSON_AddNumberToObject(f, "pid", s->filter.pid);
		if (f && s->filter.tgid)
			ok &= !!cJSON_AddNumberToObject(f, "tgid", s->filter.tgid);
		if (f && s->filter.comm)
			ok &= !!cJSON_AddStringToObject(f, "comm", s->filter.comm);
		if (f && s->filter.cgroup)
			ok &= !!cJSON_AddStringToObject(f, "cgroup", s->filter.cgroup);
	}
	if (s->scope != STEP_SCOPE_AUTO)
		ok &= !!cJSON_AddStringToObject(o, "scope", step_scope_name(s->scope));
	ok &= !!cJSON_AddNumberToObject(o, "duration_s", s->duration_s);
	if (s->freq_hz)
		ok &= !!cJSON_AddNumberToObject(o, "freq_hz", s->freq_hz);
	if (s->sample_every)
		ok &= !!cJSON_AddNumberToObject(o, "sample_every", s->sample_every);
	if (s->max_stacks)
		ok &= !!cJSON_AddNumberToObject(o, "max_stacks", s->max_stacks);
	if (s->duty > 0 && s->duty < 1)
		ok &= !!cJSON_AddNumberToObject(o, "duty", s->duty);
	if (s->rationale)
		ok &= !!cJSON_AddStringToObject(o, "rationale", s->rationale);
	if (s->expect)
		ok &= !!cJSON_AddStringToObject(o, "expect", s->expect);
	if (ok)
		txt = cJSON_Print(o);
out:
	cJSON_Delete(o);
	if (!txt)
		errno = ENOMEM;
	return txt;
}

char *step_describe(const struct step *s, char *buf, size_t len)
{
	size_t n = 0;

#define APPEND(...) (n += snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (!len)
		return buf;
	buf[0] = 0;
	APPEND("%s", step_kind_name(s->kind) ? step_kind_name(s->kind) : "?");
	for (unsigned i = 0; i < s->ntargets; i++)
		APPEND("%s%s", i ? "," : " ", s->targets[i]);
	if (s->begin || s->end)
		APPEND(" %s -> %s", s->begin ? s->begin : "?", s->end ? s->end : "?");
	/* scope load: the filter is the run's processes, which the card and the
	 * JSON spell out; a transcript line says only the scope */
	if (s->filter.pid && s->scope != STEP_SCOPE_LOAD)
		APPEND(" pid=%d", s->filter.pid);
	if (s->filter.tgid && s->scope != STEP_SCOPE_LOAD)
		APPEND(" tgid=%d", s->filter.tgid);
	if (s->filter.comm)
		APPEND(" comm=%s", s->filter.comm);
	if (s->filter.cgroup && s->scope != STEP_SCOPE_LOAD)
		APPEND(" cgroup=%s", s->filter.cgroup);
	if (s->scope != STEP_SCOPE_AUTO)
		APPEND(" scope=%s", step_scope_name(s->scope));
	APPEND(" %gs", s->duration_s);
	if (s->freq_hz)
		APPEND(" %uHz", s->freq_hz);
	if (s->sample_every)
		APPEND(" 1/%u", s->sample_every);
	if (s->duty > 0 && s->duty < 1)
		APPEND(" duty %.2f", s->duty);
#undef APPEND
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}

/* ---- editing field by field ----------------------------------------------- */

static int set_text(char **dst, const char *value, size_t max, const char *field,
		    struct step_error *err)
{
	size_t n = strlen(value);

	if (n > max)
		return step_error_set(err, field, "%s is too long (%zu bytes; at most %zu)", field, n, max);
	free(*dst);
	*dst = NULL;
	if (!n)
		return 0;
	*dst = strdup(value);
	return *dst ? 0 : -ENOMEM;
}

static int parse_uint_text(const char *value, const char *field, unsigned long lo,
			   unsigned long hi, const char *unit, unsigned long *out,
			   struct step_error *err)
{
	char *msg = NULL;
	int64_t v;

	if (num_parse_int64(value, (int64_t)lo, (int64_t)hi, unit, &v, &msg) < 0) {
		step_error_set(err, field, "%s %s", field, msg ? msg : "bad number");
		free(msg);
		return -EINVAL;
	}
	*out = (unsigned long)v;
	return 0;
}

static int set_targets(struct step *s, const char *value, struct step_error *err)
{
	char **v = NULL, *copy = NULL, *save = NULL, *tok;
	unsigned n = 0;
	int rc = 0;

	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char field[32];

		snprintf(field, sizeof(field), "target[%u]", n);
		if (strlen(tok) > STEP_NAME_MAX) {
			rc = step_error_set(err, field, "%s is too long (%zu bytes; at most %d)",
					    field, strlen(tok), STEP_NAME_MAX);
			goto out;
		}
		if (n >= STEP_TARGETS_MAX) {
			rc = step_error_set(err, "target", "too many targets; at most %u", STEP_TARGETS_MAX);
			goto out;
		}
		if (vec_resize(&v, (size_t)n + 1, sizeof(*v))) {
			rc = -ENOMEM;
			goto out;
		}
		if (!(v[n] = strdup(tok))) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	strv_free(s->targets, s->ntargets);
	s->targets = v;
	s->ntargets = n;
	v = NULL;
	n = 0;
out:
	strv_free(v, n);
	free(copy);
	return rc;
}

int step_set_field(struct step *s, const char *field, const char *value, struct step_error *err)
{
	unsigned long u = 0;
	int rc;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!value)
		value = "";
	while (*value == ' ')
		value++;
	if (!strcmp(field, "kind")) {
		rc = step_kind_parse(value);
		if (rc < 0)
			return kind_error(err, value);
		s->kind = rc;
		return 0;
	}
	if (!strcmp(field, "target"))
		return set_targets(s, value, err);
	if (!strcmp(field, "begin"))
		return set_text(&s->begin, value, STEP_NAME_MAX, field, err);
	if (!strcmp(field, "end"))
		return set_text(&s->end, value, STEP_NAME_MAX, field, err);
	if (!strcmp(field, "rationale"))
		return set_text(&s->rationale, value, STEP_TEXT_MAX, field, err);
	if (!strcmp(field, "expect"))
		return set_text(&s->expect, value, STEP_TEXT_MAX, field, err);
	if (!strcmp(field, "filter.comm"))
		return set_text(&s->filter.comm, value, STEP_COMM_MAX, field, err);
	if (!strcmp(field, "filter.cgroup"))
		return set_text(&s->filter.cgroup, value, PATH_MAX - 1, field, err);
	if (!strcmp(field, "scope")) {
		if (*value && strcmp(value, "load") && strcmp(value, "system"))
			return step_error_set(err, field, "scope is load (the diagnosed processes), "
					      "system (every process) or empty");
		s->scope = !*value ? STEP_SCOPE_AUTO : !strcmp(value, "load") ? STEP_SCOPE_LOAD
									   : STEP_SCOPE_SYSTEM;
		if (*value) {   /* the process filter is the scope's: put back or gone */
			s->filter.pid = s->filter.tgid = 0;
			free(s->filter.cgroup);
			s->filter.cgroup = NULL;
		}
		return 0;
	}
	if (!strcmp(field, "duration_s")) {
		char *msg = NULL;
		double d;

		if (num_parse_double(value, 0.001, STEP_DURATION_MAX_S, "seconds", &d, &msg) < 0) {
			step_error_set(err, field, "duration_s %s", msg ? msg : "bad number");
			free(msg);
			return -EINVAL;
		}
		s->duration_s = d;
		return 0;
	}
	if (!strcmp(field, "duty")) {
		char *msg = NULL;
		double d;

		if (!*value) {
			s->duty = 0;
			return 0;
		}
		if (num_parse_double(value, STEP_DUTY_MIN, 1, "of each window", &d, &msg) < 0) {
			step_error_set(err, field, "duty %s", msg ? msg : "bad number");
			free(msg);
			return -EINVAL;
		}
		s->duty = d;
		return 0;
	}
	if (!strcmp(field, "freq_hz") || !strcmp(field, "sample_every") ||
	    !strcmp(field, "max_stacks") || !strcmp(field, "filter.pid") ||
	    !strcmp(field, "filter.tgid")) {
		int is_pid = !strncmp(field, "filter.", 7);
		unsigned long hi = is_pid ? STEP_PID_MAX :
				   !strcmp(field, "freq_hz") ? STEP_FREQ_MAX_HZ :
				   !strcmp(field, "sample_every") ? STEP_SAMPLE_EVERY_MAX : STEP_STACKS_MAX;
		const char *unit = is_pid ? "a process ID" : !strcmp(field, "freq_hz") ? "Hz" :
				   !strcmp(field, "sample_every") ? "events" : "stacks";

		if (!*value)
			u = 0;
		else if ((rc = parse_uint_text(value, field, is_pid || strcmp(field, "sample_every") ? 1 : 0,
					      hi, unit, &u, err)))
			return rc;
		if (!strcmp(field, "freq_hz"))
			s->freq_hz = (unsigned)u;
		else if (!strcmp(field, "sample_every"))
			s->sample_every = (unsigned)u;
		else if (!strcmp(field, "max_stacks"))
			s->max_stacks = (unsigned)u;
		else if (!strcmp(field, "filter.pid"))
			s->filter.pid = (int)u;
		else
			s->filter.tgid = (int)u;
		return 0;
	}
	return step_error_set(err, field, "unknown field '%.40s'", field);
}
