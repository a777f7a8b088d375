/* push_delta — counts gained since the last look (see push_delta.h).
 * Profile stacks are only ever appended, so their indices are stable and
 * one array of counts taken, by stack index, is enough. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/push_delta.h"
#include "base/vec.h"

struct push_delta {
	uint64_t *taken;
	size_t n;
};

struct push_delta *push_delta_new(void)
{
	return calloc(1, sizeof(struct push_delta));
}

void push_delta_free(struct push_delta *d)
{
	if (!d)
		return;
	free(d->taken);
	free(d);
}

void push_delta_reset(struct push_delta *d)
{
	free(d->taken);
	d->taken = NULL;
	d->n = 0;
}

struct profile *push_delta_take(struct push_delta *d, const struct profile *p, unsigned w,
				enum cond c, double start_s, double secs, uint64_t *samples)
{
	struct profile *q = profile_new();
	int err;

	*samples = 0;
	if (!q)
		return NULL;
	if (w >= p->nwin || profile_window_begin(q, c, start_s) < 0) {
		err = w >= p->nwin ? EINVAL : ENOMEM;
		goto fail;
	}
	profile_window_end(q, 0, secs);
	if (p->nstacks > d->n) {
		if (vec_resize(&d->taken, p->nstacks, sizeof(*d->taken))) {
			err = ENOMEM;
			goto fail;
		}
		memset(d->taken + d->n, 0, (p->nstacks - d->n) * sizeof(*d->taken));
		d->n = p->nstacks;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint64_t now = s->win[w];

		/* a count that went down (a source that restarted the window)
		 * starts over rather than going negative */
		if (now < d->taken[i])
			d->taken[i] = 0;
		uint64_t gain = now - d->taken[i];
		if (!gain)
			continue;
		const struct profile_ident *id = s->tgid ? profile_ident_find(p, s->tgid) : NULL;
		int e = profile_add_user(q, 0, s->frames, s->nframes, s->uframes, s->nuframes,
					 s->tgid, s->comm, gain);
		/* who the process is goes with its samples: the pushed
		 * profile's unit, container and cgroup labels (issue 27) */
		if (!e && id && !profile_ident_find(q, s->tgid))
			e = profile_ident_set(q, id);
		if (e) {
			err = -e;
			goto fail;
		}
		d->taken[i] = now;
		*samples += gain;
	}
	/* the files and build-ids of the modules its user frames name (issue
	 * 27): the pushed profile's mappings */
	for (size_t i = 0; i < p->nmodules; i++) {
		const struct profile_module *m = &p->modules[i];
		int e = profile_module_set(q, m->name, m->path, m->build_id);

		if (e) {
			err = -e;
			goto fail;
		}
	}
	return q;
fail:
	profile_free(q);
	errno = err;
	return NULL;
}
