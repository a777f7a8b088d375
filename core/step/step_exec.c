/* step_exec — one step in alternating reference/loaded windows (see
 * step_exec.h). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "data/ksym.h"
#include "host/load.h"
#include "probe/probe.h"
#include "measure/measure_seq.h"
#include "step/step_exec.h"
#include "base/util.h"

struct step_exec {
	struct step *s;
	struct step_exec_opts o;
	const struct kind_ops *ops;
	struct kind_probe *kp;
	struct ksym_table *own_ks;
	const struct ksym_table *ks;
	struct step_data *d;
	int stats_handle;
	enum step_exec_state state;
	char reason[160];
	enum cond *seq;
	unsigned nseq, done;
	int win;                     /* step_data window being measured, -1 */
	int settling;
	enum cond cur;
	double window_s;
	double t0, now, phase_start, phase_end, last_collect, end_at;
	double attach_t, detach_t;   /* when the probe was attached / detached */
	double guard_t;              /* last guard check */
	uint64_t guard_ns;           /* run_ns at the last guard check */
	uint64_t run0_ns;            /* run_ns at the first tick */
	double guard_pct, guard_max;  /* running average (~1 s), its maximum */
	unsigned guard_n;
	/* the duty cycle (kinds with pause/resume) */
	int can_pause, paused;
	double duty, duty_start;     /* part of each window attached */
	double on_s;                 /* the current window's attached length,
	                              * once it is detached for the rest */
	double att_acc, att_since;   /* attached seconds before att_since; since */
	double guard_att;            /* attached seconds at the last guard check */
	double att_pct;              /* cost while attached (average, ~1 s) */
	unsigned att_n;
	char duty_note[200];
	struct kind_stats last;      /* stats at the last read */
	char load_state[48];
	struct measure_seq *sq;      /* sequential stopping, or NULL */
	char stopping[200];
	int settled;
};

__attribute__((format(printf, 2, 3)))
static void sx_log(struct step_exec *x, const char *fmt, ...)
{
	va_list ap;

	if (!x->o.log)
		return;
	va_start(ap, fmt);
	fputs("argus: step: ", x->o.log);
	vfprintf(x->o.log, fmt, ap);
	fputc('\n', x->o.log);
	fflush(x->o.log);
	va_end(ap);
}

void step_exec_opts_default(struct step_exec_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pairs = STEP_EXEC_DEFAULT_PAIRS;
	o->settle_s = STEP_EXEC_DEFAULT_SETTLE_S;
	o->budget_pct = 0;
}

double step_exec_default_budget(enum step_kind k)
{
	return k == STEP_SAMPLE ? STEP_EXEC_DEFAULT_BUDGET_PCT : STEP_EXEC_EVENT_BUDGET_PCT;
}

int step_exec_kind_can_duty(enum step_kind k)
{
	const struct kind_ops *o = kind_ops_get(k);

	return o && o->pause && o->resume;
}

const char *step_exec_state_name(enum step_exec_state st)
{
	static const char *const names[] = { "ready", "running", "done", "over budget",
					     "stopped", "failed" };

	return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

double step_exec_overhead_pct(uint64_t run_ns, double secs)
{
	return secs > 0 ? run_ns / (secs * 1e9) * 100.0 : 0;
}

/* ---- the probe ------------------------------------------------------------- */

static void sx_read_stats(struct step_exec *x)
{
	if (x->kp && x->ops->stats)
		x->ops->stats(x->kp, &x->last);
}

static void sx_detach(struct step_exec *x, double now)
{
	if (!x->kp)
		return;
	sx_read_stats(x);
	if (!x->paused)
		x->att_acc += now - x->att_since;
	x->ops->close(x->kp);
	x->kp = NULL;
	x->paused = 0;
	x->detach_t = now;
}

/* Attached seconds up to now (the duty cycle's clock). */
static double sx_attached_s(const struct step_exec *x, double now)
{
	return x->att_acc + (x->kp && !x->paused ? now - x->att_since : 0);
}

/* The duty cycle's off: the programs detached, their maps kept. */
static int sx_pause(struct step_exec *x, double now)
{
	int err;

	if (!x->kp || x->paused || !x->can_pause)
		return 0;
	err = x->ops->pause(x->kp);
	if (err < 0)
		return err;
	x->att_acc += now - x->att_since;
	x->paused = 1;
	return 0;
}

static int sx_resume(struct step_exec *x, double now, char **cause)
{
	int err;

	if (!x->kp || !x->paused)
		return 0;
	err = x->ops->resume(x->kp);
	if (err < 0) {
		util_cause(cause, "cannot attach the %s probe again: %s", step_kind_name(x->s->kind),
			   strerror(-err));
		return err;
	}
	x->paused = 0;
	x->att_since = now;
	return 0;
}

/* Makes condition c true for the load: start/resume or pause. */
static int sx_apply(struct step_exec *x, enum cond c, char **cause)
{
	int err;

	x->cur = c;
	if (!x->o.load)
		return 0;
	if (c == COND_LOAD)
		err = load_started(x->o.load) ? load_resume(x->o.load)
					      : load_start(x->o.load, cause);
	else
		err = load_pause(x->o.load);
	if (err < 0 && (!cause || !*cause))
		util_cause(cause, "cannot %s the load (PID %d): %s",
			   c == COND_LOAD ? "resume" : "pause", (int)load_pid(x->o.load),
			   strerror(-err));
	return err;
}

/* The run is over: detach, resume the load, record why. */
static void sx_finish(struct step_exec *x, double now, enum step_exec_state st)
{
	if (x->state != STEP_EXEC_RUNNING && x->state != STEP_EXEC_READY)
		return;
	x->state = st;
	x->end_at = now;
	sx_detach(x, now);
	if (x->o.load)
		load_resume(x->o.load);
	x->win = -1;
	x->settling = 0;
}

/* ---- windows ------------------------------------------------------------------ */

static int sx_collect(struct step_exec *x, double now, char **cause)
{
	int err;

	if (x->win < 0 || !x->kp)
		return 0;
	err = x->ops->collect(x->kp, x->d, (unsigned)x->win, x->ks);
	if (err < 0) {
		util_cause(cause, "cannot read the %s probe: %s", step_kind_name(x->s->kind),
			   strerror(-err));
		return err;
	}
	/* a window detached for the rest of it lasted its attached part */
	step_data_window_end(x->d, (unsigned)x->win, x->on_s > 0 ? x->on_s : now - x->phase_start);
	x->last_collect = now;
	return 1;
}

static int sx_open_window(struct step_exec *x, double now, char **cause)
{
	int w, err = sx_resume(x, now, cause);

	if (err < 0)
		return err;
	if (x->ops->discard && x->can_pause && x->duty < 1 && (err = x->ops->discard(x->kp)) < 0) {
		util_cause(cause, "cannot reset the %s probe: %s", step_kind_name(x->s->kind),
			   strerror(-err));
		return err;
	}
	w = step_data_window_begin(x->d, x->seq[x->done], now - x->t0);
	if (w < 0) {
		util_cause(cause, "cannot open a step window: %s", strerror(-w));
		return w;
	}
	x->win = w;
	x->settling = 0;
	x->on_s = 0;
	x->phase_start = now;
	x->phase_end = now + x->window_s;
	x->last_collect = now;
	sx_log(x, "window %u/%u %s %.2f s", x->done + 1, x->nseq, cond_name(x->seq[x->done]),
	       x->window_s);
	return 0;
}

static void sx_settle(struct step_exec *x, double now)
{
	/* what settles is discarded: with a duty cycle, nothing need watch it */
	if (x->duty < 1)
		sx_pause(x, now);
	x->settling = 1;
	x->phase_start = now;
	x->phase_end = now + x->o.settle_s;
}

/* A duty cycle's answer to a cost over the budget: the part of each window
 * that fits it (aiming under), when that is at least STEP_DUTY_MIN; 0
 * when it is not (the step must stop). */
static double sx_fitting_duty(const struct step_exec *x, double attached_pct)
{
	double f;

	if (!x->can_pause || !(attached_pct > 0))
		return 0;
	f = STEP_EXEC_DUTY_AIM * x->o.budget_pct / attached_pct;
	if (f > x->duty)
		f = x->duty;
	return f >= STEP_DUTY_MIN ? f : 0;
}

/* Checks the BPF run time since the last check; 1 when over budget and
 * the step must stop (a duty cycle that can shrink to fit shrinks). */
static int sx_guard(struct step_exec *x, double now, int force)
{
	double dt = now - x->guard_t, pct, att, datt, apct = -1, f;
	uint64_t dns;

	if (!x->kp || (!force && dt < STEP_EXEC_GUARD_S) || dt <= 0)
		return 0;
	sx_read_stats(x);
	dns = x->last.run_ns >= x->guard_ns ? x->last.run_ns - x->guard_ns : 0;
	x->guard_ns = x->last.run_ns;
	x->guard_t = now;
	att = sx_attached_s(x, now);
	datt = att - x->guard_att;
	x->guard_att = att;
	if (x->o.no_bpf_stats && x->stats_handle < 0 && !x->last.run_ns)
		return 0;
	pct = step_exec_overhead_pct(dns, dt);
	/* a sustained cost, not one busy quarter second: the average over
	 * about STEP_EXEC_GUARD_AVG_S decides, unless one interval runs away */
	x->guard_pct = x->guard_n++ ? x->guard_pct + (pct - x->guard_pct) *
				      (1 - exp(-dt / STEP_EXEC_GUARD_AVG_S)) : pct;
	if (x->guard_pct > x->guard_max)
		x->guard_max = x->guard_pct;
	/* the cost while attached, over attached time only (a duty cycle's
	 * detached parts cost nothing and say nothing of it) */
	if (datt > 0.02) {
		apct = step_exec_overhead_pct(dns, datt);
		x->att_pct = x->att_n++ ? x->att_pct + (apct - x->att_pct) *
				     (1 - exp(-datt / STEP_EXEC_GUARD_AVG_S)) : apct;
	}
	if (x->can_pause) {
		int sustained = att >= STEP_EXEC_GUARD_AVG_S &&
				x->att_pct * x->duty > x->o.budget_pct;
		int runaway = apct > STEP_EXEC_GUARD_RUNAWAY * x->o.budget_pct;

		double cost = runaway && apct > x->att_pct ? apct : x->att_pct;

		if (!sustained && !runaway)
			return 0;
		f = sx_fitting_duty(x, cost);
		if (f > 0) {
			x->duty = f;
			snprintf(x->duty_note, sizeof(x->duty_note),
				 "attached %.0f%% of each window: %.1f%% of a CPU attached all the "
				 "time is over the %g%% budget", f * 100, cost, x->o.budget_pct);
			sx_log(x, "%s", x->duty_note);
			return 0;
		}
		pct = runaway ? apct : x->att_pct * x->duty;
		if (pct > x->guard_pct)
			x->guard_pct = pct;
		snprintf(x->reason, sizeof(x->reason),
			 "stopped: over budget (%.1f%% of a CPU > %g%% even attached %.0f%% of "
			 "each window)", x->guard_pct, x->o.budget_pct, STEP_DUTY_MIN * 100);
		return 1;
	}
	if ((now - x->t0 >= STEP_EXEC_GUARD_AVG_S && x->guard_pct > x->o.budget_pct) ||
	    pct > STEP_EXEC_GUARD_RUNAWAY * x->o.budget_pct) {
		if (pct > x->guard_pct)
			x->guard_pct = pct;
		snprintf(x->reason, sizeof(x->reason),
			 "stopped: over budget (%.1f%% of a CPU > %g%%)", x->guard_pct,
			 x->o.budget_pct);
		return 1;
	}
	return 0;
}

int step_exec_tick(struct step_exec *x, double now, char **cause)
{
	int err, changed = 0;

	if (!x)
		return -EINVAL;
	x->now = now;
	if (x->state != STEP_EXEC_READY && x->state != STEP_EXEC_RUNNING)
		return 0;
	if (x->state == STEP_EXEC_READY) {
		x->state = STEP_EXEC_RUNNING;
		x->t0 = now;
		x->guard_t = now;
		sx_read_stats(x);
		x->guard_ns = x->last.run_ns;
		x->run0_ns = x->last.run_ns;
		x->att_acc = 0;
		x->att_since = now;
		x->guard_att = 0;
		err = sx_apply(x, x->seq[0], cause);
		if (err < 0)
			goto fail;
		sx_settle(x, now);
		return 0;
	}
	if (sx_guard(x, now, 0)) {
		/* keep what the current window holds, then detach */
		err = sx_collect(x, now, cause);
		if (err < 0)
			goto fail;
		if (x->win >= 0)
			x->done++;
		sx_log(x, "%s", x->reason);
		sx_finish(x, now, STEP_EXEC_OVER_BUDGET);
		return 1;
	}
	if (x->settling) {
		if (now < x->phase_end)
			return 0;
		err = x->ops->discard ? x->ops->discard(x->kp) : 0;
		if (err < 0) {
			util_cause(cause, "cannot reset the %s probe: %s", step_kind_name(x->s->kind),
				   strerror(-err));
			goto fail;
		}
		err = sx_open_window(x, now, cause);
		if (err < 0)
			goto fail;
		return 0;
	}
	if (x->duty < 1 && !x->paused && !x->settling && x->win >= 0 &&
	    now >= x->phase_start + x->duty * x->window_s && now < x->phase_end) {
		/* the window's attached part is over: collect it, detach */
		x->on_s = now - x->phase_start;
		err = sx_collect(x, now, cause);
		if (err < 0)
			goto fail;
		err = sx_pause(x, now);
		if (err < 0) {
			util_cause(cause, "cannot detach the %s probe: %s", step_kind_name(x->s->kind),
				   strerror(-err));
			goto fail;
		}
		return 1;
	}
	if (now >= x->phase_end) {
		err = sx_collect(x, now, cause);
		if (err < 0)
			goto fail;
		x->win = -1;
		x->done++;
		if (x->sq && x->done % 2 == 0) {
			double w = x->window_s, st = x->o.settle_s;
			int stop = measure_seq_pair(x->sq, x->d->prof, x->done / 2, &w, &st, x->o.log);

			if (stop < 0) {
				err = stop;
				util_cause(cause, "cannot analyse the step's pair %u: %s", x->done / 2,
					 strerror(-err));
				goto fail;
			}
			if (stop || x->done == x->nseq) {
				const struct seqstop_decision *dd = measure_seq_decision(x->sq);

				snprintf(x->stopping, sizeof(x->stopping), "%s", dd->reason);
				x->settled = dd->settled;
				if (x->done < x->nseq) {
					sx_log(x, "step %s", x->stopping);
					sx_finish(x, now, STEP_EXEC_DONE);
					return 1;
				}
			}
		}
		if (x->done == x->nseq) {
			sx_log(x, "measured %u windows in %.1f s", x->done, now - x->t0);
			sx_finish(x, now, STEP_EXEC_DONE);
			return 1;
		}
		if (x->seq[x->done] != x->cur) {
			err = sx_apply(x, x->seq[x->done], cause);
			if (err < 0)
				goto fail;
			sx_settle(x, now);
		} else {
			err = sx_open_window(x, now, cause);
			if (err < 0)
				goto fail;
		}
		return 1;
	}
	if (x->o.collect_s > 0 && !x->paused && now - x->last_collect >= x->o.collect_s) {
		err = sx_collect(x, now, cause);
		if (err < 0)
			goto fail;
		changed = err;
	}
	return changed;
fail:
	sx_finish(x, now, STEP_EXEC_FAILED);
	if (cause && *cause)
		snprintf(x->reason, sizeof(x->reason), "failed: %s", *cause);
	return err;
}

int step_exec_timeout_ms(struct step_exec *x, double now)
{
	double next;

	if (!x || step_exec_finished(x))
		return -1;
	if (x->state == STEP_EXEC_READY)
		return 0;
	next = x->phase_end;
	if (x->duty < 1 && !x->paused && !x->settling && x->win >= 0 &&
	    x->phase_start + x->duty * x->window_s < next)
		next = x->phase_start + x->duty * x->window_s;
	if (!x->settling && x->o.collect_s > 0 && x->last_collect + x->o.collect_s < next)
		next = x->last_collect + x->o.collect_s;
	if (x->kp && x->guard_t + STEP_EXEC_GUARD_S < next)
		next = x->guard_t + STEP_EXEC_GUARD_S;
	return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

int step_exec_finished(const struct step_exec *x)
{
	return !x || (x->state != STEP_EXEC_READY && x->state != STEP_EXEC_RUNNING);
}

enum cond step_exec_cond(const struct step_exec *x)
{
	return x ? x->cur : COND_REF;
}

void step_exec_status(struct step_exec *x, struct source_status *st)
{
	memset(st, 0, sizeof(*st));
	if (!x)
		return;
	st->phase = step_exec_finished(x) ? SOURCE_DONE
		    : x->state == STEP_EXEC_READY ? SOURCE_STARTING
		    : x->settling ? SOURCE_SETTLING : SOURCE_STEP;
	st->window = x->done < x->nseq ? x->done : x->nseq ? x->nseq - 1 : 0;
	st->nwindows = x->nseq;
	st->elapsed_s = x->state == STEP_EXEC_READY ? 0
			: step_exec_finished(x) ? x->end_at - x->t0 : x->now - x->t0;
	if (!step_exec_finished(x) && x->phase_end > x->now)
		st->phase_left_s = x->phase_end - x->now;
	st->samples = x->last.events;
	/* what its windows lost (the session's step windows say the same);
	 * the probe's own count also has its settle times and pre-flight */
	st->dropped = x->d ? profile_lost(x->d->prof) : 0;
	st->probes = x->kp ? x->last.progs : 0;
	st->overhead_pct = x->stats_handle >= 0 || x->last.run_ns ? x->guard_pct : -1;
	if (x->o.load) {
		load_state(x->o.load, x->load_state, sizeof(x->load_state));
		st->load_state = x->load_state;
	}
}

void step_exec_info(const struct step_exec *x, struct step_exec_info *in)
{
	double t1, att;

	memset(in, 0, sizeof(*in));
	if (!x)
		return;
	in->state = x->state;
	snprintf(in->reason, sizeof(in->reason), "%s", x->reason);
	snprintf(in->stopping, sizeof(in->stopping), "%s", x->stopping);
	in->settled = x->settled;
	in->pairs = x->nseq / 2;
	in->windows = x->d ? x->d->nwin : 0;
	in->window_s = x->window_s;
	in->settle_s = x->o.settle_s;
	t1 = step_exec_finished(x) ? x->end_at : x->now;
	in->elapsed_s = x->state == STEP_EXEC_READY ? 0 : t1 - x->t0;
	att = x->state == STEP_EXEC_READY ? 0 : (x->kp ? x->now : x->detach_t) - x->t0;
	in->run_ns = x->last.run_ns;
	in->run_cnt = x->last.run_cnt;
	in->events = x->last.events;
	in->lost = x->last.lost;
	in->progs = x->last.progs;
	in->budget_pct = x->o.budget_pct;
	in->duty = x->duty;
	in->duty_start = x->duty_start;
	in->attached_pct = x->att_n ? x->att_pct : -1;
	snprintf(in->duty_note, sizeof(in->duty_note), "%s", x->duty_note);
	if (x->stats_handle >= 0 || x->last.run_ns) {
		in->overhead_pct = att > 0 ? step_exec_overhead_pct(x->last.run_ns - x->run0_ns, att)
				   : 0;
		in->overhead_max_pct = x->guard_max;
	} else {
		in->overhead_pct = -1;
		in->overhead_max_pct = -1;
	}
}

const struct step *step_exec_step(const struct step_exec *x)
{
	return x ? x->s : NULL;
}

const struct step_data *step_exec_data(const struct step_exec *x)
{
	return x ? x->d : NULL;
}

struct step_data *step_exec_take_data(struct step_exec *x)
{
	struct step_data *d;

	if (!x)
		return NULL;
	d = x->d;
	x->d = NULL;
	if (d)
		d->lost = x->last.lost > d->lost ? x->last.lost : d->lost;
	return d;
}

void step_exec_stop(struct step_exec *x)
{
	if (!x)
		return;
	if (!step_exec_finished(x)) {
		double now = util_mono_s();

		if (x->state == STEP_EXEC_RUNNING)
			snprintf(x->reason, sizeof(x->reason), "stopped before the end");
		sx_finish(x, now, STEP_EXEC_STOPPED);
	}
	sx_detach(x, x->now);
	if (x->o.load)
		load_resume(x->o.load);
}

void step_exec_free(struct step_exec *x)
{
	if (!x)
		return;
	step_exec_stop(x);
	probe_bpf_stats_end(x->stats_handle);
	step_data_free(x->d);
	ksym_free(x->own_ks);
	step_free(x->s);
	free(x->seq);
	measure_seq_free(x->sq);
	free(x);
}

/* Windows per condition and their length from the step's duration. */
static void sx_plan_shape(const struct step *s, unsigned want, unsigned *pairs, double *win)
{
	double dur = s->duration_s > 0 ? s->duration_s : 1;
	unsigned p = want ? want : STEP_EXEC_DEFAULT_PAIRS;

	while (p > 1 && dur / p < STEP_EXEC_MIN_WINDOW_S)
		p--;
	*pairs = p;
	*win = dur / p;
}

struct step_exec *step_exec_new(const struct step *s, const struct step_exec_opts *o,
				char **cause)
{
	struct step_exec *x = NULL;
	struct step_exec_opts def;
	unsigned pairs, ntg;
	int err = 0;

	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	if (!o) {
		step_exec_opts_default(&def);
		o = &def;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		err = -ENOMEM;
		goto fail;
	}
	x->stats_handle = -1;
	x->win = -1;
	x->o = *o;
	if (x->o.settle_s < 0)
		x->o.settle_s = STEP_EXEC_DEFAULT_SETTLE_S;
	if (!(x->o.budget_pct > 0))
		x->o.budget_pct = step_exec_default_budget(s->kind);
	x->s = step_clone(s);
	if (!x->s) {
		err = -errno;
		goto fail;
	}
	if (!x->s->nresolved && (x->s->ntargets || x->s->begin)) {
		err = -EINVAL;
		util_cause(cause, "the step was not validated (no resolved targets): run step_validate first");
		goto fail;
	}
	x->ops = o->ops ? o->ops : kind_ops_get(s->kind);
	if (!x->ops) {
		err = -ENOSYS;
		util_cause(cause, "this build has no probe for %s steps", step_kind_name(s->kind));
		goto fail;
	}
	x->can_pause = x->ops->pause && x->ops->resume;
	x->duty = x->can_pause && s->duty > 0 && s->duty < 1 ? s->duty : 1;
	x->duty_start = x->duty;
	if (x->duty < 1)
		snprintf(x->duty_note, sizeof(x->duty_note),
			 "attached %.0f%% of each window (the step's duty %.2f)", x->duty * 100,
			 x->duty);
	sx_plan_shape(x->s, o->pairs, &pairs, &x->window_s);
	x->nseq = 2 * pairs;
	x->seq = calloc(x->nseq, sizeof(*x->seq));
	if (!x->seq) {
		err = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < x->nseq; i++)
		x->seq[i] = i % 2 ? COND_LOAD : COND_REF;
	ntg = kind_ntargets(x->s);
	x->d = step_data_new(ntg, kind_unit(s->kind));
	if (!x->d) {
		err = -errno;
		goto fail;
	}
	if (o->sequential && pairs >= 2 && x->d->unit &&
	    (!strcmp(x->d->unit, "samples") || !strcmp(x->d->unit, "events"))) {
		struct measure_seq_opts so = {
			.min_pairs = o->min_pairs ? o->min_pairs : SEQSTOP_DEFAULT_MIN_PAIRS,
			.max_pairs = pairs, .explain = 0.5, .exclude_tgid = (uint32_t)getpid(),
		};

		if (so.min_pairs > pairs)
			so.min_pairs = pairs;
		x->sq = measure_seq_new(&so);
		if (!x->sq) {
			err = -ENOMEM;
			goto fail;
		}
	}
	x->ks = o->ks;
	if (!x->ks && !o->ops) {
		x->own_ks = ksym_load(NULL);
		if (!x->own_ks) {
			err = -errno;
			util_cause(cause, "cannot read /proc/kallsyms: %s", strerror(errno));
			goto fail;
		}
		x->ks = x->own_ks;
	}
	if (!o->no_bpf_stats) {
		char *why = NULL;

		x->stats_handle = probe_bpf_stats_begin(&why);
		if (x->stats_handle < 0)
			sx_log(x, "%s", why ? why : "no BPF statistics");
		free(why);
	}
	/* The kind may size itself on the event rate it sees while opening
	 * (tracepoint_stacks picks its 1-in-N): let it see the load running,
	 * not held before exec or paused; the first window pauses it again. */
	if (x->o.load) {
		err = load_started(x->o.load) ? load_resume(x->o.load) : load_start(x->o.load, cause);
		if (err < 0)
			goto fail;
	}
	err = x->ops->open(x->s, &x->kp, cause);
	if (err < 0 || !x->kp) {
		if (!err)
			err = -EIO;
		x->kp = NULL;
		goto fail;
	}
	x->attach_t = util_mono_s();
	x->now = x->attach_t;
	sx_read_stats(x);
	{
		char desc[256];

		sx_log(x, "%s: %u pairs of %.2f s windows, settle %.2f s, budget %g%% of a CPU%s",
		       step_describe(x->s, desc, sizeof(desc)), pairs, x->window_s, x->o.settle_s,
		       x->o.budget_pct, x->can_pause ? "" : " (no duty cycle for this kind)");
	}
	return x;
fail:
	if (x)
		step_exec_free(x);
	if (cause && !*cause)
		util_cause(cause, "cannot start the step: %s", strerror(-err));
	errno = -err;
	return NULL;
}

int step_exec_run(struct step_exec *x, int stop_fd, char **cause)
{
	int err = 0;

	if (!x)
		return -EINVAL;
	while (!step_exec_finished(x)) {
		struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
		int to;

		err = step_exec_tick(x, util_mono_s(), cause);
		if (err < 0)
			return err;
		if (step_exec_finished(x))
			break;
		to = step_exec_timeout_ms(x, util_mono_s());
		if (poll(&pfd, stop_fd >= 0 ? 1 : 0, to) > 0 && (pfd.revents & POLLIN)) {
			step_exec_stop(x);
			util_cause(cause, "interrupted");
			return -EINTR;
		}
	}
	return 0;
}
