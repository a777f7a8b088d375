/* session_sink — controller events into a session (see session_sink.h). */
#include "output/session_sink.h"
#include "output/session_step.h"

static enum session_decision sink_decision(enum ctl_decision_kind d)
{
	switch (d) {
	case CTL_DEC_EDIT:
		return SESSION_EDIT;
	case CTL_DEC_VETO:
		return SESSION_VETO;
	case CTL_DEC_UNDO:
		return SESSION_UNDO;
	default:
		return SESSION_ACCEPT;
	}
}

void session_sink_event(void *arg, const struct ctl_event *ev)
{
	const struct session_sink *k = arg;

	if (!k || !k->ses)
		return;
	switch (ev->kind) {
	case CTL_EV_SAY:
		if (k->transcript)
			session_write_transcript(k->ses, ctl_line_who(ev->line), ev->text);
		break;
	case CTL_EV_PROPOSAL:
		session_step_proposal(k->ses, ev->step_no, ev->agent, ev->step, ev->lines, ev->nlines,
				      ev->focus);
		break;
	case CTL_EV_DECISION:
		session_step_decision(k->ses, ev->step_no, sink_decision(ev->decision), ev->by,
				      ev->text, ev->step, ev->edited);
		break;
	case CTL_EV_RESULT:
		session_step_result(k->ses, ev->step_no, ev->step, ev->data, ev->info, ev->text,
				    k->exclude_tgid);
		break;
	case CTL_EV_VERDICT:
		if (k->verdicts)
			session_write_finding(k->ses, ev->verdict, ev->lines, ev->nlines, ev->focus);
		break;
	default:
		break;
	}
}
