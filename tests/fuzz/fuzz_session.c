/* libFuzzer target: session files (JSON Lines) through core/session's
 * reader, and the replay-time profile rebuild. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

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
	session_log_clear(&l);
	return 0;
}
