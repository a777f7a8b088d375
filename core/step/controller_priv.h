/* controller_priv — shared by core/step/controller.c and controller_decide.c
 * only. */
#ifndef ARGUS_CONTROLLER_PRIV_H
#define ARGUS_CONTROLLER_PRIV_H

#include "step/controller.h"

void ctl_emit(struct controller *c, const struct ctl_event *ev);
void ctl_set_mode(struct controller *c, enum ctl_mode m);
void ctl_want_turn(struct controller *c);        /* THINKING, a turn due */
/* batch: the loop ends (DONE) with err (0: done) and why */
void ctl_end(struct controller *c, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void ctl_tell(struct controller *c, enum agent_event_kind kind, const char *text,
	      const struct step *s, const struct tree_node *n);
void ctl_drop_proposal(struct controller *c);
void ctl_run_clear(struct controller *c, struct ctl_run *r);
void ctl_gate_clear(struct controller *c);
const struct caps *ctl_caps(struct controller *c);
/* accepts the proposal (edited: the person's copy, diff what changed) as
 * decided by by ("human", "auto"); 0 or -errno after saying why */
int ctl_do_accept(struct controller *c, const struct step *edited, const char *diff,
		  const char *by);

#endif
