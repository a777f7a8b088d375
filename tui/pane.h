/* pane — the agent pane's model: the conversation between a person and the
 * agent about instrumentation steps.  No curses here (view_agent.c draws,
 * app.c turns keys and prompts into these calls).
 *
 * The pane talks to any agent through core/agent.h (heuristic or LLM: it
 * never knows which).  Its first turn comes when the calibration is done.
 * A turn's reply is a proposal (a step spec, validated against this kernel
 * at once so errors show by their field), a verdict or text.  Nothing is
 * loaded before the person accepts (`a`), unless auto_accept (--auto) was
 * given.  An accepted step runs through pane_exec (the executor); its data
 * is kept so that every tree rebuild merges it again (pane_merge), and `u`
 * drops it.  Every decision goes to the transcript.
 */
#ifndef ARGUS_PANE_H
#define ARGUS_PANE_H

#include <stdint.h>

#include "agent.h"
#include "fmt_agent.h"
#include "pane_exec.h"
#include "pane_stream.h"
#include "session.h"
#include "source.h"
#include "step.h"
#include "tree.h"

#define PANE_DEFAULT_STEPS 5
#define PANE_MAX_RUNS 64
#define PANE_REASON_LINES 4       /* reasoning lines shown after the first turn */

struct pane_opts {
	unsigned steps;           /* N: at most N steps (--steps); 0: 5 */
	int auto_accept;          /* --auto */
	int utf8;                 /* glyphs in result lines */
	struct load *load;        /* the load steps pause; not owned, may be NULL */
	const struct caps *caps;  /* for validation; NULL: caps_cached() */
	int preflight;            /* count with the step's probe before offering it */
	int sequential;           /* a step stops when its result is settled
	                           * (step_exec_opts.sequential) */
	struct session *ses;      /* proposals, decisions, results, step windows and
	                           * the transcript are written there as they happen;
	                           * not owned; NULL: none (--no-session) */
};

struct pane_entry {
	enum fmt_agent_kind kind;
	char *text;               /* owned */
};

/* An accepted step. */
struct pane_run {
	struct step *step;        /* as run (edited or the agent's); owned */
	struct step *original;    /* the agent's original when edited; owned */
	struct pane_exec *x;      /* while running; owned */
	struct pane_result *res;  /* once finished; owned */
	unsigned idx;             /* step index in the session (0-based) */
	int where_said;           /* the transcript said where its results are */
};

struct pane {
	struct pane_opts o;
	struct agent *agent;      /* owned */
	enum fmt_agent_mode mode;
	struct pane_entry *tr;    /* the transcript */
	unsigned ntr, trcap;
	unsigned version;         /* bumped at every change (the view redraws) */
	int scroll;               /* transcript lines scrolled back from the end */

	struct step *prop;        /* the agent's proposal; owned; NULL: none */
	struct step *edit;        /* the person's copy while editing or after; owned */
	struct step_error err;    /* validation of what would be run */
	int has_err;
	char estimate[200];       /* the pre-flight line; "" when none */
	int cursor;               /* field cursor while editing */
	uint64_t focus_id;        /* the node the last reply concerns; 0: none */

	struct pane_run run[PANE_MAX_RUNS];
	unsigned nrun;            /* accepted steps kept (the last may be running) */
	unsigned nsteps;          /* steps started so far, undone ones included */
	int started;              /* the first turn happened */
	unsigned nturns;          /* replies taken */
	unsigned hyp_turn;        /* the ledger's last turn already shown */
	int turn_wanted;          /* a new turn is due (after a veto, results, focus) */
	int in_flight;            /* a turn answered -EINPROGRESS: poll it */
	int need_rebuild;         /* results changed: the tree must be rebuilt */
	int select_focus;         /* the view should select focus_id */
	int keep_selection;       /* new results are selected: the next reply does not move it */
	struct pane_stream *stream; /* an LLM turn as it streams in; owned; may be NULL */
	unsigned stream_seen;     /* the stream's version last shown */
};

/* Returns a pane talking to agent (takes ownership), or NULL with errno. */
struct pane *pane_new(const struct pane_opts *o, struct agent *agent);
void pane_free(struct pane *p); /* NULL-safe: stops a running step */

/* Appends a transcript entry (printf-style); 0 or -ENOMEM. */
int pane_say(struct pane *p, enum fmt_agent_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Drives the pane: the first turn once st says the calibration is done and
 * t is calibrated, an agent's reply in flight, a running step.  Returns 1
 * when something changed, 0 when not. */
int pane_tick(struct pane *p, struct tree *t, int calibrated, const struct source_status *st,
	      double now);
/* Milliseconds until pane_tick wants to run again; -1: only on events. */
int pane_timeout_ms(struct pane *p, double now);

/* The person's decisions.  Each returns 0, or -errno after saying why in
 * the transcript.  t is the tree shown now. */
int pane_accept(struct pane *p, struct tree *t);
int pane_veto(struct pane *p, struct tree *t, const char *reason);
int pane_another(struct pane *p, struct tree *t);
int pane_undo(struct pane *p);
int pane_talk(struct pane *p, struct tree *t, const char *text);
int pane_focus(struct pane *p, struct tree *t, const struct tree_node *n);
/* Esc: cancels a turn in flight (agent ops->cancel). */
void pane_cancel(struct pane *p);

/* Editing: begin (a copy of the proposal), set one field (validated at
 * once; the error stays by its field), replace the whole spec from JSON,
 * abandon (back to the agent's original). */
int pane_edit_begin(struct pane *p);
int pane_edit_set(struct pane *p, const char *field, const char *value);
int pane_edit_json(struct pane *p, const char *json);
void pane_edit_abandon(struct pane *p);
/* The step the card shows: the edit when there is one, else the proposal. */
const struct step *pane_shown_step(const struct pane *p);

/* Merges every kept result into t (after tree_build, before calib_run). */
void pane_merge(struct pane *p, struct tree *t);
/* After a rebuild: marks the focus node (TREE_F_FOCUS) and says in the
 * transcript where new results went. */
void pane_after_rebuild(struct pane *p, struct tree *t);

/* Replay (`argus replay`): the transcript becomes the session's transcript
 * lines among its first nev events, the pane idle (no agent, nothing
 * runs).  0 or -ENOMEM. */
int pane_replay(struct pane *p, const struct session_log *l, size_t nev);

/* Status bar: the phase to show (NULL: the source's) into buf, and st
 * adjusted with a running step's probes and overhead. */
const char *pane_status(struct pane *p, struct source_status *st, char *buf, size_t len);

/* "mm > handle_mm_fault > do_anonymous_page" (path of n below the root,
 * the middle elided past max levels) into buf; returns buf. */
char *pane_node_path(const struct tree_node *n, const char *sep, unsigned max, char *buf,
		     size_t len);

#endif
