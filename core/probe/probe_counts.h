/* probe_counts — tracepoint firings counted per tracepoint (bpf/counts.bpf.c).
 *
 * The cheapest probe: one raw_tp program per tracepoint, a per-CPU counter
 * each, the filter applied.  Counts are cumulative from open.  Used by the
 * counts kind and to estimate an event rate before a heavier step.
 * Everything is owned by the struct's fds.
 */
#ifndef ARGUS_PROBE_COUNTS_H
#define ARGUS_PROBE_COUNTS_H

#include <stdint.h>

#include "probe/kind_util.h"

#define PROBE_COUNTS_MAX 64

struct probe_counts;

/* Attaches to ntps tracepoints ("category:name" or "name"; 1..64) with
 * filter f (NULL = none).  NULL with errno set and *cause (caller frees). */
struct probe_counts *probe_counts_open(const char *const *tps, unsigned ntps,
				       const struct kind_filter *f, char **cause);
void probe_counts_close(struct probe_counts *pc); /* NULL-safe */

/* Detaches the programs (maps and counts kept; nothing runs) and attaches
 * them again: a duty cycle's off and on.  attach: 0 or -errno, *cause
 * (may be NULL). */
void probe_counts_detach(struct probe_counts *pc);
int probe_counts_attach(struct probe_counts *pc, char **cause);
/* Firings of tracepoint i since open, summed over CPUs (filtered_out may be
 * NULL).  0 or -errno. */
int probe_counts_read(struct probe_counts *pc, unsigned i, uint64_t *fired,
		      uint64_t *filtered_out);
/* BPF run time and runs of its programs (statistics must be on). */
void probe_counts_runtime(struct probe_counts *pc, uint64_t *ns, uint64_t *cnt);

/* Firings per second of the tracepoints together, counted for secs
 * seconds (sleeps).  0 or -errno with *cause. */
int probe_counts_rate(const char *const *tps, unsigned ntps, const struct kind_filter *f,
		      double secs, double *rate, char **cause);

#endif
