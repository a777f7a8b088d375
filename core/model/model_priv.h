/* model_priv — shared by the model's files only: the building
 * (core/model/model.c, model_calls.c, model_probe.c, model_check.c) and the
 * solving (core/model/model_solve.c, where model_pool_of is). */
#ifndef ARGUS_MODEL_PRIV_H
#define ARGUS_MODEL_PRIV_H

#include "model/model.h"
#include "data/waitgraph.h"

/* A group of threads: one process's threads of one name. */
struct model_grp {
	uint32_t tgid;
	char comm[16];
	uint32_t *pids;
	uint64_t *pid_msgs;             /* per pid: its blocks ended by another task of
	                                 * the load (its cycles' messages) */
	uint64_t *pid_sleep_ns, *pid_sleep_cnt; /* per pid: its timer sleeps */
	uint64_t *pid_blocked_ns;       /* per pid: all its blocks */
	unsigned npids, pid_cap;
	uint64_t cpu_ns, runq_ns;
	uint64_t switches, wakes_made;  /* probe program runs charged to it */
	uint64_t sleep_ns, sleep_cnt, net_ns, other_ns, io_ns, io_cnt;
	uint64_t blocked_ns;            /* every block of its threads, whoever ended it */
	uint64_t lock_waits, lock_ns, lock_best_ns;
	char lock_stack[160];
	enum wg_channel lock_ch;
};

struct model_work {
	struct model_grp *g;
	unsigned ng, cap;
	uint64_t *wake;      /* wake[a * ng + b]: messages, a woken by b */
	uint64_t *wake_ns;   /* a's blocked time ended by b (all of it) */
	uint64_t *wake_all;  /* a's blocks ended by b, messages or not */
	uint64_t *wake_hist; /* [(a * ng + b) * WG_BUCKETS]: the stream
	                      * channels' blocks by log2 length, for
	                      * model_calls_finish */
	enum wg_channel *wake_ch;
	uint64_t *wake_via;  /* of wake_all, those through a softirq (a
	                      * packet's sender: wg_edge.vec) */
};


/* One wait edge of wakee group a woken by group b (another task of the
 * load) into w's pair counters; model_calls_finish turns the histograms
 * into message counts once every edge is in. */
void model_calls_add(struct model_work *w, unsigned a, unsigned b, const struct wg_edge *e);
void model_calls_finish(struct model_work *w);

/* The reference task's group (see model_calls.c), -1 when no task is in a
 * request/reply pair; *thinks: chosen by its think time (its cycles are its
 * timer sleeps), else by the shape of the calls (its cycles are replies). */
int model_pick_ref(const struct model_work *w, uint32_t root_tgid, int *thinks);

/* The messages a's group got from its partners in request/reply pairs, its
 * blocked time on them, and how many partners; most: the most messages
 * from one partner. */
void model_pair_waits(const struct model_work *w, unsigned a, uint64_t *wakes, uint64_t *most,
		      uint64_t *ns, unsigned *partners);

/* The check (model.h, struct model_check) of m as calibrated, with the
 * reference's measured response per cycle r_meas, its unexplained time
 * per cycle and the unattributed waits per reference cycle; model_build
 * calls it after the calibration, before the probe correction. */
void model_check_run(struct model *m, double r_meas, double unexplained_s, double unattributed_s);

/* The task that calls semaphore si (its pool), or -1 (model_solve.c: a
 * question about the model's structure, which building and solving ask). */
int model_pool_of(const struct model *m, int si);

/* Takes the probe's run time out of each task's CPU demand as o says
 * (o->probe_source) and solves m again at the measured load into m->probe;
 * model_build calls it after the calibration. */
void model_probe_correct(struct model *m, const struct model_opts *o);

#endif
