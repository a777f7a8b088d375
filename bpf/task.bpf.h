/* task.bpf.h — a task's scheduler state across kernels, for the BPF
 * programs that watch sched_switch (offcpu, schedtime), and the current
 * task's user stack, for those that take one beside the kernel stack
 * (profile, tpstacks, offcpu).  Included after vmlinux.h, bpf_helpers.h and
 * bpf_core_read.h.  Kernels before 5.14 name the field `state` (a long);
 * later ones `__state` (an unsigned int). */
#ifndef ARGUS_BPF_TASK_BPF_H
#define ARGUS_BPF_TASK_BPF_H

struct task_struct___old {
	long state;
} __attribute__((preserve_access_index));

static __always_inline long task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ((struct task_struct___old *)t, state);
}

/* The same through a BTF pointer (bpf_get_current_task_btf, a tp_btf
 * argument): plain loads, no probe read. */
static __always_inline long task_state_btf(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return ((struct task_struct___old *)t)->state;
}

#define TASK_PF_KTHREAD 0x00200000

/* The user stack id of t, the current task, in the stack map `map`, or -1:
 * a kernel thread has none (not an error); a failed walk adds one to
 * *errors, and the caller keeps what it counts with its kernel stack alone. */
static __always_inline long task_user_stack(void *ctx, struct task_struct *t, void *map,
					    __u64 *errors)
{
	long id;

	if (BPF_CORE_READ(t, flags) & TASK_PF_KTHREAD)
		return -1;
	id = bpf_get_stackid(ctx, map, BPF_F_USER_STACK);
	if (id < 0) {
		(*errors)++;
		return -1;
	}
	return id;
}

#endif
