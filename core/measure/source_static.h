/* source_static — a source over a profile that never changes: imported
 * folded / perf-script files, a finished measurement, test fixtures.  Needs
 * no privileges.  Its phase is SOURCE_STATIC; tick reports one change (the
 * first call) and nothing after. */
#ifndef ARGUS_SOURCE_STATIC_H
#define ARGUS_SOURCE_STATIC_H

#include "measure/source.h"

/* Takes ownership of p (freed with the source, also on failure).  title
 * (copied; may be NULL) names the data, e.g. the file names.  Returns NULL
 * with errno set. */
struct source *source_static_new(struct profile *p_owned, const char *title);

/* The title given to source_static_new ("" when none); valid while s lives. */
const char *source_static_title(struct source *s);

/* The frequency the data was sampled at (diff --freq): with it, rates read
 * as a share of a CPU (CPU-ms/s, the tree's %CPU).  0: unknown. */
void source_static_set_freq(struct source *s, unsigned freq_hz);

#endif
