/* source_session — a source that writes the windows of the source it wraps
 * to a session file as they close (see source_session.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "analysis/analysis.h"
#include "probe/caps.h"
#include "measure/measure.h"
#include "model/model_view.h"
#include "measure/source_session.h"
#include "model/model_write.h"

struct ses_priv {
	struct source *in;
	struct session *s;
	struct source_session_opts o;
	unsigned written;          /* windows [0, written) are in the file */
	int err;
	int verdict_done;
	int model_done;
	int stop_noted;
	int stopped;
};

static const struct source_ops ses_ops;

static void ses_fail(struct ses_priv *sp, int err)
{
	if (!err || sp->err)
		return;
	sp->err = err;
	if (sp->o.log)
		fprintf(sp->o.log, "argus: cannot write the session %s: %s; the run goes on "
			"unrecorded\n", session_path(sp->s), strerror(-err));
}

/* Writes windows [written, upto) of the inner profile. */
static void ses_write_upto(struct ses_priv *sp, unsigned upto)
{
	const struct profile *p = sp->in->ops->profile(sp->in);

	if (!p || sp->err)
		return;
	if (upto > p->nwin)
		upto = p->nwin;
	while (sp->written < upto) {
		int err = session_write_window_without(sp->s, p, sp->written, sp->o.step,
						       sp->o.exclude_tgid);
		if (err) {
			ses_fail(sp, err);
			return;
		}
		sp->written++;
	}
}

/* The analysis of what was measured, written as the session's conclusion
 * (the interactive argus; diagnose writes its own). */
static void ses_verdict(struct ses_priv *sp)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .exclude_tgid = sp->o.exclude_tgid,
				    .freq_hz = sp->o.freq_hz, .explain = 0.5 };
	struct analysis an;
	struct calib_opts co;
	char *cause = NULL, why[160], line[512];
	int err;

	sp->verdict_done = 1;
	calib_opts_default(&co);
	co.sequential = sp->o.sequential; /* as valid as the stop was */
	ao.calib = &co;
	err = analysis_run(sp->in->ops->profile(sp->in), NULL, 0, &ao, &an, &cause);
	if (!err && !an.calibrated)
		snprintf(line, sizeof(line), "no verdict: cannot calibrate: %s",
			 analysis_calib_reason(&an, why, sizeof(why)));
	else if (!err && !an.descended)
		snprintf(line, sizeof(line), "no verdict: the descent failed: %s",
			 strerror(-an.descent_err));
	else if (err)
		snprintf(line, sizeof(line), "no verdict: %s", cause ? cause : strerror(-err));
	if (err || !an.calibrated || !an.descended)
		session_write_note(sp->s, line);
	else
		ses_fail(sp, session_write_conclusion(sp->s, an.lines, an.nlines, an.naive_subsystem,
						      an.naive_path, an.nnaive, &an.verdict));
	analysis_clear(&an);
	free(cause);
}

/* The model of the load from the loaded windows' waits (time accounting
 * on; the windows --steady / --mark chose), written once with the windows
 * it was built from, so a replay can show it (session_log_model).  A model
 * that cannot be made leaves a note (and a line on the log: batch). */
static void ses_model(struct ses_priv *sp)
{
	struct measure_windows mw;
	struct model_opts mo = { .exclude_tgid = sp->o.exclude_tgid ? sp->o.exclude_tgid :
				 (uint32_t)getpid() };
	struct model_chain c;
	struct model *m = NULL;
	char *cause = NULL, *json = NULL, chain[512] = "", line[900];
	size_t len = 0;
	FILE *f;
	int err;

	sp->model_done = 1;
	err = measure_model_windows(sp->in, &mw);
	if (err == -ENOENT || sp->err)
		return;             /* no time accounting: no model to speak of */
	if (err || !mw.g || !(mw.g->secs > 0)) {
		snprintf(line, sizeof(line), "no model of the load: %s", mw.why);
		goto note;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return;
	err = model_build(mw.g, &mo, m, &cause);
	if (err) {
		snprintf(line, sizeof(line), "no model of the load (%s): %s", mw.used,
			 cause ? cause : strerror(-err));
		goto note;
	}
	if (!model_wait_chain(m, &c))
		model_chain_text(m, &c, 1, chain, sizeof(chain));
	f = open_memstream(&json, &len);
	if (!f)
		goto out;
	err = model_write_json(m, NULL, f);
	if (fclose(f) || err)
		goto out;
	ses_fail(sp, session_write_model(sp->s, json, chain[0] ? chain : NULL, mw.used,
					 mw.first, mw.last, mw.n));
	if (sp->o.log)
		fprintf(sp->o.log, "argus: model of the load from %s\n", mw.used);
	goto out;
note:
	ses_fail(sp, session_write_note(sp->s, line));
	if (sp->o.log)
		fprintf(sp->o.log, "argus: %s\n", line);
out:
	free(json);
	free(cause);
	free(m);
}

static int ses_pollfds(struct source *s, struct pollfd *fds, int max)
{
	struct ses_priv *sp = s->priv;

	return sp->in->ops->pollfds ? sp->in->ops->pollfds(sp->in, fds, max) : 0;
}

static int ses_tick(struct source *s, double now_s, char **cause)
{
	struct ses_priv *sp = s->priv;
	struct source_status st;
	int rc = sp->in->ops->tick(sp->in, now_s, cause);

	if (rc < 0)
		return rc;
	sp->in->ops->status(sp->in, &st);
	if (st.closed > sp->written)
		ses_write_upto(sp, st.closed);
	if (st.phase == SOURCE_DONE && st.detail && !sp->stop_noted && !sp->err) {
		char line[320];

		sp->stop_noted = 1;
		const char *why = NULL, *win = NULL;
		unsigned np = 0;
		int settled = 0;

		/* the full reason when the inner source is a measurement */
		if (measure_stopping(sp->in, &why, &np, &settled, &win) < 0 || !why)
			why = st.detail;
		snprintf(line, sizeof(line), "measuring stopped: %s", why);
		ses_fail(sp, session_write_note(sp->s, line));
	}
	if (st.phase == SOURCE_DONE && !sp->model_done)
		ses_model(sp);
	if (st.phase == SOURCE_DONE && sp->o.verdict_at_done && !sp->verdict_done && !sp->err)
		ses_verdict(sp);
	return rc;
}

static int ses_timeout_ms(struct source *s, double now_s)
{
	struct ses_priv *sp = s->priv;

	return sp->in->ops->timeout_ms ? sp->in->ops->timeout_ms(sp->in, now_s) : -1;
}

static const struct profile *ses_profile(struct source *s)
{
	struct ses_priv *sp = s->priv;

	return sp->in->ops->profile(sp->in);
}

static void ses_status(struct source *s, struct source_status *st)
{
	struct ses_priv *sp = s->priv;

	sp->in->ops->status(sp->in, st);
}

static void ses_stop(struct source *s)
{
	struct ses_priv *sp = s->priv;
	struct source_status st;

	if (sp->stopped)
		return;
	sp->stopped = 1;
	sp->in->ops->status(sp->in, &st);
	ses_write_upto(sp, st.closed);
	if (st.phase == SOURCE_LIVE) {
		/* open-ended sampling: its window as it stands */
		const struct profile *p = sp->in->ops->profile(sp->in);

		ses_write_upto(sp, p ? p->nwin : 0);
	} else if (st.phase != SOURCE_DONE && st.phase != SOURCE_STATIC && !sp->err) {
		char line[160];

		snprintf(line, sizeof(line), "measurement stopped after %u of %u windows "
			 "(argus was asked to quit)", sp->written, st.nwindows);
		ses_fail(sp, session_write_note(sp->s, line));
	}
	if (!sp->model_done)
		ses_model(sp);   /* what the loaded windows so far showed */
	if (sp->in->ops->stop)
		sp->in->ops->stop(sp->in);
}

/* A reset (source.h): the window it closed is written now, while the inner
 * source still holds its stacks (its next tick lets them go). */
static int ses_reset(struct source *s, double now_s, char **cause)
{
	struct ses_priv *sp = s->priv;
	struct source_status st;
	int err;

	if (!sp->in->ops->reset)
		return -ENOTSUP;
	err = sp->in->ops->reset(sp->in, now_s, cause);
	if (err)
		return err;
	sp->in->ops->status(sp->in, &st);
	ses_write_upto(sp, st.closed);
	return 0;
}

static void ses_free(struct source *s)
{
	struct ses_priv *sp;

	if (!s)
		return;
	sp = s->priv;
	if (sp)
		source_free(sp->in);
	free(sp);
	free(s);
}

static const struct source_ops ses_ops = {
	.name = "session",
	.pollfds = ses_pollfds,
	.tick = ses_tick,
	.timeout_ms = ses_timeout_ms,
	.profile = ses_profile,
	.status = ses_status,
	.stop = ses_stop,
	.free = ses_free,
	.reset = ses_reset,
};

struct source *source_session_new(struct source *inner, struct session *ses,
				  const struct source_session_opts *o)
{
	struct source *s = NULL;
	struct ses_priv *sp = NULL;

	if (!inner || !ses) {
		source_free(inner);
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	sp = calloc(1, sizeof(*sp));
	if (!s || !sp) {
		free(s);
		free(sp);
		source_free(inner);
		errno = ENOMEM;
		return NULL;
	}
	sp->in = inner;
	sp->s = ses;
	if (o)
		sp->o = *o;
	s->ops = &ses_ops;
	s->priv = sp;
	{
		/* a busy reference is warned about at every use: a replay and
		 * the report of this session are uses too (they read this note) */
		char w[700], line[720];

		if (measure_ref_busy_warning(inner, w, sizeof(w))) {
			snprintf(line, sizeof(line), "warning: %s", w);
			ses_fail(sp, session_write_note(ses, line));
		}
	}
	return s;
}

struct source *source_session_inner(struct source *s)
{
	return s && s->ops == &ses_ops ? ((struct ses_priv *)s->priv)->in : s;
}

unsigned source_session_windows(struct source *s)
{
	return s && s->ops == &ses_ops ? ((struct ses_priv *)s->priv)->written : 0;
}

int source_session_error(struct source *s)
{
	return s && s->ops == &ses_ops ? ((struct ses_priv *)s->priv)->err : 0;
}

static int ses_add_argv(cJSON *o, const char *key, char *const *argv)
{
	size_t len = 1;
	char *s;

	if (!argv)
		return 0;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	if (!s)
		return -ENOMEM;
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	cJSON *v = cJSON_AddStringToObject(o, key, s);
	free(s);
	return v ? 0 : -ENOMEM;
}

char *session_options_measure(const char *command, const struct measure_opts *mo,
			      const char *load_cmd, uint32_t exclude_tgid)
{
	cJSON *o = cJSON_CreateObject();
	char *txt = NULL;

	if (!o)
		goto nomem;
	cJSON_AddStringToObject(o, "command", command ? command : "");
	if (load_cmd)
		cJSON_AddStringToObject(o, "load", load_cmd);
	else if (ses_add_argv(o, "load", mo->load_argv))
		goto nomem;
	if (ses_add_argv(o, "victim", mo->victim_argv) ||
	    ses_add_argv(o, "background", mo->background_argv))
		goto nomem;
	if (mo->victim_pid)
		cJSON_AddNumberToObject(o, "victim_pid", mo->victim_pid);
	if (mo->pid) {
		cJSON_AddNumberToObject(o, "pid", mo->pid);
		cJSON_AddBoolToObject(o, "pause", mo->pause);
	}
	cJSON_AddNumberToObject(o, "pairs", mo->pairs);
	/* how the windows were stopped: readers calibrate the same way */
	cJSON_AddBoolToObject(o, "sequential", mo->sequential && !mo->reference_only);
	if (mo->sequential && !mo->reference_only)
		cJSON_AddNumberToObject(o, "min_pairs", mo->min_pairs);
	cJSON_AddNumberToObject(o, "window_s", mo->window_s);
	cJSON_AddNumberToObject(o, "settle_s", mo->settle_s);
	cJSON_AddNumberToObject(o, "freq_hz", mo->freq_hz);
	if (exclude_tgid)
		cJSON_AddNumberToObject(o, "exclude_tgid", exclude_tgid);
	txt = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!txt)
		errno = ENOMEM;
	return txt;
nomem:
	cJSON_Delete(o);
	errno = ENOMEM;
	return NULL;
}

char *session_caps_json(void)
{
	const struct caps *c = caps_cached();

	return c ? caps_to_json(c) : NULL;
}

int session_options_sequential(const char *options_json)
{
	cJSON *o = options_json ? cJSON_Parse(options_json) : NULL;
	int seq = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "sequential"));

	cJSON_Delete(o);
	return seq;
}
