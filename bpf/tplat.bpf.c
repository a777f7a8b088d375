// SPDX-License-Identifier: GPL-2.0
/* tplat — latency between a begin and an end raw tracepoint.
 *
 * argus_tplat_begin and argus_tplat_end are attached by name to the two
 * tracepoints (no tracefs).  Neither reads the tracepoint's arguments except
 * in TPLAT_KEY_ARG0 mode (the first argument, e.g. the struct request * of
 * block_rq_issue / block_rq_complete) and for the optional syscall number
 * filter on raw_syscalls:sys_enter (its second argument).  The in-flight map
 * is an LRU hash: a begin whose end never comes (a thread that exits in a
 * syscall) ages out instead of filling it.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "tplat.h"
#include "filter.bpf.h"

char LICENSE[] SEC("license") = "GPL";

const volatile __u32 key_mode = TPLAT_KEY_THREAD;
const volatile __s64 filter_nr = -1;   /* >= 0: begin's args[1] must equal it */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__type(key, __u64);
	__type(value, struct tplat_start);
	__uint(max_entries, 1); /* set at run time */
} inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, TPLAT_MAX_DEPTH * sizeof(__u64));
	__uint(max_entries, 1); /* set at run time */
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct tplat_key);
	__type(value, struct tplat_stack_val);
	__uint(max_entries, 1); /* set at run time */
} bystack SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__type(key, __u32);
	__type(value, struct tplat_hist);
	__uint(max_entries, 1);
} hist SEC(".maps");

static __always_inline struct tplat_hist *hist_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&hist, &zero);
}

SEC("raw_tp")
int argus_tplat_begin(struct bpf_raw_tracepoint_args *ctx)
{
	struct tplat_hist *h = hist_get();
	struct tplat_start st = {};
	__u64 pid_tgid = bpf_get_current_pid_tgid(), key;
	long id;

	if (!h)
		return 0;
	if (filter_nr >= 0 && (__s64)ctx->args[1] != filter_nr)
		return 0;
	if (!filter_pass(pid_tgid, st.comm, 1)) {
		h->filtered_out++;
		return 0;
	}
	key = key_mode == TPLAT_KEY_ARG0 ? ctx->args[0] : pid_tgid;
	st.ts = bpf_ktime_get_ns();
	st.tgid = pid_tgid >> 32;
	id = bpf_get_stackid(ctx, &stacks, 0);
	if (id < 0) {
		h->stack_error++;
		st.stack_id = TPLAT_NO_STACK;
	} else {
		st.stack_id = id;
	}
	h->begun++;
	bpf_map_update_elem(&inflight, &key, &st, BPF_ANY);
	return 0;
}

SEC("raw_tp")
int argus_tplat_end(struct bpf_raw_tracepoint_args *ctx)
{
	struct tplat_hist *h = hist_get();
	struct tplat_stack_val zero = {}, *v;
	struct tplat_start *st;
	struct tplat_key k = {};
	__u64 key, d;
	__u32 b;

	if (!h)
		return 0;
	key = key_mode == TPLAT_KEY_ARG0 ? ctx->args[0] : bpf_get_current_pid_tgid();
	st = bpf_map_lookup_elem(&inflight, &key);
	if (!st) {
		h->unmatched++;
		return 0;
	}
	d = bpf_ktime_get_ns() - st->ts;
	k.stack_id = st->stack_id;
	k.tgid = st->tgid;
	__builtin_memcpy(k.comm, st->comm, TPLAT_COMM_LEN);
	bpf_map_delete_elem(&inflight, &key);
	b = filter_log2(d);
	if (b >= TPLAT_BUCKETS)
		b = TPLAT_BUCKETS - 1;
	h->count++;
	h->total_ns += d;
	h->hist[b]++;
	v = bpf_map_lookup_elem(&bystack, &k);
	if (!v) {
		bpf_map_update_elem(&bystack, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&bystack, &k);
		if (!v) {
			h->stack_map_full++;
			return 0;
		}
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->total_ns, d);
	return 0;
}
