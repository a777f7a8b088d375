/* measure — alternating reference/loaded windows as a source (core/measure/source.h).
 *
 * k pairs of windows of w seconds, R L R L ...: in a reference window the
 * load is paused (or not started yet, for the first one), in a loaded window
 * it runs.  After every switch a settle time is measured into a scratch
 * profile and dropped, so the transient of pausing/resuming is not counted.
 * Alternation makes slow drift (the machine's own background) cancel.
 *
 * Conditions (see man/argus.1, LOAD OPTIONS):
 *   load_argv            started by argus, paused in the reference windows
 *   victim_argv / _pid   sampling is filtered to it; runs in both conditions
 *   background_argv      runs in both conditions (noise that must cancel)
 *   pid (+ pause)        an already running load: paused only with pause;
 *                        otherwise only loaded windows are measured and the
 *                        reference windows come from a saved reference
 *                        (core/host/reference.h)
 *   reference_only       `argus reference save`: every window is a reference
 *                        of the idle system
 * Sampling is system-wide unless there is a victim.  With --time wall
 * (the default with a victim) the diagnosed threads' blocked and runnable
 * time is accounted too, in the same windows (core/model/timeacct.h).
 *
 * Test hooks: ARGUS_TEST_FAIL_AFTER=window (or window:N) makes tick fail after
 * the first (N-th) window, as an internal error would (tests/live/lifecycle.sh);
 * ARGUS_TEST_STACKS=N gives the live sampler a stack map of N entries, so
 * that stacks are lost and counted (tests/tui/status_truth.sh).
 */
#ifndef ARGUS_MEASURE_H
#define ARGUS_MEASURE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "data/profile.h"
#include "measure/source.h"

/* Defaults, chosen with tests/bench/scenarios.sh (see BENCH.md).  PAIRS is
 * the fixed count (--fixed, and measure_opts_default); sequential
 * measuring goes up to SEQSTOP_DEFAULT_MAX_PAIRS (core/analysis/seqstop.h). */
#define MEASURE_DEFAULT_PAIRS 6
#define MEASURE_DEFAULT_WINDOW_S 0.5
#define MEASURE_DEFAULT_SETTLE_S 0.1
#define MEASURE_DEFAULT_FREQ_HZ 999
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
	 * dropped is the windows' sum (profile_lost). */
	void (*counters)(void *ctx, uint64_t *dropped, uint64_t *lost);
	void (*close)(void *ctx);
	/* What the last collect saw as a wait graph (time accounting: who
	 * woke whom), valid until the next collect; NULL when the sampler
	 * does not account blocked time.  May be NULL. */
	const struct waitgraph *(*waits)(void *ctx);
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

/* Starts the loads (held before exec), opens the sampler (NULL o->sampler:
 * /proc/kallsyms and the live BPF sampler), loads a saved reference when
 * one is needed.  Nothing is measured before the first tick.  Returns NULL
 * with errno and *cause set (caller frees); errno ENOEXEC... see cause.
 * *noexec is set to 1 when a command could not be run (exit 127).  The
 * source owns the loads: source_free resumes and ends them. */
struct source *measure_new(const struct measure_opts *o, int *noexec, char **cause);

/* The loads of a measure source (NULL when absent); valid while s lives. */
struct load *measure_load(struct source *s);
/* Whose samples each condition holds, for the header and the JSON:
 * "system-wide", "system-wide, saved 12:01" (a saved reference),
 * "system-wide (PID 1234 runs)" (-p without --pause), "the victim (PID 7)".
 * A saved reference scoped otherwise than the loaded windows says so
 * ("... : not the loaded windows' scope").  Writes ref and load. */
void measure_scopes(struct source *s, char *ref, size_t rlen, char *load, size_t llen);
struct load *measure_victim(struct source *s);

/* 1 when tick failed because the load's command could not be run (exec
 * failure reported at its first loaded window): the caller exits 127. */
int measure_noexec(struct source *s);

/* Closes the sampler (its BPF programs detach) and keeps the loads, as the
 * source does itself when measuring is done (steps then run against the
 * same loads with probes of their own).  Idempotent. */
void measure_close_sampler(struct source *s);

/* Why measuring stopped, once it has: "settled after 3 pairs: ...",
 * "maximum of 12 pairs reached; ...", "the load exited (0) after 2 pairs",
 * "fixed: 6 pairs"; *settled 1 for the first; *pairs the pairs measured;
 * *windows (may be NULL) how the windows adapted ("" when they did not).
 * Strings valid while s lives.  Returns 0, -EAGAIN while measuring, -EINVAL
 * when s is not a measure source. */
int measure_stopping(struct source *s, const char **reason, unsigned *pairs, int *settled,
		     const char **windows);

/* The windows the model of the load is built from (time accounting:
 * --time wall, a victim), as far as measuring got: */
struct waitgraph;
struct measure_windows {
	const struct waitgraph *g;   /* the chosen loaded windows' wait graphs
	                              * merged (blocked intervals, wakers, on-CPU
	                              * and runnable time; secs their length);
	                              * valid until the next call or tick */
	unsigned first, last, n;     /* loaded windows [first, last] of n, 0-based */
	char used[240];              /* "steady state: windows 3-9 of 12 (rates
	                              * within 20%)", "marked: 'RE' at 1.2 s ..
	                              * end: windows 4-12 of 12", "all 12 loaded
	                              * windows (no --steady/--mark)" */
	char why[720];               /* no graph: why (and what to do) */
};

/* Fills out.  0 with out->g; -EAGAIN while the windows are not there yet
 * (why: "waiting for ..."); -ERANGE when measuring ended without them (why:
 * a --mark that never matched, with the lines read; no steady state, with
 * the rates); -ENOENT without time accounting or when s is not a measure
 * source; -ENOMEM. */
int measure_model_windows(struct source *s, struct measure_windows *out);

/* Seconds spent measuring (first tick to DONE). */
double measure_elapsed(struct source *s);

#endif
