/* agent_llm — the agent interface (core/agent/agent.h) backed by an LLM over HTTP
 * (core/agent/llm.h).
 *
 * Each turn sends the system prompt (prompts/system.txt: role, method, the
 * catalog of kinds available here, the verdict format; the step schema is
 * not in it: it goes once, as the propose_step tool's parameters) and
 * one user message (prompts/turn.txt: the calibrated tree rendered compactly,
 * significant nodes first, pruned to a budget; earlier steps, decisions and
 * results; the vetoes with their reasons).  The reply — a propose_step tool
 * call, or strict JSON in the text — is parsed by step_parse_json and checked
 * by the validator the caller gives (step_validate against this kernel's
 * caps, typically).  A malformed or invalid reply gets one repair turn that
 * quotes the error; a second failure makes turn/poll return -EPROTO, and the
 * caller runs the heuristic agent for that turn (agent_llm_error says why).
 *
 * The LLM's words are data: a proposal is only ever a validated step, which
 * the person still accepts, edits or vetoes.
 *
 * Prompts are read at agent_llm_new from, file by file, the first of
 * $XDG_CONFIG_HOME/argus/prompts (~/.config/argus/prompts),
 * $ARGUS_DATADIR/prompts (else the install prefix's share/argus/prompts) and
 * ./prompts.
 */
#ifndef ARGUS_AGENT_LLM_H
#define ARGUS_AGENT_LLM_H

#include <stddef.h>

#include "agent/agent.h"
#include "agent/llm.h"
#include "data/step.h"

struct redact; /* core/base/redact.h */

/* Checks a parsed step against this kernel; 0 or -EINVAL with err filled. */
typedef int (*agent_llm_validate_cb)(struct step *s, void *arg, struct step_error *err);

struct agent_llm_opts {
	const char *prompt_dir;       /* look here only (tests); NULL: the search path */
	agent_llm_validate_cb validate; /* NULL: step_check_required only */
	void *validate_arg;
	unsigned kinds_mask;          /* bit (1 << kind) per kind offered; 0: all */
	const char *const *kind_reasons; /* optional, per kind: appended to its catalog line */
	size_t tree_budget;           /* at most this many bytes of rendered tree
	                               * (0: 6000, ~70 nodes; SIZE_MAX: all), less
	                               * when the prompt budget (the LLM config's
	                               * context_tokens) leaves less */
	llm_delta_cb on_delta;        /* streamed text for the agent pane; may be NULL */
	void *delta_arg;
	struct redact *redact;        /* non-NULL: names, command lines and paths in
	                               * what is sent replaced by placeholders
	                               * (core/base/redact.h); not owned */
};

/* Turn accounting, for the transcript and the session. */
struct agent_llm_stats {
	unsigned requests;            /* HTTP requests made (repairs included) */
	unsigned repairs;             /* repair turns sent */
	unsigned fallbacks;           /* turns given up (caller used the heuristic) */
	double latency_s;             /* sum over requests */
	double wait_s;                /* of which, waiting to retry */
	unsigned long tokens_in, tokens_out;
	/* the last finished turn */
	double last_latency_s;
	unsigned long last_tokens_in, last_tokens_out;
};

/* One competing explanation the LLM keeps (the "hypothesis ledger"), from
 * its reply lines "hypothesis: NAME: open|supported|refuted: EVIDENCE": the
 * generic struct agent_hyp (agent.h), under its earlier name. */
#define agent_llm_hyp agent_hyp

#define AGENT_LLM_MAX_HYP 8

/* The ledger, for the agent pane: *out points into the agent (valid until
 * the next turn); returns how many. */
unsigned agent_llm_hypotheses(const struct agent *a, const struct agent_llm_hyp **out);

/* The LLM agent.  cfg is copied (llm_config_load fills it); o may be NULL.
 * Returns NULL with errno set and *cause (caller frees) saying why — a prompt
 * file missing, say.  Free with agent_free. */
struct agent *agent_llm_new(const struct llm_config *cfg, const struct agent_llm_opts *o,
			    char **cause);

/* The HTTP client, for the poll loop (llm_pollfds, llm_timeout_ms,
 * llm_perform); owned by the agent. */
struct llm *agent_llm_client(struct agent *a);

/* Why the last turn failed (after turn/poll returned -errno), or "". Valid
 * until the next turn. */
const char *agent_llm_error(const struct agent *a);

/* A warning about the last turn's prompt ("prompt pruned to fit 8192
 * tokens: 412 of 1530 nodes sent"), or "".  Valid until the next turn. */
const char *agent_llm_note(const struct agent *a);

/* Counters so far. */
void agent_llm_stats(const struct agent *a, struct agent_llm_stats *out);

/* What agent_llm_render_tree_fit sent. */
struct agent_llm_tree_fit {
	size_t nodes;                 /* in the tree */
	size_t sent;                  /* rendered */
	size_t must;                  /* of which the path under study */
};

/* Renders the calibrated tree as prompt text, printed root first with two
 * spaces per level, in about budget bytes (SIZE_MAX: all of it).  Always
 * sent: the path under study (the root, focus and the nodes flagged on the
 * descent's path or by a proposal, with their ancestors), even past the
 * budget.  Then its siblings and the children of its ends, then the rest,
 * each ranked significant first, then by |delta|, a node only with its
 * ancestors, while the text fits: what is left out is the least
 * significant, smallest-delta subtrees, and a last line says how many
 * nodes that is ("… N of M nodes pruned").  fit (may be NULL) gets the
 * counts.  Returns a string the caller frees, or NULL with errno set. */
char *agent_llm_render_tree_fit(const struct tree *t, const struct tree_node *focus, size_t budget,
				struct agent_llm_tree_fit *fit);

/* agent_llm_render_tree_fit without the counts; budget 0 is 6000 bytes.
 * Exported for tests. */
char *agent_llm_render_tree(const struct tree *t, const struct tree_node *focus, size_t budget);

/* Replaces every {{NAME}} of tmpl with vals[i] where names[i] is NAME
 * (unknown names are left as they are).  Caller frees; NULL on ENOMEM. */
char *agent_llm_template(const char *tmpl, const char *const *names, const char *const *vals,
			 size_t n);

/* Finds the JSON object a text reply holds: a ```json fenced block, else the
 * whole text, else the outermost {...}.  Returns a copy (caller frees) or
 * NULL when there is none. */
char *agent_llm_extract_json(const char *text);

#endif
