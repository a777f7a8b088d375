// SPDX-License-Identifier: GPL-2.0
/* schedtime — blocked, runnable and on-CPU time per tracked thread, with
 * the waker (task, hardirq or softirq) and who ran instead.  See
 * bpf/schedtime.h for the maps' meaning; /work/helpers/SCHEDTIME.md is the
 * contract.
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
 * the waker otherwise.
 *
 * Intervals are charged when they end, only from max(start, epoch_ns):
 * user space moves epoch_ns at each per-window read and credits the part of
 * each interval still in progress itself, so a long block is spread over the
 * windows it covers.  The histogram takes the full length.  tp_btf programs
 * are preferred, raw_tp twins are the fallback (same code, CO-RE reads).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "schedtime.h"
#include "filter.bpf.h"
#include "task.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define ST_TASK_RUNNING 0
#define ST_TASK_DEAD 0x80

const volatile __u32 tgid_set_on = 0;      /* track only tgids in `tgids` */
const volatile __u32 follow_forks = 0;     /* children of tracked tgids join */
const volatile __u32 exclude_tgid = 0;     /* never tracked (argus itself) */
const volatile __u32 no_stacks = 0;        /* NO_STACK everywhere (cheaper) */

__u64 epoch_ns = 0;                        /* written by user space */
__u64 attach_ns = 0;                       /* start for threads first seen late */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct schedtime_state);
	__uint(max_entries, 1); /* set at run time */
} state SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct schedtime_key);
	__type(value, struct schedtime_val);
	__uint(max_entries, 1); /* set at run time */
} agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, SCHEDTIME_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);     /* tgid */
	__type(value, __u8);
	__uint(max_entries, 1); /* set at run time */
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct schedtime_cpuctx);
	__uint(max_entries, 1);
} cpuctx SEC(".maps");

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

/* The last stack walked per {thread, syscall, state}: a walk costs most of
 * a switch's time (~1 us here), and a thread blocks at the same place again
 * and again; it is walked again every ST_REWALK uses. */
#define ST_REWALK 32
struct st_skey {
	__u32 pid;
	__u32 sys;              /* orig_ax of the user registers: the syscall */
	__u32 how;              /* task state, and 1 << 31 when preempted */
	__u32 pad;
};
struct st_sval {
	__u32 stack_id;
	__u32 uses;
};
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct st_skey);
	__type(value, struct st_sval);
	__uint(max_entries, 1); /* set at run time */
} stack_cache SEC(".maps");

/* A zeroed value to insert; too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct schedtime_val);
	__uint(max_entries, 1);
} zero_val SEC(".maps");

static __always_inline struct schedtime_counters *ctrs(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

/* The step filter (filter.bpf.h's rodata) on task t rather than current,
 * plus the tgid set: sched_switch's next and sched_waking's wakee are not
 * the current task. */
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

/* Adds one interval to the aggregate: [from, now) counted, full for the
 * histogram. */
static __always_inline void charge(struct schedtime_key *k, __u64 from, __u64 full_from,
				   __u64 now)
{
	struct schedtime_counters *c = ctrs();
	struct schedtime_val *v;
	__u64 ep = epoch_ns, d, full;
	__u32 zero = 0;

	if (from < ep)
		from = ep;
	d = now > from ? now - from : 0;
	full = now > full_from ? now - full_from : 0;
	v = bpf_map_lookup_elem(&agg, k);
	if (!v) {
		struct schedtime_val *z = bpf_map_lookup_elem(&zero_val, &zero);

		if (!z)
			return;
		bpf_map_update_elem(&agg, k, z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&agg, k);
		if (!v) {
			if (c)
				c->map_full++;
			return;
		}
	}
	/* Plain adds: a key holds one thread, whose intervals end one at a
	 * time; a locked add per field cost more than the rest of a charge. */
	v->count++;
	v->total_ns += d;
	v->hist[filter_log2(full) & (SCHEDTIME_BUCKETS - 1)]++;
	if (c)
		c->intervals++;
}

/* Adds [from, to) (after the epoch) to k's time only: one part of an
 * interval whose count and histogram another charge() takes. */
static __always_inline void charge_part(struct schedtime_key *k, __u64 from, __u64 to)
{
	struct schedtime_counters *c;
	struct schedtime_val *v;
	__u64 ep = epoch_ns;
	__u32 zero = 0;

	if (from < ep)
		from = ep;
	if (to <= from)
		return;
	v = bpf_map_lookup_elem(&agg, k);
	if (!v) {
		struct schedtime_val *z = bpf_map_lookup_elem(&zero_val, &zero);

		if (!z)
			return;
		bpf_map_update_elem(&agg, k, z, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&agg, k);
		if (!v) {
			c = ctrs();
			if (c)
				c->map_full++;
			return;
		}
	}
	v->total_ns += to - from;
}

static __always_inline void key_of(struct schedtime_key *k, __u32 pid,
				   const struct schedtime_state *st, __u32 kind)
{
	k->pid = pid;
	k->tgid = st->tgid;
	k->kind = kind;
	k->stack_id = kind == SCHEDTIME_ONCPU ? SCHEDTIME_NO_STACK : st->stack_id;
	__builtin_memcpy(k->comm, st->comm, SCHEDTIME_COMM_LEN);
}

/* The waker: interrupt context when the wakeup runs in one, else current. */
static __always_inline void waker_of(struct schedtime_key *k)
{
	struct schedtime_counters *c = ctrs();
	struct schedtime_cpuctx *x;
	__u32 zero = 0, hard, soft;

	x = bpf_map_lookup_elem(&cpuctx, &zero);
	hard = x && (x->irq || (x->hrtimer && !x->softirq));
	soft = x && x->softirq;
	if (hard) {
		k->other_kind = SCHEDTIME_OTHER_HARDIRQ;
		k->other_vec = x && x->irq ? x->irq - 1
			: x && x->hrtimer ? SCHEDTIME_IRQ_TIMER : SCHEDTIME_IRQ_OTHER;
		if (c)
			c->wake_hardirq++;
	} else if (soft) {
		k->other_kind = SCHEDTIME_OTHER_SOFTIRQ;
		k->other_vec = x && x->softirq ? x->softirq - 1 : SCHEDTIME_IRQ_OTHER;
		if (c)
			c->wake_softirq++;
	} else {
		__u64 pt = bpf_get_current_pid_tgid();

		k->other_kind = SCHEDTIME_OTHER_TASK;
		k->other_pid = (__u32)pt;
		k->other_tgid = pt >> 32;
		bpf_get_current_comm(k->other_comm, sizeof(k->other_comm));
		if (c)
			c->wake_task++;
	}
}

/* The name of the task of run r, read now (it may have exited since: then
 * whatever the memory holds, or nothing; never a fault). */
static __always_inline void run_comm(struct schedtime_run *r, char *comm)
{
	struct task_struct *t = (struct task_struct *)r->task;

	__builtin_memset(comm, 0, SCHEDTIME_COMM_LEN);
	if (r->pid)
		bpf_probe_read_kernel_str(comm, SCHEDTIME_COMM_LEN, &t->comm);
	else
		__builtin_memcpy(comm, "swapper", 8);
}

/* Ends the runnable interval of pid (state sp) at now: each task that ran
 * on this CPU meanwhile (newest first, from the history rs) gets its
 * overlap; the newest (prev) takes what is older than the history, the
 * count and the histogram. */
static __always_inline void runnable_split(__u32 pid, struct schedtime_state *sp,
					   struct schedtime_runs *rs, __u64 now)
{
	struct schedtime_key k = {};
	__u64 from = sp->ts, to = now;

	key_of(&k, pid, sp, SCHEDTIME_RUNNABLE);
	k.other_kind = SCHEDTIME_OTHER_TASK;
	if (!rs)
		goto last;
	for (int i = 1; i < SCHEDTIME_RUNS; i++) {
		struct schedtime_run *r = &rs->r[(rs->head - 1 - i) & (SCHEDTIME_RUNS - 1)];
		__u64 a, b;

		if (rs->head < (__u32)i + 1 || to <= from)
			break;
		if (r->end <= from)
			break;
		a = r->start > from ? r->start : from;
		b = r->end < to ? r->end : to;
		if (b > a) {
			k.other_pid = r->pid;
			k.other_tgid = r->tgid;
			run_comm(r, k.other_comm);
			charge_part(&k, a, b);
		}
		/* older than this run: only runs before it can have it */
		to = r->start < to ? r->start : to;
	}
	/* the newest run (prev, just recorded) and what no run kept covers */
	{
		struct schedtime_run *r = &rs->r[(rs->head - 1) & (SCHEDTIME_RUNS - 1)];

		k.other_pid = r->pid;
		k.other_tgid = r->tgid;
		bpf_get_current_comm(k.other_comm, sizeof(k.other_comm)); /* r is prev */
		/* prev's own run [r->start, now) plus any uncovered older part */
		charge_part(&k, from, to < r->start ? to : r->start);
		charge(&k, r->start > sp->ts ? r->start : sp->ts, sp->start_ts, now);
	}
	return;
last:
	k.other_pid = bpf_get_current_pid_tgid();
	k.other_tgid = bpf_get_current_pid_tgid() >> 32;
	bpf_get_current_comm(k.other_comm, sizeof(k.other_comm));
	charge(&k, sp->ts, sp->start_ts, now);
}

/* The kernel stack id of current (prev) at its block or preemption. */
static __always_inline long block_stack(void *ctx, long pstate, int preempt, __u32 pid)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(cur);
	struct st_skey sk = { .pid = pid };
	struct st_sval *sv, nv = {};
	long id;

	sk.sys = regs ? (__u32)BPF_CORE_READ(regs, orig_ax) : 0xffffffffu;
	sk.how = (__u32)(pstate & 0xffff) | (preempt ? 1u << 31 : 0);
	sv = bpf_map_lookup_elem(&stack_cache, &sk);
	if (sv && (++sv->uses % ST_REWALK))
		return sv->stack_id;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0)
		return id;
	if (sv) {
		sv->stack_id = (__u32)id;
	} else {
		nv.stack_id = (__u32)id;
		nv.uses = 1;
		bpf_map_update_elem(&stack_cache, &sk, &nv, BPF_ANY);
	}
	return id;
}

static __always_inline void on_switch(void *ctx, bool preempt, struct task_struct *prev,
				      struct task_struct *next)
{
	struct schedtime_counters *c = ctrs();
	struct schedtime_state *sp, st = {};
	struct schedtime_key k = {};
	struct schedtime_runs *rs;
	__u64 now = bpf_ktime_get_ns(), pt = bpf_get_current_pid_tgid();
	__u32 ppid = (__u32)pt, ptgid = pt >> 32, npid, ntgid;
	long pstate, id;

	if (c)
		c->switches++;
	/* this CPU's history: prev ran from cur_start to now */
	{
		__u32 zero = 0;

		rs = bpf_map_lookup_elem(&runs, &zero);
		if (rs) {
			struct schedtime_run *r = &rs->r[rs->head & (SCHEDTIME_RUNS - 1)];

			r->start = rs->cur_start;
			r->end = now;
			r->pid = ppid;
			r->tgid = ptgid;
			r->task = (__u64)prev; /* its name is read only when needed */
			rs->head++;
			rs->cur_start = now;
		}
	}
	/* prev (current) leaves the CPU */
	sp = ppid ? bpf_map_lookup_elem(&state, &ppid) : NULL;
	if (sp || (ppid && tracked(prev, ppid, ptgid))) {
		if (sp) {
			if (sp->state == SCHEDTIME_S_RUNNING || sp->state == SCHEDTIME_S_SEEDED) {
				key_of(&k, ppid, sp, SCHEDTIME_ONCPU);
				charge(&k, sp->ts, sp->start_ts, now);
			}
		} else {
			/* running since before we attached */
			st.tgid = ptgid;
			bpf_get_current_comm(st.comm, sizeof(st.comm));
			key_of(&k, ppid, &st, SCHEDTIME_ONCPU);
			charge(&k, attach_ns, attach_ns, now);
		}
		pstate = task_state(prev);
		if (pstate & ST_TASK_DEAD) {
			bpf_map_delete_elem(&state, &ppid);
			if (c)
				c->exits++;
		} else {
			id = no_stacks ? -1 : block_stack(ctx, pstate, preempt, ppid);
			if (id < 0 && c && !no_stacks)
				c->stack_error++;
			if (sp) { /* in place: no hash update on the hot path */
				/* a new name (exec, prctl) shows within a few switches:
				 * reading it at every one costs */
				if (!(now & 0x1f00))
					bpf_get_current_comm(sp->comm, sizeof(sp->comm));
				sp->stack_id = id < 0 ? SCHEDTIME_NO_STACK : (__u32)id;
				sp->ts = sp->start_ts = now;
				sp->state = preempt || pstate == ST_TASK_RUNNING ? SCHEDTIME_S_RUNNABLE
										 : SCHEDTIME_S_BLOCKED;
			} else {
				st.stack_id = id < 0 ? SCHEDTIME_NO_STACK : (__u32)id;
				st.ts = st.start_ts = now;
				st.state = preempt || pstate == ST_TASK_RUNNING ? SCHEDTIME_S_RUNNABLE
										: SCHEDTIME_S_BLOCKED;
				st.tgid = ptgid;
				bpf_get_current_comm(st.comm, sizeof(st.comm));
				if (bpf_map_update_elem(&state, &ppid, &st, BPF_ANY) && c)
					c->map_full++;
			}
		}
	}
	/* next comes on the CPU */
	npid = BPF_CORE_READ(next, pid);
	if (!npid)
		return;
	sp = bpf_map_lookup_elem(&state, &npid);
	if (!sp) {
		ntgid = BPF_CORE_READ(next, tgid);
		if (!tracked(next, npid, ntgid))
			return;
		/* blocked or waiting since before we attached: unknown which */
		__builtin_memset(&st, 0, sizeof(st));
		st.tgid = ntgid;
		st.stack_id = SCHEDTIME_NO_STACK;
		bpf_core_read_str(st.comm, sizeof(st.comm), &next->comm);
		__builtin_memset(&k, 0, sizeof(k));
		key_of(&k, npid, &st, SCHEDTIME_BLOCKED);
		k.other_kind = SCHEDTIME_OTHER_NONE;
		charge(&k, attach_ns, attach_ns, now);
		if (c)
			c->unseen_wakeups++;
		st.state = SCHEDTIME_S_RUNNING;
		st.ts = st.start_ts = now;
		if (bpf_map_update_elem(&state, &npid, &st, BPF_ANY) && c)
			c->map_full++;
		return;
	}
	__builtin_memset(&k, 0, sizeof(k));
	if (sp->state == SCHEDTIME_S_BLOCKED) {
		key_of(&k, npid, sp, SCHEDTIME_BLOCKED);
		k.other_kind = SCHEDTIME_OTHER_NONE;
		charge(&k, sp->ts, sp->start_ts, now);
		if (c)
			c->unseen_wakeups++;
	} else if (sp->state == SCHEDTIME_S_RUNNABLE || sp->state == SCHEDTIME_S_SEEDED) {
		runnable_split(npid, sp, rs, now);
	}
	sp->state = SCHEDTIME_S_RUNNING;
	sp->ts = sp->start_ts = now;
}

static __always_inline void on_waking(struct task_struct *p)
{
	struct schedtime_counters *c;
	struct schedtime_state *sp, st = {};
	struct schedtime_key k = {};
	__u32 pid = BPF_CORE_READ(p, pid), tgid;
	__u64 now;

	if (!pid)
		return;
	sp = bpf_map_lookup_elem(&state, &pid);
	if (sp && sp->state != SCHEDTIME_S_BLOCKED)
		return; /* running (woken before it switched out) or runnable */
	if (!sp) {
		tgid = BPF_CORE_READ(p, tgid);
		if (!tracked(p, pid, tgid) || BPF_CORE_READ(p, on_cpu))
			return;
		/* blocked since before we attached */
		st.tgid = tgid;
		st.stack_id = SCHEDTIME_NO_STACK;
		st.ts = st.start_ts = attach_ns;
		bpf_core_read_str(st.comm, sizeof(st.comm), &p->comm);
		sp = &st;
	}
	now = bpf_ktime_get_ns();
	c = ctrs();
	if (c)
		c->wakeups++;
	key_of(&k, pid, sp, SCHEDTIME_BLOCKED);
	waker_of(&k);
	charge(&k, sp->ts, sp->start_ts, now);
	if (sp == &st) {
		st.state = SCHEDTIME_S_RUNNABLE;
		st.ts = st.start_ts = now;
		if (bpf_map_update_elem(&state, &pid, &st, BPF_ANY) && c)
			c->map_full++;
	} else {
		sp->state = SCHEDTIME_S_RUNNABLE;
		sp->ts = sp->start_ts = now;
	}
}

static __always_inline void on_wakeup_new(struct task_struct *p)
{
	struct schedtime_counters *c;
	struct schedtime_state st = {};
	__u32 pid = BPF_CORE_READ(p, pid), tgid = BPF_CORE_READ(p, tgid);

	if (!tracked(p, pid, tgid))
		return;
	st.state = SCHEDTIME_S_RUNNABLE;
	st.ts = st.start_ts = bpf_ktime_get_ns();
	st.stack_id = SCHEDTIME_NO_STACK;
	st.tgid = tgid;
	bpf_core_read_str(st.comm, sizeof(st.comm), &p->comm);
	if (bpf_map_update_elem(&state, &pid, &st, BPF_ANY)) {
		c = ctrs();
		if (c)
			c->map_full++;
	}
}

static __always_inline void on_fork(struct task_struct *parent, struct task_struct *child)
{
	struct schedtime_counters *c;
	__u32 pt = BPF_CORE_READ(parent, tgid), ct = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (!tgid_set_on || !follow_forks || pt == ct || !bpf_map_lookup_elem(&tgids, &pt))
		return;
	c = ctrs();
	if (!bpf_map_update_elem(&tgids, &ct, &one, BPF_ANY) && c)
		c->forks_followed++;
}

static __always_inline struct schedtime_cpuctx *cur_ctx(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&cpuctx, &zero);
}

/* Both flavours of every program: tp_btf (preferred) and raw_tp. */
#define ST_PROGS(tp, name, args, body)                                          \
	SEC("tp_btf/" #tp) int BPF_PROG(argus_st_##name, args) { body; return 0; } \
	SEC("raw_tp/" #tp) int BPF_PROG(argus_st_##name##_raw, args) { body; return 0; }
#define ARGS(...) __VA_ARGS__

ST_PROGS(sched_switch, switch, ARGS(bool preempt, struct task_struct *prev, struct task_struct *next),
	 on_switch(ctx, preempt, prev, next))
ST_PROGS(sched_waking, waking, ARGS(struct task_struct *p), on_waking(p))
ST_PROGS(sched_wakeup_new, wakeup_new, ARGS(struct task_struct *p), on_wakeup_new(p))
ST_PROGS(sched_process_fork, fork, ARGS(struct task_struct *parent, struct task_struct *child),
	 on_fork(parent, child))
ST_PROGS(irq_handler_entry, irq_entry, ARGS(int irq),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x) x->irq = irq + 1; })
ST_PROGS(irq_handler_exit, irq_exit, ARGS(int irq),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x) x->irq = 0; })
ST_PROGS(softirq_entry, softirq_entry, ARGS(unsigned int vec),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x) x->softirq = vec + 1; })
ST_PROGS(softirq_exit, softirq_exit, ARGS(unsigned int vec),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x) x->softirq = 0; })
ST_PROGS(hrtimer_expire_entry, hrtimer_entry, ARGS(void *timer),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x) x->hrtimer++; })
ST_PROGS(hrtimer_expire_exit, hrtimer_exit, ARGS(void *timer),
	 { struct schedtime_cpuctx *x = cur_ctx(); if (x && x->hrtimer) x->hrtimer--; })
