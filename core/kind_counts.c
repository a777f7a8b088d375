/* kind_counts — the counts kind over core/probe_counts.c: firings per
 * target tracepoint per window (events = recorded, exact), no stacks. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kind.h"
#include "kind_util.h"
#include "probe_counts.h"

struct kind_counts {
	struct probe_counts *pc;
	unsigned ntps;
	uint64_t *prev;
	uint64_t events;
	int stats_fd;
};

static void counts_close(struct kind_probe *kp)
{
	struct kind_counts *k = (struct kind_counts *)kp;

	if (!k)
		return;
	probe_counts_close(k->pc);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	free(k->prev);
	free(k);
}

static int counts_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_counts *k = calloc(1, sizeof(*k));
	struct kind_filter f;
	int err = 0;

	if (!k) {
		kind_set_cause(cause, "out of memory");
		return -ENOMEM;
	}
	k->stats_fd = -1;
	if (!s->nresolved) {
		err = -EINVAL;
		kind_set_cause(cause, "not a validated counts step");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->ntps = s->nresolved;
	k->prev = calloc(k->ntps, sizeof(*k->prev));
	if (!k->prev) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	k->pc = probe_counts_open((const char *const *)s->resolved, s->nresolved, &f, cause);
	if (!k->pc) {
		err = -errno;
		goto fail;
	}
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	counts_close((struct kind_probe *)k);
	return err;
}

static int counts_take(struct kind_counts *k, struct step_data *d, unsigned w)
{
	for (unsigned i = 0; i < k->ntps; i++) {
		struct step_target_win *t = d ? step_data_target(d, w, i) : NULL;
		uint64_t v, dv;
		int err = probe_counts_read(k->pc, i, &v, NULL);

		if (err)
			return err;
		dv = v > k->prev[i] ? v - k->prev[i] : 0;
		k->prev[i] = v;
		k->events += dv;
		if (t) {
			t->events += dv;
			t->recorded += dv;
		}
	}
	return 0;
}

static int counts_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			  const struct ksym_table *ks)
{
	struct kind_counts *k = (struct kind_counts *)kp;

	(void)ks;
	if (w >= d->nwin || d->ntargets < k->ntps)
		return -EINVAL;
	return counts_take(k, d, w);
}

static int counts_discard(struct kind_probe *kp)
{
	return counts_take((struct kind_counts *)kp, NULL, 0);
}

static void counts_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_counts *k = (struct kind_counts *)kp;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->progs = k->ntps;
	probe_counts_runtime(k->pc, &st->run_ns, &st->run_cnt);
}

const struct kind_ops kind_counts_ops = {
	.kind = STEP_COUNTS,
	.open = counts_open,
	.collect = counts_collect,
	.discard = counts_discard,
	.stats = counts_stats,
	.close = counts_close,
};
