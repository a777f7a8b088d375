/* irqctx.bpf.h — the per-CPU interrupt context, for the BPF programs that
 * name a wakeup's waker (offcpu, schedtime): which irq handler, softirq
 * vector and hrtimer expiries the current CPU is in, kept by the
 * irq_handler, softirq and hrtimer_expire tracepoints.  Written once here;
 * each program keeps its own value struct (NAME_cpuctx in NAME.h, whose
 * fields irq, softirq and hrtimer are what this header keeps) and its own
 * program names, which its probe attaches by.  How a context is read (which
 * counts as a hardirq) stays with each program: they differ on purpose.
 * Included after vmlinux.h, bpf_helpers.h and bpf_tracing.h. */
#ifndef ARGUS_BPF_IRQCTX_BPF_H
#define ARGUS_BPF_IRQCTX_BPF_H

/* The one-entry per-CPU map `cpuctx` of T, and cur_ctx(): this CPU's entry
 * (NULL only if the lookup fails; callers check). */
#define IRQCTX_MAP(T)                                                          \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__type(key, __u32);                                            \
		__type(value, T);                                              \
		__uint(max_entries, 1);                                        \
	} cpuctx SEC(".maps");                                                 \
	static __always_inline T *cur_ctx(void)                                \
	{                                                                      \
		__u32 zero = 0;                                                \
                                                                               \
		return bpf_map_lookup_elem(&cpuctx, &zero);                    \
	}

/* One program on tracepoint tp in both flavours: tp_btf (name) and raw_tp
 * (name_raw), the fallback where tp_btf cannot attach. */
#define IRQCTX_PROG(tp, name, args, body)                                      \
	SEC("tp_btf/" #tp) int BPF_PROG(name, args) { body; return 0; }      \
	SEC("raw_tp/" #tp) int BPF_PROG(name##_raw, args) { body; return 0; }

/* The six programs that keep the context in cpuctx (of T), named
 * PFX_irq_entry, PFX_irq_exit, PFX_softirq_entry, PFX_softirq_exit,
 * PFX_hrtimer_entry, PFX_hrtimer_exit and their _raw twins.  The statement
 * on_softirq runs, with x the context, at every softirq entry and exit:
 * what a program keeps per softirq is forgotten there.  irq and softirq
 * hold the number + 1 (0: none); hrtimer counts expiries in progress. */
#define IRQCTX_PROGS(PFX, T, on_softirq)                                       \
	IRQCTX_PROG(irq_handler_entry, PFX##_irq_entry, int irq,               \
		    { T *x = cur_ctx(); if (x) x->irq = irq + 1; })            \
	IRQCTX_PROG(irq_handler_exit, PFX##_irq_exit, int irq,                 \
		    { T *x = cur_ctx(); if (x) x->irq = 0; })                  \
	IRQCTX_PROG(softirq_entry, PFX##_softirq_entry, unsigned int vec,      \
		    { T *x = cur_ctx(); if (x) { x->softirq = vec + 1; on_softirq; } }) \
	IRQCTX_PROG(softirq_exit, PFX##_softirq_exit, unsigned int vec,        \
		    { T *x = cur_ctx(); if (x) { x->softirq = 0; on_softirq; } }) \
	IRQCTX_PROG(hrtimer_expire_entry, PFX##_hrtimer_entry, void *timer,    \
		    { T *x = cur_ctx(); if (x) x->hrtimer++; })                \
	IRQCTX_PROG(hrtimer_expire_exit, PFX##_hrtimer_exit, void *timer,      \
		    { T *x = cur_ctx(); if (x && x->hrtimer) x->hrtimer--; })

#endif
