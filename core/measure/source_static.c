/* source_static — a fixed profile behind the source interface. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "measure/source_static.h"

struct static_priv {
	struct profile *p;
	char *title;
	int ticked;
	uint64_t samples;
	unsigned freq_hz;         /* what the files were sampled at; 0: unknown */
};

static int static_tick(struct source *s, double now_s, char **cause)
{
	struct static_priv *sp = s->priv;

	(void)now_s;
	(void)cause;
	if (sp->ticked)
		return 0;
	sp->ticked = 1;
	return 1;
}

static int static_timeout_ms(struct source *s, double now_s)
{
	struct static_priv *sp = s->priv;

	(void)now_s;
	return sp->ticked ? 60000 : 0;
}

static const struct profile *static_profile(struct source *s)
{
	return ((struct static_priv *)s->priv)->p;
}

static void static_status(struct source *s, struct source_status *st)
{
	struct static_priv *sp = s->priv;

	memset(st, 0, sizeof(*st));
	st->phase = SOURCE_STATIC;
	st->nwindows = sp->p->nwin;
	st->window = sp->p->nwin ? sp->p->nwin - 1 : 0;
	st->samples = sp->samples;
	st->freq_hz = sp->freq_hz;
	st->overhead_pct = -1;
	st->closed = sp->p->nwin;
	st->dropped = profile_lost(sp->p);
}

static void static_stop(struct source *s)
{
	(void)s;
}

static void static_free(struct source *s)
{
	struct static_priv *sp;

	if (!s)
		return;
	sp = s->priv;
	if (sp) {
		profile_free(sp->p);
		free(sp->title);
		free(sp);
	}
	free(s);
}

static const struct source_ops static_ops = {
	.name = "static",
	.pollfds = NULL,
	.tick = static_tick,
	.timeout_ms = static_timeout_ms,
	.profile = static_profile,
	.status = static_status,
	.stop = static_stop,
	.free = static_free,
};

struct source *source_static_new(struct profile *p_owned, const char *title)
{
	struct source *s = NULL;
	struct static_priv *sp = NULL;

	if (!p_owned) {
		errno = EINVAL;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	sp = calloc(1, sizeof(*sp));
	if (!s || !sp)
		goto fail;
	sp->title = strdup(title ? title : "");
	if (!sp->title)
		goto fail;
	sp->p = p_owned;
	for (size_t i = 0; i < p_owned->nstacks; i++)
		sp->samples += p_owned->stacks[i].total;
	s->ops = &static_ops;
	s->priv = sp;
	return s;
fail:
	free(s);
	if (sp)
		free(sp->title);
	free(sp);
	profile_free(p_owned);
	errno = ENOMEM;
	return NULL;
}

const char *source_static_title(struct source *s)
{
	return s && s->ops == &static_ops ? ((struct static_priv *)s->priv)->title : "";
}

void source_static_set_freq(struct source *s, unsigned freq_hz)
{
	if (s && s->ops == &static_ops)
		((struct static_priv *)s->priv)->freq_hz = freq_hz;
}
