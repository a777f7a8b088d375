/* source_session — every run is a session: a source that records the
 * source it wraps into a session file as the measurement goes.
 *
 * The wrapper forwards every call to the inner source and, after each tick,
 * writes the profile windows the inner source says are final
 * (source_status.closed) to the session, flushed and fsynced, so a kill
 * loses at most the window being measured.  Wrapping keeps the TUI's loop
 * and `argus diagnose` unaware of sessions: one line where the source is
 * made.
 *
 * At stop: windows closed since the last tick are written; a plain live
 * source (SOURCE_LIVE, one open-ended window) has its window written as it
 * stands (a reset, source.h, closes it: written then, and a new one opens); a measurement stopped before its plan ended leaves a note.
 */
#ifndef ARGUS_SOURCE_SESSION_H
#define ARGUS_SOURCE_SESSION_H

#include <stdint.h>
#include <stdio.h>

#include "measure/measure.h"
#include "measure/session.h"
#include "measure/source.h"

/* When the inner source reaches SOURCE_DONE with a detail (a measure
 * source says there why measuring stopped, core/measure/measure.h), that line is
 * written as a note, "measuring stopped: ...": replay shows it. */
struct source_session_opts {
	unsigned step;            /* the windows' step (0: calibration sampling) */
	uint32_t exclude_tgid;    /* stacks of this process are not written (argus
	                           * itself, as the analysis leaves it out); 0: all */
	int verdict_at_done;      /* when the inner source reaches SOURCE_DONE:
	                           * the analysis (core/analysis/analysis.h), its decisions
	                           * and verdict written (the interactive argus;
	                           * diagnose writes its own) */
	unsigned freq_hz;         /* for verdict_at_done */
	int sequential;           /* ... calibrated with the anytime-valid test */
	FILE *log;                /* one line when writing fails; NULL: none */
};

/* Wraps inner.  Takes ownership of inner (freed with the wrapper, also when
 * this fails); s is not owned: close it after source_free.  o may be NULL
 * (step 0, nothing excluded).  NULL with errno set. */
struct source *source_session_new(struct source *inner, struct session *s,
				  const struct source_session_opts *o);

/* The wrapped source (for measure_load() and friends), or s itself when s
 * is not a session wrapper; valid while s lives. */
struct source *source_session_inner(struct source *s);

/* Windows written so far. */
unsigned source_session_windows(struct source *s);

/* The first write error met (-errno), 0 when none. */
int source_session_error(struct source *s);

/* JSON object text for a session header's "options": {"command":command,
 * "load":"CMD ARGS","victim":..,"background":..,"pid":..,"pause":..,
 * "pairs":..,"window_s":..,"settle_s":..,"freq_hz":..,"exclude_tgid":..}
 * (absent members left out).  load_cmd (may be NULL) is the load as the
 * person typed it.  Caller frees; NULL with errno set. */
char *session_options_measure(const char *command, const struct measure_opts *o,
			      const char *load_cmd, uint32_t exclude_tgid);

/* 1 when a session header's options say the windows were measured with
 * sequential stopping (its calibration then uses the anytime-valid test,
 * calib_opts.sequential); 0 otherwise, also for older sessions. */
int session_options_sequential(const char *options_json);

/* The host's probe capabilities as JSON text (caps_cached; ~0.1-0.3 s the
 * first time), or NULL when they cannot be probed.  Caller frees. */
char *session_caps_json(void);

#endif
