/* tplat — structs shared by bpf/tplat.bpf.c and core/probe/probe_tplat.c.
 *
 * A begin/end pair of raw tracepoints: begin stores {time, kernel stack,
 * tgid, comm} under a key (the thread, or the tracepoints' first argument
 * for pairs such as block_rq_issue/block_rq_complete that concern an
 * object rather than a thread); end computes the interval and adds it to a
 * per-CPU log2 histogram and to the begin stack's totals.  Fixed-width
 * types only.
 */
#ifndef ARGUS_BPF_TPLAT_H
#define ARGUS_BPF_TPLAT_H

#define TPLAT_COMM_LEN 16
#define TPLAT_MAX_DEPTH 127
#define TPLAT_BUCKETS 64
#define TPLAT_NO_STACK 0xffffffffu

#define TPLAT_KEY_THREAD 0      /* key = pid_tgid of the current task */
#define TPLAT_KEY_ARG0   1      /* key = first raw tracepoint argument */

/* Value of the in-flight map (key: __u64). */
struct tplat_start {
	__u64 ts;
	__u32 stack_id;
	__u32 tgid;
	char comm[TPLAT_COMM_LEN];
};

/* Key of the per-stack map; value struct tplat_stack_val (monotonic). */
struct tplat_key {
	__u32 stack_id;
	__u32 tgid;
	char comm[TPLAT_COMM_LEN];
};

struct tplat_stack_val {
	__u64 count;            /* completed intervals begun at this stack */
	__u64 total_ns;
};

/* One per CPU (per-CPU array, one entry). */
struct tplat_hist {
	__u64 count;            /* completed intervals */
	__u64 total_ns;
	__u64 begun;            /* begins that passed the filter */
	__u64 filtered_out;
	__u64 unmatched;        /* ends without a begin (began before attach,
	                         * filtered out, or evicted) */
	__u64 stack_error;
	__u64 stack_map_full;   /* interval counted, its stack not */
	__u64 hist[TPLAT_BUCKETS];
};

#endif
