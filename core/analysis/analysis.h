/* analysis — the one analysis of argus: from a measured profile and the
 * accepted steps' results to the calibrated tree and the verdict.
 *
 * analysis_run is the sequence every consumer used to write out itself:
 *   tree_build (grouping, argus's own process left out)
 *   -> step_merge_into_tree for every accepted step, in order
 *   -> calib_run (which calibrates the steps' nodes too: calib_annot_run)
 *      when the profile has windows of both conditions
 *   -> descent_run from the root (the verdict, its decision lines)
 *   -> the header's fields (calib_summary's subsystems, the processes the
 *      load displaced) and their joined text, and the naive answer
 *   -> tree_sort (optional: the views sort, the batch verdict does not).
 * A load that changed character while it was measured (a cold first pass,
 * then warm: the descent's steady check sets verdict.phase_from_win) is
 * judged again on its later windows alone (profile_windows): that analysis,
 * tree and all, is the result, its verdict saying what the earlier phase's
 * was (verdict.phase_earlier, a note).  The first windows of a load are its
 * start, not what it costs when it runs (issue 23 item 4); sequential
 * stopping sees the verdict move and measures on.
 * The TUI's rebuild, diagnose (batch, with an agent, with steps), export,
 * diff (through diagnose), the session recorder (source_session) and replay
 * call it; nothing else calls calib_run or descent_run (the agents' own
 * turns call the descent inside core/agent/agent_heuristic.c).
 *
 * Contract for repeated calls (the TUI after every refresh, diagnose after
 * every step, sequential stopping after every window pair): analysis_run
 * reads p and the steps and never changes them; it builds a new tree every
 * time (the cost is one tree_build + one calib_run + one descent, linear in
 * the profile's stacks; no state is kept between calls), and fills *out
 * without freeing what *out held — the caller keeps the previous result
 * until the new one replaces it (a view still pointing into the old tree),
 * then analysis_clear()s the old one.  Trees are rebuilt, not patched:
 * agents and views keep nodes by id (tree_find_id), never by pointer across
 * calls.
 */
#ifndef ARGUS_ANALYSIS_H
#define ARGUS_ANALYSIS_H

#include <stdint.h>

#include "analysis/calib.h"
#include "data/profile.h"
#include "data/step.h"
#include "data/tree.h"
#include "data/verdict.h"

struct step_data;

/* One accepted step's results, merged into the tree as step idx. */
struct analysis_step {
	const struct step *step;       /* as run (edited or the agent's); not owned */
	const struct step_data *data;  /* its measurements; not owned */
	unsigned idx;                  /* step index in the session (0-based) */
	int err;                       /* out: 0, or step_merge_into_tree's -errno */
};

struct analysis_opts {
	enum tree_group group;         /* TREE_BY_SUBSYS (0) by default */
	uint32_t exclude_tgid;         /* stacks of this process left out; 0: none */
	const struct calib_opts *calib; /* NULL: calib_opts_default */
	double freq_hz;                /* used when calib->freq_hz is 0 */
	double explain;                /* the descent's share; <= 0: 0.5 */
	int utf8;                      /* the summary's separator */
	int sort;                      /* sort the tree: by |delta| when
	                                * calibrated, by total when not */
	int whole;                     /* judge every window even when the load
	                                * changed character while measured (no
	                                * later phase: see analysis_run) */
};

/* A process the load displaced, as the header says it: the verdict's
 * displaced branch (reported, not diagnosed: verdict.displaced). */
struct analysis_displaced {
	char process[48];              /* "comm [tgid]"; control bytes as '?' (a comm
	                                * comes from the kernel) */
	double fall;                   /* what it lost, events/s (verdict_branch.mass,
	                                * positive) */
};

struct analysis {
	struct tree *t;                /* owned; NULL only when analysis_run failed */
	int calibrated;                /* calib_run done */
	int calib_err;                 /* why not: -EINVAL (no reference or no
	                                * loaded window), or calib_run's -errno */
	int descended;                 /* verdict and lines are the descent's */
	int descent_err;               /* descent_run's -errno when it failed */
	struct verdict verdict;        /* owned */
	char **lines;                  /* one per descent decision; owned */
	unsigned nlines;
	/* The header line as fields, for a layout that gives way by parts (the
	 * TUI's: subsystems first, the displaced processes last); all empty
	 * when not calibrated.  A replay derives them from the session's
	 * windows like the rest (sessions do not store them). */
	char subsystems[512];          /* calib_summary: "mm +41% · sched -3% · ..." */
	struct analysis_displaced displaced[VERDICT_MAX_FALLS];
	unsigned ndisplaced;           /* verdict.ndisplaced, in its order */
	/* the same joined for a text line (diagnose's "header"): subsystems,
	 * " · " (utf8) or " | ", analysis_displaced_text; whole entries only */
	char summary[512];
	/* naive: from the root, the child with the largest loaded total, down
	 * to a leaf (the idle subsystem skipped) — what a reference-less
	 * profiler would say; computed before sorting */
	char naive_subsystem[16];
	char *naive_path[VERDICT_MAX_PATH]; /* owned */
	unsigned nnaive;
	/* naive_diff: a simple per-stack differ — each exact stack's positive
	 * part of loaded - reference rate, summed up the tree, and from the
	 * root the heaviest child down to where a node's own increase
	 * outweighs every child's (idle skipped).  What argus's significance
	 * machinery must not be worse than (issue 11). */
	char naive_diff_subsystem[16];
	char *naive_diff_path[VERDICT_MAX_PATH]; /* owned */
	unsigned nnaive_diff;
};

/* Runs the analysis of p with steps[0..nsteps) (steps may be NULL when
 * nsteps is 0; each step's err is set) under o (NULL: defaults) into *out
 * (overwritten, not freed).  A profile that cannot be calibrated is not an
 * error (calibrated 0, calib_err says why), nor is a failed descent
 * (descended 0, descent_err) or a step that cannot be merged (its err).
 * Returns 0, or -errno with *cause (caller frees) when the tree cannot be
 * built or memory runs out; *out is then cleared. */
int analysis_run(const struct profile *p, struct analysis_step *steps, unsigned nsteps,
		 const struct analysis_opts *o, struct analysis *out, char **cause);

/* Frees what a owns and zeroes it; NULL-safe. */
void analysis_clear(struct analysis *a);

/* Moves the verdict and the decision lines out of a (the caller owns them
 * then; a keeps neither). */
void analysis_take_verdict(struct analysis *a, struct verdict *v, char ***lines,
			   unsigned *nlines);

/* "displaced: bgjob [200] −812/s, make [100] −3/s" for d[0..n) into buf
 * (len bytes; utf8: the minus sign U+2212, else '-'); whole entries only,
 * "" when n is 0 or the first does not fit.  Returns buf. */
char *analysis_displaced_text(const struct analysis_displaced *d, unsigned n, int utf8,
			      char *buf, size_t len);

/* "cannot calibrate: no reference or no loaded window was measured" style
 * reason for a's calib_err into buf; returns buf. */
char *analysis_calib_reason(const struct analysis *a, char *buf, size_t len);

#endif
