/* controller_events — what the controller says: events to its sinks
 * (ctl_emit, the transcript's lines ctl_say), its mode (ctl_set_mode, a turn
 * wanted, batch's end) and what the agent is told (ctl_tell).
 *
 * Below both the loop (controller.c) and the decisions
 * (controller_decide.c), which call it and which it never calls: the loop
 * calls the decisions (--auto accepts through ctl_do_accept), so what both
 * need lives here, and the files call down only (tests/docs/circles.py). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "step/controller.h"
#include "step/controller_priv.h"

const char *ctl_line_who(enum ctl_line k)
{
	switch (k) {
	case CTL_LINE_HUMAN:
		return "human";
	case CTL_LINE_REASON:
	case CTL_LINE_PROPOSAL:
	case CTL_LINE_VERDICT:
	case CTL_LINE_TEXT:
		return "agent";
	default:
		return "argus";
	}
}

void ctl_emit(struct controller *c, const struct ctl_event *ev)
{
	for (unsigned i = 0; i < CTL_MAX_SINKS; i++)
		if (c->o.sinks[i].fn)
			c->o.sinks[i].fn(c->o.sinks[i].arg, ev);
}

void ctl_say(struct controller *c, enum ctl_line k, const char *fmt, ...)
{
	struct ctl_event ev = { .kind = CTL_EV_SAY, .line = k };
	char *text = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) < 0)
		text = NULL;
	va_end(ap);
	if (!text)
		return;
	ev.text = text;
	ctl_emit(c, &ev);
	free(text);
}

void ctl_set_mode(struct controller *c, enum ctl_mode m)
{
	struct ctl_event ev = { .kind = CTL_EV_MODE, .mode = m };

	c->mode = m;
	ctl_emit(c, &ev);
}

/* a new turn once the tree is up to date (ctl_tick) */
void ctl_want_turn(struct controller *c)
{
	c->turn_wanted = 1;
	ctl_set_mode(c, CTL_THINKING);
}

/* batch: the loop ends, with err (0: done) and why */
void ctl_end(struct controller *c, int err, const char *fmt, ...)
{
	va_list ap;

	if (err && !c->error) {
		c->error = err;
		if (fmt && !c->cause) {
			va_start(ap, fmt);
			if (vasprintf(&c->cause, fmt, ap) < 0)
				c->cause = NULL;
			va_end(ap);
		}
	}
	c->turn_wanted = 0;
	ctl_set_mode(c, CTL_DONE);
}

/* the agent's answer to something it was told */
void ctl_tell(struct controller *c, enum agent_event_kind kind, const char *text,
		 const struct step *s, const struct tree_node *n)
{
	struct agent_event ev = { .kind = kind, .text = text, .step = s, .node = n };
	struct agent_reply r;
	int err;

	if (!c->agent || !c->agent->ops->tell)
		return;
	if (c->o.batch) {          /* batch takes no text replies */
		c->agent->ops->tell(c->agent, &ev, NULL);
		return;
	}
	memset(&r, 0, sizeof(r));
	err = c->agent->ops->tell(c->agent, &ev, &r);
	if (err < 0)
		ctl_say(c, CTL_LINE_ERROR, "the agent could not take it in: %s", strerror(-err));
	else if (r.kind == AGENT_REPLY_TEXT && r.text)
		ctl_say(c, CTL_LINE_TEXT, "%s", r.text);
	agent_reply_clear(&r);
}
