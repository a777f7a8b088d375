/* kind_run — the open/pass/stats shape every step kind's probe shares (see
 * kind_run.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "probe/kind_run.h"
#include "data/step_data.h"
#include "base/util.h"

int kind_run_open(struct kind_run *r, const struct step *s, kind_run_pass_fn pass,
		  kind_run_runtime_fn runtime, unsigned progs, size_t key_size, unsigned nv,
		  struct kind_filter *f, char **cause)
{
	int err;

	r->stats_fd = -1;
	r->pass = pass;
	r->runtime = runtime;
	r->progs = progs;
	err = kind_filter_resolve(&s->filter, f, cause);
	if (err)
		return err;
	if (key_size) {
		r->snap = kind_snap_new(key_size, nv);
		if (!r->snap)
			return util_fail(cause, -ENOMEM, "out of memory");
	}
	return 0;
}

int kind_run_start(struct kind_run *r, kind_stack_read_cb read, void *probe, char **cause)
{
	if (read) {
		r->stacks = kind_stacks_new(read, probe);
		if (!r->stacks)
			return util_fail(cause, -ENOMEM, "out of memory");
	}
	r->stats_fd = kind_stats_enable();
	return 0;
}

void kind_run_fini(struct kind_run *r)
{
	if (r->stats_fd >= 0)
		close(r->stats_fd);
	r->stats_fd = -1;
	kind_snap_free(r->snap);
	r->snap = NULL;
	kind_stacks_free(r->stacks);
	r->stacks = NULL;
}

int kind_run_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
		     const struct ksym_table *ks)
{
	struct kind_run *r = (struct kind_run *)kp;
	int err;

	if (w >= d->nwin || d->ntargets < r->ntargets)
		return -EINVAL;
	r->d = d;
	r->w = w;
	r->ks = ks;
	err = r->pass(r, d, w);
	r->d = NULL;
	return err;
}

int kind_run_discard(struct kind_probe *kp)
{
	struct kind_run *r = (struct kind_run *)kp;

	r->d = NULL;
	return r->pass(r, NULL, 0);
}

void kind_run_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_run *r = (struct kind_run *)kp;

	memset(st, 0, sizeof(*st));
	st->events = r->events;
	st->lost = r->lost;
	st->progs = r->progs;
	r->runtime(r, &st->run_ns, &st->run_cnt);
}

int kind_run_stack(struct kind_run *r, const void *key, uint64_t count, uint32_t stack_id,
		   const char *marker, uint32_t tgid, const char *comm, size_t comm_len)
{
	uint64_t *prev = kind_snap_get(r->snap, key), grew;

	if (!prev)
		return -ENOMEM;
	if (count <= prev[0])
		return 0;
	grew = count - prev[0];
	prev[0] = count;
	if (!r->d)
		return 0;
	return kind_stacks_add(r->stacks, r->ks, stack_id, marker, r->d->prof, r->w, tgid, comm,
			       comm_len, grew);
}

void kind_run_intervals(struct kind_run *r, struct step_data *d, unsigned w, unsigned i,
			uint64_t ev, uint64_t lost, uint64_t ns, const void *hist,
			const void *prev_hist, unsigned nb)
{
	struct step_target_win *t = d ? step_data_target(d, w, i) : NULL;

	r->events += ev;
	r->lost += lost;
	if (!t)
		return;
	t->events += ev;
	t->recorded += ev;
	t->total_ns += ns;
	/* memcpy: the probes' histograms hold __u64, not uint64_t (aliasing) */
	for (unsigned b = 0; b < nb && b < KIND_HIST_BUCKETS; b++) {
		uint64_t cur, prev;

		memcpy(&cur, (const unsigned char *)hist + b * sizeof(cur), sizeof(cur));
		memcpy(&prev, (const unsigned char *)prev_hist + b * sizeof(prev), sizeof(prev));
		if (cur > prev)
			t->hist[b] += cur - prev;
	}
	d->lost += lost;
	d->prof->wins[w].lost += lost;
}
