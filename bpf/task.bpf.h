/* task.bpf.h — a task's scheduler state across kernels, for the BPF
 * programs that watch sched_switch (offcpu, schedtime).  Included after
 * vmlinux.h and bpf_core_read.h.  Kernels before 5.14 name the field
 * `state` (a long); later ones `__state` (an unsigned int). */
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

#endif
