/* step_data — the measurements of one step (see step_data.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "data/step_data.h"
#include "base/vec.h"

int step_data_unit_known(const char *u)
{
	static const char *const units[] = { STEP_UNIT_SAMPLES, STEP_UNIT_EVENTS,
					     STEP_UNIT_US_BLOCKED, STEP_UNIT_INTERVALS };

	for (size_t i = 0; u && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(u, units[i]))
			return 1;
	return 0;
}

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

	/* an element is a window's row of ntargets */
	if (vec_grow_u(&d->tw, &d->cap_win, (size_t)d->nwin + 1, d->ntargets * sizeof(*d->tw)))
		return -ENOMEM;
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

double step_data_hist_percentile(const uint64_t *hist, double pct)
{
	uint64_t total = 0, cum = 0;
	double want;

	for (unsigned i = 0; i < KIND_HIST_BUCKETS; i++)
		total += hist[i];
	if (!total)
		return 0;
	if (pct < 0)
		pct = 0;
	if (pct > 100)
		pct = 100;
	want = pct / 100.0 * (double)total;
	for (unsigned i = 0; i < KIND_HIST_BUCKETS; i++) {
		cum += hist[i];
		if (hist[i] && (double)cum >= want) {
			double edge = 2.0; /* bucket i ends at 2^(i+1) */

			for (unsigned k = 0; k < i; k++)
				edge *= 2;
			return edge;
		}
	}
	return 0;
}
