/* pane_stream — what an LLM turn in flight shows in the agent pane: the
 * reply text as it streams in, the bytes of a step being proposed (tool-call
 * arguments) and how long the agent has been thinking.  The LLM client calls
 * pane_stream_delta (an llm_delta_cb) from inside agent poll; the pane
 * begins and ends a stream around each turn; view_agent.c draws it below the
 * transcript as a provisional entry (it is not kept: the reply's own lines
 * replace it).  No curses here. */
#ifndef ARGUS_PANE_STREAM_H
#define ARGUS_PANE_STREAM_H

#include <stddef.h>

#include "agent/llm.h"

#define PANE_STREAM_THINK 512     /* bytes of thinking kept (the end) */

struct pane_stream {
	char *text;               /* the streamed reply text so far; owned; NUL-terminated */
	size_t len, cap;
	size_t tool_bytes;        /* tool-call argument bytes so far */
	char think[PANE_STREAM_THINK + 1]; /* the end of the model's thinking
	                           * (reasoning the server marks as such), shown
	                           * apart from the reply; NUL-terminated */
	size_t think_len, think_bytes;
	double t0;                /* when the turn began (CLOCK_MONOTONIC, s) */
	int active;               /* a turn is in flight */
	unsigned version;         /* bumped at every delta */
	long shown_s;             /* the elapsed seconds last drawn */
};

/* A stream for the pane (pass it as the agent's delta_arg); NULL with errno. */
struct pane_stream *pane_stream_new(void);
void pane_stream_free(struct pane_stream *ps); /* NULL-safe */

/* The llm_delta_cb: arg is the struct pane_stream.  Appends text, keeps
 * the end of the thinking, counts tool bytes; ignored when no turn is in
 * flight. */
void pane_stream_delta(enum llm_delta_kind kind, const char *s, size_t n, void *arg);

/* A turn began (clears what the last one streamed) / ended (any way). */
void pane_stream_begin(struct pane_stream *ps);
void pane_stream_end(struct pane_stream *ps);

/* 1 when what the pane shows changed since the last call (new deltas or a
 * new elapsed second), else 0. */
int pane_stream_changed(struct pane_stream *ps, unsigned *seen_version);
/* Milliseconds until the elapsed seconds shown change; -1 when inactive. */
int pane_stream_timeout_ms(const struct pane_stream *ps);

#endif
