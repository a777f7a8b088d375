/* redact — stable placeholders for what must not leave the machine.
 *
 * With --redact, everything argus sends to an LLM passes through here:
 * process names become "proc-1", "proc-2" ..., command lines "cmd-1" ...,
 * file and cgroup paths "path-1" ... .  The same string always gets the same
 * placeholder within one run, so the LLM can still reason about "proc-2"
 * across turns, and placeholders in its replies (a step filter naming
 * "proc-1", a verdict path through a process node) map back to the
 * originals before anything is validated or loaded.
 *
 * Kernel symbol names and the calibrated numbers are not redacted: they are
 * what the LLM is for, and they say nothing about the user's programs.
 *
 * Matching: registered strings are replaced where they stand as a whole word
 * (the neighbours are not letters, digits or '_'), longest first; a path is
 * any token that starts with '/' after a blank, a quote, '=', '(' or ':' or
 * at the start of the text, and runs to the next blank or quote or ')'.
 */
#ifndef ARGUS_REDACT_H
#define ARGUS_REDACT_H

#include <stddef.h>

enum redact_class {
	REDACT_PROC = 0,            /* "proc-N": process names (comm) */
	REDACT_CMD,                 /* "cmd-N": command lines */
	REDACT_PATH,                /* "path-N": files, cgroups */
	REDACT_CLASS_N
};

struct redact;

/* An empty table, or NULL with errno set.  Free with redact_free. */
struct redact *redact_new(void);
void redact_free(struct redact *r); /* NULL-safe */

/* The placeholder of s in class c, registering s when new (s is copied).
 * Returns a string valid while r lives, or NULL with errno set (ENOMEM;
 * EINVAL for an empty s). */
const char *redact_name(struct redact *r, enum redact_class c, const char *s);

/* Registers a command line: the whole line (cmd-N), its program's base name
 * as a process name (proc-N, cut to the 15 bytes of a comm) and every word
 * that is a path.  0 or -errno. */
int redact_add_command(struct redact *r, const char *cmdline);

/* A copy of text with every registered string and every path replaced by
 * its placeholder (paths met here are registered).  Caller frees; NULL with
 * errno set. */
char *redact_text(struct redact *r, const char *text);

/* The original behind a placeholder ("proc-1"), or NULL when s is none.
 * Valid while r lives. */
const char *redact_reverse(const struct redact *r, const char *s);

/* How many strings are registered (for tests and the status line). */
size_t redact_count(const struct redact *r);

#endif
