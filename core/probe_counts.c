/* probe_counts — loads, attaches and reads bpf/counts.bpf.c. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probe.h"
#include "probe_counts.h"
#include "counts.skel.h"
#include "../bpf/counts.h"
#include "util.h"

_Static_assert(sizeof(struct counts_slot) == 16, "counts_slot layout");
_Static_assert(PROBE_COUNTS_MAX == COUNTS_MAX_TPS, "slot count");

struct probe_counts {
	struct counts_bpf *skel;
	struct bpf_link *links[COUNTS_MAX_TPS];
	unsigned ntps;
	int ncpus;
};

static struct bpf_program *cnt_prog(struct counts_bpf *skel, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "argus_cnt_%u", i);
	return bpf_object__find_program_by_name(skel->obj, name);
}

void probe_counts_close(struct probe_counts *pc)
{
	if (!pc)
		return;
	for (unsigned i = 0; i < COUNTS_MAX_TPS; i++)
		bpf_link__destroy(pc->links[i]);
	counts_bpf__destroy(pc->skel);
	free(pc);
}

struct probe_counts *probe_counts_open(const char *const *tps, unsigned ntps,
				       const struct kind_filter *f, char **cause)
{
	struct probe_counts *pc = NULL;
	int err = 0;

	if (!ntps || ntps > COUNTS_MAX_TPS) {
		kind_set_cause(cause, "counts takes 1 to %d tracepoints, not %u", COUNTS_MAX_TPS, ntps);
		err = -EINVAL;
		goto fail;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	pc->ntps = ntps;
	pc->ncpus = libbpf_num_possible_cpus();
	if (pc->ncpus <= 0) {
		err = pc->ncpus ? pc->ncpus : -EINVAL;
		kind_set_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	pc->skel = counts_bpf__open();
	if (!pc->skel) {
		err = -errno;
		kind_set_cause(cause, "cannot open the counts BPF object: %s", strerror(-err));
		goto fail;
	}
	if (f) {
		pc->skel->rodata->filter_pid = f->pid;
		pc->skel->rodata->filter_tgid = f->tgid;
		pc->skel->rodata->filter_cgroup = f->cgroup_id;
		if (f->comm[0]) {
			pc->skel->rodata->filter_comm_on = 1;
			memcpy((char *)pc->skel->rodata->filter_comm, f->comm, sizeof(f->comm));
		}
	}
	for (unsigned i = 0; i < COUNTS_MAX_TPS; i++)
		bpf_program__set_autoload(cnt_prog(pc->skel, i), i < ntps);
	err = counts_bpf__load(pc->skel);
	if (err) {
		kind_set_cause(cause, "cannot load the counts program: %s%s", strerror(-err),
			       err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	for (unsigned i = 0; i < ntps; i++) {
		const char *name = strchr(tps[i], ':');

		name = name ? name + 1 : tps[i];
		pc->links[i] = bpf_program__attach_raw_tracepoint(cnt_prog(pc->skel, i), name);
		if (!pc->links[i]) {
			err = -errno;
			kind_set_cause(cause, "cannot attach to tracepoint %s: %s%s", tps[i],
				       strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
			goto fail;
		}
	}
	return pc;
fail:
	probe_counts_close(pc);
	errno = -err;
	return NULL;
}

int probe_counts_read(struct probe_counts *pc, unsigned i, uint64_t *fired,
		      uint64_t *filtered_out)
{
	struct counts_slot *v;
	__u32 key = i;
	int rc = 0;

	*fired = 0;
	if (filtered_out)
		*filtered_out = 0;
	if (i >= pc->ntps)
		return -EINVAL;
	v = calloc(pc->ncpus, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(pc->skel->maps.slots), &key, v)) {
		rc = -errno;
		goto out;
	}
	for (int c = 0; c < pc->ncpus; c++) {
		*fired += v[c].fired;
		if (filtered_out)
			*filtered_out += v[c].filtered_out;
	}
out:
	free(v);
	return rc;
}

void probe_counts_runtime(struct probe_counts *pc, uint64_t *ns, uint64_t *cnt)
{
	for (unsigned i = 0; i < pc->ntps; i++)
		kind_prog_runtime(bpf_program__fd(cnt_prog(pc->skel, i)), ns, cnt);
}

int probe_counts_rate(const char *const *tps, unsigned ntps, const struct kind_filter *f,
		      double secs, double *rate, char **cause)
{
	struct probe_counts *pc = probe_counts_open(tps, ntps, f, cause);
	struct timespec d;
	uint64_t sum = 0, v;
	double t0, dt;
	int err = 0;

	*rate = 0;
	if (!pc)
		return -errno;
	t0 = util_mono_s();
	d.tv_sec = (time_t)secs;
	d.tv_nsec = (long)((secs - (double)d.tv_sec) * 1e9);
	while (nanosleep(&d, &d) && errno == EINTR)
		;
	for (unsigned i = 0; i < ntps && !err; i++) {
		err = probe_counts_read(pc, i, &v, NULL);
		sum += v;
	}
	dt = util_mono_s() - t0;
	if (err)
		kind_set_cause(cause, "cannot read the event counts: %s", strerror(-err));
	else
		*rate = (double)sum / dt;
	probe_counts_close(pc);
	return err;
}
