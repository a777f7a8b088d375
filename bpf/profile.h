/* profile — structs shared by bpf/profile.bpf.c and core/probe/probe_profile.c.
 *
 * CPU sampling (perf_event cpu-clock) with kernel stacks aggregated in the
 * kernel: a stack map (stack id -> addresses, leaf first) and a hash of
 * {stack id, tgid, comm} -> sample count.  Fixed-width types only.
 */
#ifndef ARGUS_BPF_PROFILE_H
#define ARGUS_BPF_PROFILE_H

#define PROFILE_COMM_LEN 16
#define PROFILE_MAX_DEPTH 127   /* kernel.perf_event_max_stack default */
#define PROFILE_NO_USTACK 0xffffffffu /* user stacks off, a kernel thread,
                                       * or the user stack could not be read */

/* Key of the counts map; value is a __u64 sample count (monotonic). */
struct profile_key {
	__u32 stack_id;
	__u32 ustack_id;        /* user stack (PROFILE_NO_USTACK: none taken) */
	__u32 tgid;
	char comm[PROFILE_COMM_LEN];
};

/* One per CPU (per-CPU array, one entry): what happened to each sample. */
struct profile_counters {
	__u64 samples;          /* every time the program ran */
	__u64 user_mode;        /* sample landed in user mode: no kernel stack */
	__u64 filtered_out;     /* task not in the process filter */
	__u64 stack_collision;  /* stack map bucket held another stack (-EEXIST) */
	__u64 stack_error;      /* bpf_get_stackid failed otherwise */
	__u64 count_map_full;   /* counts map had no room for a new key */
	__u64 forks_followed;   /* child processes added to the filter */
	__u64 filter_full;      /* filter map had no room for a child */
	__u64 ustack_error;     /* user stack wanted but not read (not a
	                         * kernel thread's: those have none) */
};

#endif
