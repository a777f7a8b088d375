/* model_capture — runs a load under the scheduler-time probe and turns what
 * it saw into per-window wait graphs, then picks the windows of the steady
 * state (`argus model`).
 *
 * The load is started by argus (held before exec until the probe tracks
 * its PID, children followed) or attached with -p.  Every window_s the
 * probe's window is read: BLOCKED intervals become wait edges (by wakee,
 * blocking stack and waker), ONCPU intervals the threads' on-CPU time;
 * intervals still in progress at a read are left to the window they end in.
 * The load's stdout is read line by line (copied to argus's stderr) for
 * --mark.
 *
 * Cost: the probe's BPF run time is measured (run-time statistics on while
 * the capture runs); when watching all the time would cost more than the
 * budget (the per-event step budget, 5% of one CPU), the programs are
 * attached only a fraction of the time (core/probe/schedtime_duty.h; no_duty
 * turns it off).  A window's graph then has secs = the attached seconds in
 * it, which every rate the model takes (cycles/s, CPUs, blocks/s) is
 * divided by, and wall_s = its length.
 *
 * Boundaries (the model describes the steady state):
 *   mark_re   the first line matching it opens the phase, the next closes
 *             it (or the end of the run); windows wholly inside are kept;
 *   steady    the longest run of >= steady_min consecutive windows whose
 *             block rate and CPU rate each stay within steady_tol of the
 *             run's mean;
 *   neither   every window but the first (start-up).
 */
#ifndef ARGUS_MODEL_CAPTURE_H
#define ARGUS_MODEL_CAPTURE_H

#include <stdio.h>
#include <sys/types.h>

#include <stdint.h>

#include "data/waitgraph.h"

struct model_capture_opts {
	char **argv;            /* the load (NULL-terminated; not owned) */
	pid_t pid;              /* or an already running process */
	double seconds;         /* how long to watch; 0: 10 */
	double window_s;        /* 0: 1 */
	int steady;
	double steady_tol;      /* 0: 0.2 */
	unsigned steady_min;    /* 0: 3 */
	const char *mark_re;    /* extended regex, or NULL */
	FILE *log;              /* the load's output; NULL: dropped */
	int verbose;            /* and a line per window */
	int no_duty;            /* attached all the time, whatever the cost */
	double budget_pct;      /* of one CPU; 0: STEP_EXEC_EVENT_BUDGET_PCT */
	volatile int *stop;     /* set to end early (a signal); may be NULL */
	int stats;              /* BPF run-time statistics on while the probe
	                         * runs (bpf_ns / bpf_runs below: the probe's
	                         * cost per event, which core/model removes
	                         * from the demands); they add two clock
	                         * reads per program run */
};

/* Who a process of the load was, read while it ran (core/procinfo). */
struct model_ident {
	uint32_t tgid;
	char cmdline[160];
	char exe[128];
	char unit[64];
	char container[16];
};

/* A kernel thread that woke the load (core/procinfo + the workqueue probe). */
struct model_kwaker {
	uint32_t pid;
	char comm[16];
	char role[24];
	char work[64];
	uint64_t wakes;
};

struct model_capture {
	struct model_kwaker *kw; /* nkw kernel threads that woke the load, owned */
	unsigned nkw;
	struct model_ident *ids; /* nids processes seen, owned */
	unsigned nids;
	struct waitgraph **win; /* nwin windows, owned */
	unsigned nwin;
	unsigned first, last;   /* kept windows: [first, last] */
	unsigned ndead;         /* the last ndead windows were read after the
	                         * load had ended (it was not alive for all of
	                         * them): never kept, whatever the selection */
	double load_end_s;      /* when its end was seen (the capture's clock,
	                         * within the 100 ms poll); -1 while it ran */
	struct waitgraph *kept; /* their merge, owned */
	uint32_t self_tgid;     /* argus (excluded) */
	uint32_t load_tgid;     /* the process started for the load (-- CMD);
	                         * 0 with -p (an attached process may be a
	                         * server) */
	unsigned lines;         /* lines of output read */
	double mark_open_s, mark_close_s; /* -1 when not seen */
	uint64_t bpf_ns, bpf_runs;        /* the probe's BPF run time; 0 when
	                                   * the kernel kept no statistics */
	int stats;              /* bpf_ns measured (else estimated from switches) */
	double elapsed_s;
	/* the duty cycle (schedtime_duty): over the run */
	double budget_pct;      /* what it held to */
	double attached;        /* fraction of the time attached (1: always) */
	double cost_pct;        /* % of one CPU, on average */
	double cost_on_pct;     /* while attached */
	unsigned phases;        /* on-phases ended (0: never detached) */
	double duty_cpu_s;      /* argus's CPU time attaching and detaching */
	char mechanism[16];
};

/* Runs the capture.  Returns 0 with *out set (free with
 * model_capture_free), or -errno with *cause (caller frees): a load that
 * cannot be run (-ENOEXEC, -ENOENT), no privileges (-EPERM), a bad regex
 * (-EINVAL), a --mark that never matched, or no steady state (-ERANGE,
 * the cause lists the window rates). */
int model_capture_run(const struct model_capture_opts *o, struct model_capture **out,
		      char **cause);
void model_capture_free(struct model_capture *c); /* NULL-safe */

/* One window of the scheduler-time probe (core/probe_schedtime) into g:
 * BLOCKED intervals as wait edges, ONCPU / RUNNABLE as the threads' times
 * (what every window of the capture gets; core/timeacct uses it for the
 * diagnosis's windows).  g->secs is the caller's.  0 or -ENOMEM. */
struct probe_schedtime_snap;
int model_capture_convert(const struct probe_schedtime_snap *s, struct waitgraph *g);

/* The window selection alone (tests): sets c->first/last among the
 * windows the load was alive in (the first nwin - ndead) and returns 0, or
 * -ERANGE with *cause listing the rates. */
int model_capture_steady(struct model_capture *c, double tol, unsigned min, char **cause);

#endif
