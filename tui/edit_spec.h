/* edit_spec — the whole step spec as JSON in $VISUAL / $EDITOR.
 *
 * Curses is ended for the editor (endwin) and restored after it; the text
 * goes through a private temporary file that is removed afterwards. */
#ifndef ARGUS_EDIT_SPEC_H
#define ARGUS_EDIT_SPEC_H

/* Runs $VISUAL, else $EDITOR, else vi on a copy of json.  Returns 0 with
 * *out = the edited text (caller frees), 1 when the editor left it
 * unchanged (*out NULL), or -errno with *cause set (caller frees). */
int edit_spec_run(const char *json, char **out, char **cause);

#endif
