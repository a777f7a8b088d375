/* caps — shared between bpf/caps.bpf.c and core/probe/probe_caps.c: slots of the
 * hit counters the tiny test programs bump when they run. */
#ifndef ARGUS_BPF_CAPS_H
#define ARGUS_BPF_CAPS_H

#define CAPS_HIT_PERF         0
#define CAPS_HIT_RAW_TP       1
#define CAPS_HIT_TP_BTF       2
#define CAPS_HIT_FENTRY       3
#define CAPS_HIT_KPROBE       4
#define CAPS_HIT_KPROBE_MULTI 5
#define CAPS_HIT_N            6

#define CAPS_STACK_DEPTH 32

#endif
