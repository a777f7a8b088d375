/* pane_exec — the executor behind the pane (core/step_exec.h when built in). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane_exec.h"
#include "session.h"

#if __has_include("step_exec.h") && __has_include("step_merge.h")
#include "caps.h"
#include "session_step.h"
#include "step_exec.h"
#include "step_merge.h"
#include "step_preflight.h"

int pane_exec_preflight(struct step *s, char *buf, size_t len)
{
	struct step_preflight pf;
	int err;

	memset(&pf, 0, sizeof(pf));
	err = step_preflight(s, caps_cached(), NULL, 0, NULL, &pf);
	step_preflight_line(&pf, buf, len);
	step_preflight_clear(&pf);
	return err;
}

int pane_exec_available(void)
{
	return 1;
}

struct pane_exec *pane_exec_new(const struct step *s, struct load *load, int sequential,
				 char **cause)
{
	struct step_exec_opts o;

	step_exec_opts_default(&o);
	o.load = load;
	o.sequential = sequential;
	o.collect_s = 0.5;
	return (struct pane_exec *)step_exec_new(s, &o, cause);
}

int pane_exec_tick(struct pane_exec *x, double now, char **cause)
{
	return step_exec_tick((struct step_exec *)x, now, cause);
}

int pane_exec_timeout_ms(struct pane_exec *x, double now)
{
	return step_exec_timeout_ms((struct step_exec *)x, now);
}

int pane_exec_finished(const struct pane_exec *x)
{
	return step_exec_finished((const struct step_exec *)x);
}

void pane_exec_status(struct pane_exec *x, struct source_status *st)
{
	step_exec_status((struct step_exec *)x, st);
}

char *pane_exec_reason(const struct pane_exec *x, char *buf, size_t len)
{
	struct step_exec_info info;

	step_exec_info((const struct step_exec *)x, &info);
	snprintf(buf, len, "%s", info.reason);
	return buf;
}

struct pane_result *pane_exec_take(struct pane_exec *x)
{
	struct step_data *d = step_exec_take_data((struct step_exec *)x);

	if (!d && !errno)
		errno = ENODATA;
	return (struct pane_result *)d;
}

void pane_exec_free(struct pane_exec *x)
{
	step_exec_free((struct step_exec *)x);
}

char *pane_result_summary(const struct pane_result *r, const struct step *s, int utf8)
{
	return step_summary(s, (const struct step_data *)r, utf8);
}

int pane_result_merge(const struct pane_result *r, const struct step *s, struct tree *t,
		      unsigned idx)
{
	return step_merge_into_tree(t, s, (const struct step_data *)r, idx);
}

void pane_result_free(struct pane_result *r)
{
	step_data_free((struct step_data *)r);
}

int pane_exec_record(struct session *ses, const struct pane_exec *x,
		     const struct pane_result *res, const struct step *s, unsigned step,
		     const char *summary)
{
	struct step_exec_info info;

	if (!ses)
		return 0;
	if (x)
		step_exec_info((const struct step_exec *)x, &info);
	return session_step_result(ses, step, s, (const struct step_data *)res, x ? &info : NULL,
				   summary, 0);
}

#else /* no executor in this build */

int pane_exec_preflight(struct step *s, char *buf, size_t len)
{
	(void)s;
	snprintf(buf, len, "not estimated (no pre-flight in this build)");
	return 0;
}

int pane_exec_available(void)
{
	return 0;
}

struct pane_exec *pane_exec_new(const struct step *s, struct load *load, int sequential,
				 char **cause)
{
	(void)s;
	(void)load;
	(void)sequential;
	if (cause && asprintf(cause, "cannot run the step: this build has no step executor "
			      "(core/step_exec.c); nothing was loaded") < 0)
		*cause = NULL;
	errno = ENOSYS;
	return NULL;
}

int pane_exec_tick(struct pane_exec *x, double now, char **cause)
{
	(void)x;
	(void)now;
	(void)cause;
	return -ENOSYS;
}

int pane_exec_timeout_ms(struct pane_exec *x, double now)
{
	(void)x;
	(void)now;
	return -1;
}

int pane_exec_finished(const struct pane_exec *x)
{
	(void)x;
	return 1;
}

void pane_exec_status(struct pane_exec *x, struct source_status *st)
{
	(void)x;
	memset(st, 0, sizeof(*st));
	st->phase = SOURCE_DONE;
	st->overhead_pct = -1;
}

char *pane_exec_reason(const struct pane_exec *x, char *buf, size_t len)
{
	(void)x;
	snprintf(buf, len, "no step executor in this build");
	return buf;
}

struct pane_result *pane_exec_take(struct pane_exec *x)
{
	(void)x;
	errno = ENOSYS;
	return NULL;
}

void pane_exec_free(struct pane_exec *x)
{
	(void)x;
}

char *pane_result_summary(const struct pane_result *r, const struct step *s, int utf8)
{
	(void)r;
	(void)s;
	(void)utf8;
	errno = ENOSYS;
	return NULL;
}

int pane_result_merge(const struct pane_result *r, const struct step *s, struct tree *t,
		      unsigned idx)
{
	(void)r;
	(void)s;
	(void)t;
	(void)idx;
	return -ENOSYS;
}

void pane_result_free(struct pane_result *r)
{
	(void)r;
}

int pane_exec_record(struct session *ses, const struct pane_exec *x,
		     const struct pane_result *res, const struct step *s, unsigned step,
		     const char *summary)
{
	(void)x;
	(void)res;
	(void)s;
	if (!ses)
		return 0;
	return session_write_step_result(ses, step, "error", summary ? summary : "not run", NULL);
}
#endif
