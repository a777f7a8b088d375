/* kind_offcpu — the offcpu kind over core/probe_offcpu.c.
 *
 * Profile stacks, counts in microseconds blocked (unit "us blocked"):
 *
 *   <blocked stack, root first> ; "[offcpu] woken by COMM (tgid N: cmdline)"
 *                               ; <waker's stack, LEAF first>
 *
 * The blocked kernel stack is what the executor matches against the tree;
 * the marker (first frame starting with '[') ends the kernel path, and the
 * frames after it are the waker's stack read from the wakeup outwards
 * (try_to_wake_up, __wake_up_common, ..., the waker's syscall entry), as in
 * offwaketime-style flame graphs.  "[offcpu] no wakeup seen" when the block
 * ended without a traced wakeup (timeouts, or woken before attach).  The
 * waker is named from /proc (comm, cmdline) while it is alive ("[offcpu]
 * woken by writer (tgid 12, writer: ./writer -n 3)"), else by the kernel's
 * comm.  Target 0: blocked intervals, blocked time, log2
 * histogram of blocked durations.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kind.h"
#include "kind_util.h"
#include "probe_offcpu.h"

struct name_key {
	uint32_t tgid;
	char comm[OFFCPU_COMM_LEN];
};

struct kind_offcpu {
	struct probe_offcpu *po;
	struct kind_snap *snap;     /* offcpu_key -> {count, ns reported} */
	struct kind_snap *names;    /* tgid -> char * (waker names, cached) */
	struct kind_stacks *stacks;
	struct offcpu_counters prev;
	uint64_t events, lost;
	int stats_fd;
	char **owned;               /* name strings held by names */
	size_t nowned, owned_cap;
	struct step_data *d;
	unsigned w;
	const struct ksym_table *ks;
	int discard;
};

static void offcpu_close(struct kind_probe *kp)
{
	struct kind_offcpu *k = (struct kind_offcpu *)kp;

	if (!k)
		return;
	probe_offcpu_close(k->po);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	kind_snap_free(k->snap);
	kind_snap_free(k->names);
	kind_stacks_free(k->stacks);
	for (size_t i = 0; i < k->nowned; i++)
		free(k->owned[i]);
	free(k->owned);
	free(k);
}

static int offcpu_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_offcpu *k = calloc(1, sizeof(*k));
	struct probe_offcpu_opts o = { 0 };
	struct kind_filter f;
	int err = 0;

	if (!k) {
		kind_set_cause(cause, "out of memory");
		return -ENOMEM;
	}
	k->stats_fd = -1;
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->snap = kind_snap_new(sizeof(struct offcpu_key), 2);
	k->names = kind_snap_new(sizeof(struct name_key), 1);
	if (!k->snap || !k->names) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	o.max_stacks = s->max_stacks;
	o.filter = &f;
	k->po = probe_offcpu_open(&o, cause);
	if (!k->po) {
		err = -errno;
		goto fail;
	}
	k->stacks = kind_stacks_new(probe_offcpu_stack, k->po);
	if (!k->stacks) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	offcpu_close((struct kind_probe *)k);
	return err;
}

/* The marker frame for the waker of key, or NULL on ENOMEM; cached per
 * {tgid, comm}: a process is named from /proc once, while it is alive. */
static const char *waker_marker(struct kind_offcpu *k, const struct offcpu_key *key)
{
	char comm[OFFCPU_COMM_LEN + 1], pname[160], *m = NULL;
	struct name_key nk;
	uint64_t *slot;
	int rc;

	if (!key->waker_comm[0])
		return "[offcpu] no wakeup seen";
	memset(&nk, 0, sizeof(nk));
	nk.tgid = key->waker_tgid;
	memcpy(nk.comm, key->waker_comm, OFFCPU_COMM_LEN);
	slot = kind_snap_get(k->names, &nk);
	if (!slot)
		return NULL;
	if (slot[0])
		return (const char *)(uintptr_t)slot[0];
	memcpy(comm, key->waker_comm, OFFCPU_COMM_LEN);
	comm[OFFCPU_COMM_LEN] = 0;
	if (key->waker_tgid && kind_proc_name(key->waker_tgid, pname, sizeof(pname))[0])
		rc = asprintf(&m, "[offcpu] woken by %s (tgid %u, %s)", comm, key->waker_tgid, pname);
	else
		rc = asprintf(&m, "[offcpu] woken by %s (tgid %u)", comm, key->waker_tgid);
	if (rc < 0)
		return NULL;
	if (k->nowned == k->owned_cap) {
		size_t cap = k->owned_cap ? k->owned_cap * 2 : 64;
		char **n = realloc(k->owned, cap * sizeof(*n));
		if (!n) {
			free(m);
			return NULL;
		}
		k->owned = n;
		k->owned_cap = cap;
	}
	k->owned[k->nowned++] = m;
	slot[0] = (uint64_t)(uintptr_t)m;
	return m;
}

static int offcpu_one(void *arg, const struct offcpu_key *key, const struct offcpu_val *v)
{
	struct kind_offcpu *k = arg;
	const char *const *fr = NULL;
	const char *frames[260], *marker;
	char comm[OFFCPU_COMM_LEN + 1];
	uint64_t *prev = kind_snap_get(k->snap, key), us;
	int n, nw, i;

	if (!prev)
		return -ENOMEM;
	if (v->total_ns < prev[1] + 1000)
		return 0;
	us = (v->total_ns - prev[1]) / 1000;
	prev[1] += us * 1000; /* the remainder carries to the next window */
	prev[0] = v->count;
	if (k->discard)
		return 0;
	marker = waker_marker(k, key);
	if (!marker)
		return -ENOMEM;
	n = kind_stacks_get(k->stacks, key->stack_id, k->ks, &fr);
	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = marker;
	nw = kind_stacks_get(k->stacks, key->waker_stack_id, k->ks, &fr);
	if (nw < 0)
		return nw;
	if (nw > 128)
		nw = 128;
	for (i = nw - 1; i >= 0; i--) /* leaf first after the marker */
		frames[n++] = fr[i];
	memcpy(comm, key->comm, OFFCPU_COMM_LEN);
	comm[OFFCPU_COMM_LEN] = 0;
	return profile_add(k->d->prof, k->w, frames, (unsigned)n, key->tgid, comm, us);
}

static int offcpu_totals(struct kind_offcpu *k, struct step_data *d, unsigned w)
{
	struct step_target_win *t = d ? step_data_target(d, w, 0) : NULL;
	struct offcpu_counters c;
	uint64_t lost, ev;
	int err = probe_offcpu_counters(k->po, &c);

	if (err)
		return err;
	ev = c.intervals - k->prev.intervals;
	lost = (c.map_full - k->prev.map_full) + (c.stack_error - k->prev.stack_error);
	k->events += ev;
	k->lost += lost;
	if (t) {
		uint64_t prev_hist[OFFCPU_BUCKETS];

		t->events += ev;
		t->recorded += ev;
		t->total_ns += c.total_ns - k->prev.total_ns;
		memcpy(prev_hist, k->prev.hist, sizeof(prev_hist));
		kind_delta_add(t->hist, (const uint64_t *)c.hist, prev_hist,
			       KIND_HIST_BUCKETS < OFFCPU_BUCKETS ? KIND_HIST_BUCKETS : OFFCPU_BUCKETS);
		d->lost += lost;
		d->prof->wins[w].lost += lost;
	}
	k->prev = c;
	return 0;
}

static int offcpu_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			  const struct ksym_table *ks)
{
	struct kind_offcpu *k = (struct kind_offcpu *)kp;
	int err;

	if (w >= d->nwin)
		return -EINVAL;
	k->d = d;
	k->w = w;
	k->ks = ks;
	k->discard = 0;
	err = probe_offcpu_read(k->po, offcpu_one, k);
	if (!err)
		err = offcpu_totals(k, d, w);
	k->d = NULL;
	return err;
}

static int offcpu_discard(struct kind_probe *kp)
{
	struct kind_offcpu *k = (struct kind_offcpu *)kp;
	int err;

	k->discard = 1;
	err = probe_offcpu_read(k->po, offcpu_one, k);
	k->discard = 0;
	return err ? err : offcpu_totals(k, NULL, 0);
}

static void offcpu_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_offcpu *k = (struct kind_offcpu *)kp;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->lost = k->lost;
	st->progs = 2;
	probe_offcpu_runtime(k->po, &st->run_ns, &st->run_cnt);
}

const struct kind_ops kind_offcpu_ops = {
	.kind = STEP_OFFCPU,
	.open = offcpu_open,
	.collect = offcpu_collect,
	.discard = offcpu_discard,
	.stats = offcpu_stats,
	.close = offcpu_close,
};
