/* controller — the step loop of a diagnosis, written once: the agent
 * proposes, a decision comes (a person in the agent pane, --auto, batch
 * "not run", a budget), the step is pre-flighted and run against the load,
 * its results are kept for the next analysis, and the agent is told.
 *
 * A state machine driven by the caller's poll loop:
 *
 *   WAIT --(calibrated)--> THINKING --reply--> PROPOSAL --accept--> RUNNING
 *     ^                       |  ^                |  veto/another     |
 *     |                       |  +----------------+  (told, new turn) |
 *     |                       v                                       |
 *     |                     IDLE (verdict, text)   <---- result: told,|
 *     |                     DONE (batch: verdict, not run, error)     |
 *                             ^-- THINKING again after the rebuild ---+
 *
 * The loop polls ctl_pollfds (an LLM's sockets while a turn is in flight)
 * and wakes after ctl_timeout_ms, then calls ctl_tick with the tree shown
 * now.  After a step's results arrive ctl_need_rebuild says so: the caller
 * runs the analysis (core/analysis/analysis.h) over its profile and ctl_steps, then
 * calls ctl_rebuilt; the next turn sees the new tree.  The controller never
 * owns the tree.
 *
 * Decisions: at every proposal o.decide is asked (NULL: wait for a
 * person): accept now (--auto), decline with a reason (the agent is told,
 * a new turn), stop (batch without --auto: the proposal is recorded as not
 * run) or wait — then the person's ctl_accept / ctl_veto / ctl_another ...
 * arrive from the view.
 *
 * What happens is emitted as events to the sinks (o.sinks): transcript
 * lines, mode changes, proposals, decisions, results, verdicts.  The agent
 * pane draws them (tui/pane.c); the session records them
 * (core/output/session_sink.c); batch diagnose collects its decision lines and
 * its JSON report from them (core/output/diagnose.c).
 *
 * Steps run through an executor seam (struct ctl_exec_ops): the real one
 * is ctl_exec_real (core/step/step_exec.h); tests plug a fake.
 */
#ifndef ARGUS_CONTROLLER_H
#define ARGUS_CONTROLLER_H

#include <poll.h>
#include <stdint.h>

#include "agent/agent.h"
#include "analysis/analysis.h"
#include "measure/source.h"
#include "data/step.h"
#include "step/step_scope.h"
#include "data/tree.h"

struct step_data;
struct step_exec_info;
struct step_exec_opts;
struct step_preflight;
struct caps;

#define CTL_MAX_RUNS 64
#define CTL_MAX_SINKS 3
#define CTL_REASON_LINES 4       /* reasoning lines said after the first turn */
#define CTL_DEFAULT_STEPS 5

enum ctl_mode {
	CTL_WAIT,                /* the calibration is not done */
	CTL_THINKING,            /* a turn is due or in flight */
	CTL_PROPOSAL,            /* a proposal waits for a decision */
	CTL_RUNNING,             /* a step measures */
	CTL_IDLE,                /* a verdict or a text reply; a person may ask again */
	CTL_DONE,                /* batch: over (verdict, not run, error) */
};

/* Who says a transcript line. */
enum ctl_line {
	CTL_LINE_INFO,           /* argus */
	CTL_LINE_HUMAN,
	CTL_LINE_REASON,         /* the agent's reasoning */
	CTL_LINE_PROPOSAL,
	CTL_LINE_VERDICT,
	CTL_LINE_TEXT,           /* the agent's text reply */
	CTL_LINE_ERROR,          /* argus */
	CTL_LINE_RESULT,         /* argus: a step's result */
};

/* "human", "agent" or "argus" for the session's transcript. */
const char *ctl_line_who(enum ctl_line k);

enum ctl_event_kind {
	CTL_EV_SAY,              /* line, text */
	CTL_EV_MODE,             /* mode */
	CTL_EV_REPLY,            /* reply (every line, before they are said) */
	CTL_EV_FOCUS,            /* node_id: the node the reply concerns (0: none) */
	CTL_EV_PROPOSAL,         /* step_no, agent, step, lines, nlines, focus */
	CTL_EV_ESTIMATE,         /* text: the pre-flight line of the proposal */
	CTL_EV_DECISION,         /* step_no, decision, by, text (reason/diff), step (the
	                          * agent's), edited */
	CTL_EV_DECLINED,         /* step, text: declined by o.decide, not run */
	CTL_EV_NOT_RUN,          /* step: batch without --auto, the loop ends */
	CTL_EV_PREFLIGHT,        /* step_no, step, text (the pre-flight line), ok */
	CTL_EV_RESULT,           /* step_no, step (as run), data (NULL: none), info
	                          * (NULL: none), text (summary or why not), ok */
	CTL_EV_VERDICT,          /* verdict, lines, nlines */
	CTL_EV_TURN_BEGIN,       /* a turn went in flight (an LLM streams) */
	CTL_EV_TURN_END,
};

enum ctl_decision_kind { CTL_DEC_ACCEPT, CTL_DEC_EDIT, CTL_DEC_VETO, CTL_DEC_UNDO };

struct ctl_event {
	enum ctl_event_kind kind;
	enum ctl_line line;
	const char *text;
	enum ctl_mode mode;
	const struct agent_reply *reply;
	uint64_t node_id;
	unsigned step_no;        /* 1-based step number in the session */
	const char *agent;
	const struct step *step, *edited;
	char *const *lines;
	unsigned nlines;
	const char *focus;       /* PROPOSAL: its node; VERDICT: the exploration
				  * it answers (NULL: the diagnosis) */
	enum ctl_decision_kind decision;
	const char *by;          /* "human", "auto" */
	const struct step_data *data;
	const struct step_exec_info *info;
	const struct verdict *verdict;
	const struct step_preflight *pf; /* PREFLIGHT, RESULT (batch): the gate's */
	const char *summary;     /* RESULT: the one-line summary (NULL: none) */
	const char *why;         /* PREFLIGHT: why it may not run ("not run: ...") */
	int over_budget;         /* PREFLIGHT: refused by the overhead budget */
	int ok;
};

typedef void (*ctl_sink_fn)(void *arg, const struct ctl_event *ev);

struct ctl_sink {
	ctl_sink_fn fn;
	void *arg;
};

enum ctl_decide {
	CTL_DECIDE_WAIT,         /* a person decides (ctl_accept, ctl_veto ...) */
	CTL_DECIDE_ACCEPT,       /* run it now (--auto) */
	CTL_DECIDE_DECLINE,      /* not run: the agent is told *why, a new turn */
	CTL_DECIDE_STOP,         /* not run, the loop ends (batch without --auto) */
};

struct controller;

/* The executor seam: one step at a time. */
struct ctl_exec_ops {
	/* starts validated s (copied); NULL with errno and *cause */
	void *(*start)(void *arg, const struct step *s, char **cause);
	int (*tick)(void *x, double now, char **cause);      /* 1 changed, 0, -errno */
	int (*timeout_ms)(void *x, double now);              /* -1 when over */
	int (*finished)(const void *x);
	void (*status)(void *x, struct source_status *st);
	void (*info)(const void *x, struct step_exec_info *info);
	struct step_data *(*take)(void *x);                  /* caller frees */
	void (*stop)(void *x);
	void (*free)(void *x);
	/* validates s (filling s->resolved), counts briefly: 0 may run, -errno
	 * not; *pf filled (step_preflight_clear) */
	int (*preflight)(void *arg, struct step *s, const struct caps *c,
			 struct step_preflight *pf);
	/* 1 when the load the steps measure has ended (its state, "exited
	 * (0)", into buf): no step is proposed or run against it; 0 while it
	 * lives or there is none.  NULL: never ended (fakes) */
	int (*load_gone)(void *arg, char *buf, size_t len);
};

/* The real executor: core/step/step_exec.h, arg a struct step_exec_opts
 * template (load, pairs, collect_s, budget ...; not owned). */
extern const struct ctl_exec_ops ctl_exec_real;

struct ctl_opts {
	unsigned steps;                  /* at most this many steps; 0: 5 */
	int auto_accept;                 /* --auto: said in the first line and the
	                                  * decisions are "auto" */
	int utf8;                        /* glyphs in result lines */
	int preflight;                   /* estimate every proposal before offering it */
	/* the run's processes: every proposal without a process filter is
	 * scoped to them (core/step/step_scope.h); by NONE: system-wide.  With
	 * no_reference (-p without --pause) each proposal says, before it may
	 * be accepted, that it has no reference */
	struct step_scope scope;
	const struct caps *caps;         /* validation; NULL: caps_cached() */
	/* batch (argus diagnose --auto): a pre-flight gate before every run
	 * (over the overhead budget or not attaching: not run, the agent told,
	 * the step counted), the loop DONE at a verdict or text reply, results
	 * told as their summary, the agent's step index counting every step
	 * tried, at most max_turns turns (0: no limit) */
	int batch;
	unsigned max_turns;
	double budget_pct;               /* the gate's budget; 0: the kind's default */
	/* the decision at every proposal; NULL: wait for a person.  For
	 * CTL_DECIDE_DECLINE *why (static or owned by the callee until the next
	 * call) is told to the agent */
	enum ctl_decide (*decide)(void *arg, struct controller *c, const struct step *s,
				  const char **why);
	void *decide_arg;
	int agent_borrowed;              /* the agent is the caller's: not freed */
	const struct ctl_exec_ops *exec; /* NULL: ctl_exec_real */
	void *exec_arg;                  /* ctl_exec_real: a struct step_exec_opts */
	struct ctl_sink sinks[CTL_MAX_SINKS]; /* fn NULL: unused */
};

/* A controller talking to agent (owned unless o.agent_borrowed; freed with
 * it, also on failure).  NULL with errno. */
struct controller *ctl_new(const struct ctl_opts *o, struct agent *agent);
void ctl_free(struct controller *c);  /* NULL-safe: stops a running step */

/* Emits a transcript line (printf-style) to the sinks. */
void ctl_say(struct controller *c, enum ctl_line k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Drives it: the first turn once t is calibrated and st says the
 * measurement is done (st NULL: done), a reply in flight, a running step,
 * a turn due.  t is the tree shown now (rebuilt when ctl_need_rebuild).
 * Returns 1 when something changed, 0 when not, -errno when it ended in
 * error (batch; ctl_outcome says why). */
int ctl_tick(struct controller *c, struct tree *t, int calibrated,
	     const struct source_status *st, double now);
/* Milliseconds until ctl_tick wants to run again; -1: only on events. */
int ctl_timeout_ms(struct controller *c, double now);
/* The fds to poll (an agent's sockets while a turn is in flight); count. */
int ctl_pollfds(struct controller *c, struct pollfd *fds, int max);

/* The kept results, for the analysis (borrowed: valid until the next
 * decision or tick); at most max into out; the count. */
unsigned ctl_steps(const struct controller *c, struct analysis_step *out, unsigned max);
int ctl_need_rebuild(const struct controller *c);
void ctl_rebuilt(struct controller *c);

/* A person's decisions.  Each returns 0 or -errno after saying why.
 * ctl_accept runs edited (NULL: the proposal as it is; diff: what the person
 * changed, "" or NULL: nothing). */
int ctl_accept(struct controller *c, const struct step *edited, const char *diff);
int ctl_veto(struct controller *c, const char *reason, const struct step *shown);
int ctl_another(struct controller *c);
int ctl_undo(struct controller *c);
int ctl_talk(struct controller *c, const char *text);
int ctl_focus(struct controller *c, const struct tree_node *n, const char *path);
void ctl_cancel(struct controller *c);   /* a turn in flight */
/* Stops a running step now (batch: a signal); its results are taken. */
void ctl_stop(struct controller *c);
/* Re-validates s against this kernel (the error: ctl_step_error); 0 or
 * -errno.  Here and in ctl_estimate s NULL is the waiting proposal
 * (-ENOENT: none). */
int ctl_validate(struct controller *c, struct step *s);
/* The pre-flight line of s into buf: 0 may be offered, -errno not. */
int ctl_estimate(struct controller *c, struct step *s, char *buf, size_t len);

struct step_preflight;
/* The budget a step is held to, % of one CPU (--budget, else its kind's). */
double ctl_budget(const struct controller *c, const struct step *s);
/* A step whose pre-flight pf is over its budget: a kind with a duty cycle
 * gets s->duty set to the part of each window that fits (1 returned);
 * otherwise -EDQUOT (it would be stopped); 0 when it fits as it is.  why
 * (may be NULL) receives the sentence a person reads either way. */
int ctl_fit_budget(struct controller *c, struct step *s, const struct step_preflight *pf,
		   char *why, size_t len);
/* 1 when the load the steps measure has ended (its state into buf). */
int ctl_load_gone(struct controller *c, char *buf, size_t len);
/* The step number the next decision gets (the session's, 1-based: vetoed
 * and declined proposals count) and the last kept run's (0: none). */
unsigned ctl_next_step_no(const struct controller *c);
unsigned ctl_last_run_no(const struct controller *c);

/* The running step's progress (phase SOURCE_STEP...); 0, -ENOENT none. */
int ctl_run_status(struct controller *c, struct source_status *st, unsigned *step_no);
/* Samples the steps' windows lost: the finished ones' and the running
 * one's so far (what the status bar adds to the calibration's dropped). */
uint64_t ctl_lost(struct controller *c);
/* The proposal waiting, NULL: none. */
const struct step *ctl_proposal(const struct controller *c);

/* What the caller's loop and view read (the struct is the controller's own,
 * core/step/controller_priv.h). */
enum ctl_mode ctl_mode(const struct controller *c);
int ctl_in_flight(const struct controller *c);   /* a turn is in flight */
int ctl_turn_due(const struct controller *c);    /* a turn is due, not yet asked */
/* The last validation of the proposal (or the accepted step, an edit) into
 * *out: 1 when it failed (out says which field and why), 0 not. */
int ctl_step_error(const struct controller *c, struct step_error *out);
/* The last estimate's overhead, % of a CPU (ctl_estimate, a proposal's
 * pre-flight); <0: none. */
double ctl_est_pct(const struct controller *c);
/* batch: how the loop ended, 0 or the -errno, and *cause (may be NULL) why
 * (NULL: not said; borrowed until ctl_free). */
int ctl_outcome(const struct controller *c, const char **cause);
/* batch: the last reply, its kind and verdict only (the heuristic gives an
 * interim verdict with each proposal). */
const struct agent_reply *ctl_last_reply(const struct controller *c);
/* batch: moves the last reply's verdict into *out (the caller clears it);
 * -ENOENT, *out untouched, when the last reply was a proposal without an
 * interim verdict (an LLM proposing to the end). */
int ctl_take_verdict(struct controller *c, struct verdict *out);

/* The kept runs (accepted steps, the last may be running): how many, and
 * run i's step index in the session (0-based) into *idx: 1 when it
 * measured something, 0 not (yet), -ENOENT past the last. */
unsigned ctl_nrun(const struct controller *c);
int ctl_run_measured(const struct controller *c, unsigned i, unsigned *idx);
/* 1 the first time it is asked for run i (the view says once where its
 * results went, or why they could not go into the tree), 0 after and past
 * the last; the mark goes with the run (an undo drops both). */
int ctl_run_say_once(struct controller *c, unsigned i);

#endif
