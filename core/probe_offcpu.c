/* probe_offcpu — loads, attaches and reads bpf/offcpu.bpf.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "probe_offcpu.h"
#include "step.h"
#include "offcpu.skel.h"

_Static_assert(sizeof(struct offcpu_key) == 48, "offcpu_key layout");
_Static_assert(sizeof(struct offcpu_start) == 32, "offcpu_start layout");

struct probe_offcpu {
	struct offcpu_bpf *skel;
	struct bpf_link *ls, *lw;
	struct bpf_program *ps, *pw;
	int raw;
	int ncpus;
};

void probe_offcpu_close(struct probe_offcpu *po)
{
	if (!po)
		return;
	bpf_link__destroy(po->ls);
	bpf_link__destroy(po->lw);
	offcpu_bpf__destroy(po->skel);
	free(po);
}

static int offcpu_load(struct probe_offcpu *po, const struct probe_offcpu_opts *o, int raw)
{
	const struct kind_filter *f = o->filter;
	unsigned stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	unsigned tasks = o->max_tasks ? o->max_tasks : 16384;
	struct offcpu_bpf *s = offcpu_bpf__open();
	int err;

	if (!s)
		return -errno;
	s->rodata->min_ns = o->min_ns;
	if (f) {
		s->rodata->filter_pid = f->pid;
		s->rodata->filter_tgid = f->tgid;
		s->rodata->filter_cgroup = f->cgroup_id;
		if (f->comm[0]) {
			s->rodata->filter_comm_on = 1;
			memcpy((char *)s->rodata->filter_comm, f->comm, sizeof(f->comm));
		}
	}
	bpf_map__set_max_entries(s->maps.start, tasks);
	bpf_map__set_max_entries(s->maps.wakers, tasks);
	bpf_map__set_max_entries(s->maps.stacks, stacks);
	bpf_map__set_max_entries(s->maps.blocked, stacks * 4);
	bpf_program__set_autoload(s->progs.argus_offcpu_switch, !raw);
	bpf_program__set_autoload(s->progs.argus_offcpu_wakeup, !raw);
	bpf_program__set_autoload(s->progs.argus_offcpu_switch_raw, raw);
	bpf_program__set_autoload(s->progs.argus_offcpu_wakeup_raw, raw);
	err = offcpu_bpf__load(s);
	if (err) {
		offcpu_bpf__destroy(s);
		return err;
	}
	po->skel = s;
	po->raw = raw;
	po->ps = raw ? s->progs.argus_offcpu_switch_raw : s->progs.argus_offcpu_switch;
	po->pw = raw ? s->progs.argus_offcpu_wakeup_raw : s->progs.argus_offcpu_wakeup;
	return 0;
}

struct probe_offcpu *probe_offcpu_open(const struct probe_offcpu_opts *o, char **cause)
{
	struct probe_offcpu *po = calloc(1, sizeof(*po));
	int err = 0;

	if (!po) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	po->ncpus = libbpf_num_possible_cpus();
	if (po->ncpus <= 0) {
		err = po->ncpus ? po->ncpus : -EINVAL;
		kind_set_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	err = offcpu_load(po, o, 0);
	if (err) {
		probe_log(PROBE_LOG_INFO, "offcpu: tp_btf refused (%s), trying raw_tp\n",
			  strerror(-err));
		err = offcpu_load(po, o, 1);
	}
	if (err) {
		kind_set_cause(cause, "cannot load the offcpu programs: %s%s", strerror(-err),
			       err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	po->ls = bpf_program__attach(po->ps);
	if (!po->ls) {
		err = -errno;
		kind_set_cause(cause, "cannot attach to sched_switch: %s", strerror(-err));
		goto fail;
	}
	po->lw = bpf_program__attach(po->pw);
	if (!po->lw) {
		err = -errno;
		kind_set_cause(cause, "cannot attach to sched_waking: %s", strerror(-err));
		goto fail;
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

void probe_offcpu_runtime(struct probe_offcpu *po, uint64_t *ns, uint64_t *cnt)
{
	kind_prog_runtime(bpf_program__fd(po->ps), ns, cnt);
	kind_prog_runtime(bpf_program__fd(po->pw), ns, cnt);
}
