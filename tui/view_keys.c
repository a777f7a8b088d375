/* view_keys — the key table of the tree pane. */
#include <curses.h>

#include "view_keys.h"

const struct key_binding key_table[] = {
	{ "Enter Space", { '\n', '\r', ' ', KEY_FN(KEY_ENTER) }, KEY_ACT_TOGGLE,
	  "expand or collapse the selected node", 0 },
	{ "Right l", { KEY_FN(KEY_RIGHT), 'l' }, KEY_ACT_EXPAND,
	  "expand; on an expanded node, go to its first child", 0 },
	{ "Left h", { KEY_FN(KEY_LEFT), 'h' }, KEY_ACT_COLLAPSE,
	  "collapse; on a collapsed node, go to its parent", 0 },
	{ "+", { '+', '*' }, KEY_ACT_EXPAND_ALL, "expand every node", 0 },
	{ "-", { '-' }, KEY_ACT_COLLAPSE_ALL, "collapse every node", 0 },
	{ "Up k", { KEY_FN(KEY_UP), 'k' }, KEY_ACT_UP, "previous row", 0 },
	{ "Down j", { KEY_FN(KEY_DOWN), 'j' }, KEY_ACT_DOWN, "next row", 0 },
	{ "PgUp", { KEY_FN(KEY_PPAGE), KEY_CTRL('b') }, KEY_ACT_PGUP, "page up", 0 },
	{ "PgDn", { KEY_FN(KEY_NPAGE), KEY_CTRL('f') }, KEY_ACT_PGDN, "page down", 0 },
	{ "Home g", { KEY_FN(KEY_HOME), 'g' }, KEY_ACT_HOME, "first row", 0 },
	{ "End G", { KEY_FN(KEY_END), 'G' }, KEY_ACT_END, "last row", 0 },
	{ "/", { '/' }, KEY_ACT_SEARCH,
	  "search node names as you type (Enter keeps, Esc goes back)", 0 },
	{ "n", { 'n' }, KEY_ACT_SEARCH_NEXT, "next search match", 0 },
	{ "N", { 'N' }, KEY_ACT_SEARCH_PREV, "previous search match", 0 },
	{ "&", { '&' }, KEY_ACT_FILTER,
	  "filter: only nodes whose name contains a text, with their subtrees (empty: all)", 0 },
	{ "s", { 's' }, KEY_ACT_SORT,
	  "sort children by delta, load, total, self or name (cycles)", 0 },
	{ "t", { 't' }, KEY_ACT_THRESHOLD,
	  "hide nodes below 0.1%, 1%, 5% of the total, or none (cycles)", 0 },
	{ "c", { 'c' }, KEY_ACT_VERDICT_PATH, "collapse everything but the verdict path", 0 },
	{ "Y", { 'Y' }, KEY_ACT_COPY_PATH,
	  "copy the selected node's path to the clipboard (OSC 52; works over SSH and tmux)", 0 },
	{ "i", { 'i' }, KEY_ACT_ICICLE,
	  "icicle of the selected subtree: widths by loaded samples; arrows move, "
	  "Enter zooms, Backspace zooms out, Esc or q back to the tree", 0 },
	{ "]", { ']' }, KEY_ACT_SIG_NEXT, "next significant node (calibrated)", 0 },
	{ "[", { '[' }, KEY_ACT_SIG_PREV, "previous significant node (calibrated)", 0 },
	{ "y", { 'y' }, KEY_ACT_WHY, "why is this node marked: numbers and test", 0 },
	{ "C", { 'C' }, KEY_ACT_CALLERS,
	  "user-space call sites of the selected node: the user frames under its stacks, "
	  "with their rise (needs user stacks: recorded since issue 27)", 0 },
	{ "p", { 'p' }, KEY_ACT_GROUP, "group by process / by subsystem", 0 },
	{ "O", { 'O' }, KEY_ACT_LOAD_OUTPUT,
	  "the load's output: the last lines it wrote (printed again when argus quits)", 0 },
	{ "x", { 'x' }, KEY_ACT_EXPLAIN,
	  "explain the selected function or subsystem, and its numbers in words", 0 },
	{ "w", { 'w' }, KEY_ACT_EXPORT,
	  "write a markdown report of this view (file named after the session)", 0 },
	{ "m", { 'm' }, KEY_ACT_MODEL,
	  "the model of the load beside the tree: tasks, calls, locks, the wait chain (again: back)",
	  0 },
	{ "0", { '0' }, KEY_ACT_RESET,
	  "live: reset the counts, sample again from zero (the session keeps what was counted)",
	  KEY_F_LIVE_ONLY },
	{ "T", { 'T' }, KEY_ACT_THEME, "next theme (default light high-contrast mono)", 0 },
	{ "Ctrl-L", { KEY_CTRL('l') }, KEY_ACT_REDRAW, "redraw the screen", 0 },
	{ "Tab", { '\t', KEY_FN(KEY_BTAB) }, KEY_ACT_PANE_FOCUS,
	  "move the focus between the tree and the agent pane", 0 },
	{ "z", { 'z' }, KEY_ACT_ZOOM,
	  "enlarge the focused pane to the whole screen (again: both)", 0 },
	{ "a", { 'a' }, KEY_ACT_ACCEPT,
	  "agent: accept the proposal (or the edit): load the step and measure it",
	  KEY_F_NO_REPLAY },
	{ "e", { 'e' }, KEY_ACT_EDIT,
	  "agent: edit the proposal field by field (j/k field, Enter edit, Esc abandon)",
	  KEY_F_NO_REPLAY },
	{ "E", { 'E' }, KEY_ACT_EDIT_JSON,
	  "agent: edit the whole proposal as JSON in $VISUAL/$EDITOR", KEY_F_NO_REPLAY },
	{ "v", { 'v' }, KEY_ACT_VETO,
	  "agent: veto the proposal, with an optional reason; nothing is loaded", KEY_F_NO_REPLAY },
	{ "r", { 'r' }, KEY_ACT_ANOTHER, "agent: ask for another proposal", KEY_F_NO_REPLAY },
	{ "u", { 'u' }, KEY_ACT_UNDO,
	  "agent: undo the last accepted step (detach, drop its results)", KEY_F_NO_REPLAY },
	{ ":", { ':' }, KEY_ACT_TALK,
	  "agent: talk (focus NAME, why, stop, ...); Up recalls earlier lines", KEY_F_NO_REPLAY },
	{ "f", { 'f' }, KEY_ACT_FOCUS_NODE,
	  "agent: focus on the selected tree node (a new turn)", KEY_F_NO_REPLAY },
	{ "Esc", { 27 }, KEY_ACT_CANCEL,
	  "agent: cancel its turn; abandon an edit", KEY_F_NO_REPLAY },
	{ "?", { '?', KEY_FN(KEY_F(1)) }, KEY_ACT_HELP, "this help", 0 },
	{ "q", { 'q', 'Q' }, KEY_ACT_QUIT, "quit (detaches every probe)", 0 },
	{ NULL, { 0 }, KEY_ACT_NONE, NULL, 0 },
};

const struct key_binding key_replay_table[] = {
	{ "n", { 'n', KEY_FN(KEY_SRIGHT) }, KEY_ACT_REPLAY_NEXT,
	  "replay: next event (window, proposal, decision, result, verdict)", 0 },
	/* b (back), not p: p groups by process in every mode, one key one
	 * meaning (issue 24 item 11); b is no key of the live tree */
	{ "b", { 'b', KEY_FN(KEY_SLEFT) }, KEY_ACT_REPLAY_PREV, "replay: back one event", 0 },
	{ "{", { '{' }, KEY_ACT_REPLAY_START, "replay: back to the start", 0 },
	{ "}", { '}' }, KEY_ACT_REPLAY_END, "replay: to the last event", 0 },
	{ ">", { '>' }, KEY_ACT_SEARCH_NEXT, "replay: next search match", 0 },
	{ NULL, { 0 }, KEY_ACT_NONE, NULL, 0 },
};

enum key_action key_lookup_replay(int code)
{
	const struct key_binding *k;

	for (const struct key_binding *b = key_replay_table; b->label; b++)
		for (int i = 0; i < 4 && b->code[i]; i++)
			if (b->code[i] == code)
				return b->action;
	k = key_binding_of(code);
	return k && !(k->flags & (KEY_F_NO_REPLAY | KEY_F_LIVE_ONLY)) ? k->action : KEY_ACT_NONE;
}

const struct key_binding *key_binding_of(int code)
{
	for (const struct key_binding *b = key_table; b->label; b++)
		for (int i = 0; i < 4 && b->code[i]; i++)
			if (b->code[i] == code)
				return b;
	return NULL;
}

enum key_action key_lookup(int code)
{
	for (const struct key_binding *b = key_table; b->label; b++)
		for (int i = 0; i < 4 && b->code[i]; i++)
			if (b->code[i] == code)
				return b->action;
	return KEY_ACT_NONE;
}

void key_print(FILE *out)
{
	for (const struct key_binding *b = key_table; b->label; b++)
		fprintf(out, "  %-12s %s\n", b->label, b->help);
	fprintf(out, "\nin 'argus replay' the agent: keys do nothing (the pane only shows)\n"
		     "and these take over:\n");
	for (const struct key_binding *b = key_replay_table; b->label; b++)
		fprintf(out, "  %-12s %s\n", b->label, b->help);
}
