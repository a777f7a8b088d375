/* load_pace — how fast a load goes, read from /proc instead of from a probe:
 * the switch-ins of its threads (the third field of
 * /proc/TGID/task/TID/schedstat, the times the thread ran on a CPU; where
 * the kernel keeps no schedstat, the voluntary and involuntary context
 * switches of .../status, the same count seen from the other side).  A
 * closed loop switches in a fixed number of times per request, so this rate
 * is its pace, measured the same way whether a probe is attached or not:
 * `argus model` compares the two to see what the scheduler-time probe cost
 * the load while it was attached (core/model/model_capture.h).
 *
 * Each read counts what every thread did since the previous read: a thread
 * new since then counts from its start, one that ended since then loses
 * what it did after the previous read. */
#ifndef ARGUS_LOAD_PACE_H
#define ARGUS_LOAD_PACE_H

#include <stdint.h>

#include "host/load.h"

struct load_pace;

/* A meter with nothing read yet, or NULL with errno.  Free with
 * load_pace_free (NULL-safe). */
struct load_pace *load_pace_new(void);
void load_pace_free(struct load_pace *p);

/* Reads the threads of l's processes now; *delta gets their switch-ins
 * since the previous read (0 at the first).  Returns 0 or -errno; after
 * an error the next read is a first read again. */
int load_pace_read(struct load_pace *p, struct load *l, uint64_t *delta);

#endif
