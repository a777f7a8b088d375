/* edit_line — a one-line prompt edited with libedit, on the screen's bottom
 * row, while the panes stay visible above it.
 *
 * The open choice of how libedit lives inside curses is settled here by
 * suspending curses around el_gets: the terminal stays in the alternate
 * screen (no endwin, so the tree stays visible), curses' tty modes are put
 * aside (reset_shell_mode), libedit edits the bottom line with its own
 * modes, Emacs keys, history and Tab completion, and then curses' modes
 * come back (reset_prog_mode) and the whole screen is repainted.  A resize
 * meanwhile is queued in the signalfd and handled when the prompt ends.
 * Esc-free keys end it: Enter accepts, Ctrl-C / Ctrl-G / Ctrl-D on an empty
 * line abandon.
 */
#ifndef ARGUS_EDIT_LINE_H
#define ARGUS_EDIT_LINE_H

enum edit_complete {
	EDIT_COMPLETE_NONE,
	EDIT_COMPLETE_NAMES,      /* tracepoints ("category:name") and functions */
	EDIT_COMPLETE_FIELDS,     /* the step's field names */
};

struct edit_line;

/* A prompt whose history lives in hist_path (created 0600, its directory
 * made; NULL: history in memory only).  NULL with errno set. */
struct edit_line *edit_line_new(const char *hist_path);
void edit_line_free(struct edit_line *e); /* NULL-safe; saves the history */

/* Reads a line on screen row `row` after prompt, pre-filled with initial
 * (may be NULL); curses must be up.  Returns the line without its newline
 * (caller frees; "" when empty), or NULL when abandoned. */
char *edit_line_read(struct edit_line *e, const char *prompt, const char *initial, int row,
		     enum edit_complete what);

/* $XDG_STATE_HOME/argus/history (~/.local/state when unset); caller frees;
 * NULL when no home is known. */
char *edit_line_history_path(void);

/* The completion of word among names (longest common prefix of the
 * candidates that start with it): what to insert after word, caller frees
 * ("" when nothing to add); *ncand gets the number of candidates.  names
 * is a '\n'-separated list.  For tests and the Tab key. */
char *edit_line_complete(const char *word, const char *names, unsigned *ncand);

#endif
