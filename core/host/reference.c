/* reference — save and load idle-system references (format in reference.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "host/reference.h"
#include "base/sanitize.h"
#include "base/util.h"

#define REFERENCE_MAX_FRAMES 256

void reference_meta_here(struct reference_meta *m, const char *probe_set, unsigned freq_hz)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0) {
		snprintf(m->host, sizeof(m->host), "%s", u.nodename);
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
	}
	snprintf(m->probe_set, sizeof(m->probe_set), "%s", probe_set ? probe_set : "");
	snprintf(m->scope, sizeof(m->scope), "%s", REFERENCE_SCOPE_SYSTEM);
	m->freq_hz = freq_hz;
}

/* Keeps a name safe for a file name: [A-Za-z0-9._-], others become '_'. */
static void ref_sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '_'))
			*s = '_';
}

char *reference_default_path(const struct reference_meta *m)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX], name[512];
	char *ret;

	if (state && *state)
		snprintf(base, sizeof(base), "%s/argus", state);
	else if (home && *home)
		snprintf(base, sizeof(base), "%s/.local/state/argus", home);
	else {
		errno = ENOENT;
		return NULL;
	}
	snprintf(name, sizeof(name), "reference-%s-%s-%s.jsonl", m->host, m->kernel, m->probe_set);
	ref_sanitize(name);
	if (asprintf(&ret, "%s/%s", base, name) < 0)
		return NULL;
	return ret;
}

/* mkdir -p of path's directory. */
static int ref_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	char *p;

	snprintf(buf, sizeof(buf), "%s", path);
	p = strrchr(buf, '/');
	if (!p || p == buf)
		return 0;
	*p = 0;
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0700) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int ref_print_line(FILE *f, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	int err = 0;

	if (!s)
		return -ENOMEM;
	if (fprintf(f, "%s\n", s) < 0)
		err = -EIO;
	cJSON_free(s);
	return err;
}

int reference_save(const struct profile *p, const struct reference_meta *m,
		   const char *path, char **cause)
{
	char tmp[PATH_MAX];
	cJSON *hdr = NULL, *wins, *o = NULL;
	int *map = NULL;   /* profile window -> file window, -1 when not REF */
	unsigned nref = 0;
	FILE *f = NULL;
	int err;

	err = ref_mkdirs(path);
	if (err < 0) {
		util_cause(cause, "cannot create the directory of %s: %s", path, strerror(-err));
		goto out;
	}
	map = calloc(p->nwin ? p->nwin : 1, sizeof(*map));
	hdr = cJSON_CreateObject();
	if (!map || !hdr) {
		err = -ENOMEM;
		goto out;
	}
	cJSON_AddStringToObject(hdr, "format", "argus-reference");
	cJSON_AddNumberToObject(hdr, "version", 1);
	cJSON_AddStringToObject(hdr, "host", m->host);
	cJSON_AddStringToObject(hdr, "kernel", m->kernel);
	cJSON_AddStringToObject(hdr, "probe_set", m->probe_set);
	cJSON_AddNumberToObject(hdr, "freq_hz", m->freq_hz);
	cJSON_AddNumberToObject(hdr, "created", (double)time(NULL));
	cJSON_AddStringToObject(hdr, "scope", m->scope[0] ? m->scope : REFERENCE_SCOPE_SYSTEM);
	wins = cJSON_AddArrayToObject(hdr, "windows");
	for (unsigned w = 0; w < p->nwin; w++) {
		cJSON *jw;

		map[w] = -1;
		if (p->wins[w].cond != COND_REF)
			continue;
		map[w] = (int)nref++;
		jw = cJSON_CreateObject();
		cJSON_AddNumberToObject(jw, "secs", p->wins[w].secs);
		cJSON_AddItemToArray(wins, jw);
	}
	if (!nref) {
		err = -EINVAL;
		util_cause(cause, "cannot save a reference: no reference window was measured");
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f) {
		err = -errno;
		util_cause(cause, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	err = ref_print_line(f, hdr);
	for (size_t i = 0; i < p->nstacks && !err; i++) {
		const struct profile_stack *s = &p->stacks[i];

		for (unsigned w = 0; w < p->nwin && !err; w++) {
			cJSON *fr;

			if (map[w] < 0 || !s->win[w])
				continue;
			o = cJSON_CreateObject();
			if (!o) {
				err = -ENOMEM;
				break;
			}
			cJSON_AddNumberToObject(o, "win", map[w]);
			cJSON_AddNumberToObject(o, "count", (double)s->win[w]);
			cJSON_AddNumberToObject(o, "tgid", s->tgid);
			cJSON_AddStringToObject(o, "comm", s->comm ? s->comm : "");
			fr = cJSON_AddArrayToObject(o, "frames");
			for (uint32_t k = 0; k < s->nframes; k++)
				cJSON_AddItemToArray(fr, cJSON_CreateString(s->frames[k]));
			err = ref_print_line(f, o);
			cJSON_Delete(o);
			o = NULL;
		}
	}
	if (fclose(f) != 0 && !err)
		err = -errno;
	f = NULL;
	if (!err && rename(tmp, path) < 0)
		err = -errno;
	if (err) {
		unlink(tmp);
		if (cause && !*cause)
			util_cause(cause, "cannot write %s: %s", path, strerror(-err));
	}
out:
	if (f)
		fclose(f);
	cJSON_Delete(hdr);
	free(map);
	return err;
}

static const char *ref_str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int ref_num(const cJSON *o, const char *key, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v))
		return -EINVAL;
	*out = v->valuedouble;
	return 0;
}

int reference_load(const char *path, const struct reference_meta *want, double max_age_s,
		   struct profile *p, struct reference_meta *got, char **cause)
{
	struct reference_meta m = { 0 };
	const char *frames[REFERENCE_MAX_FRAMES];
	cJSON *hdr = NULL, *o = NULL;
	unsigned base = p->nwin, nwin = 0, lineno = 1;
	char *line = NULL;
	size_t cap = 0;
	double v, age;
	FILE *f;
	int err = 0;

	f = fopen(path, "re");
	if (!f) {
		err = -errno;
		util_cause(cause, "cannot read reference %s: %s%s", path, strerror(errno),
			   errno == ENOENT ? "; record one with 'argus reference save'" : "");
		return err;
	}
	if (getline(&line, &cap, f) < 0 || !(hdr = cJSON_Parse(line)) ||
	    !ref_str(hdr, "format") || strcmp(ref_str(hdr, "format"), "argus-reference")) {
		err = -EINVAL;
		util_cause(cause, "%s: line 1: not an argus reference", path);
		goto out;
	}
	if (ref_num(hdr, "version", &v) < 0 || v != 1) {
		err = -EINVAL;
		util_cause(cause, "%s: unsupported reference version", path);
		goto out;
	}
	snprintf(m.host, sizeof(m.host), "%s", ref_str(hdr, "host") ? ref_str(hdr, "host") : "");
	snprintf(m.kernel, sizeof(m.kernel), "%s",
		 ref_str(hdr, "kernel") ? ref_str(hdr, "kernel") : "");
	snprintf(m.probe_set, sizeof(m.probe_set), "%s",
		 ref_str(hdr, "probe_set") ? ref_str(hdr, "probe_set") : "");
	if (ref_num(hdr, "freq_hz", &v) == 0)
		m.freq_hz = (unsigned)v;
	if (ref_num(hdr, "created", &v) == 0)
		m.created = v;
	snprintf(m.scope, sizeof(m.scope), "%s",
		 ref_str(hdr, "scope") ? ref_str(hdr, "scope") : REFERENCE_SCOPE_SYSTEM);
	if (got)
		*got = m;
	if (want) {
		if (strcmp(want->host, m.host)) {
			err = -ESTALE;
			util_cause(cause, "reference %s was recorded on host '%s', this is '%s'; "
				   "record one here with 'argus reference save'", path, m.host, want->host);
			goto out;
		}
		if (strcmp(want->kernel, m.kernel)) {
			err = -ESTALE;
			util_cause(cause, "reference %s was recorded on kernel %s, this is %s; "
				   "record a new one with 'argus reference save'", path, m.kernel,
				   want->kernel);
			goto out;
		}
		if (strcmp(want->probe_set, m.probe_set)) {
			err = -ESTALE;
			util_cause(cause, "reference %s measured %s, this run measures %s; record one "
				   "with the same --freq using 'argus reference save'", path, m.probe_set,
				   want->probe_set);
			goto out;
		}
	}
	age = (double)time(NULL) - m.created;
	if (max_age_s <= 0)
		max_age_s = REFERENCE_MAX_AGE_S;
	if (age > max_age_s) {
		err = -ESTALE;
		util_cause(cause, "reference %s is stale: recorded %.1f h ago (limit %.0f h); "
			   "record a new one with 'argus reference save'", path, age / 3600,
			   max_age_s / 3600);
		goto out;
	}
	{
		const cJSON *wins = cJSON_GetObjectItemCaseSensitive(hdr, "windows"), *w;

		cJSON_ArrayForEach(w, wins) {
			double secs = 0;
			int wi;

			ref_num(w, "secs", &secs);
			wi = profile_window_begin(p, COND_REF, 0);
			if (wi < 0) {
				err = wi;
				goto out;
			}
			profile_window_end(p, (unsigned)wi, secs);
			nwin++;
		}
	}
	if (!nwin) {
		err = -EINVAL;
		util_cause(cause, "%s: the reference holds no window", path);
		goto out;
	}
	while (getline(&line, &cap, f) > 0) {
		const cJSON *fr, *x;
		double win, count, tgid = 0;
		unsigned n = 0;

		lineno++;
		if (line[0] == '\n')
			continue;
		o = cJSON_Parse(line);
		if (!o || ref_num(o, "win", &win) < 0 || ref_num(o, "count", &count) < 0 ||
		    win < 0 || win >= nwin || count < 0 ||
		    !cJSON_IsArray(fr = cJSON_GetObjectItemCaseSensitive(o, "frames"))) {
			err = -EINVAL;
			util_cause(cause, "%s: line %u: not a reference stack line", path, lineno);
			goto out;
		}
		ref_num(o, "tgid", &tgid);
		cJSON_ArrayForEach(x, fr) {
			if (!cJSON_IsString(x) || n == REFERENCE_MAX_FRAMES)
				break;
			frames[n++] = x->valuestring;
		}
		err = profile_add(p, base + (unsigned)win, frames, n, (uint32_t)tgid,
				  ref_str(o, "comm"), (uint64_t)count);
		if (err < 0)
			goto out;
		cJSON_Delete(o);
		o = NULL;
	}
out:
	cJSON_Delete(o);
	cJSON_Delete(hdr);
	free(line);
	fclose(f);
	return err;
}

int reference_scope_check(const struct reference_meta *got, const char *loaded, int strict,
			  char **cause)
{
	char sc[64];

	if (!strcmp(got->scope, loaded))
		return 0;
	sanitize_into(sc, sizeof(sc), got->scope, 0);
	if (strict) {
		util_cause(cause, "the saved reference is scoped to '%s' and the loaded windows are "
			   "%s: not like with like (--strict); record a reference with 'argus "
			   "reference save'", sc, loaded);
		return -EINVAL;
	}
	util_cause(cause, "the saved reference is scoped to '%s' and the loaded windows are %s: "
		   "the deltas compare different processes (--strict refuses)", sc, loaded);
	return 1;
}

char *reference_scope_line(const struct reference_meta *got, const char *loaded, char *buf,
			   size_t len)
{
	char when[32] = "", sc[64];
	time_t t = (time_t)got->created;
	struct tm tm;

	if (t > 0 && localtime_r(&t, &tm))
		strftime(when, sizeof(when), ", saved %H:%M", &tm);
	sanitize_into(sc, sizeof(sc), got->scope, 0);
	snprintf(buf, len, "%s%s%s", sc, when,
		 strcmp(got->scope, loaded) ? ": not the loaded windows' scope" : "");
	return buf;
}
