/* filter.bpf.h — the step filter (pid, tgid, comm, cgroup v2) on the
 * current task, shared by the step kinds' BPF programs (BPF side only).
 * User space sets the rodata between open and load; zero / off = any. */
#ifndef ARGUS_BPF_FILTER_H
#define ARGUS_BPF_FILTER_H

#define FILTER_COMM_LEN 16

const volatile __u32 filter_pid = 0;
const volatile __u32 filter_tgid = 0;
const volatile __u32 filter_comm_on = 0;
const volatile char filter_comm[FILTER_COMM_LEN] = {};
const volatile __u64 filter_cgroup = 0;

static __always_inline int filter_comm_matches(const char *comm)
{
#pragma unroll
	for (int i = 0; i < FILTER_COMM_LEN; i++) {
		if (comm[i] != filter_comm[i])
			return 0;
		if (!comm[i])
			break;
	}
	return 1;
}

/* 1 when the current task passes the filter.  comm (FILTER_COMM_LEN bytes)
 * receives the task's name when want_comm or a comm filter is set (reading
 * it costs; counting programs do not ask). */
static __always_inline int filter_pass(__u64 pid_tgid, char *comm, int want_comm)
{
	if ((filter_pid && (__u32)pid_tgid != filter_pid) ||
	    (filter_tgid && (pid_tgid >> 32) != filter_tgid) ||
	    (filter_cgroup && bpf_get_current_cgroup_id() != filter_cgroup))
		return 0;
	if (!want_comm && !filter_comm_on)
		return 1;
	bpf_get_current_comm(comm, FILTER_COMM_LEN);
	if (filter_comm_on && !filter_comm_matches(comm))
		return 0;
	return 1;
}

/* log2 bucket of v: bucket i holds [2^i, 2^(i+1)), bucket 0 holds 0..1. */
static __always_inline __u32 filter_log2(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xffffffffull) << 5; v >>= s; r |= s;
	s = (v > 0xffff) << 4; v >>= s; r |= s;
	s = (v > 0xff) << 3; v >>= s; r |= s;
	s = (v > 0xf) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r;
}

#endif
