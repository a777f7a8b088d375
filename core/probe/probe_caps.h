/* probe_caps — the attach mechanisms this kernel allows, learnt by loading
 * and attaching the tiny programs of bpf/caps.bpf.c one at a time.  It knows
 * nothing of struct caps: core/probe/caps.c calls it and derives the kinds from
 * the results. */
#ifndef ARGUS_PROBE_CAPS_H
#define ARGUS_PROBE_CAPS_H

/* Attach mechanisms that caps_probe tries. */
enum caps_mech {
	CAPS_PERF_CPU_CLOCK = 0,    /* perf_event software cpu-clock + BPF, stacks */
	CAPS_RAW_TP,                /* raw_tp on sched_switch */
	CAPS_TP_BTF,                /* tp_btf on sched_switch */
	CAPS_FENTRY,                /* fentry on vfs_read */
	CAPS_KPROBE,                /* kprobe through the perf kprobe PMU */
	CAPS_KPROBE_MULTI,          /* kprobe.multi link */
	CAPS_MECH_N
};

struct caps_mech_result {
	int probed;                 /* 0: not tried (see detail) */
	int err;                    /* 0 works, else -errno of the failing call */
	char detail[160];           /* "attach: EPERM", "kprobe PMU absent", ... */
};

/* Tries every mechanism, filling mech[0..CAPS_MECH_N) (probed, err,
 * detail); is_root only words the details.  Everything is detached and
 * unloaded before it returns. */
void probe_caps_mechanisms(struct caps_mech_result *mech, int is_root);

#endif
