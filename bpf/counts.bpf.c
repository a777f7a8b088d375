// SPDX-License-Identifier: GPL-2.0
/* counts — raw tracepoint firings counted per tracepoint, nothing else.
 *
 * One program per slot, attached by name (no tracefs).  raw_tp links with a
 * BPF cookie need libbpf 1.5 (bpf_program__attach_raw_tracepoint_opts); with
 * libbpf 1.1 the slot is the program.  The cheapest probe argus has: used by
 * the counts kind and to estimate event rates before a heavier step.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "counts.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct counts_slot);
	__uint(max_entries, COUNTS_MAX_TPS);
} slots SEC(".maps");

static __always_inline int on_fire(__u32 i)
{
	struct counts_slot *c = bpf_map_lookup_elem(&slots, &i);
	char comm[FILTER_COMM_LEN];

	if (!c)
		return 0;
	if (filter_pass(bpf_get_current_pid_tgid(), comm, 0))
		c->fired++;
	else
		c->filtered_out++;
	return 0;
}

#define CNT_PROG(i) \
	SEC("raw_tp") int argus_cnt_##i(void *ctx) { return on_fire(i); }

CNT_PROG(0) CNT_PROG(1) CNT_PROG(2) CNT_PROG(3) CNT_PROG(4) CNT_PROG(5) CNT_PROG(6) CNT_PROG(7)
CNT_PROG(8) CNT_PROG(9) CNT_PROG(10) CNT_PROG(11) CNT_PROG(12) CNT_PROG(13) CNT_PROG(14) CNT_PROG(15)
CNT_PROG(16) CNT_PROG(17) CNT_PROG(18) CNT_PROG(19) CNT_PROG(20) CNT_PROG(21) CNT_PROG(22) CNT_PROG(23)
CNT_PROG(24) CNT_PROG(25) CNT_PROG(26) CNT_PROG(27) CNT_PROG(28) CNT_PROG(29) CNT_PROG(30) CNT_PROG(31)
CNT_PROG(32) CNT_PROG(33) CNT_PROG(34) CNT_PROG(35) CNT_PROG(36) CNT_PROG(37) CNT_PROG(38) CNT_PROG(39)
CNT_PROG(40) CNT_PROG(41) CNT_PROG(42) CNT_PROG(43) CNT_PROG(44) CNT_PROG(45) CNT_PROG(46) CNT_PROG(47)
CNT_PROG(48) CNT_PROG(49) CNT_PROG(50) CNT_PROG(51) CNT_PROG(52) CNT_PROG(53) CNT_PROG(54) CNT_PROG(55)
CNT_PROG(56) CNT_PROG(57) CNT_PROG(58) CNT_PROG(59) CNT_PROG(60) CNT_PROG(61) CNT_PROG(62) CNT_PROG(63)
