/* source_live — live sampling behind the source interface. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "data/ksym.h"
#include "probe/probe.h"
#include "probe/probe_profile.h"
#include "data/procinfo.h"
#include "measure/source_live.h"
#include "base/util.h"

#define SOURCE_LIVE_TICK_S 1.0

struct source_live {
	struct source src;
	struct probe_profile *pp;
	struct ksym_table *ks;
	struct profile *prof;
	unsigned win;
	double t0;              /* monotonic seconds at start */
	double last_tick;       /* time of the last collect */
	double elapsed;         /* at the last collect */
	double rate;
	double overhead_pct;    /* BPF run time over the last tick, <0 unknown */
	uint64_t samples;       /* accepted (added to the profile) since the
	                         * start or the last reset */
	uint64_t lost0;         /* the sampler's drops before the open window */
	uint64_t uerr0;         /* its user stacks not taken, the same */
	struct probe_profile_stats st; /* at the last collect */
	unsigned prune_idle;    /* 0, or forget keys idle this many collects */
	unsigned ticks;         /* collects so far */
	struct probe_profile_prune pruned; /* at the last prune */
	int stopped;
	int forget;             /* a reset closed windows [0, win): their
	                         * stacks go at the next collect (live_reset) */
};

/* After a reset, once a session had its turn to write the closed windows:
 * the profile keeps their places (a session numbers windows by them) but
 * neither their stacks nor their length, so the tree and its rates are the
 * open window's alone. */
static int live_forget(struct source_live *l)
{
	struct profile *q = profile_fresh_like(l->prof);

	if (!q)
		return -errno;
	for (unsigned w = 0; w < l->win; w++) {
		q->wins[w].secs = 0;
		q->wins[w].lost = 0;
	}
	profile_free(l->prof);
	l->prof = q;
	l->forget = 0;
	return 0;
}

/* One collect at time now: counts since the last one into the window. */
static int live_collect(struct source_live *l, double now, char **cause)
{
	int64_t n;
	double dt = now - l->last_tick;
	int forgot = l->forget;

	if (l->forget && live_forget(l) < 0) {
		if (cause && asprintf(cause, "out of memory resetting the counts") < 0)
			*cause = NULL;
		return -ENOMEM;
	}
	n = probe_profile_collect(l->pp, l->prof, l->win, l->ks);
	if (n < 0) {
		if (cause && asprintf(cause, "cannot read the sampler's maps: %s",
				      strerror((int)-n)) < 0)
			*cause = NULL;
		return (int)n;
	}
	/* a recorder left running: the sampler holds what is active (every
	 * tenth collect at most: the work is a pass over its table) */
	if (l->prune_idle && ++l->ticks % (l->prune_idle < 10 ? l->prune_idle : 10) == 0) {
		int err = probe_profile_prune(l->pp, l->prune_idle, &l->pruned);

		if (err) {
			if (cause && asprintf(cause, "cannot prune the sampler's maps: %s",
					      strerror(-err)) < 0)
				*cause = NULL;
			return err;
		}
	}
	/* who the new processes are, while they run (issue 15) */
	if (procinfo_profile_capture(l->prof, (uint32_t)getpid()) < 0) {
		if (cause && asprintf(cause, "out of memory naming the sampled processes") < 0)
			*cause = NULL;
		return -ENOMEM;
	}
	{
		uint64_t prev_ns = l->st.bpf_run_ns;

		probe_profile_stats(l->pp, &l->st);
		/* one open window: everything lost since it opened is its loss */
		l->prof->wins[l->win].lost = l->st.dropped - l->lost0;
		l->prof->wins[l->win].ustack_errors = l->st.ustack_error - l->uerr0;
		l->overhead_pct = dt > 0 && l->st.bpf_run_ns
			? (l->st.bpf_run_ns - prev_ns) / (dt * 1e9) * 100 : -1;
	}
	l->samples += (uint64_t)n;
	l->rate = dt > 0 ? n / dt : 0;
	l->last_tick = now;
	l->elapsed = now - l->t0;
	profile_window_end(l->prof, l->win, l->elapsed - l->prof->wins[l->win].start_s);
	return n > 0 || forgot;
}

static int live_tick(struct source *s, double now_s, char **cause)
{
	struct source_live *l = s->priv;

	if (l->stopped || (now_s - l->last_tick < SOURCE_LIVE_TICK_S && !l->forget))
		return 0;
	return live_collect(l, now_s, cause);
}

static int live_timeout_ms(struct source *s, double now_s)
{
	struct source_live *l = s->priv;
	double left = l->last_tick + SOURCE_LIVE_TICK_S - now_s;

	if (l->stopped)
		return -1;
	return left <= 0 || l->forget ? 0 : (int)(left * 1000) + 1;
}

static const struct profile *live_profile(struct source *s)
{
	return ((struct source_live *)s->priv)->prof;
}

static void live_status(struct source *s, struct source_status *st)
{
	struct source_live *l = s->priv;

	memset(st, 0, sizeof(*st));
	st->phase = l->stopped ? SOURCE_DONE : SOURCE_LIVE;
	st->window = l->win;
	st->nwindows = 0;
	st->elapsed_s = l->stopped ? l->elapsed : util_mono_s() - l->t0;
	st->rate = l->rate;
	st->samples = l->samples;
	st->dropped = profile_lost(l->prof);
	st->freq_hz = l->st.freq_hz;
	st->probes = l->pp ? l->st.cpus : 0;
	st->overhead_pct = l->overhead_pct;
	st->load_state = NULL;
	st->closed = l->win;    /* a reset's: final (windows before the open one) */
}

static void live_stop(struct source *s)
{
	struct source_live *l = s->priv;

	if (l->stopped)
		return;
	live_collect(l, util_mono_s(), NULL); /* what accrued since the last tick */
	probe_profile_close(l->pp);
	l->pp = NULL;
	l->stopped = 1;
}

static int live_reset(struct source *s, double now_s, char **cause)
{
	struct source_live *l = s->priv;
	int err, w;

	if (l->stopped)
		return -ENOTSUP;
	if (l->forget) {
		/* two resets within one tick: the closed window is there to be
		 * written already; this one only restarts the open one's clock */
		l->prof->wins[l->win].start_s = now_s - l->t0;
		return 0;
	}
	err = live_collect(l, now_s, cause);   /* up to now into the window closing */
	if (err < 0)
		return err;
	w = profile_window_begin(l->prof, COND_LOAD, l->elapsed);
	if (w < 0) {
		if (cause && asprintf(cause, "cannot open a new window: %s", strerror(-w)) < 0)
			*cause = NULL;
		return w;
	}
	l->win = (unsigned)w;
	l->lost0 = l->st.dropped;
	l->uerr0 = l->st.ustack_error;
	l->samples = 0;
	l->rate = 0;
	l->forget = 1;
	return 0;
}

static void live_free(struct source *s)
{
	struct source_live *l = s->priv;

	probe_profile_close(l->pp);
	profile_free(l->prof);
	ksym_free(l->ks);
	free(l);
}

static const struct source_ops live_ops = {
	.name = "live",
	.tick = live_tick,
	.timeout_ms = live_timeout_ms,
	.profile = live_profile,
	.status = live_status,
	.stop = live_stop,
	.free = live_free,
	.reset = live_reset,
};

struct source *source_live_new(const struct probe_profile_opts *o, char **cause)
{
	struct source_live *l = calloc(1, sizeof(*l));
	int err = 0, w;

	if (!l) {
		err = ENOMEM;
		goto fail;
	}
	l->src.ops = &live_ops;
	l->src.priv = l;
	err = -probe_check_privileges(cause); /* before kallsyms says "hidden" */
	if (err)
		goto fail;
	l->prof = profile_new();
	if (!l->prof) {
		err = errno;
		goto fail;
	}
	l->ks = ksym_load(NULL);
	if (!l->ks) {
		err = errno;
		if (cause && asprintf(cause, "cannot read /proc/kallsyms: %s", strerror(err)) < 0)
			*cause = NULL;
		goto fail;
	}
	if (ksym_hidden(l->ks)) {
		err = EPERM;
		if (cause && asprintf(cause, "kernel addresses are hidden in /proc/kallsyms "
				      "(kernel.kptr_restrict); run as root or set "
				      "kernel.kptr_restrict=0") < 0)
			*cause = NULL;
		goto fail;
	}
	w = profile_window_begin(l->prof, COND_LOAD, 0);
	if (w < 0) {
		err = -w;
		goto fail;
	}
	l->win = (unsigned)w;
	l->pp = probe_profile_open(o, cause);
	if (!l->pp) {
		err = errno;
		goto fail;
	}
	l->t0 = l->last_tick = util_mono_s();
	l->overhead_pct = -1;
	probe_profile_stats(l->pp, &l->st);
	return &l->src;
fail:
	if (l) {
		l->stopped = 1;
		live_free(&l->src);
	}
	if (cause && !*cause && asprintf(cause, "cannot start live sampling: %s",
					 strerror(err)) < 0)
		*cause = NULL;
	errno = err;
	return NULL;
}

int source_live_stats(struct source *s, struct probe_profile_stats *st)
{
	struct source_live *l = s->priv;

	if (l->pp && !l->stopped) {
		int err = probe_profile_stats(l->pp, &l->st);

		if (err)
			return err;
	}
	*st = l->st;
	return 0;
}

int source_live_rotate(struct source *s)
{
	struct source_live *l = s->priv;
	struct profile *q = profile_fresh_like(l->prof);

	if (!q)
		return -errno;
	profile_free(l->prof);
	l->prof = q;
	return 0;
}

void source_live_prune_idle(struct source *s, unsigned idle_s)
{
	struct source_live *l = s->priv;

	l->prune_idle = (unsigned)(idle_s / SOURCE_LIVE_TICK_S);
}

void source_live_prune_stats(struct source *s, struct probe_profile_prune *out)
{
	*out = ((struct source_live *)s->priv)->pruned;
}

int source_live_add_tgid(struct source *s, uint32_t tgid)
{
	struct source_live *l = s->priv;

	return l->pp ? probe_profile_add_tgid(l->pp, tgid) : -ESRCH;
}
