/* descent_why — the descent's reasoning lines (struct descent_why): the walk
 * (core/analysis/descent.c) and the convergence
 * (core/analysis/descent_converge.c) both append to them, and the agent
 * takes them over.  Apart from the walk so that the convergence, which the
 * walk calls, does not call back into it. */
#include <stdarg.h>
#include <stdlib.h>

#include "analysis/descent.h"
#include "base/util.h"

int descent_line(struct descent_why *w, const char *fmt, ...)
{
	va_list ap;
	int err;

	if (!w)
		return 0;
	va_start(ap, fmt);
	err = util_lines_vadd(&w->lines, &w->nlines, fmt, ap);
	va_end(ap);
	return err;
}

void descent_why_clear(struct descent_why *w)
{
	if (!w)
		return;
	for (unsigned i = 0; i < w->nlines; i++)
		free(w->lines[i]);
	free(w->lines);
	w->lines = NULL;
	w->nlines = 0;
}
