/* tpstacks — structs shared by bpf/tpstacks.bpf.c and core/probe/probe_tpstacks.c.
 *
 * Firings of up to TPSTACKS_MAX_TPS raw tracepoints (one program each, the
 * program's index says which tracepoint fired), counted per {kernel stack,
 * user stack, tracepoint, tgid, comm} in the kernel, 1 in sample_every
 * firings per CPU.  The user stack (issue 27: the call site in the
 * program) is in a second stack map, as the sampler's is.
 * Fixed-width types only.
 */
#ifndef ARGUS_BPF_TPSTACKS_H
#define ARGUS_BPF_TPSTACKS_H

#define TPSTACKS_MAX_TPS 64
#define TPSTACKS_COMM_LEN 16
#define TPSTACKS_MAX_DEPTH 127
#define TPSTACKS_NO_STACK 0xffffffffu   /* stack_id / ustack_id when none could be
                                         * taken (ustack_id: a kernel thread too) */

/* Key of the counts map; value is a __u64 count of recorded (sampled)
 * firings, monotonic. */
struct tpstacks_key {
	__u32 stack_id;
	__u32 ustack_id;        /* the user stack, in ustacks (TPSTACKS_NO_STACK: none) */
	__u32 tp;               /* index into the tracepoints given */
	__u32 tgid;
	char comm[TPSTACKS_COMM_LEN];
};

/* Per CPU and per tracepoint (per-CPU array indexed by tp): what happened
 * to each firing. */
struct tpstacks_counters {
	__u64 fired;            /* firings that passed the filter (exact) */
	__u64 filtered_out;     /* firings of tasks outside the filter */
	__u64 recorded;         /* firings sampled and counted */
	__u64 stack_error;      /* no stack taken (collision, error) */
	__u64 count_map_full;   /* counts map had no room for a new key */
	__u64 ustack_error;     /* user stack wanted but not taken (the firing
	                         * is counted with its kernel stack all the same;
	                         * kernel threads have none and are not counted) */
};

#endif
