/* probe_profile — loads bpf/profile.bpf.c, attaches it to cpu-clock on every
 * online CPU, and turns its maps into profile counts.
 *
 * The sample step kind over it: cpu-clock at the step's freq_hz, kernel
 * stacks, counts = samples.
 *
 * The sampler filters by process (a tgid set in the kernel, children
 * followed), so the step filter is turned into that set at open: every
 * process of /proc whose threads match pid / tgid / comm / cgroup joins,
 * with its later children.  A pid filter thus samples the whole process of
 * that thread, and a comm or cgroup filter does not catch processes that
 * take that name or enter that cgroup later without being forked by one
 * already in the set.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/vec.h"
#include "probe/kind_ops.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "probe/probe_profile.h"
#include "probe/usym.h"
#include "base/hash.h"
#include "base/util.h"
#include "profile.skel.h"
#include "../../bpf/profile.h" /* not core/data/profile.h */

_Static_assert(sizeof(struct profile_key) == 28, "profile_key layout");
_Static_assert(sizeof(struct profile_counters) % 8 == 0, "per-CPU value size");

/* Last value seen per counts-map key (counts only grow). */
struct snap_ent {
	struct profile_key key;
	uint64_t count;
	int used;
	char **unames;          /* the user stack symbolized, root first; owned */
	int nunames;            /* 0: not yet (or none) */
	uint64_t grew;          /* pp->ncollect when its count last grew */
};

/* Symbolized stack, root first; state 0 = not looked up, 1 = ok, -1 = not
 * in the map at the last look. */
struct stack_ent {
	char **names;
	uint32_t n;
	int state;
};

struct probe_profile {
	struct profile_bpf *skel;
	struct bpf_link **links;       /* one per attached CPU */
	unsigned nlinks;
	struct bpf_link *fork_link;
	unsigned freq, cpus_failed;
	int filter;
	int ncpu_possible;
	double t_attach;
	struct snap_ent *snap;
	size_t snap_cap, snap_n;
	struct stack_ent *stk;         /* indexed by stack id */
	size_t stk_cap, nstacks;
	struct profile_key *bkeys;     /* batch lookup buffers */
	uint64_t *bvals;
	size_t bcap;
	int no_batch;
	int stats_fd;                  /* BPF run-time statistics on while held */
	struct usym *usym;             /* NULL: kernel stacks only */
	uint64_t ncollect;             /* collects so far */
	unsigned ustk_cap;             /* user stack map entries (ids below it) */
	struct probe_profile_prune pruned; /* forgotten so far */
};

static int perf_open_cpu(unsigned freq, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_freq = freq;
	a.freq = 1;
	return syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Opens, sizes and loads the skeleton; raw_fork picks the raw_tp fallback. */
static int load_skel(struct probe_profile *pp, const struct probe_profile_opts *o,
		     int raw_fork, char **cause)
{
	struct profile_bpf *s;
	int err, fork = pp->filter && o->follow_forks;

	s = profile_bpf__open();
	if (!s) {
		err = -errno;
		util_cause(cause, "cannot open the sampler's BPF object: %s", strerror(-err));
		return err;
	}
	s->rodata->filter_enabled = pp->filter;
	s->rodata->user_stacks = !o->no_user_stacks;
	bpf_map__set_max_entries(s->maps.stacks, o->stack_entries ? o->stack_entries
				 : PROBE_PROFILE_DEFAULT_STACKS);
	/* one entry is enough when unused: the map must exist */
	bpf_map__set_max_entries(s->maps.ustacks, o->no_user_stacks ? 1 : o->ustack_entries ?
				 o->ustack_entries : o->stack_entries ? o->stack_entries
				 : PROBE_PROFILE_DEFAULT_STACKS);
	pp->ustk_cap = bpf_map__max_entries(s->maps.ustacks);
	bpf_map__set_max_entries(s->maps.counts, o->count_entries ? o->count_entries
				 : PROBE_PROFILE_DEFAULT_COUNTS);
	bpf_map__set_max_entries(s->maps.tgids, o->tgid_entries ? o->tgid_entries
				 : PROBE_PROFILE_DEFAULT_TGIDS);
	bpf_program__set_autoload(s->progs.argus_fork, fork && !raw_fork);
	bpf_program__set_autoload(s->progs.argus_fork_raw, fork && raw_fork);
	err = profile_bpf__load(s);
	if (err) {
		if (err >= 0)
			err = -EINVAL;
		if (err == -EPERM || err == -EACCES)
			util_cause(cause, "the kernel refused to load the sampler: %s; needs root, "
				   "or CAP_BPF and CAP_PERFMON", strerror(-err));
		else
			util_cause(cause, "the kernel refused to load the sampler: %s "
				   "(run with -v for libbpf's log)", strerror(-err));
		profile_bpf__destroy(s);
		return err;
	}
	pp->skel = s;
	return 0;
}

struct probe_profile *probe_profile_open(const struct probe_profile_opts *o, char **cause)
{
	struct probe_profile *pp;
	int *cpus = NULL, ncpu, err = 0;
	char *note = NULL;

	pp = calloc(1, sizeof(*pp));
	if (!pp) {
		err = -ENOMEM;
		goto fail;
	}
	pp->stats_fd = -1;
	if (!o->no_user_stacks && !(pp->usym = usym_new())) {
		err = -ENOMEM;
		goto fail;
	}
	err = probe_check_privileges(cause);
	if (err)
		goto fail;
	err = probe_check_btf(cause);
	if (err)
		goto fail;
	probe_bump_memlock();
	pp->freq = o->freq_hz ? o->freq_hz : PROBE_PROFILE_DEFAULT_HZ;
	pp->filter = o->filter || o->ntgids > 0;
	pp->ncpu_possible = libbpf_num_possible_cpus();
	if (pp->ncpu_possible <= 0) {
		err = pp->ncpu_possible < 0 ? pp->ncpu_possible : -EINVAL;
		util_cause(cause, "cannot count the possible CPUs: %s", strerror(-err));
		goto fail;
	}

	err = load_skel(pp, o, 0, cause);
	if (err && pp->filter && o->follow_forks) {
		probe_log(PROBE_LOG_INFO, "tp_btf/sched_process_fork refused, trying raw_tp\n");
		err = load_skel(pp, o, 1, cause);
	}
	if (err)
		goto fail;

	for (size_t i = 0; i < o->ntgids; i++) {
		err = probe_profile_add_tgid(pp, o->tgids[i]);
		if (err) {
			util_cause(cause, "cannot add process %u to the filter: %s",
				   o->tgids[i], strerror(-err));
			goto fail;
		}
	}
	if (pp->filter && o->follow_forks) {
		struct bpf_program *fp = bpf_program__autoload(pp->skel->progs.argus_fork)
			? pp->skel->progs.argus_fork : pp->skel->progs.argus_fork_raw;

		pp->fork_link = bpf_program__attach(fp);
		if (!pp->fork_link) {
			err = -errno;
			util_cause(cause, "cannot attach to sched_process_fork to follow children: %s",
				   strerror(-err));
			goto fail;
		}
	}

	ncpu = probe_online_cpus(&cpus);
	if (ncpu < 0) {
		err = ncpu;
		util_cause(cause, "cannot read /sys/devices/system/cpu/online: %s", strerror(-err));
		goto fail;
	}
	pp->links = calloc(ncpu, sizeof(*pp->links));
	if (!pp->links) {
		err = -ENOMEM;
		goto fail;
	}
	for (int i = 0; i < ncpu; i++) {
		struct bpf_link *l;
		int fd = perf_open_cpu(pp->freq, cpus[i]);

		if (fd < 0) {
			err = -errno;
			if (err == -ENODEV) { /* went offline meanwhile */
				pp->cpus_failed++;
				continue;
			}
			if (err == -EACCES || err == -EPERM) {
				note = probe_perf_denied_note();
				util_cause(cause, "cannot open the cpu-clock event on CPU %d: %s",
					   cpus[i], note ? note : strerror(-err));
				err = -EPERM;
			} else if (err == -ENOENT || err == -EOPNOTSUPP || err == -EINVAL) {
				util_cause(cause, "this kernel offers no cpu-clock perf event "
					   "(CPU %d: %s); CPU sampling is not possible here",
					   cpus[i], strerror(-err));
				err = -ENOENT;
			} else {
				util_cause(cause, "cannot open the cpu-clock event on CPU %d: %s",
					   cpus[i], strerror(-err));
			}
			goto fail;
		}
		l = bpf_program__attach_perf_event(pp->skel->progs.argus_profile, fd);
		if (!l) {
			err = -errno;
			close(fd);
			util_cause(cause, "the kernel refused to attach the sampler to CPU %d: %s",
				   cpus[i], strerror(-err));
			goto fail;
		}
		pp->links[pp->nlinks++] = l;
	}
	if (!pp->nlinks) {
		err = -ENODEV;
		util_cause(cause, "no online CPU could be sampled");
		goto fail;
	}
	/* run_time_ns per program, for the overhead we report; optional */
	pp->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	pp->t_attach = util_mono_s();
	free(cpus);
	return pp;
fail:
	free(note);
	free(cpus);
	probe_profile_close(pp);
	if (cause && !*cause)
		util_cause(cause, "cannot start the sampler: %s", strerror(-err));
	errno = -err;
	return NULL;
}

int probe_profile_add_tgid(struct probe_profile *pp, uint32_t tgid)
{
	__u8 one = 1;

	if (!pp->filter)
		return 0;
	if (bpf_map__update_elem(pp->skel->maps.tgids, &tgid, sizeof(tgid), &one, sizeof(one),
				 BPF_ANY))
		return -errno;
	return 0;
}

static uint64_t key_hash(const struct profile_key *k)
{
	return hash_bytes(HASH_SEED, k, sizeof(*k));
}

/* The snapshot table moved into one of cap slots, keeping the entries
 * keep[slot] says (NULL: all); the others' user stacks freed.  0 or
 * -ENOMEM (then unchanged). */
static int snap_rehash(struct probe_profile *pp, size_t cap, const uint8_t *keep)
{
	struct snap_ent *t = calloc(cap, sizeof(*t));
	size_t n = 0;

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < pp->snap_cap; i++) {
		struct snap_ent *e = &pp->snap[i];
		size_t j;

		if (!e->used)
			continue;
		if (keep && !keep[i]) {
			usym_names_free(e->unames, (unsigned)e->nunames);
			continue;
		}
		for (j = key_hash(&e->key) & (cap - 1); t[j].used; j = (j + 1) & (cap - 1))
			;
		t[j] = *e;
		n++;
	}
	free(pp->snap);
	pp->snap = t;
	pp->snap_cap = cap;
	pp->snap_n = n;
	return 0;
}

static int snap_grow(struct probe_profile *pp)
{
	return snap_rehash(pp, pp->snap_cap ? pp->snap_cap * 2 : 1024, NULL);
}

/* The snapshot entry of k, inserted with count 0 when new; NULL on ENOMEM. */
static struct snap_ent *snap_get(struct probe_profile *pp, const struct profile_key *k)
{
	size_t j;

	if ((pp->snap_n + 1) * 2 > pp->snap_cap && snap_grow(pp))
		return NULL;
	for (j = key_hash(k) & (pp->snap_cap - 1); pp->snap[j].used; j = (j + 1) & (pp->snap_cap - 1))
		if (!memcmp(&pp->snap[j].key, k, sizeof(*k)))
			return &pp->snap[j];
	pp->snap[j].used = 1;
	pp->snap[j].key = *k;
	pp->snap[j].count = 0;
	pp->snap[j].grew = pp->ncollect;
	pp->snap_n++;
	return &pp->snap[j];
}

/* The symbolized stack of id (cached), or NULL when it cannot be read:
 * *gone set when the map does not hold id (looked up again next time: a
 * pruned id comes back when its stack is sampled again), else ENOMEM. */
static struct stack_ent *stack_get(struct probe_profile *pp, uint32_t id,
				   const struct ksym_table *ks, int *gone)
{
	uint64_t ips[PROFILE_MAX_DEPTH];
	struct stack_ent *e;
	char buf[256];
	uint32_t n = 0;

	if (id >= pp->stk_cap) {
		size_t old = pp->stk_cap;

		if (vec_grow(&pp->stk, &pp->stk_cap, (size_t)id + 1, sizeof(*pp->stk)))
			return NULL;
		memset(pp->stk + old, 0, (pp->stk_cap - old) * sizeof(*pp->stk)); /* unread ids */
	}
	e = &pp->stk[id];
	if (e->state > 0)
		return e;
	memset(ips, 0, sizeof(ips));
	if (bpf_map__lookup_elem(pp->skel->maps.stacks, &id, sizeof(id), ips, sizeof(ips), 0)) {
		e->state = -1;
		*gone = 1;
		return NULL;
	}
	while (n < PROFILE_MAX_DEPTH && ips[n])
		n++;
	e->names = calloc(n ? n : 1, sizeof(*e->names));
	if (!e->names)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		/* the map is leaf first; the profile wants root first */
		uint64_t ip = ips[n - 1 - i];

		if (ks)
			ksym_format(ks, ip, buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)ip);
		e->names[i] = strdup(buf);
		if (!e->names[i]) {
			for (uint32_t k = 0; k < i; k++)
				free(e->names[k]);
			free(e->names);
			e->names = NULL;
			return NULL;
		}
	}
	e->n = n;
	e->state = 1;
	pp->nstacks++;
	return e;
}

/* The user stack of k symbolized (cached in s), or 0 frames when none was
 * taken.  0 or -ENOMEM. */
static int ustack_get(struct probe_profile *pp, struct snap_ent *s)
{
	uint64_t ips[PROFILE_MAX_DEPTH];
	char comm[PROFILE_COMM_LEN + 1];
	uint32_t id = s->key.ustack_id;
	unsigned n = 0;
	int r;

	if (s->nunames || !pp->usym || id == PROFILE_NO_USTACK)
		return 0;
	memset(ips, 0, sizeof(ips));
	/* a stack id whose bucket another stack took since: not readable */
	if (bpf_map__lookup_elem(pp->skel->maps.ustacks, &id, sizeof(id), ips, sizeof(ips), 0))
		return 0;
	while (n < PROFILE_MAX_DEPTH && ips[n])
		n++;
	memcpy(comm, s->key.comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	r = usym_stack(pp->usym, s->key.tgid, comm, ips, n, &s->unames);
	if (r < 0)
		return r;
	s->nunames = r;
	return 0;
}

/* Adds the growth of one key's count to window win. */
static int64_t collect_one(struct probe_profile *pp, struct profile *p, unsigned win,
			   const struct ksym_table *ks, const struct profile_key *k, uint64_t v)
{
	struct snap_ent *s = snap_get(pp, k);
	struct stack_ent *st;
	char comm[PROFILE_COMM_LEN + 1];
	uint64_t d;
	int err, gone = 0;

	if (!s)
		return -ENOMEM;
	if (v <= s->count)
		return 0;
	d = v - s->count;
	st = stack_get(pp, k->stack_id, ks, &gone);
	if (!st)
		return gone ? 0 : -ENOMEM; /* its samples are added once it is back */
	memcpy(comm, k->comm, PROFILE_COMM_LEN);
	comm[PROFILE_COMM_LEN] = 0;
	err = ustack_get(pp, s);
	if (err)
		return err;
	err = profile_add_user(p, win, (const char *const *)st->names, st->n,
			       (const char *const *)s->unames, (unsigned)s->nunames,
			       k->tgid, comm, d);
	if (err)
		return err;
	s->count = v;
	s->grew = pp->ncollect;
	return (int64_t)d;
}

struct collect_walk {
	struct probe_profile *pp;
	struct profile *p;
	unsigned win;
	const struct ksym_table *ks;
	int64_t total;
};

static int collect_walk_one(void *arg, const void *key, const void *val)
{
	struct collect_walk *c = arg;
	uint64_t v;
	int64_t r;

	memcpy(&v, val, sizeof(v));
	r = collect_one(c->pp, c->p, c->win, c->ks, key, v);
	if (r < 0)
		return (int)r;
	c->total += r;
	return 0;
}

static int64_t collect_iter(struct probe_profile *pp, struct profile *p, unsigned win,
			    const struct ksym_table *ks)
{
	struct collect_walk c = { pp, p, win, ks, 0 };
	int err = kind_map_walk(bpf_map__fd(pp->skel->maps.counts), sizeof(struct profile_key),
				sizeof(uint64_t), collect_walk_one, &c);

	return err ? err : c.total;
}

static int64_t collect_all(struct probe_profile *pp, struct profile *p, unsigned win,
			   const struct ksym_table *ks);

/* The files and build-ids of the modules the user frames name, into p's
 * module table (issue 27): what a pprof's mappings carry, and a session
 * keeps for an export without root.  Returns total, or -ENOMEM. */
static int64_t modules_copy(const struct usym *u, struct profile *p, int64_t total)
{
	for (size_t i = 0; i < usym_nmodules(u); i++) {
		const char *name, *path, *bid;
		int err;

		if (usym_module(u, i, &name, &path, &bid))
			continue;
		err = profile_module_set(p, name, path, bid);
		if (err)
			return err;
	}
	return total;
}

int64_t probe_profile_collect(struct probe_profile *pp, struct profile *p, unsigned win,
			      const struct ksym_table *ks)
{
	int64_t r;

	pp->ncollect++;
	if (!pp->usym)
		return collect_all(pp, p, win, ks);
	/* processes gone before this collect have all their samples in the map
	 * now: symbolize them with the maps kept, then forget those maps */
	usym_reap_mark(pp->usym);
	r = collect_all(pp, p, win, ks);
	usym_reap(pp->usym);
	if (r >= 0)
		r = modules_copy(pp->usym, p, r);
	return r;
}

static int64_t collect_all(struct probe_profile *pp, struct profile *p, unsigned win,
			   const struct ksym_table *ks)
{
	int fd = bpf_map__fd(pp->skel->maps.counts);
	__u32 in = 0, out = 0;
	void *inp = NULL;
	int64_t total = 0, r;

	if (pp->no_batch)
		return collect_iter(pp, p, win, ks);
	if (!pp->bcap) {
		pp->bcap = 4096;
		pp->bkeys = calloc(pp->bcap, sizeof(*pp->bkeys));
		pp->bvals = calloc(pp->bcap, sizeof(*pp->bvals));
		if (!pp->bkeys || !pp->bvals)
			return -ENOMEM;
	}
	for (;;) {
		__u32 count = pp->bcap;
		int err = bpf_map_lookup_batch(fd, inp, &out, pp->bkeys, pp->bvals, &count, NULL);

		if (err && errno != ENOENT) {
			if (!inp && (errno == EINVAL || errno == ENOTSUP || errno == EOPNOTSUPP)) {
				pp->no_batch = 1; /* kernel before 5.6 */
				return collect_iter(pp, p, win, ks);
			}
			return -errno;
		}
		for (__u32 i = 0; i < count; i++) {
			r = collect_one(pp, p, win, ks, &pp->bkeys[i], pp->bvals[i]);
			if (r < 0)
				return r;
			total += r;
		}
		if (err) /* ENOENT: walked every bucket */
			break;
		in = out;
		inp = &in;
	}
	return total;
}

/* ---- forgetting what stopped (a recorder left running) ------------------ */

/* The snapshot table rebuilt from its entries that stay (keep[i] for
 * slot i), in as few slots as hold them.  0 or -ENOMEM (then unchanged). */
static int snap_rebuild(struct probe_profile *pp, const uint8_t *keep)
{
	size_t cap = 1024, n = 0;

	for (size_t i = 0; i < pp->snap_cap; i++)
		n += pp->snap[i].used && keep[i];
	while (cap < (n + 1) * 2)
		cap *= 2;
	return snap_rehash(pp, cap, keep);
}

/* Kernel and user stack ids no kept key refers to any more: deleted from
 * their maps (their buckets free for new stacks), the kernel ones' names
 * forgotten. */
static void stacks_release(struct probe_profile *pp, const uint8_t *keep,
			   struct probe_profile_prune *pr)
{
	uint8_t *kref = calloc(pp->stk_cap ? pp->stk_cap : 1, 1);
	uint8_t *uref = calloc(pp->ustk_cap ? pp->ustk_cap : 1, 1);
	uint8_t *udrop = calloc(pp->ustk_cap ? pp->ustk_cap : 1, 1);

	if (!kref || !uref || !udrop)
		goto out; /* the ids stay: only the maps' room is not regained */
	for (size_t i = 0; i < pp->snap_cap; i++) {
		const struct profile_key *k = &pp->snap[i].key;
		int u = k->ustack_id != PROFILE_NO_USTACK && k->ustack_id < pp->ustk_cap;

		if (!pp->snap[i].used)
			continue;
		if (keep[i]) {
			if (k->stack_id < pp->stk_cap)
				kref[k->stack_id] = 1;
			if (u)
				uref[k->ustack_id] = 1;
		} else if (u) {
			udrop[k->ustack_id] = 1;
		}
	}
	for (uint32_t id = 0; id < pp->stk_cap; id++) {
		struct stack_ent *e = &pp->stk[id];

		if (kref[id] || e->state <= 0)
			continue;
		bpf_map__delete_elem(pp->skel->maps.stacks, &id, sizeof(id), 0);
		for (uint32_t f = 0; f < e->n; f++)
			free(e->names[f]);
		free(e->names);
		memset(e, 0, sizeof(*e));
		pp->nstacks--;
		pr->stacks++;
	}
	for (uint32_t id = 0; id < pp->ustk_cap; id++) {
		if (!udrop[id] || uref[id])
			continue;
		bpf_map__delete_elem(pp->skel->maps.ustacks, &id, sizeof(id), 0);
		pr->ustacks++;
	}
out:
	free(kref);
	free(uref);
	free(udrop);
}

int probe_profile_prune(struct probe_profile *pp, unsigned idle_collects,
			struct probe_profile_prune *out)
{
	struct probe_profile_prune pr = { 0 };
	uint8_t *keep;
	int err = 0;

	if (!pp->snap_cap || !idle_collects)
		goto done;
	keep = malloc(pp->snap_cap);
	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < pp->snap_cap; i++) {
		struct snap_ent *e = &pp->snap[i];

		keep[i] = 1;
		if (!e->used || pp->ncollect - e->grew < idle_collects)
			continue;
		/* a sample counted between the last collect and this delete is
		 * lost with the key: microseconds of a key idle for
		 * idle_collects collects */
		if (bpf_map__delete_elem(pp->skel->maps.counts, &e->key, sizeof(e->key), 0) &&
		    errno != ENOENT)
			continue; /* still there: keep counting it */
		keep[i] = 0;
		pr.keys++;
	}
	if (pr.keys) {
		err = snap_rebuild(pp, keep);
		if (!err)
			stacks_release(pp, keep, &pr);
	}
	free(keep);
done:
	pp->pruned.keys += pr.keys;
	pp->pruned.stacks += pr.stacks;
	pp->pruned.ustacks += pr.ustacks;
	if (out)
		*out = pp->pruned;
	return err;
}

int probe_profile_stats(struct probe_profile *pp, struct probe_profile_stats *st)
{
	struct profile_counters *v, sum;
	__u32 zero = 0;
	double expected;
	int err = 0;

	memset(st, 0, sizeof(*st));
	memset(&sum, 0, sizeof(sum));
	v = calloc(pp->ncpu_possible, sizeof(*v));
	if (!v)
		return -ENOMEM;
	if (bpf_map__lookup_elem(pp->skel->maps.counters, &zero, sizeof(zero), v,
				 pp->ncpu_possible * sizeof(*v), 0)) {
		err = -errno;
		goto out;
	}
	for (int c = 0; c < pp->ncpu_possible; c++) {
		sum.samples += v[c].samples;
		sum.user_mode += v[c].user_mode;
		sum.filtered_out += v[c].filtered_out;
		sum.stack_collision += v[c].stack_collision;
		sum.stack_error += v[c].stack_error;
		sum.count_map_full += v[c].count_map_full;
		sum.forks_followed += v[c].forks_followed;
		sum.ustack_error += v[c].ustack_error;
	}
	st->samples = sum.samples;
	st->user_mode = sum.user_mode;
	st->filtered_out = sum.filtered_out;
	st->stack_collision = sum.stack_collision;
	st->stack_error = sum.stack_error;
	st->count_map_full = sum.count_map_full;
	st->dropped = sum.stack_collision + sum.stack_error + sum.count_map_full;
	st->forks_followed = sum.forks_followed;
	st->ustack_error = sum.ustack_error;
	st->kernel = sum.samples - sum.user_mode - sum.filtered_out - st->dropped;
	st->cpus = pp->nlinks;
	st->cpus_failed = pp->cpus_failed;
	st->freq_hz = pp->freq;
	st->stacks = pp->nstacks;
	st->elapsed_s = util_mono_s() - pp->t_attach;
	if (pp->stats_fd >= 0) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(pp->skel->progs.argus_profile),
					    &info, &len)) {
			st->bpf_run_ns = info.run_time_ns;
			st->bpf_run_cnt = info.run_cnt;
		}
	}
	expected = st->elapsed_s * pp->freq * (pp->nlinks + pp->cpus_failed);
	st->lost = expected > (double)sum.samples ? (uint64_t)(expected - sum.samples) : 0;
out:
	free(v);
	return err;
}

void probe_profile_close(struct probe_profile *pp)
{
	if (!pp)
		return;
	for (unsigned i = 0; i < pp->nlinks; i++)
		bpf_link__destroy(pp->links[i]); /* closes the perf event too */
	free(pp->links);
	bpf_link__destroy(pp->fork_link);
	if (pp->stats_fd >= 0)
		close(pp->stats_fd);
	profile_bpf__destroy(pp->skel);
	for (size_t i = 0; i < pp->stk_cap; i++) {
		for (uint32_t k = 0; k < pp->stk[i].n; k++)
			free(pp->stk[i].names[k]);
		free(pp->stk[i].names);
	}
	free(pp->stk);
	for (size_t i = 0; i < pp->snap_cap; i++)
		usym_names_free(pp->snap[i].unames, (unsigned)pp->snap[i].nunames);
	free(pp->snap);
	usym_free(pp->usym);
	free(pp->bkeys);
	free(pp->bvals);
	free(pp);
}

/* ---- the sample kind (core/probe/kind.h): cpu-clock at the step's freq_hz -------- */

struct kind_sample {
	struct probe_profile *pp;
	struct profile *scratch;    /* where discarded samples go */
	uint64_t prev_lost;
	uint64_t events;
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Nonzero when some thread of process tgid matches the filter. */
static int proc_matches(int tgid, const struct kind_filter *f, const char *cg_rel)
{
	char path[128], buf[4096];
	struct dirent *de;
	DIR *d;
	int hit = 0;

	if (f->tgid && tgid != f->tgid)
		return 0;
	if (cg_rel) {
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%d/cgroup", tgid);
		fp = fopen(path, "r");
		if (!fp)
			return 0;
		while (!hit && fgets(buf, sizeof(buf), fp)) {
			buf[strcspn(buf, "\n")] = 0;
			if (!strncmp(buf, "0::", 3)) {
				size_t n = strlen(cg_rel);
				hit = !strcmp(cg_rel, "/") || (!strncmp(buf + 3, cg_rel, n) &&
								 (!buf[3 + n] || buf[3 + n] == '/'));
			}
		}
		fclose(fp);
		if (!hit)
			return 0;
		hit = 0;
	}
	if (!f->pid && !f->comm[0])
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!hit && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0 || (f->pid && tid != f->pid))
			continue;
		if (f->comm[0]) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
			if (read_line(path, buf, sizeof(buf)) || strcmp(buf, f->comm))
				continue;
		}
		hit = 1;
	}
	closedir(d);
	return hit;
}

/* The processes matching f now; *out malloc'd (caller frees).  Count or -errno. */
static int sample_tgids(const struct kind_filter *f, uint32_t **out)
{
	const char *cg_rel = NULL;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	if (f->cgroup_id)
		cg_rel = f->cgroup_rel[0] ? f->cgroup_rel : f->cgroup_path;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int tgid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tgid = atoi(de->d_name);
		if (!proc_matches(tgid, f, cg_rel))
			continue;
		if (vec_grow(&v, &cap, n + 1, sizeof(*v))) {
			free(v);
			closedir(d);
			return -ENOMEM;
		}
		v[n++] = (uint32_t)tgid;
	}
	closedir(d);
	*out = v;
	return (int)n;
}

static void sample_close(struct kind_probe *kp)
{
	struct kind_sample *k = (struct kind_sample *)kp;

	if (!k)
		return;
	probe_profile_close(k->pp);
	profile_free(k->scratch);
	free(k);
}

static int sample_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct probe_profile_opts o = { 0 };
	struct kind_sample *k = calloc(1, sizeof(*k));
	struct kind_filter f;
	uint32_t *tgids = NULL;
	int err, n = 0;

	if (!k) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	o.freq_hz = s->freq_hz ? s->freq_hz : STEP_DEFAULT_FREQ_HZ;
	if (f.pid || f.tgid || f.comm[0] || f.cgroup_id) {
		n = sample_tgids(&f, &tgids);
		if (n < 0) {
			err = n;
			util_cause(cause, "cannot read /proc to apply the filter: %s",
				   strerror(-err));
			goto fail;
		}
		if (!n) {
			err = -ESRCH;
			util_cause(cause, "the filter matches no running process; start the "
				   "load first, or check the filter");
			goto fail;
		}
		o.tgids = tgids;
		o.ntgids = (size_t)n;
		o.filter = 1;
		o.follow_forks = 1;
	}
	if (s->max_stacks) {
		o.stack_entries = s->max_stacks;
		o.count_entries = s->max_stacks * 4;
	}
	k->scratch = profile_new();
	if (!k->scratch || profile_window_begin(k->scratch, COND_REF, 0) < 0) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	k->pp = probe_profile_open(&o, cause);
	if (!k->pp) {
		err = -errno;
		goto fail;
	}
	free(tgids);
	*out = (struct kind_probe *)k;
	return 0;
fail:
	free(tgids);
	sample_close((struct kind_probe *)k);
	return err;
}

static uint64_t sample_lost(struct kind_sample *k)
{
	struct probe_profile_stats st;

	if (probe_profile_stats(k->pp, &st))
		return k->prev_lost;
	return st.dropped;
}

static int sample_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			  const struct ksym_table *ks)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	struct step_target_win *t = step_data_target(d, w, 0);
	int64_t n;
	uint64_t lost;

	if (!t)
		return -EINVAL;
	n = probe_profile_collect(k->pp, d->prof, w, ks);
	if (n < 0)
		return (int)n;
	t->events += (uint64_t)n;
	t->recorded += (uint64_t)n;
	k->events += (uint64_t)n;
	lost = sample_lost(k);
	if (lost > k->prev_lost) {
		d->lost += lost - k->prev_lost;
		d->prof->wins[w].lost += lost - k->prev_lost;
	}
	k->prev_lost = lost;
	return 0;
}

static int sample_discard(struct kind_probe *kp)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	int64_t n = probe_profile_collect(k->pp, k->scratch, 0, NULL);

	k->prev_lost = sample_lost(k);
	return n < 0 ? (int)n : 0;
}

static void sample_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	struct probe_profile_stats ps;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->progs = 1;
	if (!probe_profile_stats(k->pp, &ps)) {
		st->lost = ps.dropped;
		st->run_ns = ps.bpf_run_ns;
		st->run_cnt = ps.bpf_run_cnt;
	}
}

const struct kind_ops probe_profile_kind_ops = {
	.kind = STEP_SAMPLE,
	.open = sample_open,
	.collect = sample_collect,
	.discard = sample_discard,
	.stats = sample_stats,
	.close = sample_close,
};
