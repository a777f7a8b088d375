/* caps — kernel capabilities: which step kinds work here, which tracepoints
 * and functions exist.  The BPF side of the probing is core/probe/probe_caps.c
 * (probe_caps.h), which does not know struct caps. */
#include <bpf/btf.h>
#include <cjson/cJSON.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/vec.h"
#include "probe/caps.h"
#include "base/util.h"

static const char *const mech_names[CAPS_MECH_N] = {
	[CAPS_PERF_CPU_CLOCK] = "perf_event cpu-clock",
	[CAPS_RAW_TP] = "raw_tp",
	[CAPS_TP_BTF] = "tp_btf",
	[CAPS_FENTRY] = "fentry",
	[CAPS_KPROBE] = "kprobe",
	[CAPS_KPROBE_MULTI] = "kprobe.multi",
};

const char *caps_mech_name(enum caps_mech m)
{
	return (int)m >= 0 && m < CAPS_MECH_N ? mech_names[m] : "?";
}

struct caps *caps_new(void)
{
	struct caps *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	for (int k = 0; k < STEP_KIND_N; k++)
		snprintf(c->kinds[k].reason, sizeof(c->kinds[k].reason), "not probed");
	for (int m = 0; m < CAPS_MECH_N; m++)
		snprintf(c->mech[m].detail, sizeof(c->mech[m].detail), "not probed");
	return c;
}

void caps_free(struct caps *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->ntps; i++) {
		free(c->tps[i].category);
		free(c->tps[i].name);
	}
	free(c->tps);
	for (size_t i = 0; i < c->nfns; i++)
		free(c->fns[i].name);
	free(c->fns);
	for (unsigned i = 0; i < c->nnotes; i++)
		free(c->notes[i]);
	free(c->notes);
	free(c);
}

int caps_add_tracepoint(struct caps *c, const char *category, const char *name, unsigned flags)
{
	struct caps_tp *t;

	if (vec_grow(&c->tps, &c->tp_cap, c->ntps + 1, sizeof(*c->tps)))
		return -ENOMEM;
	t = &c->tps[c->ntps];
	t->category = strdup(category && *category ? category : "?");
	t->name = strdup(name);
	t->flags = flags;
	if (!t->category || !t->name) {
		free(t->category);
		free(t->name);
		return -ENOMEM;
	}
	c->ntps++;
	return 0;
}

int caps_add_function(struct caps *c, const char *name, unsigned flags)
{
	struct caps_fn *f;

	if (vec_grow(&c->fns, &c->fn_cap, c->nfns + 1, sizeof(*c->fns)))
		return -ENOMEM;
	f = &c->fns[c->nfns];
	f->name = strdup(name);
	if (!f->name)
		return -ENOMEM;
	f->flags = flags;
	c->nfns++;
	return 0;
}

static int tp_cmp(const void *a, const void *b)
{
	const struct caps_tp *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : strcmp(x->category, y->category);
}

static int fn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct caps_fn *)a)->name, ((const struct caps_fn *)b)->name);
}

void caps_finish(struct caps *c)
{
	size_t i, j, n = 0;

	qsort(c->tps, c->ntps, sizeof(*c->tps), tp_cmp);
	/* Per name: fold "?" entries into the known-category ones, drop exact
	 * duplicates. */
	for (i = 0; i < c->ntps; i = j) {
		unsigned qflags = 0;
		size_t known = 0;

		for (j = i; j < c->ntps && !strcmp(c->tps[j].name, c->tps[i].name); j++) {
			if (!strcmp(c->tps[j].category, "?"))
				qflags |= c->tps[j].flags;
			else
				known++;
		}
		for (size_t k = i; k < j; k++) {
			struct caps_tp *t = &c->tps[k];
			int dup = n && !strcmp(c->tps[n - 1].name, t->name) &&
				  !strcmp(c->tps[n - 1].category, t->category);

			if ((known && !strcmp(t->category, "?")) || dup) {
				if (dup)
					c->tps[n - 1].flags |= t->flags;
				free(t->category);
				free(t->name);
				continue;
			}
			if (known)
				t->flags |= qflags;
			c->tps[n++] = *t;
		}
	}
	c->ntps = n;

	qsort(c->fns, c->nfns, sizeof(*c->fns), fn_cmp);
	n = 0;
	for (i = 0; i < c->nfns; i++) {
		if (n && !strcmp(c->fns[n - 1].name, c->fns[i].name)) {
			c->fns[n - 1].flags |= c->fns[i].flags;
			free(c->fns[i].name);
			continue;
		}
		c->fns[n++] = c->fns[i];
	}
	c->nfns = n;
	/* A function with both an exact symbol and a suffixed copy is exact. */
	for (i = 0; i < c->nfns; i++)
		if (c->fns[i].flags & CAPS_FN_KALLSYMS)
			c->fns[i].flags &= ~CAPS_FN_SUFFIXED;
}

void caps_set_kind(struct caps *c, enum step_kind k, int available, const char *fmt, ...)
{
	va_list ap;

	if ((int)k < 0 || k >= STEP_KIND_N)
		return;
	c->kinds[k].available = available;
	va_start(ap, fmt);
	vsnprintf(c->kinds[k].reason, sizeof(c->kinds[k].reason), fmt, ap);
	va_end(ap);
}

int caps_note(struct caps *c, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = util_lines_vadd(&c->notes, &c->nnotes, fmt, ap);
	va_end(ap);
	return err;
}

/* ---- lookups ---------------------------------------------------------------- */

static size_t tp_lower_bound(const struct caps *c, const char *name)
{
	size_t lo = 0, hi = c->ntps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(c->tps[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct caps_tp *caps_find_tracepoint(const struct caps *c, const char *category,
					   const char *name)
{
	const struct caps_tp *unknown_cat = NULL;
	int any = !category || !strcmp(category, "*") || !strcmp(category, "?");

	for (size_t i = tp_lower_bound(c, name); i < c->ntps && !strcmp(c->tps[i].name, name); i++) {
		if (any || !strcmp(c->tps[i].category, category))
			return &c->tps[i];
		if (!strcmp(c->tps[i].category, "?"))
			unknown_cat = &c->tps[i];
	}
	return unknown_cat;
}

const struct caps_fn *caps_find_function(const struct caps *c, const char *name)
{
	struct caps_fn key = { .name = (char *)name };

	return bsearch(&key, c->fns, c->nfns, sizeof(*c->fns), fn_cmp);
}

/* A pattern without glob characters lists by prefix (for completion). */
static const char *prefix_glob(const char *pattern, char *buf, size_t len)
{
	if (!pattern || !*pattern)
		return "*";
	if (strpbrk(pattern, "*?["))
		return pattern;
	snprintf(buf, len, "%s*", pattern);
	return buf;
}

size_t caps_list_tracepoints(const struct caps *c, const char *pattern, FILE *out)
{
	char buf[512], cat[256] = "*";
	const char *pat = prefix_glob(pattern, buf, sizeof(buf)), *namepat = pat, *colon;
	size_t n = 0;

	colon = strchr(pat, ':');
	if (colon) {
		snprintf(cat, sizeof(cat), "%.*s", (int)(colon - pat), pat);
		namepat = colon + 1;
		if (!*namepat)
			namepat = "*";
	}
	for (size_t i = 0; i < c->ntps; i++) {
		const struct caps_tp *t = &c->tps[i];
		if (fnmatch(namepat, t->name, 0) || (colon && fnmatch(cat, t->category, 0)))
			continue;
		fprintf(out, "%s:%s\n", t->category, t->name);
		n++;
	}
	return n;
}

size_t caps_list_functions(const struct caps *c, const char *pattern, FILE *out)
{
	char buf[512];
	const char *pat = prefix_glob(pattern, buf, sizeof(buf));
	size_t n = 0;

	for (size_t i = 0; i < c->nfns; i++) {
		if (fnmatch(pat, c->fns[i].name, 0))
			continue;
		fprintf(out, "%s\n", c->fns[i].name);
		n++;
	}
	return n;
}

size_t caps_count_raw(const struct caps *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ntps; i++)
		n += !!(c->tps[i].flags & CAPS_TP_RAW);
	return n;
}

/* ---- kinds from mechanisms ------------------------------------------------------ */

static int mech_ok(const struct caps *c, enum caps_mech m)
{
	return c->mech[m].probed && !c->mech[m].err;
}

void caps_derive_kinds(struct caps *c)
{
	const struct caps_mech_result *m = c->mech;
	int tp = mech_ok(c, CAPS_RAW_TP) || mech_ok(c, CAPS_TP_BTF);
	char tpwhy[200];

	snprintf(tpwhy, sizeof(tpwhy), "raw_tp: %.90s; tp_btf: %.90s", m[CAPS_RAW_TP].detail,
		 m[CAPS_TP_BTF].detail);

	/* Not root: the kernel refused the loads for lack of privilege, which
	 * says nothing about what it supports. */
	if (!c->is_root && m[CAPS_RAW_TP].probed && m[CAPS_RAW_TP].err == -EPERM &&
	    m[CAPS_PERF_CPU_CLOCK].err == -EPERM) {
		for (int k = 0; k < STEP_KIND_N; k++)
			caps_set_kind(c, k, 0, "could not probe: not root, the kernel refused to load "
				      "BPF (EPERM); run 'sudo argus probes'");
		return;
	}

	if (mech_ok(c, CAPS_PERF_CPU_CLOCK))
		caps_set_kind(c, STEP_SAMPLE, 1, "perf_event cpu-clock with kernel stacks");
	else
		caps_set_kind(c, STEP_SAMPLE, 0, "perf_event cpu-clock sampling refused (%s)",
			      m[CAPS_PERF_CPU_CLOCK].detail);

	if (tp) {
		const char *how = mech_ok(c, CAPS_RAW_TP) ? "raw tracepoints attached by name, no tracefs needed"
							  : "tp_btf tracepoints (raw_tp refused)";
		caps_set_kind(c, STEP_TRACEPOINT_STACKS, 1, "%s", how);
		caps_set_kind(c, STEP_TRACEPOINT_LATENCY, 1, "%s", how);
		caps_set_kind(c, STEP_COUNTS, 1, "%s", how);
		caps_set_kind(c, STEP_OFFCPU, 1, "sched_switch/sched_wakeup through %s",
			      mech_ok(c, CAPS_RAW_TP) ? "raw_tp" : "tp_btf");
	} else {
		for (int k = STEP_TRACEPOINT_STACKS; k < STEP_KIND_N; k++)
			if (k != STEP_FUNCTION_LATENCY)
				caps_set_kind(c, k, 0, "raw tracepoints unavailable (%s)", tpwhy);
	}

	if (mech_ok(c, CAPS_FENTRY))
		caps_set_kind(c, STEP_FUNCTION_LATENCY, 1, "fentry/fexit");
	else if (mech_ok(c, CAPS_KPROBE))
		caps_set_kind(c, STEP_FUNCTION_LATENCY, 1, "kprobe/kretprobe (fentry: %s)",
			      m[CAPS_FENTRY].detail);
	else if (mech_ok(c, CAPS_KPROBE_MULTI))
		caps_set_kind(c, STEP_FUNCTION_LATENCY, 1, "kprobe.multi (fentry: %s; kprobe: %s)",
			      m[CAPS_FENTRY].detail, m[CAPS_KPROBE].detail);
	else
		caps_set_kind(c, STEP_FUNCTION_LATENCY, 0,
			      "fentry refused by the kernel (%s), no kprobes (%s), kprobe.multi refused (%s)",
			      m[CAPS_FENTRY].detail, m[CAPS_KPROBE].detail,
			      m[CAPS_KPROBE_MULTI].detail);
}

/* ---- enumeration ---------------------------------------------------------------- */

static void enum_btf(struct caps *c, size_t *ntp, size_t *nfn)
{
	struct btf *btf;
	unsigned n;

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		int e = errno;
		snprintf(c->btf, sizeof(c->btf), "no kernel BTF (%s); tracepoints need tracefs",
			 strerror(e));
		caps_note(c, "kernel BTF unreadable (%s): tracepoints come only from tracefs, "
			  "fentry and tp_btf cannot work", strerror(e));
		return;
	}
	n = btf__type_cnt(btf);
	snprintf(c->btf, sizeof(c->btf), "/sys/kernel/btf/vmlinux (%u types)", n - 1);
	for (unsigned id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;

		if (!t)
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		if (!name || !*name)
			continue;
		if (btf_is_typedef(t) && !strncmp(name, "btf_trace_", 10) && name[10]) {
			if (!caps_add_tracepoint(c, "?", name + 10, CAPS_TP_RAW))
				(*ntp)++;
		} else if (btf_is_func(t)) {
			if (!caps_add_function(c, name, CAPS_FN_BTF))
				(*nfn)++;
		}
	}
	btf__free(btf);
}

static size_t enum_kallsyms(struct caps *c)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	size_t n = 0;

	if (!f) {
		caps_note(c, "cannot read /proc/kallsyms (%s): functions come only from BTF",
			  strerror(errno));
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *dot;
		unsigned flags = CAPS_FN_KALLSYMS;

		if (sscanf(line, "%*s %c %255s", &type, name) != 2)
			continue;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (!strncmp(name, "__pfx_", 6) || !strncmp(name, "__cfi_", 6))
			continue;
		dot = strchr(name, '.');
		if (dot) {
			if (dot == name)
				continue;
			*dot = 0;
			flags = CAPS_FN_SUFFIXED;
		}
		if (!caps_add_function(c, name, flags))
			n++;
	}
	fclose(f);
	return n;
}

/* Reads "category:name" lines (available_events) or "F name" / "E cat:name"
 * records from f. */
static void read_event_lines(struct caps *c, FILE *f, size_t *nev, size_t *nfilter, int tagged,
			     int *child_err, char *child_what, size_t whatlen)
{
	char line[512];

	while (fgets(line, sizeof(line), f)) {
		char *p = line, *colon, *sp;

		line[strcspn(line, "\n")] = 0;
		if (tagged) {
			if (line[0] == 'X') {
				/* "X errno what" */
				int e = 0, off = 0;
				if (sscanf(line + 1, " %d %n", &e, &off) >= 1 && !*child_err) {
					*child_err = e;
					snprintf(child_what, whatlen, "%s", line + 1 + off);
				}
				continue;
			}
			if (line[0] == 'F' && line[1] == ' ') {
				sp = strchr(line + 2, ' '); /* "name [module]" */
				if (sp)
					*sp = 0;
				sp = strchr(line + 2, '.');
				if (sp && sp != line + 2)
					*sp = 0;
				if (!caps_add_function(c, line + 2, CAPS_FN_FILTER))
					(*nfilter)++;
				continue;
			}
			if (line[0] != 'E' || line[1] != ' ')
				continue;
			p = line + 2;
		}
		colon = strchr(p, ':');
		if (!colon || colon == p || !colon[1])
			continue;
		*colon = 0;
		if (!caps_add_tracepoint(c, p, colon + 1, CAPS_TP_TRACEFS))
			(*nev)++;
	}
}

static const char *find_tracefs(char *buf, size_t len)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[256], type[64];
	const char *found = NULL;

	if (!f)
		return NULL;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "tracefs")) {
			snprintf(buf, len, "%s", dir);
			found = buf;
			break;
		}
		if (!strcmp(type, "debugfs") && !found) {
			struct stat st;
			snprintf(buf, len, "%s/tracing/events", dir);
			if (!stat(buf, &st)) {
				snprintf(buf, len, "%s/tracing", dir);
				found = buf;
			}
		}
	}
	fclose(f);
	return found;
}

/* Copies dir's available_events and available_filter_functions to out as
 * tagged records; returns 0 or -errno of the events file. */
static int dump_tracefs(const char *dir, FILE *out)
{
	char path[512], line[512];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/available_events", dir);
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		fprintf(out, "X %d reading %s\n", errno, path);
	} else {
		while (fgets(line, sizeof(line), f))
			fprintf(out, "E %s", line);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/available_filter_functions", dir);
	f = fopen(path, "r");
	if (f && fgets(line, sizeof(line), f)) {
		fprintf(out, "F %s", line);
		while (fgets(line, sizeof(line), f))
			fprintf(out, "F %s", line);
	} else {
		fprintf(out, "X %d reading %s\n", errno ? errno : ENOENT, path);
	}
	if (f)
		fclose(f);
	return rc;
}

/* Mounts tracefs in a child's private mount namespace (the system's mounts
 * are untouched) and copies what it lists through a pipe. */
static FILE *tracefs_private_mount(pid_t *child)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (pid == 0) {
		FILE *out = fdopen(fds[1], "w");
		const char *dir = "/sys/kernel/tracing";

		close(fds[0]);
		if (!out)
			_exit(1);
		if (unshare(CLONE_NEWNS) < 0) {
			fprintf(out, "X %d unshare(CLONE_NEWNS)\n", errno);
		} else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			fprintf(out, "X %d making mounts private\n", errno);
		} else if (mount("tracefs", dir, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) {
			fprintf(out, "X %d mounting tracefs at %s\n", errno, dir);
		} else {
			dump_tracefs(dir, out);
		}
		fclose(out);
		_exit(0);
	}
	close(fds[1]);
	*child = pid;
	return fdopen(fds[0], "r");
}

static void enum_tracefs(struct caps *c, size_t *nev, size_t *nfilter)
{
	char dir[300], what[300] = "";
	const char *mounted = find_tracefs(dir, sizeof(dir));
	int cerr = 0;
	FILE *f;
	pid_t child = -1;

	if (mounted) {
		char path[400];
		snprintf(path, sizeof(path), "%s/available_events", mounted);
		f = fopen(path, "r");
		if (!f) {
			int e = errno;
			snprintf(c->tracefs, sizeof(c->tracefs), "mounted at %.100s, unreadable (%s)",
				 mounted, strerror(e));
			caps_note(c, "tracefs at %s unreadable (%s): tracepoint categories unknown; "
				  "name tracepoints as 'name' or '*:name'", mounted, strerror(e));
			return;
		}
		read_event_lines(c, f, nev, nfilter, 0, &cerr, what, sizeof(what));
		fclose(f);
		snprintf(path, sizeof(path), "%s/available_filter_functions", mounted);
		f = fopen(path, "r");
		if (f) {
			char line[512];
			while (fgets(line, sizeof(line), f)) {
				line[strcspn(line, " .\n")] = 0;
				if (*line && !caps_add_function(c, line, CAPS_FN_FILTER))
					(*nfilter)++;
			}
			fclose(f);
		} else {
			caps_note(c, "%s unreadable (%s): functions not checked against ftrace's list",
				  path, strerror(errno));
		}
		snprintf(c->tracefs, sizeof(c->tracefs), "mounted at %.100s", mounted);
	} else if (geteuid() != 0) {
		snprintf(c->tracefs, sizeof(c->tracefs), "not mounted; mounting it needs root");
		caps_note(c, "tracefs is not mounted and only root can mount it: tracepoint "
			  "categories unknown; name tracepoints as 'name' or '*:name', or run as root");
		return;
	} else {
		f = tracefs_private_mount(&child);
		if (!f) {
			snprintf(c->tracefs, sizeof(c->tracefs), "not mounted; fork failed (%s)",
				 strerror(errno));
			return;
		}
		read_event_lines(c, f, nev, nfilter, 1, &cerr, what, sizeof(what));
		fclose(f);
		waitpid(child, NULL, 0);
		if (!*nev) {
			snprintf(c->tracefs, sizeof(c->tracefs), "not mounted; private mount failed (%s: %s)",
				 what, cerr ? strerror(cerr) : "no events");
			caps_note(c, "tracefs is not mounted and a private mount failed (%s: %s): "
				  "tracepoint categories unknown; name tracepoints as 'name' or '*:name'",
				  what, cerr ? strerror(cerr) : "no events");
			return;
		}
		snprintf(c->tracefs, sizeof(c->tracefs),
			 "not mounted; read through a private mount of /sys/kernel/tracing");
		if (cerr && !*nfilter)
			caps_note(c, "available_filter_functions unreadable (%s: %s): functions "
				  "not checked against ftrace's list", what, strerror(cerr));
	}
	c->categories_known = *nev > 0;
	c->filter_known = *nfilter > 0;
}

struct caps *caps_probe(unsigned flags)
{
	struct caps *c = caps_new();
	size_t ntp = 0, nfn_btf = 0, nfn_ksym = 0, nev = 0, nfilter = 0;

	if (!c)
		return NULL;
	c->is_root = geteuid() == 0;
	if (flags & CAPS_PROBE_NO_BPF)
		caps_note(c, "BPF attach mechanisms not probed (asked not to)");
	else
		probe_caps_mechanisms(c->mech, c->is_root);
	if (!(flags & CAPS_PROBE_NO_BPF) && !c->is_root && c->mech[CAPS_RAW_TP].err == -EPERM)
		caps_note(c, "not root: loading BPF programs was refused (EPERM), so every "
			  "kind reads as unavailable; run 'sudo argus probes' to probe this kernel");
	caps_derive_kinds(c);

	enum_btf(c, &ntp, &nfn_btf);
	nfn_ksym = enum_kallsyms(c);
	if (flags & CAPS_PROBE_NO_TRACEFS)
		snprintf(c->tracefs, sizeof(c->tracefs), "not consulted");
	else
		enum_tracefs(c, &nev, &nfilter);
	caps_finish(c);

	if (nev)
		snprintf(c->tp_source, sizeof(c->tp_source), "BTF btf_trace_* (%zu) + tracefs events (%zu)",
			 ntp, nev);
	else
		snprintf(c->tp_source, sizeof(c->tp_source), "BTF btf_trace_* (%zu), categories unknown", ntp);
	snprintf(c->fn_source, sizeof(c->fn_source), "kallsyms (%zu) + BTF FUNC (%zu)%s",
		 nfn_ksym, nfn_btf, nfilter ? " + available_filter_functions" : "");
	return c;
}

static struct caps *cached;

const struct caps *caps_cached(void)
{
	if (!cached)
		cached = caps_probe(0);
	return cached;
}

void caps_cached_free(void)
{
	caps_free(cached);
	cached = NULL;
}

char *caps_to_json(const struct caps *c)
{
	cJSON *o = cJSON_CreateObject(), *a, *x;
	char *txt = NULL;
	int ok = !!o;

	if (!o)
		goto out;
	a = cJSON_AddArrayToObject(o, "kinds");
	ok &= !!a;
	for (int k = 0; a && k < STEP_KIND_N; k++) {
		x = cJSON_CreateObject();
		ok &= x && cJSON_AddItemToArray(a, x);
		if (!x)
			break;
		ok &= !!cJSON_AddStringToObject(x, "kind", step_kind_name(k));
		ok &= !!cJSON_AddBoolToObject(x, "available", c->kinds[k].available);
		ok &= !!cJSON_AddStringToObject(x, "reason", c->kinds[k].reason);
	}
	a = cJSON_AddArrayToObject(o, "mechanisms");
	ok &= !!a;
	for (int m = 0; a && m < CAPS_MECH_N; m++) {
		x = cJSON_CreateObject();
		ok &= x && cJSON_AddItemToArray(a, x);
		if (!x)
			break;
		ok &= !!cJSON_AddStringToObject(x, "mechanism", caps_mech_name(m));
		ok &= !!cJSON_AddBoolToObject(x, "probed", c->mech[m].probed);
		ok &= !!cJSON_AddBoolToObject(x, "works", c->mech[m].probed && !c->mech[m].err);
		ok &= !!cJSON_AddNumberToObject(x, "errno", -c->mech[m].err);
		ok &= !!cJSON_AddStringToObject(x, "detail", c->mech[m].detail);
	}
	x = cJSON_AddObjectToObject(o, "tracepoints");
	ok &= x && cJSON_AddNumberToObject(x, "count", (double)c->ntps);
	ok &= x && cJSON_AddNumberToObject(x, "attachable", (double)caps_count_raw(c));
	ok &= x && cJSON_AddStringToObject(x, "source", c->tp_source);
	ok &= x && cJSON_AddBoolToObject(x, "categories_known", c->categories_known);
	x = cJSON_AddObjectToObject(o, "functions");
	ok &= x && cJSON_AddNumberToObject(x, "count", (double)c->nfns);
	ok &= x && cJSON_AddStringToObject(x, "source", c->fn_source);
	ok &= !!cJSON_AddStringToObject(o, "tracefs", c->tracefs);
	ok &= !!cJSON_AddStringToObject(o, "btf", c->btf);
	ok &= !!cJSON_AddBoolToObject(o, "root", c->is_root);
	a = cJSON_AddArrayToObject(o, "notes");
	ok &= !!a;
	for (unsigned i = 0; a && i < c->nnotes; i++) {
		x = cJSON_CreateString(c->notes[i]);
		ok &= x && cJSON_AddItemToArray(a, x);
	}
	if (ok)
		txt = cJSON_Print(o);
out:
	cJSON_Delete(o);
	if (!txt)
		errno = ENOMEM;
	return txt;
}
