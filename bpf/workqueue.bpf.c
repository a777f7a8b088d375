// SPDX-License-Identifier: GPL-2.0
/* workqueue — counts the work functions kernel workers run, per worker
 * thread (workqueue_execute_start: TP_PROTO(struct work_struct *work), the
 * function is work->func).  tp_btf, with a raw_tp twin as the fallback. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "workqueue.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* set at run time */
	__type(key, struct workqueue_key);
	__type(value, struct workqueue_val);
} works SEC(".maps");

static __always_inline int wq_count(struct work_struct *work)
{
	struct workqueue_key k = { 0 };
	struct workqueue_val one = { 1 }, *v;

	k.pid = (__u32)bpf_get_current_pid_tgid();
	k.func = (__u64)BPF_CORE_READ(work, func);
	v = bpf_map_lookup_elem(&works, &k);
	if (v)
		__sync_fetch_and_add(&v->count, 1);
	else
		bpf_map_update_elem(&works, &k, &one, BPF_NOEXIST); /* full: not counted */
	return 0;
}

SEC("tp_btf/workqueue_execute_start")
int BPF_PROG(argus_wq_start, struct work_struct *work)
{
	return wq_count(work);
}

SEC("raw_tp/workqueue_execute_start")
int BPF_PROG(argus_wq_start_raw, struct work_struct *work)
{
	return wq_count(work);
}
