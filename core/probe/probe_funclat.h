/* probe_funclat — latency of kernel functions (bpf/funclat.bpf.c):
 * fentry/fexit where the kernel allows it, else kprobe/kretprobe; count,
 * log2 histogram, total and entry stacks per function.
 *
 * Where neither works (the development machines refuse fentry with EPERM
 * and have no kprobe PMU) open fails with both reasons and leaves nothing
 * loaded.  Values are cumulative from open.
 */
#ifndef ARGUS_PROBE_FUNCLAT_H
#define ARGUS_PROBE_FUNCLAT_H

#include <stdint.h>

#include <linux/types.h>
#include "../../bpf/funclat.h"
#include "probe/kind_util.h"

struct probe_funclat;

/* Loads and attaches to nfns functions (1..FUNCLAT_MAX_FNS).  NULL with
 * errno set (the fentry error when neither mechanism works: EPERM here)
 * and *cause naming both refusals. */
struct probe_funclat *probe_funclat_open(const char *const *fns, unsigned nfns,
					 unsigned max_stacks, const struct kind_filter *f,
					 char **cause);
void probe_funclat_close(struct probe_funclat *pf); /* NULL-safe */

/* "fentry" or "kprobe". */
const char *probe_funclat_mechanism(const struct probe_funclat *pf);
/* Histogram of function slot, summed over CPUs.  0 or -errno. */
int probe_funclat_hist(struct probe_funclat *pf, unsigned slot, struct funclat_hist *out);
/* cb gets a struct funclat_key and a struct funclat_val (kind_map_walk). */
int probe_funclat_read(struct probe_funclat *pf, kind_map_cb cb, void *arg);
int probe_funclat_stack(void *pf, uint32_t id, uint64_t *ips, unsigned max);
void probe_funclat_runtime(struct probe_funclat *pf, uint64_t *ns, uint64_t *cnt);

/* The BPF object's programs without loading anything: one line per
 * program, "name section-type attach-type\n".  Caller frees; NULL with
 * errno set.  For tests of the program construction. */
char *probe_funclat_programs(void);

#endif
