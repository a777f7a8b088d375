/* agent — the policy that reads the calibrated tree and says what next.
 *
 * Two implementations sit behind one interface: the built-in heuristic
 * (core/agent/agent_heuristic.c, tree-guided descent) and, later, an LLM over HTTP
 * (core/agent/agent_llm.c).  Callers (batch diagnose, the TUI's agent pane) never
 * know which one they talk to.
 *
 * A turn yields a reply: a proposal (an instrumentation step, which a person
 * accepts, edits or vetoes before anything is loaded), a verdict, or plain
 * text (an answer to the person).  Every reply carries the agent's reasoning
 * as one-line explanations, shown in the transcript and kept in the session.
 */
#ifndef ARGUS_AGENT_H
#define ARGUS_AGENT_H

#include <poll.h>

#include "data/tree.h"
#include "data/verdict.h"

struct step; /* core/data/step.h */

enum agent_reply_kind {
	AGENT_REPLY_VERDICT,
	AGENT_REPLY_PROPOSAL,
	AGENT_REPLY_TEXT,
};

struct agent_reply {
	enum agent_reply_kind kind;
	struct verdict verdict;   /* AGENT_REPLY_VERDICT */
	struct step *step;        /* AGENT_REPLY_PROPOSAL; owned by the reply */
	char *text;               /* AGENT_REPLY_TEXT; owned */
	char **lines;             /* reasoning, one line each; owned */
	unsigned nlines;
	const struct tree_node *focus; /* the node the reply concerns, or NULL */
};

void agent_reply_clear(struct agent_reply *r); /* frees what it owns, zeroes */
int agent_reply_line(struct agent_reply *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A step an agent proposes, field by field as step_set_field takes them,
 * set in this order; NULL: not set. */
struct agent_step_spec {
	const char *kind, *target, *begin, *end, *freq_hz, *duration_s, *rationale, *expect;
};
/* Builds the step of sp (checking its required fields) and makes it r's
 * proposal (r->step, owned by r).  0, or -errno with a line in r saying
 * that WHO NAME ("rule compaction", "second opinion counts") cannot build
 * its step, which field and why: a broken table row is said, not
 * proposed. */
int agent_reply_propose(struct agent_reply *r, const struct agent_step_spec *sp,
			const char *who, const char *name);

/* What the agent sees at each turn. */
struct agent_ctx {
	const struct tree *tree;        /* calibrated (calib_run done) */
	const struct tree_node *focus;  /* person asked to look here, or NULL */
	unsigned step_index;            /* steps run so far */
	unsigned step_max;              /* the budget of steps */
};

/* Things the agent is told between turns. */
enum agent_event_kind {
	AGENT_EV_ACCEPTED,        /* the proposal was accepted as is */
	AGENT_EV_EDITED,          /* accepted after an edit (step = edited) */
	AGENT_EV_VETOED,          /* text = the person's reason, may be "" */
	AGENT_EV_RESULT,          /* a step ran; text = one-line result */
	AGENT_EV_SAY,             /* free text from the person */
	AGENT_EV_FOCUS,           /* focus on node (text = node name) */
};

struct agent_event {
	enum agent_event_kind kind;
	const char *text;
	const struct step *step;
	const struct tree_node *node;
};

/* One competing explanation an agent keeps (the hypothesis ledger), shown
 * in the agent pane and the diagnose JSON. */
struct agent_hyp {
	char name[64];
	char status[12];              /* "open", "supported" or "refuted" */
	char evidence[160];           /* what moved it last */
	unsigned turn;                /* the turn that last changed it (1-based) */
};

struct agent;

struct agent_ops {
	const char *name;
	/* Starts a turn.  Returns 0 with *out filled, -EINPROGRESS when the
	 * reply will come from poll (an HTTP agent), or -errno. */
	int (*turn)(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out);
	/* For agents that answered -EINPROGRESS: 0 with *out filled, or
	 * -EINPROGRESS again, or -errno. May be NULL. */
	int (*poll)(struct agent *a, struct agent_reply *out);
	/* Abandons a turn in flight. May be NULL. */
	void (*cancel)(struct agent *a);
	/* Tells the agent something; 0 or -errno.  An answer for the person, if
	 * any, is put in *out as AGENT_REPLY_TEXT (out->kind, out->text). */
	int (*tell)(struct agent *a, const struct agent_event *ev, struct agent_reply *out);
	void (*free)(struct agent *a);
	/* The hypothesis ledger: *out points into the agent (valid until the
	 * next turn); returns how many.  May be NULL (none kept). */
	unsigned (*hypotheses)(const struct agent *a, const struct agent_hyp **out);
	/* For agents that answer from poll: the sockets to wait on (up to max;
	 * returns how many) and the longest wait in ms (-1: none).  May be NULL. */
	int (*pollfds)(struct agent *a, struct pollfd *fds, int max);
	int (*timeout_ms)(struct agent *a);
};

struct agent {
	const struct agent_ops *ops;
	void *priv;
};


static inline void agent_free(struct agent *a)
{
	if (a)
		a->ops->free(a);
}

/* The agent's hypothesis ledger (0 entries for agents that keep none, like
 * the heuristic); *out valid until the agent's next turn. */
static inline unsigned agent_hypotheses(const struct agent *a, const struct agent_hyp **out)
{
	*out = NULL;
	return a && a->ops->hypotheses ? a->ops->hypotheses(a, out) : 0;
}

/* The poll loop's share for an agent whose turn answered -EINPROGRESS:
 * sockets to add (returns how many, 0 for agents without any) and the
 * longest wait before agent poll must run (-1: no deadline). */
static inline int agent_pollfds(struct agent *a, struct pollfd *fds, int max)
{
	return a && a->ops->pollfds ? a->ops->pollfds(a, fds, max) : 0;
}

static inline int agent_timeout_ms(struct agent *a)
{
	return a && a->ops->timeout_ms ? a->ops->timeout_ms(a) : -1;
}

#endif
