/* probe_workqueue — which work function each kernel worker ran
 * (bpf/workqueue.bpf.c), to name kworkers by role.  Owned by this
 * process's fds: close (or exit) leaves nothing loaded. */
#ifndef ARGUS_PROBE_WORKQUEUE_H
#define ARGUS_PROBE_WORKQUEUE_H

#include <stddef.h>
#include <stdint.h>

struct ksym_table;
struct probe_workqueue;
struct profile;

/* Loads and attaches (tp_btf, else raw_tp); max_keys 0: 4096.  NULL with
 * errno and *cause (caller frees). */
struct probe_workqueue *probe_workqueue_open(unsigned max_keys, char **cause);
void probe_workqueue_close(struct probe_workqueue *pw); /* NULL-safe */

/* The work function worker pid ran most often so far, symbolised with ks,
 * written into buf ("" when it ran none).  Returns buf. */
char *probe_workqueue_top(struct probe_workqueue *pw, const struct ksym_table *ks,
			  uint32_t pid, char *buf, size_t len);

/* Adds the work items run since the previous collect (the first: since
 * the open) to window win of p, per worker and function, named with ks
 * (profile_work_add: win is marked traced even when none ran).  Returns
 * how many executions, or -errno. */
int64_t probe_workqueue_collect(struct probe_workqueue *pw, const struct ksym_table *ks,
				struct profile *p, unsigned win);

/* The program's run time (ns) and runs since it was loaded, from the BPF
 * run-time statistics (both 0 while they are off). */
void probe_workqueue_runtime(struct probe_workqueue *pw, uint64_t *ns, uint64_t *cnt);

#endif
