/* kind_tplat — the tracepoint_latency kind over core/probe_tplat.c.
 *
 * One target (the begin/end pair, resolved[0] and resolved[1]): per window
 * the completed intervals (events = recorded), their summed durations and
 * log2 histogram.  Stacks at begin go to the profile root first with the
 * marker "[tp] <begin tracepoint>" at the leaf end, counted in completed
 * intervals (unit "intervals").  Pairs keyed by object (block_rq_*) are
 * chosen by probe_tplat_key_mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kind.h"
#include "kind_util.h"
#include "probe_tplat.h"

struct kind_tplat {
	struct probe_tplat *pt;
	char *marker;
	struct kind_snap *snap;     /* tplat_key -> count */
	struct kind_stacks *stacks;
	struct tplat_hist prev;
	uint64_t events, lost;
	int stats_fd;
	struct step_data *d;
	unsigned w;
	const struct ksym_table *ks;
	int discard;
};

static void tplat_close(struct kind_probe *kp)
{
	struct kind_tplat *k = (struct kind_tplat *)kp;

	if (!k)
		return;
	probe_tplat_close(k->pt);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	free(k->marker);
	kind_snap_free(k->snap);
	kind_stacks_free(k->stacks);
	free(k);
}

static int tplat_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_tplat *k = calloc(1, sizeof(*k));
	struct probe_tplat_opts o = { 0 };
	struct kind_filter f;
	int err = 0;

	if (!k) {
		kind_set_cause(cause, "out of memory");
		return -ENOMEM;
	}
	k->stats_fd = -1;
	if (s->kind != STEP_TRACEPOINT_LATENCY || s->nresolved < 2) {
		err = -EINVAL;
		kind_set_cause(cause, "not a validated tracepoint_latency step");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->snap = kind_snap_new(sizeof(struct tplat_key), 1);
	if (asprintf(&k->marker, "[tp] %s", s->resolved[0]) < 0)
		k->marker = NULL;
	if (!k->snap || !k->marker) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	o.begin = s->resolved[0];
	o.end = s->resolved[1];
	o.key_mode = -1;
	o.syscall_nr = -1;
	o.max_stacks = s->max_stacks;
	o.filter = &f;
	k->pt = probe_tplat_open(&o, cause);
	if (!k->pt) {
		err = -errno;
		goto fail;
	}
	k->stacks = kind_stacks_new(probe_tplat_stack, k->pt);
	if (!k->stacks) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	tplat_close((struct kind_probe *)k);
	return err;
}

static int tplat_one(void *arg, const struct tplat_key *key, const struct tplat_stack_val *v)
{
	struct kind_tplat *k = arg;
	const char *const *fr = NULL;
	const char *frames[130];
	char comm[TPLAT_COMM_LEN + 1];
	uint64_t *prev = kind_snap_get(k->snap, key), d;
	int n;

	if (!prev)
		return -ENOMEM;
	if (v->count <= prev[0])
		return 0;
	d = v->count - prev[0];
	prev[0] = v->count;
	if (k->discard)
		return 0;
	n = kind_stacks_get(k->stacks, key->stack_id, k->ks, &fr);
	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (int i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = k->marker;
	memcpy(comm, key->comm, TPLAT_COMM_LEN);
	comm[TPLAT_COMM_LEN] = 0;
	return profile_add(k->d->prof, k->w, frames, (unsigned)n, key->tgid, comm, d);
}

static int tplat_totals(struct kind_tplat *k, struct step_data *d, unsigned w)
{
	struct step_target_win *t = d ? step_data_target(d, w, 0) : NULL;
	struct tplat_hist h;
	uint64_t lost, ev;
	int err = probe_tplat_hist(k->pt, &h);

	if (err)
		return err;
	ev = h.count - k->prev.count;
	lost = (h.stack_map_full - k->prev.stack_map_full) + (h.stack_error - k->prev.stack_error);
	k->events += ev;
	k->lost += lost;
	if (t) {
		uint64_t prev_hist[TPLAT_BUCKETS];

		t->events += ev;
		t->recorded += ev;
		t->total_ns += h.total_ns - k->prev.total_ns;
		memcpy(prev_hist, k->prev.hist, sizeof(prev_hist));
		kind_delta_add(t->hist, (const uint64_t *)h.hist, prev_hist,
			       KIND_HIST_BUCKETS < TPLAT_BUCKETS ? KIND_HIST_BUCKETS : TPLAT_BUCKETS);
		d->lost += lost;
		d->prof->wins[w].lost += lost;
	}
	k->prev = h;
	return 0;
}

static int tplat_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			 const struct ksym_table *ks)
{
	struct kind_tplat *k = (struct kind_tplat *)kp;
	int err;

	if (w >= d->nwin)
		return -EINVAL;
	k->d = d;
	k->w = w;
	k->ks = ks;
	k->discard = 0;
	err = probe_tplat_read(k->pt, tplat_one, k);
	if (!err)
		err = tplat_totals(k, d, w);
	k->d = NULL;
	return err;
}

static int tplat_discard(struct kind_probe *kp)
{
	struct kind_tplat *k = (struct kind_tplat *)kp;
	int err;

	k->discard = 1;
	err = probe_tplat_read(k->pt, tplat_one, k);
	k->discard = 0;
	return err ? err : tplat_totals(k, NULL, 0);
}

static void tplat_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_tplat *k = (struct kind_tplat *)kp;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->lost = k->lost;
	st->progs = 2;
	probe_tplat_runtime(k->pt, &st->run_ns, &st->run_cnt);
}

const struct kind_ops kind_tplat_ops = {
	.kind = STEP_TRACEPOINT_LATENCY,
	.open = tplat_open,
	.collect = tplat_collect,
	.discard = tplat_discard,
	.stats = tplat_stats,
	.close = tplat_close,
};
