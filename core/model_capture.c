/* model_capture — the load under the scheduler-time probe, window by window
 * (see model_capture.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksym.h"
#include "load.h"
#include "model_capture.h"
#include "probe_schedtime.h"
#include "probe.h"
#include "procinfo.h"
#include "probe_workqueue.h"
#include "schedtime_duty.h"

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

			if (len + n + 2 > cap) {
				char *ns = realloc(stack, cap = (len + n + 2) * 2);

				if (!ns) {
					err = -ENOMEM;
					goto out;
				}
				stack = ns;
			}
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
			n = realloc(c->ids, (c->nids + 1) * sizeof(*n));
			if (!n) {
				procinfo_clear(&pi);
				return;
			}
			c->ids = n;
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
			n = realloc(c->kw, (c->nkw + 1) * sizeof(*n));
			if (!n) {
				procinfo_clear(&pi);
				return;
			}
			c->kw = n;
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

/* Rate of a window counting only the tracked load (argus left out). */
static void mc_rates(const struct waitgraph *g, uint32_t self, double *blocks, double *cpu)
{
	uint64_t n = 0, ns = 0;

	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].tgid != self)
			n += g->edges[i].count;
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].tgid != self)
			ns += g->threads[i].cpu_ns;
	*blocks = g->secs > 0 ? n / g->secs : 0;
	*cpu = g->secs > 0 ? ns / 1e9 / g->secs : 0;
}

int model_capture_steady(struct model_capture *c, double tol, unsigned min, char **cause)
{
	double *b = NULL, *u = NULL;
	unsigned best_len = 0, best_first = 0;
	int err = 0;

	if (!c->nwin) {
		mc_cause(cause, "no window was measured");
		return -ERANGE;
	}
	b = calloc(c->nwin, sizeof(*b));
	u = calloc(c->nwin, sizeof(*u));
	if (!b || !u) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < c->nwin; i++)
		mc_rates(c->win[i], c->self_tgid, &b[i], &u[i]);
	for (unsigned i = 0; i < c->nwin; i++)
		for (unsigned j = i; j < c->nwin; j++) {
			double mb = 0, mu = 0;
			int ok = 1;

			unsigned seen = 0;

			/* a window the probe was never attached in (a duty cycle's
			 * gap) says nothing either way */
			for (unsigned k = i; k <= j; k++) {
				if (!(c->win[k]->secs > 0))
					continue;
				mb += b[k];
				mu += u[k];
				seen++;
			}
			if (!seen)
				continue;
			mb /= seen;
			mu /= seen;
			for (unsigned k = i; k <= j && ok; k++)
				ok = !(c->win[k]->secs > 0) ||
				     (fabs(b[k] - mb) <= tol * mb && fabs(u[k] - mu) <= tol * mu + 1e-4);
			if (ok && mb > 0 && j - i + 1 > best_len) {
				best_len = j - i + 1;
				best_first = i;
			}
		}
	if (best_len < min) {
		size_t o = 0, cap = 320 + 32 * (size_t)c->nwin;
		char *s = malloc(cap);

		if (s) {
			o += (size_t)snprintf(s + o, cap - o,
					      "the load never reached a steady state: no %u consecutive "
					      "windows with rates within %.0f%% of their mean; "
					      "blocks/s and CPUs per window:", min, tol * 100);
			for (unsigned i = 0; i < c->nwin && o < cap; i++)
				o += (size_t)snprintf(s + o, cap - o, " %.0f/%.2f", b[i], u[i]);
			if (o < cap)
				snprintf(s + o, cap - o, "; run longer (--duration) or widen --tolerance");
		}
		free(*cause);
		*cause = s;
		err = -ERANGE;
		goto out;
	}
	c->first = best_first;
	c->last = best_first + best_len - 1;
out:
	free(b);
	free(u);
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

/* Reads what the load wrote; a complete line is copied to the log and
 * matched against the mark. */
static void mc_lines(struct model_capture *c, int fd, char *buf, size_t *used, size_t cap,
		     const regex_t *re, double t, FILE *log)
{
	ssize_t n = read(fd, buf + *used, cap - 1 - *used);
	char *p, *nl;

	if (n <= 0)
		return;
	*used += (size_t)n;
	buf[*used] = 0;
	p = buf;
	while ((nl = strchr(p, '\n')) || *used == cap - 1) {
		if (!nl)
			nl = buf + *used - 1; /* an overlong line: cut */
		*nl = 0;
		c->lines++;
		if (log) {
			for (char *q = p; *q; q++)
				fputc((unsigned char)*q < 0x20 ? '?' : *q, log);
			fputc('\n', log);
		}
		if (re && !regexec(re, p, 0, NULL, 0)) {
			if (c->mark_open_s < 0)
				c->mark_open_s = t;
			else if (c->mark_close_s < 0)
				c->mark_close_s = t;
		}
		*used -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, *used + 1);
		p = buf;
	}
}

/* The probe's cost so far, ns of CPU: its BPF run time with statistics
 * on (stats >= 0), else its switches at the calibrated cost. */
static double mc_cost(struct probe_schedtime *ps, int stats)
{
	struct schedtime_counters ctr;
	uint64_t ns = 0, runs = 0;

	if (stats >= 0) {
		probe_schedtime_runtime(ps, &ns, &runs);
		return (double)ns;
	}
	if (probe_schedtime_counters(ps, &ctr))
		return 0;
	return (double)ctr.switches * SCHEDTIME_DUTY_NS_PER_SWITCH;
}

/* Attaches or detaches the probe when the duty cycle says so. */
static int mc_duty_tick(struct schedtime_duty *d, struct probe_schedtime *ps, int stats,
			double now, const struct model_capture_opts *o, double t0, double *switch_cpu,
			char **cause)
{
	int err = 0;
	struct timespec a, b;
	enum schedtime_duty_act act = schedtime_duty_tick(d, now, mc_cost(ps, stats));

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	switch (act) {
	case SCHEDTIME_DUTY_ATTACH:
		err = probe_schedtime_attach(ps, cause);
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
	int pipefd[2] = { -1, -1 }, err = 0, have_re = 0;
	char line[4096];
	size_t used = 0;
	regex_t re;
	uint32_t tgid;
	double t0, next;
	struct schedtime_duty duty;
	int stats = -1;

	*out = NULL;
	if (o->mark_re) {
		if (regcomp(&re, o->mark_re, REG_EXTENDED | REG_NOSUB)) {
			mc_cause(cause, "bad --mark regular expression '%s'", o->mark_re);
			return -EINVAL;
		}
		have_re = 1;
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
	if (o->argv) {
		int saved;

		if (pipe2(pipefd, O_CLOEXEC) < 0) {
			err = -errno;
			mc_cause(cause, "cannot make a pipe for the load's output: %s", strerror(errno));
			goto out;
		}
		/* the load's stdout is the pipe: fd 1 is swapped around the fork
		 * (load_spawn's child keeps fd 1), so core/load needs no mode
		 * of its own for it */
		fflush(stdout);
		saved = dup(1);
		if (saved < 0 || dup2(pipefd[1], 1) < 0) {
			err = -errno;
			if (saved >= 0)
				close(saved);
			mc_cause(cause, "cannot redirect the load's output: %s", strerror(errno));
			goto out;
		}
		l = load_spawn(o->argv, 0, cause);
		err = l ? 0 : -errno;
		dup2(saved, 1);
		close(saved);
		close(pipefd[1]);
		pipefd[1] = -1;
		if (!l)
			goto out;
		fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
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
		int ended = 0;

		if (now >= next || (o->stop && *o->stop) || now >= t0 + secs) {
			struct probe_schedtime_snap *s = NULL;
			struct waitgraph *g, **nw;
			int alive = load_alive(l);

			err = probe_schedtime_read_window(ps, ks, &s);
			if (err) {
				mc_cause(cause, "cannot read the scheduler-time maps: %s", strerror(-err));
				goto out;
			}
			g = wg_new();
			nw = realloc(c->win, (c->nwin + 1) * sizeof(*nw));
			if (!g || !nw) {
				wg_free(g);
				probe_schedtime_snap_free(s);
				err = -ENOMEM;
				goto out;
			}
			c->win = nw;
			g->secs = s->attached_secs;
			g->wall_s = s->secs;
			g->start_s = now - t0 - s->secs;
			err = mc_convert(s, g);
			probe_schedtime_snap_free(s);
			c->win[c->nwin++] = g;
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
			err = mc_duty_tick(&duty, ps, stats, mc_now(), o, t0, &c->duty_cpu_s, cause);
			if (err)
				goto out;
		}
		if (pipefd[0] >= 0)
			mc_lines(c, pipefd[0], line, &used, sizeof(line), have_re ? &re : NULL,
				 mc_now() - t0, o->log);
		if (ended)
			break;
		{
			struct pollfd pf = { .fd = pipefd[0], .events = POLLIN };
			double until = o->no_duty || schedtime_duty_next(&duty) > next
				       ? next : schedtime_duty_next(&duty);
			int to = (int)((until - mc_now()) * 1000) + 1;

			if (to < 0)
				to = 0;
			if (to > 100)
				to = 100; /* notice a stop request and the load's exit */
			if (poll(&pf, pipefd[0] >= 0 ? 1 : 0, to) < 0 && errno != EINTR) {
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
	if (pipefd[0] >= 0) {
		/* what it wrote while ending (still non-blocking: a process it
		 * left behind may hold the pipe open) */
		mc_lines(c, pipefd[0], line, &used, sizeof(line), have_re ? &re : NULL,
			 c->elapsed_s, o->log);
	}
	/* the windows of the model */
	if (have_re) {
		double open = c->mark_open_s, close = c->mark_close_s >= 0 ? c->mark_close_s : INFINITY;
		int any = 0;

		if (open < 0) {
			mc_cause(cause, "--mark '%s' never matched the load's output (%u line%s read); "
				 "check the expression against what the load prints", o->mark_re,
				 c->lines, c->lines == 1 ? "" : "s");
			err = -ERANGE;
			goto out;
		}
		for (unsigned i = 0; i < c->nwin; i++) {
			const struct waitgraph *g = c->win[i];

			if (g->start_s + 0.05 >= open && g->start_s + g->wall_s <= close + 0.05) {
				if (!any)
					c->first = i;
				c->last = i;
				any = 1;
			}
		}
		if (!any) {
			mc_cause(cause, "--mark '%s' matched at %.1f s%s, but no whole window of %.1f s "
				 "lies inside the phase; run longer or use a shorter --window", o->mark_re,
				 open, c->mark_close_s >= 0 ? " and closed soon after" : "", w);
			err = -ERANGE;
			goto out;
		}
	} else if (o->steady) {
		err = model_capture_steady(c, o->steady_tol > 0 ? o->steady_tol : 0.2,
					   o->steady_min ? o->steady_min : 3, cause);
		if (err)
			goto out;
	} else {
		c->first = c->nwin > 2 ? 1 : 0; /* drop the start-up window */
		c->last = c->nwin ? c->nwin - 1 : 0;
	}
	err = mc_keep(c);
	if (err)
		goto out;
	*out = c;
	c = NULL;
out:
	if (have_re)
		regfree(&re);
	probe_bpf_stats_end(stats);
	probe_schedtime_close(ps);
	probe_workqueue_close(pw);
	load_free(l);
	ksym_free(ks);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	model_capture_free(c);
	return err;
}
