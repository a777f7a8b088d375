/* agent — what every agent implementation shares: replies, their lines and
 * their proposals. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent.h"
#include "data/step.h"
#include "base/util.h"

void agent_reply_clear(struct agent_reply *r)
{
	if (!r)
		return;
	verdict_clear(&r->verdict);
	step_free(r->step);
	free(r->text);
	for (unsigned i = 0; i < r->nlines; i++)
		free(r->lines[i]);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

int agent_reply_line(struct agent_reply *r, const char *fmt, ...)
{
	va_list ap;
	int err;

	if (!r)
		return 0;
	va_start(ap, fmt);
	err = util_lines_vadd(&r->lines, &r->nlines, fmt, ap);
	va_end(ap);
	return err;
}

int agent_reply_propose(struct agent_reply *r, const struct agent_step_spec *sp,
			const char *who, const char *name)
{
	const struct {
		const char *field, *value;
	} f[] = {
		{ "kind", sp->kind }, { "target", sp->target }, { "begin", sp->begin },
		{ "end", sp->end }, { "freq_hz", sp->freq_hz }, { "duration_s", sp->duration_s },
		{ "rationale", sp->rationale }, { "expect", sp->expect },
	};
	struct step_error se = { 0 };
	struct step *st = step_new();
	int err = 0;

	if (!st)
		return -errno;
	for (size_t i = 0; !err && i < sizeof(f) / sizeof(f[0]); i++)
		if (f[i].value)
			err = step_set_field(st, f[i].field, f[i].value, &se);
	if (!err)
		err = step_check_required(st, &se);
	if (err) {
		agent_reply_line(r, "%s %s cannot build its step: %s: %s", who, name, se.field,
				 se.msg);
		step_free(st);
		return err;
	}
	r->step = st;
	r->kind = AGENT_REPLY_PROPOSAL;
	return 0;
}
