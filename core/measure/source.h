/* source — where the measurements come from, behind one interface.
 *
 * The TUI's poll loop and batch commands drive a source without knowing
 * whether it is live BPF sampling (core/measure/source_live.c), alternating
 * reference/loaded windows with a paused load (core/measure/measure.c), or a
 * recorded session / imported files (no privileges).  A source owns its
 * profile; the caller rebuilds the tree from it when tick says it changed.
 */
#ifndef ARGUS_SOURCE_H
#define ARGUS_SOURCE_H

#include <poll.h>
#include <stdint.h>

#include "data/profile.h"

enum source_phase {
	SOURCE_STARTING,
	SOURCE_SETTLING,     /* after a switch; samples discarded */
	SOURCE_REF,          /* reference window running */
	SOURCE_LOAD,         /* loaded window running */
	SOURCE_LIVE,         /* plain live sampling, no conditions */
	SOURCE_STEP,         /* an instrumentation step is measuring */
	SOURCE_DONE,         /* measurement finished; data is final */
	SOURCE_STATIC,       /* recorded data, nothing changes */
};

const char *source_phase_name(enum source_phase ph);

struct source_status {
	enum source_phase phase;
	unsigned window;        /* current window index (0-based) */
	unsigned nwindows;      /* planned windows, 0 = open-ended */
	double elapsed_s;       /* since the source started; it keeps running
	                         * after the measurement is done */
	double phase_left_s;    /* time left in the current window, or 0 */
	double rate;            /* samples per second over the last tick */
	uint64_t samples;       /* accepted samples so far (live sampling:
	                         * since its last reset) */
	uint64_t dropped;       /* stacks lost in the windows measured
	                         * (collisions, map full, errors): the sum of
	                         * their lost, as the session records them;
	                         * never what a probe loses outside a window */
	unsigned freq_hz;       /* sampling frequency, 0 when not sampling */
	unsigned probes;        /* BPF programs attached now */
	double overhead_pct;    /* measured BPF run time, % of one CPU; <0 unknown */
	const char *load_state; /* "running", "paused", "exited (0)", or NULL */
	unsigned closed;        /* profile windows [0, closed) are final: their
	                         * counts will not change (session writers read
	                         * newly completed windows by it) */
	const char *detail;     /* replaces the phase in the status bar when set
	                         * ("replay event 3/20: window"); valid until the
	                         * next call into the source */
};

struct source;

struct source_ops {
	const char *name;
	/* File descriptors to poll (ring buffers, pidfds); returns how many were
	 * written to fds (at most max), or -errno.  May be NULL. */
	int (*pollfds)(struct source *s, struct pollfd *fds, int max);
	/* Advances the source to time now_s (monotonic seconds).  Returns 1
	 * when the profile changed, 0 when not, -errno on failure (with *cause
	 * set, caller frees). */
	int (*tick)(struct source *s, double now_s, char **cause);
	/* Milliseconds until tick wants to run again (poll timeout). */
	int (*timeout_ms)(struct source *s, double now_s);
	const struct profile *(*profile)(struct source *s);
	void (*status)(struct source *s, struct source_status *st);
	/* Detaches everything, resumes/ends loads it owns; idempotent. */
	void (*stop)(struct source *s);
	/* Counts afresh from now_s (perf top's reset): the window measured so
	 * far is collected and closed (final: status.closed counts it, so a
	 * session writes it), and a new one opens.  The closed window's stacks
	 * stay in the profile until the next tick, which drops them (and their
	 * window's length: the profile then holds only what it shows) and is
	 * due at once: a wrapper that records windows writes the closed one
	 * before that tick.  status.samples counts from the reset.  0, -errno
	 * with *cause, or -ENOTSUP when the windows must stay (a measurement's
	 * reference and loaded windows, a replay).  NULL: -ENOTSUP. */
	int (*reset)(struct source *s, double now_s, char **cause);
	void (*free)(struct source *s);
};

struct source {
	const struct source_ops *ops;
	void *priv;
};

static inline void source_free(struct source *s)
{
	if (s) {
		if (s->ops->stop)
			s->ops->stop(s);
		s->ops->free(s);
	}
}

#endif
