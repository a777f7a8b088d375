/* measure_seq — sequential stopping inside the measurement (core/measure/measure.c):
 * after every reference/loaded pair the analysis runs over what was
 * measured (tree, calibration with the anytime-valid test, the descent),
 * core/analysis/seqstop.h decides whether the verdict is settled, and after the
 * first pair the windows adapt (seqstop_windows).  It lives in the source,
 * so every driver of a measure source — `argus diagnose`, the interactive
 * argus — stops the same way without a loop of its own.
 */
#ifndef ARGUS_MEASURE_SEQ_H
#define ARGUS_MEASURE_SEQ_H

#include <stdint.h>
#include <stdio.h>

#include "data/profile.h"
#include "analysis/seqstop.h"

struct measure_seq_opts {
	unsigned min_pairs, max_pairs;
	double explain;          /* the descent's share (0.5) */
	int adapt_window;        /* choose the window length after pair 1 */
	int adapt_settle;        /* ... and the settle time */
	unsigned freq_hz;
	uint32_t exclude_tgid;   /* argus's own stacks are left out (as diagnose) */
	double deadline_s;       /* seqstop_opts.deadline_s, from measure_seq_new;
	                          * 0: none */
};

struct measure_seq;

/* NULL with errno set. */
struct measure_seq *measure_seq_new(const struct measure_seq_opts *o);
void measure_seq_free(struct measure_seq *q); /* NULL-safe */

/* Busy samples of window w of p: stacks of a known process (tgid not 0,
 * the idle task) other than self. */
uint64_t measure_seq_busy(const struct profile *p, unsigned w, uint32_t self);

/* Samples of window w of p in the processes tg[0..ntg). */
uint64_t measure_seq_count_tgids(const struct profile *p, unsigned w, const uint32_t *tg,
				 unsigned ntg);

/* Records the samples of one slice of slice_s after the first resume (the
 * settle time and the first loaded window): the load's own, or the busy
 * ones when argus did not start it. */
void measure_seq_slice(struct measure_seq *q, double busy, double slice_s);
/* 1 while slices are wanted (before the first pair's look). */
int measure_seq_slicing(const struct measure_seq *q);

/* After pair `pair` (1-based) of p completed: the look.  After pair 1 the
 * windows may change: *window_s and *settle_s (in: the current ones) are
 * set for the pairs to come, with a line on log.  Returns 1 when measuring
 * should stop, 0 to go on, -errno. */
int measure_seq_pair(struct measure_seq *q, const struct profile *p, unsigned pair,
		     double *window_s, double *settle_s, FILE *log);

/* The last decision (reason, pairs, settled); zeroed before the first look.
 * Valid while q lives. */
const struct seqstop_decision *measure_seq_decision(const struct measure_seq *q);

/* "window 0.25 s (...), settle 0.03 s (...)" or "" when they did not adapt. */
const char *measure_seq_windows_why(const struct measure_seq *q);

#endif
