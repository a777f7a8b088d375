/* pane — the agent pane's view state over the step controller
 * (core/step/controller.h): the transcript, the person's edit of a proposal, the
 * focus to select, the scroll.  No curses here (view_agent.c draws,
 * app_keys.c turns keys and prompts into these calls).
 *
 * The controller runs the conversation (turns, decisions, steps, results)
 * and emits events; the pane is one sink (it keeps the transcript and its
 * mode), the session another (core/output/session_sink.h).  Nothing is loaded
 * before the person accepts (`a`), unless auto_accept (--auto) was given.
 * A finished step's data stays with the controller so that every tree
 * rebuild merges it again (pane_steps), and `u` drops it.
 */
#ifndef ARGUS_PANE_H
#define ARGUS_PANE_H

#include <stdint.h>

#include "agent/agent.h"
#include "analysis/analysis.h"
#include "step/controller.h"
#include "fmt_agent.h"
#include "pane_stream.h"
#include "measure/session.h"
#include "output/session_sink.h"
#include "measure/source.h"
#include "data/step.h"
#include "step/step_exec.h"
#include "data/tree.h"

#define PANE_DEFAULT_STEPS CTL_DEFAULT_STEPS

struct pane_opts {
	unsigned steps;           /* N: at most N steps (--steps); 0: 5 */
	int auto_accept;          /* --auto */
	double budget_pct;        /* a step's overhead budget (--budget); 0: the kind's */
	int utf8;                 /* glyphs in result lines */
	struct load *load;        /* the load steps pause; not owned, may be NULL */
	const struct caps *caps;  /* for validation; NULL: caps_cached() */
	int preflight;            /* count with the step's probe before offering it */
	struct step_scope scope;  /* proposals are scoped to these processes */
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

/* The view's state; the step loop itself is the controller's (ctl). */
struct pane {
	struct pane_opts o;
	struct controller *ctl;   /* owned: turns, decisions, runs (core/step/controller.h) */
	struct agent *agent;      /* ctl's agent (borrowed); NULL: none (a replay) */
	int replay;               /* showing a recorded transcript: nothing runs */
	enum fmt_agent_mode mode; /* the controller's, EDIT while the person edits */
	struct pane_entry *tr;    /* the transcript */
	unsigned ntr, trcap;
	unsigned version;         /* bumped at every change (the view redraws) */
	int scroll;               /* transcript lines scrolled back from the end */

	struct step *edit;        /* the person's copy while editing or after; owned */
	struct step_error err;    /* validation of what would be run */
	int has_err;
	char estimate[200];       /* the pre-flight line; "" when none */
	double est_pct;           /* its overhead, % of a CPU; <0: none */
	int refused;              /* the person's last edit was refused: the card
	                           * holds the spec before it, and a cannot accept
	                           * it until fixed or abandoned (Esc) */
	int not_accepted;         /* a was refused for that: the card says so */
	int over_confirm;         /* a once on an over-budget card: a again runs it */
	int cursor;               /* field cursor while editing */
	uint64_t focus_id;        /* the node the last reply concerns; 0: none */

	int in_flight;            /* a turn is in flight (the controller's) */
	int need_rebuild;         /* results changed: the tree must be rebuilt */
	int select_focus;         /* the view should select focus_id */
	int keep_selection;       /* new results are selected: the next reply does not move it */
	struct pane_stream *stream; /* an LLM turn as it streams in; owned; may be NULL */
	unsigned stream_seen;     /* the stream's version last shown */
	struct session_sink sink; /* the session's share of the controller's events */
	struct step_exec_opts exec; /* how accepted steps run (the load, collect_s) */
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
/* The step the card shows: the edit when there is one, else the proposal
 * (inline: the view and its tests read it without linking the pane). */
static inline const struct step *pane_shown_step(const struct pane *p)
{
	return p->edit ? p->edit : p->ctl ? ctl_proposal(p->ctl) : NULL;
}
/* The card's estimate over the budget the step would run under: 1 and
 * both in % of a CPU, else 0. */
static inline int pane_over_budget(const struct pane *p, double *est, double *budget)
{
	const struct step *s = pane_shown_step(p);
	double b;

	if (!s || p->est_pct < 0 || !p->ctl)
		return 0;
	b = p->exec.budget_pct > 0 ? p->exec.budget_pct : ctl_budget(p->ctl, s);
	if (est)
		*est = p->est_pct;
	if (budget)
		*budget = b;
	return p->est_pct > b;
}

/* The kept results as steps for the analysis (core/analysis/analysis.h), at most
 * max into out (borrowed from p: valid until the next decision); returns
 * the count.  pane_merged then says in the transcript which of them could
 * not go into the tree. */
unsigned pane_steps(struct pane *p, struct analysis_step *out, unsigned max);
void pane_merged(struct pane *p, const struct analysis_step *steps, unsigned n);
/* After a rebuild: marks the focus node (TREE_F_FOCUS) and says in the
 * transcript where new results went. */
void pane_after_rebuild(struct pane *p, struct tree *t);

/* Replay (`argus replay`): the transcript becomes the session's transcript
 * lines among its first nev events, the pane idle (no agent, nothing
 * runs).  0 or -ENOMEM. */
int pane_replay(struct pane *p, const struct session_log *l, size_t nev);

/* The agent's fds to poll while a turn is in flight; count. */
int pane_pollfds(struct pane *p, struct pollfd *fds, int max);
/* The agent's name, NULL without one (a replay). */
const char *pane_agent_name(const struct pane *p);
/* The waiting proposal (NULL: none) and the steps kept (inline: the view
 * and its tests read them without linking the pane). */
static inline const struct step *pane_proposal(const struct pane *p)
{
	return p->ctl ? ctl_proposal(p->ctl) : NULL;
}

static inline unsigned pane_nrun(const struct pane *p)
{
	return p->ctl ? ctl_nrun(p->ctl) : 0;
}

/* Status bar: the phase to show (NULL: the source's) into buf, and st
 * adjusted with a running step's probes and overhead. */
const char *pane_status(struct pane *p, struct source_status *st, char *buf, size_t len);

/* "mm > handle_mm_fault > do_anonymous_page" (path of n below the root,
 * the middle elided past max levels) into buf; returns buf. */
char *pane_node_path(const struct tree_node *n, const char *sep, unsigned max, char *buf,
		     size_t len);

#endif
