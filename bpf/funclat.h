/* funclat — structs shared by bpf/funclat.bpf.c and core/probe/probe_funclat.c.
 *
 * Latency of up to FUNCLAT_MAX_FNS kernel functions: entry stores {time,
 * stack} per {thread, slot}; return adds the interval to the slot's per-CPU
 * log2 histogram and to the entry stack's totals.  Fixed-width types only.
 */
#ifndef ARGUS_BPF_FUNCLAT_H
#define ARGUS_BPF_FUNCLAT_H

#define FUNCLAT_MAX_FNS 8
#define FUNCLAT_COMM_LEN 16
#define FUNCLAT_MAX_DEPTH 127
#define FUNCLAT_BUCKETS 64
#define FUNCLAT_NO_STACK 0xffffffffu

struct funclat_ikey {
	__u64 pid_tgid;
	__u32 slot;
	__u32 pad;
};

struct funclat_start {
	__u64 ts;
	__u32 stack_id;
	__u32 pad;
};

struct funclat_key {
	__u32 stack_id;
	__u32 slot;
	__u32 tgid;
	char comm[FUNCLAT_COMM_LEN];
};

struct funclat_val {
	__u64 count;
	__u64 total_ns;
};

/* Per CPU, one entry per slot. */
struct funclat_hist {
	__u64 count;
	__u64 total_ns;
	__u64 entered;
	__u64 filtered_out;
	__u64 stack_error;
	__u64 map_full;
	__u64 hist[FUNCLAT_BUCKETS];
};

#endif
