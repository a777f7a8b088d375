/* offcpu — structs shared by bpf/offcpu.bpf.c and core/probe/probe_offcpu.c.
 *
 * Time blocked per {blocked kernel stack, tgid, comm, waker stack, waker
 * tgid, waker comm, waker context}: sched_switch notes when a task that
 * passes the filter blocks (its state is not running) with its kernel
 * stack; sched_waking notes who wakes it (the waker's stack and identity,
 * or the interrupt when the wakeup runs in one); when the task is switched
 * in again the blocked time is added.  The blocked task's user stack is
 * taken beside its kernel stack (a second stack map, as bpf/profile.bpf.c
 * does: issue 27's call site).  Fixed-width types only.
 */
#ifndef ARGUS_BPF_OFFCPU_H
#define ARGUS_BPF_OFFCPU_H

#define OFFCPU_COMM_LEN 16
#define OFFCPU_MAX_DEPTH 127
#define OFFCPU_BUCKETS 64
#define OFFCPU_NO_STACK 0xffffffffu

/* In-flight: key pid (__u32). */
struct offcpu_start {
	__u64 ts;
	__u32 stack_id;
	__u32 tgid;
	char comm[OFFCPU_COMM_LEN];
	__u32 ustack_id;        /* in ustacks; OFFCPU_NO_STACK: none (a kernel
	                         * thread, or not taken) */
	__u32 pad;
};

/* offcpu_waker.kind / offcpu_key.waker_kind */
#define OFFCPU_WAKER_TASK 0
#define OFFCPU_WAKER_HARDIRQ 1      /* vec: irq number, or the two below */
#define OFFCPU_WAKER_SOFTIRQ 2      /* vec: softirq vector (HI 0 .. RCU 9) */
#define OFFCPU_IRQ_TIMER 0xfffffffeu /* hrtimer expiry in hardirq context */
#define OFFCPU_IRQ_OTHER 0xffffffffu

/* Who woke a blocked task: key pid (__u32).  In an interrupt, the
 * interrupt: no stack, tgid 0, no comm. */
struct offcpu_waker {
	__u32 stack_id;
	__u32 tgid;
	char comm[OFFCPU_COMM_LEN];
	__u32 kind;
	__u32 vec;
};

/* Per-CPU interrupt context, from the irq/softirq/hrtimer tracepoints. */
struct offcpu_cpuctx {
	__u32 irq;                  /* irq number + 1 while in its handler */
	__u32 softirq;              /* vector + 1 while serving it */
	__u32 hrtimer;              /* hrtimer expiries in progress */
	__u32 pad;
};

/* Key of the aggregate map; value struct offcpu_val (monotonic). */
struct offcpu_key {
	__u32 stack_id;
	__u32 tgid;
	char comm[OFFCPU_COMM_LEN];
	__u32 waker_stack_id;   /* OFFCPU_NO_STACK: no wakeup seen (a timeout,
	                         * a signal, or woken before we attached) */
	__u32 waker_tgid;
	char waker_comm[OFFCPU_COMM_LEN];
	__u32 waker_kind;           /* OFFCPU_WAKER_* */
	__u32 waker_vec;
	__u32 ustack_id;        /* the blocked task's user stack (offcpu_start's) */
};

struct offcpu_val {
	__u64 count;            /* blocked intervals */
	__u64 total_ns;
};

/* One per CPU (per-CPU array, one entry). */
struct offcpu_counters {
	__u64 blocked;          /* switch-outs of filtered tasks not running */
	__u64 intervals;        /* completed (switched in again) */
	__u64 total_ns;
	__u64 woken;            /* wakeups of tracked tasks */
	__u64 stack_error;
	__u64 map_full;         /* interval not counted per stack */
	__u64 ustack_error;     /* user stack not taken: the interval is kept
	                         * with its kernel stack (kernel threads have
	                         * none and are not counted) */
	__u64 hist[OFFCPU_BUCKETS];
};

#endif
