/* view_decay — live mode's --decay: the tree's counts as an exponentially
 * decaying sum (perf top's decay), a view of the live tree.  No curses.
 *
 * The source's profile, the session and the status bar's sample count keep
 * everything counted; only the tree that is shown is rewritten: after each
 * rebuild, every node's counts become old_shown * 2^(-dt/half_life) + what
 * it gained since the last rebuild.  State is kept by node id (a hash of the
 * path, core/data/tree.h), which survives the rebuilds. */
#ifndef ARGUS_VIEW_DECAY_H
#define ARGUS_VIEW_DECAY_H

#include <stddef.h>
#include <stdint.h>

#include "data/tree.h"

struct view_decay_ent;

struct view_decay {
	double half_life_s;       /* > 0 */
	double last_s;            /* time of the last apply; < 0: none yet */
	struct view_decay_ent *ent; /* sorted by id */
	size_t n;
	int regrouped;            /* ids changed wholesale (view_decay_regroup) */
	double root_ratio;        /* shown / counted of the root, last apply */
};

/* A decay with this half-life (seconds, > 0): nothing seen yet. */
void view_decay_init(struct view_decay *d, double half_life_s);
void view_decay_free(struct view_decay *d);        /* keeps half_life_s */

/* Rewrites t's node counts (total and self, both conditions) at time now_s
 * (monotonic seconds) and keeps the state for the next call; the caller
 * sorts the tree again.  A node seen for the first time shows what it has
 * (a new path: its samples are recent), unless the tree was regrouped, where
 * every id is new: then it shows its count scaled as the root was.  A count
 * that went down (the counts were reset) starts again from it.  0 or
 * -ENOMEM (the tree then shows what was counted). */
int view_decay_apply(struct view_decay *d, struct tree *t, double now_s);

/* The next apply's ids are those of another grouping (by process / by
 * subsystem): scale them as the root, not as new paths. */
void view_decay_regroup(struct view_decay *d);

/* The counts were reset (key 0): nothing shown is kept. */
void view_decay_reset(struct view_decay *d);

#endif
