/* schedtime_duty — a time duty cycle for the scheduler-time programs, so
 * that they hold a CPU budget on loads that switch too often to be watched
 * all the time.
 *
 * Why: bpf/schedtime.bpf.c runs on every context switch and wakeup of the
 * machine, ~100 ns a switch at the very least for two programs (~180-200
 * ns as they are); a message ping-pong makes ~4*10^5 switches a second,
 * so watching it all the time costs ~14% of a CPU against the 5% budget
 * of per-event kinds (KIND_EVENT_BUDGET_PCT, core/probe/kind.h).  No
 * per-event saving gets there; watching a fraction of the time does.
 *
 * How: time is cut in periods of period_s (0.5 s; the window length is a
 * whole number of them, so a window read falls between two periods).  In
 * each period the programs are attached for an on-phase at its end (20 ms
 * before it), detached the rest of it (their links destroyed: zero cost).
 * The cost while attached is re-measured in every on-phase (averaged over
 * the last ~0.5 s of attached time) from the BPF run-time statistics (or,
 * without them, switches times SCHEDTIME_DUTY_NS_PER_SWITCH); while it is
 * within the budget the programs stay attached.  Else each on-phase is as
 * long as brings the probe's cost since the start to 0.9 of the budget
 * (a margin for the estimate's lag behind a change of the load) of the
 * time by the end of its period: about f = 0.9 * budget / cost of the
 * time, following the load.  By cost, not time: a phase that cost more
 * than planned (the load's warm-up, a change) is paid back by the next
 * ones, and the first 100 ms, always attached (the measurement that
 * decides), too.  At the end of the period: the cost so far then stays
 * under the aim at every moment, wherever the run ends (at the start, the
 * run's last phase could put it over by one phase: an `argus model` of a
 * 5 s ping-pong ended at 5.4% of a 5% budget).  No on-phase is shorter
 * than min_on_s (50 ms): when the budget allows less, the period is
 * skipped and a later one takes it.
 * Why 0.5 s and 50 ms: an on-phase must be long against the intervals it
 * is to see whole (a message ping-pong's are microseconds, a think time
 * of 10 ms loses ~10% of its intervals at 100 ms, see the bias below) and
 * against the ~1 ms an attach or detach of the ten programs takes; a
 * period short against the window (1 s) leaves two on-phases per window,
 * so the per-window rates --steady compares stay smooth.
 *
 * What it costs in accuracy (probe_schedtime.h): blocked and runnable
 * intervals are charged only when they begin and end within one on-phase.
 * That is length-biased: in on-phases of lengths D_i an interval of length
 * L is seen with probability sum (D_i - L)+ / sum D_i per attached second,
 * so long intervals are under-counted, and those longer than an on-phase
 * are never seen.  read_window corrects it per histogram bucket
 * (Horvitz-Thompson: weight sum D_i / sum (D_i - L)+ with L the bucket's
 * mean length 2^b / ln 2, or the key's own mean length when 90% of its
 * intervals are in one bucket: a think time, a timer), counts and the
 * histogram by bucket, total time by the buckets' share of it (a runnable
 * wait's parts charged to the other tasks that ran meanwhile carry no
 * histogram and keep their weight 1); the weight is capped at
 * SCHEDTIME_DUTY_MAX_WEIGHT (an interval longer than ~3/4 of an on-phase
 * stays under-counted: what no weight can see).  On-CPU time is exact
 * over the attached time.  Rates are per attached second
 * (probe_schedtime_snap.attached_secs), per-request ratios unaffected.
 *
 * Where it applies: `argus model` (the message-heavy case it was built
 * for), and the wall-clock tree of `--time wall` / a victim
 * (core/model/timeacct.h), whose windows set the periods
 * (schedtime_duty_period: one on-phase at the end of each window, never
 * skipped) and whose per-thread totals come from /proc
 * (core/probe/schedtime_wall.h): there a blocked interval of seconds is
 * the point, and no weight sees what no on-phase holds whole; a victim
 * that blocks for long switches little anyway and stays attached.  The
 * rates the model gets are those of the load while the probe is attached
 * (it runs slower then, as it did all the time without the duty cycle).  Measured
 * (BENCH.md): the message ping-pong 3.2-4.4% of a CPU on average, 9.9-12%
 * watched all the time; a think-time load forced to cycle keeps its think
 * time, calls per request and throughput (within the noise of ~6%).
 */
#ifndef ARGUS_SCHEDTIME_DUTY_H
#define ARGUS_SCHEDTIME_DUTY_H

#include <stdint.h>

#include "probe/schedtime_snap.h"

#define SCHEDTIME_DUTY_PERIOD_S 0.5
#define SCHEDTIME_DUTY_MIN_ON_S 0.05
#define SCHEDTIME_DUTY_NS_PER_SWITCH 200.0 /* without run-time statistics:
                                            * sched_switch + sched_waking,
                                            * BENCH.md "Scheduler-time programs" */
#define SCHEDTIME_DUTY_MAX_WEIGHT 4.0
#define SCHEDTIME_DUTY_AIM 0.9     /* of the budget, once cycling: the cost
                                    * estimate lags a change of the load */

/* The Horvitz-Thompson weight of an interval of len_s seconds seen only
 * whole within on-phases of the n lengths phase_s: sum D / sum (D - len)+,
 * at most SCHEDTIME_DUTY_MAX_WEIGHT; 1 without phases. */
double schedtime_duty_weight(const double *phase_s, unsigned n, double len_s);

/* Corrects the BLOCKED and RUNNABLE entries of a read_window snapshot
 * (not the PENDING parts) for the length bias of its phases, by histogram
 * bucket (see the top).  A snapshot without phases is left as it is. */
void schedtime_duty_reweight(struct probe_schedtime_snap *s);

struct schedtime_duty_opts {
	double budget_pct;      /* % of one CPU; 0: KIND_EVENT_BUDGET_PCT */
	double period_s;        /* 0: SCHEDTIME_DUTY_PERIOD_S, made to divide window_s */
	double window_s;        /* the caller's read period (0: none) */
	double min_on_s;        /* 0: SCHEDTIME_DUTY_MIN_ON_S */
};

enum schedtime_duty_act {
	SCHEDTIME_DUTY_NONE,
	SCHEDTIME_DUTY_ATTACH,
	SCHEDTIME_DUTY_DETACH,
};

/* The controller: plain numbers in, a decision out (the caller attaches
 * and detaches; tests drive it with made-up costs). */
struct schedtime_duty {
	struct schedtime_duty_opts o;
	double t0;              /* start (attached since) */
	double period_t0;       /* start of the current period */
	double on_t0;           /* start of the current on-phase */
	double on_start;        /* planned start of the next one (detached) */
	double on_end;          /* planned end of it */
	int attached;
	double f;               /* the fraction in force */
	double cost_on_pct;     /* cost while attached, % of a CPU: over the
	                         * last ~0.5 s of attached time */
	double acc_ns, acc_s;   /* its decaying sums */
	double attached_s;      /* attached time so far */
	double cost_ns;         /* BPF run time so far (the caller's measure) */
	double cost0;           /* cost at the start of the current on-phase */
	unsigned phases;        /* on-phases ended */
	int engaged;            /* ever detached */
	int every_period;       /* the caller sets the periods (schedtime_duty_period):
	                         * none is skipped, each has a phase */
};

/* Starts attached at now (seconds, any monotonic base). */
void schedtime_duty_init(struct schedtime_duty *d, const struct schedtime_duty_opts *o, double now);
/* At now, with the programs' cumulative cost so far (ns of CPU: BPF run
 * time, or switches * SCHEDTIME_DUTY_NS_PER_SWITCH): what to do. */
enum schedtime_duty_act schedtime_duty_tick(struct schedtime_duty *d, double now, double cost_ns);
/* The caller's own period from now on: [start, start + len), e.g. a
 * measurement window that is about to open (core/model/timeacct.c), so
 * that its on-phase ends just before the window's read, whatever the
 * windows' lengths.  Detached, the next on-phase is planned in it. */
void schedtime_duty_period(struct schedtime_duty *d, double start, double len, double now);
/* When the next tick has something to do (seconds, the same base). */
double schedtime_duty_next(const struct schedtime_duty *d);
/* Averages so far: attached fraction, and cost in % of one CPU (over the
 * whole time; while attached). */
double schedtime_duty_fraction(const struct schedtime_duty *d, double now);
double schedtime_duty_cost_pct(const struct schedtime_duty *d, double now);
double schedtime_duty_cost_on_pct(const struct schedtime_duty *d, double now);

#endif
