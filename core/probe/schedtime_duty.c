/* schedtime_duty — when the scheduler-time programs are attached, and the
 * length-bias correction that goes with it (see schedtime_duty.h). */
#include <math.h>
#include <string.h>

#include "probe/schedtime_duty.h"
#include "probe/schedtime_snap.h"
#include "probe/kind.h"

/* A read falls on a period boundary: an on-phase ends this much before
 * it, so the read finds the programs detached (a late tick of the
 * caller's loop must not carry the phase over the read). */
#define DUTY_GUARD_S 0.02
/* The cost while attached is averaged over about this much attached time:
 * a few on-phases (the estimate follows a change of the load within a
 * few seconds, and one phase's noise moves it little). */
#define DUTY_TAU_S 0.5

double schedtime_duty_weight(const double *phase_s, unsigned n, double len_s)
{
	double all = 0, seen = 0, w;

	for (unsigned i = 0; i < n; i++) {
		all += phase_s[i];
		if (phase_s[i] > len_s)
			seen += phase_s[i] - len_s;
	}
	if (!(all > 0))
		return 1;
	if (!(seen > 0) || (w = all / seen) > SCHEDTIME_DUTY_MAX_WEIGHT)
		return SCHEDTIME_DUTY_MAX_WEIGHT;
	return w;
}

void schedtime_duty_reweight(struct probe_schedtime_snap *s)
{
	double wb[SCHEDTIME_BUCKETS];

	if (!s->nphases)
		return;
	for (int b = 0; b < SCHEDTIME_BUCKETS; b++) /* a bucket's mean length: 2^b / ln 2 */
		wb[b] = schedtime_duty_weight(s->phase_s, s->nphases, ldexp(1, b) / M_LN2 / 1e9);
	for (size_t i = 0; i < s->n; i++) {
		struct schedtime_val *v = &s->e[i].val;
		double n = 0, nw = 0, t = 0, tw = 0, mean, w;
		int mb;

		if ((s->e[i].key.kind != SCHEDTIME_BLOCKED && s->e[i].key.kind != SCHEDTIME_RUNNABLE) ||
		    s->e[i].key.other_kind == SCHEDTIME_OTHER_PENDING)
			continue;
		for (int b = 0; b < SCHEDTIME_BUCKETS; b++)
			n += (double)v->hist[b];
		if (!(n > 0) || !v->count)
			continue;
		/* a key whose intervals are nearly all in one bucket (a think
		 * time, a timer): their mean length is known better than the
		 * bucket's */
		mean = (double)v->total_ns / (double)v->count;
		mb = mean >= 1 ? (int)floor(log2(mean)) : 0;
		if (mb >= SCHEDTIME_BUCKETS)
			mb = SCHEDTIME_BUCKETS - 1;
		if ((double)v->hist[mb] < 0.9 * n || !(mean > 0))
			mb = -1; /* (a key of zero-length intervals: its bucket's mean) */
		for (int b = 0; b < SCHEDTIME_BUCKETS; b++) {
			double h = (double)v->hist[b], len = b == mb ? mean : ldexp(1, b) / M_LN2;

			w = b == mb ? schedtime_duty_weight(s->phase_s, s->nphases, mean / 1e9) : wb[b];
			nw += h * w;
			t += h * len;
			tw += h * len * w;
			v->hist[b] = (uint64_t)llround(h * w);
		}
		v->count = (uint64_t)llround((double)v->count * nw / n);
		if (t > 0)
			v->total_ns = (uint64_t)llround((double)v->total_ns * tw / t);
	}
}

static double duty_period(const struct schedtime_duty_opts *o)
{
	double p = o->period_s > 0 ? o->period_s : SCHEDTIME_DUTY_PERIOD_S;

	if (o->window_s > 0) {
		double k = round(o->window_s / p);

		p = o->window_s / (k >= 1 ? k : 1);
	}
	return p;
}

void schedtime_duty_init(struct schedtime_duty *d, const struct schedtime_duty_opts *o, double now)
{
	memset(d, 0, sizeof(*d));
	d->o = *o;
	if (!(d->o.budget_pct > 0))
		d->o.budget_pct = KIND_EVENT_BUDGET_PCT;
	d->o.period_s = duty_period(o);
	if (!(d->o.min_on_s > 0))
		d->o.min_on_s = SCHEDTIME_DUTY_MIN_ON_S;
	if (d->o.min_on_s > d->o.period_s - DUTY_GUARD_S)
		d->o.min_on_s = d->o.period_s / 2;
	d->t0 = d->period_t0 = d->on_t0 = now;
	/* the first on-phase measures: two minimum phases are enough (10^4
	 * switches and more where it matters), and short, what it spends
	 * over the budget is soon paid back */
	d->on_end = now + 2 * d->o.min_on_s;
	if (d->on_end > now + d->o.period_s - DUTY_GUARD_S)
		d->on_end = now + d->o.period_s - DUTY_GUARD_S;
	d->attached = 1;
	d->f = 1;
}

/* Plans the next on-phase from now: in the first period (the one that
 * holds now, or a later one) where it can last min_on_s, ending
 * DUTY_GUARD_S before the period's end and as long as brings the probe's
 * cost since the start to the aim (SCHEDTIME_DUTY_AIM * the budget) of the
 * time by then.  Why at the end of its period and by cost: the cost so far
 * then stays under the aim at every moment, not only at the periods' ends
 * (a run ends where it ends: in an on-phase placed at the start of a
 * period it was over the budget by that phase), and a phase that cost more
 * than the estimate said is paid back by the next ones. */
static void duty_plan(struct schedtime_duty *d, double now)
{
	double p = d->o.period_s, rate = d->cost_on_pct * 1e7, /* ns a second attached */
	       allow = SCHEDTIME_DUTY_AIM * d->o.budget_pct * 1e7, pt0 = d->period_t0,
	       end = 0, start = 0;

	while (pt0 + p <= now + 1e-9)
		pt0 += p;
	/* the phase a period allows grows by allow * p / rate a period: a
	 * bounded search (a cost of 10^4 budgets still finds one) */
	for (int k = 0; k < 100000; k++, pt0 += p) {
		double on;

		end = pt0 + p - DUTY_GUARD_S;
		on = rate > 0 ? (allow * (end - d->t0) - d->cost_ns) / rate : p;
		if (on > p - DUTY_GUARD_S)
			on = p - DUTY_GUARD_S;
		start = end - on > now ? end - on : now; /* a late tick: what is left */
		if (end - start >= d->o.min_on_s)
			break;
		if (d->every_period && end - d->o.min_on_s >= now) {
			/* the caller's period (a window) must be seen: at least
			 * the shortest phase, over the budget if it must be */
			start = end - d->o.min_on_s;
			break;
		}
	}
	d->period_t0 = end + DUTY_GUARD_S - p;
	d->on_start = start;
	d->on_end = end;
}

enum schedtime_duty_act schedtime_duty_tick(struct schedtime_duty *d, double now, double cost_ns)
{
	double p = d->o.period_s;

	d->cost_ns = cost_ns;
	if (d->attached) {
		double len = now - d->on_t0;

		if (now < d->on_end)
			return SCHEDTIME_DUTY_NONE;
		if (len > 0) {
			/* the cost while attached, over the last ~DUTY_TAU_S of
			 * attached time (one short phase alone is noisy) */
			double k = exp(-len / DUTY_TAU_S);

			d->acc_ns = d->acc_ns * k + (cost_ns - d->cost0);
			d->acc_s = d->acc_s * k + len;
			d->cost_on_pct = d->acc_ns / (d->acc_s * 1e9) * 100;
			d->f = d->cost_on_pct > d->o.budget_pct
			       ? SCHEDTIME_DUTY_AIM * d->o.budget_pct / d->cost_on_pct : 1;
		}
		d->attached_s += len;
		while (d->period_t0 + p <= now + 1e-9)
			d->period_t0 += p;
		if (d->f * p >= p - DUTY_GUARD_S) {
			/* within the budget watched all the time: measure again
			 * over the next period */
			d->on_t0 = now;
			d->cost0 = cost_ns;
			d->on_end = d->period_t0 + p;
			return SCHEDTIME_DUTY_NONE;
		}
		d->attached = 0;
		d->phases++;
		d->engaged = 1;
		duty_plan(d, now);
		return SCHEDTIME_DUTY_DETACH;
	}
	if (now < d->on_start)
		return SCHEDTIME_DUTY_NONE;
	if (d->on_end - now < d->o.min_on_s / 2) {
		duty_plan(d, now); /* woken too late for it: the next one */
		return SCHEDTIME_DUTY_NONE;
	}
	d->attached = 1;
	d->on_t0 = now;
	d->cost0 = cost_ns;
	return SCHEDTIME_DUTY_ATTACH;
}

void schedtime_duty_period(struct schedtime_duty *d, double start, double len, double now)
{
	if (!(len >= d->o.min_on_s + DUTY_GUARD_S))
		return; /* too short to hold a phase: the periods as they were */
	d->period_t0 = start;
	d->o.period_s = len;
	d->every_period = 1;
	if (!d->attached)
		duty_plan(d, now > start ? now : start);
	else if (d->engaged && d->on_end > start + len - DUTY_GUARD_S)
		d->on_end = start + len - DUTY_GUARD_S; /* over before the read */
}

double schedtime_duty_next(const struct schedtime_duty *d)
{
	return d->attached ? d->on_end : d->on_start;
}

static double duty_attached_s(const struct schedtime_duty *d, double now)
{
	return d->attached_s + (d->attached ? now - d->on_t0 : 0);
}

double schedtime_duty_fraction(const struct schedtime_duty *d, double now)
{
	return now > d->t0 ? duty_attached_s(d, now) / (now - d->t0) : 1;
}

double schedtime_duty_cost_pct(const struct schedtime_duty *d, double now)
{
	return now > d->t0 ? d->cost_ns / ((now - d->t0) * 1e9) * 100 : 0;
}

double schedtime_duty_cost_on_pct(const struct schedtime_duty *d, double now)
{
	double a = duty_attached_s(d, now);

	return a > 0 ? d->cost_ns / (a * 1e9) * 100 : 0;
}
