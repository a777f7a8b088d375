/* measure_opts.c — a measurement's options: their defaults, the probe set
 * they name, and the checks that refuse impossible combinations before
 * anything is started, loaded or paused. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "measure/measure_opts.h"
#include "model/model_window.h"
#include "analysis/seqstop.h"
#include "base/util.h"

void measure_opts_default(struct measure_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pairs = MEASURE_DEFAULT_PAIRS;
	o->window_s = MEASURE_DEFAULT_WINDOW_S;
	o->settle_s = MEASURE_DEFAULT_SETTLE_S;
	o->warmup_s = MEASURE_DEFAULT_WARMUP_S;
	o->freq_hz = MEASURE_DEFAULT_FREQ_HZ;
	o->min_pairs = SEQSTOP_DEFAULT_MIN_PAIRS;
	o->adapt_window = 1;
	o->adapt_settle = 1;
	o->explain = 0.5;
}

int measure_time_wall(const struct measure_opts *o)
{
	return o->time == MEASURE_TIME_WALL ||
	       (o->time == MEASURE_TIME_AUTO && (o->victim_argv || o->victim_pid));
}

char *measure_probe_set(unsigned freq_hz, char *buf, size_t len)
{
	snprintf(buf, len, "sample@%uHz", freq_hz ? freq_hz : MEASURE_DEFAULT_FREQ_HZ);
	return buf;
}

int measure_opts_check_model(const struct measure_opts *o, char **cause)
{
	struct model_mark mk;
	int err;

	if (!o->model_steady && !o->model_mark)
		return 0;
	if (o->model_steady && o->model_mark)
		return util_fail(cause, -EINVAL, "--steady and --mark both choose the windows of the "
				 "model; give one");
	if (o->reference_only)
		return util_fail(cause, -EINVAL, "--steady and --mark choose the windows of the model "
				 "of a load; a reference measures none");
	if (o->model_mark && !o->load_argv)
		return util_fail(cause, -EINVAL, "--mark reads the load's output, and %s: give the "
				 "load as a command (--load CMD or -- CMD), or use --steady",
				 o->pid ? "-p PID has none argus can read" : "there is no load command");
	if (!measure_time_wall(o))
		return util_fail(cause, -EINVAL, "%s chooses the windows of the model of the load, "
				 "which is built from blocked time and wakeups: add --time wall (the "
				 "default with --victim)", o->model_mark ? "--mark" : "--steady");
	if (o->model_mark) {
		err = model_mark_init(&mk, o->model_mark, cause);
		if (err)
			return err;
		model_mark_fini(&mk);
	}
	return 0;
}

int measure_opts_check(const struct measure_opts *o, char **cause)
{
	int err = measure_opts_check_model(o, cause);

	if (err)
		return err;
	/* !(x <= max) also refuses NaN: a NaN window never ends */
	if (!o->pairs || o->pairs > MEASURE_PAIRS_MAX || !(o->window_s >= MEASURE_WINDOW_MIN_S) ||
	    !(o->window_s <= MEASURE_WINDOW_MAX_S) || !(o->settle_s >= 0) ||
	    !(o->settle_s <= MEASURE_SETTLE_MAX_S)) {
		util_cause(cause, "--pairs must be 1 to 1000, --window 0.05 to 600 seconds and "
			   "--settle 0 to 60 seconds");
		return -EINVAL;
	}
	if (o->load_argv && o->pid) {
		util_cause(cause, "--load (or -- CMD) and -p are two loads; give one");
		return -EINVAL;
	}
	if (o->victim_argv && o->victim_pid) {
		util_cause(cause, "--victim and --victim-pid both name a victim; give one");
		return -EINVAL;
	}
	if (o->pause && !o->pid) {
		util_cause(cause, "--pause goes with -p PID");
		return -EINVAL;
	}
	if (o->sequential && o->min_pairs > o->pairs) {
		util_cause(cause, "--min-pairs %u is more than --pairs %u (the maximum); lower it or "
			   "raise --pairs", o->min_pairs, o->pairs);
		return -EINVAL;
	}
	if (o->reference_only)
		return 0;
	if (!o->load_argv && !o->pid) {
		util_cause(cause, "nothing to compare: give the load with --load CMD, -- CMD or -p PID");
		return -EINVAL;
	}
	if (o->time == MEASURE_TIME_WALL && o->pid && !o->pause && !o->victim_argv &&
	    !o->victim_pid) {
		util_cause(cause, "--time wall needs reference windows measured now: add --pause "
			   "(a saved reference has no blocked or runnable time)");
		return -EINVAL;
	}
	if ((o->victim_argv || o->victim_pid) && o->pid && !o->pause) {
		util_cause(cause, "a victim needs a load argus may pause: add --pause, or use --load");
		return -EINVAL;
	}
	return 0;
}
