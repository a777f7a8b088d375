/* agent_select — --agent heuristic|llm, and the LLM with the heuristic as
 * its fallback (see agent_select.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_heuristic.h"
#include "agent/agent_select.h"
#include "probe/caps.h"
#include "base/util.h"

#define AS_NO_LLM "no LLM configured (set ARGUS_LLM_PROVIDER, ARGUS_LLM_URL, ARGUS_LLM_MODEL " \
	"or $XDG_CONFIG_HOME/argus/config); using the heuristic agent"

/* The wrapper: the LLM, and the heuristic for the turns the LLM fails. */
struct agent_fb {
	struct agent base;
	struct agent *llm, *heur;
	struct agent_ctx ctx;         /* of the turn in flight */
	int busy;
	unsigned repairs0;            /* the LLM's repair counter when the turn began */
	agent_turn_cb on_turn;
	void *turn_arg;
	char provider[16];
	char *model;
	const struct caps *caps;
	const char *reasons[STEP_KIND_N];
};

static int fb_validate(struct step *s, void *arg, struct step_error *err)
{
	return step_validate(s, arg, NULL, err);
}

static void fb_account(struct agent_fb *fb, const char *status, const char *error)
{
	struct agent_llm_stats st;
	struct agent_turn_info ti = { 0 };

	if (!fb->on_turn)
		return;
	agent_llm_stats(fb->llm, &st);
	ti.provider = fb->provider;
	ti.model = fb->model;
	ti.latency_s = st.last_latency_s;
	ti.tokens_in = st.last_tokens_in;
	ti.tokens_out = st.last_tokens_out;
	ti.requests = st.repairs > fb->repairs0 ? 2 : 1;
	ti.status = status;
	ti.error = error && *error ? error : NULL;
	ti.note = *agent_llm_note(fb->llm) ? agent_llm_note(fb->llm) : NULL;
	fb->on_turn(&ti, fb->turn_arg);
}

/* Puts a line first in r's reasoning. */
static int line_first(struct agent_reply *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int line_first(struct agent_reply *r, const char *fmt, ...)
{
	va_list ap;
	char *last;
	int err;

	va_start(ap, fmt);
	err = util_lines_vadd(&r->lines, &r->nlines, fmt, ap);
	va_end(ap);
	if (err)
		return err;
	last = r->lines[r->nlines - 1];
	memmove(r->lines + 1, r->lines, (r->nlines - 1) * sizeof(*r->lines));
	r->lines[0] = last;
	return 0;
}

/* The LLM failed this turn (rc): the heuristic takes it, the reply says so. */
static int fb_fallback(struct agent_fb *fb, int rc, struct agent_reply *out)
{
	static const char twice[] = "the LLM's reply was still unusable after a repair turn: ";
	const char *why = agent_llm_error(fb->llm);
	struct agent_llm_stats st;
	int err;

	if (!why || !*why)
		why = strerror(-rc);
	agent_llm_stats(fb->llm, &st);
	fb_account(fb, "fallback", why);
	agent_reply_clear(out);
	err = fb->heur->ops->turn(fb->heur, &fb->ctx, out);
	if (err)
		return err;
	err = line_first(out, "llm: %.2f s, %lu tokens in, %lu out, %u request%s for this turn",
			 st.last_latency_s, st.last_tokens_in, st.last_tokens_out,
			 st.repairs > fb->repairs0 ? 2u : 1u, st.repairs > fb->repairs0 ? "s" : "");
	if (!err && rc == -EPROTO && !strncmp(why, twice, sizeof(twice) - 1))
		err = line_first(out, "llm: reply invalid twice (%s); the heuristic agent took this "
				 "turn", why + sizeof(twice) - 1);
	else if (!err)
		err = line_first(out, "llm: %s; the heuristic agent took this turn", why);
	return err;
}

static int fb_done(struct agent_fb *fb, int rc, struct agent_reply *out)
{
	struct agent_llm_stats st;

	fb->busy = 0;
	if (rc == 0) {
		agent_llm_stats(fb->llm, &st);
		fb_account(fb, st.repairs > fb->repairs0 ? "repair" : "ok", NULL);
		return 0;
	}
	if (rc == -ECANCELED || rc == -EINTR) {
		fb_account(fb, "cancelled", agent_llm_error(fb->llm));
		return rc;
	}
	return fb_fallback(fb, rc, out);
}

static int fb_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	struct agent_fb *fb = a->priv;
	int rc;

	if (fb->busy)
		return -EBUSY;
	memset(out, 0, sizeof(*out));
	fb->ctx = *ctx;
	{
		struct agent_llm_stats st;

		agent_llm_stats(fb->llm, &st);
		fb->repairs0 = st.repairs;
	}
	rc = fb->llm->ops->turn(fb->llm, ctx, out);
	if (rc == -EINPROGRESS) {
		fb->busy = 1;
		return rc;
	}
	return fb_done(fb, rc, out);
}

static int fb_poll(struct agent *a, struct agent_reply *out)
{
	struct agent_fb *fb = a->priv;
	int rc;

	if (!fb->busy)
		return -ENOENT;
	rc = fb->llm->ops->poll(fb->llm, out);
	if (rc == -EINPROGRESS)
		return rc;
	return fb_done(fb, rc, out);
}

static void fb_cancel(struct agent *a)
{
	struct agent_fb *fb = a->priv;

	if (!fb->busy)
		return;
	fb->llm->ops->cancel(fb->llm);
	fb->busy = 0;
	fb_account(fb, "cancelled", "cancelled by the person");
}

static int fb_tell(struct agent *a, const struct agent_event *ev, struct agent_reply *out)
{
	struct agent_fb *fb = a->priv;
	int rc;

	/* the heuristic keeps its own state (focus, stop) for the turns it takes */
	rc = fb->heur->ops->tell(fb->heur, ev, NULL);
	if (rc)
		return rc;
	return fb->llm->ops->tell(fb->llm, ev, out);
}

static unsigned fb_hypotheses(const struct agent *a, const struct agent_hyp **out)
{
	const struct agent_fb *fb = a->priv;

	return agent_hypotheses(fb->llm, out);
}

static int fb_pollfds(struct agent *a, struct pollfd *fds, int max)
{
	return agent_pollfds(((struct agent_fb *)a->priv)->llm, fds, max);
}

static int fb_timeout_ms(struct agent *a)
{
	return agent_timeout_ms(((struct agent_fb *)a->priv)->llm);
}

static void fb_free(struct agent *a)
{
	struct agent_fb *fb;

	if (!a)
		return;
	fb = a->priv;
	agent_free(fb->llm);
	agent_free(fb->heur);
	free(fb->model);
	free(fb);
}

static const struct agent_ops agent_fb_ops = {
	.name = "llm",
	.turn = fb_turn,
	.poll = fb_poll,
	.cancel = fb_cancel,
	.tell = fb_tell,
	.free = fb_free,
	.hypotheses = fb_hypotheses,
	.pollfds = fb_pollfds,
	.timeout_ms = fb_timeout_ms,
};

static void note_set(char **note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_set(char **note, const char *fmt, ...)
{
	va_list ap;

	if (!note)
		return;
	free(*note);
	va_start(ap, fmt);
	if (vasprintf(note, fmt, ap) < 0)
		*note = NULL;
	va_end(ap);
}

static struct agent *select_llm(const struct agent_select_opts *o, char **note)
{
	struct agent_llm_opts lo = { 0 };
	struct llm_config cfg;
	struct agent_fb *fb = NULL;
	char *cause = NULL;
	int err;

	err = llm_config_load(&cfg, &cause);
	if (err == -ENOENT) {
		free(cause);
		note_set(note, "%s", AS_NO_LLM);
		return agent_heuristic_new();
	}
	if (err) {
		note_set(note, "cannot use the LLM agent: %s", cause ? cause : strerror(-err));
		free(cause);
		errno = -err;
		return NULL;
	}
	fb = calloc(1, sizeof(*fb));
	if (!fb)
		goto nomem;
	fb->base.ops = &agent_fb_ops;
	fb->base.priv = fb;
	fb->on_turn = o->on_turn;
	fb->turn_arg = o->turn_arg;
	snprintf(fb->provider, sizeof(fb->provider), "%s", llm_provider_name(cfg.provider));
	fb->model = strdup(cfg.model ? cfg.model : "");
	fb->caps = o->caps ? o->caps : caps_cached();
	if (!fb->model || !fb->caps)
		goto nomem;
	lo.prompt_dir = o->prompt_dir;
	lo.validate = fb_validate;
	lo.validate_arg = (void *)fb->caps;
	for (int k = 0; k < STEP_KIND_N; k++) {
		fb->reasons[k] = fb->caps->kinds[k].reason;
		if (fb->caps->kinds[k].available)
			lo.kinds_mask |= 1u << k;
	}
	if (!lo.kinds_mask) {
		/* nothing can be measured here: offer no kind rather than all */
		note_set(note, "no step kind is available on this kernel (argus probes says why); "
			 "the LLM can only give verdicts");
		lo.kinds_mask = 1u << STEP_KIND_N;
	}
	lo.kind_reasons = fb->reasons;
	lo.on_delta = o->on_delta;
	lo.delta_arg = o->delta_arg;
	lo.redact = o->redact;
	fb->llm = agent_llm_new(&cfg, &lo, &cause);
	if (!fb->llm) {
		err = errno;
		note_set(note, "cannot use the LLM agent: %s", cause ? cause : strerror(err));
		goto fail;
	}
	fb->heur = agent_heuristic_new();
	if (!fb->heur)
		goto nomem;
	llm_config_clear(&cfg);
	free(cause);
	return &fb->base;
nomem:
	err = ENOMEM;
	note_set(note, "cannot use the LLM agent: out of memory");
fail:
	free(cause);
	llm_config_clear(&cfg);
	if (fb)
		fb_free(&fb->base);
	errno = err;
	return NULL;
}

struct agent *agent_select(const char *name, const struct agent_select_opts *o, char **note)
{
	static const struct agent_select_opts none;

	if (note)
		*note = NULL;
	if (!o)
		o = &none;
	if (!name || !strcmp(name, "heuristic"))
		return agent_heuristic_new();
	if (!strcmp(name, "llm"))
		return select_llm(o, note);
	note_set(note, "unknown agent '%s'; the agents are heuristic and llm", name);
	errno = EINVAL;
	return NULL;
}

const char *agent_name(const struct agent *a)
{
	return a && a->ops->name ? a->ops->name : "?";
}

int agent_llm_stats_of(const struct agent *a, struct agent_llm_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!a)
		return -ENOENT;
	if (a->ops == &agent_fb_ops) {
		agent_llm_stats(((const struct agent_fb *)a->priv)->llm, out);
		return 0;
	}
	if (!strcmp(agent_name(a), "llm")) {
		agent_llm_stats(a, out);
		return 0;
	}
	return -ENOENT;
}

int agent_turn_wait(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out,
		    int stop_fd)
{
	int rc = a->ops->turn(a, ctx, out);

	while (rc == -EINPROGRESS) {
		struct pollfd fds[17];
		int n = 0, to = agent_timeout_ms(a);

		if (stop_fd >= 0) {
			fds[n].fd = stop_fd;
			fds[n].events = POLLIN;
			fds[n++].revents = 0;
		}
		n += agent_pollfds(a, fds + n, 16);
		if (to < 0 || to > 200)
			to = 200;
		if (poll(fds, n, to) > 0 && stop_fd >= 0 && (fds[0].revents & POLLIN)) {
			if (a->ops->cancel)
				a->ops->cancel(a);
			return -EINTR;
		}
		rc = a->ops->poll ? a->ops->poll(a, out) : -ENOSYS;
	}
	return rc;
}
