/* step_scope — a step scoped to the diagnosed processes (see step_scope.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/load.h"
#include "base/sanitize.h"
#include "step/step_scope.h"

void step_scope_of_run(struct step_scope *out, struct load *load, struct load *victim, int pid)
{
	struct load *l = victim ? victim : load;
	const char *cg = l ? load_cgroup_path(l) : NULL;

	memset(out, 0, sizeof(*out));
	if (l) {
		out->tgid = (int)load_pid(l);
		if (cg && strlen(cg) < sizeof(out->cgroup)) {
			out->by = STEP_SCOPE_BY_CGROUP;
			snprintf(out->cgroup, sizeof(out->cgroup), "%s", cg);
		} else {
			out->by = STEP_SCOPE_BY_TGID;
		}
		if (victim)
			snprintf(out->what, sizeof(out->what), "the victim");
		else if (pid > 0)
			snprintf(out->what, sizeof(out->what), "PID %d", out->tgid);
		else
			snprintf(out->what, sizeof(out->what), "the load");
	} else if (pid > 0) {
		out->by = STEP_SCOPE_BY_TGID;
		out->tgid = pid;
		out->no_reference = 1;
		snprintf(out->what, sizeof(out->what), "PID %d", pid);
	}
}

static int scope_has_procs(const struct step *s)
{
	return s->filter.pid || s->filter.tgid || s->filter.cgroup;
}

int step_scope_apply(const struct step_scope *sc, struct step *s, struct step_error *err)
{
	if (!s || s->scope == STEP_SCOPE_SYSTEM || scope_has_procs(s))
		return 0;
	if (!sc || sc->by == STEP_SCOPE_BY_NONE) {
		if (s->scope == STEP_SCOPE_LOAD)
			return step_error_set(err, "scope", "scope load: this run diagnoses no "
					      "processes (no --load, --victim or -p); use system");
		return 0;
	}
	if (sc->by == STEP_SCOPE_BY_CGROUP) {
		s->filter.cgroup = strdup(sc->cgroup);
		if (!s->filter.cgroup)
			return -ENOMEM;
	} else {
		s->filter.tgid = sc->tgid;
	}
	s->scope = STEP_SCOPE_LOAD;
	return 0;
}

char *step_scope_no_reference(const struct step_scope *sc, char *buf, size_t len)
{
	if (!len)
		return buf;
	buf[0] = 0;
	if (sc && sc->no_reference)
		snprintf(buf, len, "this step has no reference: %s is not paused (-p without "
			 "--pause), so every window measures it running and the two conditions "
			 "are the same; read its rates, not a change (--pause gives a reference)",
			 sc->what[0] ? sc->what : "the process");
	return buf;
}

char *step_scope_describe(const struct step *s, const struct step_scope *sc, char *buf,
			  size_t len)
{
	const char *what = sc && sc->what[0] ? sc->what : "the diagnosed processes";
	char comm[64] = "", cgp[256] = "";
	int have = sc && sc->by != STEP_SCOPE_BY_NONE;
	size_t n = 0;

#define APPEND(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	if (!len)
		return buf;
	buf[0] = 0;
	/* a comm or a path from an agent reaches the card escaped */
	if (s->filter.comm)
		sanitize_into(comm, sizeof(comm), s->filter.comm, 0);
	if (s->filter.cgroup)
		sanitize_into(cgp, sizeof(cgp), s->filter.cgroup, 0);
	if (s->scope == STEP_SCOPE_LOAD && scope_has_procs(s)) {
		const char *cg = strrchr(cgp, '/');

		APPEND("%s (", what);
		if (s->filter.cgroup)
			APPEND("cgroup %s", cg && cg[1] ? cg + 1 : cgp);
		else if (s->filter.tgid)
			APPEND("tgid %d", s->filter.tgid);
		else
			APPEND("pid %d", s->filter.pid);
		APPEND("%s%s)", comm[0] ? ", comm=" : "", comm);
		APPEND("; scope=system widens it");
	} else if (!scope_has_procs(s) && !s->filter.comm) {
		APPEND("system-wide");
		if (have)
			APPEND("; scope=load narrows it to %s", what);
	} else {
		APPEND("filter");
		if (s->filter.pid)
			APPEND(" pid=%d", s->filter.pid);
		if (s->filter.tgid)
			APPEND(" tgid=%d", s->filter.tgid);
		if (comm[0])
			APPEND(" comm=%s", comm);
		if (cgp[0])
			APPEND(" cgroup=%s", cgp);
	}
	if (sc && sc->no_reference)
		APPEND("; no reference: %s is not paused", what);
#undef APPEND
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
	return buf;
}
