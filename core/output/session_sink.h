/* session_sink — the session as a sink of the step controller's events
 * (core/step/controller.h): proposals, decisions, step results (with their
 * windows), the transcript and agent verdicts are written as they happen,
 * through core/output/session_step.h.  The controller knows nothing of sessions;
 * the TUI's pane and batch diagnose both plug this in. */
#ifndef ARGUS_SESSION_SINK_H
#define ARGUS_SESSION_SINK_H

#include <stdint.h>

#include "step/controller.h"
#include "measure/session.h"

struct session_sink {
	struct session *ses;      /* not owned; NULL: nothing is written */
	uint32_t exclude_tgid;    /* stacks left out of the steps' windows; 0: none */
	int transcript;           /* write the transcript lines (the pane's) */
	int verdicts;             /* write the agent's verdict replies (the pane's;
	                           * batch writes its own at the end) */
};

/* A ctl_sink_fn: arg is a struct session_sink.  Write errors are not the
 * controller's: the session reports them at close. */
void session_sink_event(void *arg, const struct ctl_event *ev);

#endif
