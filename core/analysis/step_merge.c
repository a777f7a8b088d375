/* step_merge — a step's results in the tree, calibrated (see step_merge.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/step_merge.h"
#include "base/numfmt.h"
#include "base/stats.h"
#include "data/subsys.h"

#define SM_MAX_FRAMES 256

/* ---- annotations ----------------------------------------------------------- */

/* The annotation of node n for (step idx, label), created when absent. */
static struct tree_annot *sm_annot(struct tree_node *n, const struct step_data *d,
				   unsigned idx, const char *label)
{
	struct tree_annot *a, **tail = &n->annot;

	for (a = n->annot; a; a = a->next) {
		if (a->step == idx && !strcmp(a->label, label))
			return a;
		tail = &a->next;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->step = idx;
	a->unit = d->unit ? d->unit : "events";
	a->label = strdup(label);
	a->nwin = d->nwin;
	a->cond = calloc(d->nwin + 1, sizeof(*a->cond));
	a->secs = calloc(d->nwin + 1, sizeof(*a->secs));
	a->win = calloc(d->nwin + 1, sizeof(*a->win));
	if (!a->label || !a->cond || !a->secs || !a->win) {
		tree_annot_free(a);
		return NULL;
	}
	for (unsigned w = 0; w < d->nwin; w++) {
		a->cond[w] = d->prof->wins[w].cond;
		a->secs[w] = d->prof->wins[w].secs;
	}
	*tail = a;
	return a;
}

static int sm_add(struct tree_node *n, const struct step_data *d, unsigned idx,
		  const char *label, const uint64_t *win, int own_counts, int self)
{
	struct tree_annot *a = sm_annot(n, d, idx, label);

	if (!a)
		return -ENOMEM;
	for (unsigned w = 0; w < d->nwin; w++) {
		enum cond c = a->cond[w];

		a->win[w] += win[w];
		a->total[c] += win[w];
		if (own_counts) {
			n->total[c] += win[w];
			if (self)
				n->self[c] += win[w];
		}
	}
	return 0;
}

static struct tree_node *sm_step_node(struct tree *t, struct tree_node *parent,
				      const char *name, enum tree_node_kind kind)
{
	struct tree_node *n = tree_node_add(t, parent, name, kind);

	if (!n)
		return NULL;
	if (!(n->flags & TREE_F_STEP) && (n->total[COND_REF] || n->total[COND_LOAD] || n->annot))
		return n; /* an existing node of the calibration */
	n->flags |= TREE_F_STEP;
	return n;
}

static struct tree_node *sm_subsys_node(struct tree *t, enum subsys sub)
{
	struct tree_node *n = tree_child(t, t->root, subsys_name(sub));

	if (n)
		return n;
	n = tree_node_add(t, t->root, subsys_name(sub), TREE_SUBSYS);
	if (n)
		n->subsys = sub;
	return n;
}

/* "[tp] exceptions:page_fault_user" for a target. */
static void sm_target_label(const struct step *s, unsigned ti, char *buf, size_t len)
{
	if (s->kind == STEP_TRACEPOINT_LATENCY)
		snprintf(buf, len, "[lat] %s..%s", s->nresolved > 0 ? s->resolved[0] : s->begin,
			 s->nresolved > 1 ? s->resolved[1] : s->end);
	else if (s->kind == STEP_FUNCTION_LATENCY)
		snprintf(buf, len, "[lat] %s", ti < s->nresolved ? s->resolved[ti] : "?");
	else if (s->kind == STEP_SAMPLE)
		snprintf(buf, len, "[step sample]");
	else if (s->kind == STEP_OFFCPU)
		snprintf(buf, len, "[offcpu]");
	else
		snprintf(buf, len, "[tp] %s", ti < s->nresolved ? s->resolved[ti] : "?");
}

/* Subsystem a target's own node goes under, from its category. */
static enum subsys sm_target_subsys(const struct step *s, unsigned ti)
{
	static const struct { const char *cat; enum subsys sub; } map[] = {
		{ "exceptions", SUBSYS_MM }, { "kmem", SUBSYS_MM }, { "compaction", SUBSYS_MM },
		{ "vmscan", SUBSYS_MM }, { "huge_memory", SUBSYS_MM }, { "migrate", SUBSYS_MM },
		{ "filemap", SUBSYS_MM }, { "pagemap", SUBSYS_MM }, { "mmap", SUBSYS_MM },
		{ "sched", SUBSYS_SCHED }, { "block", SUBSYS_BLOCK }, { "writeback", SUBSYS_FS },
		{ "ext4", SUBSYS_FS }, { "net", SUBSYS_NET }, { "sock", SUBSYS_NET },
		{ "tcp", SUBSYS_NET }, { "skb", SUBSYS_NET }, { "lock", SUBSYS_LOCKING },
		{ "irq", SUBSYS_IRQ }, { "timer", SUBSYS_IRQ }, { "raw_syscalls", SUBSYS_SYSCALL },
		{ "syscalls", SUBSYS_SYSCALL },
	};
	const char *name = ti < s->nresolved ? s->resolved[ti] : s->begin;
	size_t cl;

	if (s->kind == STEP_OFFCPU)
		return SUBSYS_SCHED;
	if (!name)
		return SUBSYS_OTHER;
	cl = strcspn(name, ":");
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strlen(map[i].cat) == cl && !strncmp(map[i].cat, name, cl))
			return map[i].sub;
	if (name[cl] == ':') {
		enum subsys sub = subsys_of_function(name + cl + 1);

		if (sub != SUBSYS_N)
			return sub;
	}
	return SUBSYS_OTHER;
}

/* Places one recorded stack: frames root first up to the kind's marker
 * frame (kind.h), the marker, then what the kind tells about the event
 * (the waker's stack for offcpu). */
static int sm_stack(struct tree *t, const struct step *s, const struct step_data *d,
		    unsigned idx, const struct profile_stack *ps)
{
	const char *frames[SM_MAX_FRAMES];
	const char *label = NULL;
	char lbuf[160];
	unsigned nf = 0, npath, j = 0;
	struct tree_node *cur, *n;
	int err;

	for (unsigned i = 0; i < ps->nframes && nf < SM_MAX_FRAMES; i++) {
		if (!label && step_data_frame_is_marker(ps->frames[i])) {
			label = ps->frames[i];
			npath = nf;
			continue;
		}
		frames[nf++] = ps->frames[i];
	}
	if (!label) {
		sm_target_label(s, 0, lbuf, sizeof(lbuf));
		label = lbuf;
		npath = nf;
	}
	cur = sm_subsys_node(t, npath ? subsys_classify(frames, npath) : sm_target_subsys(s, 0));
	if (!cur)
		return -ENOMEM;
	/* the matched prefix: annotate, do not count */
	for (; j < npath; j++) {
		n = tree_child(t, cur, frames[j]);
		if (!n || (n->flags & TREE_F_STEP))
			break;
		err = sm_add(n, d, idx, label, ps->win, 0, 0);
		if (err)
			return err;
		cur = n;
	}
	n = sm_step_node(t, cur, label, TREE_EVENT);
	if (!n)
		return -ENOMEM;
	err = sm_add(n, d, idx, label, ps->win, 1, j == nf);
	if (err)
		return err;
	cur = n;
	/* the rest of the path (new to the tree), then the event's details */
	for (; j < nf; j++) {
		n = sm_step_node(t, cur, frames[j], TREE_FRAME);
		if (!n)
			return -ENOMEM;
		err = sm_add(n, d, idx, label, ps->win, 1, j + 1 == nf);
		if (err)
			return err;
		cur = n;
	}
	return 0;
}

/* The target's own node: exact totals, latency histograms. */
static int sm_target(struct tree *t, const struct step *s, const struct step_data *d,
		     unsigned idx, unsigned ti)
{
	struct tree_node *sub, *n;
	struct tree_annot *a;
	uint64_t *win;
	char label[160];
	int err = 0;

	sm_target_label(s, ti, label, sizeof(label));
	sub = sm_subsys_node(t, sm_target_subsys(s, ti));
	if (!sub)
		return -ENOMEM;
	n = sm_step_node(t, sub, label, TREE_EVENT);
	if (!n)
		return -ENOMEM;
	/* stacks that matched nothing already put counts here: the target's
	 * exact totals replace them */
	for (a = n->annot; a; a = a->next)
		if (a->step == idx && !strcmp(a->label, label))
			break;
	if (a) {
		for (unsigned w = 0; w < a->nwin; w++)
			n->total[a->cond[w]] -= a->win[w];
		memset(a->win, 0, a->nwin * sizeof(*a->win));
		memset(a->total, 0, sizeof(a->total));
	}
	win = calloc(d->nwin + 1, sizeof(*win));
	if (!win)
		return -ENOMEM;
	for (unsigned w = 0; w < d->nwin; w++)
		win[w] = step_data_target((struct step_data *)d, w, ti)->events;
	err = sm_add(n, d, idx, label, win, 1, 0);
	free(win);
	if (err)
		return err;
	if (s->kind != STEP_TRACEPOINT_LATENCY && s->kind != STEP_FUNCTION_LATENCY)
		return 0;
	a = sm_annot(n, d, idx, label);
	if (!a)
		return -ENOMEM;
	a->has_lat = 1;
	for (unsigned w = 0; w < d->nwin; w++) {
		const struct step_target_win *tw = step_data_target((struct step_data *)d, w, ti);

		for (unsigned b = 0; b < KIND_HIST_BUCKETS; b++)
			a->hist[a->cond[w]][b] += tw->hist[b];
	}
	return 0;
}

int step_merge_into_tree(struct tree *t, const struct step *s, const struct step_data *d,
			 unsigned idx)
{
	int err = 0;

	if (!t || !t->root || !s || !d || !d->prof)
		return -EINVAL;
	for (size_t i = 0; i < d->prof->nstacks && !err; i++)
		err = sm_stack(t, s, d, idx, &d->prof->stacks[i]);
	for (unsigned ti = 0; ti < d->ntargets && !err; ti++)
		err = sm_target(t, s, d, idx, ti);
	return err;
}


/* ---- per-target results ------------------------------------------------------- */

static int step_sign(double v)
{
	return (v > 0) - (v < 0);
}

int step_results(const struct step *s, const struct step_data *d, double alpha,
		 struct step_target_result **out)
{
	struct step_target_result *r;
	double *p;
	unsigned nt;

	*out = NULL;
	if (!s || !d)
		return -EINVAL;
	nt = d->ntargets;
	r = calloc(nt + 1, sizeof(*r));
	p = calloc(nt + 1, sizeof(*p));
	if (!r || !p) {
		free(r);
		free(p);
		return -ENOMEM;
	}
	if (!(alpha > 0))
		alpha = 0.05;
	for (unsigned ti = 0; ti < nt; ti++) {
		struct step_target_result *x = &r[ti];
		struct tree_annot a = { 0 };
		enum cond cond[64];
		double secs[64];
		uint64_t win[64];

		if (s->kind == STEP_TRACEPOINT_LATENCY)
			x->name = s->nresolved > 1 ? s->resolved[1] : s->end ? s->end : "?";
		else
			x->name = ti < s->nresolved ? s->resolved[ti] : step_kind_name(s->kind);
		a.nwin = d->nwin < 64 ? d->nwin : 64;
		a.cond = cond;
		a.secs = secs;
		a.win = win;
		a.has_lat = s->kind == STEP_TRACEPOINT_LATENCY || s->kind == STEP_FUNCTION_LATENCY;
		for (unsigned w = 0; w < a.nwin; w++) {
			const struct step_target_win *tw =
				step_data_target((struct step_data *)d, w, ti);

			cond[w] = d->prof->wins[w].cond;
			secs[w] = d->prof->wins[w].secs;
			win[w] = tw->events;
			a.total[cond[w]] += tw->events;
			x->secs[cond[w]] += secs[w];
			for (unsigned b = 0; b < KIND_HIST_BUCKETS; b++)
				a.hist[cond[w]][b] += tw->hist[b];
		}
		calib_annot_stats(&a);
		memcpy(x->events, a.total, sizeof(x->events));
		memcpy(x->rate, a.rate, sizeof(x->rate));
		x->delta = a.delta;
		x->ratio = a.ratio;
		x->p = a.p;
		x->pairs = a.pairs;
		x->pairs_agree = a.pairs_agree;
		x->has_lat = a.has_lat;
		if (a.has_lat) {
			for (int c = 0; c < COND_N; c++) {
				x->intervals[c] = 0;
				for (unsigned b = 0; b < KIND_HIST_BUCKETS; b++)
					x->intervals[c] += a.hist[c][b];
			}
			memcpy(x->p50_ns, a.p50_ns, sizeof(x->p50_ns));
			memcpy(x->p99_ns, a.p99_ns, sizeof(x->p99_ns));
			x->lat_p = a.lat_p;
			x->lat_significant = a.lat_p <= alpha && a.lat_sign != 0;
		}
		p[ti] = a.p;
	}
	if (stats_bh_adjust(p, p, nt) < 0) {
		free(r);
		free(p);
		return -ENOMEM;
	}
	for (unsigned ti = 0; ti < nt; ti++) {
		struct step_target_result *x = &r[ti];

		x->q = p[ti];
		x->significant = x->events[COND_REF] + x->events[COND_LOAD] >= 5 &&
				 x->delta != 0 && x->q <= alpha &&
				 !(x->pairs >= 2 && !((double)x->pairs_agree / x->pairs > 0.5));
		x->sign = x->significant ? step_sign(x->delta) : 0;
	}
	free(p);
	*out = r;
	return (int)nt;
}

/* ---- words -------------------------------------------------------------------- */

char *step_fmt_rate(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.1fG/s", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.1fM/s", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, len, "%.1fk/s", v / 1e3);
	else if (a >= 10 || a == 0)
		snprintf(buf, len, "%.0f/s", v);
	else
		snprintf(buf, len, "%.1f/s", v);
	return buf;
}

char *step_fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 10e6)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else if (ns >= 0.1e6)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

static const char *sm_short(const char *name)
{
	const char *c = strchr(name, ':');

	return c ? c + 1 : name;
}

char *step_result_line(const struct step_target_result *r, int utf8, char *buf, size_t len)
{
	const char *arrow = utf8 ? "\xe2\x86\x92" : "->";
	char a[32], b[32], c[32], d[32], pct[32], q[32];

	if (r->has_lat && (r->intervals[COND_REF] || r->intervals[COND_LOAD])) {
		/* intervals in one condition only: no distributions to compare,
		 * the rate test says whether they are real */
		int one = !r->intervals[COND_REF] || !r->intervals[COND_LOAD];

		if (one)
			numfmt_p(q, sizeof(q), "q", r->q, NUMFMT_P_WORDS);
		else
			numfmt_p(q, sizeof(q), "p", r->lat_p, NUMFMT_P_WORDS);
		snprintf(buf, len, "%s p99 %s %s %s (p50 %s %s %s), %llu %s %llu intervals, %s%s",
			 sm_short(r->name), step_fmt_ns(r->p99_ns[COND_REF], a, sizeof(a)), arrow,
			 step_fmt_ns(r->p99_ns[COND_LOAD], b, sizeof(b)),
			 step_fmt_ns(r->p50_ns[COND_REF], c, sizeof(c)), arrow,
			 step_fmt_ns(r->p50_ns[COND_LOAD], d, sizeof(d)),
			 (unsigned long long)r->intervals[COND_REF], arrow,
			 (unsigned long long)r->intervals[COND_LOAD], q,
			 (one ? r->significant : r->lat_significant) ? "" : " (n.s.)");
		return buf;
	}
	if (r->rate[COND_REF] > 0)
		numfmt_pct(pct, sizeof(pct), r->delta / r->rate[COND_REF] * 100, 1);
	else
		snprintf(pct, sizeof(pct), r->rate[COND_LOAD] > 0 ? "new" : "none");
	numfmt_p(q, sizeof(q), "q", r->q, NUMFMT_P_WORDS);
	snprintf(buf, len, "%s %s %s %s (%s), %s%s", sm_short(r->name),
		 step_fmt_rate(r->rate[COND_REF], a, sizeof(a)), arrow,
		 step_fmt_rate(r->rate[COND_LOAD], b, sizeof(b)), pct, q,
		 r->significant ? "" : " (n.s.)");
	return buf;
}

char *step_summary(const struct step *s, const struct step_data *d, int utf8)
{
	struct step_target_result *r = NULL;
	int n = step_results(s, d, 0.05, &r), best = -1;
	char line[512], *out = NULL;

	if (n < 0) {
		errno = -n;
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		if (best < 0) {
			best = i;
			continue;
		}
		if (r[i].has_lat != r[best].has_lat) {
			if (r[i].has_lat)
				best = i;
			continue;
		}
		if (r[i].significant != r[best].significant) {
			if (r[i].significant)
				best = i;
			continue;
		}
		if (fabs(r[i].delta) > fabs(r[best].delta))
			best = i;
	}
	if (best < 0)
		snprintf(line, sizeof(line), "%s: no target measured", step_kind_name(s->kind));
	else
		step_result_line(&r[best], utf8, line, sizeof(line));
	if (n > 1) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof(line) - l, " (+%d more target%s)", n - 1, n > 2 ? "s" : "");
	}
	if (d->lost) {
		size_t l = strlen(line);

		snprintf(line + l, sizeof(line) - l, "; %llu lost", (unsigned long long)d->lost);
	}
	out = strdup(line);
	free(r);
	return out;
}
