/* counts — structs shared by bpf/counts.bpf.c and core/probe/probe_counts.c.
 *
 * Firings of up to COUNTS_MAX_TPS raw tracepoints, one program per slot
 * (argus_cnt_0 .. argus_cnt_63; the program says which tracepoint fired),
 * counted per CPU in a per-CPU array indexed by slot.  Fixed-width types.
 */
#ifndef ARGUS_BPF_COUNTS_H
#define ARGUS_BPF_COUNTS_H

#define COUNTS_MAX_TPS 64

struct counts_slot {
	__u64 fired;            /* firings that passed the filter */
	__u64 filtered_out;     /* firings of tasks outside the filter */
};

#endif
