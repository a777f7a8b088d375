/* mva — exact MVA for closed product-form networks, and the layered
 * approximation (see mva.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/mva.h"

int mva_exact(const struct mva_station *st, size_t n, double z, unsigned N,
	      struct mva_out *out, struct mva_station_out *out_st)
{
	double *q = NULL, *r = NULL, **p = NULL, x = 0, rsum = 0;
	int err = 0;

	if (!st || !n || !N || z < 0 || !isfinite(z))
		return -EINVAL;
	for (size_t k = 0; k < n; k++)
		if (!(st[k].demand >= 0) || !isfinite(st[k].demand) ||
		    (st[k].kind == MVA_QUEUE && st[k].servers == 0))
			return -EINVAL;
	q = calloc(n, sizeof(*q));
	r = calloc(n, sizeof(*r));
	p = calloc(n, sizeof(*p));
	if (!q || !r || !p) {
		err = -ENOMEM;
		goto out;
	}
	/* marginal probabilities p[k][j] = P(j customers at k), only for
	 * multi-server stations: their residence depends on the distribution,
	 * not only on the mean */
	for (size_t k = 0; k < n; k++)
		if (st[k].kind == MVA_QUEUE && st[k].servers > 1) {
			p[k] = calloc((size_t)N + 1, sizeof(**p));
			if (!p[k]) {
				err = -ENOMEM;
				goto out;
			}
			p[k][0] = 1;
		}
	for (unsigned nn = 1; nn <= N; nn++) {
		rsum = 0;
		for (size_t k = 0; k < n; k++) {
			double d = st[k].demand;

			if (st[k].kind == MVA_DELAY) {
				r[k] = d;
			} else if (st[k].servers == 1) {
				r[k] = d * (1 + q[k]);
			} else {
				r[k] = 0;
				for (unsigned j = 1; j <= nn; j++) {
					unsigned a = j < st[k].servers ? j : st[k].servers;

					r[k] += (double)j / a * d * p[k][j - 1];
				}
			}
			rsum += r[k];
		}
		x = z + rsum > 0 ? nn / (z + rsum) : INFINITY;
		for (size_t k = 0; k < n; k++) {
			q[k] = x * r[k];
			if (p[k]) {
				double s = 0;

				for (unsigned j = nn; j >= 1; j--) {
					unsigned a = j < st[k].servers ? j : st[k].servers;

					p[k][j] = st[k].demand / a * x * p[k][j - 1];
					s += p[k][j];
				}
				p[k][0] = s < 1 ? 1 - s : 0;
			}
		}
	}
	if (out) {
		out->x = x;
		out->r = rsum;
	}
	if (out_st)
		for (size_t k = 0; k < n; k++) {
			out_st[k].resid = r[k];
			out_st[k].queue = q[k];
			out_st[k].util = st[k].kind == MVA_DELAY ? x * st[k].demand
				       : x * st[k].demand / st[k].servers;
		}
out:
	if (p)
		for (size_t k = 0; k < n; k++)
			free(p[k]);
	free(p);
	free(q);
	free(r);
	return err;
}

/* ---- layered ---- */

struct mva_lstate {
	const struct mva_task *t;
	size_t nt;
	int *order;      /* callers before callees */
	double *visits;  /* invocations per reference cycle */
	double *pop;     /* threads that can be at each task at once */
};

/* Depth-first topological order; -1 on a cycle. */
static int mva_topo_visit(const struct mva_task *t, int i, char *mark, int *order, size_t *pos)
{
	if (mark[i] == 2)
		return 0;
	if (mark[i] == 1)
		return -1;
	mark[i] = 1;
	for (unsigned c = 0; c < t[i].ncalls; c++)
		if (mva_topo_visit(t, t[i].calls[c].task, mark, order, pos))
			return -1;
	mark[i] = 2;
	order[--*pos] = i;
	return 0;
}

static double mva_min(double a, double b)
{
	return a < b ? a : b;
}

int mva_layered(const struct mva_proc *procs, size_t nproc,
		const struct mva_task *tasks, size_t ntask,
		struct mva_layered_out *out, struct mva_task_out *to,
		struct mva_proc_out *po, const char **cause)
{
	const double omega = 0.5; /* under-relaxation: stabilises the fixed point */
	double *vis = NULL, *pop = NULL, *r = NULL, *w = NULL, *qt = NULL, *cr = NULL;
	double *qp = NULL, *ppop = NULL, x = 0, N;
	int *order = NULL, ref = -1, err = 0;
	char *mark = NULL;
	size_t pos = ntask;
	unsigned it;

	*cause = NULL;
	if (!tasks || !ntask || (nproc && !procs)) {
		*cause = "the model has no task";
		return -EINVAL;
	}
	for (size_t i = 0; i < ntask; i++) {
		const struct mva_task *t = &tasks[i];

		if (t->proc < 0 || (size_t)t->proc >= nproc || t->ncalls > MVA_MAX_CALLS ||
		    !(t->cpu >= 0) || !(t->delay >= 0) || !(t->think >= 0) ||
		    !isfinite(t->cpu + t->delay + t->think)) {
			*cause = "a task has a bad processor, demand or call list";
			return -EINVAL;
		}
		for (unsigned c = 0; c < t->ncalls; c++)
			if (t->calls[c].task < 0 || (size_t)t->calls[c].task >= ntask ||
			    !(t->calls[c].mean >= 0) || !isfinite(t->calls[c].mean)) {
				*cause = "a call names no task or has a bad mean";
				return -EINVAL;
			}
		if (t->ref) {
			if (ref >= 0) {
				*cause = "the model has two reference tasks";
				return -EINVAL;
			}
			ref = (int)i;
		}
	}
	if (ref < 0 || tasks[ref].mult == 0) {
		*cause = "the model has no reference task with a finite number of threads";
		return -EINVAL;
	}
	N = tasks[ref].mult;
	vis = calloc(ntask, sizeof(*vis));
	pop = calloc(ntask, sizeof(*pop));
	r = calloc(ntask, sizeof(*r));
	w = calloc(ntask, sizeof(*w));
	qt = calloc(ntask, sizeof(*qt));
	cr = calloc(ntask, sizeof(*cr));
	qp = calloc(nproc + 1, sizeof(*qp));
	ppop = calloc(nproc + 1, sizeof(*ppop));
	order = calloc(ntask, sizeof(*order));
	mark = calloc(ntask, 1);
	if (!vis || !pop || !r || !w || !qt || !cr || !qp || !ppop || !order || !mark) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ntask; i++)
		if (mva_topo_visit(tasks, (int)i, mark, order, &pos)) {
			*cause = "the calls form a cycle (a task calls itself through others)";
			err = -EINVAL;
			goto out;
		}
	/* visits and populations, callers first */
	vis[ref] = 1;
	pop[ref] = N;
	for (size_t k = 0; k < ntask; k++) {
		int i = order[k];
		double threads = tasks[i].mult ? mva_min(tasks[i].mult, pop[i]) : pop[i];

		if (i == ref)
			threads = N;
		for (unsigned c = 0; c < tasks[i].ncalls; c++) {
			int j = tasks[i].calls[c].task;

			vis[j] += vis[i] * tasks[i].calls[c].mean;
			if (tasks[i].calls[c].mean > 0)
				pop[j] = mva_min(N, pop[j] + threads);
		}
	}
	for (size_t i = 0; i < ntask; i++)
		if (vis[i] > 0)
			ppop[tasks[i].proc] = mva_min(N, ppop[tasks[i].proc] +
						      (tasks[i].mult ? mva_min(tasks[i].mult, pop[i]) : pop[i]));

	for (size_t i = 0; i < ntask; i++)
		cr[i] = tasks[i].cpu;
	for (it = 1; it <= 20000; it++) {
		double xold = x, change = 0;

		/* response times, callees first */
		for (size_t k = ntask; k-- > 0;) {
			int i = order[k];
			double v = cr[i] + tasks[i].delay;

			for (unsigned c = 0; c < tasks[i].ncalls; c++) {
				int j = tasks[i].calls[c].task;

				v += tasks[i].calls[c].mean * (w[j] + r[j]);
			}
			r[i] = v;
		}
		x = tasks[ref].think + r[ref] > 0 ? N / (tasks[ref].think + r[ref]) : 0;
		if (!(x > 0) || !isfinite(x)) {
			*cause = "the model has no demand at all (zero think time and service)";
			err = -EINVAL;
			goto out;
		}
		/* software stations: waiting for a thread of the task */
		for (size_t i = 0; i < ntask; i++) {
			double m = tasks[i].mult, xi = x * vis[i], nw, seen;

			if ((int)i == ref || m == 0 || m >= pop[i] || vis[i] == 0) {
				w[i] = 0;
				continue;
			}
			seen = pop[i] > 1 ? qt[i] * (pop[i] - 1) / pop[i] : 0;
			nw = r[i] / m * seen;
			change = fmax(change, fabs(nw - w[i]) / (r[i] > 0 ? r[i] : 1));
			w[i] += omega * (nw - w[i]);
			qt[i] = xi * (w[i] + r[i] / m);
		}
		/* processors: residence of each task's demand */
		for (size_t p = 0; p < nproc; p++) {
			double c = procs[p].cores, seen, q = 0;

			seen = ppop[p] > 1 ? qp[p] * (ppop[p] - 1) / ppop[p] : 0;
			/* the competitors take the cores the load leaves free first:
			 * only those beyond them are seen queued, so the residence
			 * grows from the demand itself as the background passes the
			 * free cores (it jumped by half a demand at 2 cores, and the
			 * calibration's bisection settled on the jump: the model at 1
			 * client of tier3 was 5% slower than the load it was fitted to) */
			if (procs[p].background > 0)
				seen += fmax(0, procs[p].background - fmax(0, c - ppop[p]));
			for (size_t i = 0; i < ntask; i++) {
				double ncr;

				if ((size_t)tasks[i].proc != p)
					continue;
				if (c == 0 || ppop[p] + procs[p].background <= c)
					ncr = tasks[i].cpu;
				else
					ncr = tasks[i].cpu / c * (1 + seen) + tasks[i].cpu * (c - 1) / c;
				change = fmax(change, fabs(ncr - cr[i]) / (ncr > 0 ? ncr : 1));
				cr[i] += omega * (ncr - cr[i]);
				if (c > 0)
					q += x * vis[i] * (cr[i] - tasks[i].cpu * (c - 1) / c);
			}
			qp[p] = q;
		}
		if (it > 2 && fabs(x - xold) <= 1e-10 * x && change < 1e-10)
			break;
	}
	if (out) {
		out->x = x;
		out->r = r[ref];
		out->iterations = it > 20000 ? 20000 : it;
		out->converged = it <= 20000;
	}
	if (to)
		for (size_t i = 0; i < ntask; i++) {
			to[i].x = x * vis[i];
			to[i].r = r[i];
			to[i].wait = w[i];
			to[i].cpu_wait = cr[i] > tasks[i].cpu ? cr[i] - tasks[i].cpu : 0;
			to[i].util = tasks[i].mult && (int)i != ref ?
				     x * vis[i] * r[i] / tasks[i].mult : x * vis[i] * r[i];
			if ((int)i == ref)
				to[i].util = x * r[i] / N;
		}
	if (po)
		for (size_t p = 0; p < nproc; p++) {
			double busy = 0;

			for (size_t i = 0; i < ntask; i++)
				if ((size_t)tasks[i].proc == p)
					busy += x * vis[i] * tasks[i].cpu;
			po[p].util = procs[p].cores ? busy / procs[p].cores : busy;
		}
out:
	free(vis);
	free(pop);
	free(r);
	free(w);
	free(qt);
	free(cr);
	free(qp);
	free(ppop);
	free(order);
	free(mark);
	return err;
}
