/* probe_tplat — loads, attaches and reads bpf/tplat.bpf.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_tplat.h"
#include "step.h"
#include "tplat.skel.h"

_Static_assert(sizeof(struct tplat_start) == 32, "tplat_start layout");
_Static_assert(sizeof(struct tplat_key) == 24, "tplat_key layout");

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

int probe_tplat_key_mode(const char *begin, const char *end)
{
	for (size_t i = 0; i < sizeof(arg0_pairs) / sizeof(arg0_pairs[0]); i++)
		if (!strcmp(tp_name(begin), arg0_pairs[i].begin) &&
		    !strcmp(tp_name(end), arg0_pairs[i].end))
			return TPLAT_KEY_ARG0;
	return TPLAT_KEY_THREAD;
}

void probe_tplat_close(struct probe_tplat *pt)
{
	if (!pt)
		return;
	bpf_link__destroy(pt->lb);
	bpf_link__destroy(pt->le);
	tplat_bpf__destroy(pt->skel);
	free(pt);
}

struct probe_tplat *probe_tplat_open(const struct probe_tplat_opts *o, char **cause)
{
	const struct kind_filter *f = o->filter;
	unsigned stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	struct probe_tplat *pt = calloc(1, sizeof(*pt));
	int err = 0;

	if (!pt) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	if (!o->begin || !o->end) {
		err = -EINVAL;
		kind_set_cause(cause, "tracepoint_latency needs a begin and an end tracepoint");
		goto fail;
	}
	if (o->syscall_nr >= 0 && strcmp(tp_name(o->begin), "sys_enter")) {
		err = -EINVAL;
		kind_set_cause(cause, "a syscall number filter needs begin raw_syscalls:sys_enter, "
			       "not %s", o->begin);
		goto fail;
	}
	pt->ncpus = libbpf_num_possible_cpus();
	if (pt->ncpus <= 0) {
		err = pt->ncpus ? pt->ncpus : -EINVAL;
		kind_set_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	pt->skel = tplat_bpf__open();
	if (!pt->skel) {
		err = -errno;
		kind_set_cause(cause, "cannot open the tracepoint_latency BPF object: %s",
			       strerror(-err));
		goto fail;
	}
	pt->skel->rodata->key_mode = o->key_mode >= 0 ? (unsigned)o->key_mode
		: (unsigned)probe_tplat_key_mode(o->begin, o->end);
	pt->skel->rodata->filter_nr = o->syscall_nr;
	if (f) {
		pt->skel->rodata->filter_pid = f->pid;
		pt->skel->rodata->filter_tgid = f->tgid;
		pt->skel->rodata->filter_cgroup = f->cgroup_id;
		if (f->comm[0]) {
			pt->skel->rodata->filter_comm_on = 1;
			memcpy((char *)pt->skel->rodata->filter_comm, f->comm, sizeof(f->comm));
		}
	}
	bpf_map__set_max_entries(pt->skel->maps.inflight,
				 o->max_inflight ? o->max_inflight : PROBE_TPLAT_DEFAULT_INFLIGHT);
	bpf_map__set_max_entries(pt->skel->maps.stacks, stacks);
	bpf_map__set_max_entries(pt->skel->maps.bystack, stacks * 2);
	err = tplat_bpf__load(pt->skel);
	if (err) {
		kind_set_cause(cause, "cannot load the tracepoint_latency programs: %s%s",
			       strerror(-err), err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	pt->le = bpf_program__attach_raw_tracepoint(pt->skel->progs.argus_tplat_end,
						    tp_name(o->end));
	if (!pt->le) {
		err = -errno;
		kind_set_cause(cause, "cannot attach to end tracepoint %s: %s%s", o->end,
			       strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
		goto fail;
	}
	pt->lb = bpf_program__attach_raw_tracepoint(pt->skel->progs.argus_tplat_begin,
						    tp_name(o->begin));
	if (!pt->lb) {
		err = -errno;
		kind_set_cause(cause, "cannot attach to begin tracepoint %s: %s%s", o->begin,
			       strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
		goto fail;
	}
	return pt;
fail:
	probe_tplat_close(pt);
	errno = -err;
	return NULL;
}

int probe_tplat_hist(struct probe_tplat *pt, struct tplat_hist *out)
{
	struct tplat_hist *v = calloc(pt->ncpus, sizeof(*v));
	__u32 zero = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(pt->skel->maps.hist), &zero, v)) {
		rc = -errno;
		goto out;
	}
	for (int c = 0; c < pt->ncpus; c++) {
		out->count += v[c].count;
		out->total_ns += v[c].total_ns;
		out->begun += v[c].begun;
		out->filtered_out += v[c].filtered_out;
		out->unmatched += v[c].unmatched;
		out->stack_error += v[c].stack_error;
		out->stack_map_full += v[c].stack_map_full;
		for (int b = 0; b < TPLAT_BUCKETS; b++)
			out->hist[b] += v[c].hist[b];
	}
out:
	free(v);
	return rc;
}

int probe_tplat_read(struct probe_tplat *pt, probe_tplat_cb cb, void *arg)
{
	int fd = bpf_map__fd(pt->skel->maps.bystack), rc = 0;
	struct tplat_key key, next, *prev = NULL;
	struct tplat_stack_val v;

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

int probe_tplat_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct probe_tplat *pt = arg;
	if (id == TPLAT_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(pt->skel->maps.stacks), id, TPLAT_MAX_DEPTH, ips, max);
}

void probe_tplat_runtime(struct probe_tplat *pt, uint64_t *ns, uint64_t *cnt)
{
	kind_prog_runtime(bpf_program__fd(pt->skel->progs.argus_tplat_begin), ns, cnt);
	kind_prog_runtime(bpf_program__fd(pt->skel->progs.argus_tplat_end), ns, cnt);
}
