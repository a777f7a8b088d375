/* model_probe — the scheduler-time probe's own CPU out of the model's
 * demands (model.h: the probe correction), a step of building the model:
 * model_build calls it last.  Solving with or without the probe's CPU is
 * model_solve.c's. */
#include <math.h>
#include <string.h>

#include "model/model.h"
#include "model/model_priv.h"

/* The probe's cost out of the demands (model.h).  What each program's run
 * time is part of, from where the kernel runs it:
 *  - sched_switch runs in __schedule on the CPU that switches, still in
 *    prev's context, but the program reads its clock first: prev's
 *    measured on-CPU interval ends at that read and next's begins there,
 *    so the run (and the rest of the switch) is in next's on-CPU time.
 *    Each run is charged to the thread switched in: a thread's switch-ins
 *    are its on-CPU intervals (the probe counts them).  A switch to the
 *    idle task or to a task outside the load costs the load nothing.
 *  - sched_waking runs at the start of try_to_wake_up, in the waker's
 *    context (the thread writing to the socket, releasing the futex), also
 *    for a remote wakeup queued to the wakee's CPU: charged to the waker,
 *    one run per wakeup of a load thread it made (the wait edges it ends).
 *    A wakeup from an interrupt or softirq runs in whatever the CPU was
 *    running (unknown: not charged); wakeups of tasks outside the load are
 *    not seen (the program exits early for them: cheap).
 *  - the interrupt, softirq and hrtimer entry/exit programs (tens of ns)
 *    run in the interrupted context: not charged; fork and wakeup_new are
 *    rare.
 * With statistics (MODEL_PROBE_STATS) every run is charged the mean run
 * time of all the probe's programs on the whole machine: the early exits
 * for other tasks and the interrupt programs are cheaper than a load's
 * switch, the tracepoint's dispatch and half of the statistics' own clock
 * reads are outside the measured time, so this is a lower bound of what
 * the probe took from the load.  On a machine busy with other switching
 * the mean falls below what a load's switch costs even with hot caches
 * (117 ns a run was seen on the shared test VM, against 130-140 ns for a
 * tracked sched_switch alone): it is floored at MODEL_PROBE_SWITCH_NS /
 * MODEL_PROBE_WAKE_NS, each event at least what the ping-pong measured.
 * A pool and its lock's section are the same threads: their probe CPU is
 * split in proportion to their CPU.  Applied after the calibration: the
 * other work (beta) and the section were fitted to what was measured, the
 * probed load, and are kept (the probe's runs in other tasks' contexts,
 * part of that other work, are not taken out of it). */
void model_probe_correct(struct model *m, const struct model_opts *o)
{
	struct model_probe *pr = &m->probe;
	struct model_prediction p;
	const char *why;
	double events = 0, removed = 0;

	memset(pr, 0, sizeof(*pr));
	pr->source = o->probe_source;
	if (pr->source == MODEL_PROBE_STATS && !(o->probe_event_ns > 0 && isfinite(o->probe_event_ns)))
		pr->source = MODEL_PROBE_ESTIMATE; /* no usable mean: the figures */
	if (pr->source == MODEL_PROBE_STATS) {
		pr->mean_ns = o->probe_event_ns;
		pr->switch_ns = fmax(pr->mean_ns, MODEL_PROBE_SWITCH_NS);
		pr->wake_ns = fmax(pr->mean_ns, MODEL_PROBE_WAKE_NS);
		pr->floored = pr->mean_ns < MODEL_PROBE_SWITCH_NS;
	} else if (pr->source == MODEL_PROBE_ESTIMATE) {
		pr->switch_ns = MODEL_PROBE_SWITCH_NS;
		pr->wake_ns = MODEL_PROBE_WAKE_NS;
	} else {
		return;
	}
	for (unsigned i = 0; i < m->ntask; i++) {
		struct model_task *t = &m->task[i], *s = NULL;
		double ps, total, f, n;

		if (t->kind != MODEL_TASK_APP)
			continue;
		for (unsigned j = 0; j < m->ntask && !s; j++)
			if (m->task[j].kind == MODEL_TASK_SEMAPHORE && model_pool_of(m, (int)j) == (int)i)
				s = &m->task[j];
		ps = (t->probe_switches * pr->switch_ns + t->probe_wakes * pr->wake_ns) / 1e9;
		total = t->cpu_s + (s ? s->cpu_s : 0);
		if (ps > total) {
			ps = total;
			pr->clamped = 1;
		}
		f = total > 0 ? ps / total : 0;
		t->probe_s = t->cpu_s * f;
		t->cpu_s -= t->probe_s;
		if (s) {
			s->probe_s = s->cpu_s * f;
			s->cpu_s -= s->probe_s;
		}
		n = t->invocations > 0 ? t->invocations : 1; /* per-invocation figures' base */
		events += (t->probe_switches + t->probe_wakes) * n;
		removed += ps * n;
	}
	pr->events_per_s = m->secs > 0 ? events / m->secs : 0;
	pr->cpus = m->secs > 0 ? removed / m->secs : 0;
	if (!model_solve(m, NULL, &p, &why)) {
		pr->solved = 1;
		pr->x = p.x;
		pr->r = p.r;
	}
}

const char *model_probe_source_name(enum model_probe_source s)
{
	return s == MODEL_PROBE_STATS ? "stats" : s == MODEL_PROBE_ESTIMATE ? "estimate" : "none";
}
