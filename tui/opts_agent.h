/* opts_agent — the agent options shared by the interactive argus,
 * `argus diagnose` and `argus diff` (one table: parsing, --help and the man
 * page's AGENT OPTIONS come from it):
 *
 *   --agent heuristic|llm   which agent proposes steps and verdicts
 *   --redact                process names, command lines and paths sent to
 *                           the LLM replaced by placeholders (proc-1, ...)
 *
 * Usage, beside opts_load in a command's option loop:
 *
 *	struct opts_agent oa;
 *	opts_agent_init(&oa);
 *	... if (h.group == &opts_agent_group) opts_agent_apply(&oa, &h, stderr); (tui/opt.h)
 *	a = opts_agent_new(&oa, load_cmd, NULL, NULL, stderr);  // prints the note
 *	oa.ses = ses;                  // LLM turns recorded there from now on
 *	... agent_free(a); opts_agent_free(&oa);
 */
#ifndef ARGUS_OPTS_AGENT_H
#define ARGUS_OPTS_AGENT_H

#include <stdio.h>

#include "agent/agent_select.h"
#include "opt.h"

struct session;
struct redact;

struct opts_agent {
	const char *agent;        /* "heuristic", "llm"; NULL: not given */
	int redact;               /* --redact */
	struct session *ses;      /* when set: each LLM turn is written there */
	FILE *log;                /* when set: one line per LLM turn (stderr in batch;
	                           * never while curses is up) */
	char *note;               /* opts_agent_new's note for people ("no LLM
	                           * configured ..."), or NULL; owned */
	/* private */
	struct redact *red;       /* owned; outlives the agent */
};

void opts_agent_init(struct opts_agent *oa);

/* --agent NAME, --redact (tui/opt.h). */
extern const struct opt_group opts_agent_group;

/* An agent option opt_next read into oa: 0, or -1 after a message on err. */
int opts_agent_apply(struct opts_agent *oa, const struct opt_hit *h, FILE *err);

/* The agent oa asks for (the heuristic when --agent was not given).
 * load_cmd (may be NULL) is registered for --redact; on_delta streams the
 * LLM's reply (may be NULL).  A note ("no LLM configured ...", or why the
 * LLM cannot be used) is kept in oa->note and, when err is not NULL,
 * printed there as "argus: NOTE" (the TUI passes NULL and shows oa->note).
 * NULL when the LLM is configured wrongly or prompts are missing. */
struct agent *opts_agent_new(struct opts_agent *oa, const char *load_cmd, llm_delta_cb on_delta,
			     void *delta_arg, FILE *err);

/* Frees what oa owns (after the agent is freed). */
void opts_agent_free(struct opts_agent *oa);

#endif
