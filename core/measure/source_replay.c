/* source_replay — a session replayed event by event (see source_replay.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "measure/source_replay.h"

struct replay_priv {
	struct session_log *log;
	size_t pos;
	unsigned nwin;             /* step-0 windows in the current profile */
	struct profile *p;         /* the step-0 windows among events [0, pos) */
	int changed;
	unsigned freq_hz;
	uint64_t samples;
	char detail[96];
};

static const struct source_ops replay_ops;

/* Step-0 windows among events [0, pos). */
static unsigned replay_windows_upto(const struct session_log *l, size_t pos)
{
	unsigned n = 0;

	for (size_t i = 0; i < pos && i < l->nev; i++)
		if (l->ev[i].type == SESSION_EV_WINDOW && l->ev[i].step == 0)
			n++;
	return n;
}

/* A copy of the first nwin windows of the full profile. */
static struct profile *replay_profile(const struct profile *full, unsigned nwin)
{
	struct profile *q = profile_new();

	if (!q)
		return NULL;
	if (!full)
		return q;
	if (nwin > full->nwin)
		nwin = full->nwin;
	for (unsigned w = 0; w < nwin; w++) {
		if (profile_window_begin(q, full->wins[w].cond, full->wins[w].start_s) < 0)
			goto fail;
		profile_window_end(q, w, full->wins[w].secs);
		q->wins[w].lost = full->wins[w].lost;
		q->wins[w].ustack_errors = full->wins[w].ustack_errors;
		q->wins[w].works_traced = full->wins[w].works_traced;
	}
	/* what the kworkers ran, as the workqueue tracepoint counted it */
	for (size_t i = 0; i < full->nworks; i++) {
		const struct profile_work *e = &full->works[i];

		if (e->win < nwin && profile_work_add(q, e->win, e->pid, e->func, e->count) < 0)
			goto fail;
	}
	for (size_t i = 0; i < full->nstacks; i++) {
		const struct profile_stack *s = &full->stacks[i];

		for (unsigned w = 0; w < nwin; w++)
			if (s->win[w] && profile_add_user(q, w, s->frames, s->nframes, s->uframes,
							  s->nuframes, s->tgid, s->comm,
						     s->win[w]) < 0)
				goto fail;
	}
	/* who the processes are and which are diagnosed, as recorded */
	if (profile_copy_about(q, full) < 0)
		goto fail;
	return q;
fail:
	profile_free(q);
	errno = ENOMEM;
	return NULL;
}

static void replay_detail(struct replay_priv *rp)
{
	const struct session_event *e = rp->pos ? &rp->log->ev[rp->pos - 1] : NULL;

	snprintf(rp->detail, sizeof(rp->detail), "replay event %zu/%zu: %s", rp->pos,
		 rp->log->nev, e ? session_event_name(e->type) : "start (n steps forward)");
}

int source_replay_seek(struct source *s, size_t pos)
{
	struct replay_priv *rp;
	unsigned nwin;

	if (!source_replay_is(s))
		return -EINVAL;
	rp = s->priv;
	if (pos > rp->log->nev)
		pos = rp->log->nev;
	rp->pos = pos;
	replay_detail(rp);
	nwin = replay_windows_upto(rp->log, pos);
	if (rp->p && nwin == rp->nwin)
		return 0;
	struct profile *np = replay_profile(rp->log->profile, nwin);
	if (!np)
		return -errno;
	profile_free(rp->p);
	rp->p = np;
	rp->nwin = nwin;
	rp->samples = 0;
	for (size_t i = 0; i < np->nstacks; i++)
		rp->samples += np->stacks[i].total;
	rp->changed = 1;
	return 1;
}

static int replay_tick(struct source *s, double now_s, char **cause)
{
	struct replay_priv *rp = s->priv;

	(void)now_s;
	(void)cause;
	if (!rp->changed)
		return 0;
	rp->changed = 0;
	return 1;
}

static int replay_timeout_ms(struct source *s, double now_s)
{
	struct replay_priv *rp = s->priv;

	(void)now_s;
	return rp->changed ? 0 : 60000;
}

static const struct profile *replay_prof(struct source *s)
{
	return ((struct replay_priv *)s->priv)->p;
}

static void replay_status(struct source *s, struct source_status *st)
{
	struct replay_priv *rp = s->priv;

	memset(st, 0, sizeof(*st));
	st->phase = SOURCE_STATIC;
	st->nwindows = rp->nwin;
	st->window = rp->nwin ? rp->nwin - 1 : 0;
	st->samples = rp->samples;
	st->freq_hz = rp->freq_hz;
	st->overhead_pct = -1;
	st->closed = rp->nwin;
	st->detail = rp->detail;
	st->dropped = profile_lost(rp->p);
}

static void replay_stop(struct source *s)
{
	(void)s;
}

static void replay_free(struct source *s)
{
	struct replay_priv *rp;

	if (!s)
		return;
	rp = s->priv;
	if (rp) {
		profile_free(rp->p);
		session_log_clear(rp->log);
		free(rp->log);
		free(rp);
	}
	free(s);
}

static const struct source_ops replay_ops = {
	.name = "replay",
	.pollfds = NULL,
	.tick = replay_tick,
	.timeout_ms = replay_timeout_ms,
	.profile = replay_prof,
	.status = replay_status,
	.stop = replay_stop,
	.free = replay_free,
};

static unsigned replay_header_freq(const struct session_log *l)
{
	cJSON *o = l->options_json ? cJSON_Parse(l->options_json) : NULL;
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(o, "freq_hz");
	unsigned hz = 0;

	if (cJSON_IsNumber(f) && f->valuedouble > 0 && f->valuedouble < 1e6)
		hz = (unsigned)f->valuedouble;
	cJSON_Delete(o);
	return hz;
}

struct source *source_replay_new(struct session_log *log_owned, size_t start)
{
	struct source *s = calloc(1, sizeof(*s));
	struct replay_priv *rp = calloc(1, sizeof(*rp));
	int err;

	if (!s || !rp || !log_owned) {
		err = log_owned ? ENOMEM : EINVAL;
		goto fail;
	}
	rp->log = log_owned;
	rp->freq_hz = replay_header_freq(log_owned);
	s->ops = &replay_ops;
	s->priv = rp;
	if (source_replay_seek(s, start) < 0) {
		err = ENOMEM;
		s->priv = NULL;
		goto fail;
	}
	rp->changed = 1;
	return s;
fail:
	if (log_owned) {
		session_log_clear(log_owned);
		free(log_owned);
	}
	if (rp)
		profile_free(rp->p);
	free(rp);
	free(s);
	errno = err;
	return NULL;
}

int source_replay_is(struct source *s)
{
	return s && s->ops == &replay_ops && s->priv;
}

const struct session_log *source_replay_log(struct source *s)
{
	return source_replay_is(s) ? ((struct replay_priv *)s->priv)->log : NULL;
}

size_t source_replay_pos(struct source *s)
{
	return source_replay_is(s) ? ((struct replay_priv *)s->priv)->pos : 0;
}

size_t source_replay_count(struct source *s)
{
	return source_replay_is(s) ? ((struct replay_priv *)s->priv)->log->nev : 0;
}

unsigned source_replay_freq(struct source *s)
{
	return source_replay_is(s) ? ((struct replay_priv *)s->priv)->freq_hz : 0;
}

const struct session_event *source_replay_current(struct source *s)
{
	struct replay_priv *rp;

	if (!source_replay_is(s))
		return NULL;
	rp = s->priv;
	return rp->pos ? &rp->log->ev[rp->pos - 1] : NULL;
}

const struct verdict *source_replay_verdict(struct source *s)
{
	struct replay_priv *rp;

	if (!source_replay_is(s))
		return NULL;
	rp = s->priv;
	{
		const struct session_event *e = session_log_diagnosis(rp->log, rp->pos);

		return e ? &e->verdict : NULL;
	}
}

/* The "kind" and "target" of a spec's JSON text, for one line. */
static void replay_spec_line(const char *spec, char *buf, size_t len)
{
	cJSON *o = spec ? cJSON_Parse(spec) : NULL;
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kind");
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "target");

	snprintf(buf, len, "%s%s%s", cJSON_IsString(k) ? k->valuestring : "?",
		 cJSON_IsString(t) ? " " : "", cJSON_IsString(t) ? t->valuestring : "");
	cJSON_Delete(o);
}

char *source_replay_event_text(const struct session_event *e, char *buf, size_t len)
{
	char spec[160];

	if (!len)
		return buf;
	if (!e) {
		snprintf(buf, len, "the session before its first event");
		return buf;
	}
	switch (e->type) {
	case SESSION_EV_WINDOW:
		snprintf(buf, len, "%s window %d of step %u: %llu samples",
			 e->cond == COND_REF ? "reference" : "loaded", e->window + 1, e->step,
			 (unsigned long long)e->samples);
		break;
	case SESSION_EV_PROPOSAL:
		replay_spec_line(e->spec_json, spec, sizeof(spec));
		snprintf(buf, len, "%s proposes step %u: %s%s%s", e->agent && *e->agent ? e->agent : "agent",
			 e->step, spec, e->nlines ? " - " : "", e->nlines ? e->lines[0] : "");
		break;
	case SESSION_EV_DECISION:
		snprintf(buf, len, "%s %s step %u%s%s", e->by ? e->by : "human",
			 e->decision == SESSION_ACCEPT ? "accepted" : e->decision == SESSION_EDIT ?
			 "edited and accepted" : e->decision == SESSION_VETO ? "vetoed" : "undid",
			 e->step, e->text ? ": " : "", e->text ? e->text : "");
		break;
	case SESSION_EV_STEP_RESULT:
		snprintf(buf, len, "step %u %s: %s", e->step, e->status ? e->status : "done",
			 e->text ? e->text : "");
		break;
	case SESSION_EV_TRANSCRIPT:
		snprintf(buf, len, "%s: %s", e->who ? e->who : "argus", e->text ? e->text : "");
		break;
	case SESSION_EV_LLM_TURN:
		snprintf(buf, len, "llm %s %s: %s, %.1f s, %llu+%llu tokens",
			 e->provider ? e->provider : "", e->model ? e->model : "",
			 e->status ? e->status : "?", e->latency_s,
			 (unsigned long long)e->tokens_in, (unsigned long long)e->tokens_out);
		break;
	case SESSION_EV_VERDICT:
		if (e->focus)   /* an exploration after the verdict: a finding of its own */
			snprintf(buf, len, "finding (%s): %s%s", e->focus,
				 e->verdict.found ? "" : "no bottleneck found: ",
				 e->verdict.summary ? e->verdict.summary : "");
		else
			snprintf(buf, len, "%s: %s", e->verdict.found ? "verdict" :
				 "no bottleneck found", e->verdict.summary ? e->verdict.summary : "");
		break;
	case SESSION_EV_NOTE:
		snprintf(buf, len, "note: %s", e->text ? e->text : "");
		break;
	case SESSION_EV_MODEL:
		snprintf(buf, len, "model of the load: %s (m shows it)", e->text ? e->text : "");
		break;
	default:
		snprintf(buf, len, "%s", session_event_name(e->type));
		break;
	}
	return buf;
}
