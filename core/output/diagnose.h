/* diagnose — from a measured profile to a verdict, and the verdict as JSON.
 *
 * The batch pipeline of `argus diagnose` (and later the TUI's): tree_build,
 * calib_run, the heuristic descent, plus the naive answer a reference-less
 * profiler would give (the hottest kernel path of the loaded windows) for
 * comparison.  JSON is written here because tui/ never includes cJSON.
 */
#ifndef ARGUS_DIAGNOSE_H
#define ARGUS_DIAGNOSE_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/calib.h"
#include "data/profile.h"
#include "agent/agent.h"
#include "data/verdict.h"

struct step_scope;

struct diagnose_result {
	struct verdict verdict;
	char **decisions;          /* one line per descent decision; owned */
	unsigned ndecisions;
	/* naive: from the root, the child with the largest loaded total, down
	 * to a leaf (the idle subsystem skipped) */
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
	char summary[512];         /* the header's subsystems (calib_summary) of the
	                            * calibration, before steps */
	double thinking_s;         /* tree + calibration + descent / agent turns */
	double waiting_s;          /* waiting for the human (0 in batch) */
	double steps_s;            /* running steps (part of measuring, not thinking) */
	/* with an agent (diagnose_run_agent) */
	char agent[16];            /* "heuristic", "llm"; "" = the built-in descent */
	struct agent_hyp *hyp;     /* the agent's hypothesis ledger at the end; owned */
	unsigned nhyp;
	unsigned turns;            /* agent turns taken */
	int llm;                   /* the counters below are set */
	unsigned llm_requests, llm_repairs, llm_fallbacks;
	double llm_s;              /* HTTP time, retries included */
	unsigned long tokens_in, tokens_out;
};

/* Builds the calibrated tree of p and descends.  co may be NULL (defaults;
 * freq_hz taken from the argument).  Stacks of process exclude_tgid (argus
 * itself: reading the maps costs more when there is more to read, a delta
 * the measurement would cause) are left out; 0 keeps all.  Returns 0 or
 * -errno with *cause. */
int diagnose_run(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		 uint32_t exclude_tgid, struct diagnose_result *r, char **cause);

struct agent;

/* The same, the verdict coming from agent a (core/agent/agent_select.h) instead of
 * the built-in descent: turns until a verdict, where no step can run (argus
 * diff: recorded files).  The agent is given a budget of 0 steps and a
 * proposal is declined (told as a veto saying why) — after 3 proposals the
 * tree's own descent gives the verdict.  stop_fd (a signalfd, or -1) readable cancels:
 * -EINTR.  The reasoning lines of every turn go to r->decisions. */
int diagnose_run_agent(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		       uint32_t exclude_tgid, struct agent *a, int stop_fd,
		       struct diagnose_result *r, char **cause);

/* diagnose with instrumentation steps (`argus diagnose --auto`): after the
 * calibration, agent turns; each proposal is pre-flighted (validated,
 * attached briefly, its rate estimated), then — with auto_accept — run
 * against the same load (core/step_exec), merged into the tree
 * (core/step_merge), the tree re-calibrated and the agent told the result
 * (AGENT_EV_RESULT), until a verdict or max_steps.  Without auto_accept a
 * proposal is only recorded (decision "not run") and said on the log: a
 * step needs a person's accept or --auto.  The verdict's notes cite every
 * step's one-line result.  *steps_json (caller frees) is the "steps" array
 * text (core/step/step_json.h entries).  Returns 0, -EINTR when stop_fd fired
 * during a step (the step was detached), or -errno with *cause. */
struct caps;
struct step_exec_opts;
struct session;
struct diagnose_steps_opts {
	struct agent *agent;            /* not owned; NULL: a heuristic of its own */
	unsigned max_steps;
	int auto_accept;
	const struct step_exec_opts *exec; /* template: load, log, budget, pairs */
	const struct step_scope *scope; /* the run's processes steps are scoped
	                                 * to (core/step/step_scope.h); NULL: none */
	const struct caps *caps;        /* for validation; NULL: caps_cached() */
	int stop_fd;                    /* signalfd, or -1 */
	FILE *log;                      /* progress lines; NULL none */
	struct session *ses;            /* proposals, "auto" decisions, results and
	                                 * step windows written there; not owned; NULL */
	struct source *running;         /* the measurement whose loads the steps run
	                                 * against, ticked in the loop so it keeps
	                                 * reading their piped output (a load blocked
	                                 * on a full pipe would distort every step);
	                                 * not owned; NULL */
};

int diagnose_run_steps(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		       uint32_t exclude_tgid, const struct diagnose_steps_opts *o,
		       struct diagnose_result *r, char **steps_json, char **cause);

/* Writes a diagnosis to session s (core/measure/session.h, session_write_conclusion):
 * each decision as an "agent" transcript line, the naive answer as an
 * "argus" line, then the verdict (fsynced).  0 or -errno. */
int session_write_diagnosis(struct session *s, const struct diagnose_result *r);

/* Frees what r owns and zeroes it. */
void diagnose_result_clear(struct diagnose_result *r);

/* Facts of the run that go into the JSON besides the result. */
struct diagnose_run_info {
	double elapsed_s;          /* command start to verdict */
	double measuring_s;
	const char *load_cmd;      /* may be NULL */
	const char *load_state;    /* may be NULL */
	unsigned pairs, freq_hz;
	double window_s, settle_s;
	unsigned saved_ref_windows;
	/* whose samples each condition holds (measure_scopes); NULL: not said */
	const char *scope_ref, *scope_load;
	const char *steps_json;    /* the "steps" array as JSON text; NULL: [] */
	/* why measuring stopped (measure_stopping); "stopping" in the JSON
	 * when stop_reason is set */
	int sequential;            /* measured with sequential stopping */
	unsigned min_pairs;
	const char *stop_reason;
	unsigned stop_pairs;
	int stop_settled;
	const char *stop_windows;  /* how the windows adapted, or "" */
};

/* Writes the one-object JSON of `argus diagnose --json` (man/argus.1) and a
 * newline.  0 or -errno. */
int diagnose_write_json(const struct diagnose_result *r, const struct profile *p,
			const struct diagnose_run_info *info, FILE *out);

#endif
