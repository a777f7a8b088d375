/* session_step — a step's proposal, decision and outcome written to a
 * session (core/measure/session.h) from the step types: the agent pane and
 * `argus diagnose --auto` record their steps through these, so both files
 * say the same things the same way.
 *
 * Steps are numbered from 1 in the session (0 is the calibration sampling).
 * Every function is a no-op returning 0 when s is NULL (--no-session).
 */
#ifndef ARGUS_SESSION_STEP_H
#define ARGUS_SESSION_STEP_H

#include <stdint.h>

#include "measure/session.h"
#include "data/step.h"

struct step_data;        /* core/probe/kind.h */
struct step_exec_info;   /* core/step/step_exec.h */

/* The agent's proposal st for step (1-based), its reasoning and the node
 * concerned (NULL: none).  0 or -errno. */
int session_step_proposal(struct session *s, unsigned step, const char *agent,
			  const struct step *st, char *const *lines, unsigned nlines,
			  const char *focus);

/* A decision on step: original the agent's spec, edited the person's (NULL
 * unless SESSION_EDIT); by "human" or "auto"; reason may be NULL. */
int session_step_decision(struct session *s, unsigned step, enum session_decision d,
			  const char *by, const char *reason, const struct step *original,
			  const struct step *edited);

/* The outcome of step st: a step_result (status from info: "ok", "detached"
 * over budget, "stopped", "error"; "error" when d is NULL; the step_json
 * report as "result") and then every window of d's profile as the step's
 * windows, without the stacks of exclude_tgid (0: all).  info and summary
 * may be NULL (summary NULL: step_summary).  0 or the first -errno. */
int session_step_result(struct session *s, unsigned step, const struct step *st,
			const struct step_data *d, const struct step_exec_info *info,
			const char *summary, uint32_t exclude_tgid);

struct step_data;

/* For replay: step's spec (the edited one when the person edited it) and
 * its measurements as recorded among the first nev events of l, rebuilt
 * for step_merge_into_tree.  Events per target per window are summed from
 * the stacks' "[tp] target" markers (exact for tracepoint_stacks, whose
 * counts are scaled to the firings); latency histograms are not in the file,
 * so latency annotations have rates only.  Returns 0 with *s_out and *d_out
 * set (caller frees both), -ENOENT when step has no result yet, or -errno. */
int session_log_step_data(const struct session_log *l, size_t nev, unsigned step,
			  struct step **s_out, struct step_data **d_out);

#endif
