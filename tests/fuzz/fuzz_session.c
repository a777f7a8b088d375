/* libFuzzer target: session files (JSON Lines) through core/session's
 * reader, the replay-time profile rebuild, and the replay source stepped
 * through every event and back. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/session.h"
#include "measure/source_replay.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session_log l;
	char *cause = NULL;

	int err = session_read_buf("fuzz", (const char *)data, size, &l, &cause);
	if (err) {
		if (!cause || strncmp(cause, "fuzz", 4) || l.nev || l.profile)
			abort();
		free(cause);
		return 0;
	}
	if (l.version < 1 || l.version > SESSION_VERSION || l.bytes > size)
		abort();
	/* replaying up to any event rebuilds the same windows as the reader */
	for (unsigned step = 0; step < 2; step++) {
		const struct profile *full = session_log_profile(&l, step);
		struct profile *p = session_log_profile_upto(&l, l.nev, step);
		if (!p || (full ? full->nwin : 0) != p->nwin || (full ? full->nstacks : 0) != p->nstacks)
			abort();
		profile_free(p);
	}
	for (size_t i = 0; i < l.nev; i++) {
		const struct session_event *e = &l.ev[i];
		if (!e->json || e->type >= SESSION_EV_N || !(e->t >= 0))
			abort();
		if (i && e->line <= l.ev[i - 1].line)
			abort();
	}
	/* the replay source: every position forward, then back, windows grow
	 * and shrink with the position and every event has a line of text */
	struct session_log *hl = malloc(sizeof(*hl));
	if (!hl) {
		session_log_clear(&l);
		return 0;
	}
	*hl = l;
	size_t nev = hl->nev;
	unsigned nwin0 = hl->profile ? hl->profile->nwin : 0;
	struct source *src = source_replay_new(hl, 0);
	if (!src)
		return 0;
	char text[512];
	unsigned prev = 0;
	for (size_t pos = 0; pos <= nev; pos++) {
		struct source_status st;
		if (source_replay_seek(src, pos) < 0)
			abort();
		src->ops->status(src, &st);
		if (st.closed < prev || st.closed > nwin0 || source_replay_pos(src) != pos)
			abort();
		prev = st.closed;
		source_replay_event_text(source_replay_current(src), text, sizeof(text));
		if (!st.detail || !text[0] || src->ops->profile(src)->nwin != st.closed)
			abort();
	}
	if (prev != nwin0)
		abort();
	for (size_t pos = nev + 1; pos-- > 0;)
		if (source_replay_seek(src, pos) < 0)
			abort();
	if (src->ops->profile(src)->nwin != 0 || source_replay_count(src) != nev)
		abort();
	source_free(src);
	return 0;
}
