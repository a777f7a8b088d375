/* probe_offcpu — time blocked per kernel stack, with the waker
 * (bpf/offcpu.bpf.c: sched_switch + sched_waking, tp_btf else raw_tp).
 * Values are cumulative from open.  Everything is owned by the struct's fds.
 */
#ifndef ARGUS_PROBE_OFFCPU_H
#define ARGUS_PROBE_OFFCPU_H

#include <stdint.h>

#include <linux/types.h>
#include "../../bpf/offcpu.h"
#include "probe/kind_util.h"
#include "probe/kind_ops.h"

struct probe_offcpu_opts {
	unsigned max_stacks;        /* stack map entries; 0 = STEP_DEFAULT_MAX_STACKS */
	unsigned max_tasks;         /* blocked tasks tracked at once; 0 = 16384 */
	uint64_t min_ns;            /* shorter blocks are not counted per stack */
	const struct kind_filter *filter; /* NULL = every task */
};

struct probe_offcpu;

/* Loads and attaches.  NULL with errno set and *cause (caller frees). */
struct probe_offcpu *probe_offcpu_open(const struct probe_offcpu_opts *o, char **cause);
void probe_offcpu_close(struct probe_offcpu *po); /* NULL-safe */

/* Counters and histogram summed over CPUs.  0 or -errno. */
int probe_offcpu_counters(struct probe_offcpu *po, struct offcpu_counters *out);

typedef int (*probe_offcpu_cb)(void *arg, const struct offcpu_key *k, const struct offcpu_val *v);
/* Calls cb per aggregate key; stops when cb returns nonzero and returns it. */
int probe_offcpu_read(struct probe_offcpu *po, probe_offcpu_cb cb, void *arg);
/* Reads stack id (leaf first); count or -errno (kind_stack_read_cb). */
int probe_offcpu_stack(void *po, uint32_t id, uint64_t *ips, unsigned max);
/* Reads user stack id (leaf first, as the kernel walked it); count or
 * -errno (-ENOENT: none, or its bucket taken by another stack since). */
int probe_offcpu_ustack(struct probe_offcpu *po, uint32_t id, uint64_t *ips, unsigned max);
void probe_offcpu_runtime(struct probe_offcpu *po, uint64_t *ns, uint64_t *cnt);
/* "tp_btf" or "raw_tp": how it attached. */
const char *probe_offcpu_mechanism(const struct probe_offcpu *po);

/* The offcpu kind (core/probe/kind.c's table). */
extern const struct kind_ops kind_offcpu_ops;

#endif
