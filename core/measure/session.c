/* session — what the writer and the reader share: the event and decision
 * names of the format (session.h, tests/data/SESSION-FORMAT.md).  The
 * writer is core/measure/session_write.c, the reader core/measure/session_read.c. */
#include "measure/session.h"

static const char *const ev_names[SESSION_EV_N] = {
	[SESSION_EV_WINDOW] = "window",
	[SESSION_EV_PROPOSAL] = "proposal",
	[SESSION_EV_DECISION] = "decision",
	[SESSION_EV_STEP_RESULT] = "step_result",
	[SESSION_EV_TRANSCRIPT] = "transcript",
	[SESSION_EV_LLM_TURN] = "llm_turn",
	[SESSION_EV_VERDICT] = "verdict",
	[SESSION_EV_NOTE] = "note",
	[SESSION_EV_MODEL] = "model",
};

static const char *const decision_names[SESSION_DECISION_N] = {
	"accept", "edit", "veto", "undo",
};

const char *session_event_name(enum session_event_type t)
{
	return (unsigned)t < SESSION_EV_N ? ev_names[t] : "unknown";
}

const char *session_decision_name(enum session_decision d)
{
	return (unsigned)d < SESSION_DECISION_N ? decision_names[d] : "unknown";
}

