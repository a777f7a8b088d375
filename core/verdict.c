/* verdict — owned strings of a diagnosis' conclusion. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

void verdict_clear(struct verdict *v)
{
	if (!v)
		return;
	for (unsigned i = 0; i < v->npath && i < VERDICT_MAX_PATH; i++)
		free(v->path[i]);
	free(v->leaf);
	free(v->summary);
	for (unsigned i = 0; i < v->nnotes; i++)
		free(v->notes[i]);
	free(v->notes);
	memset(v, 0, sizeof(*v));
}

int verdict_add_note(struct verdict *v, const char *fmt, ...)
{
	char **nn, *s = NULL;
	va_list ap;
	int r;

	if (!v || !fmt)
		return -EINVAL;
	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -ENOMEM;
	nn = realloc(v->notes, (v->nnotes + 1) * sizeof(*nn));
	if (!nn) {
		free(s);
		return -ENOMEM;
	}
	v->notes = nn;
	v->notes[v->nnotes++] = s;
	return 0;
}
