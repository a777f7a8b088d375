/* schedtime — structs shared by bpf/schedtime.bpf.c and core/probe/probe_schedtime.c.
 *
 * Where a tracked thread's time goes when it is not sampled on a CPU:
 * BLOCKED (switched out not runnable, until its wakeup: by the kernel stack
 * at the block, with the waker's context) and RUNNABLE (woken or preempted,
 * until switched in: with the task that ran on that CPU before it).  ONCPU
 * intervals (switch-in to switch-out, no stack) are counted too, so that a
 * thread's three parts can be checked against its wall time.  Aggregated in
 * the kernel; nothing per event goes to user space.  Fixed-width types only.
 * This header is the contract between the two sides; the user side API is
 * core/probe/probe_schedtime.h.
 */
#ifndef ARGUS_BPF_SCHEDTIME_H
#define ARGUS_BPF_SCHEDTIME_H

#define SCHEDTIME_COMM_LEN 16
#define SCHEDTIME_MAX_DEPTH 127
#define SCHEDTIME_BUCKETS 32     /* log2 ns: bucket 31 holds >= 2^31 ns (2.1 s) */
#define SCHEDTIME_NO_STACK 0xffffffffu
/* The user stack map's size at most (its ids fit the kernel key's 16 bits
 * as id + 1, 0 meaning none: a zero-filled state or key has none). */
#define SCHEDTIME_MAX_USTACKS 65534

/* schedtime_key.kind */
enum schedtime_kind {
	SCHEDTIME_BLOCKED = 1,
	SCHEDTIME_RUNNABLE = 2,
	SCHEDTIME_ONCPU = 3,         /* switch-in to switch-out; stack NO_STACK,
	                              * other_kind NONE, no histogram (an
	                              * extension of the contract: the
	                              * wall-time check) */
};

/* schedtime_key.other_kind */
enum schedtime_other {
	SCHEDTIME_OTHER_NONE = 0,    /* no wakeup seen: a timeout, a signal, or
	                              * blocked since before attach */
	SCHEDTIME_OTHER_TASK = 1,    /* BLOCKED: the waking task; RUNNABLE: a
	                              * task that ran on the CPU while it waited
	                              * (pid 0: the CPU was idle); the wait is
	                              * split among them (struct schedtime_runs).
	                              * BLOCKED with other_vec SCHEDTIME_VIA(v):
	                              * woken in softirq v (NET_RX) while it
	                              * delivered a packet this task sent (see
	                              * schedtime_sender); other_vec 0: woken by
	                              * the task itself */
	SCHEDTIME_OTHER_HARDIRQ = 2, /* other_vec: irq number, or one of the
	                              * SCHEDTIME_IRQ_* below */
	SCHEDTIME_OTHER_SOFTIRQ = 3, /* other_vec: softirq vector (HI_SOFTIRQ 0 ..
	                              * RCU_SOFTIRQ 9, the kernel's numbering) */
	SCHEDTIME_OTHER_PENDING = 4, /* user side only: the part of an interval
	                              * still in progress at a read (its waker is
	                              * not known yet) */
};

/* other_vec of an OTHER_TASK waker found through the packet it sent: the
 * softirq vector + 1 (0: a direct wakeup from the task's own context). */
#define SCHEDTIME_VIA(vec) ((vec) + 1u)
#define SCHEDTIME_VIA_MASK 0xffu
/* other_vec flags of a direct OTHER_TASK wakeup (BLOCKED): the waker was
 * in a syscall that sends (write, writev, send*, pwrite*: the wakeup
 * delivered a message) or one that receives (read, readv, recv*, pread*:
 * a write-space wakeup, the peer freed room in a buffer it wrote to).  A
 * message is then counted where it is sent, not guessed from how long the
 * wakee blocked (issue 25 item 3).  Neither: another syscall (futex,
 * close), no syscall, or an arch without the numbers here. */
#define SCHEDTIME_BY_SEND 0x100u
#define SCHEDTIME_BY_RECV 0x200u
/* With BY_SEND: the wakee's wakeup before this one was a BY_RECV by the
 * same process (the peer read its request, then answered): one call, which
 * that first wakeup counts.  A call is so counted once, at the first
 * wakeup it causes: the peer's read of the request, or the reply when no
 * read woke the caller first (it had not blocked yet), or the read alone
 * (the reply came while the caller was still awake). */
#define SCHEDTIME_AFTER_RECV 0x400u
/* The waker is the task that queued the work a kworker was running when
 * it made the wakeup (workqueue_queue_work in that task's context, then
 * workqueue_execute_start in the kworker): a pty's writer, whose bytes a
 * kworker pushes to the reader (flush_to_ldisc).  other_pid is that task. */
#define SCHEDTIME_VIA_WORK 0x800u

#define SCHEDTIME_IRQ_TIMER 0xfffffffeu   /* hrtimer expiry in hardirq context */
#define SCHEDTIME_IRQ_OTHER 0xffffffffu   /* hardirq without a handler tracepoint
                                           * (IPI, local timer, ...) */

/* The key user space sees (core/probe/probe_schedtime.h): the kernel's
 * schedtime_akey with the names filled in from the state and names maps.
 * Zero-filled before use (padding-free by layout). */
struct schedtime_key {
	__u32 pid, tgid;             /* the accounted thread (the wakee) */
	__u32 kind;                  /* enum schedtime_kind */
	__u32 stack_id;              /* kernel stack at the block / preemption;
	                              * for RUNNABLE after a wakeup, the stack it
	                              * blocked in (where it resumes) */
	__u32 other_kind;            /* enum schedtime_other */
	__u32 other_pid, other_tgid; /* waker / ran-instead task (0 for irqs) */
	__u32 other_vec;             /* softirq vector or irq number */
	char comm[SCHEDTIME_COMM_LEN], other_comm[SCHEDTIME_COMM_LEN];
	__u32 ustack_id;             /* the wakee's user stack where it blocked
	                              * or was preempted (SCHEDTIME_NO_STACK:
	                              * none taken: not asked for, a kernel
	                              * thread, an interval not sampled) */
};

/* Aggregate map key in the kernel: 20 bytes, no names (hashing and
 * comparing the 64-byte user key was a good part of every charge; the
 * names are looked up once per key: the wakee's in `state`, the other
 * side's in `names`, written when the key is first inserted).  BLOCKED
 * and RUNNABLE only: ONCPU time is kept in the thread's state. */
struct schedtime_akey {
	__u32 pid;
	__u32 stack_id;
	__u32 other_pid;             /* waker / ran-instead task (0 for irqs) */
	__u32 other_vec;
	__u8 kind, other_kind;
	__u16 ustack;                /* user stack id + 1 (0: none) */
};

/* names: pid -> who, for the other side of a key (LRU). */
struct schedtime_name {
	__u32 tgid, pad;
	char comm[SCHEDTIME_COMM_LEN];
};

/* Aggregate map value (monotonic while attached). */
struct schedtime_val {
	__u64 count;                 /* intervals ended */
	__u64 total_ns;              /* their length (after the read epoch, see
	                              * schedtime_state.ts) */
	__u64 hist[SCHEDTIME_BUCKETS]; /* log2 of the full interval length, ns */
};

/* schedtime_state.state */
enum schedtime_tstate {
	SCHEDTIME_S_RUNNING = 3,     /* on a CPU since ts */
	SCHEDTIME_S_BLOCKED = 1,
	SCHEDTIME_S_RUNNABLE = 2,
	SCHEDTIME_S_SEEDED = 4,      /* inserted by user space at attach for a
	                              * thread already running or runnable: its
	                              * first switch-out ends ONCPU time, its
	                              * first switch-in ends RUNNABLE time */
	SCHEDTIME_S_DEAD = 5,        /* exited: kept (with its on-CPU totals)
	                              * until user space has read it and deletes
	                              * it; a new thread of the same pid takes it
	                              * over, the totals continuing */
};

/* The last blocking stacks of a thread, by {syscall, task state}: a stack
 * walk costs most of a switch (~1 us), and a thread blocks at the same
 * place again and again; walked again every SCHEDTIME_REWALK uses. */
#define SCHEDTIME_SC_WAYS 2
#define SCHEDTIME_REWALK 32
struct schedtime_sc {
	__u64 key;                   /* syscall nr | task state << 32 | preempted << 63 */
	__u32 stack_id, uses;
};

/* The last user stacks of a thread, by where it entered the kernel: its
 * user instruction pointer there and its caller's return address (one
 * word at the frame pointer; 0 without one) — a walk of a user stack costs
 * several times the switch it is taken in (~4x the scheduler programs on
 * eight threads blocking 10^4 times a second), and a thread blocks at the
 * same call site again and again; walked again every SCHEDTIME_REWALK uses.
 * Two call sites that share both words (one function, called from one
 * place, itself called from several) may see up to 31 of their blocks
 * under the other's stack. */
#define SCHEDTIME_UC_WAYS 2
struct schedtime_uc {
	__u64 key;                   /* user ip ^ the caller's return address */
	__u32 uses;
	__u16 ustack;                /* id + 1, 0: none */
	__u16 pad;
};

/* Per tracked thread (key: pid __u32), the interval in progress and the
 * thread's on-CPU time (monotonic while the entry lives: read from here by
 * user space, no aggregate key per switch-out). */
struct schedtime_state {
	__u64 ts;                    /* start of the interval (ktime ns) */
	__u64 start_ts;              /* the same, never moved by the epoch: the
	                              * histogram takes the full length */
	__u32 state;                 /* enum schedtime_tstate */
	__u32 stack_id;
	__u32 tgid;
	__u16 sc_next;               /* the stack cache way replaced next */
	__u16 ustack;                /* user stack id + 1 at the block or
	                              * preemption (0: none), as stack_id */
	char comm[SCHEDTIME_COMM_LEN];
	__u64 oncpu_count, oncpu_ns; /* ONCPU intervals ended (after the epoch) */
	struct schedtime_sc sc[SCHEDTIME_SC_WAYS];
	__u64 win_epoch;             /* the window win_n counts in */
	__u32 win_n;                 /* blocked/runnable intervals begun in it */
	__u32 w;                     /* weight of the interval in progress: 1
	                              * exact, 2^sample_shift sampled, 0 not
	                              * sampled (only the state is updated) */
	__u32 gen;                   /* the attach (on-phase) that wrote the
	                              * state: one of an earlier phase is stale
	                              * (core/probe/schedtime_duty.h) */
	__u32 recv_waker;            /* tgid of the BY_RECV waker of its last
	                              * wakeup, 0 when that was another kind
	                              * (SCHEDTIME_AFTER_RECV) */
	/* The last interval that began before the epoch and ended after it
	 * moved (its part before the epoch is the read's that moved it, which
	 * credits it from the state: if that read looked after the interval
	 * ended, it credits it from here; core/probe/probe_schedtime.c
	 * st_credit) */
	__u64 pre_epoch;             /* the epoch it ended in */
	__u64 pre_ts;                /* its start */
	__u32 pre_state;             /* its state (enum schedtime_tstate) */
	__u32 pre_stack_id;          /* its stack */
	__u16 pre_ustack;            /* its user stack (id + 1, 0: none) */
	__u16 uc_next;               /* the user stack cache way replaced next */
	__u16 pad2[2];
	struct schedtime_uc uc[SCHEDTIME_UC_WAYS];
};

/* The task that sent a packet (map `senders`, key: the sk_buff's address,
 * LRU): written at net:net_dev_queue in the sender's own context for a
 * tracked sender, taken (and deleted) at net:netif_receive_skb, where the
 * packet is delivered in the NET_RX softirq.  Over loopback (and any
 * device that hands the same sk_buff to the receive path) the wakeup of
 * the receiver runs inside that delivery: its waker is the sender, not the
 * softirq nor whoever it interrupted (issue 25). */
struct schedtime_sender {
	__u32 pid, tgid;
	__u64 task;                  /* its task_struct, to read its name */
};

/* Per-CPU interrupt context, from the irq/softirq/hrtimer tracepoints. */
struct schedtime_cpuctx {
	__u32 irq;                   /* irq number + 1 while in its handler */
	__u32 softirq;               /* vector + 1 while serving it */
	__u32 hrtimer;               /* hrtimer expiries in progress */
	__u32 pad;
	struct schedtime_sender rx;  /* the sender of the packet the softirq
	                              * delivers now (pid 0: none known):
	                              * set per packet at netif_receive_skb,
	                              * cleared at softirq entry and exit */
	struct schedtime_sender wq;  /* who queued the work item the kworker
	                              * wq_worker runs now (pid 0: none) */
	__u32 wq_worker, pad2;
};

/* Per-CPU history of who ran (per-CPU array, one entry): a runnable
 * interval ending on this CPU is split among the tasks that ran on it
 * meanwhile ("ran instead"), the newest SCHEDTIME_RUNS of them; what is
 * older than the history goes to the newest (the task it replaces). */
#define SCHEDTIME_RUNS 16
struct schedtime_run {
	__u64 start, end;            /* ktime ns */
	__u32 pid, tgid;
	__u64 task;                  /* its task_struct, to read its name later */
};
struct schedtime_runs {
	__u64 cur_start;             /* when the current task came on this CPU */
	__u32 head;                  /* runs written so far */
	__u32 rng;                   /* xorshift state for the sampling */
	struct schedtime_run r[SCHEDTIME_RUNS];
};

/* One per CPU (per-CPU array, one entry). */
struct schedtime_counters {
	__u64 switches;              /* sched_switch runs */
	__u64 wakeups;               /* sched_waking of tracked threads */
	__u64 intervals;             /* charged to the aggregate map */
	__u64 wake_task, wake_hardirq, wake_softirq;
	__u64 unseen_wakeups;        /* switch-in of a BLOCKED thread: no wakeup */
	__u64 stack_error;           /* no stack: NO_STACK used */
	__u64 ustack_error;          /* user stack wanted, not taken: the
	                              * interval kept with the kernel's alone */
	__u64 map_full;              /* state or aggregate map full: not counted */
	__u64 forks_followed;        /* children added to the tgid set */
	__u64 exits;                 /* tracked threads that exited */
	__u64 unsampled;             /* blocked/runnable intervals not sampled */
	__u64 stale;                 /* states of an earlier on-phase met (duty
	                              * cycling): started afresh, no interval */
	__u64 wake_sender;           /* softirq wakeups charged to the task that
	                              * sent the packet (also in wake_task) */
	__u64 sent, delivered;       /* tracked senders' packets recorded at
	                              * net_dev_queue; of those, found again at
	                              * netif_receive_skb */
	__u64 wake_queuer;           /* kworker wakeups charged to the task
	                              * that queued the work (also wake_task) */
	__u64 unseen_switch_in;      /* switch-out of a thread whose switch-in
	                              * no sched_switch showed (see switch_out) */
};

#endif
