/* app — the interactive tree: one poll() loop over the terminal, the
 * source's file descriptors, a timer and signals (signalfd).
 *
 * tui_run owns the terminal from initscr to endwin.  While curses is up,
 * nothing may write to the terminal: stderr (libbpf's default print, our
 * own warnings, a load's messages) is redirected into a ring of log lines
 * (and to opts->log_path when given).  Teardown happens on the main path
 * only: q, Ctrl-C (SIGINT) and SIGTERM all end the loop, restore the
 * terminal and call the source's stop.  SIGTSTP (Ctrl-Z) restores the
 * terminal, stops, and redraws on SIGCONT.
 *
 * Note for sources that fork (loads): the loop blocks SIGINT, SIGTERM,
 * SIGWINCH and SIGTSTP in this process for its signalfd; a child must reset
 * its signal mask (sigprocmask(SIG_SETMASK, empty)) before exec.
 */
#ifndef ARGUS_APP_H
#define ARGUS_APP_H

#include "measure/source.h"
#include "step/step_scope.h"

struct load;
struct session;
#include "data/tree.h"

struct opts_agent;

struct tui_opts {
	const char *theme;        /* name or path; NULL: default */
	int ascii;                /* force ASCII glyphs */
	double threshold;         /* hide nodes below this fraction of the root
	                           * total; 0.001 by default */
	const char *log_path;     /* -v FILE: log lines also go there; NULL */
	const char *title;        /* header title; NULL: "argus" */
	const char *note;         /* in the header where the summary goes while
	                           * the tree is not calibrated; NULL: none */
	const char *warning;      /* said in the agent pane from the start (a
	                           * saved reference recorded on a busy system:
	                           * every use says so, issue 24); NULL: none */
	uint32_t pid;             /* -p PID: the header names it; 0: none */
	const char *pid_comm;     /* its comm, escaped (sanitize.h); NULL: unknown */
	double explain;           /* the descent's explain share; 0.5 by default */
	enum tree_group group;    /* initial grouping */
	double refresh_s;         /* tree rebuild at most this often; 1 s */
	double decay_s;           /* --decay: live sampling's tree shows counts
	                           * halved every decay_s seconds (the session
	                           * keeps them all); 0: counts accumulate */
	int agent_pane;           /* show the agent pane (calibrated runs) */
	unsigned steps;           /* --steps N: at most N steps; 0: 5 */
	double budget_pct;        /* --budget: a step's overhead budget; 0: the kind's */
	int auto_accept;          /* --auto: accept every proposal */
	struct load *load;        /* the load steps pause (measure_load); not owned */
	struct step_scope scope;  /* the processes steps are scoped to
	                           * (step_scope_of_run); zero: system-wide */
	const char *session_path; /* the session being written or replayed: `w`
	                           * names its report after it; NULL: a time stamp */
	struct session *session;  /* the session being written (the agent pane
	                           * records its steps there); not owned; NULL */
	int sequential;           /* calibrate with the anytime-valid test (the
	                           * measure source stops when settled) */
	uint32_t exclude_tgid;    /* stacks of this process are left out of the
	                           * tree (argus's own, live); 0: none */
	struct opts_agent *agent; /* --agent, --redact (tui/opts_agent.h): the agent
	                           * pane makes its agent with opts_agent_new; may
	                           * be NULL */
};

/* Defaults above. */
void tui_opts_default(struct tui_opts *o);

/* Runs the interactive tree over src until the person quits or a signal
 * ends it; src is stopped (not freed) before returning.  Returns 0, or
 * -errno with *cause set (caller frees; print it: the terminal is already
 * restored). */
int tui_run(struct source *src, const struct tui_opts *o, char **cause);

#endif
