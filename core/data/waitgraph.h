/* waitgraph — who waited for whom in one window: what core/model builds a
 * layered queueing model from.
 *
 * Filled from the scheduler-time probe (core/probe_schedtime: one edge per
 * {wakee thread, blocking stack, waker}) and from per-thread on-CPU time;
 * tests fill it from a fake.  The graph owns its strings.
 */
#ifndef ARGUS_WAITGRAPH_H
#define ARGUS_WAITGRAPH_H

#include <stddef.h>
#include <stdint.h>

enum wg_waker {
	WG_WAKER_TASK,      /* a task woke it: wpid/wtgid/wcomm */
	WG_WAKER_HARDIRQ,   /* an interrupt handler; vec = irq number */
	WG_WAKER_SOFTIRQ,   /* a softirq; vec = WG_SOFTIRQ_* */
	WG_WAKER_NONE,      /* no wakeup seen (timeout, signal, attached mid-block) */
};

/* Softirq vectors, as the kernel numbers them. */
enum wg_softirq {
	WG_SOFTIRQ_HI, WG_SOFTIRQ_TIMER, WG_SOFTIRQ_NET_TX, WG_SOFTIRQ_NET_RX,
	WG_SOFTIRQ_BLOCK, WG_SOFTIRQ_IRQ_POLL, WG_SOFTIRQ_TASKLET, WG_SOFTIRQ_SCHED,
	WG_SOFTIRQ_HRTIMER, WG_SOFTIRQ_RCU,
};

/* WG_WAKER_HARDIRQ vec of an hrtimer expiry (as core/probe_schedtime
 * reports it). */
#define WG_IRQ_TIMER 0xfffffffeu
/* WG_WAKER_TASK vec: the waker found through its packet (as
 * SCHEDTIME_VIA), or the flags of a direct wakeup: made while sending
 * (a message) or receiving (a write-space wakeup), as SCHEDTIME_BY_*. */
#define WG_VIA(vec) ((vec) + 1u)
#define WG_VIA_MASK 0xffu
#define WG_BY_SEND 0x100u
#define WG_BY_RECV 0x200u
#define WG_AFTER_RECV 0x400u
#define WG_VIA_WORK 0x800u     /* through a work item it queued (a kworker) */
#define WG_BUCKETS 32

/* What the blocking stack shows the thread waited on. */
enum wg_channel {
	WG_CH_OTHER,
	WG_CH_FUTEX,        /* futex_wait: a user-space lock or condition */
	WG_CH_KLOCK,        /* mutex/rwsem/semaphore in the kernel */
	WG_CH_PIPE,
	WG_CH_UNIX,
	WG_CH_TCP,
	WG_CH_UDP,
	WG_CH_EPOLL,        /* epoll, poll, select */
	WG_CH_SLEEP,        /* nanosleep, hrtimer sleeps */
	WG_CH_BLOCKIO,      /* waiting for a block device (io_schedule, dio) */
	WG_CH_N
};

const char *wg_channel_name(enum wg_channel c);   /* "futex", "unix"... */
const char *wg_softirq_name(unsigned vec);         /* "NET_RX"...; "?" */

struct wg_edge {
	uint32_t pid, tgid;         /* the thread that blocked (wakee) */
	char comm[16];
	uint32_t wpid, wtgid;       /* WG_WAKER_TASK: the waker */
	char wcomm[16];
	enum wg_waker waker;
	uint32_t vec;               /* irq number / softirq vector; for
	                             * WG_WAKER_TASK, WG_VIA(vector) when the
	                             * task was found through the packet it
	                             * sent, delivered in that softirq, else 0 */
	char *stack;                /* blocking kernel stack, "a;b;c" root first,
	                             * owned; "" when none */
	enum wg_channel channel;    /* from the stack (wg_edge_add sets it) */
	uint64_t count;             /* blocks ended this way */
	uint64_t total_ns;          /* blocked time */
	uint64_t hist[WG_BUCKETS];  /* log2 ns of each block: bucket b holds
	                             * [2^b, 2^(b+1)) ns; 0 everywhere when the
	                             * source has no histogram */
};

struct wg_thread {
	uint32_t pid, tgid;
	char comm[16];
	uint64_t cpu_ns;            /* on-CPU time in the window */
	uint64_t runq_ns;           /* runnable, waiting for a CPU */
	uint64_t switches;          /* times it came on a CPU (its on-CPU
	                             * intervals): core/model charges the
	                             * probe's sched_switch runs by it */
};

/* The load's pace over some seconds (core/host/load_pace.h). */
struct wg_pace {
	uint64_t rw_calls; /* its processes' read and write calls */
	uint64_t switches; /* its threads' switch-ins */
	double secs;       /* the seconds they cover */
};

struct waitgraph {
	struct wg_edge *edges;
	size_t nedges, edge_cap;
	struct wg_thread *threads;
	size_t nthreads, thread_cap;
	double secs;                /* seconds the counts cover (sum when
	                             * merged): every rate divides by it; the
	                             * probe's attached time in the window under
	                             * a duty cycle (core/probe/schedtime_duty.h) */
	double wall_s;              /* the window's length (sum when merged);
	                             * 0: secs (wg_wall_s reads it) */
	double start_s;             /* offset of the window from the start */
	/* the load's pace from /proc, not from the probe (core/host/load_pace.h)
	 * while the probe was attached and while it was detached (a duty
	 * cycle); sums when merged; 0s where not read */
	struct wg_pace pace_on, pace_off;
	/* private: edge index + 1 by key hash (open addressing), so adding
	 * and merging stay linear in the edges (the TUI merges every
	 * collect's graph into the run's) */
	size_t *hidx, hcap;
};

/* The window's wall length: wall_s, or secs where no duty cycle set it. */
static inline double wg_wall_s(const struct waitgraph *g)
{
	return g->wall_s > 0 ? g->wall_s : g->secs;
}

/* Empty graph or NULL with errno.  Free with wg_free (NULL-safe). */
struct waitgraph *wg_new(void);
void wg_free(struct waitgraph *g);

/* Adds (merges, when the same key is there) an edge.  e->stack is copied;
 * e->channel is computed from it.  Returns 0 or -ENOMEM. */
int wg_edge_add(struct waitgraph *g, const struct wg_edge *e);
/* Adds on-CPU time of a thread (merged by pid).  Returns 0 or -ENOMEM. */
int wg_thread_add(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		  uint64_t cpu_ns);
/* Adds runnable time (waiting for a CPU) of a thread.  0 or -ENOMEM. */
int wg_thread_add_runq(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		       uint64_t runq_ns);
/* Adds switch-ins (on-CPU intervals) of a thread.  0 or -ENOMEM. */
int wg_thread_add_switches(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
			   uint64_t n);
/* Adds src's counts and seconds to dst's. */
void wg_pace_add(struct wg_pace *dst, const struct wg_pace *src);
/* Adds every edge and thread of src into dst and src's length to dst's. */
int wg_merge(struct waitgraph *dst, const struct waitgraph *src);

/* The channel a stack ("a;b;c" root first) shows. */
enum wg_channel wg_classify_stack(const char *stack);

/* Events per second of the window: blocks ended (all edges) and on-CPU
 * seconds per second — what --steady compares across windows. */
double wg_block_rate(const struct waitgraph *g);
double wg_cpu_rate(const struct waitgraph *g);

#endif
