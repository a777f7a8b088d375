/* view_keys — the key table of the tree pane. */
#include <curses.h>

#include "view_keys.h"

const struct key_binding key_table[] = {
	{ "Enter Space", { '\n', '\r', ' ', KEY_FN(KEY_ENTER) }, KEY_ACT_TOGGLE,
	  "expand or collapse the selected node" },
	{ "Right l", { KEY_FN(KEY_RIGHT), 'l' }, KEY_ACT_EXPAND,
	  "expand; on an expanded node, go to its first child" },
	{ "Left h", { KEY_FN(KEY_LEFT), 'h' }, KEY_ACT_COLLAPSE,
	  "collapse; on a collapsed node, go to its parent" },
	{ "+", { '+', '*' }, KEY_ACT_EXPAND_ALL, "expand every node" },
	{ "-", { '-' }, KEY_ACT_COLLAPSE_ALL, "collapse every node" },
	{ "Up k", { KEY_FN(KEY_UP), 'k' }, KEY_ACT_UP, "previous row" },
	{ "Down j", { KEY_FN(KEY_DOWN), 'j' }, KEY_ACT_DOWN, "next row" },
	{ "PgUp", { KEY_FN(KEY_PPAGE), KEY_CTRL('b') }, KEY_ACT_PGUP, "page up" },
	{ "PgDn", { KEY_FN(KEY_NPAGE), KEY_CTRL('f') }, KEY_ACT_PGDN, "page down" },
	{ "Home g", { KEY_FN(KEY_HOME), 'g' }, KEY_ACT_HOME, "first row" },
	{ "End G", { KEY_FN(KEY_END), 'G' }, KEY_ACT_END, "last row" },
	{ "/", { '/' }, KEY_ACT_SEARCH,
	  "search node names as you type (Enter keeps, Esc goes back)" },
	{ "n", { 'n' }, KEY_ACT_SEARCH_NEXT, "next search match" },
	{ "N", { 'N' }, KEY_ACT_SEARCH_PREV, "previous search match" },
	{ "&", { '&' }, KEY_ACT_FILTER,
	  "filter: show only nodes whose name contains a text, with their subtrees (empty: all)" },
	{ "s", { 's' }, KEY_ACT_SORT, "sort children by delta, load, total, self or name (cycles)" },
	{ "t", { 't' }, KEY_ACT_THRESHOLD,
	  "hide nodes below 0.1%, 1%, 5% of the total, or none (cycles)" },
	{ "c", { 'c' }, KEY_ACT_VERDICT_PATH, "collapse everything but the verdict path" },
	{ "Y", { 'Y' }, KEY_ACT_COPY_PATH,
	  "copy the selected node's path to the clipboard (OSC 52; works over SSH and tmux)" },
	{ "]", { ']' }, KEY_ACT_SIG_NEXT, "next significant node (calibrated)" },
	{ "[", { '[' }, KEY_ACT_SIG_PREV, "previous significant node (calibrated)" },
	{ "y", { 'y' }, KEY_ACT_WHY, "why is this node marked: numbers and test" },
	{ "p", { 'p' }, KEY_ACT_GROUP, "group by process / by subsystem" },
	{ "x", { 'x' }, KEY_ACT_EXPLAIN,
	  "explain the selected function or subsystem, and its numbers in words" },
	{ "w", { 'w' }, KEY_ACT_EXPORT,
	  "write a markdown report of this view (file named after the session)" },
	{ "T", { 'T' }, KEY_ACT_THEME, "next theme (default light high-contrast mono)" },
	{ "Ctrl-L", { KEY_CTRL('l') }, KEY_ACT_REDRAW, "redraw the screen" },
	{ "Tab", { '\t', KEY_FN(KEY_BTAB) }, KEY_ACT_PANE_FOCUS,
	  "move the focus between the tree and the agent pane" },
	{ "z", { 'z' }, KEY_ACT_ZOOM, "enlarge the focused pane to the whole screen (again: both)" },
	{ "a", { 'a' }, KEY_ACT_ACCEPT,
	  "agent: accept the proposal (or the edit): load the step and measure it" },
	{ "e", { 'e' }, KEY_ACT_EDIT,
	  "agent: edit the proposal field by field (j/k field, Enter edit, Esc abandon)" },
	{ "E", { 'E' }, KEY_ACT_EDIT_JSON, "agent: edit the whole proposal as JSON in $VISUAL/$EDITOR" },
	{ "v", { 'v' }, KEY_ACT_VETO,
	  "agent: veto the proposal, with an optional reason; nothing is loaded" },
	{ "r", { 'r' }, KEY_ACT_ANOTHER, "agent: ask for another proposal" },
	{ "u", { 'u' }, KEY_ACT_UNDO, "agent: undo the last accepted step (detach, drop its results)" },
	{ ":", { ':' }, KEY_ACT_TALK,
	  "agent: talk (focus NAME, why, stop, ...); Up recalls earlier lines" },
	{ "f", { 'f' }, KEY_ACT_FOCUS_NODE, "agent: focus on the selected tree node (a new turn)" },
	{ "Esc", { 27 }, KEY_ACT_CANCEL, "agent: cancel its turn; abandon an edit" },
	{ "?", { '?', KEY_FN(KEY_F(1)) }, KEY_ACT_HELP, "this help" },
	{ "q", { 'q', 'Q' }, KEY_ACT_QUIT, "quit (detaches every probe)" },
	{ NULL, { 0 }, KEY_ACT_NONE, NULL },
};

const struct key_binding key_replay_table[] = {
	{ "n", { 'n', KEY_FN(KEY_SRIGHT) }, KEY_ACT_REPLAY_NEXT,
	  "replay: next event (window, proposal, decision, result, verdict)" },
	{ "p", { 'p', KEY_FN(KEY_SLEFT) }, KEY_ACT_REPLAY_PREV, "replay: previous event" },
	{ "{", { '{' }, KEY_ACT_REPLAY_START, "replay: back to the start" },
	{ "}", { '}' }, KEY_ACT_REPLAY_END, "replay: to the last event" },
	{ "P", { 'P' }, KEY_ACT_GROUP, "replay: group by process / by subsystem" },
	{ ">", { '>' }, KEY_ACT_SEARCH_NEXT, "replay: next search match" },
	{ NULL, { 0 }, KEY_ACT_NONE, NULL },
};

enum key_action key_lookup_replay(int code)
{
	for (const struct key_binding *b = key_replay_table; b->label; b++)
		for (int i = 0; i < 4 && b->code[i]; i++)
			if (b->code[i] == code)
				return b->action;
	return key_lookup(code);
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
	fprintf(out, "\nin 'argus replay' these keys take over:\n");
	for (const struct key_binding *b = key_replay_table; b->label; b++)
		fprintf(out, "  %-12s %s\n", b->label, b->help);
}
