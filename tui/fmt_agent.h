/* fmt_agent — pure formatting of the agent pane: transcript entries wrapped
 * to a width, the current proposal written for people, key hints.
 *
 * Like fmt.h, nothing here touches the terminal: data in, struct fmt_line
 * out (tests/unit/test_fmt_agent.c).  Widths are columns (wcwidth).
 */
#ifndef ARGUS_FMT_AGENT_H
#define ARGUS_FMT_AGENT_H

#include <stddef.h>

#include "fmt.h"
#include "data/step.h"

/* What a transcript entry is; each has its own prefix and role. */
enum fmt_agent_kind {
	FMT_AGENT_REASON,         /* one of the agent's reasoning lines */
	FMT_AGENT_PROPOSAL,       /* the agent proposed a step */
	FMT_AGENT_HUMAN,          /* the person's decision or words */
	FMT_AGENT_RESULT,         /* a step's result in a line */
	FMT_AGENT_VERDICT,        /* the agent's verdict */
	FMT_AGENT_TEXT,           /* the agent's answer to the person */
	FMT_AGENT_INFO,           /* argus itself: progress, where results went */
	FMT_AGENT_ERROR,          /* something failed */
	FMT_AGENT_KIND_N
};

struct fmt_agent_entry {
	enum fmt_agent_kind kind;
	const char *text;         /* may hold '\n': each part starts a new line */
};

/* Splits s into lines of at most width columns, breaking at blanks where it
 * can (a word longer than the width is cut); '\n' forces a break.  Writes
 * up to max (offset, length) pairs of s; returns how many lines s needs
 * (which may be more than max). */
unsigned fmt_agent_wrap(const char *s, int width, size_t *off, size_t *len, unsigned max);

/* An entry as lines (the prefix "agent", "you", "step", the verdict glyph
 * on the first, continuation lines indented): writes up to max lines to
 * out and returns how many the entry needs. */
unsigned fmt_agent_entry_lines(struct fmt_line *out, unsigned max,
			       const struct fmt_agent_entry *e, int width,
			       const struct glyphs *gl);

/* The fields a person may edit, in the order the proposal lists them
 * (step_set_field names); NULL-terminated. */
extern const char *const fmt_agent_fields[];
#define FMT_AGENT_NFIELDS 16

/* A field's value as text ("" when unset); returns buf. */
char *fmt_agent_field_value(const struct step *s, const char *field, char *buf, size_t len);

/* 1 when the validator's field ("target[1]", "filter.comm", "duration_s")
 * concerns the editable field (same key, any index). */
int fmt_agent_field_match(const char *err_field, const char *field);

/* The proposal as the pane shows it. */
struct fmt_agent_prop {
	const struct step *step;
	unsigned index, max;      /* step number (1-based, the session's) */
	unsigned run;             /* the run it would be (1-based) of at most max;
	                           * 0: not said */
	int over_budget;          /* the estimate is over the budget: said first */
	double est_pct, budget_pct; /* with over_budget, % of a CPU */
	int over_confirm;         /* a once: a again runs it */
	int not_accepted;         /* a refused: the last edit was refused */
	unsigned *pinned;         /* out, may be NULL: the lines after the heading
	                           * that must stay in view (the budget, a refusal,
	                           * an error of no one field) */
	const char *estimate;     /* pre-flight estimate, or NULL: none (the step
	                           * does not validate, or a replay without one) */
	const char *scope;        /* whose events (step_scope_describe), or NULL:
	                           * the filter as it is */
	int replay;               /* a recorded proposal: nothing is measured now */
	const struct step_error *err; /* validation error to show by its field, or NULL */
	int editing;              /* edit mode: every field listed, a cursor */
	int cursor;               /* index into fmt_agent_fields while editing */
	int edited;               /* differs from the agent's original */
	int auto_accept;          /* --auto: it will be accepted without asking */
};

/* Writes up to max lines of the proposal card, width columns wide, and
 * returns how many it has. */
unsigned fmt_agent_proposal(struct fmt_line *out, unsigned max, const struct fmt_agent_prop *p,
			    int width, const struct glyphs *gl);

/* What the pane is doing, for the hints line and the status bar. */
enum fmt_agent_mode {
	FMT_AGENT_MODE_WAIT,      /* calibration windows still running */
	FMT_AGENT_MODE_THINKING,  /* a turn in flight */
	FMT_AGENT_MODE_PROPOSAL,  /* a proposal waits for the person */
	FMT_AGENT_MODE_EDIT,      /* the person edits it */
	FMT_AGENT_MODE_RUNNING,   /* an accepted step measures */
	FMT_AGENT_MODE_IDLE,      /* a verdict or an answer; nothing pending */
	FMT_AGENT_MODE_REPLAY,    /* hints only: a replayed pane (r u : f do nothing) */
};

/* The key hints for mode ("a accept  e edit  v veto  r another  u undo
 * : talk"), keys in the key role, cut to width. */
void fmt_agent_hints(struct fmt_line *l, int width, enum fmt_agent_mode mode);

/* The pane's title line: "agent (heuristic)" and what it does, in the focus
 * role when the pane has the focus. */
void fmt_agent_title(struct fmt_line *l, int width, const char *agent_name,
		     enum fmt_agent_mode mode, int focused, const struct glyphs *gl);

/* The phase the status bar shows for mode ("waiting for you", "step 2
 * measuring: loaded window 3/6"); NULL: the source's own phase. */
const char *fmt_agent_phase(enum fmt_agent_mode mode, unsigned step, const char *step_phase,
			    char *buf, size_t len);

#endif
