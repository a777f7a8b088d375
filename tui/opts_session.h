/* opts_session — `--session FILE` and `--no-session`, shared by the
 * interactive argus and `argus diagnose` (every run is a session: by default
 * under $XDG_STATE_HOME/argus/sessions/).
 *
 * Usage, beside opts_load in a command's option loop:
 *
 *	struct opts_session os = { 0 };
 *	if (h.group == &opts_session_group) opts_session_apply(&os, &h, stderr);  // -1: usage
 *	...
 *	struct session *ses = opts_session_open(&os, "diagnose", &ol, getpid(), &cause);
 *	// NULL and no cause: --no-session
 *	src = opts_session_wrap(src, ses, &sso);
 */
#ifndef ARGUS_OPTS_SESSION_H
#define ARGUS_OPTS_SESSION_H

#include <stdint.h>
#include <stdio.h>

#include "opt.h"
#include "opts_load.h"
#include "measure/session.h"
#include "measure/source_session.h"

struct opts_session {
	const char *path;        /* --session FILE; NULL: the default path */
	int off;                 /* --no-session */
};

/* --session FILE, --no-session (tui/opt.h). */
extern const struct opt_group opts_session_group;

/* A session option opt_next read into os: 0, or -1 after a message on err. */
int opts_session_apply(struct opts_session *os, const struct opt_hit *h, FILE *err);

/* Opens the session of a run of command with the load options ol (may be
 * NULL): the header carries the host, kernel, probe capabilities and the
 * options.  Returns NULL without touching *cause under --no-session, NULL
 * with *cause set (caller frees) when the file cannot be created. */
struct session *opts_session_open(const struct opts_session *os, const char *command,
				  const struct opts_load *ol, uint32_t exclude_tgid,
				  char **cause);

#endif
