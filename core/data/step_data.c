/* step_data — the measurements of one step (see step_data.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/step_data.h"

struct step_data *step_data_new(unsigned ntargets, const char *unit)
{
	struct step_data *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->prof = profile_new();
	if (!d->prof) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->ntargets = ntargets ? ntargets : 1;
	d->unit = unit ? unit : "events";
	return d;
}

void step_data_free(struct step_data *d)
{
	if (!d)
		return;
	profile_free(d->prof);
	free(d->tw);
	free(d);
}

int step_data_window_begin(struct step_data *d, enum cond c, double start_s)
{
	int w;

	if (d->nwin == d->cap_win) {
		unsigned cap = d->cap_win ? d->cap_win * 2 : 16;
		struct step_target_win *n = realloc(d->tw, (size_t)cap * d->ntargets * sizeof(*n));

		if (!n)
			return -ENOMEM;
		d->tw = n;
		d->cap_win = cap;
	}
	w = profile_window_begin(d->prof, c, start_s);
	if (w < 0)
		return w;
	if ((unsigned)w != d->nwin)
		return -EINVAL; /* the profile was given windows behind our back */
	memset(d->tw + (size_t)d->nwin * d->ntargets, 0, d->ntargets * sizeof(*d->tw));
	d->nwin++;
	return w;
}

void step_data_window_end(struct step_data *d, unsigned w, double secs)
{
	if (w < d->nwin)
		profile_window_end(d->prof, w, secs);
}

struct step_target_win *step_data_target(struct step_data *d, unsigned w, unsigned t)
{
	if (w >= d->nwin || t >= d->ntargets)
		return NULL;
	return &d->tw[(size_t)w * d->ntargets + t];
}
