/* kind_tpstacks — the tracepoint_stacks kind over core/probe_tpstacks.c.
 *
 * Stacks go to the profile root first, the BPF machinery's leaf frames
 * dropped, with a marker frame "[tp] category:name" appended at the LEAF
 * end: the executor matches the kernel frames root first against the tree
 * and hangs the tracepoint under the deepest matching node (or under the
 * tracepoint's own node when nothing matches).  Events per target are the
 * exact firings counted in the kernel; a stack's count is its recorded
 * firings times (firings / recorded firings) of its target since the last
 * read, so the stacks of a window sum to its exact firings whatever N was in
 * force (an estimate per stack, exact in total).
 *
 * sample_every 0 (automatic): before attaching, the targets' firing rate
 * (with the filter) is counted for KIND_RATE_PROBE_S by the counts probe, and
 * N = ceil(rate / KIND_TPSTACKS_BUDGET) so that at most ~KIND_TPSTACKS_BUDGET
 * firings per second are recorded with a stack (each costs a stack walk,
 * 1-2 us).  That rate may be of a load paused or not yet started, so N is
 * raised (never lowered) while attached: at every read and every stats call
 * (the executor's overhead guard, four times a second).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>
#include "../bpf/tpstacks.h"
#include "kind.h"
#include "kind_util.h"
#include "probe_counts.h"
#include "tpstacks.h"
#include "util.h"

struct snap_key {
	uint32_t stack_id, tp, tgid;
	char comm[16];
};

struct kind_tps {
	struct tpstacks *t;
	unsigned ntps;
	unsigned every;
	int auto_every;             /* sample_every 0: retuned at every read */
	double last_read;           /* monotonic seconds of the last retune */
	uint64_t retune_fired;      /* all targets' firings at the last retune */
	double *scale;              /* per target, for the read in progress:
	                             * firings / recorded firings since the last read */
	char **markers;             /* "[tp] category:name" per target */
	struct kind_snap *snap;     /* snap_key -> recorded count */
	struct kind_stacks *stacks;
	const uint64_t *cur_ips;    /* stack being read (tpstacks_read gives ips) */
	unsigned cur_nips;
	struct tpstacks_totals *prev;  /* per target, at the last collect */
	int stats_fd;               /* BPF run-time statistics on while held */
	uint64_t events, lost;
	/* collect in progress */
	struct step_data *d;
	unsigned w;
	const struct ksym_table *ks;
	int discard;
};

static int tps_read_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct kind_tps *k = arg;
	unsigned n = k->cur_nips < max ? k->cur_nips : max;

	(void)id;
	memcpy(ips, k->cur_ips, n * sizeof(*ips));
	return (int)n;
}

static void tps_close(struct kind_probe *kp)
{
	struct kind_tps *k = (struct kind_tps *)kp;

	if (!k)
		return;
	tpstacks_free(k->t);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	for (unsigned i = 0; k->markers && i < k->ntps; i++)
		free(k->markers[i]);
	free(k->markers);
	kind_snap_free(k->snap);
	kind_stacks_free(k->stacks);
	free(k->prev);
	free(k->scale);
	free(k);
}

unsigned kind_tpstacks_auto_every(double rate)
{
	double n = rate / KIND_TPSTACKS_BUDGET;

	if (!(n > 1))
		return 1;
	if (n >= 1000000)
		return 1000000;
	return (unsigned)n + ((double)(unsigned)n < n); /* ceil */
}

static int tps_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_tps *k = calloc(1, sizeof(*k));
	struct tpstacks_opts o = { 0 };
	struct kind_filter f;
	int err = 0;

	if (!k) {
		err = -ENOMEM;
		goto fail;
	}
	k->stats_fd = -1;
	if (s->kind != STEP_TRACEPOINT_STACKS || !s->nresolved) {
		err = -EINVAL;
		kind_set_cause(cause, "not a validated tracepoint_stacks step");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->ntps = s->nresolved;
	k->markers = calloc(k->ntps, sizeof(*k->markers));
	k->prev = calloc(k->ntps, sizeof(*k->prev));
	k->scale = calloc(k->ntps, sizeof(*k->scale));
	k->snap = kind_snap_new(sizeof(struct snap_key), 1);
	k->stacks = kind_stacks_new(tps_read_stack, k);
	if (!k->markers || !k->prev || !k->scale || !k->snap || !k->stacks) {
		err = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < k->ntps; i++)
		if (asprintf(&k->markers[i], "[tp] %s", s->resolved[i]) < 0) {
			k->markers[i] = NULL;
			err = -ENOMEM;
			goto fail;
		}
	k->every = s->sample_every;
	k->auto_every = !s->sample_every;
	if (!k->every) {
		double rate = 0;

		err = probe_counts_rate((const char *const *)s->resolved, s->nresolved, &f,
					KIND_RATE_PROBE_S, &rate, cause);
		if (err)
			goto fail;
		k->every = kind_tpstacks_auto_every(rate);
	}
	o.tracepoints = (const char *const *)s->resolved;
	o.ntps = s->nresolved;
	o.sample_every = k->every;
	o.max_stacks = s->max_stacks;
	o.pid = f.pid;
	o.tgid = f.tgid;
	o.comm = f.comm[0] ? f.comm : NULL;
	o.cgroup = f.cgroup_path[0] ? f.cgroup_path : NULL;
	k->t = tpstacks_open(&o, cause);
	if (!k->t) {
		err = -errno;
		goto fail;
	}
	k->last_read = util_mono_s(); /* the rate is measured from attach on */
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	if (err == -ENOMEM)
		kind_set_cause(cause, "out of memory");
	tps_close((struct kind_probe *)k);
	return err;
}

static int tps_one(void *arg, const struct tpstacks_stack *st)
{
	struct kind_tps *k = arg;
	struct snap_key key;
	const char *const *fr = NULL;
	const char *frames[130];
	uint64_t *prev, d;
	int n, rc;

	memset(&key, 0, sizeof(key));
	key.stack_id = st->stack_id;
	key.tp = st->tp;
	key.tgid = st->tgid;
	memcpy(key.comm, st->comm, sizeof(key.comm));
	prev = kind_snap_get(k->snap, &key);
	if (!prev)
		return -ENOMEM;
	if (st->count <= prev[0] || st->tp >= k->ntps)
		return 0;
	d = st->count - prev[0];
	prev[0] = st->count;
	if (k->discard)
		return 0;
	k->cur_ips = st->ips;
	k->cur_nips = st->nips;
	n = st->nips ? kind_stacks_get(k->stacks, st->stack_id, k->ks, &fr) : 0;
	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (int i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = k->markers[st->tp];
	rc = profile_add(k->d->prof, k->w, frames, (unsigned)n, st->tgid, st->comm,
			 (uint64_t)llround(d * k->scale[st->tp]));
	return rc;
}

/* Reads the exact per-target totals; adds their growth to d (NULL: drop).
 * In automatic mode, then picks 1-in-N for what comes next from the rate
 * just seen: the rate at open may have been measured with the load paused
 * or not yet started, so it is never trusted for long.  Stacks read before
 * this call were recorded under the old N and scaled by it. */
static int tps_totals(struct kind_tps *k, struct step_data *d, unsigned w)
{
	for (unsigned i = 0; i < k->ntps; i++) {
		struct tpstacks_totals t;
		struct step_target_win *tw = d ? step_data_target(d, w, i) : NULL;
		uint64_t lost;
		int err = tpstacks_totals(k->t, i, &t);

		if (err)
			return err;
		lost = (t.count_map_full - k->prev[i].count_map_full) +
		       (t.stack_error - k->prev[i].stack_error);
		k->events += t.fired - k->prev[i].fired;
		/* stacks read next are scaled so that they sum to the exact
		 * firings, whatever N was in force while they were recorded */
		k->scale[i] = t.recorded > k->prev[i].recorded ?
			(double)(t.fired - k->prev[i].fired) / (t.recorded - k->prev[i].recorded) :
			k->every;
		k->lost += lost;
		if (tw) {
			tw->events += t.fired - k->prev[i].fired;
			tw->recorded += t.recorded - k->prev[i].recorded;
			d->lost += lost;
			d->prof->wins[w].lost += lost;
		}
		k->prev[i] = t;
	}
	return 0;
}

/* Automatic 1-in-N: raises N when the rate since the last retune needs it
 * (never lowers it: a reference window with the load paused must not undo
 * what the loaded one taught).  Called at every read and from stats, which
 * the executor's overhead guard calls four times a second. */
static void tps_retune(struct kind_tps *k)
{
	double now = util_mono_s();
	uint64_t fired = 0;
	unsigned n;

	if (!k->auto_every || now - k->last_read < KIND_RATE_PROBE_S)
		return;
	for (unsigned i = 0; i < k->ntps; i++) {
		struct tpstacks_totals t;

		if (tpstacks_totals(k->t, i, &t) == 0)
			fired += t.fired;
	}
	n = kind_tpstacks_auto_every((fired - k->retune_fired) / (now - k->last_read));
	if (n > k->every) {
		tpstacks_set_sample_every(k->t, n);
		k->every = n;
	}
	k->retune_fired = fired;
	k->last_read = now;
}

static int tps_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
		       const struct ksym_table *ks)
{
	struct kind_tps *k = (struct kind_tps *)kp;
	int err;

	if (w >= d->nwin || d->ntargets < k->ntps)
		return -EINVAL;
	k->d = d;
	k->w = w;
	k->ks = ks;
	k->discard = 0;
	err = tps_totals(k, d, w);
	if (!err)
		err = tpstacks_read(k->t, tps_one, k);
	k->d = NULL;
	tps_retune(k);
	return err;
}

static int tps_discard(struct kind_probe *kp)
{
	struct kind_tps *k = (struct kind_tps *)kp;
	int err;

	k->discard = 1;
	err = tps_totals(k, NULL, 0);
	if (!err)
		err = tpstacks_read(k->t, tps_one, k);
	k->discard = 0;
	tps_retune(k);
	return err;
}

static void tps_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_tps *k = (struct kind_tps *)kp;

	tps_retune(k);
	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->lost = k->lost;
	st->progs = k->ntps;
	tpstacks_runtime(k->t, &st->run_ns, &st->run_cnt);
}

unsigned kind_tpstacks_every(const struct kind_probe *kp)
{
	return ((const struct kind_tps *)kp)->every;
}

const struct kind_ops kind_tpstacks_ops = {
	.kind = STEP_TRACEPOINT_STACKS,
	.open = tps_open,
	.collect = tps_collect,
	.discard = tps_discard,
	.stats = tps_stats,
	.close = tps_close,
};
