/* mva — mean value analysis: the solver behind `argus model --what-if`.
 *
 * Two solvers:
 *  - mva_exact: exact MVA (Reiser & Lavenberg) for a closed single-class
 *    product-form network: N customers with a think time Z cycle through
 *    queueing stations (FCFS/PS, one server, or c servers solved exactly
 *    with load-dependent MVA: marginal queue-length probabilities) and
 *    delay stations.  Inputs are service demands (visits x service time).
 *  - mva_layered: the usual approximation for a layered queueing network
 *    (method-of-layers / LQNS style): software tasks are multi-server
 *    stations for their callers whose service time is the response time of
 *    their entry, nested calls included; processors are multi-server
 *    stations for the tasks they host.  Each station is solved with the
 *    Bard–Schweitzer approximate MVA (arrival theorem: an arriving customer
 *    sees the mean queue with itself removed), multi-servers with
 *    Seidmann's decomposition (a c-server of service S = a single server of
 *    S/c plus a delay of S(c-1)/c), and the whole repeated to a fixed point.
 *    One entry per task; calls are synchronous (rendezvous) and acyclic.
 *
 * Units are whatever the caller uses (seconds in core/model).  No
 * allocation is kept; outputs go into caller-provided structs.
 */
#ifndef ARGUS_MVA_H
#define ARGUS_MVA_H

#include <stddef.h>

enum mva_kind {
	MVA_QUEUE,   /* queueing station (servers >= 1) */
	MVA_DELAY,   /* infinite server: no queueing */
};

struct mva_station {
	const char *name;
	enum mva_kind kind;
	unsigned servers;   /* MVA_QUEUE: 1, or c > 1 (load-dependent) */
	double demand;      /* visits x service time, per cycle */
};

/* Per station results at population N. */
struct mva_station_out {
	double resid;       /* residence time per cycle (all visits) */
	double queue;       /* mean number present (waiting + in service) */
	double util;        /* busy fraction per server (X * D / servers);
	                     * mean number in service for delay stations */
};

struct mva_out {
	double x;           /* throughput, cycles per unit time */
	double r;           /* response time per cycle, think time excluded */
};

/* Exact MVA for n stations at population N (>= 1) with think time z (>= 0).
 * out_st: n entries the caller provides (may be NULL).  Returns 0, or
 * -EINVAL (no station, a negative demand, servers 0, N 0) / -ENOMEM. */
int mva_exact(const struct mva_station *st, size_t n, double z, unsigned N,
	      struct mva_out *out, struct mva_station_out *out_st);

/* ---- layered ---- */

#define MVA_MAX_CALLS 8

struct mva_proc {
	const char *name;
	unsigned cores;     /* 0: infinite (a delay) */
	double background;  /* other work: this many always-runnable competitors
	                     * every customer finds there (processor sharing
	                     * with CPU hogs of another class); 0: none */
};

struct mva_call {
	int task;           /* index of the called task */
	double mean;        /* calls per invocation */
};

struct mva_task {
	const char *name;
	int proc;           /* index into the processors */
	unsigned mult;      /* threads; 0: infinite (one per caller) */
	int ref;            /* the reference task: its mult threads are the
	                     * customers, each cycle = think + one invocation */
	double think;       /* reference task: think time per cycle */
	double cpu;         /* demand on its processor per invocation */
	double delay;       /* pure delay per invocation (sleeps, devices
	                     * modelled as delays) */
	struct mva_call calls[MVA_MAX_CALLS];
	unsigned ncalls;
};

struct mva_task_out {
	double x;           /* invocations per unit time */
	double r;           /* response time of one invocation once a thread
	                     * of the task has it (its service time as seen
	                     * by callers), nested calls included */
	double wait;        /* queueing for a free thread, per invocation */
	double util;        /* busy threads / mult (busy threads when
	                     * infinite) */
	double cpu_wait;    /* waiting for its processor, per invocation */
};

struct mva_proc_out {
	double util;        /* busy fraction per core (busy cores when infinite) */
};

struct mva_layered_out {
	double x;           /* reference cycles per unit time */
	double r;           /* response time per cycle, think time excluded */
	unsigned iterations;
	int converged;
};

/* Solves the layered model.  Exactly one task has ref set.  to / po: one
 * entry per task / processor (may be NULL).  Returns 0, or -EINVAL with
 * *cause (static text) for a malformed model (no or two reference tasks,
 * a call cycle, a bad index), -ENOMEM. */
int mva_layered(const struct mva_proc *procs, size_t nproc,
		const struct mva_task *tasks, size_t ntask,
		struct mva_layered_out *out, struct mva_task_out *to,
		struct mva_proc_out *po, const char **cause);

#endif
