/* kind_funclat — the function_latency kind over core/probe_funclat.c:
 * fentry/fexit, else kprobe/kretprobe.  Per target function: completed
 * calls, summed durations, log2 histogram; entry stacks go to the profile
 * root first with the marker "[fn] NAME" at the leaf end, counted in calls
 * (unit "intervals").  Where the kernel allows neither mechanism, open
 * fails with both reasons and nothing stays loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kind.h"
#include "kind_util.h"
#include "probe_funclat.h"

struct kind_funclat {
	struct probe_funclat *pf;
	unsigned nfns;
	char **markers;
	struct kind_snap *snap;
	struct kind_stacks *stacks;
	struct funclat_hist *prev;
	uint64_t events, lost;
	int stats_fd;
	struct step_data *d;
	unsigned w;
	const struct ksym_table *ks;
	int discard;
};

static void funclat_close(struct kind_probe *kp)
{
	struct kind_funclat *k = (struct kind_funclat *)kp;

	if (!k)
		return;
	probe_funclat_close(k->pf);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	for (unsigned i = 0; k->markers && i < k->nfns; i++)
		free(k->markers[i]);
	free(k->markers);
	kind_snap_free(k->snap);
	kind_stacks_free(k->stacks);
	free(k->prev);
	free(k);
}

static int funclat_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_funclat *k = calloc(1, sizeof(*k));
	const char *const *fns = (const char *const *)(s->nresolved ? s->resolved : s->targets);
	unsigned n = s->nresolved ? s->nresolved : s->ntargets;
	struct kind_filter f;
	int err = 0;

	if (!k) {
		kind_set_cause(cause, "out of memory");
		return -ENOMEM;
	}
	k->stats_fd = -1;
	if (!n || n > FUNCLAT_MAX_FNS) {
		err = -EINVAL;
		kind_set_cause(cause, "function_latency takes 1 to %d functions, not %u",
			       FUNCLAT_MAX_FNS, n);
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->nfns = n;
	k->markers = calloc(n, sizeof(*k->markers));
	k->prev = calloc(n, sizeof(*k->prev));
	k->snap = kind_snap_new(sizeof(struct funclat_key), 1);
	if (!k->markers || !k->prev || !k->snap) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < n; i++)
		if (asprintf(&k->markers[i], "[fn] %s", fns[i]) < 0) {
			k->markers[i] = NULL;
			err = -ENOMEM;
			kind_set_cause(cause, "out of memory");
			goto fail;
		}
	k->pf = probe_funclat_open(fns, n, s->max_stacks, &f, cause);
	if (!k->pf) {
		err = -errno;
		goto fail;
	}
	k->stacks = kind_stacks_new(probe_funclat_stack, k->pf);
	if (!k->stacks) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	funclat_close((struct kind_probe *)k);
	return err;
}

static int funclat_one(void *arg, const struct funclat_key *key, const struct funclat_val *v)
{
	struct kind_funclat *k = arg;
	const char *const *fr = NULL;
	const char *frames[130];
	char comm[FUNCLAT_COMM_LEN + 1];
	uint64_t *prev = kind_snap_get(k->snap, key), d;
	int n;

	if (!prev)
		return -ENOMEM;
	if (v->count <= prev[0] || key->slot >= k->nfns)
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
	frames[n++] = k->markers[key->slot];
	memcpy(comm, key->comm, FUNCLAT_COMM_LEN);
	comm[FUNCLAT_COMM_LEN] = 0;
	return profile_add(k->d->prof, k->w, frames, (unsigned)n, key->tgid, comm, d);
}

static int funclat_totals(struct kind_funclat *k, struct step_data *d, unsigned w)
{
	for (unsigned i = 0; i < k->nfns; i++) {
		struct step_target_win *t = d ? step_data_target(d, w, i) : NULL;
		struct funclat_hist h, *p = &k->prev[i];
		uint64_t lost, ev;
		int err = probe_funclat_hist(k->pf, i, &h);

		if (err)
			return err;
		ev = h.count - p->count;
		lost = (h.map_full - p->map_full) + (h.stack_error - p->stack_error);
		k->events += ev;
		k->lost += lost;
		if (t) {
			uint64_t prev_hist[FUNCLAT_BUCKETS];

			t->events += ev;
			t->recorded += ev;
			t->total_ns += h.total_ns - p->total_ns;
			memcpy(prev_hist, p->hist, sizeof(prev_hist));
			kind_delta_add(t->hist, (const uint64_t *)h.hist, prev_hist, KIND_HIST_BUCKETS < FUNCLAT_BUCKETS
				       ? KIND_HIST_BUCKETS : FUNCLAT_BUCKETS);
			d->lost += lost;
			d->prof->wins[w].lost += lost;
		}
		*p = h;
	}
	return 0;
}

static int funclat_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			   const struct ksym_table *ks)
{
	struct kind_funclat *k = (struct kind_funclat *)kp;
	int err;

	if (w >= d->nwin || d->ntargets < k->nfns)
		return -EINVAL;
	k->d = d;
	k->w = w;
	k->ks = ks;
	k->discard = 0;
	err = probe_funclat_read(k->pf, funclat_one, k);
	if (!err)
		err = funclat_totals(k, d, w);
	k->d = NULL;
	return err;
}

static int funclat_discard(struct kind_probe *kp)
{
	struct kind_funclat *k = (struct kind_funclat *)kp;
	int err;

	k->discard = 1;
	err = probe_funclat_read(k->pf, funclat_one, k);
	k->discard = 0;
	return err ? err : funclat_totals(k, NULL, 0);
}

static void funclat_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_funclat *k = (struct kind_funclat *)kp;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->lost = k->lost;
	st->progs = 2 * k->nfns;
	probe_funclat_runtime(k->pf, &st->run_ns, &st->run_cnt);
}

const struct kind_ops kind_funclat_ops = {
	.kind = STEP_FUNCTION_LATENCY,
	.open = funclat_open,
	.collect = funclat_collect,
	.discard = funclat_discard,
	.stats = funclat_stats,
	.close = funclat_close,
};
