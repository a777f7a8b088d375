/* probe_funclat — bpf/funclat.bpf.c: loads, attaches (fentry/fexit, else
 * kprobe/kretprobe) and reads it (see probe_funclat.h); and the
 * function_latency step kind over it.  Per target function: completed
 * calls, summed durations, log2 histogram; entry stacks go to the profile
 * root first with the marker "[fn] NAME" at the leaf end, counted in calls
 * (unit "intervals").  Where the kernel allows neither mechanism, open
 * fails with both reasons and nothing stays loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/kind.h"
#include "probe/kind_run.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "probe/probe_funclat.h"
#include "data/step.h"
#include "base/util.h"
#include "funclat.skel.h"

_Static_assert(sizeof(struct funclat_ikey) == 16, "funclat_ikey layout");
_Static_assert(sizeof(struct funclat_key) == 28, "funclat_key layout");
_Static_assert(sizeof(struct funclat_hist) % 8 == 0, "funclat_hist: 64-bit counters");

enum { FL_FENTRY, FL_KPROBE };

struct probe_funclat {
	struct funclat_bpf *skel;
	struct bpf_link *links[2 * FUNCLAT_MAX_FNS];
	unsigned nfns;
	int mech;
	int ncpus;
};

static struct bpf_program *fl_prog(struct funclat_bpf *s, const char *kind, unsigned i)
{
	char name[48];

	snprintf(name, sizeof(name), "argus_fl_%s_%u", kind, i);
	return bpf_object__find_program_by_name(s->obj, name);
}

static void fl_unload(struct probe_funclat *pf)
{
	for (unsigned i = 0; i < 2 * FUNCLAT_MAX_FNS; i++) {
		bpf_link__destroy(pf->links[i]);
		pf->links[i] = NULL;
	}
	funclat_bpf__destroy(pf->skel);
	pf->skel = NULL;
}

void probe_funclat_close(struct probe_funclat *pf)
{
	if (!pf)
		return;
	fl_unload(pf);
	free(pf);
}

static int quiet_print(enum libbpf_print_level l, const char *fmt, va_list ap)
{
	(void)l; (void)fmt; (void)ap;
	return 0;
}

/* Loads and attaches one family; on failure unloads it and says which step
 * failed in why. */
static int fl_try(struct probe_funclat *pf, int mech, const char *const *fns, unsigned max_stacks,
		  const struct kind_filter *f, char *why, size_t wlen)
{
	const char *ent = mech == FL_FENTRY ? "fentry" : "kprobe";
	const char *ret = mech == FL_FENTRY ? "fexit" : "kretprobe";
	libbpf_print_fn_t old;
	struct funclat_bpf *s;
	int err = 0;

	s = funclat_bpf__open();
	if (!s) {
		err = -errno;
		snprintf(why, wlen, "cannot open the BPF object (%s)", strerror(-err));
		return err;
	}
	pf->skel = s;
	KIND_FILTER_SET(s->rodata, f);
	bpf_map__set_max_entries(s->maps.inflight, 16384);
	bpf_map__set_max_entries(s->maps.stacks, max_stacks);
	bpf_map__set_max_entries(s->maps.bystack, max_stacks * 2);
	for (unsigned i = 0; i < FUNCLAT_MAX_FNS; i++) {
		int on = i < pf->nfns;

		bpf_program__set_autoload(fl_prog(s, "fentry", i), on && mech == FL_FENTRY);
		bpf_program__set_autoload(fl_prog(s, "fexit", i), on && mech == FL_FENTRY);
		bpf_program__set_autoload(fl_prog(s, "kprobe", i), on && mech == FL_KPROBE);
		bpf_program__set_autoload(fl_prog(s, "kretprobe", i), on && mech == FL_KPROBE);
		if (on && mech == FL_FENTRY) {
			err = bpf_program__set_attach_target(fl_prog(s, "fentry", i), 0, fns[i]);
			if (!err)
				err = bpf_program__set_attach_target(fl_prog(s, "fexit", i), 0, fns[i]);
			if (err) {
				snprintf(why, wlen, "%s: no BTF for %s (%s)", ent, fns[i], strerror(-err));
				goto fail;
			}
		}
	}
	old = libbpf_set_print(quiet_print);
	err = funclat_bpf__load(s);
	libbpf_set_print(old);
	if (err) {
		snprintf(why, wlen, "%s refused by the kernel (%s)", ent,
			 err == -EPERM ? "EPERM" : strerror(-err));
		goto fail;
	}
	for (unsigned i = 0; i < pf->nfns; i++) {
		struct bpf_link *le, *lr;

		old = libbpf_set_print(quiet_print);
		if (mech == FL_FENTRY) {
			le = bpf_program__attach(fl_prog(s, "fentry", i));
			err = le ? 0 : -errno;
			lr = le ? bpf_program__attach(fl_prog(s, "fexit", i)) : NULL;
		} else {
			le = bpf_program__attach_kprobe(fl_prog(s, "kprobe", i), false, fns[i]);
			err = le ? 0 : -errno;
			lr = le ? bpf_program__attach_kprobe(fl_prog(s, "kretprobe", i), true, fns[i])
				: NULL;
		}
		if (le && !lr)
			err = -errno;
		libbpf_set_print(old);
		pf->links[2 * i] = le;
		pf->links[2 * i + 1] = lr;
		if (err) {
			struct stat st;

			if (mech == FL_KPROBE &&
			    stat("/sys/bus/event_source/devices/kprobe/type", &st) < 0)
				snprintf(why, wlen, "no kprobes (no kprobe PMU, attach: %s)",
					 strerror(-err));
			else
				snprintf(why, wlen, "%s/%s on %s refused by the kernel (%s)", ent, ret,
					 fns[i], strerror(-err));
			goto fail;
		}
	}
	pf->mech = mech;
	return 0;
fail:
	fl_unload(pf);
	return err ? err : -EINVAL;
}

struct probe_funclat *probe_funclat_open(const char *const *fns, unsigned nfns,
					 unsigned max_stacks, const struct kind_filter *f,
					 char **cause)
{
	struct probe_funclat *pf = calloc(1, sizeof(*pf));
	char why_f[200] = "", why_k[200] = "";
	int err = 0, err_k;

	if (!pf) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	if (!nfns || nfns > FUNCLAT_MAX_FNS) {
		err = -EINVAL;
		util_cause(cause, "function_latency takes 1 to %d functions, not %u",
			   FUNCLAT_MAX_FNS, nfns);
		goto fail;
	}
	pf->nfns = nfns;
	pf->ncpus = libbpf_num_possible_cpus();
	if (pf->ncpus <= 0) {
		err = pf->ncpus ? pf->ncpus : -EINVAL;
		util_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	probe_bump_memlock();
	if (!max_stacks)
		max_stacks = STEP_DEFAULT_MAX_STACKS;
	err = fl_try(pf, FL_FENTRY, fns, max_stacks, f, why_f, sizeof(why_f));
	if (!err)
		return pf;
	err_k = fl_try(pf, FL_KPROBE, fns, max_stacks, f, why_k, sizeof(why_k));
	if (!err_k)
		return pf;
	util_cause(cause, "cannot trace %s%s: %s; %s; this kernel offers no function "
		   "latency, use tracepoint_latency on a tracepoint pair instead", fns[0],
		   nfns > 1 ? " and others" : "", why_f, why_k);
fail:
	probe_funclat_close(pf);
	errno = -err;
	return NULL;
}

const char *probe_funclat_mechanism(const struct probe_funclat *pf)
{
	return pf->mech == FL_FENTRY ? "fentry" : "kprobe";
}

int probe_funclat_hist(struct probe_funclat *pf, unsigned slot, struct funclat_hist *out)
{
	return kind_percpu_sum(bpf_map__fd(pf->skel->maps.hist), slot, pf->ncpus, out, sizeof(*out));
}

int probe_funclat_read(struct probe_funclat *pf, kind_map_cb cb, void *arg)
{
	return kind_map_walk(bpf_map__fd(pf->skel->maps.bystack), sizeof(struct funclat_key),
			     sizeof(struct funclat_val), cb, arg);
}

int probe_funclat_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct probe_funclat *pf = arg;
	if (id == FUNCLAT_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(pf->skel->maps.stacks), id, FUNCLAT_MAX_DEPTH, ips, max);
}

void probe_funclat_runtime(struct probe_funclat *pf, uint64_t *ns, uint64_t *cnt)
{
	const char *ent = pf->mech == FL_FENTRY ? "fentry" : "kprobe";
	const char *ret = pf->mech == FL_FENTRY ? "fexit" : "kretprobe";

	for (unsigned i = 0; i < pf->nfns; i++) {
		kind_prog_runtime(bpf_program__fd(fl_prog(pf->skel, ent, i)), ns, cnt);
		kind_prog_runtime(bpf_program__fd(fl_prog(pf->skel, ret, i)), ns, cnt);
	}
}

char *probe_funclat_programs(void)
{
	struct funclat_bpf *s = funclat_bpf__open();
	struct bpf_program *p;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	if (!s)
		return NULL;
	out = open_memstream(&buf, &len);
	if (!out) {
		funclat_bpf__destroy(s);
		return NULL;
	}
	bpf_object__for_each_program(p, s->obj) {
		const char *t = libbpf_bpf_prog_type_str(bpf_program__type(p));
		const char *a = libbpf_bpf_attach_type_str(bpf_program__expected_attach_type(p));

		fprintf(out, "%s %s %s\n", bpf_program__name(p), t ? t : "?", a ? a : "?");
	}
	fclose(out);
	funclat_bpf__destroy(s);
	return buf;
}

/* ---- the function_latency kind (core/probe/kind.h) ------------------------------- */

struct kind_funclat {
	struct kind_run run;        /* first: the kind's ops are kind_run's */
	struct probe_funclat *pf;
	unsigned nfns;
	char **markers;
	struct funclat_hist *prev;
};

static void funclat_close(struct kind_probe *kp)
{
	struct kind_funclat *k = (struct kind_funclat *)kp;

	if (!k)
		return;
	probe_funclat_close(k->pf);
	kind_run_fini(&k->run);
	for (unsigned i = 0; k->markers && i < k->nfns; i++)
		free(k->markers[i]);
	free(k->markers);
	free(k->prev);
	free(k);
}

static int funclat_pass(struct kind_run *r, struct step_data *d, unsigned w);

static void funclat_runtime(struct kind_run *r, uint64_t *ns, uint64_t *cnt)
{
	probe_funclat_runtime(((struct kind_funclat *)r)->pf, ns, cnt);
}

static int funclat_open(const struct step *s, struct kind_probe **out, char **cause)
{
	const char *const *fns = (const char *const *)(s->nresolved ? s->resolved : s->targets);
	unsigned n = s->nresolved ? s->nresolved : s->ntargets;
	struct kind_funclat *k;
	struct kind_filter f;
	int err;

	if (!n || n > FUNCLAT_MAX_FNS)
		return util_fail(cause, -EINVAL, "function_latency takes 1 to %d functions, not %u",
				 FUNCLAT_MAX_FNS, n);
	k = calloc(1, sizeof(*k));
	if (!k)
		return util_fail(cause, -ENOMEM, "out of memory");
	err = kind_run_open(&k->run, s, funclat_pass, funclat_runtime, 2 * n,
			    sizeof(struct funclat_key), 1, &f, cause);
	if (err)
		goto fail;
	k->run.ntargets = n;
	k->nfns = n;
	k->markers = calloc(n, sizeof(*k->markers));
	k->prev = calloc(n, sizeof(*k->prev));
	if (!k->markers || !k->prev) {
		err = util_fail(cause, -ENOMEM, "out of memory");
		goto fail;
	}
	for (unsigned i = 0; i < n; i++)
		if (asprintf(&k->markers[i], "[fn] %s", fns[i]) < 0) {
			k->markers[i] = NULL;
			err = util_fail(cause, -ENOMEM, "out of memory");
			goto fail;
		}
	k->pf = probe_funclat_open(fns, n, s->max_stacks, &f, cause);
	if (!k->pf) {
		err = -errno;
		goto fail;
	}
	err = kind_run_start(&k->run, probe_funclat_stack, k->pf, cause);
	if (err)
		goto fail;
	*out = (struct kind_probe *)k;
	return 0;
fail:
	funclat_close((struct kind_probe *)k);
	return err;
}

static int funclat_one(void *arg, const void *key_, const void *val)
{
	const struct funclat_key *key = key_;
	const struct funclat_val *v = val;
	struct kind_funclat *k = arg;

	if (key->slot >= k->nfns)
		return 0;
	return kind_run_stack(&k->run, key, v->count, key->stack_id, k->markers[key->slot],
			      key->tgid, key->comm, FUNCLAT_COMM_LEN);
}

static int funclat_pass(struct kind_run *r, struct step_data *d, unsigned w)
{
	struct kind_funclat *k = (struct kind_funclat *)r;
	int err = probe_funclat_read(k->pf, funclat_one, k);

	for (unsigned i = 0; !err && i < k->nfns; i++) {
		struct funclat_hist h, *p = &k->prev[i];

		err = probe_funclat_hist(k->pf, i, &h);
		if (err)
			break;
		kind_run_intervals(r, d, w, i, h.count - p->count,
				   (h.map_full - p->map_full) + (h.stack_error - p->stack_error),
				   h.total_ns - p->total_ns, h.hist, p->hist, FUNCLAT_BUCKETS);
		*p = h;
	}
	return err;
}

const struct kind_ops probe_funclat_kind_ops = {
	.kind = STEP_FUNCTION_LATENCY,
	.open = funclat_open,
	.collect = kind_run_collect,
	.discard = kind_run_discard,
	.stats = kind_run_stats,
	.close = funclat_close,
};
