/* verdict_callsite — the user-space call sites of a verdict path (issue
 * 27), from the user frames the profile keeps beside each kernel stack. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "data/profile.h"
#include "data/step_data.h"
#include "data/verdict.h"

/* One group: the stacks with the same user frames (interned: the same
 * pointers). */
struct vcs_group {
	const char *const *frames;
	unsigned n;
	double rise;
};

/* Frame f as it is compared when a step's stack is matched to the verdict
 * path, into buf (at most len bytes with the NUL, cut beyond).  The offcpu
 * step marks its stacks "[offcpu] woken by X" (core/probe/probe_offcpu.c)
 * where the wall-clock tree (core/model/timeacct.c) has the node "[woken by
 * X]" for the same waker: two writers of one frame, in two spellings —
 *   "[offcpu] woken by hardirq timer" / "[woken by hardirq timer]" (also
 *     hardirq N, softirq NAME): "woken by hardirq timer";
 *   "[offcpu] woken by a hardirq" / "[woken by hardirq]": "woken by hardirq";
 *   "[offcpu] woken by COMM (tgid N: cmdline)" / "[woken by task COMM (tgid
 *     N)]": "woken by task COMM (tgid N)" (the command line is the offcpu
 *     step's alone; "via softirq"/"via kworker" tree nodes stay apart: the
 *     step does not see the hand-off);
 *   "[offcpu] no wakeup seen" / "[no wakeup seen]": "no wakeup seen".
 * Without that no offcpu stack is ever on a wall-clock path that ends at
 * its waker, and the step's user frames are never the verdict's call sites
 * (issue 27).  Any other frame is itself. */
void verdict_callsite_frame_key(const char *f, char *buf, size_t len)
{
	static const char off[] = "[offcpu] ", by[] = "woken by ", tgid[] = " (tgid ";
	size_t n = strlen(f);
	const char *t, *e;

	if (!len)
		return;
	if (!strncmp(f, off, sizeof(off) - 1)) {
		t = f + sizeof(off) - 1;
		if (!strcmp(t, "no wakeup seen")) {
			snprintf(buf, len, "%s", t);
			return;
		}
		if (!strcmp(t, "woken by a hardirq")) {
			snprintf(buf, len, "woken by hardirq");
			return;
		}
		if (!strncmp(t, by, sizeof(by) - 1) && t[sizeof(by) - 1]) {
			t += sizeof(by) - 1;
			e = strstr(t, tgid);
			/* a task: "COMM (tgid N: cmdline)" or "COMM (tgid N)" */
			if (e && e > t) {
				e += sizeof(tgid) - 1;
				e += strspn(e, "0123456789");
				snprintf(buf, len, "woken by task %.*s)", (int)(e - t), t);
			} else {
				snprintf(buf, len, "woken by %s", t);
			}
			return;
		}
	} else if (n > 2 && f[0] == '[' && f[n - 1] == ']' &&
		   ((!strncmp(f + 1, by, sizeof(by) - 1) && n > sizeof(by) + 1) ||
		    !strcmp(f, "[no wakeup seen]"))) {
		snprintf(buf, len, "%.*s", (int)(n - 2), f + 1);
		return;
	}
	snprintf(buf, len, "%s", f);
}

/* Whether frames a and b are the same frame (verdict_callsite_frame_key;
 * the frames are short: a key cut at its buffer still tells them apart). */
static int vcs_frame_eq(const char *a, const char *b)
{
	char ka[256], kb[256];

	if (!strcmp(a, b))
		return 1;
	verdict_callsite_frame_key(a, ka, sizeof(ka));
	verdict_callsite_frame_key(b, kb, sizeof(kb));
	return !strcmp(ka, kb);
}

/* Whether stack st lies under the verdict's path.  A step's stack (its
 * profile: data/step_data.h) carries a marker frame ("[tp] ...",
 * "[offcpu] ...") after its kernel frames, and the tree hangs that marker
 * where the frames stop matching the tree (core/analysis/step_merge.c): the
 * path has it somewhere in the stack's frames, or not at all (the TUI's
 * path keeps TREE_FRAME nodes only).  So the stack's first marker and the
 * path's one equal to it are left out, and what remains of the path must
 * start the stack's frames.  A stack without a marker: plain prefix.
 * Frames are compared by verdict_callsite_frame_key: an offcpu step's
 * waker marker is the wall-clock tree's waker node of the same waker. */
static int vcs_on_path(const struct verdict *v, const struct profile_stack *st)
{
	const char *marker = NULL;
	unsigned k = 0, skipped = 0;

	for (unsigned i = 0; i < st->nframes && !marker; i++)
		if (step_data_frame_is_marker(st->frames[i]))
			marker = st->frames[i];
	for (unsigned i = 0; i < v->npath; i++) {
		if (marker && !skipped && vcs_frame_eq(v->path[i], marker)) {
			skipped = 1;
			continue;
		}
		if (k < st->nframes && st->frames[k] == marker)
			k++;
		if (k >= st->nframes || !vcs_frame_eq(st->frames[k], v->path[i]))
			return 0;
		k++;
	}
	return 1;
}

static int vcs_same(const struct vcs_group *g, const struct profile_stack *st)
{
	return g->n == st->nuframes &&
	       (!g->n || !memcmp(g->frames, st->uframes, g->n * sizeof(*g->frames)));
}

static int vcs_cmp(const void *a, const void *b)
{
	double x = ((const struct vcs_group *)a)->rise, y = ((const struct vcs_group *)b)->rise;

	return (x < y) - (x > y);
}

int verdict_callsite_add(struct verdict *v, const char *const *frames, unsigned n,
			 double rise, double share)
{
	struct verdict_callsite *c;

	if (vec_resize(&v->callsites, (size_t)v->ncallsites + 1, sizeof(*v->callsites)))
		return -ENOMEM;
	c = &v->callsites[v->ncallsites];
	memset(c, 0, sizeof(*c));
	c->rise = rise;
	c->share = share;
	if (n && !(c->frames = calloc(n, sizeof(*c->frames))))
		return -ENOMEM;
	v->ncallsites++; /* counted now: verdict_clear frees what was copied */
	for (unsigned k = 0; k < n; k++) {
		c->frames[k] = strdup(frames[k] ? frames[k] : "");
		if (!c->frames[k])
			return -ENOMEM;
		c->nframes++;
	}
	return 0;
}

int verdict_callsites_fill(struct verdict *v, const struct profile *p, uint32_t exclude_tgid)
{
	double secs[COND_N] = { 0, 0 };
	struct vcs_group *g = NULL;
	size_t ng = 0, cap = 0;
	double total = 0;
	/* a verdict of a load's later phase: the windows it judged */
	unsigned w0 = v->phase_earlier && v->phase_from_win < p->nwin ? v->phase_from_win : 0;
	int any_user = 0, err = 0;

	if (!v->found || !v->npath)
		return 0;
	for (unsigned w = w0; w < p->nwin; w++)
		if (p->wins[w].secs > 0 && p->wins[w].cond < COND_N)
			secs[p->wins[w].cond] += p->wins[w].secs;
	/* what no call site can show, said beside them: the samples taken
	 * without their user stack (counted by the BPF program) */
	v->callsites_step = 0;
	v->callsites_ustack_errors = 0;
	v->callsites_samples = 0;
	for (unsigned w = w0; w < p->nwin; w++)
		v->callsites_ustack_errors += p->wins[w].ustack_errors;
	for (size_t i = 0; i < p->nstacks; i++)
		for (unsigned w = w0; w < p->nwin; w++)
			v->callsites_samples += p->stacks[i].win[w];
	if (secs[COND_LOAD] <= 0)
		return 0;
	for (size_t i = 0; i < p->nstacks && !any_user; i++)
		any_user = p->stacks[i].nuframes > 0;
	if (!any_user)
		return 0;
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *st = &p->stacks[i];
		double n[COND_N] = { 0, 0 };
		size_t j;

		if ((exclude_tgid && st->tgid == exclude_tgid) || !vcs_on_path(v, st))
			continue;
		for (unsigned w = w0; w < p->nwin; w++)
			n[p->wins[w].cond] += (double)st->win[w];
		for (j = 0; j < ng && !vcs_same(&g[j], st); j++)
			;
		if (j == ng) {
			err = vec_grow(&g, &cap, ng + 1, sizeof(*g));
			if (err)
				goto out;
			g[ng].frames = st->uframes;
			g[ng].n = st->nuframes;
			g[ng].rise = 0;
			ng++;
		}
		g[j].rise += n[COND_LOAD] / secs[COND_LOAD] -
			     (secs[COND_REF] > 0 ? n[COND_REF] / secs[COND_REF] : 0);
	}
	for (size_t j = 0; j < ng; j++)
		if (g[j].rise > 0)
			total += g[j].rise;
	if (total <= 0)
		goto out;
	qsort(g, ng, sizeof(*g), vcs_cmp);
	for (size_t j = 0; j < ng && j < VERDICT_MAX_CALLSITES && g[j].rise > 0 && !err; j++)
		err = verdict_callsite_add(v, g[j].frames, g[j].n, g[j].rise, g[j].rise / total);
out:
	free(g);
	return err;
}

/* v's call sites and what they could not see, moved out of v. */
struct vcs_found {
	struct verdict_callsite *cs;
	unsigned n, step;
	uint64_t uerr, samples;
};

static void vcs_free(struct verdict_callsite *cs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < cs[i].nframes; k++)
			free(cs[i].frames[k]);
		free(cs[i].frames);
	}
	free(cs);
}

static void vcs_take(struct verdict *v, struct vcs_found *f)
{
	*f = (struct vcs_found){ v->callsites, v->ncallsites, v->callsites_step,
				 v->callsites_ustack_errors, v->callsites_samples };
	v->callsites = NULL;
	v->ncallsites = 0;
}

static void vcs_put(struct verdict *v, struct vcs_found *f)
{
	vcs_free(v->callsites, v->ncallsites);
	v->callsites = f->cs;
	v->ncallsites = f->n;
	v->callsites_step = f->step;
	v->callsites_ustack_errors = f->uerr;
	v->callsites_samples = f->samples;
	memset(f, 0, sizeof(*f));
}

/* Whether a call site of v names a function: "(no user stack)" alone names
 * none (measured with --kernel-only, or a wall-clock interval the
 * scheduler programs did not sample: no user stack was taken). */
static int vcs_any_user(const struct verdict *v)
{
	for (unsigned i = 0; i < v->ncallsites; i++)
		if (v->callsites[i].nframes)
			return 1;
	return 0;
}

int verdict_callsites_fill_steps(struct verdict *v, const struct profile *p,
				 const struct profile *const *steps, const char *const *units,
				 unsigned nsteps, uint32_t exclude_tgid)
{
	struct vcs_found first = { 0 }; /* the first found, no user frame in them */
	int err = p ? verdict_callsites_fill(v, p, exclude_tgid) : 0;
	uint64_t uerr = v->callsites_ustack_errors, samples = v->callsites_samples;

	for (unsigned i = 0; i < nsteps && !err && !vcs_any_user(v); i++) {
		if (!steps[i])
			continue;
		if (v->ncallsites && !first.n)
			vcs_take(v, &first);
		vcs_free(v->callsites, v->ncallsites);
		v->callsites = NULL;
		v->ncallsites = 0;
		err = verdict_callsites_fill(v, steps[i], exclude_tgid);
		if (v->ncallsites) {
			/* the step's own count: its events, not samples */
			v->callsites_step = i + 1;
			v->callsites_samples = 0;
		}
	}
	if (!err && !vcs_any_user(v) && first.n) {
		vcs_put(v, &first); /* none names a function: the first found */
	} else {
		vcs_free(first.cs, first.n);
		/* none from a step: what the sampler could not see stays said */
		if (!v->ncallsites) {
			v->callsites_step = 0;
			v->callsites_ustack_errors = uerr;
			v->callsites_samples = samples;
		}
	}
	/* the rises are in the unit of the profile they came from */
	snprintf(v->callsites_unit, sizeof(v->callsites_unit), "%s",
		 !v->callsites_step ? "" : units && units[v->callsites_step - 1]
		 ? units[v->callsites_step - 1] : STEP_UNIT_EVENTS);
	return err;
}

const char *verdict_callsites_unit(const struct verdict *v)
{
	return v->callsites_unit[0] ? v->callsites_unit : STEP_UNIT_SAMPLES;
}

int verdict_callsites_gap(const struct verdict *v, char *buf, size_t len)
{
	char step[32] = "";
	int r;

	if (len)
		buf[0] = 0;
	if (!v->callsites_ustack_errors || !len)
		return 0;
	if (v->callsites_step)
		snprintf(step, sizeof(step), " (step %u)", v->callsites_step);
	if (!v->callsites_step && v->callsites_samples)
		r = snprintf(buf, len, "call sites: %llu of %llu samples had no user stack (not taken)",
			     (unsigned long long)v->callsites_ustack_errors,
			     (unsigned long long)v->callsites_samples);
	else
		r = snprintf(buf, len, "call sites%s: %llu %s had no user stack (not taken)", step,
			     (unsigned long long)v->callsites_ustack_errors,
			     v->callsites_step ? "events" : "samples");
	return r < 0 ? 0 : r;
}

void verdict_callsite_format(const struct verdict_callsite *c, unsigned max, char *buf,
			     size_t len)
{
	verdict_callsite_format_sep(c, max, " \u2190 ", buf, len);
}

void verdict_callsite_format_sep(const struct verdict_callsite *c, unsigned max,
				 const char *sep, char *buf, size_t len)
{
	size_t at = 0;
	unsigned shown = 0;

	if (!len)
		return;
	buf[0] = 0;
	if (!c->nframes) {
		snprintf(buf, len, "(no user stack)");
		return;
	}
	for (unsigned k = c->nframes; k-- > 0 && at < len;) {
		int r;

		if (shown == max) {
			snprintf(buf + at, len - at, "%s...", sep);
			return;
		}
		r = snprintf(buf + at, len - at, "%s%s", shown ? sep : "", c->frames[k]);
		if (r < 0)
			return;
		at += (size_t)r;
		shown++;
	}
}
