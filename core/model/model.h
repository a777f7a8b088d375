/* model — a layered queueing model derived from a wait graph.
 *
 * From who-woke-whom (core/waitgraph) and on-CPU time per thread:
 *  - tasks: the threads of a process grouped by thread name (a pool), with
 *    their multiplicity; a pool with one thread per caller thread never
 *    queues and is marked per_caller (infinite in the solver, and it grows
 *    with the clients in --what-if);
 *  - synchronous calls: A wakes B and B wakes A (a request, then a reply);
 *    direction from the reference task down; calls per invocation = B's
 *    wakeups by A / A's invocations;
 *  - the reference task: the task of the call graph with the most timer
 *    sleep (its think time); its invocations are its cycles;
 *  - service demand per invocation: CPU (on-CPU time / invocations), disk
 *    (blocked on block I/O: visits and time per visit), network and sleeps
 *    (delays);
 *  - hidden queues: futex / kernel-lock waits woken by a sibling thread of
 *    the same process become a semaphore task (one thread) named by its
 *    stack, holding time estimated by the utilisation law (a thread that
 *    arrives finds the lock held with probability U = X * hold, so hold =
 *    P(wait) / X with one acquisition per invocation);
 *  - clutter: tasks outside the call graph are folded into "other" with
 *    their share of the CPU time;
 *  - the probe's own cost (opts.probe): the scheduler-time programs run in
 *    the context of the load's threads and their run time is part of the
 *    measured on-CPU time, so the calibrated model is that of the probed
 *    system.  Each task's CPU demand loses its threads' share of the
 *    probe's run time (model_probe.c, model_probe_correct, says what is charged
 *    to whom), and the model is solved again at the measured load: the
 *    throughput without the probe (m->probe.x), next to the measured one
 *    under it (m->x).  What-ifs are solved from the corrected demands.
 * model_solve runs core/mva's layered solver on it, with --what-if changes
 * (core/model/model_solve.c: the building files call the solver, never
 * the other way round).
 */
#ifndef ARGUS_MODEL_H
#define ARGUS_MODEL_H

#include <stdint.h>
#include <stdio.h>

#include "data/waitgraph.h"

#define MODEL_MAX_TASKS 32
#define MODEL_MAX_CALLS 8

enum model_task_kind {
	MODEL_TASK_APP,         /* threads of a process */
	MODEL_TASK_SEMAPHORE,   /* a lock found from sibling wakeups */
	MODEL_TASK_DISK,        /* the block device(s), one server */
};

struct model_call {
	int to;                 /* task index */
	double mean;            /* calls per invocation of the caller */
	uint64_t wakes;         /* wakeups of the callee by the caller */
	const char *channel;    /* static: "unix", "tcp", "futex"... */
	double wait_s;          /* measured: the caller blocked on the callee
	                         * per call (until its reply); 0 when not
	                         * measured (locks, the disk: see the callee) */
	double via_softirq;     /* share of the wakeups between the two (both
	                         * ways) that ran in a softirq delivering the
	                         * other's packet (NET_RX over loopback TCP):
	                         * found through the packet's sender, not the
	                         * context (bpf/schedtime.h SCHEDTIME_VIA) */
};

struct model_task {
	char name[64];
	enum model_task_kind kind;
	uint32_t tgid;          /* APP / SEMAPHORE: the process */
	char comm[16];          /* APP: the thread name */
	unsigned threads;       /* multiplicity seen */
	int ref;                /* the reference task */
	int per_caller;         /* one thread per caller: no queueing */
	double invocations;     /* in the model's time */
	double cpu_s;           /* CPU per invocation */
	double sleep_s;         /* timer sleeps per invocation (think: ref) */
	double net_s;           /* network waits per invocation (delay) */
	double other_s;         /* unexplained waits per invocation (delay) */
	double util_cpus;       /* measured CPU use, in CPUs */
	double runq_s;          /* measured waiting for a CPU per invocation */
	/* the probe's cost (see struct model_probe), per invocation */
	double probe_switches;  /* its threads' switch-ins (sched_switch runs
	                         * charged to it); SEMAPHORE: 0 (its pool's) */
	double probe_wakes;     /* wakeups its threads made (sched_waking runs) */
	double probe_s;         /* probe CPU taken out of cpu_s: cpu_s +
	                         * probe_s is the CPU measured under the probe */
	struct model_call calls[MODEL_MAX_CALLS];
	unsigned ncalls;
	/* SEMAPHORE */
	char stack[160];        /* where it waits: leaf frames of the stack */
	uint64_t waits;         /* contended acquisitions seen */
	double wait_s;          /* mean wait per contended acquisition */
	double hold_s;          /* estimated holding time */
	/* DISK */
	double visit_s;         /* time per visit */
	/* identity (from core/procinfo, filled by the caller; may be "") */
	char cmdline[160];
	char unit[64];
	char container[16];
};

/* A kernel thread that woke the load's threads, by role. */
struct model_kthread {
	uint32_t pid;
	char comm[16];
	char role[24];          /* core/procinfo's role: "kworker", "journal"... */
	char work[64];          /* kworker: the work function it ran most */
	uint64_t wakes;         /* wakeups of the load's threads */
};

#define MODEL_MAX_KTHREADS 16

/* Where the probe's cost per event comes from. */
enum model_probe_source {
	MODEL_PROBE_NONE,       /* no correction: the model of the probed load */
	MODEL_PROBE_STATS,      /* BPF run-time statistics of this run */
	MODEL_PROBE_ESTIMATE,   /* no statistics: the figures below */
};

/* The per-program costs measured on the 2-CPU test VM with BPF run-time
 * statistics (BENCH.md, "Causality programs and the model after the
 * overhead and lock work": sched_switch ~130-140 ns a run, sched_waking
 * ~80-95 ns, on a ping-pong: hot caches), used when this run has no
 * statistics, and as the floor of a load's event with them (the mean of
 * all runs falls below it when other tasks' switches, early exits of
 * ~60 ns, outnumber the load's). */
#define MODEL_PROBE_SWITCH_NS 130.0
#define MODEL_PROBE_WAKE_NS 80.0

struct model_probe {
	enum model_probe_source source;
	double mean_ns;         /* STATS: the mean run time per program run */
	int floored;            /* STATS: the mean was below MODEL_PROBE_*_NS
	                         * and those were charged instead */
	double switch_ns;       /* charged per switch-in of a load thread */
	double wake_ns;         /* charged per wakeup a load thread made */
	double events_per_s;    /* switch-ins + wakeups charged, per second */
	double cpus;            /* probe CPU removed from the model's tasks,
	                         * in CPUs (per second of the windows) */
	int clamped;            /* a task's probe share exceeded its CPU */
	int solved;             /* x, r below are set */
	double x, r;            /* the corrected model at the measured load:
	                         * cycles/s and response per cycle without
	                         * the probe */
};

/* The model checks itself (core/model/model_check.c): solved at the measured
 * load as calibrated (the demands under the probe, the competitors fitted),
 * it must give the measured throughput within MODEL_CHECK_X_TOL and the
 * measured response within MODEL_CHECK_R_TOL.  The measured response is
 * taken from the reference's own threads (their time per cycle outside the
 * think time: on CPU, runnable, blocked), not from N / X - Z, which the
 * calibration reproduces by construction: a thread counted as a client
 * that does not cycle (a main thread that only waits), a wait the model
 * has no place for, or a think time that is not one shows as a difference
 * there.  When it fails, every output says the model does not reproduce
 * the load and why it may be (why), and predictions are untrustworthy.
 * The response is a difference (the cycle less the think time) where the
 * think time dominates: the threads' accounted time fell 1.6% short of
 * their wall time on tier3 at 2 clients (20 ms think), 13% of its 2.5 ms
 * response, on a load the model does reproduce.  So a response error is
 * also accepted within MODEL_CHECK_CYCLE_TOL of the whole cycle; a
 * thread that does not cycle counted as a client is 1/N of it. */
#define MODEL_CHECK_X_TOL 0.05
#define MODEL_CHECK_R_TOL 0.10
#define MODEL_CHECK_CYCLE_TOL 0.03

struct model_check {
	int done;               /* checked (0: an older model, or no reference) */
	int valid;              /* both within their tolerance */
	double x_model, x_meas; /* cycles/s: the model at the measured N, measured */
	double r_model, r_meas; /* response per cycle (s), the same */
	double x_err, r_err;    /* (model - measured) / measured */
	double unexplained_s;   /* the reference's measured time per cycle that
	                         * neither its CPU, its calls, the disk, a lock
	                         * nor a known delay accounts for */
	double unattributed_s;  /* waits per reference cycle the model could not
	                         * give a waker task (network softirq wakeups,
	                         * other interrupts), over the whole call graph */
	char why[640];          /* "" when valid; else the reasons, "; "-separated */
};

struct model {
	struct model_task task[MODEL_MAX_TASKS];
	unsigned ntask;
	int ref;                /* index of the reference task, -1: none */
	double secs;            /* seconds the windows the model is built from
	                         * cover: their attached time under a duty
	                         * cycle (core/probe/schedtime_duty.h) */
	unsigned cpus;          /* cores of the machine */
	double x;               /* measured cycles per second of the reference */
	double r;               /* measured response time per cycle (s) */
	double beta;            /* calibration: other work on the host, as that
	                         * many always-runnable competitors */
	unsigned other_tasks;   /* folded into "other" */
	double other_cpu_share; /* their share of the CPU time */
	char note[256];         /* "" or why the model is trivial */
	struct model_kthread kthreads[MODEL_MAX_KTHREADS]; /* filled by the caller */
	unsigned nkthreads;
	struct model_probe probe;  /* the probe correction applied */
	/* the probe that measured it, filled by the caller (budget 0: not
	 * known, not written): the windows' start (seconds after the load
	 * started, or was attached) and wall length, the fraction of it
	 * the probe was attached, its cost in % of one CPU on average and
	 * while attached, and the budget a duty cycle held it to (duty 0:
	 * none ran) */
	double start_s, wall_s, probe_attached, probe_cost_pct, probe_cost_on_pct, probe_budget_pct;
	int probe_duty;
	/* the load's pace while the probe was attached and while it was
	 * detached, from /proc (core/host/load_pace.h), over the same windows,
	 * per second in pace_unit ("read/write calls" where the load made
	 * them, else "switch-ins"); 0 where not measured (no duty cycle, or
	 * too little of either).  Every rate above is the attached time's:
	 * pace_off / pace_on is what the probe slowed the load by, measured,
	 * not estimated from its run time */
	double pace_on, pace_off;
	const char *pace_unit; /* static */
	struct model_check check;  /* set by model_build (see above) */
};

struct model_opts {
	uint32_t exclude_tgid;  /* argus itself */
	uint32_t root_tgid;     /* the process argus started for the load (0:
	                         * none known): the reference of a load without
	                         * think time when it is a leaf of the calls */
	unsigned cpus;          /* 0: sysconf */
	double clutter_share;   /* 0: 0.01 */
	/* the probe correction: NONE (the default) leaves the demands as
	 * measured; STATS takes probe_event_ns (the mean BPF run time per
	 * program run of this capture) for every switch-in and wakeup;
	 * ESTIMATE the MODEL_PROBE_*_NS figures (STATS never charges less
	 * than those) */
	enum model_probe_source probe_source;
	double probe_event_ns;
};

/* Builds the model of g.  Returns 0 (with m->note set when the model is
 * trivial: one process, no calls), or -EINVAL with *cause (caller frees)
 * when there is nothing to model, -ENOMEM. */
int model_build(const struct waitgraph *g, const struct model_opts *o,
		struct model *m, char **cause);

/* "stats", "estimate", "none". */
const char *model_probe_source_name(enum model_probe_source s);

/* The check as one line for people: "the model reproduces the measured
 * load: 460.1 cycles/s (model 458.3, -0.4%), response 2.10 ms (model
 * 2.05, -2.4%)" or "the model does NOT reproduce the measured load: ...;
 * why it may be: ...; its predictions are untrustworthy"; "" when not
 * checked.  Names escaped.  Returns buf. */
char *model_check_text(const struct model *m, char *buf, size_t len);

/* What --what-if changes. */
struct model_whatif {
	double clients_factor;  /* 1: as measured */
	unsigned clients;       /* nonzero: this many reference threads */
	unsigned cpus;          /* 0: as measured */
};

struct model_prediction {
	double x, r;            /* cycles/s, response per cycle (s) */
	unsigned clients, cpus;
	double cpu_util;        /* per core */
	double task_util[MODEL_MAX_TASKS];   /* busy threads / threads */
	double task_wait[MODEL_MAX_TASKS];   /* queueing for a thread (s) */
	double task_x[MODEL_MAX_TASKS];      /* invocations per second */
	double task_cpu_wait[MODEL_MAX_TASKS]; /* waiting for a CPU (s) */
	double disk_util;
	int converged;
	double x_probed;        /* the same change solved with the demands as
	                         * measured under the probe (model_solve_probed);
	                         * 0: not solved */
};

/* Solves m (what-if w, NULL: as measured).  Returns 0 or -EINVAL with
 * *cause (static text). */
int model_solve(const struct model *m, const struct model_whatif *w,
		struct model_prediction *p, const char **cause);

/* Solves m as calibrated under the probe: each task's probe_s added back
 * to its CPU demand (what model_solve gave before the correction).  Same
 * returns as model_solve. */
int model_solve_probed(const struct model *m, const struct model_whatif *w,
		       struct model_prediction *p, const char **cause);

/* Parses "clients=2x", "clients=8", "cpus=4" (comma-separated) into w.
 * Returns 0 or -EINVAL. */
int model_whatif_parse(const char *s, struct model_whatif *w);

#endif
