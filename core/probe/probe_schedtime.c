/* probe_schedtime — loads, attaches and reads bpf/schedtime.bpf.c (see
 * probe_schedtime.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/vec.h"
#include "probe/probe.h"
#include "probe/probe_schedtime.h"
#include "probe/schedtime_duty.h"
#include "probe/schedtime_snap.h"
#include "probe/schedtime_table.h"
#include "probe/schedtime_wall.h"
#include "probe/usym.h"
#include "schedtime.skel.h"

/* bpf/schedtime.bpf.c's SCHEDTIME_FAST_TGIDS: the size of fast_tgid */
#define SCHEDTIME_FAST_N (sizeof(((struct schedtime_bpf *)0)->bss->fast_tgid) / sizeof(uint32_t))

_Static_assert(sizeof(struct schedtime_key) == 68, "schedtime_key layout");
_Static_assert(sizeof(struct schedtime_state) == 184, "schedtime_state layout");
_Static_assert(sizeof(struct schedtime_akey) == 20, "schedtime_akey layout");
_Static_assert(sizeof(struct schedtime_name) == 24, "schedtime_name layout");
_Static_assert(sizeof(struct schedtime_val) == 8 * (2 + SCHEDTIME_BUCKETS), "schedtime_val layout");

#define ST_NPROGS 15

/* One read of the state map. */
struct st_thread {
	uint32_t pid;
	struct schedtime_state st;
};

struct probe_schedtime {
	struct schedtime_bpf *skel;
	struct bpf_link *links[ST_NPROGS];
	struct bpf_program *progs[ST_NPROGS];
	int raw, ncpus, windows, tgid_set, stats_fd, wall_totals;
	struct schedtime_wall wall;  /* with wall_totals: the threads' counters */
	struct kind_stacks *stacks;
	struct usym *usym;           /* user stacks (opts.user_stacks), else NULL */
	/* keys without names (st_raw_key): the kernel's, and ONCPU by pid */
	struct st_table prev;        /* cumulative values at the last read_window */
	struct st_table retired;     /* ONCPU totals of exited threads whose
	                              * state entries were deleted */
	struct st_table credited;    /* in-progress parts returned so far (named keys) */
	struct st_names names;       /* from the state map (tracked threads) */
	struct st_names onames;      /* from the names map, this read only */
	uint64_t open_ns, last_ns;   /* monotonic ns: open, last read_window */
	/* duty cycling (probe_schedtime_detach / _attach) */
	int attached;
	uint32_t gen;                /* attaches so far (the kernel's gen) */
	unsigned gaps;               /* detaches so far */
	struct st_table dcred;       /* on-CPU parts credited at detaches, for
	                              * the next read_window (named keys) */
	uint64_t att_start_ns;       /* the current phase's attach */
	uint64_t att_ns;             /* attached time of the ended phases */
	uint64_t att_at_read;        /* attached time at the last read_window */
	unsigned gaps_at_read;
	unsigned nph;                /* phases ended since the last read_window */
	double ph[PROBE_SCHEDTIME_MAX_PHASES];
};

/* The kernel's user stack (id + 1 in 16 bits, 0: none) as a key's id. */
static uint32_t st_ustack_id(uint16_t ustack)
{
	return ustack ? ustack - 1u : SCHEDTIME_NO_STACK;
}

/* Whether the programs take user stacks (none without kernel stacks). */
static int st_wants_ustacks(const struct probe_schedtime_opts *o)
{
	return o->user_stacks && !o->no_stacks;
}

/* ---- open / close ------------------------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void probe_schedtime_close(struct probe_schedtime *ps)
{
	if (!ps)
		return;
	for (int i = 0; i < ST_NPROGS; i++)
		bpf_link__destroy(ps->links[i]);
	schedtime_bpf__destroy(ps->skel);
	st_table_free(&ps->dcred);
	schedtime_wall_fini(&ps->wall);
	kind_stacks_free(ps->stacks);
	usym_free(ps->usym);
	st_table_free(&ps->prev);
	st_table_free(&ps->retired);
	st_table_free(&ps->credited);
	free(ps->names.slot);
	free(ps->onames.slot);
	if (ps->stats_fd >= 0)
		close(ps->stats_fd);
	free(ps);
}

struct st_load_arg {
	struct probe_schedtime *ps;
	const struct probe_schedtime_opts *o;
};

static int st_load(void *arg, int raw)
{
	struct probe_schedtime *ps = ((struct st_load_arg *)arg)->ps;
	const struct probe_schedtime_opts *o = ((struct st_load_arg *)arg)->o;
	struct schedtime_bpf *s = schedtime_bpf__open();
	const struct kind_filter *f = o->filter;
	struct bpf_program *tp[ST_NPROGS], *rt[ST_NPROGS];
	int err;

	if (!s)
		return -errno;
	if (f) {
		s->rodata->filter_pid = f->pid;
		s->rodata->filter_tgid = f->tgid;
		s->rodata->filter_cgroup = f->cgroup_id;
		if (f->comm[0]) {
			s->rodata->filter_comm_on = 1;
			memcpy((char *)s->rodata->filter_comm, f->comm, sizeof(f->comm));
		}
	}
	s->rodata->tgid_set_on = o->tgid_set || o->ntgids;
	s->rodata->follow_forks = !!o->follow_forks;
	s->rodata->exclude_tgid = o->exclude_tgid;
	bpf_map__set_max_entries(s->maps.state, o->max_threads ? o->max_threads : 16384);
	bpf_map__set_max_entries(s->maps.stacks, o->max_stacks ? o->max_stacks : 16384);
	bpf_map__set_max_entries(s->maps.names, o->max_threads ? o->max_threads : 16384);
	s->rodata->no_stacks = !!o->no_stacks;
	s->rodata->user_stacks = st_wants_ustacks(o);
	{
		unsigned u = o->max_ustacks ? o->max_ustacks : o->max_stacks ? o->max_stacks : 16384;

		/* an unused map still needs an entry */
		bpf_map__set_max_entries(s->maps.ustacks, !s->rodata->user_stacks ? 1 :
					 u < SCHEDTIME_MAX_USTACKS ? u : SCHEDTIME_MAX_USTACKS);
	}
	s->rodata->sample_shift = o->exact ? 0 : PROBE_SCHEDTIME_SAMPLE_SHIFT;
	s->rodata->sample_after = o->sample_after ? o->sample_after : PROBE_SCHEDTIME_SAMPLE_AFTER;
	bpf_map__set_max_entries(s->maps.agg, o->max_keys ? o->max_keys : 65536);
	bpf_map__set_max_entries(s->maps.tgids, 8192);
	tp[0] = s->progs.argus_st_switch;          rt[0] = s->progs.argus_st_switch_raw;
	tp[1] = s->progs.argus_st_waking;          rt[1] = s->progs.argus_st_waking_raw;
	tp[2] = s->progs.argus_st_wakeup_new;      rt[2] = s->progs.argus_st_wakeup_new_raw;
	tp[3] = s->progs.argus_st_fork;            rt[3] = s->progs.argus_st_fork_raw;
	tp[4] = s->progs.argus_st_irq_entry;       rt[4] = s->progs.argus_st_irq_entry_raw;
	tp[5] = s->progs.argus_st_irq_exit;        rt[5] = s->progs.argus_st_irq_exit_raw;
	tp[6] = s->progs.argus_st_softirq_entry;   rt[6] = s->progs.argus_st_softirq_entry_raw;
	tp[7] = s->progs.argus_st_softirq_exit;    rt[7] = s->progs.argus_st_softirq_exit_raw;
	tp[8] = s->progs.argus_st_hrtimer_entry;   rt[8] = s->progs.argus_st_hrtimer_entry_raw;
	tp[9] = s->progs.argus_st_hrtimer_exit;    rt[9] = s->progs.argus_st_hrtimer_exit_raw;
	tp[10] = s->progs.argus_st_net_queue;      rt[10] = s->progs.argus_st_net_queue_raw;
	tp[11] = s->progs.argus_st_net_receive;    rt[11] = s->progs.argus_st_net_receive_raw;
	tp[12] = s->progs.argus_st_wq_queue;       rt[12] = s->progs.argus_st_wq_queue_raw;
	tp[13] = s->progs.argus_st_wq_start;       rt[13] = s->progs.argus_st_wq_start_raw;
	tp[14] = s->progs.argus_st_wq_end;         rt[14] = s->progs.argus_st_wq_end_raw;
	for (int i = 0; i < ST_NPROGS; i++) {
		bpf_program__set_autoload(tp[i], !raw);
		bpf_program__set_autoload(rt[i], raw);
	}
	err = schedtime_bpf__load(s);
	if (err) {
		schedtime_bpf__destroy(s);
		return err;
	}
	ps->skel = s;
	ps->raw = raw;
	for (int i = 0; i < ST_NPROGS; i++)
		ps->progs[i] = raw ? rt[i] : tp[i];
	return 0;
}

/* Inserts the threads of tgid that have no state yet: running or runnable
 * ('R' in /proc) as SEEDED, the others as blocked since open. */
static void st_seed(struct probe_schedtime *ps, uint32_t tgid)
{
	char path[64], line[512];
	struct dirent *de;
	DIR *d;
	int fd = bpf_map__fd(ps->skel->maps.state);

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct schedtime_state st = { 0 };
		char *rp, *nl;
		uint32_t pid;
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = (uint32_t)strtoul(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", tgid, pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (!fgets(line, sizeof(line), f)) {
			fclose(f);
			continue;
		}
		fclose(f);
		rp = strrchr(line, ')'); /* comm may hold spaces and parentheses */
		nl = strchr(line, '(');
		if (!rp || !nl || rp[1] != ' ')
			continue;
		memcpy(st.comm, nl + 1, (size_t)(rp - nl - 1) < sizeof(st.comm) - 1
		       ? (size_t)(rp - nl - 1) : sizeof(st.comm) - 1);
		st.state = rp[2] == 'R' ? SCHEDTIME_S_SEEDED : SCHEDTIME_S_BLOCKED;
		st.w = 1;
		st.ts = st.start_ts = ps->open_ns;
		st.stack_id = SCHEDTIME_NO_STACK;
		st.tgid = tgid;
		st.gen = ps->gen;
		bpf_map_update_elem(fd, &pid, &st, BPF_NOEXIST); /* the kernel's entry wins */
	}
	closedir(d);
}

static int st_read_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct probe_schedtime *ps = arg;

	if (id == SCHEDTIME_NO_STACK)
		return -ENOENT;
	return kind_stackmap_copy(bpf_map__fd(ps->skel->maps.stacks), id, SCHEDTIME_MAX_DEPTH,
				  ips, max);
}

/* The early exit's set (bpf/schedtime.bpf.c not_followed) from the tgids
 * map: off first, then the tgids, then their count, unless a followed fork
 * marked it dirty meanwhile (then off until the next rebuild).  With more
 * tgids than it holds, off: the map decides. */
static void st_fast_rebuild(struct probe_schedtime *ps)
{
	int fd = bpf_map__fd(ps->skel->maps.tgids);
	uint32_t key, next, n = 0;
	int more;

	if (!ps->tgid_set)
		return;
	__atomic_store_n(&ps->skel->bss->fast_n, (uint32_t)SCHEDTIME_FAST_N + 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ps->skel->bss->fast_dirty, 0, __ATOMIC_SEQ_CST);
	for (more = !bpf_map_get_next_key(fd, NULL, &next); more;
	     more = !bpf_map_get_next_key(fd, &key, &next)) {
		if (n == SCHEDTIME_FAST_N)
			return; /* too many: stays off */
		__atomic_store_n(&ps->skel->bss->fast_tgid[n++], next, __ATOMIC_SEQ_CST);
		key = next;
	}
	__atomic_store_n(&ps->skel->bss->fast_n, n, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&ps->skel->bss->fast_dirty, __ATOMIC_SEQ_CST))
		__atomic_store_n(&ps->skel->bss->fast_n, (uint32_t)SCHEDTIME_FAST_N + 1,
				 __ATOMIC_SEQ_CST);
}

/* Attaches every program, as phase gen + 1 starting at now (the first) or
 * when the switch program is attached (a later one). */
static int st_attach(struct probe_schedtime *ps, uint64_t now, char **cause)
{
	int err;

	ps->skel->bss->attach_ns = now;
	__atomic_store_n(&ps->skel->bss->gen, ps->gen + 1, __ATOMIC_SEQ_CST);
	ps->gen++;
	/* Last to first: each exit before its entry (an expiry entered between
	 * the two attaches would leave the per-CPU context set for good), and
	 * the interrupt context before the wakeups that read it. */
	for (int i = ST_NPROGS - 1; i >= 0; i--) {
		/* The switch program, last, starts the phase: nothing is
		 * charged before it.  The others took 5 ms on average (7 at
		 * most) to attach on an idle machine and 18 (24) beside two
		 * CPU hogs, where argus waits for a CPU too; counted as
		 * attached time, they made the phase's rates that much too
		 * low (tier3 at 20 us think time, under a 2% budget: on-phases
		 * of ~0.3 s, its requests per attached second 22% short of its
		 * read/write calls' in one run beside the hogs). The first
		 * phase starts at the windows' start (open): its time tree is
		 * charged from there. */
		if (i == 0 && ps->gen > 1) {
			now = mono_ns();
			__atomic_store_n(&ps->skel->bss->attach_ns, now, __ATOMIC_SEQ_CST);
		}
		ps->links[i] = bpf_program__attach(ps->progs[i]);
		if (!ps->links[i]) {
			err = -errno;
			kind_set_cause(cause, "cannot attach %s: %s", bpf_program__section_name(ps->progs[i]),
				       strerror(-err));
			for (i++; i < ST_NPROGS; i++) {
				bpf_link__destroy(ps->links[i]);
				ps->links[i] = NULL;
			}
			return err;
		}
	}
	ps->attached = 1;
	ps->att_start_ns = now;
	return 0;
}

struct probe_schedtime *probe_schedtime_open(const struct probe_schedtime_opts *o, char **cause)
{
	struct probe_schedtime *ps = calloc(1, sizeof(*ps));
	int err = 0;
	uint8_t one = 1;

	if (!ps) {
		kind_set_cause(cause, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	ps->stats_fd = -1;
	ps->windows = o->windows;
	ps->wall_totals = o->wall_totals && o->windows;
	ps->tgid_set = o->tgid_set || o->ntgids;
	{
		struct st_load_arg la = { ps, o };

		ps->ncpus = err = kind_load_flavour("schedtime", st_load, &la, cause);
		if (err < 0)
			goto fail;
		err = 0;
	}
	ps->stacks = kind_stacks_new(st_read_stack, ps);
	if (st_wants_ustacks(o))
		ps->usym = usym_new();
	if (!ps->stacks || (st_wants_ustacks(o) && !ps->usym)) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < o->ntgids; i++) {
		if (bpf_map_update_elem(bpf_map__fd(ps->skel->maps.tgids), &o->tgids[i], &one,
					BPF_ANY)) {
			err = -errno;
			kind_set_cause(cause, "cannot add process %u to the schedtime filter: %s",
				       o->tgids[i], strerror(-err));
			goto fail;
		}
	}
	/* the early exit for the tasks not followed (bpf/schedtime.bpf.c
	 * not_followed): the set's tgids, while few, before the attach */
	if (ps->tgid_set) {
		st_fast_rebuild(ps);
		ps->skel->bss->fast_on = 1;
	}
	if (o->stats)
		ps->stats_fd = kind_stats_enable();
	ps->open_ns = ps->last_ns = mono_ns();
	ps->skel->bss->epoch_ns = ps->windows ? ps->open_ns : 0;
	err = st_attach(ps, ps->open_ns, cause);
	if (err)
		goto fail;
	for (size_t i = 0; i < o->ntgids; i++)
		st_seed(ps, o->tgids[i]);
	return ps;
fail:
	probe_schedtime_close(ps);
	errno = -err;
	return NULL;
}

int probe_schedtime_add_tgid(struct probe_schedtime *ps, uint32_t tgid)
{
	uint8_t one = 1;

	if (!ps->tgid_set)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(ps->skel->maps.tgids), &tgid, &one, BPF_ANY))
		return -errno;
	st_fast_rebuild(ps);
	st_seed(ps, tgid);
	return 0;
}

const char *probe_schedtime_mechanism(const struct probe_schedtime *ps)
{
	return ps->raw ? "raw_tp" : "tp_btf";
}

int probe_schedtime_counters(struct probe_schedtime *ps, struct schedtime_counters *out)
{
	struct schedtime_counters *v = calloc(ps->ncpus, sizeof(*v));
	enum { N = sizeof(*out) / sizeof(__u64) };
	__u32 zero = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (!v)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(ps->skel->maps.counters), &zero, v)) {
		rc = -errno;
		goto out;
	}
	for (int c = 0; c < ps->ncpus; c++)
		for (int i = 0; i < N; i++)
			((__u64 *)out)[i] += ((const __u64 *)&v[c])[i];
out:
	free(v);
	return rc;
}

void probe_schedtime_runtime(struct probe_schedtime *ps, uint64_t *ns, uint64_t *cnt)
{
	for (int i = 0; i < ST_NPROGS; i++)
		kind_prog_runtime(bpf_program__fd(ps->progs[i]), ns, cnt);
}

double probe_schedtime_cost_ns(struct probe_schedtime *ps, int measured)
{
	struct schedtime_counters ctr;
	uint64_t ns = 0, runs = 0;

	if (measured) {
		probe_schedtime_runtime(ps, &ns, &runs);
		return (double)ns;
	}
	if (probe_schedtime_counters(ps, &ctr))
		return 0;
	return (double)ctr.switches * SCHEDTIME_DUTY_NS_PER_SWITCH;
}

/* ---- reads -------------------------------------------------------------- */

/* The name of pid.  The wakee (other 0): from the state map (tracked
 * threads, as the kernel's comm lags an exec by a few switches there).
 * The other side: from the kernel's names map, written when the key was
 * inserted (fresh: the waker's own comm then), re-read at each read;
 * else from the state map.  tgid 0 and "" when unknown; pid 0 is the idle
 * task. */
static void st_name_of(struct probe_schedtime *ps, uint32_t pid, int other, uint32_t *tgid,
		       char *comm)
{
	struct st_name *n = NULL;
	struct schedtime_name kn;

	*tgid = 0;
	memset(comm, 0, SCHEDTIME_COMM_LEN);
	if (!pid) {
		memcpy(comm, "swapper", 8);
		return;
	}
	if (other) {
		n = st_names_find(&ps->onames, pid);
		if (!n && !bpf_map_lookup_elem(bpf_map__fd(ps->skel->maps.names), &pid, &kn)) {
			kn.comm[SCHEDTIME_COMM_LEN - 1] = 0;
			if (!st_names_set(&ps->onames, pid, kn.tgid, kn.comm))
				n = st_names_find(&ps->onames, pid);
		}
	}
	if (!n)
		n = st_names_find(&ps->names, pid);
	if (n) {
		*tgid = n->tgid;
		memcpy(comm, n->comm, SCHEDTIME_COMM_LEN);
	}
}

/* The key without names of a kernel key (also: of a thread's ONCPU). */
static struct schedtime_key st_raw_key(const struct schedtime_akey *a)
{
	struct schedtime_key k;

	memset(&k, 0, sizeof(k));
	k.pid = a->pid;
	k.kind = a->kind;
	k.stack_id = a->stack_id;
	k.ustack_id = st_ustack_id(a->ustack);
	k.other_kind = a->other_kind;
	k.other_pid = a->other_pid;
	k.other_vec = a->other_vec;
	return k;
}

static struct schedtime_key st_oncpu_key(uint32_t pid)
{
	struct schedtime_akey a = { .pid = pid, .stack_id = SCHEDTIME_NO_STACK,
				    .kind = SCHEDTIME_ONCPU, .other_kind = SCHEDTIME_OTHER_NONE };

	return st_raw_key(&a);
}

/* A key without names, named. */
static struct schedtime_key st_named(struct probe_schedtime *ps, const struct schedtime_key *raw)
{
	struct schedtime_key k = *raw;

	st_name_of(ps, k.pid, 0, &k.tgid, k.comm);
	if (k.other_kind == SCHEDTIME_OTHER_TASK)
		st_name_of(ps, k.other_pid, 1, &k.other_tgid, k.other_comm);
	return k;
}

/* Reads the state map into *out (n entries, caller frees), names the
 * threads, and deletes the entries of exited threads after moving their
 * on-CPU totals to ps->retired. */
static int st_threads(struct probe_schedtime *ps, struct st_thread **out, size_t *nout)
{
	int fd = bpf_map__fd(ps->skel->maps.state), err = 0;
	uint32_t key, next, *prev = NULL;
	struct st_thread *t = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	*nout = 0;
	free(ps->onames.slot); /* names of the other sides: re-read each time */
	memset(&ps->onames, 0, sizeof(ps->onames));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		err = vec_grow(&t, &cap, n + 1, sizeof(*t));
		if (err)
			goto out;
		if (bpf_map_lookup_elem(fd, &key, &t[n].st))
			continue;
		t[n].pid = key;
		t[n].st.comm[SCHEDTIME_COMM_LEN - 1] = 0;
		err = st_names_set(&ps->names, key, t[n].st.tgid, t[n].st.comm);
		if (err)
			goto out;
		n++;
	}
	for (size_t i = 0; i < n; i++) {
		struct schedtime_key rk;
		struct probe_schedtime_entry *r;
		struct schedtime_state again;

		if (t[i].st.state != SCHEDTIME_S_DEAD)
			continue;
		rk = st_oncpu_key(t[i].pid);
		r = st_table_get(&ps->retired, &rk);
		if (!r) {
			err = -ENOMEM;
			goto out;
		}
		/* still dead (not taken over by a new thread of that pid since) */
		if (bpf_map_lookup_elem(fd, &t[i].pid, &again) || again.state != SCHEDTIME_S_DEAD)
			continue;
		r->val.count += again.oncpu_count;
		r->val.total_ns += again.oncpu_ns;
		t[i].st.oncpu_count = t[i].st.oncpu_ns = 0; /* now in retired */
		bpf_map_delete_elem(fd, &t[i].pid);
	}
	*out = t;
	*nout = n;
	t = NULL;
out:
	free(t);
	return err;
}

/* Cumulative values by key without names into cum: the aggregate map and
 * every thread's on-CPU time (retired + live).  Reads the threads first
 * (into *thr, caller frees). */
static int st_cumulative(struct probe_schedtime *ps, struct st_table *cum, struct st_thread **thr,
			 size_t *nthr)
{
	int fd = bpf_map__fd(ps->skel->maps.agg), err;
	struct schedtime_akey key, next, *prev = NULL;
	struct probe_schedtime_entry *e;
	struct schedtime_val v;

	err = st_threads(ps, thr, nthr);
	if (err)
		return err;
	err = st_table_add_all(cum, &ps->retired);
	if (err)
		return err;
	for (size_t i = 0; i < *nthr; i++) {
		struct schedtime_key rk = st_oncpu_key((*thr)[i].pid);

		if (!(*thr)[i].st.oncpu_count && !(*thr)[i].st.oncpu_ns)
			continue;
		e = st_table_get(cum, &rk);
		if (!e)
			return -ENOMEM;
		e->val.count += (*thr)[i].st.oncpu_count;
		e->val.total_ns += (*thr)[i].st.oncpu_ns;
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct schedtime_key rk;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &v))
			continue;
		rk = st_raw_key(&key);
		e = st_table_get(cum, &rk);
		if (!e)
			return -ENOMEM;
		st_val_add(&e->val, &v);
	}
	return 0;
}

/* The table's entries (named keys) as a snapshot array, stacks symbolised. */
static int st_emit(struct probe_schedtime *ps, struct st_table *t, const struct ksym_table *ks,
		   struct probe_schedtime_snap *s)
{
	size_t n = 0;

	s->e = calloc(t->n ? t->n : 1, sizeof(*s->e));
	if (!s->e)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct probe_schedtime_entry *e;
		const char *const *fr = NULL;
		int nf;

		if (!t->used[i])
			continue;
		e = &s->e[n++];
		*e = t->slot[i];
		nf = kind_stacks_get(ps->stacks, e->key.stack_id, ks, &fr);
		if (nf < 0)
			return nf;
		e->frames = nf > 0 ? fr : NULL;
		e->nframes = (unsigned)nf;
	}
	s->n = n;
	return 0;
}

/* The in-progress parts of intervals, from its start or `since` to `until`,
 * into out (and into ps->credited); on-CPU ones only with oncpu_only.
 * Entries whose start is after until (they began during the read) get
 * the interval they ended instead, when it was in progress at the epoch
 * until (pre_*); states of an earlier phase (stale: what they say is
 * over) get nothing. */
static int st_credit(struct probe_schedtime *ps, const struct st_thread *thr, size_t nthr,
		     uint64_t since, uint64_t until, int oncpu_only, struct st_table *out)
{
	for (size_t i = 0; i < nthr; i++) {
		const struct schedtime_state *st = &thr[i].st;
		struct probe_schedtime_entry *e, *c;
		struct schedtime_key k;
		uint32_t state = st->state, stack_id = st->stack_id;
		uint16_t ustack = st->ustack;
		uint64_t ts = st->ts, from;

		/* begun after until: st_read moved the epoch to until, then the
		 * thread switched before it looked.  The interval in progress at
		 * the epoch was charged only from it; its part before is here
		 * (bpf/schedtime.bpf.c st_end_interval).  Without it a thread
		 * preempted in that gap lost its time since the last read: 15 ms
		 * of a 0.5 s window beside two CPU hogs, a whole window for a
		 * thread that had not switched in it. */
		if (ts >= until && st->pre_epoch == until && st->state != SCHEDTIME_S_DEAD) {
			state = st->pre_state;
			stack_id = st->pre_stack_id;
			ustack = st->pre_ustack;
			ts = st->pre_ts;
		}
		from = ts > since ? ts : since;
		if (from >= until || state == SCHEDTIME_S_DEAD || st->gen != ps->gen ||
		    (oncpu_only && state != SCHEDTIME_S_RUNNING && state != SCHEDTIME_S_SEEDED))
			continue;
		memset(&k, 0, sizeof(k));
		k.pid = thr[i].pid;
		k.tgid = st->tgid;
		memcpy(k.comm, st->comm, sizeof(k.comm));
		k.other_kind = SCHEDTIME_OTHER_PENDING;
		k.stack_id = stack_id;
		k.ustack_id = st_ustack_id(ustack);
		switch (state) {
		case SCHEDTIME_S_BLOCKED:
			k.kind = SCHEDTIME_BLOCKED;
			break;
		case SCHEDTIME_S_RUNNABLE:
			k.kind = SCHEDTIME_RUNNABLE;
			break;
		default:
			k.kind = SCHEDTIME_ONCPU;
			k.stack_id = SCHEDTIME_NO_STACK;
			k.ustack_id = SCHEDTIME_NO_STACK;
			break;
		}
		e = st_table_get(out, &k);
		c = st_table_get(&ps->credited, &k);
		if (!e || !c)
			return -ENOMEM;
		e->val.total_ns += until - from;
		c->val.total_ns += until - from;
	}
	return 0;
}

int probe_schedtime_attached(const struct probe_schedtime *ps)
{
	return ps->attached;
}

int probe_schedtime_attach(struct probe_schedtime *ps, char **cause)
{
	return ps->attached ? 0 : st_attach(ps, mono_ns(), cause);
}

int probe_schedtime_detach(struct probe_schedtime *ps)
{
	struct st_thread *thr = NULL;
	size_t nthr = 0;
	uint64_t now;
	double d;
	int err;

	if (!ps->attached)
		return 0;
	now = mono_ns();
	/* first to last: the switch first, each entry before its exit */
	for (int i = 0; i < ST_NPROGS; i++) {
		bpf_link__destroy(ps->links[i]);
		ps->links[i] = NULL;
	}
	ps->attached = 0;
	ps->gaps++;
	ps->att_ns += now - ps->att_start_ns;
	d = (now - ps->att_start_ns) / 1e9;
	if (ps->nph < PROBE_SCHEDTIME_MAX_PHASES)
		ps->ph[ps->nph++] = d;
	else
		ps->ph[PROBE_SCHEDTIME_MAX_PHASES - 1] = (ps->ph[PROBE_SCHEDTIME_MAX_PHASES - 1] + d) / 2;
	/* the on-CPU time in progress, which no later charge will bring */
	err = st_threads(ps, &thr, &nthr);
	if (!err)
		err = st_credit(ps, thr, nthr, ps->last_ns, now, 1, &ps->dcred);
	free(thr);
	return err;
}

/* The attached time and phases of a snapshot ending now (since the last
 * read_window; cumulative: since open). */
static void st_phases(struct probe_schedtime *ps, uint64_t now, int window,
		      struct probe_schedtime_snap *s)
{
	uint64_t att = ps->att_ns + (ps->attached ? now - ps->att_start_ns : 0);

	s->attached_secs = (att - (window ? ps->att_at_read : 0)) / 1e9;
	s->gaps = ps->gaps - (window ? ps->gaps_at_read : 0);
	if (!window)
		return;
	memcpy(s->phase_s, ps->ph, ps->nph * sizeof(ps->ph[0]));
	s->nphases = ps->nph;
	if (ps->attached && s->nphases < PROBE_SCHEDTIME_MAX_PHASES)
		s->phase_s[s->nphases++] = (now - (ps->att_start_ns > ps->last_ns ? ps->att_start_ns
									: ps->last_ns)) / 1e9;
	ps->att_at_read = att;
	ps->gaps_at_read = ps->gaps;
	ps->nph = 0;
}

/* The end of a read: the table as the snapshot's entries, the counters and
 * the times. */
static int st_finish(struct probe_schedtime *ps, struct st_table *t, const struct ksym_table *ks,
		     uint64_t now, int window, struct probe_schedtime_snap *s)
{
	int err = st_emit(ps, t, ks, s);

	if (err)
		return err;
	err = probe_schedtime_counters(ps, &s->ctr);
	s->now_ns = now;
	s->secs = (now - (window ? ps->last_ns : ps->open_ns)) / 1e9;
	st_phases(ps, now, window, s);
	if (window) {
		ps->last_ns = now;
		if (ps->gaps)
			schedtime_duty_reweight(s);
	}
	return err;
}

/* The user stacks of s's entries symbolised (issue 27), once the entries
 * are final (the wall-clock fix drops some).  Processes gone by now are
 * named from the mappings kept, then forgotten.  A stack the map no longer
 * holds is no frames, never an error. */
static int st_user_frames(struct probe_schedtime *ps, struct probe_schedtime_snap *s)
{
	int fd = bpf_map__fd(ps->skel->maps.ustacks), err = 0;
	uint64_t ips[SCHEDTIME_MAX_DEPTH];

	usym_reap_mark(ps->usym);
	for (size_t i = 0; i < s->n && !err; i++) {
		struct probe_schedtime_entry *e = &s->e[i];
		char comm[SCHEDTIME_COMM_LEN + 1];
		int n;

		if (e->key.ustack_id == SCHEDTIME_NO_STACK)
			continue;
		n = kind_stackmap_copy(fd, e->key.ustack_id, SCHEDTIME_MAX_DEPTH, ips,
				       SCHEDTIME_MAX_DEPTH);
		if (n <= 0)
			continue;
		memcpy(comm, e->key.comm, SCHEDTIME_COMM_LEN);
		comm[SCHEDTIME_COMM_LEN] = 0;
		n = usym_stack(ps->usym, e->key.tgid, comm, ips, (unsigned)n, &e->uframes);
		if (n < 0) {
			e->uframes = NULL;
			err = n;
		} else {
			e->nuframes = (unsigned)n;
		}
	}
	usym_reap(ps->usym);
	return err;
}

int probe_schedtime_modules(struct probe_schedtime *ps, struct profile *p)
{
	return ps->usym ? kind_usym_modules(ps->usym, p) : 0;
}

/* Duty-cycled with wall_totals: a blocked thread's wait, under the stack
 * it blocked in, for the threads the programs saw no blocked interval of
 * in the window (core/probe/schedtime_wall.h gives it the time). */
static int st_wall_placeholders(const struct st_thread *thr, size_t nthr, struct st_table *out)
{
	for (size_t i = 0; i < nthr; i++) {
		struct schedtime_key k = { 0 };

		if (thr[i].st.state != SCHEDTIME_S_BLOCKED)
			continue;
		k.pid = thr[i].pid;
		k.tgid = thr[i].st.tgid;
		k.kind = SCHEDTIME_BLOCKED;
		k.stack_id = thr[i].st.stack_id;
		k.ustack_id = st_ustack_id(thr[i].st.ustack);
		k.other_kind = SCHEDTIME_OTHER_NONE;
		memcpy(k.comm, thr[i].st.comm, sizeof(k.comm));
		if (!st_table_get(out, &k))
			return -ENOMEM;
	}
	return 0;
}

static int st_wall_fix(struct probe_schedtime *ps, const struct st_thread *thr, size_t nthr,
		       struct probe_schedtime_snap *s)
{
	struct schedtime_wall_thread *th = calloc(nthr ? nthr : 1, sizeof(*th));
	size_t n = 0;
	int err;

	if (!th)
		return -ENOMEM;
	for (size_t i = 0; i < nthr; i++) {
		if (thr[i].st.state == SCHEDTIME_S_DEAD)
			continue;
		th[n].pid = thr[i].pid;
		th[n].tgid = thr[i].st.tgid;
		memcpy(th[n].comm, thr[i].st.comm, sizeof(th[n].comm));
		n++;
	}
	err = schedtime_wall_fix(&ps->wall, th, n, s);
	free(th);
	return err;
}

/* A read: with window, what accrued since the previous read_window (the
 * kernel's deltas, the parts in progress and those the detaches credited);
 * else everything since open. */
static int st_read(struct probe_schedtime *ps, const struct ksym_table *ks, int window,
		   struct probe_schedtime_snap **out)
{
	struct probe_schedtime_snap *s = calloc(1, sizeof(*s));
	struct st_table res = { 0 }, cum = { 0 };
	struct st_thread *thr = NULL;
	size_t nthr = 0;
	uint64_t now = mono_ns();
	int err = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	/* move the epoch first, then read (and credit what is in progress up
	 * to it) */
	if (window && ps->windows)
		__atomic_store_n(&ps->skel->bss->epoch_ns, now, __ATOMIC_SEQ_CST);
	err = st_cumulative(ps, &cum, &thr, &nthr);
	if (err)
		goto out;
	if (window && ps->windows && ps->attached)
		err = st_credit(ps, thr, nthr, ps->last_ns, now, 0, &res);
	if (!err)
		err = st_table_add_all(&res, window ? &ps->dcred : &ps->credited);
	if (err)
		goto out;
	if (window)
		st_table_free(&ps->dcred); /* in this window now */
	for (size_t i = 0; i < cum.cap; i++) {
		const struct probe_schedtime_entry *v = &cum.slot[i];
		struct probe_schedtime_entry *p, *w;
		struct schedtime_key nk;
		struct schedtime_val d = v->val;

		if (!cum.used[i])
			continue;
		if (window) {
			p = st_table_get(&ps->prev, &v->key);
			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			d.count -= p->val.count;
			d.total_ns -= p->val.total_ns;
			for (int b = 0; b < SCHEDTIME_BUCKETS; b++)
				d.hist[b] -= p->val.hist[b];
			p->val = v->val;
			if (!d.count && !d.total_ns)
				continue;
		}
		nk = st_named(ps, &v->key);
		w = st_table_get(&res, &nk);
		if (!w) {
			err = -ENOMEM;
			goto out;
		}
		st_val_add(&w->val, &d);
	}
	if (!err && window && ps->wall_totals && ps->gaps)
		err = st_wall_placeholders(thr, nthr, &res);
	if (!err)
		err = st_finish(ps, &res, ks, now, window, s);
	if (!err && window && ps->wall_totals && ps->gaps)
		err = st_wall_fix(ps, thr, nthr, s);
	if (!err && ps->usym)
		err = st_user_frames(ps, s);
out:
	free(thr);
	st_table_free(&cum);
	st_table_free(&res);
	if (err)
		probe_schedtime_snap_free(s);
	else
		*out = s;
	return err;
}

int probe_schedtime_read_window(struct probe_schedtime *ps, const struct ksym_table *ks,
				struct probe_schedtime_snap **out)
{
	/* a followed fork turned the early exit off: its set again */
	if (ps->tgid_set &&
	    __atomic_load_n(&ps->skel->bss->fast_n, __ATOMIC_SEQ_CST) > SCHEDTIME_FAST_N)
		st_fast_rebuild(ps);
	return st_read(ps, ks, 1, out);
}

int probe_schedtime_read(struct probe_schedtime *ps, const struct ksym_table *ks,
			 struct probe_schedtime_snap **out)
{
	return st_read(ps, ks, 0, out);
}

int probe_schedtime_reset(struct probe_schedtime *ps)
{
	int fd = bpf_map__fd(ps->skel->maps.agg), sfd = bpf_map__fd(ps->skel->maps.state);
	struct schedtime_akey key;
	uint32_t pid, next, *prev = NULL;

	/* deleting while iterating restarts from the first key each time */
	while (!bpf_map_get_next_key(fd, NULL, &key))
		if (bpf_map_delete_elem(fd, &key) && errno != ENOENT)
			return -errno;
	/* the threads' on-CPU totals (an interval ending meanwhile may keep
	 * its few microseconds) */
	while (!bpf_map_get_next_key(sfd, prev, &next)) {
		struct schedtime_state st;

		pid = next;
		prev = &pid;
		if (bpf_map_lookup_elem(sfd, &pid, &st))
			continue;
		st.oncpu_count = st.oncpu_ns = 0;
		bpf_map_update_elem(sfd, &pid, &st, BPF_EXIST);
	}
	st_table_free(&ps->prev);
	st_table_free(&ps->retired);
	st_table_free(&ps->credited);
	st_table_free(&ps->dcred);
	ps->open_ns = ps->last_ns = mono_ns();
	ps->att_ns = ps->att_at_read = 0;
	ps->att_start_ns = ps->open_ns;
	ps->gaps = ps->gaps_at_read = ps->nph = 0;
	if (ps->windows)
		__atomic_store_n(&ps->skel->bss->epoch_ns, ps->open_ns, __ATOMIC_SEQ_CST);
	return 0;
}
