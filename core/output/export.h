/* export — a recorded session as folded stacks, JSON or a markdown report
 * (`argus export`, the TUI's `w`), and the event list of `argus replay
 * --batch --json`.
 *
 * Everything is computed from the session's calibration windows (step 0)
 * among the first nev events — the whole session, or a replay position —
 * with the same tree, calibration and descent as `argus diagnose`.  The
 * verdict reported is the session's own (its last verdict event among those
 * events); when there is none (a cut session, a replay position before it)
 * the descent's answer over the windows is given and said to be that.
 */
#ifndef ARGUS_EXPORT_H
#define ARGUS_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include "data/profile.h"
#include "measure/session.h"
#include "data/tree.h"
#include "data/verdict.h"

enum export_format {
	EXPORT_FOLDED,
	EXPORT_JSON,
	EXPORT_MARKDOWN,
	EXPORT_PPROF,       /* core/data/pprof.h: gzipped profile.proto */
	EXPORT_FORMAT_N
};

/* "folded", "json", "markdown", "pprof"; EXPORT_FORMAT_N for an unknown name. */
enum export_format export_format_from_name(const char *name);

/* What a report is made of.  export_view_build fills one from a session;
 * the TUI fills its own from the tree it shows. */
struct export_view {
	const char *name;             /* the session file, or a title */
	const struct session_log *log; /* may be NULL (no session: tree only) */
	size_t nev;                   /* events of log considered */
	struct tree *t;               /* calibrated, verdict path marked; may be
	                               * NULL (nothing measured yet) */
	const struct verdict *v;      /* NULL: none */
	int v_recorded;               /* v is the session's verdict event (not
	                               * the descent's over the windows) */
	char *const *lines;           /* the descent's decisions, used when log
	                               * has no transcript among its nev events */
	unsigned nlines;
	/* private: what export_view_build owns */
	struct profile *own_p;
	struct tree *own_t;
	struct verdict own_v;
	char **own_lines;
	unsigned own_nlines;
};

/* Builds the view of log's first nev events (SIZE_MAX: all): profile, tree
 * (by subsystem), calibration with the header's frequency, descent.
 * Returns 0 or -errno with *cause (caller frees).  Free with
 * export_view_clear. */
int export_view_build(struct export_view *xv, const struct session_log *log, size_t nev,
		      const char *name, char **cause);
void export_view_clear(struct export_view *xv); /* NULL-safe */

/* Folded stacks ("a;b;c N", frames root first, one line per distinct stack)
 * of the windows of condition c summed, after a comment line
 * "# argus-window secs=S cond=ref|load" that `argus diff` reads (flame
 * graph tools skip it).  0 or -errno. */
/* Issue 27: each line starts with the stack's user-space frames (root
 * first, as perf script and FlameGraph put them: the program's own
 * functions, then the kernel's), the kernel frames then marked "_[k]" as
 * FlameGraph's --kernel does (`argus diff` reads such lines back as their
 * kernel frames), unless flags has EXPORT_FOLDED_KERNEL_ONLY: kernel frames
 * as they are, the format of old. */
#define EXPORT_FOLDED_KERNEL_ONLY 1u
int export_folded(const struct profile *p, enum cond c, unsigned flags, FILE *out);

/* The options to write a session's windows as pprof: the header's
 * frequency, the creation time as time_nanos, condition c (COND_N: both). */
struct pprof_write_opts;
void export_pprof_opts(const struct session_log *log, int c, struct pprof_write_opts *o);

/* The service a session's profile is of (issue 27 item 4: pprof's
 * service_name label, Pyroscope's application name, Parca's __name__):
 * the program of the session's victim, else of its load (the base name of
 * the command's first word, pprof_service_name), else the name of the
 * process given by PID, else "argus".  Into buf (len bytes). */
void export_service_name(const struct session_log *log, char *buf, size_t len);

/* The view as one JSON object (format argus-export, version 1): the session's
 * header facts, windows, verdict, steps, transcript and the calibrated tree
 * with both conditions' numbers.  0 or -errno. */
int export_json(const struct export_view *xv, FILE *out);

/* The view as a markdown report: verdict and evidence, the tree around the
 * verdict path (each path node with its siblings: ref/s, load/s, delta, q),
 * the descent's decisions, each step with its decision, notes.  0 or -errno. */
int export_markdown(const struct export_view *xv, FILE *out);

/* `argus replay --batch --json`: {"file":..,"events":[{"i":1,"type":..,
 * "t":..,"step":..,"text":..}...],"verdict":{...}|null,"notes":[...],
 * "truncated":bool}.  0 or -errno. */
int export_replay_json(const struct session_log *log, const char *name, FILE *out);

#endif
