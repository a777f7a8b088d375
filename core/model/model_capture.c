/* model_capture — the load under the scheduler-time probe, window by window
 * (see model_capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/vec.h"
#include "data/ksym.h"
#include "host/load.h"
#include "host/load_pace.h"
#include "model/model_capture.h"
#include "model/model_window.h"
#include "probe/probe_schedtime.h"
#include "probe/probe.h"
#include "data/procinfo.h"
#include "probe/probe_workqueue.h"
#include "probe/schedtime_duty.h"

static double mc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((format(printf, 2, 3)))
static void mc_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (!cause || *cause)
		return;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
	va_end(ap);
}

static enum wg_waker mc_waker(uint32_t other_kind)
{
	switch (other_kind) {
	case SCHEDTIME_OTHER_TASK: return WG_WAKER_TASK;
	case SCHEDTIME_OTHER_HARDIRQ: return WG_WAKER_HARDIRQ;
	case SCHEDTIME_OTHER_SOFTIRQ: return WG_WAKER_SOFTIRQ;
	default: return WG_WAKER_NONE;
	}
}

/* One probe window as a wait graph: BLOCKED -> edges, ONCPU -> CPU time. */
static int mc_convert(const struct probe_schedtime_snap *s, struct waitgraph *g)
{
	char *stack = NULL;
	size_t cap = 0;
	int err = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct probe_schedtime_entry *e = &s->e[i];
		const struct schedtime_key *k = &e->key;
		struct wg_edge we;
		size_t len = 0;

		if (k->kind == SCHEDTIME_ONCPU) {
			err = wg_thread_add(g, k->pid, k->tgid, k->comm, e->val.total_ns);
			/* each on-CPU interval began with a switch-in */
			if (!err && e->val.count)
				err = wg_thread_add_switches(g, k->pid, k->tgid, k->comm, e->val.count);
			if (err)
				goto out;
			continue;
		}
		if (k->kind == SCHEDTIME_RUNNABLE) {
			err = wg_thread_add_runq(g, k->pid, k->tgid, k->comm, e->val.total_ns);
			if (err)
				goto out;
			continue;
		}
		if (k->kind != SCHEDTIME_BLOCKED || k->other_kind == SCHEDTIME_OTHER_PENDING ||
		    !e->val.count)
			continue;
		for (unsigned f = 0; f < e->nframes; f++) {
			size_t n = strlen(e->frames[f]);

			err = vec_grow(&stack, &cap, len + n + 2, 1);
			if (err)
				goto out;
			if (len)
				stack[len++] = ';';
			memcpy(stack + len, e->frames[f], n);
			len += n;
		}
		memset(&we, 0, sizeof(we));
		we.pid = k->pid;
		we.tgid = k->tgid;
		memcpy(we.comm, k->comm, sizeof(we.comm) - 1);
		we.waker = mc_waker(k->other_kind);
		we.wpid = k->other_pid;
		we.wtgid = k->other_tgid;
		memcpy(we.wcomm, k->other_comm, sizeof(we.wcomm) - 1);
		we.vec = k->other_vec;
		if (stack)
			stack[len] = 0;
		we.stack = len ? stack : "";
		we.count = e->val.count;
		we.total_ns = e->val.total_ns;
		for (int b = 0; b < WG_BUCKETS && b < SCHEDTIME_BUCKETS; b++)
			we.hist[b] = e->val.hist[b];
		err = wg_edge_add(g, &we);
		if (err)
			goto out;
	}
out:
	free(stack);
	return err;
}

int model_capture_convert(const struct probe_schedtime_snap *s, struct waitgraph *g)
{
	return mc_convert(s, g);
}

/* Identity of every process seen, while the load still runs. */
static void mc_identify(struct model_capture *c)
{
	for (unsigned w = 0; w < c->nwin; w++) {
		const struct waitgraph *g = c->win[w];

		for (size_t i = 0; i < g->nthreads + g->nedges; i++) {
			uint32_t t = i < g->nthreads ? g->threads[i].tgid : g->edges[i - g->nthreads].tgid;
			struct model_ident *n;
			struct procinfo pi;
			unsigned k;

			for (k = 0; k < c->nids && c->ids[k].tgid != t; k++)
				;
			if (k < c->nids || !t || t == c->self_tgid || procinfo_read(t, &pi))
				continue;
			if (vec_resize(&c->ids, (size_t)c->nids + 1, sizeof(*c->ids))) {
				procinfo_clear(&pi);
				return;
			}
			n = &c->ids[c->nids++];
			memset(n, 0, sizeof(*n));
			n->tgid = t;
			snprintf(n->cmdline, sizeof(n->cmdline), "%s", pi.cmdline);
			snprintf(n->exe, sizeof(n->exe), "%s", pi.exe);
			snprintf(n->unit, sizeof(n->unit), "%.63s", pi.unit);
			snprintf(n->container, sizeof(n->container), "%s", pi.container);
			procinfo_clear(&pi);
		}
	}
}

/* Kernel threads that woke the load: by role, kworkers by their work
 * function (when the workqueue probe runs). */
static void mc_kwakers(struct model_capture *c, struct probe_workqueue *pw,
		       const struct ksym_table *ks)
{
	/* the window just read: each window is scanned once */
	for (unsigned w = c->nwin ? c->nwin - 1 : 0; w < c->nwin; w++) {
		const struct waitgraph *g = c->win[w];

		for (size_t i = 0; i < g->nedges; i++) {
			const struct wg_edge *e = &g->edges[i];
			struct model_kwaker *n;
			struct procinfo pi;
			unsigned k;

			if (e->waker != WG_WAKER_TASK || !e->wpid || e->wtgid == c->self_tgid)
				continue;
			for (k = 0; k < c->nkw && c->kw[k].pid != e->wpid; k++)
				;
			if (k < c->nkw) {
				c->kw[k].wakes += e->count;
				continue;
			}
			if (procinfo_read(e->wpid, &pi))
				continue;
			if (!pi.kthread) {
				procinfo_clear(&pi);
				continue;
			}
			if (vec_resize(&c->kw, (size_t)c->nkw + 1, sizeof(*c->kw))) {
				procinfo_clear(&pi);
				return;
			}
			n = &c->kw[c->nkw++];
			memset(n, 0, sizeof(*n));
			n->pid = e->wpid;
			snprintf(n->comm, sizeof(n->comm), "%s", pi.comm);
			snprintf(n->role, sizeof(n->role), "%s", pi.role ? pi.role : "kernel thread");
			n->wakes = e->count;
			procinfo_clear(&pi);
		}
	}
	for (unsigned k = 0; pw && k < c->nkw; k++)
		if (!strcmp(c->kw[k].role, "kworker"))
			probe_workqueue_top(pw, ks, c->kw[k].pid, c->kw[k].work, sizeof(c->kw[k].work));
}

void model_capture_free(struct model_capture *c)
{
	if (!c)
		return;
	free(c->kw);
	free(c->ids);
	for (unsigned i = 0; i < c->nwin; i++)
		wg_free(c->win[i]);
	free(c->win);
	wg_free(c->kept);
	free(c);
}

int model_capture_steady(struct model_capture *c, double tol, unsigned min, char **cause)
{
	int err = model_window_steady(c->win, c->nwin - c->ndead, c->self_tgid, tol, min, &c->first,
				      &c->last, cause);

	if (err == -ERANGE && cause && *cause && strstr(*cause, "per window:")) {
		char *s = NULL;

		if (asprintf(&s, "%s; run longer (--duration) or widen --tolerance", *cause) >= 0) {
			free(*cause);
			*cause = s;
		}
	}
	return err;
}

static int mc_keep(struct model_capture *c)
{
	int err;

	wg_free(c->kept);
	c->kept = wg_new();
	if (!c->kept)
		return -ENOMEM;
	for (unsigned i = c->first; i <= c->last && i < c->nwin; i++) {
		err = wg_merge(c->kept, c->win[i]);
		if (err)
			return err;
	}
	c->kept->start_s = c->nwin ? c->win[c->first]->start_s : 0;
	return 0;
}

/* A line of the load's output onto the log (control characters as '?'). */
static void mc_log_line(void *arg, const char *line)
{
	FILE *log = arg;

	if (!log)
		return;
	for (const char *q = line; *q; q++)
		fputc((unsigned char)*q < 0x20 ? '?' : *q, log);
	fputc('\n', log);
}

/* The probe's cost so far, ns of CPU: its BPF run time with statistics
 * on (stats >= 0), else its switches at the calibrated cost. */
static double mc_cost(struct probe_schedtime *ps, int stats)
{
	return probe_schedtime_cost_ns(ps, stats >= 0);
}

/* The load's pace (core/host/load_pace.h) since the last mark, added to
 * the window being read as attached or detached time: marked after every
 * attach, before every detach and at every window's read.  A failed read leaves the
 * interval out (its counts and its seconds). */
struct mc_pace {
	struct load_pace *meter; /* NULL: not measured */
	struct load *load;
	double t;                /* the last mark */
	struct wg_pace on, off;
};

static void mc_pace_mark(struct mc_pace *p, double now, int attached)
{
	struct load_pace_delta d;
	int ok;

	if (!p->meter)
		return;
	ok = !load_pace_read(p->meter, p->load, &d);
	if (ok && p->t > 0 && now > p->t) {
		struct wg_pace got = { .rw_calls = d.rw_calls, .switches = d.switches, .secs = now - p->t };

		wg_pace_add(attached ? &p->on : &p->off, &got);
	}
	p->t = ok ? now : 0; /* 0: the next read starts again */
}

/* Into the window's graph, and a new window begins. */
static void mc_pace_take(struct mc_pace *p, struct waitgraph *g)
{
	g->pace_on = p->on;
	g->pace_off = p->off;
	memset(&p->on, 0, sizeof(p->on));
	memset(&p->off, 0, sizeof(p->off));
}

/* Attaches or detaches the probe when the duty cycle says so. */
static int mc_duty_tick(struct schedtime_duty *d, struct probe_schedtime *ps, int stats,
			double now, const struct model_capture_opts *o, double t0, double *switch_cpu,
			struct mc_pace *pace, char **cause)
{
	int err = 0;
	struct timespec a, b;
	enum schedtime_duty_act act = schedtime_duty_tick(d, now, mc_cost(ps, stats));

	/* the pace's attached time as the probe's: from when the attach has
	 * ended (probe_schedtime.c: the switch program, last, starts the
	 * phase) to when the detach begins (the switch program first) */
	if (act == SCHEDTIME_DUTY_DETACH)
		mc_pace_mark(pace, now, 1);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	switch (act) {
	case SCHEDTIME_DUTY_ATTACH:
		err = probe_schedtime_attach(ps, cause);
		mc_pace_mark(pace, mc_now(), 0);
		if (o->log && o->verbose)
			fprintf(o->log, "argus: %.3f s: probe attached until %.3f s\n", now - t0,
				d->on_end - t0);
		break;
	case SCHEDTIME_DUTY_DETACH:
		err = probe_schedtime_detach(ps);
		if (err)
			mc_cause(cause, "cannot detach the scheduler-time probe: %s", strerror(-err));
		if (o->log && o->verbose)
			fprintf(o->log, "argus: %.3f s: probe detached: cost while attached %.2f%% of "
				"a CPU, attached %.0f%% of the time from now on\n", now - t0,
				d->cost_on_pct, d->f * 100);
		break;
	default:
		break;
	}
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	*switch_cpu += (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	return err;
}

int model_capture_run(const struct model_capture_opts *o, struct model_capture **out,
		      char **cause)
{
	struct probe_schedtime_opts po = { .follow_forks = 1, .windows = 1, .tgid_set = 1 };
	double secs = o->seconds > 0 ? o->seconds : 10, w = o->window_s > 0 ? o->window_s : 1;
	struct probe_schedtime *ps = NULL;
	struct probe_workqueue *pw = NULL;
	struct ksym_table *ks = NULL;
	struct model_capture *c = NULL;
	struct load *l = NULL;
	struct model_lines lines = { .used = 0 };
	struct model_mark mark = { 0 }, *mk = NULL;
	int outfd = -1, err = 0;
	uint32_t tgid;
	double t0, next;
	struct schedtime_duty duty;
	struct mc_pace pace = { 0 };
	int stats = -1;

	*out = NULL;
	if (o->mark_re) {
		err = model_mark_init(&mark, o->mark_re, cause);
		if (err)
			return err;
		mk = &mark;
		if (!o->argv) {
			mc_cause(cause, "--mark reads the load's output: give the command (-- CMD), not -p");
			err = -EINVAL;
			goto out;
		}
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		err = -ENOMEM;
		goto out;
	}
	c->self_tgid = (uint32_t)getpid();
	c->mark_open_s = c->mark_close_s = -1;
	c->load_end_s = -1;
	if (o->argv) {
		/* the load's stdout is a pipe read here (--mark, the log) */
		l = load_spawn(o->argv, LOAD_F_PIPE_STDOUT, cause);
		if (!l) {
			err = -errno;
			goto out;
		}
		outfd = load_output_take(l, 1);
	} else if (o->pid > 0) {
		l = load_attach_pid(o->pid, cause);
		if (!l) {
			err = -errno;
			goto out;
		}
	} else {
		mc_cause(cause, "no load: give a command after -- or -p PID");
		err = -EINVAL;
		goto out;
	}
	tgid = (uint32_t)load_pid(l);
	c->load_tgid = o->argv ? tgid : 0;
	po.stats = o->stats;
	po.tgids = &tgid;
	po.ntgids = 1;
	po.exclude_tgid = c->self_tgid;
	ks = ksym_load(NULL);
	ps = probe_schedtime_open(&po, cause);
	if (!ps) {
		err = -errno;
		goto out;
	}
	snprintf(c->mechanism, sizeof(c->mechanism), "%s", probe_schedtime_mechanism(ps));
	{
		char *scause = NULL;

		/* the duty cycle's measure (else switches * the calibrated cost) */
		stats = probe_bpf_stats_begin(&scause);
		if (stats < 0 && o->log && o->verbose)
			fprintf(o->log, "argus: no BPF run-time statistics (%s): the probe's cost is "
				"estimated from its switches\n", scause ? scause : strerror(-stats));
		free(scause);
	}
	{
		char *wcause = NULL;

		/* optional: without it kworkers keep their names only */
		pw = probe_workqueue_open(0, &wcause);
		if (!pw && o->log && o->verbose)
			fprintf(o->log, "argus: kworkers not named by work function: %s\n",
				wcause ? wcause : strerror(errno));
		free(wcause);
	}
	if (!o->argv) {
		/* an attached process: its children that exist already too
		 * (later ones are followed by the probe) */
		uint32_t kids[256];
		int nk = load_tgids(l, kids, 256);

		for (int i = 0; i < nk && i < 256; i++)
			if (kids[i] != tgid)
				probe_schedtime_add_tgid(ps, kids[i]);
	}
	err = load_start(l, cause);
	if (err)
		goto out;
	t0 = mc_now();
	/* optional, as the kworkers' names: without it no pace is said */
	pace.meter = load_pace_new();
	pace.load = l;
	mc_pace_mark(&pace, t0, 1);
	next = t0 + w;
	{
		struct schedtime_duty_opts dop = { .budget_pct = o->budget_pct, .window_s = w };

		schedtime_duty_init(&duty, &dop, t0);
	}
	{
		struct probe_schedtime_snap *s = NULL;

		/* start the first window now */
		err = probe_schedtime_read_window(ps, ks, &s);
		probe_schedtime_snap_free(s);
		if (err) {
			mc_cause(cause, "cannot read the scheduler-time maps: %s", strerror(-err));
			goto out;
		}
	}
	for (;;) {
		double now = mc_now();
		int ended = 0, alive = load_alive(l);

		/* the load's end closes the window at once: the time after it
		 * is not the load's steady state (the window is left out) */
		if (!alive && c->load_end_s < 0)
			c->load_end_s = now - t0;
		if (now >= next || (o->stop && *o->stop) || now >= t0 + secs || !alive) {
			struct probe_schedtime_snap *s = NULL;
			struct waitgraph *g;

			mc_pace_mark(&pace, now, probe_schedtime_attached(ps));
			err = probe_schedtime_read_window(ps, ks, &s);
			if (err) {
				mc_cause(cause, "cannot read the scheduler-time maps: %s", strerror(-err));
				goto out;
			}
			g = wg_new();
			if (!g || vec_resize(&c->win, (size_t)c->nwin + 1, sizeof(*c->win))) {
				wg_free(g);
				probe_schedtime_snap_free(s);
				err = -ENOMEM;
				goto out;
			}
			g->secs = s->attached_secs;
			g->wall_s = s->secs;
			g->start_s = now - t0 - s->secs;
			mc_pace_take(&pace, g);
			err = mc_convert(s, g);
			probe_schedtime_snap_free(s);
			c->win[c->nwin++] = g;
			if (!alive)
				c->ndead++;
			if (err)
				goto out;
			mc_identify(c); /* while the processes are there */
			mc_kwakers(c, pw, ks);
			if (o->log && o->verbose)
				fprintf(o->log, "argus: window %u: %.2f s (attached %.2f s), %zu wait "
					"edges, %zu threads\n", c->nwin, g->wall_s, g->secs, g->nedges,
					g->nthreads);
			ended = !alive || (o->stop && *o->stop) || now + w / 2 >= t0 + secs;
			next += w;
		}
		if (!o->no_duty) {
			err = mc_duty_tick(&duty, ps, stats, mc_now(), o, t0, &c->duty_cpu_s, &pace,
					   cause);
			if (err)
				goto out;
		}
		if (outfd >= 0 && model_lines_read(&lines, outfd, mc_now() - t0, mk, mc_log_line,
						   o->log) <= 0) {
			close(outfd);   /* end of its output (or a read error) */
			outfd = -1;
		}
		if (ended)
			break;
		{
			struct pollfd pf = { .fd = outfd, .events = POLLIN };
			double until = o->no_duty || schedtime_duty_next(&duty) > next
				       ? next : schedtime_duty_next(&duty);
			int to = (int)((until - mc_now()) * 1000) + 1;

			if (to < 0)
				to = 0;
			if (to > 100)
				to = 100; /* notice a stop request and the load's exit */
			if (poll(&pf, outfd >= 0 ? 1 : 0, to) < 0 && errno != EINTR) {
				err = -errno;
				goto out;
			}
		}
	}
	c->elapsed_s = mc_now() - t0;
	probe_schedtime_runtime(ps, &c->bpf_ns, &c->bpf_runs);
	c->stats = stats >= 0;
	c->budget_pct = duty.o.budget_pct;
	if (!o->no_duty)
		schedtime_duty_tick(&duty, mc_now(), mc_cost(ps, stats)); /* the last cost */
	c->attached = o->no_duty ? 1 : schedtime_duty_fraction(&duty, t0 + c->elapsed_s);
	c->cost_pct = o->no_duty ? mc_cost(ps, stats) / (c->elapsed_s * 1e9) * 100
				 : schedtime_duty_cost_pct(&duty, t0 + c->elapsed_s);
	c->cost_on_pct = c->attached > 0 ? c->cost_pct / c->attached : 0;
	c->phases = duty.phases;
	if (o->log && o->verbose && c->phases)
		fprintf(o->log, "argus: %u on-phases; attaching and detaching took %.1f ms of CPU "
			"(%.3f%% of one CPU)\n", c->phases, c->duty_cpu_s * 1e3,
			c->duty_cpu_s / c->elapsed_s * 100);
	probe_schedtime_close(ps);
	ps = NULL;
	probe_workqueue_close(pw);
	pw = NULL;
	load_free(l); /* ends the load if it still runs */
	l = NULL;
	if (outfd >= 0) {
		/* what it wrote while ending (still non-blocking: a process it
		 * left behind may hold the pipe open) */
		model_lines_read(&lines, outfd, c->elapsed_s, mk, mc_log_line, o->log);
	}
	if (mk) {
		c->lines = mk->lines;
		c->mark_open_s = mk->open_s;
		c->mark_close_s = mk->close_s;
	}
	/* the windows of the model: only those the load was alive in all along */
	if (c->ndead >= c->nwin) {
		mc_cause(cause, "the load ended %.1f s into the first window: no window saw it run "
			 "whole; run it longer or use a shorter --window", c->load_end_s);
		err = -ERANGE;
		goto out;
	}
	if (mk) {
		err = model_window_marked(c->win, c->nwin - c->ndead, mk, w, &c->first, &c->last,
					  cause);
		if (err)
			goto out;
	} else if (o->steady) {
		err = model_capture_steady(c, o->steady_tol > 0 ? o->steady_tol : 0.2,
					   o->steady_min ? o->steady_min : 3, cause);
		if (err)
			goto out;
	} else {
		unsigned n = c->nwin - c->ndead;

		c->first = c->nwin > 2 && n > 1 ? 1 : 0; /* drop the start-up window */
		c->last = n ? n - 1 : 0;
	}
	err = mc_keep(c);
	if (err)
		goto out;
	*out = c;
	c = NULL;
out:
	model_mark_fini(mk);
	probe_bpf_stats_end(stats);
	probe_schedtime_close(ps);
	probe_workqueue_close(pw);
	load_pace_free(pace.meter);
	load_free(l);
	ksym_free(ks);
	if (outfd >= 0)
		close(outfd);
	model_capture_free(c);
	return err;
}
