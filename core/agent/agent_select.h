/* agent_select — the agent a person asked for (--agent heuristic|llm), with
 * the LLM wrapped so that callers never need a special case for its
 * failures.
 *
 * "llm" gives an agent whose turns go to the configured LLM (core/agent_llm)
 * and, when a turn fails — a reply still invalid after the repair turn, a
 * timeout, an HTTP error, a refused connection — are taken by the heuristic
 * agent, the reply saying so in its first line:
 *     llm: reply invalid twice (...); the heuristic agent took this turn
 * The agent pane and batch mode treat it like any other agent.  Without an
 * LLM configured, agent_select says so in one line (*note) and returns the
 * heuristic agent.
 *
 * Proposals of the LLM are validated against this kernel (step_validate
 * over caps), and only the kinds available here are offered to it.
 */
#ifndef ARGUS_AGENT_SELECT_H
#define ARGUS_AGENT_SELECT_H

#include "agent/agent.h"
#include "agent/agent_llm.h"

struct caps;   /* core/probe/caps.h */
struct redact; /* core/base/redact.h */

/* Accounting of one finished LLM turn (repairs included), for the
 * transcript and the session (session_write_llm_turn). */
struct agent_turn_info {
	const char *provider, *model;
	double latency_s;             /* HTTP time of the turn, retries included */
	unsigned long tokens_in, tokens_out;
	unsigned requests;            /* 1, or 2 with a repair turn */
	const char *status;           /* "ok", "repair" (ok after one), "fallback"
	                               * (the heuristic took the turn), "cancelled" */
	const char *error;            /* why, for repair/fallback; NULL otherwise
	                               * (never holds the key) */
	const char *note;             /* a warning about the prompt sent ("prompt
	                               * pruned to fit 8192 tokens: 412 of 1530
	                               * nodes sent"), or NULL */
};
typedef void (*agent_turn_cb)(const struct agent_turn_info *ti, void *arg);

struct agent_select_opts {
	const struct caps *caps;      /* validate against; NULL: caps_cached() */
	llm_delta_cb on_delta;        /* streamed reply text (agent pane); may be NULL */
	void *delta_arg;
	agent_turn_cb on_turn;        /* after each LLM turn; may be NULL */
	void *turn_arg;
	struct redact *redact;        /* non-NULL: --redact (not owned; must
	                               * outlive the agent) */
	const char *prompt_dir;       /* NULL: the prompt search path */
};

/* The agent called name ("heuristic", "llm"; NULL = "heuristic").  o may be
 * NULL.  *note (caller frees; may be NULL on return) is one line for
 * people when the choice changed ("no LLM configured (...); using the
 * heuristic agent").  Returns NULL with errno set and *note saying why when
 * the name is unknown (EINVAL) or the LLM is configured wrongly (a key file
 * readable by others, a prompt file missing).  Free with agent_free. */
struct agent *agent_select(const char *name, const struct agent_select_opts *o, char **note);

/* "heuristic" or "llm" (the wrapper), for messages and JSON. */
const char *agent_name(const struct agent *a);

/* The LLM's counters when a is the LLM agent (wrapper or bare): 0 with *out
 * filled; -ENOENT for the heuristic. */
int agent_llm_stats_of(const struct agent *a, struct agent_llm_stats *out);

/* One whole turn for batch mode: turn, then (HTTP agents) a poll loop until
 * the reply.  stop_fd (e.g. a signalfd; -1: none) becoming readable cancels
 * the turn: -EINTR.  Returns like ops->turn: 0 with *out filled, or -errno. */
int agent_turn_wait(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out,
		    int stop_fd);

#endif
