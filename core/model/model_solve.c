/* model_solve — the model solved (see model.h): a what-if parsed, the
 * layered queueing model handed to the MVA solver (core/model/mva.h) at the
 * measured load or a what-if, with or without the probe's CPU, and which
 * task a semaphore's callers are.  Split from the building
 * (model.c, model_calls.c, model_probe.c, model_check.c) along the seam:
 * they call the solver to calibrate and check what they built; the solver
 * calls nothing of theirs, so the dependency runs one way. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/model_priv.h"
#include "model/mva.h"

int model_pool_of(const struct model *m, int si)
{
	for (unsigned j = 0; j < m->ntask; j++)
		for (unsigned c = 0; c < m->task[j].ncalls; c++)
			if (m->task[j].calls[c].to == si)
				return (int)j;
	return -1;
}

int model_whatif_parse(const char *s, struct model_whatif *w)
{
	const char *p = s;

	memset(w, 0, sizeof(*w));
	w->clients_factor = 1;
	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char item[64], *end;
		double v;

		if (n == 0 || n >= sizeof(item))
			return -EINVAL;
		memcpy(item, p, n);
		item[n] = 0;
		if (!strncmp(item, "clients=", 8)) {
			v = strtod(item + 8, &end);
			if (end == item + 8 || !(v > 0) || !isfinite(v))
				return -EINVAL;
			if (*end == 'x' && !end[1])
				w->clients_factor = v;
			else if (!*end && v == floor(v) && v <= 100000)
				w->clients = (unsigned)v;
			else
				return -EINVAL;
		} else if (!strncmp(item, "cpus=", 5)) {
			v = strtod(item + 5, &end);
			if (end == item + 5 || *end || !(v >= 1) || v != floor(v) || v > 4096)
				return -EINVAL;
			w->cpus = (unsigned)v;
		} else {
			return -EINVAL;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int model_solve(const struct model *m, const struct model_whatif *wi,
		struct model_prediction *p, const char **cause)
{
	struct mva_proc procs[2] = { { .name = "host" }, { .name = "disk", .cores = 1 } };
	struct mva_task tasks[MODEL_MAX_TASKS];
	struct mva_task_out to[MODEL_MAX_TASKS];
	struct mva_proc_out po[2];
	struct mva_layered_out lo;
	struct model_whatif dflt = { .clients_factor = 1 };
	unsigned clients;
	int err;

	if (!wi)
		wi = &dflt;
	memset(p, 0, sizeof(*p));
	if (m->ref < 0 || !m->ntask) {
		*cause = "the model has no reference task";
		return -EINVAL;
	}
	clients = wi->clients ? wi->clients
		: (unsigned)lround(m->task[m->ref].threads * (wi->clients_factor > 0 ? wi->clients_factor : 1));
	if (!clients)
		clients = 1;
	procs[0].cores = wi->cpus ? wi->cpus : m->cpus;
	procs[0].background = m->beta;
	memset(tasks, 0, sizeof(tasks));
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];
		struct mva_task *k = &tasks[i];

		k->name = t->name;
		k->proc = t->kind == MODEL_TASK_DISK ? 1 : 0;
		k->ref = t->ref;
		k->cpu = t->cpu_s;
		if (t->ref) {
			k->mult = clients;
			k->think = t->sleep_s;
			k->delay = t->net_s + t->other_s;
		} else {
			k->mult = t->kind == MODEL_TASK_DISK || t->per_caller ? 0 : t->threads;
			k->delay = t->sleep_s + t->net_s + t->other_s;
		}
		for (unsigned c = 0; c < t->ncalls && c < MVA_MAX_CALLS; c++) {
			k->calls[c].task = t->calls[c].to;
			k->calls[c].mean = t->calls[c].mean;
		}
		k->ncalls = t->ncalls < MVA_MAX_CALLS ? t->ncalls : MVA_MAX_CALLS;
	}
	err = mva_layered(procs, 2, tasks, m->ntask, &lo, to, po, cause);
	if (err)
		return err;
	p->x = lo.x;
	p->r = lo.r;
	p->clients = clients;
	p->cpus = procs[0].cores;
	p->cpu_util = po[0].util;
	p->disk_util = po[1].util;
	p->converged = lo.converged;
	for (unsigned i = 0; i < m->ntask; i++) {
		/* a pool with a thread per caller has as many threads as callers:
		 * the clients, scaled with them */
		p->task_util[i] = m->task[i].per_caller && m->task[m->ref].threads ?
				  to[i].util / (m->task[i].threads * (double)clients /
						m->task[m->ref].threads) : to[i].util;
		p->task_wait[i] = to[i].wait;
		p->task_x[i] = to[i].x;
		p->task_cpu_wait[i] = to[i].cpu_wait;
	}
	return 0;
}

int model_solve_probed(const struct model *m, const struct model_whatif *w,
		       struct model_prediction *p, const char **cause)
{
	struct model *u = malloc(sizeof(*u));
	int err;

	if (!u) {
		*cause = "out of memory";
		return -ENOMEM;
	}
	memcpy(u, m, sizeof(*u));
	for (unsigned i = 0; i < u->ntask; i++)
		u->task[i].cpu_s += u->task[i].probe_s;
	err = model_solve(u, w, p, cause);
	free(u);
	return err;
}
