/* view_keys — the key table.  Each binding carries its own help text: the
 * `?` overlay, `argus --keys` and the man page are printed from it, so the
 * help cannot drift from what the keys do. */
#ifndef ARGUS_VIEW_KEYS_H
#define ARGUS_VIEW_KEYS_H

#include <stdio.h>

/* Function keys (KEY_UP, ...) are stored as KEY_FN(code) so they never
 * collide with characters of the same number. */
#define KEY_FN(k) (0x1000000 | (k))
#define KEY_CTRL(c) ((c) & 0x1f)

enum key_action {
	KEY_ACT_NONE,
	KEY_ACT_TOGGLE,
	KEY_ACT_EXPAND,
	KEY_ACT_COLLAPSE,
	KEY_ACT_EXPAND_ALL,
	KEY_ACT_COLLAPSE_ALL,
	KEY_ACT_UP,
	KEY_ACT_DOWN,
	KEY_ACT_PGUP,
	KEY_ACT_PGDN,
	KEY_ACT_HOME,
	KEY_ACT_END,
	KEY_ACT_SEARCH,
	KEY_ACT_SEARCH_NEXT,
	KEY_ACT_SEARCH_PREV,
	KEY_ACT_SIG_NEXT,
	KEY_ACT_SIG_PREV,
	KEY_ACT_WHY,
	KEY_ACT_GROUP,
	KEY_ACT_THEME,
	KEY_ACT_REDRAW,
	KEY_ACT_HELP,
	KEY_ACT_QUIT,
	/* the agent pane (tui/pane.h) */
	KEY_ACT_PANE_FOCUS,
	KEY_ACT_ZOOM,
	KEY_ACT_ACCEPT,
	KEY_ACT_EDIT,
	KEY_ACT_EDIT_JSON,
	KEY_ACT_VETO,
	KEY_ACT_ANOTHER,
	KEY_ACT_UNDO,
	KEY_ACT_TALK,
	KEY_ACT_FOCUS_NODE,
	KEY_ACT_CANCEL,
	KEY_ACT_EXPLAIN,          /* x: what this function does, numbers in words */
	KEY_ACT_EXPORT,           /* w: write a markdown report of the view */
	KEY_ACT_REPLAY_NEXT,      /* argus replay: next event */
	KEY_ACT_REPLAY_PREV,
	KEY_ACT_REPLAY_START,
	KEY_ACT_REPLAY_END,
	KEY_ACT_SORT,             /* s: next sort order */
	KEY_ACT_FILTER,           /* &: show only matching subtrees */
	KEY_ACT_THRESHOLD,        /* t: next hidden-node threshold */
	KEY_ACT_VERDICT_PATH,     /* c: collapse to the verdict path */
	KEY_ACT_COPY_PATH,        /* Y: copy the selected path (OSC 52) */
	KEY_ACT_ICICLE,           /* i: icicle (flame-graph-like) view of the subtree */
	KEY_ACT_MODEL,            /* m: the model of the load (tui/view_model.h) */
	KEY_ACT_LOAD_OUTPUT,      /* O: the load's last output lines */
	KEY_ACT_CALLERS,          /* C: user-space call sites of the selected node */
	KEY_ACT_RESET,            /* 0: live sampling counts again from zero */
};

struct key_binding {
	const char *label;        /* as shown: "Enter Space" */
	int code[4];              /* characters or KEY_FN(...); 0 ends */
	enum key_action action;
	const char *help;
	unsigned flags;           /* KEY_F_* */
};

/* The key does nothing in `argus replay` (a replayed pane only shows):
 * not offered by ? there, and pressing it says so. */
#define KEY_F_NO_REPLAY 0x1u
/* The key acts in live sampling only (argus, argus -p without a
 * reference): a replay does not offer it either, and a measurement's ?
 * leaves it out (its reference and loaded windows must stay). */
#define KEY_F_LIVE_ONLY 0x2u

/* The table, ended by an entry with a NULL label. */
extern const struct key_binding key_table[];

/* Keys of `argus replay` that take precedence over key_table there (n and b
 * step through the session's events). */
extern const struct key_binding key_replay_table[];

/* Action bound to code, KEY_ACT_NONE when none. */
enum key_action key_lookup(int code);
/* The same in replay mode (key_replay_table first; KEY_ACT_NONE for keys
 * flagged KEY_F_NO_REPLAY). */
enum key_action key_lookup_replay(int code);
/* Prints "  LABEL  help" lines (the man page's KEYS section comes from it). */
void key_print(FILE *out);
/* The binding of code in key_table, or NULL. */
const struct key_binding *key_binding_of(int code);

#endif
