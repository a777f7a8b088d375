/* probe_tpstacks — loads, attaches and reads bpf/tpstacks.bpf.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "step.h"
#include "tpstacks.h"
#include "tpstacks.skel.h"
#include "../bpf/tpstacks.h"
#include "util.h"

_Static_assert(sizeof(struct tpstacks_key) == 28, "tpstacks_key layout");
_Static_assert(sizeof(struct tpstacks_counters) == 40, "tpstacks_counters layout");

struct tpstacks {
	struct tpstacks_bpf *skel;
	struct bpf_link *links[TPSTACKS_MAX_TPS];
	unsigned ntps;
	unsigned sample_every;
	int ncpus;
};

static struct bpf_program *tps_prog(struct tpstacks_bpf *skel, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "argus_tps_%u", i);
	return bpf_object__find_program_by_name(skel->obj, name);
}

void tpstacks_free(struct tpstacks *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < TPSTACKS_MAX_TPS; i++)
		bpf_link__destroy(t->links[i]);
	tpstacks_bpf__destroy(t->skel);
	free(t);
}

struct tpstacks *tpstacks_open(const struct tpstacks_opts *o, char **cause)
{
	struct tpstacks *t = NULL;
	struct bpf_program *p;
	unsigned max_stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	int err = 0;

	if (!o->ntps || o->ntps > TPSTACKS_MAX_TPS) {
		util_cause(cause, "tracepoint_stacks takes 1 to %d tracepoints, not %u",
			   TPSTACKS_MAX_TPS, o->ntps);
		err = -EINVAL;
		goto fail;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	t->ntps = o->ntps;
	t->sample_every = o->sample_every > 1 ? o->sample_every : 1;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		util_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	t->skel = tpstacks_bpf__open();
	if (!t->skel) {
		err = -errno;
		util_cause(cause, "cannot open the tracepoint_stacks BPF object: %s", strerror(-err));
		goto fail;
	}
	t->skel->data->sample_every = t->sample_every;
	t->skel->rodata->filter_pid = o->pid > 0 ? (unsigned)o->pid : 0;
	t->skel->rodata->filter_tgid = o->tgid > 0 ? (unsigned)o->tgid : 0;
	if (o->comm && *o->comm) {
		t->skel->rodata->filter_comm_on = 1;
		strncpy((char *)t->skel->rodata->filter_comm, o->comm, TPSTACKS_COMM_LEN - 1);
	}
	if (o->cgroup && *o->cgroup) {
		struct stat st;
		if (stat(o->cgroup, &st) < 0) {
			err = -errno;
			util_cause(cause, "cannot use cgroup %s: %s", o->cgroup, strerror(-err));
			goto fail;
		}
		t->skel->rodata->filter_cgroup = st.st_ino; /* the cgroup v2 id */
	}
	bpf_map__set_max_entries(t->skel->maps.stacks, max_stacks);
	bpf_map__set_max_entries(t->skel->maps.counts, max_stacks * 2);
	for (unsigned i = 0; i < TPSTACKS_MAX_TPS; i++)
		bpf_program__set_autoload(tps_prog(t->skel, i), i < o->ntps);
	err = tpstacks_bpf__load(t->skel);
	if (err) {
		util_cause(cause, "cannot load the tracepoint_stacks program: %s%s", strerror(-err),
			   err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	for (unsigned i = 0; i < o->ntps; i++) {
		const char *name = strchr(o->tracepoints[i], ':');

		name = name ? name + 1 : o->tracepoints[i];
		p = tps_prog(t->skel, i);
		t->links[i] = bpf_program__attach_raw_tracepoint(p, name);
		if (!t->links[i]) {
			err = -errno;
			util_cause(cause, "cannot attach to tracepoint %s: %s%s", o->tracepoints[i],
				   strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
			goto fail;
		}
	}
	return t;
fail:
	tpstacks_free(t);
	errno = -err;
	return NULL;
}

struct tpstacks *tpstacks_open_step(const struct step *s, char **cause)
{
	struct tpstacks_opts o = {
		.tracepoints = (const char *const *)s->resolved,
		.ntps = s->nresolved,
		.sample_every = s->sample_every,
		.max_stacks = s->max_stacks,
		.pid = s->filter.pid,
		.tgid = s->filter.tgid,
		.comm = s->filter.comm,
		.cgroup = s->filter.cgroup,
	};

	if (s->kind != STEP_TRACEPOINT_STACKS || !s->nresolved) {
		util_cause(cause, "not a validated tracepoint_stacks step");
		errno = EINVAL;
		return NULL;
	}
	return tpstacks_open(&o, cause);
}

unsigned tpstacks_sample_every(const struct tpstacks *t)
{
	return t->sample_every;
}

void tpstacks_set_sample_every(struct tpstacks *t, unsigned n)
{
	t->sample_every = n > 1 ? n : 1;
	/* .data is mapped into this process: the programs see it at once */
	t->skel->data->sample_every = t->sample_every;
}

int tpstacks_totals(struct tpstacks *t, unsigned tp, struct tpstacks_totals *out)
{
	struct tpstacks_counters *v;
	int fd = bpf_map__fd(t->skel->maps.counters), rc = 0;
	__u32 key = tp;

	memset(out, 0, sizeof(*out));
	if (tp >= t->ntps)
		return -EINVAL;
	v = calloc(t->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &key, v)) {
		rc = -errno;
		goto out;
	}
	for (int c = 0; c < t->ncpus; c++) {
		out->fired += v[c].fired;
		out->filtered_out += v[c].filtered_out;
		out->recorded += v[c].recorded;
		out->stack_error += v[c].stack_error;
		out->count_map_full += v[c].count_map_full;
	}
out:
	free(v);
	return rc;
}

int tpstacks_read(struct tpstacks *t, tpstacks_cb cb, void *arg)
{
	int cfd = bpf_map__fd(t->skel->maps.counts), sfd = bpf_map__fd(t->skel->maps.stacks);
	struct tpstacks_key key, next, *prev = NULL;
	uint64_t *ips = calloc(TPSTACKS_MAX_DEPTH, sizeof(*ips));
	int rc = 0;

	if (!ips)
		return -ENOMEM;
	while (!bpf_map_get_next_key(cfd, prev, &next)) {
		struct tpstacks_stack s = { .tp = next.tp, .tgid = next.tgid, .ips = ips,
					    .stack_id = next.stack_id };
		__u64 count;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(cfd, &key, &count))
			continue; /* deleted meanwhile */
		memcpy(s.comm, key.comm, sizeof(s.comm));
		s.comm[sizeof(s.comm) - 1] = 0;
		s.count = count;
		if (key.stack_id != TPSTACKS_NO_STACK &&
		    !bpf_map_lookup_elem(sfd, &key.stack_id, ips))
			while (s.nips < TPSTACKS_MAX_DEPTH && ips[s.nips])
				s.nips++;
		rc = cb(arg, &s);
		if (rc)
			break;
	}
	free(ips);
	return rc;
}

void tpstacks_runtime(struct tpstacks *t, uint64_t *ns, uint64_t *cnt)
{
	for (unsigned i = 0; i < t->ntps; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(tps_prog(t->skel, i)), &info, &len)) {
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
	}
}
