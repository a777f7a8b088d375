/* step_scope — whose events a step counts.
 *
 * A run that diagnoses processes (--load and --victim: the cgroup argus made
 * for them, or their process when there is no cgroup; -p PID: that process)
 * scopes every step to them by default: a step proposed without a process
 * filter gets the run's cgroup or tgid put into its filter, and its scope
 * becomes "load".  On a busy host a page-fault count then reads
 * "0/s -> 274.2k/s" (the load's own faults, none while it is paused), not
 * "224.9k/s -> 463.7k/s" (everyone's).  "scope": "system" (JSON, or the
 * scope field in the editor) widens it to every process; a filter the agent
 * gave itself (a pid, tgid or cgroup) is kept as it is.
 *
 * With -p PID and no --pause nothing can be paused: a step then has no
 * reference condition, and the run's scope says so (no_reference), for the
 * controller to say before anything is accepted.
 */
#ifndef ARGUS_STEP_SCOPE_H
#define ARGUS_STEP_SCOPE_H

#include <stddef.h>

#include "data/step.h"

enum step_scope_by {
	STEP_SCOPE_BY_NONE = 0,     /* the run diagnoses the whole system */
	STEP_SCOPE_BY_CGROUP,       /* the cgroup argus made for the load */
	STEP_SCOPE_BY_TGID,         /* one process (-p, --victim-pid, no cgroup) */
};

/* The run's processes, as steps are scoped to them. */
struct step_scope {
	enum step_scope_by by;
	char cgroup[512];           /* BY_CGROUP: the absolute directory */
	int tgid;                   /* BY_TGID; else the main process, 0 unknown */
	char what[48];              /* "the load", "the victim", "PID 1234" */
	int no_reference;           /* -p without --pause: no reference windows */
};

struct load;

/* The scope of a run: the victim when there is one (it is what is
 * diagnosed), else the load (a cgroup when argus made one, else its
 * process), else pid (-p without --pause: no load to pause, so
 * no_reference).  All NULL / 0: by NONE. */
void step_scope_of_run(struct step_scope *out, struct load *load, struct load *victim, int pid);

/* Applies the run's scope sc (NULL or BY_NONE: none) to s, a proposal or an
 * edit: with scope auto or load and no pid, tgid or cgroup in its filter,
 * the run's cgroup or tgid is put there and the scope set to load.  Scope
 * system, or a process filter of the agent's own, is left alone.  Returns
 * 0; -EINVAL with *err (field "scope") for scope load in a run with no
 * processes to scope to; -ENOMEM. */
int step_scope_apply(const struct step_scope *sc, struct step *s, struct step_error *err);

/* One line for the proposal card and the pre-flight: "the load (cgroup
 * argus-12-1); scope=system widens it", "system-wide; scope=load narrows it
 * to the load", "filter tgid=7 comm=x", with "; no reference: ..." when sc
 * says so.  sc may be NULL (a replay).  Returns buf. */
char *step_scope_describe(const struct step *s, const struct step_scope *sc, char *buf,
			  size_t len);

/* The sentence said before a step is accepted in a run without reference
 * windows (-p without --pause); "" when sc has them.  Returns buf. */
char *step_scope_no_reference(const struct step_scope *sc, char *buf, size_t len);

#endif
