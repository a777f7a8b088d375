/* pane_stream — an LLM turn in flight, as the agent pane shows it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pane_stream.h"

#define PANE_STREAM_MAX (256 * 1024)   /* more is not shown anyway */

static double stream_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct pane_stream *pane_stream_new(void)
{
	struct pane_stream *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->text = calloc(1, 256);
	if (!ps->text) {
		free(ps);
		errno = ENOMEM;
		return NULL;
	}
	ps->cap = 256;
	return ps;
}

void pane_stream_free(struct pane_stream *ps)
{
	if (!ps)
		return;
	free(ps->text);
	free(ps);
}

void pane_stream_delta(enum llm_delta_kind kind, const char *s, size_t n, void *arg)
{
	struct pane_stream *ps = arg;

	if (!ps || !ps->active || !s || !n)
		return;
	ps->version++;
	if (kind == LLM_DELTA_TOOL) {
		ps->tool_bytes += n;
		return;
	}
	if (kind == LLM_DELTA_THINKING) {
		ps->think_bytes += n;
		if (n >= PANE_STREAM_THINK) {
			s += n - PANE_STREAM_THINK;
			n = PANE_STREAM_THINK;
			ps->think_len = 0;
		} else if (ps->think_len + n > PANE_STREAM_THINK) {
			size_t drop = ps->think_len + n - PANE_STREAM_THINK;

			memmove(ps->think, ps->think + drop, ps->think_len - drop);
			ps->think_len -= drop;
		}
		memcpy(ps->think + ps->think_len, s, n);
		ps->think_len += n;
		ps->think[ps->think_len] = 0;
		return;
	}
	if (ps->len + n >= PANE_STREAM_MAX)
		return;
	if (ps->len + n + 1 > ps->cap) {
		size_t cap = ps->cap;
		char *t;

		while (ps->len + n + 1 > cap)
			cap *= 2;
		t = realloc(ps->text, cap);
		if (!t)
			return;
		ps->text = t;
		ps->cap = cap;
	}
	memcpy(ps->text + ps->len, s, n);
	ps->len += n;
	ps->text[ps->len] = 0;
}

void pane_stream_begin(struct pane_stream *ps)
{
	if (!ps)
		return;
	ps->len = 0;
	ps->text[0] = 0;
	ps->tool_bytes = 0;
	ps->think_len = ps->think_bytes = 0;
	ps->think[0] = 0;
	ps->t0 = stream_now();
	ps->shown_s = 0;
	ps->active = 1;
	ps->version++;
}

void pane_stream_end(struct pane_stream *ps)
{
	if (!ps || !ps->active)
		return;
	ps->active = 0;
	ps->version++;
}

int pane_stream_changed(struct pane_stream *ps, unsigned *seen_version)
{
	int changed = 0;

	if (!ps)
		return 0;
	if (ps->active) {
		long s = (long)(stream_now() - ps->t0);

		if (s != ps->shown_s) {
			ps->shown_s = s;
			changed = 1;
		}
	}
	if (*seen_version != ps->version) {
		*seen_version = ps->version;
		changed = 1;
	}
	return changed;
}

int pane_stream_timeout_ms(const struct pane_stream *ps)
{
	double el, next;

	if (!ps || !ps->active)
		return -1;
	el = stream_now() - ps->t0;
	next = (double)((long)el + 1) - el;
	return (int)(next * 1000) + 1;
}
