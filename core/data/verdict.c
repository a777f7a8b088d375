/* verdict — owned strings of a diagnosis' conclusion. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "base/util.h"
#include "data/verdict.h"

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
	for (unsigned i = 0; i < v->nbranches; i++)
		verdict_branch_clear(&v->branches[i]);
	free(v->branches);
	for (unsigned i = 0; i < v->nfalls; i++)
		verdict_branch_clear(&v->falls[i]);
	free(v->falls);
	for (unsigned i = 0; i < v->ndisplaced; i++)
		verdict_branch_clear(&v->displaced[i]);
	free(v->displaced);
	free(v->convergence);
	free(v->phase_earlier);
	for (unsigned i = 0; i < v->ncallers; i++)
		free(v->callers[i].name);
	free(v->callers);
	for (unsigned i = 0; i < v->ncallsites; i++) {
		for (unsigned k = 0; k < v->callsites[i].nframes; k++)
			free(v->callsites[i].frames[k]);
		free(v->callsites[i].frames);
	}
	free(v->callsites);
	memset(v, 0, sizeof(*v));
}

void verdict_branch_clear(struct verdict_branch *b)
{
	if (!b)
		return;
	free(b->process);
	for (unsigned i = 0; i < b->npath; i++)
		free(b->path[i]);
	free(b->path);
	memset(b, 0, sizeof(*b));
}

int verdict_branch_add(struct verdict_branch **list, unsigned *n,
		       const struct verdict_branch *b)
{
	struct verdict_branch c = *b;

	c.process = NULL;
	c.path = NULL;
	c.npath = 0;
	if (b->process && !(c.process = strdup(b->process)))
		goto nomem;
	if (b->npath) {
		c.path = calloc(b->npath, sizeof(*c.path));
		if (!c.path)
			goto nomem;
		for (; c.npath < b->npath; c.npath++)
			if (!(c.path[c.npath] = strdup(b->path[c.npath] ? b->path[c.npath] : "")))
				goto nomem;
	}
	if (vec_resize(list, (size_t)*n + 1, sizeof(**list)))
		goto nomem;
	(*list)[(*n)++] = c;
	return 0;
nomem:
	verdict_branch_clear(&c);
	return -ENOMEM;
}

int verdict_add_note(struct verdict *v, const char *fmt, ...)
{
	va_list ap;
	int err;

	if (!v || !fmt)
		return -EINVAL;
	va_start(ap, fmt);
	err = util_lines_vadd(&v->notes, &v->nnotes, fmt, ap);
	va_end(ap);
	return err;
}

int verdict_caller_add(struct verdict *v, const char *name, double mass, double share)
{
	struct verdict_caller *x;

	if (vec_resize(&v->callers, (size_t)v->ncallers + 1, sizeof(*v->callers)))
		return -ENOMEM;
	x = v->callers;
	x[v->ncallers].name = strdup(name ? name : "?");
	if (!x[v->ncallers].name)
		return -ENOMEM;
	x[v->ncallers].mass = mass;
	x[v->ncallers].share = share;
	v->ncallers++;
	return 0;
}
