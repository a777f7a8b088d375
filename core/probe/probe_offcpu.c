/* probe_offcpu — loads, attaches and reads bpf/offcpu.bpf.c, and the
 * offcpu step kind over it (one user-side file per BPF program).
 *
 * The kind: profile stacks, counts in microseconds blocked (unit "us blocked"):
 *
 *   <blocked stack, root first> ; "[offcpu] woken by COMM (tgid N: cmdline)"
 *                               ; <waker's stack, LEAF first>
 *
 * The blocked kernel stack is what the executor matches against the tree;
 * the marker (first frame starting with '[') ends the kernel path, and the
 * frames after it are the waker's stack read from the wakeup outwards
 * (try_to_wake_up, __wake_up_common, ..., the waker's syscall entry), as in
 * offwaketime-style flame graphs.  When the wakeup ran in an interrupt the
 * waker is the interrupt and nothing follows the marker:
 * "[offcpu] woken by softirq BLOCK", "[offcpu] woken by hardirq 25",
 * "[offcpu] woken by hardirq timer" — the task the interrupt happened to
 * interrupt is not the waker and its stack is not part of the wait.
 * "[offcpu] no wakeup seen" when the block ended without a traced wakeup
 * (timeouts, or woken before attach).  The waker task is named from /proc
 * (comm, cmdline) while it is alive ("[offcpu] woken by writer (tgid 12,
 * writer: ./writer -n 3)"), else by the kernel's comm.  Target 0: blocked
 * intervals, blocked time, log2 histogram of blocked durations.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "probe/kind_ops.h"
#include "probe/kind_run.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "probe/probe_offcpu.h"
#include "data/step.h"
#include "base/util.h"
#include "probe/usym.h"
#include "offcpu.skel.h"

_Static_assert(sizeof(struct offcpu_key) == 60, "offcpu_key layout");
_Static_assert(sizeof(struct offcpu_start) == 40, "offcpu_start layout");

/* sched_switch, sched_waking, then the interrupt context's six */
#define OFFCPU_NPROGS 8

struct probe_offcpu {
	struct offcpu_bpf *skel;
	struct bpf_link *links[OFFCPU_NPROGS];
	struct bpf_program *progs[OFFCPU_NPROGS];
	int raw;
	int ncpus;
};

void probe_offcpu_close(struct probe_offcpu *po)
{
	if (!po)
		return;
	for (int i = 0; i < OFFCPU_NPROGS; i++)
		bpf_link__destroy(po->links[i]);
	offcpu_bpf__destroy(po->skel);
	free(po);
}

struct offcpu_load_arg {
	struct probe_offcpu *po;
	const struct probe_offcpu_opts *o;
};

static int offcpu_load(void *arg, int raw)
{
	struct probe_offcpu *po = ((struct offcpu_load_arg *)arg)->po;
	const struct probe_offcpu_opts *o = ((struct offcpu_load_arg *)arg)->o;
	const struct kind_filter *f = o->filter;
	unsigned stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	unsigned tasks = o->max_tasks ? o->max_tasks : 16384;
	struct offcpu_bpf *s = offcpu_bpf__open();
	struct bpf_program *tp[OFFCPU_NPROGS], *rt[OFFCPU_NPROGS];
	int err;

	if (!s)
		return -errno;
	tp[0] = s->progs.argus_offcpu_switch;        rt[0] = s->progs.argus_offcpu_switch_raw;
	tp[1] = s->progs.argus_offcpu_wakeup;        rt[1] = s->progs.argus_offcpu_wakeup_raw;
	tp[2] = s->progs.argus_offcpu_irq_entry;     rt[2] = s->progs.argus_offcpu_irq_entry_raw;
	tp[3] = s->progs.argus_offcpu_irq_exit;      rt[3] = s->progs.argus_offcpu_irq_exit_raw;
	tp[4] = s->progs.argus_offcpu_softirq_entry; rt[4] = s->progs.argus_offcpu_softirq_entry_raw;
	tp[5] = s->progs.argus_offcpu_softirq_exit;  rt[5] = s->progs.argus_offcpu_softirq_exit_raw;
	tp[6] = s->progs.argus_offcpu_hrtimer_entry; rt[6] = s->progs.argus_offcpu_hrtimer_entry_raw;
	tp[7] = s->progs.argus_offcpu_hrtimer_exit;  rt[7] = s->progs.argus_offcpu_hrtimer_exit_raw;
	s->rodata->min_ns = o->min_ns;
	KIND_FILTER_SET(s->rodata, f);
	bpf_map__set_max_entries(s->maps.start, tasks);
	bpf_map__set_max_entries(s->maps.wakers, tasks);
	bpf_map__set_max_entries(s->maps.stacks, stacks);
	bpf_map__set_max_entries(s->maps.ustacks, stacks);
	bpf_map__set_max_entries(s->maps.blocked, stacks * 4);
	for (int i = 0; i < OFFCPU_NPROGS; i++) {
		bpf_program__set_autoload(tp[i], !raw);
		bpf_program__set_autoload(rt[i], raw);
	}
	err = offcpu_bpf__load(s);
	if (err) {
		offcpu_bpf__destroy(s);
		return err;
	}
	po->skel = s;
	po->raw = raw;
	for (int i = 0; i < OFFCPU_NPROGS; i++)
		po->progs[i] = raw ? rt[i] : tp[i];
	return 0;
}

struct probe_offcpu *probe_offcpu_open(const struct probe_offcpu_opts *o, char **cause)
{
	struct probe_offcpu *po = calloc(1, sizeof(*po));
	int err = 0;

	if (!po) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	{
		struct offcpu_load_arg la = { po, o };

		po->ncpus = err = kind_load_flavour("offcpu", offcpu_load, &la, cause);
		if (err < 0)
			goto fail;
		err = 0;
	}
	/* the interrupt context first, so no wakeup is seen without it */
	for (int i = OFFCPU_NPROGS - 1; i >= 0; i--) {
		po->links[i] = bpf_program__attach(po->progs[i]);
		if (!po->links[i]) {
			err = -errno;
			util_cause(cause, "cannot attach %s: %s",
				   bpf_program__section_name(po->progs[i]), strerror(-err));
			goto fail;
		}
	}
	return po;
fail:
	probe_offcpu_close(po);
	errno = -err;
	return NULL;
}

const char *probe_offcpu_mechanism(const struct probe_offcpu *po)
{
	return po->raw ? "raw_tp" : "tp_btf";
}

int probe_offcpu_counters(struct probe_offcpu *po, struct offcpu_counters *out)
{
	struct offcpu_counters *v = calloc(po->ncpus, sizeof(*v));
	__u32 zero = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(po->skel->maps.counters), &zero, v)) {
		rc = -errno;
		goto out;
	}
	for (int c = 0; c < po->ncpus; c++) {
		out->blocked += v[c].blocked;
		out->intervals += v[c].intervals;
		out->total_ns += v[c].total_ns;
		out->woken += v[c].woken;
		out->stack_error += v[c].stack_error;
		out->map_full += v[c].map_full;
		out->ustack_error += v[c].ustack_error;
		for (int b = 0; b < OFFCPU_BUCKETS; b++)
			out->hist[b] += v[c].hist[b];
	}
out:
	free(v);
	return rc;
}

int probe_offcpu_read(struct probe_offcpu *po, probe_offcpu_cb cb, void *arg)
{
	int fd = bpf_map__fd(po->skel->maps.blocked), rc = 0;
	struct offcpu_key key, next, *prev = NULL;
	struct offcpu_val v;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		rc = cb(arg, &key, &v);
		if (rc)
			break;
	}
	return rc;
}

int probe_offcpu_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct probe_offcpu *po = arg;
	if (id == OFFCPU_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(po->skel->maps.stacks), id, OFFCPU_MAX_DEPTH, ips, max);
}

int probe_offcpu_ustack(struct probe_offcpu *po, uint32_t id, uint64_t *ips, unsigned max)
{
	if (id == OFFCPU_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(po->skel->maps.ustacks), id, OFFCPU_MAX_DEPTH, ips,
				  max);
}

void probe_offcpu_runtime(struct probe_offcpu *po, uint64_t *ns, uint64_t *cnt)
{
	for (int i = 0; i < OFFCPU_NPROGS; i++)
		kind_prog_runtime(bpf_program__fd(po->progs[i]), ns, cnt);
}

/* ---- the offcpu kind ----------------------------------------------------- */

struct name_key {
	uint32_t tgid;              /* the irq number for a hardirq */
	uint32_t kind;              /* OFFCPU_WAKER_TASK or _HARDIRQ */
	char comm[OFFCPU_COMM_LEN];
};

struct kind_offcpu {
	struct kind_run run;        /* first: the kind's ops are kind_run's; its
	                               snapshot: offcpu_key -> {count, ns reported} */
	struct probe_offcpu *po;
	struct usym *usym;          /* symbolizes the blocked tasks' user stacks */
	struct kind_snap *names;    /* tgid -> char * (waker names, cached) */
	struct offcpu_counters prev;
	char **owned;               /* name strings held by names */
	size_t nowned, owned_cap;
};

static void offcpu_close(struct kind_probe *kp)
{
	struct kind_offcpu *k = (struct kind_offcpu *)kp;

	if (!k)
		return;
	probe_offcpu_close(k->po);
	kind_run_fini(&k->run);
	kind_snap_free(k->names);
	usym_free(k->usym);
	for (size_t i = 0; i < k->nowned; i++)
		free(k->owned[i]);
	free(k->owned);
	free(k);
}

static int offcpu_pass(struct kind_run *r, struct step_data *d, unsigned w);

static void offcpu_runtime(struct kind_run *r, uint64_t *ns, uint64_t *cnt)
{
	probe_offcpu_runtime(((struct kind_offcpu *)r)->po, ns, cnt);
}

static int offcpu_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_offcpu *k = calloc(1, sizeof(*k));
	struct probe_offcpu_opts o = { 0 };
	struct kind_filter f;
	int err;

	if (!k)
		return util_fail(cause, -ENOMEM, "out of memory");
	err = kind_run_open(&k->run, s, offcpu_pass, offcpu_runtime, 2, sizeof(struct offcpu_key),
			    2, &f, cause);
	if (err)
		goto fail;
	k->names = kind_snap_new(sizeof(struct name_key), 1);
	k->usym = usym_new();
	if (!k->names || !k->usym) {
		err = util_fail(cause, -ENOMEM, "out of memory");
		goto fail;
	}
	o.max_stacks = s->max_stacks;
	o.filter = &f;
	k->po = probe_offcpu_open(&o, cause);
	if (!k->po) {
		err = -errno;
		goto fail;
	}
	err = kind_run_start(&k->run, probe_offcpu_stack, k->po, cause);
	if (err)
		goto fail;
	*out = (struct kind_probe *)k;
	return 0;
fail:
	offcpu_close((struct kind_probe *)k);
	return err;
}

static const char *offcpu_softirq_marker(uint32_t vec)
{
	static const char *const m[] = {
		"[offcpu] woken by softirq HI", "[offcpu] woken by softirq TIMER",
		"[offcpu] woken by softirq NET_TX", "[offcpu] woken by softirq NET_RX",
		"[offcpu] woken by softirq BLOCK", "[offcpu] woken by softirq IRQ_POLL",
		"[offcpu] woken by softirq TASKLET", "[offcpu] woken by softirq SCHED",
		"[offcpu] woken by softirq HRTIMER", "[offcpu] woken by softirq RCU",
	};

	return vec < sizeof(m) / sizeof(m[0]) ? m[vec] : "[offcpu] woken by a softirq";
}

/* The marker frame for the waker of key, or NULL on ENOMEM; cached per
 * {tgid, comm}: a process is named from /proc once, while it is alive. */
static const char *waker_marker(struct kind_offcpu *k, const struct offcpu_key *key)
{
	char comm[OFFCPU_COMM_LEN + 1], pname[160], *m = NULL;
	struct name_key nk;
	uint64_t *slot;
	int rc;

	if (key->waker_kind == OFFCPU_WAKER_SOFTIRQ)
		return offcpu_softirq_marker(key->waker_vec);
	if (key->waker_kind == OFFCPU_WAKER_HARDIRQ && key->waker_vec == OFFCPU_IRQ_TIMER)
		return "[offcpu] woken by hardirq timer";
	if (key->waker_kind == OFFCPU_WAKER_HARDIRQ && key->waker_vec == OFFCPU_IRQ_OTHER)
		return "[offcpu] woken by a hardirq";
	if (key->waker_kind == OFFCPU_WAKER_TASK && !key->waker_comm[0])
		return "[offcpu] no wakeup seen";
	memset(&nk, 0, sizeof(nk));
	nk.kind = key->waker_kind;
	nk.tgid = key->waker_kind == OFFCPU_WAKER_HARDIRQ ? key->waker_vec : key->waker_tgid;
	if (nk.kind != OFFCPU_WAKER_HARDIRQ)
		memcpy(nk.comm, key->waker_comm, OFFCPU_COMM_LEN);
	slot = kind_snap_get(k->names, &nk);
	if (!slot)
		return NULL;
	if (slot[0])
		return (const char *)(uintptr_t)slot[0];
	memcpy(comm, key->waker_comm, OFFCPU_COMM_LEN);
	comm[OFFCPU_COMM_LEN] = 0;
	if (nk.kind == OFFCPU_WAKER_HARDIRQ)
		rc = asprintf(&m, "[offcpu] woken by hardirq %u", key->waker_vec);
	else if (key->waker_tgid && kind_proc_name(key->waker_tgid, pname, sizeof(pname))[0])
		rc = asprintf(&m, "[offcpu] woken by %s (tgid %u, %s)", comm, key->waker_tgid, pname);
	else
		rc = asprintf(&m, "[offcpu] woken by %s (tgid %u)", comm, key->waker_tgid);
	if (rc < 0)
		return NULL;
	if (vec_grow(&k->owned, &k->owned_cap, k->nowned + 1, sizeof(*k->owned))) {
		free(m);
		return NULL;
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
	char comm[OFFCPU_COMM_LEN + 1], **unames = NULL;
	uint64_t *prev = kind_snap_get(k->run.snap, key), us, uips[OFFCPU_MAX_DEPTH];
	int n, nw, nu, i, rc;

	if (!prev)
		return -ENOMEM;
	if (v->total_ns < prev[1] + 1000)
		return 0;
	us = (v->total_ns - prev[1]) / 1000;
	prev[1] += us * 1000; /* the remainder carries to the next window */
	prev[0] = v->count;
	if (!k->run.d)
		return 0;
	marker = waker_marker(k, key);
	if (!marker)
		return -ENOMEM;
	n = kind_stacks_get(k->run.stacks, key->stack_id, k->run.ks, &fr);
	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = marker;
	nw = kind_stacks_get(k->run.stacks, key->waker_stack_id, k->run.ks, &fr);
	if (nw < 0)
		return nw;
	if (nw > 128)
		nw = 128;
	for (i = nw - 1; i >= 0; i--) /* leaf first after the marker */
		frames[n++] = fr[i];
	memcpy(comm, key->comm, OFFCPU_COMM_LEN);
	comm[OFFCPU_COMM_LEN] = 0;
	/* the blocked task's user stack (not the waker's: the call site is
	 * where the program waited); unreadable: the kernel stack alone */
	nu = probe_offcpu_ustack(k->po, key->ustack_id, uips, OFFCPU_MAX_DEPTH);
	if (nu > 0) {
		nu = usym_stack(k->usym, key->tgid, comm, uips, (unsigned)nu, &unames);
		if (nu < 0)
			return nu;
	} else {
		nu = 0;
	}
	rc = profile_add_user(k->run.d->prof, k->run.w, frames, (unsigned)n,
			      (const char *const *)unames, (unsigned)nu, key->tgid, comm, us);
	usym_names_free(unames, (unsigned)nu);
	return rc;
}

static int offcpu_pass(struct kind_run *r, struct step_data *d, unsigned w)
{
	struct kind_offcpu *k = (struct kind_offcpu *)r;
	struct offcpu_counters c;
	int err;

	/* processes gone before this pass have all their intervals in the map:
	 * symbolized with the mappings kept, which are forgotten after */
	usym_reap_mark(k->usym);
	err = probe_offcpu_read(k->po, offcpu_one, k);
	usym_reap(k->usym);
	if (!err && d)
		err = kind_usym_modules(k->usym, d->prof);
	if (!err)
		err = probe_offcpu_counters(k->po, &c);
	if (err)
		return err;
	kind_run_intervals(r, d, w, 0, c.intervals - k->prev.intervals,
			   (c.map_full - k->prev.map_full) + (c.stack_error - k->prev.stack_error),
			   c.total_ns - k->prev.total_ns, c.hist, k->prev.hist, OFFCPU_BUCKETS);
	/* intervals, not the profile's microseconds: an interval's length is
	 * not known apart from its stack (issue 27: said as events) */
	if (d && w < d->prof->nwin)
		d->prof->wins[w].ustack_errors += c.ustack_error - k->prev.ustack_error;
	k->prev = c;
	return 0;
}

const struct kind_ops kind_offcpu_ops = {
	.kind = STEP_OFFCPU,
	.open = offcpu_open,
	.collect = kind_run_collect,
	.discard = kind_run_discard,
	.stats = kind_run_stats,
	.close = offcpu_close,
};
