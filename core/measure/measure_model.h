/* measure_model — the model side of a measurement (core/measure/measure.c only):
 * the wait graph of each loaded window (time accounting), the windows the
 * model is built from (--steady / --mark, chosen by core/model_window as
 * `argus model` chooses them), and the loads' output when it is piped
 * (LOAD_F_PIPE_*): read as it comes, each line passed to the log and the
 * load's stdout lines to the mark.
 */
#ifndef ARGUS_MEASURE_MODEL_H
#define ARGUS_MEASURE_MODEL_H

#include <poll.h>

#include "measure/measure.h"

struct load;
struct waitgraph;
struct measure_model;

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

/* See measure_windows (measure.h); final: measuring is over. */
int measure_model_windows_get(struct measure_model *mm, int final, struct measure_windows *out);

#endif
