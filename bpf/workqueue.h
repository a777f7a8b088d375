/* workqueue — structs shared by bpf/workqueue.bpf.c and core/probe/probe_workqueue.c.
 *
 * Which work function each kernel worker thread ran (the
 * workqueue_execute_start tracepoint), counted per {worker pid, function}:
 * what names a kworker by its role ("kworker running blk_mq_run_work_fn").
 * Fixed-width types only. */
#ifndef ARGUS_BPF_WORKQUEUE_H
#define ARGUS_BPF_WORKQUEUE_H

struct workqueue_key {
	__u32 pid;          /* the worker thread */
	__u32 pad;
	__u64 func;         /* work function address */
};

struct workqueue_val {
	__u64 count;        /* works run */
};

#endif
