/* kind_ops — the interface every step kind's probe implements, for the
 * executor.
 *
 * The executor (core/step/step_exec.c) runs a validated step in alternating
 * reference/loaded windows.  It does not know how a kind measures: it opens
 * the kind's probe once, and at every window boundary asks it to collect
 * what accrued since the previous collect into a struct step_data window
 * (core/data/step_data.h says what each kind puts there).  Probes never
 * delete from their maps while BPF runs: they keep user-side snapshots and
 * report differences.
 *
 * Files: core/probe/probe_NAME.c (the only file that includes NAME.skel.h)
 * loads and reads bpf/NAME.bpf.c and provides the ops of its kind, declared
 * in its probe_NAME.h (most over core/probe/kind_run.c's shared
 * open/pass/stats); core/probe/kind.c, the table of kinds, finds them.
 * This header knows no kind: the kinds include it, and the table includes
 * the kinds.
 */
#ifndef ARGUS_KIND_OPS_H
#define ARGUS_KIND_OPS_H

#include <stdint.h>

#include "data/step.h"
#include "data/step_data.h"

struct ksym_table;

struct kind_stats {
	uint64_t events;            /* since open */
	uint64_t lost;              /* since open */
	uint64_t run_ns;            /* BPF run time of its programs (bpf_stats) */
	uint64_t run_cnt;
	unsigned progs;             /* programs attached */
};

struct kind_probe;

struct kind_ops {
	enum step_kind kind;
	/* Loads and attaches the kind's programs for validated step s (its
	 * resolved targets and filter).  Returns 0 with *out set, or -errno
	 * with *cause (caller frees) saying what failed and what to do. */
	int (*open)(const struct step *s, struct kind_probe **out, char **cause);
	/* Adds what accrued since the last collect (or open) into window w of
	 * d.  ks symbolises kernel stacks.  0 or -errno. */
	int (*collect)(struct kind_probe *kp, struct step_data *d, unsigned w,
		       const struct ksym_table *ks);
	/* Drops what accrued since the last collect (settle time). */
	int (*discard)(struct kind_probe *kp);
	void (*stats)(struct kind_probe *kp, struct kind_stats *st);
	/* Detaches and unloads; NULL-safe. */
	void (*close)(struct kind_probe *kp);
	/* Optional (NULL when the kind cannot): detach the programs, keeping
	 * maps and snapshots, and attach them again.  What a duty cycle needs
	 * to hold a step whose events fire faster than its budget allows to
	 * that budget (step_exec.h).  0 or -errno. */
	int (*pause)(struct kind_probe *kp);
	int (*resume)(struct kind_probe *kp);
};

#endif
