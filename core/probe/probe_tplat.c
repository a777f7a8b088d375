/* probe_tplat — latency between a begin and an end raw tracepoint
 * (bpf/tplat.bpf.c): count, total, log2 histogram, stacks at begin; and the
 * tracepoint_latency step kind over it.
 *
 * Intervals are keyed by thread, except for known pairs that concern an
 * object rather than a thread, keyed by the tracepoints' first argument
 * (probe_tplat_key_mode: block_rq_issue/insert -> block_rq_complete, whose
 * first argument is the struct request *).  Values are cumulative from
 * open.  Everything is owned by the struct's fds.
 *
 * The kind: one target (the begin/end pair, resolved[0] and resolved[1]):
 * per window the completed intervals (events = recorded), their summed
 * durations and log2 histogram.  Stacks at begin go to the profile root
 * first with the marker "[tp] <begin tracepoint>" at the leaf end, counted
 * in completed intervals (unit "intervals").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/kind.h"
#include "probe/kind_run.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "data/step.h"
#include "base/util.h"
#include "../../bpf/tplat.h"
#include "tplat.skel.h"

#define PROBE_TPLAT_DEFAULT_INFLIGHT 16384

struct probe_tplat_opts {
	const char *begin, *end;    /* "category:name" or "name" */
	int key_mode;               /* TPLAT_KEY_*, or -1: from the known-pairs table */
	long syscall_nr;            /* >= 0: only sys_enter with this number (begin
	                               must be raw_syscalls:sys_enter); -1 = any */
	unsigned max_stacks;        /* 0 = STEP_DEFAULT_MAX_STACKS */
	unsigned max_inflight;      /* 0 = PROBE_TPLAT_DEFAULT_INFLIGHT */
	const struct kind_filter *filter; /* NULL = none; applies at begin */
};

struct probe_tplat;

/* TPLAT_KEY_ARG0 for known object pairs (by tracepoint name, category
 * ignored), else TPLAT_KEY_THREAD. */
static int probe_tplat_key_mode(const char *begin, const char *end);

/* Loads and attaches.  NULL with errno set and *cause (caller frees). */
static struct probe_tplat *probe_tplat_open(const struct probe_tplat_opts *o, char **cause);
static void probe_tplat_close(struct probe_tplat *pt); /* NULL-safe */

/* The histogram and counters summed over CPUs.  0 or -errno. */
static int probe_tplat_hist(struct probe_tplat *pt, struct tplat_hist *out);

/* Calls cb per begin stack (a struct tplat_key, a struct tplat_stack_val);
 * stops when cb returns nonzero and returns it. */
static int probe_tplat_read(struct probe_tplat *pt, kind_map_cb cb, void *arg);
/* Reads stack id (leaf first); count or -errno (kind_stack_read_cb). */
static int probe_tplat_stack(void *pt, uint32_t id, uint64_t *ips, unsigned max);
static void probe_tplat_runtime(struct probe_tplat *pt, uint64_t *ns, uint64_t *cnt);

_Static_assert(sizeof(struct tplat_start) == 32, "tplat_start layout");
_Static_assert(sizeof(struct tplat_key) == 24, "tplat_key layout");
_Static_assert(sizeof(struct tplat_hist) % 8 == 0, "tplat_hist: 64-bit counters");

struct probe_tplat {
	struct tplat_bpf *skel;
	struct bpf_link *lb, *le;
	int ncpus;
};

/* Pairs whose first argument identifies the interval (not the thread). */
static const struct {
	const char *begin, *end;
} arg0_pairs[] = {
	{ "block_rq_issue", "block_rq_complete" },
	{ "block_rq_insert", "block_rq_complete" },
	{ "block_rq_insert", "block_rq_issue" },
	{ "block_rq_issue", "block_rq_requeue" },
};

static const char *tp_name(const char *tp)
{
	const char *c = strchr(tp, ':');

	return c ? c + 1 : tp;
}

static int probe_tplat_key_mode(const char *begin, const char *end)
{
	for (size_t i = 0; i < sizeof(arg0_pairs) / sizeof(arg0_pairs[0]); i++)
		if (!strcmp(tp_name(begin), arg0_pairs[i].begin) &&
		    !strcmp(tp_name(end), arg0_pairs[i].end))
			return TPLAT_KEY_ARG0;
	return TPLAT_KEY_THREAD;
}

static void probe_tplat_close(struct probe_tplat *pt)
{
	if (!pt)
		return;
	bpf_link__destroy(pt->lb);
	bpf_link__destroy(pt->le);
	tplat_bpf__destroy(pt->skel);
	free(pt);
}

static struct probe_tplat *probe_tplat_open(const struct probe_tplat_opts *o, char **cause)
{
	const struct kind_filter *f = o->filter;
	unsigned stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	struct probe_tplat *pt = calloc(1, sizeof(*pt));
	int err = 0;

	if (!pt) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	if (!o->begin || !o->end) {
		err = -EINVAL;
		util_cause(cause, "tracepoint_latency needs a begin and an end tracepoint");
		goto fail;
	}
	if (o->syscall_nr >= 0 && strcmp(tp_name(o->begin), "sys_enter")) {
		err = -EINVAL;
		util_cause(cause, "a syscall number filter needs begin raw_syscalls:sys_enter, "
			   "not %s", o->begin);
		goto fail;
	}
	pt->ncpus = libbpf_num_possible_cpus();
	if (pt->ncpus <= 0) {
		err = pt->ncpus ? pt->ncpus : -EINVAL;
		util_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	pt->skel = tplat_bpf__open();
	if (!pt->skel) {
		err = -errno;
		util_cause(cause, "cannot open the tracepoint_latency BPF object: %s",
			   strerror(-err));
		goto fail;
	}
	pt->skel->rodata->key_mode = o->key_mode >= 0 ? (unsigned)o->key_mode
		: (unsigned)probe_tplat_key_mode(o->begin, o->end);
	pt->skel->rodata->filter_nr = o->syscall_nr;
	KIND_FILTER_SET(pt->skel->rodata, f);
	bpf_map__set_max_entries(pt->skel->maps.inflight,
				 o->max_inflight ? o->max_inflight : PROBE_TPLAT_DEFAULT_INFLIGHT);
	bpf_map__set_max_entries(pt->skel->maps.stacks, stacks);
	bpf_map__set_max_entries(pt->skel->maps.bystack, stacks * 2);
	err = tplat_bpf__load(pt->skel);
	if (err) {
		util_cause(cause, "cannot load the tracepoint_latency programs: %s%s",
			   strerror(-err), err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	pt->le = bpf_program__attach_raw_tracepoint(pt->skel->progs.argus_tplat_end,
						    tp_name(o->end));
	if (!pt->le) {
		err = -errno;
		util_cause(cause, "cannot attach to end tracepoint %s: %s%s", o->end,
			   strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
		goto fail;
	}
	pt->lb = bpf_program__attach_raw_tracepoint(pt->skel->progs.argus_tplat_begin,
						    tp_name(o->begin));
	if (!pt->lb) {
		err = -errno;
		util_cause(cause, "cannot attach to begin tracepoint %s: %s%s", o->begin,
			   strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
		goto fail;
	}
	return pt;
fail:
	probe_tplat_close(pt);
	errno = -err;
	return NULL;
}

static int probe_tplat_hist(struct probe_tplat *pt, struct tplat_hist *out)
{
	return kind_percpu_sum(bpf_map__fd(pt->skel->maps.hist), 0, pt->ncpus, out, sizeof(*out));
}

static int probe_tplat_read(struct probe_tplat *pt, kind_map_cb cb, void *arg)
{
	return kind_map_walk(bpf_map__fd(pt->skel->maps.bystack), sizeof(struct tplat_key),
			     sizeof(struct tplat_stack_val), cb, arg);
}

static int probe_tplat_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct probe_tplat *pt = arg;
	if (id == TPLAT_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(pt->skel->maps.stacks), id, TPLAT_MAX_DEPTH, ips, max);
}

static void probe_tplat_runtime(struct probe_tplat *pt, uint64_t *ns, uint64_t *cnt)
{
	kind_prog_runtime(bpf_program__fd(pt->skel->progs.argus_tplat_begin), ns, cnt);
	kind_prog_runtime(bpf_program__fd(pt->skel->progs.argus_tplat_end), ns, cnt);
}

/* ---- the tracepoint_latency kind (core/probe/kind.h) ----------------------------- */

struct kind_tplat {
	struct kind_run run;        /* first: the kind's ops are kind_run's */
	struct probe_tplat *pt;
	char *marker;
	struct tplat_hist prev;
};

static void tplat_close(struct kind_probe *kp)
{
	struct kind_tplat *k = (struct kind_tplat *)kp;

	if (!k)
		return;
	probe_tplat_close(k->pt);
	kind_run_fini(&k->run);
	free(k->marker);
	free(k);
}

static int tplat_pass(struct kind_run *r, struct step_data *d, unsigned w);

static void tplat_runtime(struct kind_run *r, uint64_t *ns, uint64_t *cnt)
{
	probe_tplat_runtime(((struct kind_tplat *)r)->pt, ns, cnt);
}

static int tplat_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct probe_tplat_opts o = { 0 };
	struct kind_tplat *k;
	struct kind_filter f;
	int err;

	if (s->kind != STEP_TRACEPOINT_LATENCY || s->nresolved < 2)
		return util_fail(cause, -EINVAL, "not a validated tracepoint_latency step");
	k = calloc(1, sizeof(*k));
	if (!k)
		return util_fail(cause, -ENOMEM, "out of memory");
	err = kind_run_open(&k->run, s, tplat_pass, tplat_runtime, 2, sizeof(struct tplat_key), 1,
			    &f, cause);
	if (err)
		goto fail;
	if (asprintf(&k->marker, "[tp] %s", s->resolved[0]) < 0) {
		k->marker = NULL;
		err = util_fail(cause, -ENOMEM, "out of memory");
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
	err = kind_run_start(&k->run, probe_tplat_stack, k->pt, cause);
	if (err)
		goto fail;
	*out = (struct kind_probe *)k;
	return 0;
fail:
	tplat_close((struct kind_probe *)k);
	return err;
}

static int tplat_one(void *arg, const void *key_, const void *val)
{
	const struct tplat_key *key = key_;
	const struct tplat_stack_val *v = val;
	struct kind_tplat *k = arg;

	return kind_run_stack(&k->run, key, v->count, key->stack_id, k->marker, key->tgid,
			      key->comm, TPLAT_COMM_LEN);
}

static int tplat_pass(struct kind_run *r, struct step_data *d, unsigned w)
{
	struct kind_tplat *k = (struct kind_tplat *)r;
	struct tplat_hist h;
	int err = probe_tplat_read(k->pt, tplat_one, k);

	if (!err)
		err = probe_tplat_hist(k->pt, &h);
	if (err)
		return err;
	kind_run_intervals(r, d, w, 0, h.count - k->prev.count,
			   (h.stack_map_full - k->prev.stack_map_full) +
			   (h.stack_error - k->prev.stack_error),
			   h.total_ns - k->prev.total_ns, h.hist, k->prev.hist, TPLAT_BUCKETS);
	k->prev = h;
	return 0;
}

const struct kind_ops probe_tplat_kind_ops = {
	.kind = STEP_TRACEPOINT_LATENCY,
	.open = tplat_open,
	.collect = kind_run_collect,
	.discard = kind_run_discard,
	.stats = kind_run_stats,
	.close = tplat_close,
};
