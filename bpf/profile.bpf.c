// SPDX-License-Identifier: GPL-2.0
/* profile — cpu-clock sampling of kernel stacks, aggregated in the kernel.
 *
 * With user_stacks, the user-space stack under each kernel stack too (a
 * second stack map, ids in the key): the call sites of issue 27.
 *
 * Every sample: (optional) process filter, kernel stack id from the stack
 * map (no BPF_F_REUSE_STACKID: a hash collision is counted, never silently
 * replaced, so a stack id keeps meaning the same stack while we run), then
 * counts[{stack id, tgid, comm}] += 1.  Map sizes are set by user space
 * before load.  Programs are named argus_* so they can be found in
 * `bpftool prog show`.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "profile.h"
#include "task.bpf.h"

#define EEXIST 17
#define EFAULT 14

const volatile __u32 filter_enabled = 0;
const volatile __u32 user_stacks = 0;   /* also take the user stack (issue 27) */

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

/* User stacks (frame-pointer walk by the kernel), apart from the kernel
 * ones so that a kernel path keeps one id whatever calls it. */
struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, PROFILE_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} ustacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct profile_key);
	__type(value, __u64);
	__uint(max_entries, 1); /* set at run time */
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);     /* tgid */
	__type(value, __u8);
	__uint(max_entries, 1); /* set at run time */
} tgids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct profile_counters);
	__uint(max_entries, 1);
} counters SEC(".maps");

static __always_inline struct profile_counters *ctrs(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&counters, &zero);
}

SEC("perf_event")
int argus_profile(struct bpf_perf_event_data *ctx)
{
	struct profile_counters *c = ctrs();
	struct profile_key key = {};
	__u64 zero = 0, *val;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	long id;

	if (!c)
		return 0;
	c->samples++;
	if (filter_enabled && !bpf_map_lookup_elem(&tgids, &tgid)) {
		c->filtered_out++;
		return 0;
	}
	id = bpf_get_stackid(ctx, &stacks, 0); /* kernel stack only */
	if (id < 0) {
		if (id == -EFAULT)
			c->user_mode++;   /* no kernel frames: user mode */
		else if (id == -EEXIST)
			c->stack_collision++;
		else
			c->stack_error++;
		return 0;
	}
	key.stack_id = id;
	key.ustack_id = PROFILE_NO_USTACK;
	if (user_stacks) {
		long uid = task_user_stack(ctx, bpf_get_current_task_btf(), &ustacks,
					   &c->ustack_error);

		if (uid >= 0)
			key.ustack_id = uid;
	}
	key.tgid = tgid;
	bpf_get_current_comm(key.comm, sizeof(key.comm));
	val = bpf_map_lookup_elem(&counts, &key);
	if (!val) {
		/* -EEXIST when another CPU inserted it first: fine either way */
		bpf_map_update_elem(&counts, &key, &zero, BPF_NOEXIST);
		val = bpf_map_lookup_elem(&counts, &key);
		if (!val) {
			c->count_map_full++;
			return 0;
		}
	}
	__sync_fetch_and_add(val, 1);
	return 0;
}

static __always_inline void follow(__u32 ptgid, __u32 ctgid)
{
	struct profile_counters *c;
	__u8 one = 1;

	if (!filter_enabled || ptgid == ctgid || !bpf_map_lookup_elem(&tgids, &ptgid))
		return;
	c = ctrs();
	if (bpf_map_update_elem(&tgids, &ctgid, &one, BPF_ANY)) {
		if (c)
			c->filter_full++;
	} else if (c) {
		c->forks_followed++;
	}
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(argus_fork, struct task_struct *parent, struct task_struct *child)
{
	follow(parent->tgid, child->tgid);
	return 0;
}

/* Fallback where tp_btf cannot load: the same through a raw tracepoint. */
SEC("raw_tp/sched_process_fork")
int BPF_PROG(argus_fork_raw, struct task_struct *parent, struct task_struct *child)
{
	follow(BPF_CORE_READ(parent, tgid), BPF_CORE_READ(child, tgid));
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
