/* source_replay — a recorded session behind the source interface, replayed
 * event by event without privileges (`argus replay FILE`).
 *
 * The replay has a position pos in 0..nev: events [0, pos) have happened.
 * The profile is the calibration windows (step 0) among them, as
 * session_log_profile_upto gives it, so the tree shows the data as it was
 * at that point of the diagnosis.  Stepping is event by event (windows,
 * proposals, decisions, step results, transcript lines, notes, the
 * verdict); the status bar's phase text says where the replay stands
 * (source_status.detail) and source_replay_event_text gives the line a
 * person reads for the current event.  The transcript up to pos (for an
 * agent pane) is the log's events [0, pos) of type transcript.
 */
#ifndef ARGUS_SOURCE_REPLAY_H
#define ARGUS_SOURCE_REPLAY_H

#include <stddef.h>

#include "measure/session.h"
#include "measure/source.h"

/* Takes ownership of log (a heap-allocated, filled session_log: freed with
 * the source, also on failure).  The position starts at start (clamped to
 * the number of events).  NULL with errno set. */
struct source *source_replay_new(struct session_log *log_owned, size_t start);

/* 1 when s is a replay source. */
int source_replay_is(struct source *s);

/* The log; valid while s lives. */
const struct session_log *source_replay_log(struct source *s);

/* Events happened (the position) and events in all. */
size_t source_replay_pos(struct source *s);
size_t source_replay_count(struct source *s);

/* Moves to position pos (clamped).  Returns 1 when the profile changed (the
 * next tick reports it too), 0 when not, -errno on failure. */
int source_replay_seek(struct source *s, size_t pos);

/* The current event (the last one happened, at pos - 1), NULL at 0. */
const struct session_event *source_replay_current(struct source *s);

/* The newest verdict among the events happened, NULL when none yet. */
const struct verdict *source_replay_verdict(struct source *s);

/* A one-line description of event e for people: "window 3 (load, 0.50 s,
 * 512 samples)", "agent: mm -> asm_exc_page_fault: 84% of ...", "verdict:
 * ...", "proposal for step 1: tracepoint_stacks ...".  Writes buf; returns it. */
char *source_replay_event_text(const struct session_event *e, char *buf, size_t len);

/* Sampling frequency from the session header's options (0: unknown). */
unsigned source_replay_freq(struct source *s);

#endif
