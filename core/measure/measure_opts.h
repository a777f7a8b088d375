/* measure_opts — what a measurement (core/measure/measure.h) is given: its
 * options with their defaults and limits, the checks that refuse impossible
 * combinations before anything is started, loaded or paused, and the
 * sampler it collects from (the live one, core/measure/measure_live.h, or a
 * test's fake).  The measurement and its parts (the live sampler, the model
 * side) all read these; none of them is needed to know them.
 */
#ifndef ARGUS_MEASURE_OPTS_H
#define ARGUS_MEASURE_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "data/profile.h"

struct waitgraph;

/* Defaults, chosen with tests/bench/scenarios.sh (see BENCH.md).  PAIRS is
 * the fixed count (--fixed, and measure_opts_default); sequential
 * measuring goes up to SEQSTOP_DEFAULT_MAX_PAIRS (core/analysis/seqstop.h). */
#define MEASURE_DEFAULT_PAIRS 6
#define MEASURE_DEFAULT_WINDOW_S 0.5
#define MEASURE_DEFAULT_SETTLE_S 0.1
#define MEASURE_DEFAULT_FREQ_HZ 999
/* A started load's start-up: it runs, unmeasured, before the first window
 * until no new program has started in it and its process count has not
 * grown for MEASURE_WARMUP_QUIET_S, and at most --warmup seconds (a
 * server's exec, its benchmark's connect polls: not the load's steady work). */
#define MEASURE_DEFAULT_WARMUP_S 2.0
#define MEASURE_WARMUP_QUIET_S 0.4
#define MEASURE_WARMUP_MAX_S 600.0
/* The limits every option and spec parser checks (core/base/num.h). */
#define MEASURE_WINDOW_MIN_S 0.05
#define MEASURE_WINDOW_MAX_S 600.0
#define MEASURE_SETTLE_MAX_S 60.0
#define MEASURE_PAIRS_MAX 1000
#define MEASURE_FREQ_MAX_HZ 100000
/* How often a window's counts are read while it runs (live tree updates). */
#define MEASURE_COLLECT_S 0.5

/* What measure collects from: the live sampler by default; tests plug in a
 * fake.  collect adds the samples counted since the previous collect into
 * window win of p and returns how many, or -errno. */
struct measure_sampler {
	void *ctx;
	int (*add_tgid)(void *ctx, uint32_t tgid);
	int64_t (*collect)(void *ctx, struct profile *p, unsigned win);
	/* Samples lost/dropped so far (may be NULL).  What dropped grows by
	 * between two collects is the lost count of the window the later one
	 * filled (settle times' losses go with their samples); the status's
	 * dropped is the windows' sum (profile_lost).  ustack_errors: samples
	 * counted without their user stack so far, given to windows the same
	 * way (the call sites leave them out, issue 27). */
	void (*counters)(void *ctx, uint64_t *dropped, uint64_t *lost, uint64_t *ustack_errors);
	void (*close)(void *ctx);
	/* What the last collect saw as a wait graph (time accounting: who
	 * woke whom), valid until the next collect; NULL when the sampler
	 * does not account blocked time.  May be NULL. */
	const struct waitgraph *(*waits)(void *ctx);
	/* A duty-cycled sampler (--time wall over its budget: core/model/
	 * timeacct.h).  window: a window [start, start + len) opens; tick:
	 * attach or detach when due (0 or -errno with *cause); next: when the
	 * next tick is due (util_mono_s's base).  Each may be NULL. */
	void (*window)(void *ctx, double start, double len, double now);
	int (*tick)(void *ctx, double now, char **cause);
	double (*next)(void *ctx);
};

/* What time is accounted for the diagnosed threads (--time). */
enum measure_time {
	MEASURE_TIME_AUTO = 0,       /* wall with a victim, else cpu */
	MEASURE_TIME_CPU,            /* on-CPU samples only */
	MEASURE_TIME_WALL,           /* on-CPU + blocked + runnable (core/model/timeacct.h)
	                              * of the victim, else of the load / -p */
};

struct measure_opts {
	unsigned pairs;              /* k; with sequential: the maximum */
	int sequential;              /* look after every pair, stop when the
	                              * verdict is settled (core/measure/measure_seq.h);
	                              * 0 (default): exactly pairs pairs */
	unsigned min_pairs;          /* with sequential: never stop before */
	double deadline_s;           /* with sequential: stop when the next pair
	                              * would end past this much measuring
	                              * (SEQSTOP_DEFAULT_DEADLINE_S unless --pairs
	                              * is given); 0: none */
	int adapt_window;            /* with sequential: window length from the
	                              * first pair (1 by default) */
	int adapt_settle;            /* ... and the settle time (1 by default) */
	double explain;              /* the descent's share for the looks (0.5) */
	double window_s;             /* w */
	double settle_s;
	double warmup_s;             /* at most this long a started load runs
	                              * before the first window; 0: none */
	unsigned freq_hz;
	char **load_argv;            /* NULL-terminated; not owned */
	char **victim_argv;
	pid_t victim_pid;
	char **background_argv;
	pid_t pid;                   /* -p */
	int pause;                   /* --pause (with pid) */
	const char *reference_path;  /* --reference FILE; NULL: the default path */
	double reference_max_age_s;  /* 0: 24 h */
	int strict;                  /* --strict: refuse a saved reference whose
	                              * scope is not the loaded windows' */
	int reference_only;          /* all windows are references (reference save) */
	unsigned reference_windows;  /* with reference_only: how many windows */
	unsigned load_flags;         /* LOAD_F_* for the loads argus starts */
	double collect_s;            /* read the maps this often within a window
	                              * (live trees); 0: MEASURE_COLLECT_S, <0:
	                              * only at window ends (batch) */
	enum measure_time time;      /* --time */
	double time_budget_pct;      /* --time-budget: the wall-clock accounting's
	                              * CPU budget (core/model/timeacct.h); 0: the
	                              * per-event budget; < 0: never duty-cycled */
	int kernel_only;             /* --kernel-only: no user stacks (the sampler's
	                              * nor the wall-clock accounting's) */
	/* the model of the load (time accounting): which loaded windows it is
	 * built from (core/model/model_window.h); neither: all of them */
	int model_steady;            /* --steady */
	double model_tol;            /* --tolerance; 0: MODEL_WINDOW_TOL */
	const char *model_mark;      /* --mark RE: matched against the load's
	                              * stdout lines (needs LOAD_F_PIPE_STDOUT) */
	FILE *load_out;              /* the loads' piped output lines
	                              * ("load: ..."), escaped; NULL: dropped */
	FILE *log;                   /* progress lines ("window 2/6 load 1.0 s"); NULL none */
	const struct measure_sampler *sampler; /* NULL: live; copied, closed by measure */
};

/* Fills the defaults above (no load). */
void measure_opts_default(struct measure_opts *o);

/* "sample@999Hz": the probe set a saved reference must match. Returns buf. */
char *measure_probe_set(unsigned freq_hz, char *buf, size_t len);

/* 0 when o describes a measurement that can run; else -EINVAL with *cause
 * saying which options conflict and what to give instead.  measure_new
 * calls it first: nothing is started, loaded or paused before it passes. */
int measure_opts_check(const struct measure_opts *o, char **cause);
/* Its part for the model's windows (--steady, --mark, --tolerance), which
 * the option parsers also call: one set of messages. */
int measure_opts_check_model(const struct measure_opts *o, char **cause);

/* 1 when the diagnosed threads' whole time is accounted (--time). */
int measure_time_wall(const struct measure_opts *o);

#endif
