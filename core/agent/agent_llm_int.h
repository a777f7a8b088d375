/* agent_llm_int.h — what the files of the LLM agent share (not an API):
 * the agent's state, the string helpers, and each file's entry points.
 *
 *   agent_llm.c         the turn machine (turn, poll, repair, tell) and the ops
 *   agent_llm_str.c     string vectors, a growing string buffer, reply lines
 *   agent_llm_prompt.c  prompt files, the template, the system and turn texts
 *   agent_llm_tree.c    the calibrated tree rendered for the prompt
 *   agent_llm_reply.c   a reply to a step or a verdict (parsing, validation)
 *   agent_llm_ledger.c  the hypothesis ledger
 */
#ifndef ARGUS_AGENT_LLM_INT_H
#define ARGUS_AGENT_LLM_INT_H

#include <stddef.h>

#include "agent/agent_llm.h"

#ifndef ARGUS_DATADIR
#define ARGUS_DATADIR "/usr/local/share/argus"
#endif

#define AL_DEFAULT_BUDGET  6000   /* agent_llm_render_tree's budget 0 */
#define AL_PRUNED_LINE     160    /* bytes kept for the "… N nodes pruned" line */
#define AL_MIN_TREE_TOKENS 256    /* the least context a tree must have left */
#define AL_HISTORY_MAX     60     /* lines of history kept in the prompt */
#define AL_REASON_LINES    12
#define AL_REASON_WIDTH    200

enum al_state {
	AL_IDLE,
	AL_TURN,      /* the first request of a turn is out */
	AL_REPAIR,    /* the repair request is out */
};

struct agent_llm {
	struct agent base;
	struct llm *llm;
	struct agent_llm_opts o;
	char *model;
	char *system;               /* the rendered system prompt */
	char *turn_tmpl;
	char *schema;               /* prompts/step.schema.json, the tool's parameters */
	enum al_state state;
	struct agent_ctx ctx;       /* of the turn in flight */
	char *turn_text;            /* the user message of the turn in flight */
	char *first_reply;          /* the reply a repair quotes */
	char *first_error;
	char **history;
	unsigned nhistory;
	char **vetoes;
	unsigned nvetoes;
	char *pending;              /* the last proposal, described */
	unsigned nsteps;
	unsigned turns;
	struct agent_hyp hyp[AGENT_LLM_MAX_HYP];
	unsigned nhyp;
	struct agent_llm_stats st;
	size_t prompt_budget;       /* tokens (llm_prompt_budget of the config) */
	unsigned context_tokens;    /* the config's, for messages */
	struct agent_llm_tree_fit fit; /* the tree of the turn in flight */
	int fit_ctx;                /* 1: the context pruned it (more would not fit) */
	char note[160];             /* agent_llm_note */
	char error[640];
};

/* ---- agent_llm_str.c ---- */

/* Appends s (taken; freed on failure) to the vector; -ENOMEM when s is NULL
 * or the vector cannot grow. */
int al_strv_push(char ***v, unsigned *n, char *s);
void al_strv_free(char **v, unsigned n);
/* v[from..n) one a line, or none and a newline when empty; caller frees. */
char *al_strv_join(char **v, unsigned n, unsigned from, const char *none);
/* asprintf that returns the string (caller frees) or NULL. */
char *al_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Adds s[0..len) (cut to AL_REASON_WIDTH, control characters blanked) to r's lines. */
int al_reply_line(struct agent_reply *r, const char *s, size_t len);

/* A growing string; oom sticks, al_sb_take then returns NULL. */
struct al_sbuf {
	char *p;
	size_t len, cap;
	int oom;
};

void al_sb_addf(struct al_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The text built (caller frees), "" when nothing was added, NULL on ENOMEM. */
char *al_sb_take(struct al_sbuf *b);

/* ---- agent_llm_prompt.c ---- */

/* The first of the search path that has file name (dir alone when set);
 * caller frees; NULL with *cause (caller frees) listing the places. */
char *al_prompt_load(const char *dir, const char *name, char **cause);
/* The catalog of the kinds o offers, one "- kind: help" a line; caller frees. */
char *al_prompt_catalog(const struct agent_llm_opts *o);
/* The user message of a turn (turn.txt filled in, redacted), its tree
 * pruned so that the request — the system prompt, the tool schema, this
 * message and then extra (a repair's messages; may be NULL) — fits
 * al->prompt_budget: al->fit says what was sent, al->fit_ctx whether the
 * context pruned it.  Caller frees.  NULL with errno E2BIG and al->error
 * when even the path under study does not fit; ENOMEM. */
char *al_prompt_turn_text(struct agent_llm *al, const struct agent_ctx *ctx,
			  const struct llm_msg *extra, size_t nextra);

/* ---- agent_llm_reply.c ---- */

/* Turns a reply into out; -EINVAL with err when it is not usable. */
int al_reply_interpret(struct agent_llm *al, const struct llm_result *res, struct agent_reply *out,
		       char *err, size_t errlen);
/* Registers what a step names about the user's processes, so that later
 * prompts (its description in the history) redact it. */
void al_reply_redact_step(struct agent_llm *al, const struct step *s);

/* ---- agent_llm_ledger.c ---- */

/* Updates the ledger from "hypothesis: NAME: STATUS: EVIDENCE" lines. */
void al_ledger_update(struct agent_llm *al, const char *text);
/* The ledger as prompt text; caller frees. */
char *al_ledger_text(const struct agent_llm *al);

#endif
