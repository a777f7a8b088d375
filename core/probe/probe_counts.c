/* probe_counts — bpf/counts.bpf.c: loads, attaches and reads it (see
 * probe_counts.h), and the counts step kind over it: firings per target
 * tracepoint per window (events = recorded, exact), no stacks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/kind.h"
#include "probe/kind_run.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "probe/probe_counts.h"
#include "base/util.h"
#include "counts.skel.h"
#include "../../bpf/counts.h"

_Static_assert(sizeof(struct counts_slot) == 16, "counts_slot layout");
_Static_assert(PROBE_COUNTS_MAX == COUNTS_MAX_TPS, "slot count");

struct probe_counts {
	struct counts_bpf *skel;
	struct bpf_link *links[COUNTS_MAX_TPS];
	struct bpf_program *progs[COUNTS_MAX_TPS];
	char *tps[COUNTS_MAX_TPS];  /* owned copies: attached again after a pause */
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
	kind_links_destroy(pc->links, COUNTS_MAX_TPS);
	for (unsigned i = 0; i < pc->ntps; i++)
		free(pc->tps[i]);
	counts_bpf__destroy(pc->skel);
	free(pc);
}

struct probe_counts *probe_counts_open(const char *const *tps, unsigned ntps,
				       const struct kind_filter *f, char **cause)
{
	struct probe_counts *pc = NULL;
	int err = 0;

	if (!ntps || ntps > COUNTS_MAX_TPS) {
		util_cause(cause, "counts takes 1 to %d tracepoints, not %u", COUNTS_MAX_TPS, ntps);
		err = -EINVAL;
		goto fail;
	}
	pc = calloc(1, sizeof(*pc));
	if (!pc) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	pc->ntps = ntps;
	pc->ncpus = libbpf_num_possible_cpus();
	if (pc->ncpus <= 0) {
		err = pc->ncpus ? pc->ncpus : -EINVAL;
		util_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	pc->skel = counts_bpf__open();
	if (!pc->skel) {
		err = -errno;
		util_cause(cause, "cannot open the counts BPF object: %s", strerror(-err));
		goto fail;
	}
	KIND_FILTER_SET(pc->skel->rodata, f);
	for (unsigned i = 0; i < COUNTS_MAX_TPS; i++)
		bpf_program__set_autoload(cnt_prog(pc->skel, i), i < ntps);
	err = counts_bpf__load(pc->skel);
	if (err) {
		util_cause(cause, "cannot load the counts program: %s%s", strerror(-err),
			   err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	for (unsigned i = 0; i < ntps; i++) {
		pc->progs[i] = cnt_prog(pc->skel, i);
		pc->tps[i] = strdup(tps[i]);
		if (!pc->tps[i]) {
			err = -ENOMEM;
			util_cause(cause, "out of memory");
			goto fail;
		}
	}
	err = kind_raw_tp_attach(pc->links, pc->progs, pc->tps, ntps, cause);
	if (err)
		goto fail;
	return pc;
fail:
	probe_counts_close(pc);
	errno = -err;
	return NULL;
}

void probe_counts_detach(struct probe_counts *pc)
{
	kind_links_destroy(pc->links, pc->ntps);
}

int probe_counts_attach(struct probe_counts *pc, char **cause)
{
	return kind_raw_tp_attach(pc->links, pc->progs, pc->tps, pc->ntps, cause);
}

int probe_counts_read(struct probe_counts *pc, unsigned i, uint64_t *fired,
		      uint64_t *filtered_out)
{
	struct counts_slot v;
	int rc;

	*fired = 0;
	if (filtered_out)
		*filtered_out = 0;
	if (i >= pc->ntps)
		return -EINVAL;
	rc = kind_percpu_sum(bpf_map__fd(pc->skel->maps.slots), i, pc->ncpus, &v, sizeof(v));
	if (rc)
		return rc;
	*fired = v.fired;
	if (filtered_out)
		*filtered_out = v.filtered_out;
	return 0;
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
		util_cause(cause, "cannot read the event counts: %s", strerror(-err));
	else
		*rate = (double)sum / dt;
	probe_counts_close(pc);
	return err;
}

/* ---- the counts kind (core/probe/kind.h): firings per target per window, no stacks ---- */

struct kind_counts {
	struct kind_run run;        /* first: the kind's ops are kind_run's */
	struct probe_counts *pc;
	unsigned ntps;
	uint64_t *prev;
};

static void counts_close(struct kind_probe *kp)
{
	struct kind_counts *k = (struct kind_counts *)kp;

	if (!k)
		return;
	probe_counts_close(k->pc);
	kind_run_fini(&k->run);
	free(k->prev);
	free(k);
}

static int counts_take(struct kind_run *r, struct step_data *d, unsigned w);

static void counts_runtime(struct kind_run *r, uint64_t *ns, uint64_t *cnt)
{
	probe_counts_runtime(((struct kind_counts *)r)->pc, ns, cnt);
}

static int counts_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_counts *k;
	struct kind_filter f;
	int err;

	if (!s->nresolved)
		return util_fail(cause, -EINVAL, "not a validated counts step");
	k = calloc(1, sizeof(*k));
	if (!k)
		return util_fail(cause, -ENOMEM, "out of memory");
	err = kind_run_open(&k->run, s, counts_take, counts_runtime, s->nresolved, 0, 0, &f, cause);
	if (err)
		goto fail;
	k->run.ntargets = s->nresolved;
	k->ntps = s->nresolved;
	k->prev = calloc(k->ntps, sizeof(*k->prev));
	if (!k->prev) {
		err = util_fail(cause, -ENOMEM, "out of memory");
		goto fail;
	}
	k->pc = probe_counts_open((const char *const *)s->resolved, s->nresolved, &f, cause);
	if (!k->pc) {
		err = -errno;
		goto fail;
	}
	err = kind_run_start(&k->run, NULL, NULL, cause);
	if (err)
		goto fail;
	*out = (struct kind_probe *)k;
	return 0;
fail:
	counts_close((struct kind_probe *)k);
	return err;
}

static int counts_take(struct kind_run *r, struct step_data *d, unsigned w)
{
	struct kind_counts *k = (struct kind_counts *)r;

	for (unsigned i = 0; i < k->ntps; i++) {
		struct step_target_win *t = d ? step_data_target(d, w, i) : NULL;
		uint64_t v, dv;
		int err = probe_counts_read(k->pc, i, &v, NULL);

		if (err)
			return err;
		dv = v > k->prev[i] ? v - k->prev[i] : 0;
		k->prev[i] = v;
		r->events += dv;
		if (t) {
			t->events += dv;
			t->recorded += dv;
		}
	}
	return 0;
}

static int counts_pause(struct kind_probe *kp)
{
	probe_counts_detach(((struct kind_counts *)kp)->pc);
	return 0;
}

static int counts_resume(struct kind_probe *kp)
{
	return probe_counts_attach(((struct kind_counts *)kp)->pc, NULL);
}

const struct kind_ops probe_counts_kind_ops = {
	.kind = STEP_COUNTS,
	.open = counts_open,
	.collect = kind_run_collect,
	.discard = kind_run_discard,
	.stats = kind_run_stats,
	.close = counts_close,
	.pause = counts_pause,
	.resume = counts_resume,
};
