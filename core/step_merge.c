/* step_merge — a step's results in the tree, calibrated (see step_merge.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step_merge.h"
#include "subsys.h"

#define SM_MAX_FRAMES 256

/* ---- annotations ----------------------------------------------------------- */

void tree_annot_free(struct tree_annot *a)
{
	while (a) {
		struct tree_annot *next = a->next;

		free(a->label);
		free(a->cond);
		free(a->secs);
		free(a->win);
		free(a);
		a = next;
	}
}

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
		if (!label && kind_frame_is_marker(ps->frames[i])) {
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

/* ---- calibration -------------------------------------------------------------- */

/* Mann–Whitney U of y (loaded) against x (reference) over log2 buckets,
 * each bucket a tie group; two-sided p (normal approximation, tie
 * correction); *sign +1 when y tends to be larger. */
static double sm_mann_whitney(const uint64_t *x, const uint64_t *y, int *sign)
{
	double n1 = 0, n2 = 0, below = 0, u = 0, ties = 0, N, mu, var, z;

	for (unsigned b = 0; b < KIND_HIST_BUCKETS; b++) {
		n1 += (double)x[b];
		n2 += (double)y[b];
	}
	*sign = 0;
	if (n1 == 0 || n2 == 0)
		return 1.0;
	for (unsigned b = 0; b < KIND_HIST_BUCKETS; b++) {
		double tb = (double)x[b] + (double)y[b];

		/* each loaded value beats every smaller reference value, half a tie */
		u += (double)y[b] * (below + 0.5 * (double)x[b]);
		below += (double)x[b];
		ties += tb * tb * tb - tb;
	}
	N = n1 + n2;
	mu = n1 * n2 / 2;
	var = n1 * n2 / 12.0 * ((N + 1) - ties / (N * (N - 1) > 0 ? N * (N - 1) : 1));
	if (!(var > 0))
		return 1.0;
	*sign = (u > mu) - (u < mu);
	z = (fabs(u - mu) - 0.5) / sqrt(var);
	if (z <= 0)
		return 1.0;
	return fmax(erfc(z / M_SQRT2), 1e-300);
}

static int sm_sign(double v)
{
	return (v > 0) - (v < 0);
}

/* Rates, Poisson test and pair signs of one annotation (q set later). */
static void sm_annot_stats(struct tree_annot *a)
{
	double secs[COND_N] = { 0 };
	unsigned rw[64], lw[64], nr = 0, nl = 0;

	for (unsigned w = 0; w < a->nwin; w++) {
		if (!(a->secs[w] > 0))
			continue;
		secs[a->cond[w]] += a->secs[w];
		if (a->cond[w] == COND_REF && nr < 64)
			rw[nr++] = w;
		else if (a->cond[w] == COND_LOAD && nl < 64)
			lw[nl++] = w;
	}
	for (int c = 0; c < COND_N; c++)
		a->rate[c] = secs[c] > 0 ? a->total[c] / secs[c] : 0;
	a->delta = a->rate[COND_LOAD] - a->rate[COND_REF];
	a->ratio = a->rate[COND_REF] > 0 ? a->rate[COND_LOAD] / a->rate[COND_REF]
		   : a->rate[COND_LOAD] > 0 ? INFINITY : 1.0;
	a->p = calib_poisson_p(a->total[COND_REF], secs[COND_REF], a->total[COND_LOAD],
			       secs[COND_LOAD]);
	a->q = a->p;
	a->pairs = a->pairs_agree = 0;
	for (unsigned k = 0; k < nr && k < nl; k++) {
		double dd = a->win[lw[k]] / a->secs[lw[k]] - a->win[rw[k]] / a->secs[rw[k]];

		a->pairs++;
		if (sm_sign(dd) == sm_sign(a->delta))
			a->pairs_agree++;
	}
	if (a->has_lat) {
		for (int c = 0; c < COND_N; c++) {
			a->p50_ns[c] = kind_hist_percentile(a->hist[c], 50);
			a->p99_ns[c] = kind_hist_percentile(a->hist[c], 99);
		}
		a->lat_p = sm_mann_whitney(a->hist[COND_REF], a->hist[COND_LOAD], &a->lat_sign);
	}
}

struct sm_annots {
	struct tree_annot **v;
	struct tree_node **node;
	size_t n, cap;
};

static int sm_collect(struct tree_node *n, void *arg)
{
	struct sm_annots *c = arg;

	for (struct tree_annot *a = n->annot; a; a = a->next) {
		if (c->n == c->cap) {
			size_t cap = c->cap ? c->cap * 2 : 64;
			struct tree_annot **v = realloc(c->v, cap * sizeof(*v));
			struct tree_node **nn;

			if (!v)
				return -ENOMEM;
			c->v = v;
			nn = realloc(c->node, cap * sizeof(*nn));
			if (!nn)
				return -ENOMEM;
			c->node = nn;
			c->cap = cap;
		}
		c->v[c->n] = a;
		c->node[c->n++] = n;
	}
	return 0;
}

int tree_annot_calib(struct tree *t, const struct calib_opts *o)
{
	struct sm_annots c = { 0 };
	struct calib_opts def;
	double *p = NULL;
	size_t *ix = NULL;
	unsigned maxstep = 0;
	int err;

	if (!t || !t->root)
		return -EINVAL;
	if (!o) {
		calib_opts_default(&def);
		o = &def;
	}
	err = tree_walk(t->root, sm_collect, &c);
	if (err || !c.n)
		goto cleanup;
	p = malloc(c.n * sizeof(*p));
	ix = malloc(c.n * sizeof(*ix));
	if (!p || !ix) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < c.n; i++) {
		sm_annot_stats(c.v[i]);
		if (c.v[i]->step > maxstep)
			maxstep = c.v[i]->step;
	}
	/* Benjamini–Hochberg within each step's family */
	for (unsigned st = 0; st <= maxstep; st++) {
		size_t m = 0;

		for (size_t i = 0; i < c.n; i++) {
			struct tree_annot *a = c.v[i];

			if (a->step != st)
				continue;
			a->q = 1.0;
			if (a->total[COND_REF] + a->total[COND_LOAD] >= o->min_count) {
				p[m] = a->p;
				ix[m++] = i;
			}
		}
		err = calib_bh(p, p, m);
		if (err)
			goto cleanup;
		for (size_t k = 0; k < m; k++)
			c.v[ix[k]]->q = p[k];
	}
	for (size_t i = 0; i < c.n; i++) {
		struct tree_annot *a = c.v[i];

		a->significant = a->total[COND_REF] + a->total[COND_LOAD] >= o->min_count &&
				 a->delta != 0 && a->q <= o->alpha &&
				 !(a->pairs >= 2 && !((double)a->pairs_agree / a->pairs > o->min_agree));
		a->sign = a->significant ? sm_sign(a->delta) : 0;
		a->lat_significant = a->has_lat && a->lat_p <= o->alpha && a->lat_sign != 0;
	}
	/* node->stat of step nodes from their first annotation */
	for (size_t i = 0; i < c.n; i++) {
		struct tree_node *n = c.node[i];
		struct tree_annot *a = c.v[i];
		struct calib_stat *s = &n->stat;

		if (!(n->flags & TREE_F_STEP) || a != n->annot)
			continue;
		memset(s, 0, sizeof(*s));
		memcpy(s->rate, a->rate, sizeof(s->rate));
		s->delta = a->delta;
		s->ratio = a->ratio;
		s->p = a->p;
		s->q = a->q;
		s->pairs = a->pairs;
		s->pairs_agree = a->pairs_agree;
		s->significant = a->significant;
		s->sign = a->sign;
		if (a->total[COND_REF] + a->total[COND_LOAD] < o->min_count)
			s->why = "too few events to test";
		else if (a->delta == 0)
			s->why = "no change";
		else if (!(a->q <= o->alpha))
			s->why = "q above the FDR level";
		else if (!a->significant)
			s->why = "window pairs disagree in sign";
		else
			s->why = a->sign > 0 ? "significant increase (step events)"
					     : "significant decrease (step events)";
		if (n->parent && (n->parent->flags & TREE_F_STEP) && n->parent->stat.delta != 0)
			s->share_of_parent = s->delta / n->parent->stat.delta;
	}
cleanup:
	free(c.v);
	free(c.node);
	free(p);
	free(ix);
	return err;
}

/* ---- per-target results ------------------------------------------------------- */

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
		sm_annot_stats(&a);
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
	if (calib_bh(p, p, nt) < 0) {
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
		x->sign = x->significant ? sm_sign(x->delta) : 0;
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

static void sm_fmt_p(char *b, size_t len, const char *what, double p)
{
	if (p <= 1e-300)
		snprintf(b, len, "%s<1e-300", what);
	else if (p >= 0.01)
		snprintf(b, len, "%s=%.2f", what, p);
	else
		snprintf(b, len, "%s=%.0e", what, p);
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
			sm_fmt_p(q, sizeof(q), "q", r->q);
		else
			sm_fmt_p(q, sizeof(q), "p", r->lat_p);
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
		snprintf(pct, sizeof(pct), "%+.0f%%", r->delta / r->rate[COND_REF] * 100);
	else
		snprintf(pct, sizeof(pct), r->rate[COND_LOAD] > 0 ? "new" : "none");
	sm_fmt_p(q, sizeof(q), "q", r->q);
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
