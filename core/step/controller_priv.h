/* controller_priv — the controller's state and the helpers its files share:
 * included by core/step/controller*.c only (everyone else sees struct
 * controller as an opaque pointer, core/step/controller.h). */
#ifndef ARGUS_CONTROLLER_PRIV_H
#define ARGUS_CONTROLLER_PRIV_H

#include "step/controller.h"

/* An accepted step. */
struct ctl_run {
	struct step *step;               /* as run (edited or the agent's); owned */
	struct step *original;           /* the agent's original when edited; owned */
	void *x;                         /* the executor while running */
	struct step_data *data;          /* once finished; owned; NULL: nothing measured */
	unsigned idx;                    /* step index in the session (0-based) */
	int where_said;                  /* the view said where its results are
	                                  * (ctl_run_say_once) */
};

/* Seen only by core/step/controller*.c: everyone else reads it through
 * controller.h's functions. */
struct controller {
	struct ctl_opts o;
	struct agent *agent;             /* owned */
	enum ctl_mode mode;
	struct step *prop;               /* the waiting proposal; owned */
	struct step_error err;           /* the proposal's (or accepted step's) validation */
	int has_err;
	struct ctl_run run[CTL_MAX_RUNS];
	unsigned nrun;                   /* accepted steps kept (the last may run) */
	unsigned nsteps;                 /* steps started or tried, undone included */
	unsigned nturns, turns;          /* replies taken (turns: for batch's count) */
	unsigned hyp_turn;
	int turn_wanted, in_flight, need_rebuild;
	struct step_preflight *gate;     /* batch: the last gate's pre-flight; owned */
	int error;                       /* batch: the -errno that ended it */
	char *cause;                     /* and why; owned */
	struct agent_reply last;         /* batch: the last reply (its verdict) */
	unsigned nverdicts;              /* verdicts given so far */
	uint64_t lost;                   /* what finished steps' windows lost
	                                  * (kept after an undo: the session
	                                  * has their windows) */
	double est_pct;                  /* the last estimate's overhead, % of a CPU
	                                  * (ctl_estimate); <0: none */
	char explore[160];               /* after a verdict: what the person explores
					  * ("focus on X"); the next verdicts are
					  * findings of it, not the diagnosis */
};

/* core/step/controller_events.c */
void ctl_emit(struct controller *c, const struct ctl_event *ev);
void ctl_set_mode(struct controller *c, enum ctl_mode m);
void ctl_want_turn(struct controller *c);        /* THINKING, a turn due */
/* batch: the loop ends (DONE) with err (0: done) and why */
void ctl_end(struct controller *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ctl_tell(struct controller *c, enum agent_event_kind kind, const char *text,
	      const struct step *s, const struct tree_node *n);
/* core/step/controller_state.c */
void ctl_drop_proposal(struct controller *c);
void ctl_run_clear(struct controller *c, struct ctl_run *r);
void ctl_gate_clear(struct controller *c);
const struct caps *ctl_caps(struct controller *c);
/* core/step/controller_decide.c: accepts the proposal (edited: the
 * person's copy, diff what changed) as decided by by ("human", "auto");
 * 0 or -errno after saying why */
int ctl_do_accept(struct controller *c, const struct step *edited, const char *diff,
		  const char *by);

#endif
