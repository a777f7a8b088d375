/* step_validate — a step against this kernel and the limits: precise,
 * field-tagged errors a person (or an LLM repair turn) can act on. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/vec.h"
#include "probe/caps.h"
#include "probe/kind_util.h"
#include "data/step.h"

#define NEAREST 3

/* Functions a kernel build commonly inlines into one caller (KERNEL-NOTES):
 * when absent, say so and name the caller to trace instead. */
static const struct {
	const char *name, *caller;
} inlined_hints[] = {
	{ "do_read_fault", "do_fault" },
	{ "do_cow_fault", "do_fault" },
	{ "do_shared_fault", "do_fault" },
	{ "wp_page_copy", "do_wp_page" },
	{ "compact_zone", "compact_zone_order" },
	{ "do_anonymous_page", "handle_mm_fault" },
	{ "handle_pte_fault", "handle_mm_fault" },
};

struct nearest {
	const char *name[NEAREST];
	const char *cat[NEAREST];
	unsigned score[NEAREST];
	unsigned n;
};

static void nearest_offer(struct nearest *nr, const char *cat, const char *name, unsigned score)
{
	unsigned i;

	if (nr->n == NEAREST && score >= nr->score[NEAREST - 1])
		return;
	for (i = 0; i < nr->n; i++)
		if (nr->name[i] == name)
			return;
	i = nr->n < NEAREST ? nr->n++ : NEAREST - 1;
	while (i > 0 && nr->score[i - 1] > score) {
		nr->name[i] = nr->name[i - 1];
		nr->cat[i] = nr->cat[i - 1];
		nr->score[i] = nr->score[i - 1];
		i--;
	}
	nr->name[i] = name;
	nr->cat[i] = cat;
	nr->score[i] = score;
}

/* Distance cap: short names tolerate fewer edits. */
static unsigned name_cap(const char *q)
{
	size_t n = strlen(q);
	return n < 6 ? 2 : n < 12 ? 3 : 5;
}

/* Score of candidate name t for query q (lower is nearer), or cap. */
static unsigned name_score(const char *q, const char *t, unsigned cap)
{
	size_t lq = strlen(q), lt = strlen(t);
	unsigned d;

	if (lq >= 4 && lt > lq && !strncmp(q, t, lq))
		return 1 + (lt - lq > 8 ? 2 : (unsigned)(lt - lq) / 4); /* a prefix */
	if (lq >= 6 && strstr(t, q))
		return 3;
	d = step_edit_distance(q, t, cap);
	return d;
}

static void format_nearest(const struct nearest *nr, int with_cat, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	/* only those about as near as the nearest: one clear answer beats three guesses */
	for (unsigned i = 0; i < nr->n && nr->score[i] <= nr->score[0] + 2; i++) {
		if (with_cat)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s:%s", i ? ", " : "",
				      nr->cat[i], nr->name[i]);
		else
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? ", " : "",
				      nr->name[i]);
	}
}

static void tp_nearest(const struct caps *c, const char *cat, const char *name, struct nearest *nr)
{
	unsigned cap = name_cap(name);

	for (size_t i = 0; i < c->ntps; i++) {
		const struct caps_tp *t = &c->tps[i];
		unsigned s;

		if (!(t->flags & CAPS_TP_RAW))
			continue;
		s = name_score(name, t->name, cap);
		if (s >= cap)
			continue;
		s = s * 2 + (cat && strcmp(cat, t->category) ? 1 : 0);
		nearest_offer(nr, t->category, t->name, s);
	}
}

static void fn_nearest(const struct caps *c, const char *name, struct nearest *nr)
{
	unsigned cap = name_cap(name);

	for (size_t i = 0; i < c->nfns; i++) {
		unsigned s = name_score(name, c->fns[i].name, cap);
		if (s < cap)
			nearest_offer(nr, NULL, c->fns[i].name, s);
	}
}

static int push_resolved(struct step *s, const char *cat, const char *name)
{
	char *x = NULL;
	int n;

	if (cat)
		n = asprintf(&x, "%s:%s", cat, name);
	else
		n = (x = strdup(name)) ? 0 : -1;
	if (n < 0 || !x)
		return -ENOMEM;
	/* a name listed twice (or by two globs) is attached once */
	for (unsigned i = 0; i < s->nresolved; i++)
		if (!strcmp(s->resolved[i], x)) {
			free(x);
			return 0;
		}
	if (vec_resize(&s->resolved, (size_t)s->nresolved + 1, sizeof(*s->resolved))) {
		free(x);
		return -ENOMEM;
	}
	s->resolved[s->nresolved++] = x;
	return 0;
}

static int valid_chars(const char *s, int glob)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    !(glob && strchr("*?[]!", *s)))
			return 0;
	return 1;
}

/* Resolves one tracepoint spec ("category:name", "name", "*:name", globs if
 * glob_ok) into s->resolved. */
static int resolve_tracepoint(struct step *s, const struct caps *c, const char *spec,
			      int glob_ok, const char *field, struct step_error *err)
{
	char cat[128] = "", name[128];
	const char *colon = strchr(spec, ':');
	int has_cat, any_cat, glob, rc;
	size_t raw = 0, other = 0;
	const struct caps_tp *t, *example = NULL;

	if (colon) {
		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - spec), spec);
		snprintf(name, sizeof(name), "%s", colon + 1);
	} else {
		snprintf(name, sizeof(name), "%s", spec);
	}
	has_cat = colon && *cat;
	any_cat = !has_cat || !strcmp(cat, "*") || !strcmp(cat, "?");
	glob = strpbrk(name, "*?[") || (!any_cat && strpbrk(cat, "*?["));
	if (!*name || (colon && strchr(name, ':')) || !valid_chars(name, 1) ||
	    (has_cat && !valid_chars(cat, 1)))
		return step_error_set(err, field, "'%.60s' is not a tracepoint name; write 'category:name' "
				      "(e.g. exceptions:page_fault_user)", spec);
	if (glob && !glob_ok)
		return step_error_set(err, field, "%s must name one tracepoint, not a pattern ('%.60s')",
				      field, spec);
	if (glob) {
		for (size_t i = 0; i < c->ntps; i++) {
			t = &c->tps[i];
			if (fnmatch(name, t->name, 0) ||
			    (!any_cat && fnmatch(cat, t->category, 0)))
				continue;
			if (!(t->flags & CAPS_TP_RAW)) {
				other++;
				if (!example)
					example = t;
				continue;
			}
			raw++;
			rc = push_resolved(s, t->category, t->name);
			if (rc)
				return rc;
		}
		if (raw)
			return 0;
		if (other)
			return step_error_set(err, field, "'%.60s' matches only events without a raw tracepoint "
					      "(e.g. %s:%s)%s", spec, example->category, example->name,
					      !strcmp(example->category, "syscalls") ?
					      "; use raw_syscalls:sys_enter / raw_syscalls:sys_exit" : "");
		if (!any_cat && !c->categories_known)
			return step_error_set(err, field, "cannot expand '%.60s': tracepoint categories are "
					      "unknown without tracefs (run as root, or mount it at "
					      "/sys/kernel/tracing); name the tracepoints instead", spec);
		return step_error_set(err, field, "'%.60s' matches no tracepoint on this kernel; "
				      "'argus probes --list-tracepoints' lists them", spec);
	}

	t = caps_find_tracepoint(c, any_cat ? NULL : cat, name);
	if (!t) {
		struct nearest nr = { .n = 0 };
		char list[200];

		tp_nearest(c, any_cat ? NULL : cat, name, &nr);
		if (!nr.n)
			return step_error_set(err, field, "unknown tracepoint '%.60s'; 'argus probes "
					      "--list-tracepoints' lists them", spec);
		format_nearest(&nr, 1, list, sizeof(list));
		return step_error_set(err, field, "unknown tracepoint '%.60s'; nearest: %s", spec, list);
	}
	if (!(t->flags & CAPS_TP_RAW))
		return step_error_set(err, field, "tracepoint '%s:%s' cannot be attached: it is a tracefs "
				      "event without a raw tracepoint (no btf_trace_%s in BTF)%s",
				      t->category, t->name, t->name,
				      !strcmp(t->category, "syscalls") ?
				      "; use raw_syscalls:sys_enter / raw_syscalls:sys_exit" : "");
	/* Categories unknown here: keep the category the spec gave, unverified. */
	return push_resolved(s, strcmp(t->category, "?") || any_cat ? t->category : cat, t->name);
}

static int mech_ok(const struct caps *c, enum caps_mech m)
{
	return c->mech[m].probed && !c->mech[m].err;
}

static int resolve_function(struct step *s, const struct caps *c, const char *name,
			    const char *field, struct step_error *err)
{
	const struct caps_fn *f;
	int fentry = mech_ok(c, CAPS_FENTRY);
	int kprobe = mech_ok(c, CAPS_KPROBE) || mech_ok(c, CAPS_KPROBE_MULTI);
	const char *dot = strchr(name, '.');

	if (!fentry && !kprobe)
		fentry = kprobe = 1; /* caps built by hand: judge by the names alone */
	if (strpbrk(name, "*?[") )
		return step_error_set(err, field, "function_latency takes exact function names, not "
				      "patterns ('%.60s'); 'argus probes --list-functions' lists them", name);
	if (dot && dot != name)
		return step_error_set(err, field, "name the function without its suffix: '%.*s', not "
				      "'%.60s'", (int)(dot - name), name, name);
	if (!valid_chars(name, 0))
		return step_error_set(err, field, "'%.60s' is not a kernel function name", name);
	f = caps_find_function(c, name);
	if (!f) {
		struct nearest nr = { .n = 0 };
		char list[200];

		for (size_t i = 0; i < sizeof(inlined_hints) / sizeof(inlined_hints[0]); i++) {
			if (strcmp(inlined_hints[i].name, name))
				continue;
			if (caps_find_function(c, inlined_hints[i].caller))
				return step_error_set(err, field, "function '%s' cannot be traced: not traceable, "
						      "inlined on this kernel (into %s, which can be traced)",
						      name, inlined_hints[i].caller);
			return step_error_set(err, field, "function '%s' cannot be traced: not traceable, "
					      "inlined on this kernel", name);
		}
		fn_nearest(c, name, &nr);
		format_nearest(&nr, 0, list, sizeof(list));
		return step_error_set(err, field, "unknown function '%.60s': not in kallsyms or BTF "
				      "(misspelled, or inlined away on this kernel)%s%s", name,
				      nr.n ? "; nearest: " : "", list);
	}
	if (!(f->flags & (CAPS_FN_KALLSYMS | CAPS_FN_SUFFIXED)))
		return step_error_set(err, field, "function '%s' cannot be traced: not traceable, inlined on "
				      "this kernel (in BTF but no symbol in kallsyms)", name);
	if (c->filter_known && !(f->flags & CAPS_FN_FILTER))
		return step_error_set(err, field, "function '%s' cannot be traced: not in "
				      "available_filter_functions (notrace, or in a section ftrace skips)",
				      name);
	if (!(fentry && (f->flags & CAPS_FN_BTF)) && !kprobe) {
		if (f->flags & CAPS_FN_SUFFIXED)
			return step_error_set(err, field, "function '%s' cannot be traced with fentry: only "
					      "optimised copies (%s.isra/.constprop/.part) exist and have no "
					      "BTF; trace a caller", name, name);
		return step_error_set(err, field, "function '%s' cannot be traced with fentry: it has no "
				      "BTF entry (assembly, or a module without BTF)", name);
	}
	return push_resolved(s, NULL, name);
}

/* ---- filter ---------------------------------------------------------------- */

static int proc_tgid_of(int pid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* 1 when some thread's comm is comm, 0 when none, -errno when /proc is unreadable. */
static int proc_comm_exists(const char *comm)
{
	DIR *d = opendir("/proc"), *td;
	struct dirent *e, *te;
	char path[600], buf[64];
	int found = 0;

	if (!d)
		return -errno;
	while (!found && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/task", e->d_name);
		td = opendir(path);
		if (!td)
			continue;
		while (!found && (te = readdir(td))) {
			FILE *f;

			if (!isdigit((unsigned char)te->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", e->d_name, te->d_name);
			f = fopen(path, "r");
			if (!f)
				continue;
			if (fgets(buf, sizeof(buf), f)) {
				buf[strcspn(buf, "\n")] = 0;
				found = !strcmp(buf, comm);
			}
			fclose(f);
		}
		closedir(td);
	}
	closedir(d);
	return found;
}

static int validate_filter(const struct step_filter *fl, struct step_error *err)
{
	struct stat st;
	char path[4200];
	int rc;

	if (fl->pid < 0 || fl->tgid < 0)
		return step_error_set(err, fl->pid < 0 ? "filter.pid" : "filter.tgid",
				      "a pid must be positive");
	if (fl->pid) {
		snprintf(path, sizeof(path), "/proc/%d", fl->pid);
		if (stat(path, &st) < 0)
			return step_error_set(err, "filter.pid", "filter.pid %d names no live process or "
					      "thread (no /proc/%d); start the load first, or check the pid",
					      fl->pid, fl->pid);
	}
	if (fl->tgid) {
		int t = proc_tgid_of(fl->tgid);
		if (t < 0)
			return step_error_set(err, "filter.tgid", "filter.tgid %d names no live process "
					      "(no /proc/%d); start the load first, or check the pid",
					      fl->tgid, fl->tgid);
		if (t != fl->tgid)
			return step_error_set(err, "filter.tgid", "filter.tgid %d is a thread of process "
					      "%d; use tgid %d, or filter.pid %d for this thread",
					      fl->tgid, t, t, fl->tgid);
	}
	if (fl->comm) {
		if (!*fl->comm || strlen(fl->comm) > 15)
			return step_error_set(err, "filter.comm", "filter.comm must be 1 to 15 bytes (the "
					      "kernel's task name), not %zu", strlen(fl->comm));
		rc = proc_comm_exists(fl->comm);
		if (rc == 0)
			return step_error_set(err, "filter.comm", "filter.comm '%.40s' matches no running "
					      "task (/proc/*/task/*/comm); start the load first, or check "
					      "the name", fl->comm);
	}
	if (fl->cgroup) {
		char *cause = NULL;

		/* realpath inside the cgroup2 mount, and a cgroup: never /etc */
		rc = kind_cgroup_resolve(fl->cgroup, path, sizeof(path), &cause);
		if (rc) {
			step_error_set(err, "filter.cgroup", "filter.%s",
				       cause ? cause : "cgroup is not a cgroup");
			free(cause);
			return -EINVAL;
		}
	}
	return 0;
}

/* ---- the step ---------------------------------------------------------------- */

static void available_list(const struct caps *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (int k = 0; k < STEP_KIND_N; k++)
		if (c->kinds[k].available)
			n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? ", " : "",
				      step_kind_name(k));
	if (!n)
		snprintf(buf, len, "none");
}

static void clear_resolved(struct step *s)
{
	for (unsigned i = 0; i < s->nresolved; i++)
		free(s->resolved[i]);
	free(s->resolved);
	s->resolved = NULL;
	s->nresolved = 0;
}

int step_validate(struct step *s, const struct caps *c, const struct step_limits *lim,
		  struct step_error *err)
{
	struct step_limits def;
	const char *kn = step_kind_name(s->kind);
	char field[32], avail[128];
	int rc = 0;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!lim) {
		step_limits_default(&def);
		lim = &def;
	}
	clear_resolved(s);
	if (!kn) /* an unknown kind, first of all */
		return step_check_required(s, err);
	if (!c->kinds[s->kind].available) {
		available_list(c, avail, sizeof(avail));
		return step_error_set(err, "kind", "%s is not available on this kernel: %s; available: %s",
				      kn, c->kinds[s->kind].reason, avail);
	}
	rc = step_check_required(s, err);
	if (rc)
		return rc;

	if (!(s->duration_s > 0))
		return step_error_set(err, "duration_s", "duration_s must be more than 0 seconds, not %g",
				      s->duration_s);
	if (s->duration_s > lim->max_duration_s)
		return step_error_set(err, "duration_s", "duration_s %g is over the limit of %g seconds",
				      s->duration_s, lim->max_duration_s);
	if (s->freq_hz && s->kind != STEP_SAMPLE)
		return step_error_set(err, "freq_hz", "freq_hz applies only to kind sample, not %s", kn);
	if (s->freq_hz > lim->max_freq_hz)
		return step_error_set(err, "freq_hz", "freq_hz must be between 1 and %u, not %u",
				      lim->max_freq_hz, s->freq_hz);
	if (s->sample_every && s->kind != STEP_TRACEPOINT_STACKS)
		return step_error_set(err, "sample_every", "sample_every applies only to "
				      "tracepoint_stacks, not %s", kn);
	if (s->sample_every > lim->max_sample_every)
		return step_error_set(err, "sample_every", "sample_every %u is over the limit of %u",
				      s->sample_every, lim->max_sample_every);
	if (s->duty > 0 && s->duty < 1 && s->kind != STEP_TRACEPOINT_STACKS &&
	    s->kind != STEP_COUNTS)
		return step_error_set(err, "duty", "duty applies only to tracepoint_stacks and "
				      "counts (programs that can be detached between events), not %s", kn);
	if (s->max_stacks && s->kind == STEP_COUNTS)
		return step_error_set(err, "max_stacks", "max_stacks does not apply to counts (it keeps no stacks)");
	if (s->max_stacks > lim->max_stacks)
		return step_error_set(err, "max_stacks", "max_stacks %u is over the limit of %u "
				      "(map size)", s->max_stacks, lim->max_stacks);

	switch (s->kind) {
	case STEP_TRACEPOINT_STACKS:
	case STEP_COUNTS:
		for (unsigned i = 0; i < s->ntargets && !rc; i++) {
			snprintf(field, sizeof(field), s->ntargets == 1 ? "target" : "target[%u]", i);
			rc = resolve_tracepoint(s, c, s->targets[i], 1, field, err);
		}
		break;
	case STEP_TRACEPOINT_LATENCY:
		rc = resolve_tracepoint(s, c, s->begin, 0, "begin", err);
		if (!rc)
			rc = resolve_tracepoint(s, c, s->end, 0, "end", err);
		if (!rc && s->nresolved < 2)
			rc = step_error_set(err, "end", "begin and end are the same tracepoint (%s); "
					    "a latency needs two", s->resolved[0]);
		break;
	case STEP_FUNCTION_LATENCY:
		for (unsigned i = 0; i < s->ntargets && !rc; i++) {
			snprintf(field, sizeof(field), s->ntargets == 1 ? "target" : "target[%u]", i);
			rc = resolve_function(s, c, s->targets[i], field, err);
		}
		break;
	default:
		break;
	}
	if (!rc && s->nresolved > lim->max_targets)
		rc = step_error_set(err, "target", "the targets expand to %u %s; at most %u per step "
				    "(narrow the pattern)", s->nresolved,
				    s->kind == STEP_FUNCTION_LATENCY ? "functions" : "tracepoints",
				    lim->max_targets);
	if (!rc)
		rc = validate_filter(&s->filter, err);
	if (rc)
		clear_resolved(s);
	return rc;
}
