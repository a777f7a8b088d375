/* probe_profile — live CPU sampling of kernel stacks (bpf/profile.bpf.c).
 *
 * One software cpu-clock perf event per online CPU, each running the BPF
 * program that aggregates {stack id, tgid, comm} -> count in the kernel.
 * User space reads the maps (collect) and adds only what accrued since the
 * previous collect into a profile window: counts stay monotonic in the
 * kernel and nothing is deleted while the program runs.
 *
 * Everything is owned by fds of this process: close (or exit, or a crash)
 * leaves nothing loaded.
 */
#ifndef ARGUS_PROBE_PROFILE_H
#define ARGUS_PROBE_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "data/ksym.h"
#include "data/profile.h"
#include "probe/kind_ops.h"

/* Chosen from tests/bench/overhead.sh (see BENCH.md). */
#define PROBE_PROFILE_DEFAULT_HZ 999
#define PROBE_PROFILE_DEFAULT_STACKS 16384   /* stack map entries */
#define PROBE_PROFILE_DEFAULT_COUNTS 65536   /* {stack, tgid, comm} keys */
#define PROBE_PROFILE_DEFAULT_TGIDS 8192     /* filter set, forks included */

struct probe_profile_opts {
	unsigned freq_hz;          /* 0: PROBE_PROFILE_DEFAULT_HZ */
	const uint32_t *tgids;     /* filter: only these processes; NULL = all */
	size_t ntgids;             /* 0 with tgids NULL: no filter */
	int filter;                /* nonzero: filter even when ntgids is 0
	                            * (processes added later, add_tgid) */
	int follow_forks;          /* children of filtered processes join */
	unsigned stack_entries;    /* 0: default */
	unsigned count_entries;    /* 0: default */
	unsigned tgid_entries;     /* 0: default */
	int no_user_stacks;        /* nonzero: kernel stacks only (no call
	                            * sites, issue 27); 0: the user stack too */
	unsigned ustack_entries;   /* 0: default (stack_entries) */
};

/* What happened to the samples since open. */
struct probe_profile_stats {
	uint64_t samples;          /* the program ran (all CPUs) */
	uint64_t kernel;           /* counted: a kernel stack was recorded */
	uint64_t user_mode;        /* in user mode, no kernel stack */
	uint64_t filtered_out;     /* not a filtered process */
	uint64_t stack_collision;  /* lost: stack map bucket taken (-EEXIST) */
	uint64_t stack_error;      /* lost: other stack errors */
	uint64_t count_map_full;   /* lost: counts map full */
	uint64_t dropped;          /* the three above together */
	uint64_t forks_followed;   /* children added to the filter */
	uint64_t ustack_error;     /* counted without the user stack (not read) */
	uint64_t lost;             /* expected - seen: cpu-clock ticks that never
	                            * ran the program (halted vCPUs, CPUs we
	                            * could not attach to); an estimate */
	unsigned cpus;             /* CPUs sampled */
	unsigned cpus_failed;      /* online CPUs we could not attach to */
	unsigned freq_hz;
	size_t stacks;             /* distinct stack ids seen */
	double elapsed_s;          /* since attach */
	uint64_t bpf_run_ns;       /* time spent in the sampling program, all
	                            * CPUs (0 when run-time stats are off) */
	uint64_t bpf_run_cnt;      /* its runs while stats were on */
};

struct probe_profile;

/* Loads and attaches the sampler.  Returns NULL with errno set and *cause
 * (caller frees): EPERM (privileges / perf_event_paranoid), ENOENT (no BTF,
 * or no cpu-clock event), other errno when the kernel refuses. */
struct probe_profile *probe_profile_open(const struct probe_profile_opts *o, char **cause);

/* Adds a process to the filter (a no-op without a filter). 0 or -errno. */
int probe_profile_add_tgid(struct probe_profile *pp, uint32_t tgid);

/* Adds to window win of p the samples counted since the previous collect,
 * symbolizing each stack once with ks (NULL: addresses in hex), and each
 * user stack once with the sampler's own core/usym (mappings read at the
 * first collect that sees a process, forgotten once it has exited).  Returns the
 * number of samples added, or -errno. */
int64_t probe_profile_collect(struct probe_profile *pp, struct profile *p, unsigned win,
			      const struct ksym_table *ks);

/* What a sampler left running has forgotten: keys (stack, process, name)
 * whose counts stopped growing, and the stack ids only they used. */
struct probe_profile_prune {
	uint64_t keys;             /* counts-map keys deleted */
	uint64_t stacks;           /* kernel stack ids deleted (names dropped) */
	uint64_t ustacks;          /* user stack ids deleted */
};

/* Forgets the keys whose counts have not grown in the last idle_collects
 * collects (a process that exited, a path no longer taken): deleted from
 * the kernel's counts map with their snapshots, and the stack ids no other
 * key uses deleted from the stack maps, so that a sampler left running
 * (record --push) holds what is active, not every stack since it started,
 * and its maps never fill.  A key that runs again starts afresh (its
 * samples since the delete are counted).  Call right after a collect: a
 * sample counted between that collect and the delete is lost.  *out (may
 * be NULL) gets the totals so far.  0 or -ENOMEM. */
int probe_profile_prune(struct probe_profile *pp, unsigned idle_collects,
			struct probe_profile_prune *out);

/* Fills st from the kernel counters.  0 or -errno. */
int probe_profile_stats(struct probe_profile *pp, struct probe_profile_stats *st);

/* Detaches and frees everything; NULL-safe. */
void probe_profile_close(struct probe_profile *pp);

/* The sample kind (core/probe/kind.c's table). */
extern const struct kind_ops probe_profile_kind_ops;

#endif
