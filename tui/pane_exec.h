/* pane_exec — the agent pane's narrow view of the step executor.
 *
 * The pane runs an accepted step through these few calls and never sees
 * the executor's own types, so the executor (core/step_exec.h, merged
 * from the exec branch) plugs in here alone.  Built without it, every run
 * fails with ENOSYS and a reason the pane shows.
 */
#ifndef ARGUS_PANE_EXEC_H
#define ARGUS_PANE_EXEC_H

#include <stddef.h>

#include "source.h"
#include "step.h"
#include "tree.h"

struct load;
struct session;
struct pane_exec;
struct pane_result;        /* a finished step's data */

/* 1 when this build can run steps. */
int pane_exec_available(void);

/* Starts validated step s (copied) against load (paused in its reference
 * windows; not owned, may be NULL).  Returns NULL with errno and *cause
 * set (caller frees). */
struct pane_exec *pane_exec_new(const struct step *s, struct load *load, int sequential,
				 char **cause);
/* Advances to now; 1 changed, 0 not, -errno with *cause when it failed. */
int pane_exec_tick(struct pane_exec *x, double now, char **cause);
/* Milliseconds until the next tick is due, -1 when over. */
int pane_exec_timeout_ms(struct pane_exec *x, double now);
/* 1 once over (done, over budget, stopped, failed). */
int pane_exec_finished(const struct pane_exec *x);
/* Progress as a source status (phase SOURCE_STEP...). */
void pane_exec_status(struct pane_exec *x, struct source_status *st);
/* Why it ended early ("stopped: over budget ..."), "" when it ran to its
 * end; into buf, returns buf. */
char *pane_exec_reason(const struct pane_exec *x, char *buf, size_t len);
/* Hands the finished data over (caller frees with pane_result_free); NULL
 * with errno when there is none. */
struct pane_result *pane_exec_take(struct pane_exec *x);
/* Stops (detaches) and frees; NULL-safe. */
void pane_exec_free(struct pane_exec *x);

/* Pre-flight of step s (validates it, counts with its probe for ~0.25 s,
 * detaches): one line for people ("attaches (1 program); ~12.1k events/s,
 * overhead ~0.4% of a CPU") into buf.  0 when it may be offered, -errno
 * when not (buf says why). */
int pane_exec_preflight(struct step *s, char *buf, size_t len);

/* One line for the transcript (caller frees), NULL with errno. */
char *pane_result_summary(const struct pane_result *r, const struct step *s, int utf8);
/* Merges the result into t as step idx (before calib_run); 0 or -errno. */
int pane_result_merge(const struct pane_result *r, const struct step *s, struct tree *t,
		      unsigned idx);
void pane_result_free(struct pane_result *r); /* NULL-safe */

/* Writes the outcome of finished x (its data res, NULL when none; s the step
 * as run) to ses as session step (1-based): a step_result with summary and
 * then the step's windows.  ses NULL: nothing.  0 or -errno. */
int pane_exec_record(struct session *ses, const struct pane_exec *x,
		     const struct pane_result *res, const struct step *s, unsigned step,
		     const char *summary);

#endif
