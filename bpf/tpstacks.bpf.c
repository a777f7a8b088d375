// SPDX-License-Identifier: GPL-2.0
/* tpstacks — raw tracepoint firings counted per kernel stack.
 *
 * One program per tracepoint slot (argus_tps_0 .. argus_tps_63), attached by
 * name with bpf_program__attach_raw_tracepoint (no tracefs); the slot number
 * is how a count knows which tracepoint fired.  Every firing that passes the
 * filter is counted exactly per CPU (fired); 1 in sample_every of them is
 * recorded with its kernel stack and the user stack under it (a second
 * stack map, as bpf/profile.bpf.c takes it), so user space scales the recorded counts
 * by sample_every and can show both.  Stack ids are taken without
 * BPF_F_REUSE_STACKID: a collision is counted, never a silent replacement.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "tpstacks.h"
#include "filter.bpf.h"
#include "task.bpf.h"

_Static_assert(TPSTACKS_COMM_LEN == FILTER_COMM_LEN, "comm length");

char LICENSE[] SEC("license") = "GPL";

/* not const: user space retunes 1-in-N while attached (automatic mode) */
__u32 sample_every = 1;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TPSTACKS_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

/* User stacks (the kernel's frame-pointer walk), apart from the kernel ones
 * so that neither crowds the other out; sized as stacks. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TPSTACKS_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct tpstacks_key);
	__type(value, __u64);
	__uint(max_entries, 1); /* set at run time */
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct tpstacks_counters);
	__uint(max_entries, TPSTACKS_MAX_TPS);
} counters SEC(".maps");

static __always_inline int on_fire(struct bpf_raw_tracepoint_args *ctx, __u32 tp)
{
	struct tpstacks_counters *c = bpf_map_lookup_elem(&counters, &tp);
	struct tpstacks_key key = {};
	__u64 pid_tgid = bpf_get_current_pid_tgid(), one = 1, *val;
	long id;

	if (!c)
		return 0;
	key.tp = tp;
	key.tgid = pid_tgid >> 32;
	if (!filter_pass(pid_tgid, key.comm, 0)) { /* reads comm only for a comm filter */
		c->filtered_out++;
		return 0;
	}
	c->fired++;
	if (sample_every > 1 && c->fired % sample_every)
		return 0;
	if (!filter_comm_on) /* read only for the firings recorded */
		bpf_get_current_comm(key.comm, sizeof(key.comm));
	c->recorded++;
	id = bpf_get_stackid(ctx, &stacks, 0); /* kernel stack */
	if (id < 0) {
		c->stack_error++;
		key.stack_id = TPSTACKS_NO_STACK;
	} else {
		key.stack_id = id;
	}
	/* a failed user stack is counted, the firing kept with its kernel
	 * stack alone */
	id = task_user_stack(ctx, (struct task_struct *)bpf_get_current_task(), &ustacks,
			     &c->ustack_error);
	key.ustack_id = id >= 0 ? id : TPSTACKS_NO_STACK;
	val = bpf_map_lookup_elem(&counts, &key);
	if (val) {
		__sync_fetch_and_add(val, 1);
		return 0;
	}
	if (bpf_map_update_elem(&counts, &key, &one, BPF_NOEXIST)) {
		val = bpf_map_lookup_elem(&counts, &key); /* another CPU inserted it */
		if (val)
			__sync_fetch_and_add(val, 1);
		else
			c->count_map_full++;
	}
	return 0;
}

#define TPS_PROG(i) \
	SEC("raw_tp") int argus_tps_##i(struct bpf_raw_tracepoint_args *ctx) { return on_fire(ctx, i); }

TPS_PROG(0) TPS_PROG(1) TPS_PROG(2) TPS_PROG(3) TPS_PROG(4) TPS_PROG(5) TPS_PROG(6) TPS_PROG(7)
TPS_PROG(8) TPS_PROG(9) TPS_PROG(10) TPS_PROG(11) TPS_PROG(12) TPS_PROG(13) TPS_PROG(14) TPS_PROG(15)
TPS_PROG(16) TPS_PROG(17) TPS_PROG(18) TPS_PROG(19) TPS_PROG(20) TPS_PROG(21) TPS_PROG(22) TPS_PROG(23)
TPS_PROG(24) TPS_PROG(25) TPS_PROG(26) TPS_PROG(27) TPS_PROG(28) TPS_PROG(29) TPS_PROG(30) TPS_PROG(31)
TPS_PROG(32) TPS_PROG(33) TPS_PROG(34) TPS_PROG(35) TPS_PROG(36) TPS_PROG(37) TPS_PROG(38) TPS_PROG(39)
TPS_PROG(40) TPS_PROG(41) TPS_PROG(42) TPS_PROG(43) TPS_PROG(44) TPS_PROG(45) TPS_PROG(46) TPS_PROG(47)
TPS_PROG(48) TPS_PROG(49) TPS_PROG(50) TPS_PROG(51) TPS_PROG(52) TPS_PROG(53) TPS_PROG(54) TPS_PROG(55)
TPS_PROG(56) TPS_PROG(57) TPS_PROG(58) TPS_PROG(59) TPS_PROG(60) TPS_PROG(61) TPS_PROG(62) TPS_PROG(63)
