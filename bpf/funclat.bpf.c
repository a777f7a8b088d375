// SPDX-License-Identifier: GPL-2.0
/* funclat — latency of kernel functions: fentry/fexit, or kprobe/kretprobe.
 *
 * FUNCLAT_MAX_FNS slots, each with an fentry/fexit pair (attach target set
 * by user space before load) and a kprobe/kretprobe pair (attached by
 * name).  User space loads one family only: fentry where the kernel allows
 * it, else kprobes.  The slot is the program, as in counts.bpf.c.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "funclat.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, struct funclat_ikey);
	__type(value, struct funclat_start);
	__uint(max_entries, 1); /* set at run time */
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, FUNCLAT_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct funclat_key);
	__type(value, struct funclat_val);
	__uint(max_entries, 1); /* set at run time */
} bystack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct funclat_hist);
	__uint(max_entries, FUNCLAT_MAX_FNS);
} hist SEC(".maps");

static __always_inline int on_entry(void *ctx, __u32 slot)
{
	struct funclat_hist *h = bpf_map_lookup_elem(&hist, &slot);
	struct funclat_ikey ik = {};
	struct funclat_start st = {};
	char comm[FILTER_COMM_LEN];
	long id;

	if (!h)
		return 0;
	ik.pid_tgid = bpf_get_current_pid_tgid();
	ik.slot = slot;
	if (!filter_pass(ik.pid_tgid, comm, 0)) {
		h->filtered_out++;
		return 0;
	}
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0)
		h->stack_error++;
	st.stack_id = id < 0 ? FUNCLAT_NO_STACK : id;
	st.ts = bpf_ktime_get_ns();
	h->entered++;
	bpf_map_update_elem(&inflight, &ik, &st, BPF_ANY);
	return 0;
}

static __always_inline int on_return(__u32 slot)
{
	struct funclat_hist *h = bpf_map_lookup_elem(&hist, &slot);
	struct funclat_val zero = {}, *v;
	struct funclat_start *st;
	struct funclat_ikey ik = {};
	struct funclat_key k = {};
	__u64 d;

	if (!h)
		return 0;
	ik.pid_tgid = bpf_get_current_pid_tgid();
	ik.slot = slot;
	st = bpf_map_lookup_elem(&inflight, &ik);
	if (!st)
		return 0;
	d = bpf_ktime_get_ns() - st->ts;
	k.stack_id = st->stack_id;
	bpf_map_delete_elem(&inflight, &ik);
	k.slot = slot;
	k.tgid = ik.pid_tgid >> 32;
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	h->count++;
	h->total_ns += d;
	h->hist[filter_log2(d) & (FUNCLAT_BUCKETS - 1)]++;
	v = bpf_map_lookup_elem(&bystack, &k);
	if (!v) {
		bpf_map_update_elem(&bystack, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&bystack, &k);
		if (!v) {
			h->map_full++;
			return 0;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, d);
	return 0;
}

#define FL_SLOT(i) \
	SEC("fentry") int BPF_PROG(argus_fl_fentry_##i) { return on_entry(ctx, i); } \
	SEC("fexit") int BPF_PROG(argus_fl_fexit_##i) { return on_return(i); } \
	SEC("kprobe") int argus_fl_kprobe_##i(struct pt_regs *ctx) { return on_entry(ctx, i); } \
	SEC("kretprobe") int argus_fl_kretprobe_##i(struct pt_regs *ctx) { return on_return(i); }

FL_SLOT(0) FL_SLOT(1) FL_SLOT(2) FL_SLOT(3) FL_SLOT(4) FL_SLOT(5) FL_SLOT(6) FL_SLOT(7)
