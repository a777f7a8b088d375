/* step_exec — runs one validated instrumentation step in alternating
 * reference/loaded windows, as the calibration did.
 *
 * The executor opens the step's kind probe (core/probe/kind.h) once, then walks a
 * plan of 2*pairs windows R L R L ...: in a reference window the load is
 * paused (load_pause), in a loaded window it runs (load_start the first
 * time, load_resume after): core/host/load.c is the one place that pauses and
 * resumes.  After every switch a settle time passes whose events the kind
 * drops (kind_ops.discard).  At the end of every window (and every
 * collect_s within it, for live display) the kind adds what accrued into
 * that window of a struct step_data.  The load is never left paused: the
 * executor resumes it when it finishes, stops, fails or is freed.
 *
 * Overhead guard: BPF run-time statistics are enabled while an executor
 * lives (probe_bpf_stats_begin: the kernel turns them off again when argus
 * exits, however it exits).  Every STEP_EXEC_GUARD_S the run time of the
 * step's programs over the last interval is compared with the budget
 * (default 2% of one CPU); over it, the probe is detached at once, the
 * windows measured so far are kept, and the executor ends in state
 * STEP_EXEC_OVER_BUDGET with a reason such as
 * "stopped: over budget (3.4% of a CPU > 2%)".
 *
 * Duty cycle: a kind that can detach and attach again (kind_ops.pause and
 * .resume: tracepoint_stacks, counts) is never stopped for its cost while
 * a smaller part of each window would fit the budget.  The programs are
 * attached for the first `duty` of each window only (from the step's duty,
 * 1 when it has none) and detached for the rest and for settle times; a
 * window's length is its attached part, so rates are per attached second
 * and both conditions are measured alike.  When the guard finds the cost
 * while attached times the duty over the budget, the duty is lowered to
 * STEP_EXEC_DUTY_AIM of what fits (never below STEP_DUTY_MIN: below it the
 * step stops as above) and the info says so (duty, duty_note).
 *
 * Two ways to drive it:
 *  - batch: step_exec_run(x, signal_fd, &cause) blocks until done; it
 *    returns early when the signalfd becomes readable.
 *  - a poll loop (the TUI): call step_exec_tick(x, now, &cause) whenever
 *    step_exec_timeout_ms(x, now) has elapsed (or on any wake-up: ticking
 *    early is harmless); step_exec_status fills a struct source_status
 *    with phase SOURCE_STEP while it runs (SOURCE_SETTLING during settle
 *    time) and SOURCE_DONE at the end.  now is CLOCK_MONOTONIC seconds.
 *
 * Ownership and lifetimes: the executor copies the step (step_clone) and
 * never references the caller's.  It does not own opts.load or opts.ks;
 * both must outlive it.  The struct step_data it fills belongs to the
 * executor until step_exec_take_data hands it over (then the caller frees
 * it with step_data_free); step_exec_data peeks at it (valid until the next
 * tick or free).  Nothing is loaded in the kernel after step_exec_stop or
 * step_exec_free, and nothing stays loaded if argus dies: probes are owned
 * by the process's fds.
 */
#ifndef ARGUS_STEP_EXEC_H
#define ARGUS_STEP_EXEC_H

#include <stdint.h>
#include <stdio.h>

#include "probe/kind.h"
#include "measure/source.h"
#include "data/step.h"

struct load;
struct ksym_table;

#define STEP_EXEC_DEFAULT_PAIRS 3
#define STEP_EXEC_MIN_WINDOW_S 0.25
#define STEP_EXEC_DEFAULT_SETTLE_S 0.1
#define STEP_EXEC_DEFAULT_BUDGET_PCT 2.0 /* sample */
#define STEP_EXEC_EVENT_BUDGET_PCT 5.0   /* kinds that run per event */
#define STEP_EXEC_GUARD_S 0.25          /* overhead checked this often */
#define STEP_EXEC_GUARD_AVG_S 1.0       /* ... against its average over ~1 s */
#define STEP_EXEC_GUARD_RUNAWAY 10.0    /* one interval over 10x the budget
                                         * stops it at once */
#define STEP_EXEC_DUTY_AIM 0.9          /* a lowered duty aims 10% under */

/* The default budget of a kind, % of one CPU: 2% for sample, whose cost is
 * fixed by its frequency; 5% for the kinds that run on every event (a
 * raw tracepoint costs ~0.1-0.2 us a firing here, and page faults fire
 * ~100k times a second under a fault-heavy load). */
double step_exec_default_budget(enum step_kind k);

/* 1 when kind k's probe can be attached part of each window (a duty
 * cycle: kind_ops.pause and .resume). */
int step_exec_kind_can_duty(enum step_kind k);

struct step_exec_opts {
	unsigned pairs;              /* reference/loaded pairs; 0: the default.
	                              * Window length = step duration_s / pairs
	                              * (duration_s is per condition); pairs is
	                              * lowered so windows last at least
	                              * STEP_EXEC_MIN_WINDOW_S */
	double settle_s;             /* <0: the default; 0 allowed */
	double budget_pct;           /* % of one CPU; 0: the kind's default
	                              * (step_exec_default_budget) */
	double collect_s;            /* >0: also collect this often within a
	                              * window (live trees); 0: window ends only */
	int sequential;              /* stop when the step's result is settled:
	                              * after each pair the step's own tree is
	                              * calibrated with the anytime-valid test and
	                              * descended, by the rule of core/analysis/seqstop.h
	                              * (kinds counting samples or events only: a
	                              * sum of microseconds is not a Poisson count) */
	unsigned min_pairs;          /* with sequential: never before (0: 2) */
	struct load *load;           /* paused in reference windows; not owned.
	                              * NULL: no load to pause — every window then
	                              * runs under the same condition and the
	                              * comparison is void (tests, idle checks) */
	const struct ksym_table *ks; /* not owned; NULL: the executor loads
	                              * /proc/kallsyms itself (not with opts.ops) */
	const struct kind_ops *ops;  /* NULL: kind_ops_get(step kind); tests plug a fake */
	int no_bpf_stats;            /* do not enable BPF statistics (tests) */
	FILE *log;                   /* progress lines; NULL: none */
};

void step_exec_opts_default(struct step_exec_opts *o);

enum step_exec_state {
	STEP_EXEC_READY,             /* created, nothing measured yet */
	STEP_EXEC_RUNNING,
	STEP_EXEC_DONE,              /* every window measured */
	STEP_EXEC_OVER_BUDGET,       /* detached by the overhead guard */
	STEP_EXEC_STOPPED,           /* step_exec_stop before the end */
	STEP_EXEC_FAILED,            /* tick returned an error */
};

const char *step_exec_state_name(enum step_exec_state st); /* "done", ... */

/* What a finished (or stopped) run measured besides the step_data. */
struct step_exec_info {
	enum step_exec_state state;
	char reason[160];            /* why it ended early ("stopped: over budget
	                              * (3.4% of a CPU > 2%)"); "" when done */
	unsigned pairs, windows;     /* planned pairs; windows measured */
	char stopping[200];          /* with sequential: why it stopped ("settled
	                              * after 2 pairs: ...", "maximum of 3 pairs
	                              * reached; ..."); "" otherwise */
	int settled;
	double window_s, settle_s;
	double elapsed_s;            /* first tick to the end */
	double overhead_pct;         /* BPF run time of the step's programs over
	                              * the time they were attached, % of one
	                              * CPU; <0 unknown (no statistics) */
	double overhead_max_pct;     /* the worst guard interval */
	double budget_pct;
	double duty;                 /* the part of each window attached at the
	                              * end (1: all of it) */
	double duty_start;           /* ... at the start (the step's duty, or 1) */
	double attached_pct;         /* cost while attached, % of one CPU (the
	                              * guard's average); <0 unknown */
	char duty_note[200];         /* why the duty is below 1 ("attached 62% of
	                              * each window: 7.3% of a CPU attached all the
	                              * time is over the 5% budget"); "" at 1 */
	uint64_t run_ns, run_cnt;    /* BPF run time and runs since open */
	uint64_t events, lost;       /* kind_stats at the end */
	unsigned progs;
};

struct step_exec;

/* Prepares a run of step s (validated: s->resolved filled) — opens the
 * kind's probe (attaching it; what it counts before the first window is
 * discarded) and enables BPF statistics.  Returns NULL with errno and
 * *cause (caller frees) set: no probe for the kind in this build
 * (ENOSYS), a load that cannot be paused, an attach failure. */
struct step_exec *step_exec_new(const struct step *s, const struct step_exec_opts *o,
				char **cause);

/* Advances the run to now (monotonic seconds).  Returns 1 when the data
 * changed (a collect happened), 0 when not, -errno on failure with *cause
 * (the run is then over: state FAILED, probe detached, load resumed).
 * Ending over budget is not a failure: tick returns 1 and the state says it. */
int step_exec_tick(struct step_exec *x, double now, char **cause);

/* Milliseconds until the next tick is due; -1 when the run is over. */
int step_exec_timeout_ms(struct step_exec *x, double now);

/* 1 once the run is over (done, over budget, stopped or failed). */
int step_exec_finished(const struct step_exec *x);

/* Progress as a source status: phase SOURCE_STEP / SOURCE_SETTLING /
 * SOURCE_DONE, window, nwindows, elapsed, phase_left_s, samples = events,
 * dropped = what its windows lost so far (profile_lost), probes,
 * overhead_pct (last guard interval), load_state. */
void step_exec_status(struct step_exec *x, struct source_status *st);

/* The condition of the window running or settling (COND_REF / COND_LOAD). */
enum cond step_exec_cond(const struct step_exec *x);

/* Fills info (valid any time; final once finished). */
void step_exec_info(const struct step_exec *x, struct step_exec_info *info);

/* The step being run (the executor's copy; valid while x lives). */
const struct step *step_exec_step(const struct step_exec *x);

/* The data so far; owned by the executor, valid until the next tick/free. */
const struct step_data *step_exec_data(const struct step_exec *x);

/* Hands the data over (caller frees with step_data_free); afterwards the
 * executor holds none.  Call once finished. */
struct step_data *step_exec_take_data(struct step_exec *x);

/* Ends the run now: detaches the probe, resumes the load; state STOPPED
 * unless already over.  Idempotent. */
void step_exec_stop(struct step_exec *x);

/* Stops and frees; NULL-safe.  Does not free opts.load or opts.ks. */
void step_exec_free(struct step_exec *x);

/* Blocking run for batch commands: ticks until finished, waiting in poll()
 * in between.  When stop_fd >= 0 (a signalfd) becomes readable the run is
 * stopped (state STOPPED, the fd left unread for the caller) and -EINTR
 * returned.  Returns 0 when the run ended (done or over budget, see
 * step_exec_info), -errno with *cause. */
int step_exec_run(struct step_exec *x, int stop_fd, char **cause);

/* The guard's verdict on one interval, for tests and the pre-flight:
 * percent of one CPU that run_ns over secs is. */
double step_exec_overhead_pct(uint64_t run_ns, double secs);

#endif
