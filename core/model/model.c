/* model — layered queueing model from a wait graph (see model.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "model/model.h"
#include "model/model_priv.h"

static void model_calibrate(struct model *m);

/* A task is the threads of one name, across processes too (issue 25):
 * client processes forked from one program, a server's process per
 * connection, are one pool of that many threads, as threads of one
 * process are; the group keeps the first process's tgid (its identity). */
static int model_grp_find(struct model_work *w, uint32_t tgid, const char *comm, int create)
{
	struct model_grp *n;

	(void)tgid;
	for (unsigned i = 0; i < w->ng; i++)
		if (!strncmp(w->g[i].comm, comm, 15))
			return (int)i;
	if (!create)
		return -1;
	if (vec_grow_u(&w->g, &w->cap, (size_t)w->ng + 1, sizeof(*w->g)))
		return -ENOMEM;
	n = &w->g[w->ng];
	memset(n, 0, sizeof(*n));
	n->tgid = tgid;
	snprintf(n->comm, sizeof(n->comm), "%s", comm);
	return (int)w->ng++;
}

/* pid's index in g (added when new), or -ENOMEM. */
static int model_grp_pid(struct model_grp *g, uint32_t pid)
{
	for (unsigned i = 0; i < g->npids; i++)
		if (g->pids[i] == pid)
			return (int)i;
	if (g->npids == g->pid_cap) {
		unsigned cap = g->pid_cap;

		/* parallel arrays: all of them at the capacity pids grew to */
		if (vec_grow_u(&g->pids, &cap, (size_t)g->npids + 1, sizeof(*g->pids)) ||
		    vec_resize(&g->pid_msgs, cap, sizeof(*g->pid_msgs)) ||
		    vec_resize(&g->pid_sleep_ns, cap, sizeof(*g->pid_sleep_ns)) ||
		    vec_resize(&g->pid_sleep_cnt, cap, sizeof(*g->pid_sleep_cnt)) ||
		    vec_resize(&g->pid_blocked_ns, cap, sizeof(*g->pid_blocked_ns)))
			return -ENOMEM;
		g->pid_cap = cap;
	}
	g->pid_msgs[g->npids] = g->pid_sleep_ns[g->npids] = g->pid_sleep_cnt[g->npids] = 0;
	g->pid_blocked_ns[g->npids] = 0;
	g->pids[g->npids++] = pid;
	return (int)(g->npids - 1);
}

/* The threads of a client pool that cycle (issue 25): a thread of the
 * process that only waits (a main thread in pthread_join, or one that
 * sleeps a second at a time to watch the clock) is not a client, and
 * counting it made clients=2x of 2 client threads and a waiting main
 * thread "6 clients".  A thread cycles when its blocks ended by the load's
 * other tasks (its requests' replies) are at least 5% of the busiest
 * thread's: a waiting thread has none (or the one its joined thread's exit
 * makes), and clients of one pool need not cycle alike (tier3's two
 * ping-pong clients beside two CPU hogs: 19034 and 50399 replies in one
 * run, where a quarter was the bound and made them one client). */
static unsigned model_grp_cycling(const struct model_grp *g)
{
	uint64_t most = 0;
	unsigned n = 0;

	for (unsigned i = 0; i < g->npids; i++)
		if (g->pid_msgs[i] > most)
			most = g->pid_msgs[i];
	if (!most)
		return g->npids;
	for (unsigned i = 0; i < g->npids; i++)
		n += 20 * g->pid_msgs[i] >= most;
	return n;
}

/* Takes the threads that do not cycle out of g's sleeps and blocks (their
 * second-long sleeps are not the clients' think time).  Before the
 * reference is picked: its think time decides it. */
static void model_grp_drop_idle(struct model_grp *g)
{
	uint64_t most = 0;

	for (unsigned i = 0; i < g->npids; i++)
		if (g->pid_msgs[i] > most)
			most = g->pid_msgs[i];
	if (!most)
		return;
	for (unsigned i = 0; i < g->npids; i++)
		if (4 * g->pid_msgs[i] < most) {
			g->sleep_ns -= g->pid_sleep_ns[i];
			g->sleep_cnt -= g->pid_sleep_cnt[i];
			g->blocked_ns -= g->pid_blocked_ns[i];
			g->pid_sleep_ns[i] = g->pid_sleep_cnt[i] = g->pid_blocked_ns[i] = 0;
		}
}

/* The leaf frames of a stack (below the scheduler), leaf last. */
static void model_stack_tail(const char *stack, char *out, size_t len)
{
	const char *fr[64];
	size_t fl[64];
	unsigned n = 0, k, first;
	const char *p = stack;
	size_t o = 0;

	while (p && *p && n < 64) {
		const char *e = strchr(p, ';');

		fr[n] = p;
		fl[n] = e ? (size_t)(e - p) : strlen(p);
		n++;
		p = e ? e + 1 : NULL;
	}
	/* drop the scheduler's own frames at the leaf */
	while (n && (!strncmp(fr[n - 1], "schedule", 8) || !strncmp(fr[n - 1], "__schedule", 10) ||
		     !strncmp(fr[n - 1], "__traceiter", 11) || !strncmp(fr[n - 1], "finish_task", 11)))
		n--;
	first = n > 3 ? n - 3 : 0;
	out[0] = 0;
	for (k = first; k < n && o + 2 < len; k++) {
		int w = snprintf(out + o, len - o, "%s%.*s", k > first ? " > " : "", (int)fl[k], fr[k]);

		if (w < 0)
			break;
		o += (size_t)w < len - o ? (size_t)w : len - o - 1;
	}
}

/* The calls of caller a to callee b: the larger of the callee's wakeups by
 * the caller (its requests) and the caller's by the callee (its replies).
 * An event loop busy with one client's request does not block before the
 * next client's arrives, so it is woken fewer times than it is called (0.5
 * calls a request were counted on csapp's epoll server at 2 clients); the
 * caller, blocked until its reply, is woken once a call. */
static uint64_t model_pair_calls(const struct model_work *w, unsigned a, unsigned b)
{
	uint64_t req = w->wake[(size_t)b * w->ng + a], rep = w->wake[(size_t)a * w->ng + b];

	return req > rep ? req : rep;
}

static void model_work_free(struct model_work *w)
{
	for (unsigned i = 0; i < w->ng; i++) {
		free(w->g[i].pids);
		free(w->g[i].pid_msgs);
		free(w->g[i].pid_sleep_ns);
		free(w->g[i].pid_sleep_cnt);
		free(w->g[i].pid_blocked_ns);
	}
	free(w->g);
	free(w->wake);
	free(w->wake_ns);
	free(w->wake_all);
	free(w->wake_hist);
	free(w->wake_ch);
	free(w->wake_via);
}

static int model_collect(const struct waitgraph *g, const struct model_opts *o,
			 struct model_work *w)
{
	int a, b, err;

	for (size_t i = 0; i < g->nthreads; i++) {
		const struct wg_thread *t = &g->threads[i];

		if (!t->tgid || t->tgid == o->exclude_tgid || !t->cpu_ns)
			continue;
		a = model_grp_find(w, t->tgid, t->comm, 1);
		if (a < 0)
			return a;
		w->g[a].cpu_ns += t->cpu_ns;
		w->g[a].runq_ns += t->runq_ns;
		w->g[a].switches += t->switches;
		if ((err = model_grp_pid(&w->g[a], t->pid)) < 0)
			return err;
	}
	for (size_t i = 0; i < g->nedges; i++) {
		const struct wg_edge *e = &g->edges[i];

		if (!e->tgid || e->tgid == o->exclude_tgid)
			continue;
		a = model_grp_find(w, e->tgid, e->comm, 1);
		if (a < 0)
			return a;
		if ((err = model_grp_pid(&w->g[a], e->pid)) < 0)
			return err;
		if (e->waker == WG_WAKER_TASK && e->wtgid && e->wtgid != o->exclude_tgid) {
			b = model_grp_find(w, e->wtgid, e->wcomm, 1);
			if (b < 0)
				return b;
		}
	}
	w->wake = calloc((size_t)w->ng * w->ng, sizeof(*w->wake));
	w->wake_ns = calloc((size_t)w->ng * w->ng, sizeof(*w->wake_ns));
	w->wake_ch = calloc((size_t)w->ng * w->ng, sizeof(*w->wake_ch));
	w->wake_all = calloc((size_t)w->ng * w->ng, sizeof(*w->wake_all));
	w->wake_via = calloc((size_t)w->ng * w->ng, sizeof(*w->wake_via));
	w->wake_hist = calloc((size_t)w->ng * w->ng * WG_BUCKETS, sizeof(*w->wake_hist));
	if (!w->wake || !w->wake_ns || !w->wake_ch || !w->wake_all || !w->wake_hist || !w->wake_via)
		return -ENOMEM;
	for (size_t i = 0; i < g->nedges; i++) {
		const struct wg_edge *e = &g->edges[i];
		struct model_grp *ga;

		if (!e->tgid || e->tgid == o->exclude_tgid)
			continue;
		a = model_grp_find(w, e->tgid, e->comm, 0);
		ga = &w->g[a];
		b = e->waker == WG_WAKER_TASK && e->wtgid && e->wtgid != o->exclude_tgid ?
		    model_grp_find(w, e->wtgid, e->wcomm, 0) : -1;
		if (b >= 0)
			w->g[b].wakes_made += e->count; /* its sched_waking runs */
		ga->blocked_ns += e->total_ns;
		{
			int pi = model_grp_pid(ga, e->pid);

			if (pi < 0)
				return pi;
			ga->pid_blocked_ns[pi] += e->total_ns;
		}
		/* a timed wait (epoll_wait, poll, select with a timeout: the
		 * stack says sleep) that another task of the load ended is a
		 * message, not a timer sleep: an event loop's wait for its
		 * clients (issue 25: an epoll server was modelled as thinking) */
		if (e->channel == WG_CH_SLEEP && b >= 0 && b != a &&
		    !(w->g[b].tgid == ga->tgid && e->channel == WG_CH_FUTEX)) {
			int pi = model_grp_pid(ga, e->pid);

			if (pi < 0)
				return pi;
			ga->pid_msgs[pi] += e->count;
			model_calls_add(w, (unsigned)a, (unsigned)b, e);
		} else if (e->channel == WG_CH_SLEEP ||
		    (e->waker == WG_WAKER_HARDIRQ && e->vec == WG_IRQ_TIMER &&
		     (e->channel == WG_CH_OTHER || e->channel == WG_CH_EPOLL)) ||
		    (e->waker == WG_WAKER_SOFTIRQ &&
		     (e->vec == WG_SOFTIRQ_TIMER || e->vec == WG_SOFTIRQ_HRTIMER) &&
		     e->channel != WG_CH_FUTEX)) {
			int pi = model_grp_pid(ga, e->pid);

			if (pi < 0)
				return pi;
			ga->sleep_ns += e->total_ns;
			ga->sleep_cnt += e->count;
			ga->pid_sleep_ns[pi] += e->total_ns;
			ga->pid_sleep_cnt[pi] += e->count;
		} else if (e->channel == WG_CH_BLOCKIO ||
			   (e->waker == WG_WAKER_SOFTIRQ && e->vec == WG_SOFTIRQ_BLOCK)) {
			ga->io_ns += e->total_ns;
			ga->io_cnt += e->count;
		} else if (b >= 0 && w->g[b].tgid == ga->tgid &&
			   (e->channel == WG_CH_FUTEX || e->channel == WG_CH_KLOCK)) {
			/* a sibling released what this thread waited for: a
			 * software queue (lock, pool) inside the process */
			ga->lock_waits += e->count;
			ga->lock_ns += e->total_ns;
			if (e->total_ns >= ga->lock_best_ns) {
				ga->lock_best_ns = e->total_ns;
				ga->lock_ch = e->channel;
				model_stack_tail(e->stack, ga->lock_stack, sizeof(ga->lock_stack));
			}
		} else if (b >= 0 && b != a) {
			int pi = model_grp_pid(ga, e->pid);

			if (pi < 0)
				return pi;
			ga->pid_msgs[pi] += e->count;
			model_calls_add(w, (unsigned)a, (unsigned)b, e);
		} else if (e->waker == WG_WAKER_SOFTIRQ &&
			   (e->vec == WG_SOFTIRQ_NET_RX || e->vec == WG_SOFTIRQ_NET_TX)) {
			ga->net_ns += e->total_ns;
		} else if (e->waker == WG_WAKER_HARDIRQ || (b >= 0 && b != a)) {
			ga->other_ns += e->total_ns;
		}
		/* waker NONE (timeouts, signals) and a thread woken by its own
		 * pool for anything but a lock: idle time, not demand */
	}
	model_calls_finish(w);
	for (unsigned i = 0; i < w->ng; i++)
		model_grp_drop_idle(&w->g[i]);
	return 0;
}

static int model_add_task(struct model *m, const char *name, enum model_task_kind kind)
{
	struct model_task *t;

	if (m->ntask == MODEL_MAX_TASKS)
		return -E2BIG;
	t = &m->task[m->ntask];
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->kind = kind;
	return (int)m->ntask++;
}

static void model_task_name(const struct model_work *w, int a, char *buf, size_t len)
{
	int dup = 0;

	for (unsigned i = 0; i < w->ng; i++)
		if ((int)i != a && !strcmp(w->g[i].comm, w->g[a].comm))
			dup = 1;
	if (dup)
		snprintf(buf, len, "%s.%u", w->g[a].comm, w->g[a].tgid);
	else
		snprintf(buf, len, "%s", w->g[a].comm);
}

int model_build(const struct waitgraph *g, const struct model_opts *o,
		struct model *m, char **cause)
{
	struct model_opts dflt = { 0 };
	struct model_work w = { 0 };
	int *map = NULL, *queue = NULL, ref = -1, err = 0, disk = -1, thinks = 0;
	unsigned qh = 0, qt = 0, ng;
	double *inv = NULL, secs, total_cpu = 0, tree_cpu = 0;
	uint64_t io_cnt = 0, io_ns = 0;

	*cause = NULL;
	if (!o)
		o = &dflt;
	memset(m, 0, sizeof(*m));
	m->ref = -1;
	secs = g->secs;
	m->secs = secs;
	m->cpus = o->cpus ? o->cpus : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
	if (!(secs > 0)) {
		err = -EINVAL;
		*cause = strdup("no measured window to build a model from");
		goto out;
	}
	err = model_collect(g, o, &w);
	if (err)
		goto out;
	ng = w.ng;
	if (!ng) {
		err = -EINVAL;
		*cause = strdup("the load showed no thread that ran or waited: nothing to model");
		goto out;
	}
	map = malloc(ng * sizeof(*map));
	queue = malloc(ng * sizeof(*queue));
	inv = calloc(ng, sizeof(*inv));
	if (!map || !queue || !inv) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < ng; i++) {
		map[i] = -1;
		total_cpu += w.g[i].cpu_ns;
	}
	ref = model_pick_ref(&w, o->root_tgid, &thinks);
	if (ref < 0) {
		/* no synchronous call at all: one task, its own demand */
		uint64_t best = 0;

		for (unsigned a = 0; a < ng; a++) {
			uint64_t v = w.g[a].cpu_ns + w.g[a].io_ns + w.g[a].lock_ns;

			if (v >= best) {
				best = v;
				ref = (int)a;
			}
		}
		thinks = w.g[ref].sleep_cnt > 0; /* its cycles: its timer sleeps, if any */
		snprintf(m->note, sizeof(m->note),
			 "trivial model: no synchronous calls between tasks (no A-wakes-B, "
			 "B-wakes-A pair); one task (%s) with its own demand",
			 w.g[ref].comm);
	}
	/* breadth-first from the reference: its partners are its callees */
	queue[qt++] = ref;
	map[ref] = 0;
	{
		char name[64];

		model_task_name(&w, ref, name, sizeof(name));
		err = model_add_task(m, name, MODEL_TASK_APP);
		if (err < 0)
			goto out;
		err = 0;
	}
	while (qh < qt) {
		int a = queue[qh++];

		for (unsigned b = 0; b < ng; b++) {
			char name[64];
			int ti;

			if (!w.wake[b * ng + a] || !w.wake[a * ng + b] || map[b] >= 0)
				continue;
			model_task_name(&w, (int)b, name, sizeof(name));
			ti = model_add_task(m, name, MODEL_TASK_APP);
			if (ti < 0) {
				err = ti;
				goto out;
			}
			map[b] = ti;
			queue[qt++] = (int)b;
		}
	}
	/* invocations: the reference's cycles are its think sleeps (else its
	 * replies); a callee's are the requests of its callers */
	for (unsigned k = 0; k < qt; k++) {
		int a = queue[k];

		if (a == ref) {
			uint64_t rep = 0;

			for (unsigned b = 0; b < ng; b++)
				if (map[b] >= 0 && w.wake[(unsigned)a * ng + b] && w.wake[b * ng + a])
					rep += w.wake[(unsigned)a * ng + b];
			inv[a] = thinks ? (double)w.g[a].sleep_cnt : (double)rep;
			if (inv[a] == 0) {
				uint64_t n = 0;

				for (size_t i = 0; i < g->nedges; i++)
					if (g->edges[i].tgid == w.g[a].tgid &&
					    !strncmp(g->edges[i].comm, w.g[a].comm, 15))
						n += g->edges[i].count;
				inv[a] = n ? (double)n : 1;
			}
		} else {
			for (unsigned c = 0; c < qt; c++) {
				int caller = queue[c];

				/* a caller is the one met first on the way down */
				if (map[caller] < map[a] && w.wake[(unsigned)a * ng + caller] &&
				    w.wake[(unsigned)caller * ng + a])
					inv[a] += (double)model_pair_calls(&w, (unsigned)caller, (unsigned)a);
			}
		}
	}
	for (unsigned k = 0; k < qt; k++) {
		int a = queue[k];
		struct model_grp *ga = &w.g[a];
		struct model_task *t = &m->task[map[a]];
		double n = inv[a] > 0 ? inv[a] : 1;

		t->tgid = ga->tgid;
		snprintf(t->comm, sizeof(t->comm), "%s", ga->comm);
		/* the reference's population: the threads that cycle */
		t->threads = a == ref ? model_grp_cycling(ga) : ga->npids;
		if (!t->threads)
			t->threads = 1;
		t->ref = a == ref;
		t->invocations = inv[a];
		t->cpu_s = ga->cpu_ns / 1e9 / n;
		t->util_cpus = ga->cpu_ns / 1e9 / secs;
		t->sleep_s = ga->sleep_ns / 1e9 / n;
		t->net_s = ga->net_ns / 1e9 / n;
		t->other_s = ga->other_ns / 1e9 / n;
		t->runq_s = ga->runq_ns / 1e9 / n;
		t->probe_switches = ga->switches / n;
		t->probe_wakes = ga->wakes_made / n;
		tree_cpu += ga->cpu_ns;
		io_cnt += ga->io_cnt;
		io_ns += ga->io_ns;
		for (unsigned b = 0; b < ng; b++) {
			struct model_call *c;

			if (map[b] <= map[a] || !w.wake[b * ng + (unsigned)a] ||
			    !w.wake[(unsigned)a * ng + b] || t->ncalls == MODEL_MAX_CALLS)
				continue;
			c = &t->calls[t->ncalls++];
			c->to = map[b];
			c->wakes = model_pair_calls(&w, (unsigned)a, b);
			c->mean = c->wakes / n;
			c->channel = wg_channel_name(w.wake_ch[(unsigned)a * ng + b]);
			/* the caller's blocks ended by the callee: its replies */
			c->wait_s = c->wakes ? w.wake_ns[(unsigned)a * ng + b] / 1e9 / c->wakes : 0;
			{
				size_t ab = (size_t)a * ng + b, ba = (size_t)b * ng + (unsigned)a;
				uint64_t all = w.wake_all[ab] + w.wake_all[ba];

				c->via_softirq = all ? (double)(w.wake_via[ab] + w.wake_via[ba]) / all : 0;
			}
		}
	}
	m->ref = map[ref];
	m->x = inv[ref] / secs;
	{
		uint64_t wait = 0;

		for (unsigned b = 0; b < ng; b++)
			if (map[b] > 0 && w.wake[(unsigned)ref * ng + b] && w.wake[b * ng + (unsigned)ref])
				wait += w.wake_ns[(unsigned)ref * ng + b];
		m->r = wait / 1e9 / (inv[ref] > 0 ? inv[ref] : 1) + m->task[m->ref].cpu_s;
	}
	/* callees with a thread per caller thread never queue */
	for (unsigned k = 0; k < m->ntask; k++) {
		unsigned callers = 0;

		for (unsigned j = 0; j < m->ntask; j++)
			for (unsigned c = 0; c < m->task[j].ncalls; c++)
				if (m->task[j].calls[c].to == (int)k)
					callers += m->task[j].threads;
		if (!m->task[k].ref && callers && m->task[k].threads >= callers)
			m->task[k].per_caller = 1;
	}
	/* hidden queues: one semaphore task per process pool that waited on
	 * a sibling's futex / kernel lock */
	for (unsigned k = 0; k < qt; k++) {
		int a = queue[k], si;
		struct model_grp *ga = &w.g[a];
		struct model_task *t, *s;
		double A, p, hold;
		char name[64];

		if (!ga->lock_waits || a == ref)
			continue;
		snprintf(name, sizeof(name), "%s.lock", m->task[map[a]].name);
		si = model_add_task(m, name, MODEL_TASK_SEMAPHORE);
		if (si < 0) {
			err = si;
			goto out;
		}
		t = &m->task[map[a]];
		s = &m->task[si];
		s->tgid = ga->tgid;
		snprintf(s->comm, sizeof(s->comm), "%s", ga->comm);
		snprintf(s->stack, sizeof(s->stack), "%s", ga->lock_stack);
		s->threads = 1;
		s->waits = ga->lock_waits;
		s->wait_s = ga->lock_ns / 1e9 / ga->lock_waits;
		A = inv[a] > 0 ? inv[a] : 1;           /* one acquisition per invocation */
		p = ga->lock_waits / A;
		if (p > 1)
			p = 1;
		hold = p / (A / secs);                  /* U = X * hold, P(wait) ~ U */
		s->hold_s = hold;
		s->invocations = A;
		/* the holding time is wall time: the holder also waited for a
		 * CPU inside it.  Runnable time is taken as spread evenly over
		 * the pool's CPU time, so the section's CPU part is hold / (1 +
		 * runnable / CPU), and the pool keeps the rest of both */
		{
			double cpu = t->cpu_s, rho = cpu > 0 ? t->runq_s / cpu : 0, hc;

			hc = hold / (1 + rho);
			if (hc > cpu)
				hc = cpu;
			s->cpu_s = hc;
			s->runq_s = hc * rho;
			t->cpu_s = cpu - hc;
			t->runq_s = cpu > 0 ? t->runq_s * t->cpu_s / cpu : 0;
		}
		if (t->ncalls < MODEL_MAX_CALLS) {
			struct model_call *c = &t->calls[t->ncalls++];

			c->to = si;
			c->mean = 1;
			c->wakes = ga->lock_waits;
			c->channel = wg_channel_name(ga->lock_ch);
		}
	}
	/* the disk: one server, called by the tasks that waited for it */
	if (io_cnt) {
		disk = model_add_task(m, "disk", MODEL_TASK_DISK);
		if (disk < 0) {
			err = disk;
			goto out;
		}
		m->task[disk].threads = 1;
		m->task[disk].visit_s = io_ns / 1e9 / io_cnt;
		m->task[disk].invocations = (double)io_cnt;
		m->task[disk].cpu_s = m->task[disk].visit_s;
		for (unsigned k = 0; k < qt; k++) {
			int a = queue[k];
			struct model_task *t = &m->task[map[a]];

			if (!w.g[a].io_cnt || t->ncalls == MODEL_MAX_CALLS)
				continue;
			t->calls[t->ncalls].to = disk;
			t->calls[t->ncalls].mean = w.g[a].io_cnt / (inv[a] > 0 ? inv[a] : 1);
			t->calls[t->ncalls].wakes = w.g[a].io_cnt;
			t->calls[t->ncalls].channel = wg_channel_name(WG_CH_BLOCKIO);
			t->ncalls++;
		}
	}
	/* clutter: everything outside the call graph */
	for (unsigned a = 0; a < ng; a++)
		if (map[a] < 0 && (w.g[a].cpu_ns || w.g[a].npids))
			m->other_tasks++;
	m->other_cpu_share = total_cpu > 0 ? (total_cpu - tree_cpu) / total_cpu : 0;
	if (!m->note[0] && qt == 1)
		snprintf(m->note, sizeof(m->note), "trivial model: one task");
	/* the measured response per cycle: the cycle time less the think time */
	if (inv[ref] > 0 && m->task[m->ref].threads)
		m->r = m->task[m->ref].threads * secs / inv[ref] - m->task[m->ref].sleep_s;
	model_calibrate(m);
	{
		/* the check's own measurement of the response: the reference's
		 * threads' time per cycle outside the think time, and what of it
		 * the model has no place for */
		const struct model_grp *gr = &w.g[ref];
		double n = inv[ref] > 0 ? inv[ref] : 1, known, r_meas, unexpl, unattr = 0;
		uint64_t calls_ns = 0;

		for (unsigned b = 0; b < ng; b++)
			if (b != (unsigned)ref && map[b] >= 0)
				calls_ns += w.wake_ns[(unsigned)ref * ng + b];
		r_meas = ((double)gr->cpu_ns + gr->runq_ns + gr->blocked_ns - gr->sleep_ns) / 1e9 / n;
		known = ((double)gr->cpu_ns + gr->runq_ns + calls_ns + gr->io_ns + gr->lock_ns +
			 gr->net_ns + gr->other_ns) / 1e9 / n;
		unexpl = r_meas > known ? r_meas - known : 0;
		for (unsigned k = 0; k < qt; k++)
			unattr += (double)(w.g[queue[k]].net_ns + w.g[queue[k]].other_ns) / 1e9 / n;
		model_check_run(m, r_meas, unexpl, unattr);
	}
	model_probe_correct(m, o);
	err = 0;
out:
	model_work_free(&w);
	free(map);
	free(queue);
	free(inv);
	return err;
}

/* The other work on the host.  The machine is shared: the load's threads
 * also wait for CPUs that other work holds, which the model's own
 * contention does not explain.  The other work is modelled as a number of
 * always-runnable competitors on the host (processor sharing with CPU hogs:
 * every burst of the load shares the cores with them and with its own
 * queue), chosen by bisection so that the model's throughput at the
 * measured load equals the measured one; a what-if keeps them (the other
 * work stays), so the load's own extra threads compete with them too.
 * Per-thread runnable time is not used directly: a stream socket's
 * write-space wakeups make threads runnable while their callee works, time
 * that overlaps the call instead of adding to it. */
static void model_fit_beta(struct model *m)
{
	struct model_prediction p;
	const char *why;
	double lo = 0, hi = 256;

	m->beta = 0;
	if (m->x <= 0 || model_solve(m, NULL, &p, &why) || p.x <= m->x)
		return; /* the model alone is already as slow as measured */
	m->beta = hi;
	if (model_solve(m, NULL, &p, &why) || p.x > m->x) {
		m->beta = 0;
		return;
	}
	for (int it = 0; it < 50; it++) {
		double mid = (lo + hi) / 2;

		m->beta = mid;
		if (model_solve(m, NULL, &p, &why))
			break;
		if (p.x > m->x)
			lo = mid;
		else
			hi = mid;
	}
	m->beta = (lo + hi) / 2;
}

/* Moves CPU between the pool pi and its critical section si: the section
 * gets c, the pool keeps total - c, runnable time in proportion (rho). */
static void model_lock_split(struct model *m, int si, int pi, double total, double rho, double c)
{
	m->task[si].cpu_s = c;
	m->task[si].runq_s = c * rho;
	m->task[pi].cpu_s = total - c;
	m->task[pi].runq_s = (total - c) * rho;
}

/* The critical section's CPU demand.  The first estimate (model_build:
 * hold = P(wait) / X, the utilisation law with P(wait) = U) holds for
 * Poisson arrivals only; the pool is closed (a few threads: an arriving
 * one sees the lock as the others leave it, the arrival theorem), so
 * P(wait) is not U, and on tier3 the section came out short (0.23 ms of
 * CPU for its 0.5 ms), the lock saturating too late in a what-if.  Here the section's CPU is
 * the one for which the model's own mean wait per acquisition equals the
 * measured one (contended waits x their mean / acquisitions), the pool
 * keeping the rest of their measured sum: the model reproduces a second
 * measurement, the waiting at the lock, besides the throughput.  Uses the
 * current beta. */
static void model_fit_lock(struct model *m, int si, int pi)
{
	struct model_task *s = &m->task[si];
	double total = s->cpu_s + m->task[pi].cpu_s, rho, target, lo = 0, hi = total;
	struct model_prediction p;
	const char *why;

	if (!s->waits || s->invocations <= 0 || total <= 0)
		return;
	rho = total > 0 ? (s->runq_s + m->task[pi].runq_s) / total : 0;
	target = s->waits * s->wait_s / s->invocations;
	model_lock_split(m, si, pi, total, rho, hi);
	if (model_solve(m, NULL, &p, &why) || p.task_wait[si] <= target)
		return; /* even the whole pool's CPU inside the lock waits less */
	for (int it = 0; it < 40; it++) {
		double mid = (lo + hi) / 2;

		model_lock_split(m, si, pi, total, rho, mid);
		if (model_solve(m, NULL, &p, &why))
			break;
		if (p.task_wait[si] < target)
			lo = mid;
		else
			hi = mid;
	}
	model_lock_split(m, si, pi, total, rho, (lo + hi) / 2);
}

/* Calibration at the measured load: the other work (beta) and each lock's
 * section, in turns (each fit changes what the other sees; a few rounds
 * settle them), then the holding time each lock has in the solution. */
static void model_calibrate(struct model *m)
{
	struct model_prediction p;
	const char *why;
	int locks = 0;

	model_fit_beta(m);
	for (unsigned i = 0; i < m->ntask; i++)
		locks += m->task[i].kind == MODEL_TASK_SEMAPHORE && m->task[i].waits;
	for (int round = 0; locks && round < 6; round++) {
		double before = m->beta;

		for (unsigned i = 0; i < m->ntask; i++) {
			int pi = model_pool_of(m, (int)i);

			if (m->task[i].kind == MODEL_TASK_SEMAPHORE && pi >= 0)
				model_fit_lock(m, (int)i, pi);
		}
		model_fit_beta(m);
		if (fabs(m->beta - before) < 1e-3 * (before + 1))
			break;
	}
	if (locks && !model_solve(m, NULL, &p, &why))
		for (unsigned i = 0; i < m->ntask; i++)
			if (m->task[i].kind == MODEL_TASK_SEMAPHORE && m->task[i].waits)
				m->task[i].hold_s = p.task_wait[i] >= 0 ? m->task[i].cpu_s + p.task_cpu_wait[i]
									 : m->task[i].hold_s;
}
