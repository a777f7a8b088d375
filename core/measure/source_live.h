/* source_live — plain live sampling as a source (core/measure/source.h): one
 * COND_LOAD window that grows, collected once a second. */
#ifndef ARGUS_SOURCE_LIVE_H
#define ARGUS_SOURCE_LIVE_H

#include "probe/probe_profile.h"
#include "measure/source.h"

/* Loads /proc/kallsyms and starts the sampler with options o.  Returns NULL
 * with errno and *cause set (caller frees). Free with source_free. */
struct source *source_live_new(const struct probe_profile_opts *o, char **cause);

/* The sampler's counters (for summaries); 0 or -errno. Valid after stop:
 * the last values read before detaching. */
int source_live_stats(struct source *s, struct probe_profile_stats *st);

/* Drops what the source's profile holds (stacks, strings, identities) and
 * goes on into an empty one with the same window: for a recorder that has
 * pushed what it had (core/data/profile.h, profile_fresh_like).  Samples keep
 * being counted once each (the sampler's snapshot is not touched).  0 or
 * -errno (the old profile kept). */
int source_live_rotate(struct source *s);

/* A recorder left running (record --push without a whole-run output):
 * every tenth collect, the sampler forgets the keys that have not grown
 * for idle_s seconds and the stacks only they used
 * (probe_profile_prune), so its memory and its kernel maps hold what is
 * active, not every stack since it started.  0: never (the default). */
void source_live_prune_idle(struct source *s, unsigned idle_s);

/* What the prunes have forgotten so far (zeros without pruning). */
void source_live_prune_stats(struct source *s, struct probe_profile_prune *out);

/* Adds a process to the filter of a live source; 0 or -errno. */
int source_live_add_tgid(struct source *s, uint32_t tgid);

#endif
