/* measure_live.h — private to core/measure*.c: the live sampler. */
#ifndef ARGUS_MEASURE_LIVE_H
#define ARGUS_MEASURE_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/measure.h"

/* 1 when the diagnosed threads' whole time is accounted (--time). */
int measure_time_wall(const struct measure_opts *o);

/* Opens the live sampler into *smp (its ctx owned by smp->close): the
 * profile probe at o->freq_hz, on tgids when filter, and when
 * measure_time_wall(o) the time accounting of time_tgids.  0 or -errno with
 * *cause. */
int measure_live_open(struct measure_sampler *smp, const struct measure_opts *o,
		      const uint32_t *tgids, size_t ntgids, int filter,
		      const uint32_t *time_tgids, size_t ntime, char **cause);

#endif
