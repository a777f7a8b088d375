/* push_delta — what a growing profile window gained since the last look,
 * as a profile of its own: `argus record --push --every S` pushes each
 * interval's samples exactly once, however the sampler batches them. */
#ifndef ARGUS_PUSH_DELTA_H
#define ARGUS_PUSH_DELTA_H

#include <stdint.h>

#include "data/profile.h"

struct push_delta;

struct push_delta *push_delta_new(void);    /* NULL with errno */
void push_delta_free(struct push_delta *d); /* NULL-safe */

/* A new profile (caller frees) with one window of condition c, length secs
 * and start start_s, holding the counts window w of p gained since the
 * previous call (all of them the first time); *samples gets their sum.
 * The counts taken are remembered, so each sample is taken once; the
 * identities (profile_ident) of the processes taken go with them.  NULL
 * with errno set. */
struct profile *push_delta_take(struct push_delta *d, const struct profile *p, unsigned w,
				enum cond c, double start_s, double secs, uint64_t *samples);

/* Forgets the counts taken: for a profile that started over (a recorder's
 * source_live_rotate after a push). */
void push_delta_reset(struct push_delta *d);

#endif
