// SPDX-License-Identifier: GPL-2.0
/* schedtime — blocked, runnable and on-CPU time per tracked thread, with
 * the waker (task, hardirq or softirq) and who ran instead.  See
 * bpf/schedtime.h for the maps' meaning: it is the contract between this
 * program and its user side (core/probe/probe_schedtime.c).
 *
 * State machine per thread (map `state`, key pid):
 *   sched_switch, prev (current):  RUNNING -> BLOCKED (not runnable) or
 *       RUNNABLE (preempted / yielded), the kernel stack of prev taken here;
 *       the RUNNING interval is charged as ONCPU.  A dead task is dropped.
 *   sched_switch, next:  BLOCKED (no wakeup seen) is charged as BLOCKED with
 *       waker NONE; RUNNABLE is split among the tasks that ran on this CPU
 *       meanwhile (a per-CPU history of the last runs), "ran instead";
 *       -> RUNNING.
 *   sched_waking(p) (the waker's context):  BLOCKED is charged with the
 *       waker; -> RUNNABLE.
 *   sched_wakeup_new(p):  a new tracked thread starts RUNNABLE.
 * The waker is the interrupt when the wakeup runs in one: the per-CPU
 * context comes from the irq_handler, softirq and hrtimer_expire
 * tracepoints, which also name the irq and the vector (a hardirq inside a
 * softirq is the innermost: hardirq).  preempt_count would also see the
 * hardirqs without a tracepoint (IPIs), but this kernel does not resolve
 * the per-CPU __preempt_count ksym ("failed to find the address"), so those
 * are named after the task they interrupted.  The interrupted task is not
 * the waker otherwise.  A wakeup in a softirq delivering a packet that a
 * tracked task sent is that task's (issue 25: over loopback TCP the NET_RX
 * softirq wakes the receiver): net_dev_queue records the sender by the
 * sk_buff, netif_receive_skb finds it as the softirq delivers it; the key
 * is then a TASK waker with other_vec SCHEDTIME_VIA(vector).  A packet
 * the sender's stack split or copied on the way (GSO segments, a veth's
 * GRO) is not found: that wakeup stays the softirq's.
 *
 * Cost (this runs on every context switch of the machine): the scope is
 * decided first (the state map, else the filter and the tgid set), and
 * nothing else is done for a task out of it but this CPU's run history
 * ("ran instead" needs who ran, tracked or not).  On-CPU time is added in
 * the thread's state entry, not in the aggregate; the aggregate key is 20
 * bytes without names (the names are written once per new key); the
 * blocking stack is cached in the thread's state (2 ways by {syscall, task
 * state}, walked again every SCHEDTIME_REWALK uses); tp_btf programs read
 * task fields with plain loads, the raw_tp twins with probe reads (ST_READ).
 * Sampling: beyond the first sample_after blocked/runnable intervals of a
 * thread in a window, an interval is sampled with probability
 * 2^-sample_shift (decided when it begins: the stack is walked and the
 * aggregate touched only for sampled ones) and charged with weight
 * 2^sample_shift (count, time and histogram); an interval that lasted
 * SCHEDTIME_LONG_NS or more is always charged, with weight 1 (it carries
 * much time: sampling it would make the estimate jumpy), under the stack
 * cached for the thread when it was not sampled.  Unbiased either way (the
 * weight is 1 / the probability of being charged); on-CPU time and the
 * state machine stay exact.  A thread that switches less than
 * sample_after times a window (the victims, the model's loads with think
 * times) is counted exactly.
 *
 * Intervals are charged when they end, only from max(start, epoch_ns):
 * user space moves epoch_ns at each per-window read and credits the part of
 * each interval still in progress itself, so a long block is spread over the
 * windows it covers.  The histogram takes the full length.  tp_btf programs
 * are preferred, raw_tp twins are the fallback (same code, CO-RE reads).
 *
 * Duty cycling (core/probe/schedtime_duty.h): user space may detach the programs
 * and attach them again; `gen` counts the attaches and every state entry
 * holds the gen that wrote it.  A state of an earlier gen says what a
 * thread did before a gap the programs did not see, so it starts nothing:
 * the thread's next event starts a fresh interval and charges none
 * (counters.stale), except on-CPU time, which is charged from attach_ns
 * (the thread switching out was on the CPU since at least then).  In the
 * first phase (gen 1) a thread first seen late is charged from attach_ns
 * as before (what the per-window sums of the time tree need); in later
 * phases a thread without state starts fresh too.  So after the first
 * phase blocked and runnable intervals are charged only when they begin
 * and end within one phase.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "schedtime.h"
#include "filter.bpf.h"
#include "task.bpf.h"
#include "irqctx.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define ST_TASK_RUNNING 0
#define ST_TASK_DEAD 0x80

const volatile __u32 tgid_set_on = 0;      /* track only tgids in `tgids` */
const volatile __u32 follow_forks = 0;     /* children of tracked tgids join */
const volatile __u32 exclude_tgid = 0;     /* never tracked (argus itself) */
const volatile __u32 no_stacks = 0;        /* NO_STACK everywhere (cheaper) */
const volatile __u32 user_stacks = 0;      /* the user stack too, at each sampled
                                            * block or preemption (issue 27) */

const volatile __u32 sample_shift = 0;     /* 0: every interval exact */
const volatile __u32 sample_after = 0;     /* exact intervals per thread and window */

__u64 epoch_ns = 0;                        /* written by user space */
__u64 attach_ns = 0;                       /* start for threads first seen late */
__u32 gen = 0;                             /* the on-phase: user space counts its
                                            * attaches (1: the first), see below */

/* issue 26: an early exit for the tasks not followed.  With a tgid set of
 * a few processes (a victim and its children), the tgids compared here
 * before any map lookup: a task of any other process (a message-heavy
 * aggressor switching 10^5 times a second) costs the run history of its
 * CPU and nothing more.  Written by user space only (open, add_tgid and
 * each read_window: core/probe/probe_schedtime.c st_fast_rebuild); a followed
 * fork turns it off (fast_dirty, then fast_n beyond SCHEDTIME_FAST_TGIDS:
 * the tgids map decides, as before) until user space has rebuilt it from
 * the map — no atomics with a result, which this target lacks. */
#define SCHEDTIME_FAST_TGIDS 8
__u32 fast_tgid[SCHEDTIME_FAST_TGIDS] = {};
__u32 fast_n = 0;        /* off while fast_on is 0 */
__u32 fast_on = 0;
__u32 fast_dirty = 0;

/* 1: tgid is surely not tracked (no state entry can be its) */
static __always_inline int not_followed(__u32 tgid)
{
	__u32 n = fast_n;

	if (!fast_on || n > SCHEDTIME_FAST_TGIDS)
		return 0;
	for (int i = 0; i < SCHEDTIME_FAST_TGIDS; i++)
		if (i < n && fast_tgid[i] == tgid)
			return 0;
	return 1;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct schedtime_state);
	__uint(max_entries, 1); /* set at run time */
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct schedtime_akey);
	__type(value, struct schedtime_val);
	__uint(max_entries, 1); /* set at run time */
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u32);
	__type(value, struct schedtime_name);
	__uint(max_entries, 1); /* set at run time */
} names SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SCHEDTIME_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SCHEDTIME_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time (SCHEDTIME_MAX_USTACKS at most) */
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);     /* tgid */
	__type(value, __u8);
	__uint(max_entries, 1); /* set at run time */
} tgids SEC(".maps");

IRQCTX_MAP(struct schedtime_cpuctx)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct schedtime_counters);
	__uint(max_entries, 1);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct schedtime_runs);
	__uint(max_entries, 1);
} runs SEC(".maps");

/* sk_buff address -> the tracked task that sent it (schedtime.h).  LRU:
 * a packet never delivered here (sent off the machine, dropped) ages
 * out. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct schedtime_sender);
	__uint(max_entries, 4096);
} senders SEC(".maps");

/* work_struct address -> the tracked task that queued it (LRU, as
 * senders). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct schedtime_sender);
	__uint(max_entries, 4096);
} queuers SEC(".maps");

/* A zeroed value to insert; too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct schedtime_val);
	__uint(max_entries, 1);
} zero_val SEC(".maps");

/* A task field: a plain load through the BTF pointer of a tp_btf program
 * (btf a constant 1: the other branch is not compiled), a probe read in the
 * raw_tp twin, whose arguments are plain numbers to the verifier. */
#define ST_READ(btf, t, f) ((btf) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline struct schedtime_counters *ctrs(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The step filter (filter.bpf.h's rodata) on task t rather than current,
 * plus the tgid set: sched_switch's next and sched_waking's wakee are not
 * the current task.  Only for a task without a state entry. */
static __always_inline int tracked(struct task_struct *t, __u32 pid, __u32 tgid)
{
	if (!pid || (exclude_tgid && tgid == exclude_tgid))
		return 0;
	if ((filter_pid && pid != filter_pid) || (filter_tgid && tgid != filter_tgid))
		return 0;
	if (tgid_set_on && !bpf_map_lookup_elem(&tgids, &tgid))
		return 0;
	if (filter_cgroup && BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id) != filter_cgroup)
		return 0;
	if (filter_comm_on) {
		char comm[FILTER_COMM_LEN] = {};

		bpf_core_read_str(comm, sizeof(comm), &t->comm);
		if (!filter_comm_matches(comm))
			return 0;
	}
	return 1;
}

/* The live state entry of pid, or NULL.  An entry left DEAD by an exited
 * thread is returned in *dead (a new thread of that pid continues its
 * totals, see st_adopt). */
static __always_inline struct schedtime_state *st_get(__u32 pid, struct schedtime_state **dead)
{
	struct schedtime_state *sp = bpf_map_lookup_elem(&state, &pid);

	*dead = NULL;
	if (sp && sp->state == SCHEDTIME_S_DEAD) {
		*dead = sp;
		return NULL;
	}
	return sp;
}

/* A state of an earlier on-phase (see the top). */
static __always_inline int st_stale(const struct schedtime_state *sp)
{
	return sp->gen != gen;
}

/* A new entry st for a thread (its name and tgid set by the caller),
 * taking over the on-CPU totals of a dead entry of the same pid. */
static __always_inline void st_adopt(struct schedtime_state *st, const struct schedtime_state *dead)
{
	st->gen = gen;
	if (dead) {
		st->oncpu_count = dead->oncpu_count;
		st->oncpu_ns = dead->oncpu_ns;
	}
}

static __always_inline void st_insert(__u32 pid, struct schedtime_state *st,
				      struct schedtime_counters *c)
{
	if (bpf_map_update_elem(&state, &pid, st, BPF_ANY) && c)
		c->map_full++;
}

/* [from, to) after the epoch, in ns. */
static __always_inline __u64 st_part(__u64 from, __u64 to)
{
	__u64 ep = epoch_ns;

	if (from < ep)
		from = ep;
	return to > from ? to - from : 0;
}

/* The interval in progress of sp ends (before its state changes): if it
 * began before the epoch, a read has moved the epoch since and credits
 * the part before it from the state (core/probe/probe_schedtime.c
 * st_credit); a read that looks at the state only after this, having
 * moved the epoch before (the read runs beside the programs), would find
 * the interval gone and that part would be counted nowhere: kept in
 * pre_* for it.  A rarely switching thread lost whole windows so. */
static __always_inline void st_end_interval(struct schedtime_state *sp)
{
	__u64 ep = epoch_ns;

	if (sp->ts >= ep)
		return;
	sp->pre_epoch = ep;
	sp->pre_ts = sp->ts;
	sp->pre_state = sp->state;
	sp->pre_stack_id = sp->stack_id;
	sp->pre_ustack = sp->ustack;
}

/* The weight of an interval of sp beginning now (see the top): 1, or
 * 2^sample_shift with probability 2^-sample_shift, else 0. */
static __always_inline __u32 st_weight(struct schedtime_state *sp, struct schedtime_runs *rs,
				       struct schedtime_counters *c)
{
	__u64 ep = epoch_ns;
	__u32 x;

	if (!sample_shift)
		return 1;
	if (sp->win_epoch != ep) {
		sp->win_epoch = ep;
		sp->win_n = 0;
	}
	if (++sp->win_n <= sample_after)
		return 1;
	if (rs) { /* xorshift32 per CPU: no helper call */
		x = rs->rng ? rs->rng : 2463534242u;
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		rs->rng = x;
	} else {
		x = bpf_get_prandom_u32();
	}
	if (!(x & ((1u << sample_shift) - 1)))
		return 1u << sample_shift;
	if (c)
		c->unsampled++;
	return 0;
}

/* The weight to charge an interval of weight w (st_weight) that lasted
 * full ns with: long ones always, exactly. */
#define SCHEDTIME_LONG_NS (1ull << 16)
static __always_inline __u32 st_w_end(__u32 w, __u64 full)
{
	return full >= SCHEDTIME_LONG_NS ? 1 : w;
}

/* Name of the other side of a new key: current (name_task 0) or the task
 * of a run (it may have exited since: then whatever its memory holds, or
 * nothing; never a fault). */
static __always_inline void name_other(__u32 pid, __u32 tgid, struct task_struct *name_task)
{
	struct schedtime_name n = { .tgid = tgid };

	if (!pid)
		return; /* idle: "swapper" on the user side */
	if (name_task)
		bpf_probe_read_kernel_str(n.comm, sizeof(n.comm), &name_task->comm);
	else
		bpf_get_current_comm(n.comm, sizeof(n.comm));
	bpf_map_update_elem(&names, &pid, &n, BPF_ANY);
}

/* The aggregate entry of k, inserted zeroed when absent (then the other
 * side's name is written: other_tgid, name_task as name_other). */
static __always_inline struct schedtime_val *agg_get(struct schedtime_akey *k, __u32 other_tgid,
						     struct task_struct *name_task,
						     struct schedtime_counters *c)
{
	struct schedtime_val *v = bpf_map_lookup_elem(&agg, k), *z;
	__u32 zero = 0;

	if (v)
		return v;
	z = bpf_map_lookup_elem(&zero_val, &zero);
	if (!z)
		return NULL;
	bpf_map_update_elem(&agg, k, z, BPF_NOEXIST);
	v = bpf_map_lookup_elem(&agg, k);
	if (!v) {
		if (c)
			c->map_full++;
		return NULL;
	}
	if (k->other_kind == SCHEDTIME_OTHER_TASK)
		name_other(k->other_pid, other_tgid, name_task);
	return v;
}

/* Adds one interval of d ns (full: its whole length, for the histogram).
 * Plain adds: a key holds one thread, whose intervals end one at a time; a
 * locked add per field cost more than the rest of a charge. */
static __always_inline void charge(struct schedtime_akey *k, __u64 d, __u64 full, __u32 w,
				   __u32 other_tgid, struct task_struct *name_task,
				   struct schedtime_counters *c)
{
	struct schedtime_val *v;

	if (!w)
		return;
	v = agg_get(k, other_tgid, name_task, c);
	if (!v)
		return;
	v->count += w;
	v->total_ns += d * w;
	v->hist[filter_log2(full) & (SCHEDTIME_BUCKETS - 1)] += w;
	if (c)
		c->intervals++;
}

/* Adds d ns to k's time only: one part of an interval whose count and
 * histogram another charge takes. */
static __always_inline void charge_part(struct schedtime_akey *k, __u64 d, __u32 w,
					__u32 other_tgid, struct task_struct *name_task,
					struct schedtime_counters *c)
{
	struct schedtime_val *v;

	if (!d || !w)
		return;
	v = agg_get(k, other_tgid, name_task, c);
	if (v)
		v->total_ns += d * w;
}

/* What current's syscall says of a wakeup it makes (schedtime.h
 * SCHEDTIME_BY_*): x86_64 numbers. */
static __always_inline __u32 waker_syscall(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pt_regs *regs;
	long nr;

	if (cur->flags & 0x00200000) /* PF_KTHREAD: no syscall, its regs mean nothing */
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	nr = regs ? (long)regs->orig_ax : -1;

	switch (nr) {
	case 1: case 18: case 20: case 44: case 46: case 296: case 307: case 328:
		/* write pwrite64 writev sendto sendmsg pwritev sendmmsg pwritev2 */
		return SCHEDTIME_BY_SEND;
	case 0: case 17: case 19: case 45: case 47: case 295: case 299: case 327:
		/* read pread64 readv recvfrom recvmsg preadv recvmmsg preadv2 */
		return SCHEDTIME_BY_RECV;
	}
#endif
	return 0;
}

/* The waker: interrupt context when the wakeup runs in one, else current;
 * in a softirq delivering a packet a tracked task sent, that task (*name:
 * its task_struct, for the name of a new key; else NULL, current). */
static __always_inline __u32 waker_of(struct schedtime_akey *k, struct schedtime_counters *c,
				      __u64 pt, struct task_struct **name)
{
	struct schedtime_cpuctx *x;
	__u32 zero = 0;

	*name = NULL;
	x = bpf_map_lookup_elem(&cpuctx, &zero);
	/* an hrtimer expiring inside a softirq other than HRTIMER_SOFTIRQ (8)
	 * runs in the hardirq that interrupted it: a timer, not the softirq
	 * (nor the sender of the packet the softirq was delivering) */
	if (x && (x->irq || (x->hrtimer && x->softirq != 8 + 1))) {
		k->other_kind = SCHEDTIME_OTHER_HARDIRQ;
		k->other_vec = x->irq ? x->irq - 1 : SCHEDTIME_IRQ_TIMER;
		if (c)
			c->wake_hardirq++;
		return 0;
	}
	if (x && x->softirq && x->rx.pid) {
		k->other_kind = SCHEDTIME_OTHER_TASK;
		k->other_pid = x->rx.pid;
		k->other_vec = SCHEDTIME_VIA(x->softirq - 1);
		*name = (struct task_struct *)x->rx.task;
		if (c) {
			c->wake_task++;
			c->wake_sender++;
		}
		return x->rx.tgid;
	}
	if (x && x->softirq) {
		k->other_kind = SCHEDTIME_OTHER_SOFTIRQ;
		k->other_vec = x->softirq - 1;
		if (c)
			c->wake_softirq++;
		return 0;
	}
	k->other_kind = SCHEDTIME_OTHER_TASK;
	if (x && x->wq.pid && x->wq_worker == (__u32)pt) {
		/* a kworker running a work item a tracked task queued */
		k->other_pid = x->wq.pid;
		k->other_vec = SCHEDTIME_VIA_WORK;
		*name = (struct task_struct *)x->wq.task;
		if (c) {
			c->wake_task++;
			c->wake_queuer++;
		}
		return x->wq.tgid;
	}
	k->other_pid = (__u32)pt;
	k->other_vec = waker_syscall();
	if (c)
		c->wake_task++;
	return pt >> 32;
}

/* Ends the runnable interval of pid (state sp) at now: each task that ran
 * on this CPU meanwhile (newest first, from the history rs) gets its
 * overlap; the newest (prev, current) takes what is older than the
 * history, the count and the histogram.  skip: the newest runs that are
 * not another task's (0 at a switch-in, where the newest is prev; 1 at
 * an unseen switch-in, where it is pid's own run: switch_out). */
static __always_inline void runnable_split(__u32 pid, struct schedtime_state *sp,
					   struct schedtime_runs *rs, __u64 now, __u64 pt,
					   const int skip, struct schedtime_counters *c)
{
	struct schedtime_akey k = { .pid = pid, .stack_id = sp->stack_id, .ustack = sp->ustack,
				    .kind = SCHEDTIME_RUNNABLE, .other_kind = SCHEDTIME_OTHER_TASK };
	__u64 from = sp->ts, to = now, full = now > sp->start_ts ? now - sp->start_ts : 0;
	struct schedtime_run *r;
	__u32 w = st_w_end(sp->w, full);

	if (!w)
		return;
	if (!rs) {
		k.other_pid = (__u32)pt;
		charge(&k, st_part(from, now), full, w, pt >> 32, 0, c);
		return;
	}
	for (int i = 1 + skip; i < SCHEDTIME_RUNS; i++) {
		__u64 a, b;

		r = &rs->r[(rs->head - 1 - i) & (SCHEDTIME_RUNS - 1)];
		if (rs->head < (__u32)i + 1 || to <= from || r->end <= from)
			break;
		a = r->start > from ? r->start : from;
		b = r->end < to ? r->end : to;
		if (b > a) {
			k.other_pid = r->pid;
			charge_part(&k, st_part(a, b), w, r->tgid, (struct task_struct *)r->task, c);
		}
		/* older than this run: only runs before it can have it */
		to = r->start < to ? r->start : to;
	}
	/* the newest run (prev, just recorded): its own run [r->start, now)
	 * plus any older part no run kept, in one charge.  Named by the run's
	 * task, not current's name: at an unseen switch-in (skip 1) current
	 * is pid itself, and its name written under r->pid misnamed that
	 * task in every key (live/schedtime: st-tping's pid as "st-pwrite") */
	r = &rs->r[(rs->head - 1 - skip) & (SCHEDTIME_RUNS - 1)];
	k.other_pid = r->pid;
	charge(&k, st_part(from, to < r->start ? to : r->start) +
		   st_part(r->start > sp->ts ? r->start : sp->ts, now), full, w, r->tgid,
	       (struct task_struct *)r->task, c);
}

/* The kernel stack id of current (prev) at its block or preemption, from
 * the thread's cache when it blocked the same way lately; walk 0 (an
 * interval not sampled): the cached one or none, never a walk. */
static __always_inline __u32 block_stack(void *ctx, struct schedtime_state *sp,
					 struct task_struct *cur, long pstate, int preempt,
					 int walk, struct schedtime_counters *c)
{
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	__u64 key = (regs ? (__u32)regs->orig_ax : 0xffffffffu) |
		    ((__u64)(pstate & 0xffff) << 32) | ((__u64)!!preempt << 63);
	long id;
	int w;

	if (no_stacks)
		return SCHEDTIME_NO_STACK;
	for (w = 0; w < SCHEDTIME_SC_WAYS; w++) {
		if (sp->sc[w].uses && sp->sc[w].key == key) {
			if (!walk || ++sp->sc[w].uses % SCHEDTIME_REWALK)
				return sp->sc[w].stack_id;
			break;
		}
	}
	if (!walk)
		return SCHEDTIME_NO_STACK;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0) {
		if (c)
			c->stack_error++;
		return SCHEDTIME_NO_STACK;
	}
	if (w >= SCHEDTIME_SC_WAYS) {
		w = sp->sc_next++ & (SCHEDTIME_SC_WAYS - 1);
		sp->sc[w & (SCHEDTIME_SC_WAYS - 1)].key = key;
		sp->sc[w & (SCHEDTIME_SC_WAYS - 1)].uses = 1;
	}
	sp->sc[w & (SCHEDTIME_SC_WAYS - 1)].stack_id = (__u32)id;
	return (__u32)id;
}

#define ST_FRAME_REACH (64u << 10) /* the caller's frame within 64 KiB of sp */

/* The user stack of current (prev) at its block or preemption, as its id
 * + 1, 0 for none: a kernel thread has none, a failed walk is counted.
 * From the thread's cache when it entered the kernel from the same place
 * lately (struct schedtime_uc); taken only for a sampled interval, so the
 * duty cycle and the sampling bound its cost with the kernel walk's. */
static __always_inline __u16 block_ustack(void *ctx, struct schedtime_state *sp,
					  struct task_struct *cur, struct schedtime_counters *c)
{
	struct pt_regs *regs;
	__u64 unused = 0, ret = 0, key;
	long id;
	int w;

	if (cur->flags & TASK_PF_KTHREAD)
		return 0;
	regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	if (!regs)
		return 0;
	/* a frame pointer points into the stack just above sp; code built
	 * without them (most of Debian's libraries) uses rbp for anything,
	 * and a word read through it would make every block a new key */
	if (regs->bp > regs->sp && regs->bp - regs->sp < ST_FRAME_REACH)
		bpf_probe_read_user(&ret, sizeof(ret), (void *)(regs->bp + 8));
	key = regs->ip ^ (ret * 0x9e3779b97f4a7c15ull);
	for (w = 0; w < SCHEDTIME_UC_WAYS; w++) {
		if (sp->uc[w].uses && sp->uc[w].key == key) {
			if (++sp->uc[w].uses % SCHEDTIME_REWALK)
				return sp->uc[w].ustack;
			break;
		}
	}
	id = task_user_stack(ctx, cur, &ustacks, c ? &c->ustack_error : &unused);
	if (id < 0 || id >= SCHEDTIME_MAX_USTACKS)
		return 0;
	if (w >= SCHEDTIME_UC_WAYS) {
		w = sp->uc_next++ & (SCHEDTIME_UC_WAYS - 1);
		sp->uc[w & (SCHEDTIME_UC_WAYS - 1)].key = key;
		sp->uc[w & (SCHEDTIME_UC_WAYS - 1)].uses = 1;
	}
	sp->uc[w & (SCHEDTIME_UC_WAYS - 1)].ustack = (__u16)(id + 1);
	return (__u16)(id + 1);
}

/* prev (current) leaves the CPU while its state says it is not on one
 * (RUNNABLE or BLOCKED, this phase): the switch that put it there showed
 * no sched_switch.  Such switches exist: on the test VM no switch away
 * from one task (a management agent) reaches the tracepoint, ftrace's
 * event included, so whatever follows it on the CPU comes on unseen.
 * Left as it was, the wait and the whole run after it were charged to
 * nothing (the run is charged from the switch-in, the wait at it): a
 * victim alone on a CPU, that switches rarely, lost a tenth of a window
 * and more (tests/live/victim_errors).  It came on after the last switch
 * seen on this CPU (the start of the run just recorded for it in rs), or
 * after its state began if later: the wait up to there is charged as its
 * switch-in would have, and it is RUNNING from there (the unseen task's
 * run, usually short, counted with it) for the caller to charge. */
static __always_inline void unseen_switch_in(__u32 pid, struct schedtime_state *sp,
					     struct schedtime_runs *rs, __u64 now, __u64 pt,
					     struct schedtime_counters *c)
{
	__u64 in = sp->ts, full;

	if (rs) {
		__u64 seen = rs->r[(rs->head - 1) & (SCHEDTIME_RUNS - 1)].start;

		if (seen > in && seen < now)
			in = seen;
	}
	if (sp->state == SCHEDTIME_S_BLOCKED) {
		struct schedtime_akey k = { .pid = pid, .stack_id = sp->stack_id,
					    .ustack = sp->ustack, .kind = SCHEDTIME_BLOCKED,
					    .other_kind = SCHEDTIME_OTHER_NONE };

		full = in > sp->start_ts ? in - sp->start_ts : 0;
		charge(&k, st_part(sp->ts, in), full, st_w_end(sp->w, full), 0, 0, c);
	} else if (rs) {
		runnable_split(pid, sp, rs, in, pt, 1, c);
	}
	st_end_interval(sp);
	sp->state = SCHEDTIME_S_RUNNING;
	sp->ts = sp->start_ts = in;
	if (c)
		c->unseen_switch_in++;
}

/* prev (current) leaves the CPU. */
static __always_inline void switch_out(void *ctx, int preempt, __u64 pt, __u64 now,
				       struct schedtime_runs *rs, struct schedtime_counters *c)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct schedtime_state *sp, *dead, st;
	__u32 pid = (__u32)pt, tgid = pt >> 32;
	int fresh = 0;
	long pstate;

	sp = st_get(pid, &dead);
	if (sp && st_stale(sp)) {
		/* on the CPU since at least this phase's attach */
		sp->gen = gen;
		sp->state = SCHEDTIME_S_SEEDED;
		sp->ts = sp->start_ts = attach_ns;
		if (c)
			c->stale++;
	}
	if (!sp) {
		if (!tracked(cur, pid, tgid))
			return;
		/* running since before we attached */
		__builtin_memset(&st, 0, sizeof(st));
		st.tgid = tgid;
		bpf_get_current_comm(st.comm, sizeof(st.comm));
		st_adopt(&st, dead);
		st.oncpu_count++;
		st.oncpu_ns += st_part(attach_ns, now);
		sp = &st;
		fresh = 1;
	} else {
		if (sp->state != SCHEDTIME_S_RUNNING && sp->state != SCHEDTIME_S_SEEDED)
			unseen_switch_in(pid, sp, rs, now, pt, c); /* RUNNING since it came on */
		sp->oncpu_count++;
		sp->oncpu_ns += st_part(sp->ts, now);
		/* after an unseen switch-in this ends the second of two
		 * intervals (the wait, then the run from `in`): only one of
		 * them can span the epoch, and this call keeps pre_* only when
		 * it is the run (ts < epoch), so the wait's, kept by the first
		 * call, is overwritten only when it did not span it */
		st_end_interval(sp);
	}
	if (c)
		c->intervals++;
	pstate = task_state_btf(cur);
	if (pstate & ST_TASK_DEAD) {
		/* kept for user space to read its totals; it deletes it */
		sp->state = SCHEDTIME_S_DEAD;
		if (fresh)
			st_insert(pid, &st, c);
		if (c)
			c->exits++;
		return;
	}
	/* a new name (exec, prctl) shows within a few switches: reading it
	 * at every one costs */
	if (!fresh && !(now & 0x1f00))
		bpf_get_current_comm(sp->comm, sizeof(sp->comm));
	sp->w = st_weight(sp, rs, c);
	sp->stack_id = block_stack(ctx, sp, cur, pstate, preempt, sp->w != 0, c);
	sp->ustack = user_stacks && sp->w ? block_ustack(ctx, sp, cur, c) : 0;
	sp->ts = sp->start_ts = now;
	sp->state = preempt || pstate == ST_TASK_RUNNING ? SCHEDTIME_S_RUNNABLE : SCHEDTIME_S_BLOCKED;
	if (fresh)
		st_insert(pid, &st, c);
}

/* next comes on the CPU. */
static __always_inline void switch_in(const int btf, struct task_struct *next, __u32 pid,
				      struct schedtime_runs *rs, __u64 now, __u64 pt,
				      struct schedtime_counters *c)
{
	struct schedtime_state *sp, *dead, st;
	struct schedtime_akey k = { .pid = pid, .kind = SCHEDTIME_BLOCKED,
				    .other_kind = SCHEDTIME_OTHER_NONE };
	__u32 tgid;

	sp = st_get(pid, &dead);
	if (sp && st_stale(sp)) {
		/* blocked or runnable through a gap: no interval */
		sp->gen = gen;
		sp->state = SCHEDTIME_S_RUNNING;
		sp->ts = sp->start_ts = now;
		if (c)
			c->stale++;
		return;
	}
	if (!sp) {
		tgid = ST_READ(btf, next, tgid);
		if (!tracked(next, pid, tgid))
			return;
		/* blocked or waiting since before we attached: unknown which */
		__builtin_memset(&st, 0, sizeof(st));
		st.tgid = tgid;
		bpf_probe_read_kernel_str(st.comm, sizeof(st.comm), &next->comm);
		st_adopt(&st, dead);
		k.stack_id = SCHEDTIME_NO_STACK;
		if (c)
			c->unseen_wakeups++;
		st.state = SCHEDTIME_S_RUNNING;
		st.ts = st.start_ts = now;
		st.stack_id = SCHEDTIME_NO_STACK;
		st_insert(pid, &st, c); /* first: the key's wakee name is in it */
		if (gen <= 1)
			charge(&k, st_part(attach_ns, now), now - attach_ns, 1, 0, 0, c);
		return;
	}
	if (sp->state == SCHEDTIME_S_BLOCKED) {
		k.stack_id = sp->stack_id;
		k.ustack = sp->ustack;
		charge(&k, st_part(sp->ts, now), now - sp->start_ts,
		       st_w_end(sp->w, now - sp->start_ts), 0, 0, c);
		if (c)
			c->unseen_wakeups++;
	} else if (sp->state == SCHEDTIME_S_RUNNABLE || sp->state == SCHEDTIME_S_SEEDED) {
		runnable_split(pid, sp, rs, now, pt, 0, c);
	}
	st_end_interval(sp);
	sp->state = SCHEDTIME_S_RUNNING;
	sp->ts = sp->start_ts = now;
}

static __always_inline void on_switch(void *ctx, const int btf, bool preempt,
				      struct task_struct *prev, struct task_struct *next)
{
	struct schedtime_counters *c = ctrs();
	struct schedtime_runs *rs;
	__u64 now = bpf_ktime_get_ns(), pt = bpf_get_current_pid_tgid();
	__u32 zero = 0, npid;

	if (c)
		c->switches++;
	/* this CPU's history: prev ran from cur_start to now */
	rs = bpf_map_lookup_elem(&runs, &zero);
	if (rs) {
		struct schedtime_run *r = &rs->r[rs->head & (SCHEDTIME_RUNS - 1)];

		r->start = rs->cur_start;
		r->end = now;
		r->pid = (__u32)pt;
		r->tgid = pt >> 32;
		r->task = (__u64)prev; /* its name is read only for a new key */
		rs->head++;
		rs->cur_start = now;
	}
	if ((__u32)pt && !not_followed(pt >> 32))
		switch_out(ctx, preempt, pt, now, rs, c);
	npid = ST_READ(btf, next, pid);
	if (npid && !not_followed(ST_READ(btf, next, tgid)))
		switch_in(btf, next, npid, rs, now, pt, c);
}

static __always_inline void on_waking(const int btf, struct task_struct *p)
{
	struct schedtime_state *sp, *dead, st;
	struct schedtime_akey k = { .kind = SCHEDTIME_BLOCKED };
	struct schedtime_counters *c;
	struct task_struct *wname;
	__u32 pid = ST_READ(btf, p, pid), tgid, wtgid, w;
	__u64 now, pt, full;
	int fresh = 0;

	if (!pid || not_followed(ST_READ(btf, p, tgid)))
		return;
	sp = st_get(pid, &dead);
	if (sp && st_stale(sp)) {
		if (ST_READ(btf, p, on_cpu))
			return; /* its switch-out starts its phase */
		/* blocked through a gap: no interval; the runnable one is seen */
		sp->gen = gen;
		sp->state = SCHEDTIME_S_RUNNABLE;
		sp->ts = sp->start_ts = bpf_ktime_get_ns();
		sp->stack_id = SCHEDTIME_NO_STACK;
		sp->ustack = 0;
		sp->w = 1;
		c = ctrs();
		if (c)
			c->stale++;
		return;
	}
	if (sp && sp->state != SCHEDTIME_S_BLOCKED)
		return; /* running (woken before it switched out) or runnable */
	if (!sp) {
		tgid = ST_READ(btf, p, tgid);
		if (!tracked(p, pid, tgid) || ST_READ(btf, p, on_cpu))
			return;
		/* blocked since before we attached */
		__builtin_memset(&st, 0, sizeof(st));
		st.tgid = tgid;
		st.stack_id = SCHEDTIME_NO_STACK;
		st.ts = st.start_ts = attach_ns;
		st.w = 1;
		bpf_probe_read_kernel_str(st.comm, sizeof(st.comm), &p->comm);
		st_adopt(&st, dead);
		sp = &st;
		fresh = 1;
	}
	now = bpf_ktime_get_ns();
	c = ctrs();
	if (c)
		c->wakeups++;
	full = now > sp->start_ts ? now - sp->start_ts : 0;
	w = fresh && gen > 1 ? 0 : st_w_end(sp->w, full);
	pt = bpf_get_current_pid_tgid();
	k.pid = pid;
	k.stack_id = sp->stack_id;
	k.ustack = sp->ustack;
	/* every wakeup, charged or not: the flag below follows each one */
	wtgid = waker_of(&k, w ? c : NULL, pt, &wname);
	/* a message after a write-space wakeup by the same process: the
	 * call that process's read of the request already showed */
	if (k.other_kind == SCHEDTIME_OTHER_TASK && (k.other_vec & SCHEDTIME_BY_SEND) &&
	    sp->recv_waker && sp->recv_waker == wtgid)
		k.other_vec |= SCHEDTIME_AFTER_RECV;
	sp->recv_waker = k.other_kind == SCHEDTIME_OTHER_TASK && (k.other_vec & SCHEDTIME_BY_RECV) ?
			 wtgid : 0;
	if (w)
		charge(&k, st_part(sp->ts, now), full, w, wtgid, wname, c);
	if (!fresh)
		st_end_interval(sp);
	/* the runnable interval that follows has the same weight: it needs
	 * the same stack */
	sp->state = SCHEDTIME_S_RUNNABLE;
	sp->ts = sp->start_ts = now;
	if (fresh)
		st_insert(pid, &st, c);
}

static __always_inline void on_wakeup_new(const int btf, struct task_struct *p)
{
	struct schedtime_state *sp, *dead, st = {};
	__u32 pid = ST_READ(btf, p, pid), tgid = ST_READ(btf, p, tgid);

	sp = st_get(pid, &dead);
	if (!sp && !tracked(p, pid, tgid))
		return;
	st_adopt(&st, sp ? sp : dead);
	st.w = 1;
	st.state = SCHEDTIME_S_RUNNABLE;
	st.ts = st.start_ts = bpf_ktime_get_ns();
	st.stack_id = SCHEDTIME_NO_STACK;
	st.ustack = 0;
	st.tgid = tgid;
	bpf_probe_read_kernel_str(st.comm, sizeof(st.comm), &p->comm);
	st_insert(pid, &st, ctrs());
}

static __always_inline void on_fork(const int btf, struct task_struct *parent,
				    struct task_struct *child)
{
	struct schedtime_counters *c;
	__u32 pt, ct;
	__u8 one = 1;

	if (!tgid_set_on || !follow_forks)
		return;
	pt = ST_READ(btf, parent, tgid);
	ct = ST_READ(btf, child, tgid);
	if (pt == ct || !bpf_map_lookup_elem(&tgids, &pt))
		return;
	c = ctrs();
	if (!bpf_map_update_elem(&tgids, &ct, &one, BPF_ANY) && c)
		c->forks_followed++;
	if (fast_on) {
		/* the dirty mark first: a rebuild that misses ct sees it */
		fast_dirty = 1;
		fast_n = SCHEDTIME_FAST_TGIDS + 1;
	}
}

/* net_dev_queue, in the sender's context: a tracked thread's packet is
 * remembered by its sk_buff's address.  A thread out of scope costs the
 * tgid check (not_followed) or one state lookup. */
static __always_inline void on_net_queue(void *skb)
{
	__u64 pt = bpf_get_current_pid_tgid(), key = (__u64)skb;
	struct schedtime_cpuctx *x = cur_ctx();
	struct schedtime_state *sp, *dead;
	struct schedtime_sender v;
	struct schedtime_counters *c;

	if (!(__u32)pt || not_followed(pt >> 32))
		return;
	/* queued in an interrupt: an ACK the receive path sends, a timer's
	 * retransmission; current did not send it */
	if (!x || x->softirq || x->irq || x->hrtimer)
		return;
	sp = st_get((__u32)pt, &dead);
	if (!sp)
		return;
	v.pid = (__u32)pt;
	v.tgid = pt >> 32;
	v.task = (__u64)bpf_get_current_task_btf();
	bpf_map_update_elem(&senders, &key, &v, BPF_ANY);
	c = ctrs();
	if (c)
		c->sent++;
}

/* workqueue_queue_work, in the queuing context: a tracked task's work
 * item is remembered by its address (as on_net_queue). */
static __always_inline void on_wq_queue(void *work)
{
	__u64 pt = bpf_get_current_pid_tgid(), key = (__u64)work;
	struct schedtime_cpuctx *x = cur_ctx();
	struct schedtime_state *sp, *dead;
	struct schedtime_sender v;

	if (!(__u32)pt || not_followed(pt >> 32))
		return;
	if (!x || x->softirq || x->irq || x->hrtimer)
		return; /* queued by an interrupt: not current's */
	sp = st_get((__u32)pt, &dead);
	if (!sp)
		return;
	v.pid = (__u32)pt;
	v.tgid = pt >> 32;
	v.task = (__u64)bpf_get_current_task_btf();
	bpf_map_update_elem(&queuers, &key, &v, BPF_ANY);
}

/* workqueue_execute_start / _end, in the kworker: while it runs a work
 * item a tracked task queued, that task is the waker of what it wakes
 * (only this kworker's wakeups on this CPU: a work item that sleeps lets
 * other tasks run here meanwhile). */
static __always_inline void on_wq_start(void *work)
{
	struct schedtime_cpuctx *x = cur_ctx();
	struct schedtime_sender *v;
	__u64 key = (__u64)work;

	if (!x)
		return;
	v = bpf_map_lookup_elem(&queuers, &key);
	if (!v) {
		x->wq.pid = 0;
		return;
	}
	x->wq = *v;
	x->wq_worker = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&queuers, &key);
}

static __always_inline void on_wq_end(void)
{
	struct schedtime_cpuctx *x = cur_ctx();

	if (x)
		x->wq.pid = 0;
}

/* netif_receive_skb, in the softirq delivering skb: its sender (if one
 * was recorded) becomes the waker of what this delivery wakes, until the
 * next packet or the softirq's end.  The entry is taken: the address is
 * reused for other packets. */
static __always_inline void on_net_receive(void *skb)
{
	struct schedtime_cpuctx *x = cur_ctx();
	struct schedtime_sender *v;
	struct schedtime_counters *c;
	__u64 key = (__u64)skb;

	if (!x)
		return;
	v = bpf_map_lookup_elem(&senders, &key);
	if (!v) {
		x->rx.pid = 0;
		return;
	}
	x->rx = *v;
	bpf_map_delete_elem(&senders, &key);
	c = ctrs();
	if (c)
		c->delivered++;
}

/* Both flavours of every program: tp_btf (preferred; btf = 1) and raw_tp. */
#define ST_PROGS(tp, name, args, body)                                                    \
	SEC("tp_btf/" #tp) int BPF_PROG(argus_st_##name, args) { const int btf = 1; body; return 0; } \
	SEC("raw_tp/" #tp) int BPF_PROG(argus_st_##name##_raw, args) { const int btf = 0; body; return 0; }
#define ARGS(...) __VA_ARGS__

ST_PROGS(sched_switch, switch, ARGS(bool preempt, struct task_struct *prev, struct task_struct *next),
	 on_switch(ctx, btf, preempt, prev, next))
ST_PROGS(sched_waking, waking, ARGS(struct task_struct *p), on_waking(btf, p))
ST_PROGS(sched_wakeup_new, wakeup_new, ARGS(struct task_struct *p), on_wakeup_new(btf, p))
ST_PROGS(sched_process_fork, fork, ARGS(struct task_struct *parent, struct task_struct *child),
	 on_fork(btf, parent, child))
/* the interrupt context (irqctx.bpf.h); a softirq's end or start forgets
 * the sender of the packet it delivered */
IRQCTX_PROGS(argus_st, struct schedtime_cpuctx, x->rx.pid = 0)
ST_PROGS(net_dev_queue, net_queue, ARGS(struct sk_buff *skb), { (void)btf; on_net_queue(skb); })
ST_PROGS(netif_receive_skb, net_receive, ARGS(struct sk_buff *skb), { (void)btf; on_net_receive(skb); })
ST_PROGS(workqueue_queue_work, wq_queue, ARGS(int cpu, struct pool_workqueue *pwq, struct work_struct *work),
	 { (void)btf; on_wq_queue(work); })
ST_PROGS(workqueue_execute_start, wq_start, ARGS(struct work_struct *work), { (void)btf; on_wq_start(work); })
ST_PROGS(workqueue_execute_end, wq_end, ARGS(struct work_struct *work, work_func_t fn), { (void)btf; on_wq_end(); })
