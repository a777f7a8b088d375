// SPDX-License-Identifier: GPL-2.0
/* caps — tiny programs that argus loads and attaches once at start-up to
 * learn which attach mechanisms this kernel allows (core/probe/probe_caps.c).
 * Each only counts that it ran; the perf_event one also takes a kernel
 * stack, so that its load proves stack maps and bpf_get_stackid work. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "caps.h"

char LICENSE[] SEC("license") = "GPL";

__u64 hits[CAPS_HIT_N] = {};

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, CAPS_STACK_DEPTH * sizeof(__u64));
} caps_stacks SEC(".maps");

static __always_inline void hit(int slot)
{
	__sync_fetch_and_add(&hits[slot], 1);
}

SEC("perf_event")
int argus_caps_perf(struct bpf_perf_event_data *ctx)
{
	bpf_get_stackid(ctx, &caps_stacks, 0);
	hit(CAPS_HIT_PERF);
	return 0;
}

/* attached by name (bpf_program__attach_raw_tracepoint): needs no tracefs */
SEC("raw_tp")
int argus_caps_raw_tp(struct bpf_raw_tracepoint_args *ctx)
{
	hit(CAPS_HIT_RAW_TP);
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(argus_caps_tp_btf, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	hit(CAPS_HIT_TP_BTF);
	return 0;
}

SEC("fentry/vfs_read")
int BPF_PROG(argus_caps_fentry)
{
	hit(CAPS_HIT_FENTRY);
	return 0;
}

SEC("kprobe/vfs_read")
int BPF_KPROBE(argus_caps_kprobe)
{
	hit(CAPS_HIT_KPROBE);
	return 0;
}

SEC("kprobe.multi/vfs_read")
int BPF_KPROBE(argus_caps_kprobe_multi)
{
	hit(CAPS_HIT_KPROBE_MULTI);
	return 0;
}
