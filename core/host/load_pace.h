/* load_pace — how fast a load goes, read from /proc instead of from a probe,
 * so it is measured the same way whether a probe is attached or not:
 * `argus model` compares the two to see what the scheduler-time probe cost
 * the load while it was attached (core/model/model_capture.h).  Two counts:
 *   rw_calls  the read and write calls of its processes (/proc/TGID/io:
 *             syscr + syscw, ended threads included).  A closed loop that
 *             talks over read/write makes a fixed number of them per
 *             request, set by its code: tier3's ping-pong 8.0 per request
 *             (7.8-8.1 over 18 runs, its speed 8-28 k/s);
 *   switches  the switch-ins of its threads (the third field of
 *             /proc/TGID/task/TID/schedstat, the times the thread ran on a
 *             CPU; where the kernel keeps no schedstat, the voluntary and
 *             involuntary context switches of .../status).  Per request
 *             they depend on timing as well as code (a reader that finds
 *             its data already there does not block; a busy machine's
 *             preemptions add switch-ins per second, not per request):
 *             6.8-7.4 per request on the same ping-pong, 9.2-9.4 with a
 *             20 us think time.  For a load that makes no read/write calls
 *             (send/recv, shared memory).
 *
 * Each read counts what happened since the previous read: a thread
 * (process) new since then counts from its start; a thread that ended
 * since then loses its switch-ins after the previous read, a process that
 * ended its calls. */
#ifndef ARGUS_LOAD_PACE_H
#define ARGUS_LOAD_PACE_H

#include <stdint.h>

#include "host/load.h"

struct load_pace;

/* A meter with nothing read yet, or NULL with errno.  Free with
 * load_pace_free (NULL-safe). */
struct load_pace *load_pace_new(void);
void load_pace_free(struct load_pace *p);

struct load_pace_delta {
	uint64_t rw_calls; /* 0 also where the kernel keeps no I/O accounting */
	uint64_t switches;
};

/* Reads l's processes and their threads now; *delta gets what they did
 * since the previous read (0s at the first).  Returns 0 or -errno; after
 * an error the next read is a first read again. */
int load_pace_read(struct load_pace *p, struct load *l, struct load_pace_delta *delta);

#endif
