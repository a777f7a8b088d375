/* kind_util — what the step kinds' probe files (core/probe_*.c) share: the
 * filter resolved for BPF (and set in a skeleton's rodata), user-side snapshots of monotonic map values (windows are
 * differences; nothing is deleted while BPF runs), a cache of symbolised
 * kernel stacks, and BPF run-time statistics.
 */
#ifndef ARGUS_KIND_UTIL_H
#define ARGUS_KIND_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>            /* KIND_FILTER_SET */

#include "base/util.h"              /* kind_set_cause */

struct bpf_link;
struct bpf_program;
struct ksym_table;
struct profile;
struct step_filter;

/* The step filter as BPF rodata wants it: cgroup as its v2 id. */
struct kind_filter {
	int pid, tgid;              /* 0 = any */
	char comm[16];              /* "" = any */
	uint64_t cgroup_id;         /* 0 = any */
	char cgroup_path[512];      /* absolute directory, "" = none */
	char cgroup_rel[512];       /* the same below the cgroup2 mount ("/a/b"), as
	                               /proc/PID/cgroup shows it */
};

/* Resolves f (NULL = no filter) into out: a cgroup path relative to the
 * cgroup2 mount is made absolute and its id (inode) taken.  0, or -errno
 * with *cause (caller frees). */
int kind_filter_resolve(const struct step_filter *f, struct kind_filter *out, char **cause);

/* Sets the step filter's rodata of bpf/filter.bpf.h (filter_pid, _tgid,
 * _cgroup, _comm_on, _comm) in ro, a skeleton's rodata between open and
 * load, from f (a const struct kind_filter *; NULL = none).  A macro: every
 * skeleton has its own rodata type and this file knows none. */
#define KIND_FILTER_SET(ro, f)                                                    \
	do {                                                                      \
		const struct kind_filter *kf_ = (f);                              \
		if (kf_) {                                                        \
			(ro)->filter_pid = kf_->pid;                              \
			(ro)->filter_tgid = kf_->tgid;                            \
			(ro)->filter_cgroup = kf_->cgroup_id;                     \
			if (kf_->comm[0]) {                                       \
				(ro)->filter_comm_on = 1;                         \
				memcpy((char *)(ro)->filter_comm, kf_->comm,      \
				       sizeof(kf_->comm));                        \
			}                                                         \
		}                                                                 \
	} while (0)

/* Resolves a cgroup path from a step (an LLM, a file, a person) to the
 * absolute directory it names: absolute under the cgroup2 mount, or taken
 * relative to the mount ("/a/b" as /proc/PID/cgroup shows it, or "a/b").
 * Its real path (symlinks and ".." resolved) must lie inside the mount and
 * be a cgroup (hold cgroup.procs), so "/etc", "../../../../etc" and
 * "../../../../proc/self" are refused.  out gets the real path.  0, or
 * -errno with *cause (caller frees; cause may be NULL). */
int kind_cgroup_resolve(const char *cg, char *out, size_t outsz, char **cause);

/* util_cause (core/base/util.h), by its old name: what has not moved to it yet
 * (core/probe/probe_schedtime.c, core/model/timeacct.c) still calls it so. */
#define kind_set_cause util_cause

/* Snapshot of monotonic values: fixed-size binary key -> nv uint64s,
 * inserted as zeros on first sight. */
struct kind_snap;
struct kind_snap *kind_snap_new(size_t key_size, unsigned nv); /* NULL, errno */
void kind_snap_free(struct kind_snap *s); /* NULL-safe */
/* The values of key (nv of them, zero when new); NULL on ENOMEM.  Valid
 * until the next kind_snap_get. */
uint64_t *kind_snap_get(struct kind_snap *s, const void *key);

/* Reads the kernel stack of id into ips (leaf first, at most max);
 * returns how many addresses, or -errno (-ENOENT: gone). */
typedef int (*kind_stack_read_cb)(void *arg, uint32_t id, uint64_t *ips, unsigned max);

/* Symbolised stacks by id, root first, with the BPF machinery's own leaf
 * frames (bpf_prog_*, bpf_trace_run*, __bpf_trace_*, trace_call_bpf,
 * perf_trace_run_bpf_submit) dropped.  Names are owned by the cache. */
struct kind_stacks;
struct kind_stacks *kind_stacks_new(kind_stack_read_cb read, void *arg); /* NULL, errno */
void kind_stacks_free(struct kind_stacks *c); /* NULL-safe */
/* Frames of stack id root first into *frames (valid while c lives);
 * returns how many (0 for an unreadable or empty stack), or -ENOMEM. */
int kind_stacks_get(struct kind_stacks *c, uint32_t id, const struct ksym_table *ks,
		    const char *const **frames);
/* Adds count to window w of p for stack id (frames from c and ks, root
 * first, at most 128) followed by the marker frame, for process tgid and
 * comm (comm_len bytes, NUL-terminated or not).  0 or -errno. */
int kind_stacks_add(struct kind_stacks *c, const struct ksym_table *ks, uint32_t id,
		    const char *marker, struct profile *p, unsigned w, uint32_t tgid,
		    const char *comm, size_t comm_len, uint64_t count);
/* The modules (file, build-id) the user frames usym named so far, copied
 * into p's module table (what a pprof's mappings carry, and a session
 * keeps): called after each batch of usym_stack calls, as the table may
 * start over.  0 or -ENOMEM. */
struct usym;
int kind_usym_modules(const struct usym *u, struct profile *p);
/* Nonzero for a frame name of the BPF machinery (dropped from stacks). */
int kind_frame_is_machinery(const char *name);

/* Counts the CPUs and loads a probe's programs: the tp_btf flavour, else
 * (refused) the raw_tp one; load(arg, raw) loads one flavour, 0 or -errno.
 * Returns the number of possible CPUs (> 0), or -errno with *cause
 * ("cannot load the NAME programs: ..."). */
int kind_load_flavour(const char *name, int (*load)(void *arg, int raw), void *arg, char **cause);

/* Turns on BPF run-time statistics while held: returns an fd (close it to
 * release) or -errno.  Absent statistics leave run times at 0. */
int kind_stats_enable(void);

/* Attaches progs[i] to the raw tracepoint of tps[i] ("category:name" or
 * "name", by name: no tracefs) for every i < n whose links[i] is NULL.  0,
 * or -errno with *cause naming the tracepoint (the links made stay set: the
 * caller destroys them). */
int kind_raw_tp_attach(struct bpf_link **links, struct bpf_program *const *progs,
		       char *const *tps, unsigned n, char **cause);
/* Destroys links[0..n) and sets them NULL: the programs stay loaded, their
 * maps kept, and cost nothing until attached again (a duty cycle). */
void kind_links_destroy(struct bpf_link **links, unsigned n);
/* Adds prog_fd's run time and run count (since load) to *ns and *cnt. */
void kind_prog_runtime(int prog_fd, uint64_t *ns, uint64_t *cnt);

/* Copies stack id from a BPF stack-trace map whose values are depth u64
 * addresses (leaf first, zero-padded; depth <= KIND_STACKMAP_MAX_DEPTH)
 * into ips, at most max.  Returns how many were copied, or -errno. */
#define KIND_STACKMAP_MAX_DEPTH 127
int kind_stackmap_copy(int map_fd, uint32_t id, unsigned depth, uint64_t *ips, unsigned max);

/* comm and a shortened command line of process tgid from /proc, as
 * "comm" or "comm: cmdline"; "" when the process is gone.  Returns buf. */
char *kind_proc_name(uint32_t tgid, char *buf, size_t len);

/* For each of n monotonic counters: out += cur - prev; prev = cur. */
void kind_delta_add(uint64_t *out, const uint64_t *cur, uint64_t *prev, unsigned n);

/* Sums entry key of a per-CPU array over ncpus CPUs into out, a struct of
 * size bytes made only of 64-bit counters (bpf/NAME.h): counter by counter.
 * out is zeroed first.  0 or -errno. */
int kind_percpu_sum(int map_fd, uint32_t key, int ncpus, void *out, size_t size);

/* Called per entry of a map walk with its key and value; nonzero stops. */
typedef int (*kind_map_cb)(void *arg, const void *key, const void *val);
/* Calls cb for every entry of the hash map map_fd (keys of key_size bytes,
 * values of val_size), skipping entries deleted meanwhile; returns what cb
 * returned when it stopped the walk, 0 at the end, or -ENOMEM. */
int kind_map_walk(int map_fd, size_t key_size, size_t val_size, kind_map_cb cb, void *arg);

#endif
