/* measure_model — the model side of a measurement (core/measure/measure.c
 * drives it; measure_model_windows there gives its windows): the wait
 * graph of each loaded window (time accounting), the windows the model is
 * built from (--steady / --mark, chosen by core/model/model_window.c as
 * `argus model` chooses them), and the loads' output when it is piped
 * (LOAD_F_PIPE_*): read as it comes, each line passed to the log and the
 * load's stdout lines to the mark.
 */
#ifndef ARGUS_MEASURE_MODEL_H
#define ARGUS_MEASURE_MODEL_H

#include <poll.h>

#include "measure/measure_opts.h"

struct load;
struct waitgraph;
struct measure_model;

/* The windows the model of the load is built from (time accounting:
 * --time wall, a victim), as far as measuring got: */
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

/* For o (model_steady, model_tol, model_mark, load_out); waits: the
 * sampler accounts blocked time (loaded windows get wait graphs).  NULL
 * with errno (ENOMEM, EINVAL: a bad --mark, *cause set). */
struct measure_model *measure_model_new(const struct measure_opts *o, int waits, char **cause);
void measure_model_free(struct measure_model *mm); /* NULL-safe; closes the pipes */

/* One collect's graph g into loaded profile window win (opened at start_s
 * on the measurement's clock), dt seconds since the previous collect.
 * 0 or -ENOMEM. */
int measure_model_collect(struct measure_model *mm, const struct waitgraph *g, unsigned win,
			  double start_s, double dt);

/* Takes the output pipes of l (who: "load", "victim", "background"; the
 * mark reads the load's stdout only). */
void measure_model_watch(struct measure_model *mm, struct load *l, const char *who);
/* The pipes still open, for poll. */
int measure_model_pollfds(struct measure_model *mm, struct pollfd *fds, int max);
/* Reads what the pipes hold now; t: the measurement's clock. */
void measure_model_read(struct measure_model *mm, double t);
/* The load's last non-blank line of output read so far (its stdout or
 * stderr, whichever wrote last; sanitized), or NULL: only piped output
 * (LOAD_F_PIPE_*) is seen. */
const char *measure_model_last_line(const struct measure_model *mm);

/* See measure_model_windows (measure.h); final: measuring is over. */
int measure_model_windows_get(struct measure_model *mm, int final, struct measure_windows *out);

#endif
