/* agent — what every agent implementation shares: replies and their lines. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "step.h"

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
	char *s = NULL, **v;
	int n;

	if (!r)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	v = realloc(r->lines, (r->nlines + 1) * sizeof(*v));
	if (!v) {
		free(s);
		return -ENOMEM;
	}
	r->lines = v;
	r->lines[r->nlines++] = s;
	return 0;
}
