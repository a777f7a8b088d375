// SPDX-License-Identifier: GPL-2.0
/* offcpu — time blocked per kernel stack, with the waker.
 *
 * sched_switch runs in the context of prev (current == prev), so its kernel
 * stack is the blocking stack and the filter applies to current.  A task
 * switched out while still running (preempted) is not blocked and is
 * skipped.  sched_waking runs in the waker's context (try_to_wake_up, on
 * the waker's CPU; sched_wakeup may fire later on the wakee's CPU from the
 * idle task when the wakeup is queued there by IPI, which would name
 * "swapper" as the waker): when the wakee is tracked, the waker's stack and
 * identity are kept for it — unless the wakeup runs in an interrupt (a disk
 * completion in the block softirq, a timer in hardirq): then the waker is
 * the interrupt (irq number or softirq vector, from the per-CPU context the
 * irq_handler/softirq/hrtimer_expire tracepoints keep) and the interrupted
 * task, which merely happened to run there, is neither named nor its stack
 * kept.  tp_btf programs
 * are preferred; raw_tp twins are the fallback (same logic, CO-RE reads).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "offcpu.h"
#include "filter.bpf.h"
#include "task.bpf.h"
#include "irqctx.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u64 min_ns = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct offcpu_start);
	__uint(max_entries, 1); /* set at run time */
} start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);
	__type(value, struct offcpu_waker);
	__uint(max_entries, 1); /* set at run time */
} wakers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

/* The blocked tasks' user stacks, apart from the kernel ones so that
 * neither crowds the other out; sized as stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct offcpu_key);
	__type(value, struct offcpu_val);
	__uint(max_entries, 1); /* set at run time */
} blocked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct offcpu_counters);
	__uint(max_entries, 1);
} counters SEC(".maps");

IRQCTX_MAP(struct offcpu_cpuctx)

static __always_inline struct offcpu_counters *ctrs(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

static __always_inline void on_switch(void *ctx, struct task_struct *prev,
				      struct task_struct *next)
{
	struct offcpu_counters *c = ctrs();
	struct offcpu_start st = {}, *sp;
	struct offcpu_val zero = {}, *v;
	struct offcpu_waker *w;
	struct offcpu_key k = {};
	__u64 pid_tgid = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), d;
	__u32 pid = pid_tgid, npid;
	long id;

	if (!c)
		return;
	/* prev blocks: note when, where and who */
	if (pid && task_state(prev) != 0 && filter_pass(pid_tgid, st.comm, 1)) {
		id = bpf_get_stackid(ctx, &stacks, 0);
		if (id < 0) {
			c->stack_error++;
			st.stack_id = OFFCPU_NO_STACK;
		} else {
			st.stack_id = id;
		}
		/* prev is current here: its user stack, unless a kernel thread
		 * (none, not an error); a failure keeps the kernel stack */
		id = task_user_stack(ctx, prev, &ustacks, &c->ustack_error);
		st.ustack_id = id >= 0 ? id : OFFCPU_NO_STACK;
		st.ts = now;
		st.tgid = pid_tgid >> 32;
		c->blocked++;
		if (!bpf_map_update_elem(&start, &pid, &st, BPF_ANY))
			bpf_map_delete_elem(&wakers, &pid);
		else
			c->map_full++;
	}
	/* next comes back: add its blocked time */
	npid = BPF_CORE_READ(next, pid);
	sp = bpf_map_lookup_elem(&start, &npid);
	if (!sp)
		return;
	d = now - sp->ts;
	k.stack_id = sp->stack_id;
	k.ustack_id = sp->ustack_id;
	k.tgid = sp->tgid;
	__builtin_memcpy(k.comm, sp->comm, OFFCPU_COMM_LEN);
	bpf_map_delete_elem(&start, &npid);
	w = bpf_map_lookup_elem(&wakers, &npid);
	if (w) {
		k.waker_stack_id = w->stack_id;
		k.waker_tgid = w->tgid;
		__builtin_memcpy(k.waker_comm, w->comm, OFFCPU_COMM_LEN);
		k.waker_kind = w->kind;
		k.waker_vec = w->vec;
		bpf_map_delete_elem(&wakers, &npid);
	} else {
		k.waker_stack_id = OFFCPU_NO_STACK;
	}
	if (d < min_ns)
		return;
	c->intervals++;
	c->total_ns += d;
	c->hist[filter_log2(d) & (OFFCPU_BUCKETS - 1)]++;
	v = bpf_map_lookup_elem(&blocked, &k);
	if (!v) {
		bpf_map_update_elem(&blocked, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&blocked, &k);
		if (!v) {
			c->map_full++;
			return;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, d);
}

static __always_inline void on_wakeup(void *ctx, struct task_struct *p)
{
	struct offcpu_counters *c;
	struct offcpu_cpuctx *x;
	struct offcpu_waker w = {};
	__u32 pid = BPF_CORE_READ(p, pid);
	long id;

	if (!bpf_map_lookup_elem(&start, &pid))
		return; /* not a task we track */
	c = ctrs();
	x = cur_ctx();
	if (x && (x->irq || (x->hrtimer && !x->softirq))) {
		/* a hardirq (inside a softirq too: the innermost context) */
		w.kind = OFFCPU_WAKER_HARDIRQ;
		w.vec = x->irq ? x->irq - 1 : OFFCPU_IRQ_TIMER;
		w.stack_id = OFFCPU_NO_STACK;
	} else if (x && x->softirq) {
		w.kind = OFFCPU_WAKER_SOFTIRQ;
		w.vec = x->softirq - 1;
		w.stack_id = OFFCPU_NO_STACK;
	} else {
		id = bpf_get_stackid(ctx, &stacks, 0);
		w.stack_id = id < 0 ? OFFCPU_NO_STACK : id;
		w.tgid = bpf_get_current_pid_tgid() >> 32;
		bpf_get_current_comm(w.comm, sizeof(w.comm));
	}
	if (c)
		c->woken++;
	bpf_map_update_elem(&wakers, &pid, &w, BPF_ANY);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(argus_offcpu_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, prev, next);
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(argus_offcpu_wakeup, struct task_struct *p)
{
	on_wakeup(ctx, p);
	return 0;
}

SEC("raw_tp/sched_switch")
int BPF_PROG(argus_offcpu_switch_raw, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	on_switch(ctx, prev, next);
	return 0;
}

SEC("raw_tp/sched_waking")
int BPF_PROG(argus_offcpu_wakeup_raw, struct task_struct *p)
{
	on_wakeup(ctx, p);
	return 0;
}

/* The per-CPU interrupt context (irqctx.bpf.h), both flavours. */
IRQCTX_PROGS(argus_offcpu, struct offcpu_cpuctx, (void)0)
