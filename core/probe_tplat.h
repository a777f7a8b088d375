/* probe_tplat — latency between a begin and an end raw tracepoint
 * (bpf/tplat.bpf.c): count, total, log2 histogram, stacks at begin.
 *
 * Intervals are keyed by thread, except for known pairs that concern an
 * object rather than a thread, keyed by the tracepoints' first argument
 * (probe_tplat_key_mode: block_rq_issue/insert -> block_rq_complete, whose
 * first argument is the struct request *).  Values are cumulative from
 * open.  Everything is owned by the struct's fds.
 */
#ifndef ARGUS_PROBE_TPLAT_H
#define ARGUS_PROBE_TPLAT_H

#include <stdint.h>

#include <linux/types.h>
#include "../bpf/tplat.h"
#include "kind_util.h"

#define PROBE_TPLAT_DEFAULT_INFLIGHT 16384

struct probe_tplat_opts {
	const char *begin, *end;    /* "category:name" or "name" */
	int key_mode;               /* TPLAT_KEY_*, or -1: from the known-pairs table */
	long syscall_nr;            /* >= 0: only sys_enter with this number (begin
	                               must be raw_syscalls:sys_enter); -1 = any */
	unsigned max_stacks;        /* 0 = STEP_DEFAULT_MAX_STACKS */
	unsigned max_inflight;      /* 0 = PROBE_TPLAT_DEFAULT_INFLIGHT */
	const struct kind_filter *filter; /* NULL = none; applies at begin */
};

struct probe_tplat;

/* TPLAT_KEY_ARG0 for known object pairs (by tracepoint name, category
 * ignored), else TPLAT_KEY_THREAD. */
int probe_tplat_key_mode(const char *begin, const char *end);

/* Loads and attaches.  NULL with errno set and *cause (caller frees). */
struct probe_tplat *probe_tplat_open(const struct probe_tplat_opts *o, char **cause);
void probe_tplat_close(struct probe_tplat *pt); /* NULL-safe */

/* The histogram and counters summed over CPUs.  0 or -errno. */
int probe_tplat_hist(struct probe_tplat *pt, struct tplat_hist *out);

typedef int (*probe_tplat_cb)(void *arg, const struct tplat_key *k,
			      const struct tplat_stack_val *v);
/* Calls cb per begin stack; stops when cb returns nonzero and returns it. */
int probe_tplat_read(struct probe_tplat *pt, probe_tplat_cb cb, void *arg);
/* Reads stack id (leaf first); count or -errno (kind_stack_read_cb). */
int probe_tplat_stack(void *pt, uint32_t id, uint64_t *ips, unsigned max);
void probe_tplat_runtime(struct probe_tplat *pt, uint64_t *ns, uint64_t *cnt);

#endif
