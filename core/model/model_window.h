/* model_window — which windows the model of a load is built from (issue
 * 15, Boundaries): the model describes the steady state, not start-up or
 * shutdown.  One selection for every place the model is made: `argus
 * model` (core/model_capture) and the interactive argus / `argus diagnose`
 * (core/measure: the loaded windows of a calibrated run).
 *
 *   steady  the longest run of >= min consecutive windows whose block rate
 *           and CPU rate each stay within tol of the run's mean;
 *   mark    the first line of the load's output matching an extended regex
 *           opens the phase, the next closes it (or the end of the run);
 *           windows wholly inside are kept.
 *
 * Windows are wait graphs (core/data/waitgraph.h) with start_s and secs on one
 * clock; the mark's times are on the same clock.  Pure functions (no I/O)
 * except model_mark_read, which reads a non-blocking descriptor.
 */
#ifndef ARGUS_MODEL_WINDOW_H
#define ARGUS_MODEL_WINDOW_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>

#include "data/waitgraph.h"

#define MODEL_WINDOW_TOL 0.2     /* --tolerance's default */
#define MODEL_WINDOW_MIN 3       /* windows a steady state needs */

/* The --mark phase, from the load's output lines. */
struct model_mark {
	char *expr;                  /* the regex as given, owned */
	regex_t re;
	unsigned lines;              /* complete lines seen */
	double open_s, close_s;      /* -1 until seen */
};

/* A descriptor's output being split into lines. */
struct model_lines {
	char buf[4096];              /* a line not complete yet */
	size_t used;
};

/* Compiles expr (extended, no sub-matches) into mk (zeroed first).
 * 0, -EINVAL with *cause ("bad --mark regular expression ...") or -ENOMEM. */
int model_mark_init(struct model_mark *mk, const char *expr, char **cause);
void model_mark_fini(struct model_mark *mk); /* safe on a zeroed or failed mk */

/* One complete line read at time t: counted, matched.  1 when it matched
 * (it opened or closed the phase, or came after both), else 0. */
int model_mark_line(struct model_mark *mk, const char *line, double t);

/* Reads what fd has now (non-blocking), splits it into lines in lb (an
 * overlong line is cut at the buffer's size), passes each to
 * model_mark_line with time t when mk is not NULL, then to each(arg, line)
 * when each is not NULL.  Returns 1 while fd is open, 0 at end of file
 * (a last line without a newline is passed on then), -errno on a read
 * error. */
int model_lines_read(struct model_lines *lb, int fd, double t, struct model_mark *mk,
		     void (*each)(void *arg, const char *line), void *arg);

/* The steady run among win[0..n) (argus's own tgid self left out of the
 * rates): 0 with *first and *last set, -ERANGE with *cause listing every
 * window's rates ("the load never reached a steady state: no 3
 * consecutive windows ...; blocks/s and CPUs per window: 1200/0.50 ..."),
 * -ENOMEM.  The caller adds what to do. */
int model_window_steady(struct waitgraph *const *win, unsigned n, uint32_t self, double tol,
			unsigned min, unsigned *first, unsigned *last, char **cause);

/* The windows inside mk's phase: 0 with *first and *last set; -ERANGE with
 * *cause when the mark never matched (with the lines read) or no whole
 * window lies inside the phase.  window_s: the windows' length, for the
 * message. */
int model_window_marked(struct waitgraph *const *win, unsigned n, const struct model_mark *mk,
			double window_s, unsigned *first, unsigned *last, char **cause);

/* How the windows were chosen, for headers and the session (1-based
 * window numbers):
 *   "steady state: windows 3-9 of 12 (rates within 20%)"
 *   "marked: 'steady begin' at 1.2 s .. end: windows 4-12 of 12"
 *   "marked: 'x' at 1.2 s .. 8.0 s: windows 4-9 of 12"
 *   "all 12 loaded windows (no --steady/--mark)"
 * by: 's', 'm' or 'a'; mk only for 'm' (its expr escaped).  Returns out. */
char *model_window_text(int by, unsigned first, unsigned last, unsigned n, double tol,
			const struct model_mark *mk, const char *all_what, char *out,
			size_t len);

#endif
