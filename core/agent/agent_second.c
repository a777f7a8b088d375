/* agent_second — the next-best step after a veto (see agent_second.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_second.h"
#include "data/step.h"

struct alt {
	const char *subsys;      /* NULL: any subsystem */
	const char *kind;
	const char *target, *begin, *end, *freq_hz;
	const char *why, *expect;
	const char *words;       /* reason words that ask for it, space-separated */
};

/* Most useful first, per subsystem; the generic rows close each list. */
static const struct alt alts[] = {
	{ "mm", "tracepoint_latency", NULL, "vmscan:mm_vmscan_direct_reclaim_begin",
	  "vmscan:mm_vmscan_direct_reclaim_end", NULL,
	  "a latency pair: do allocations stall in direct reclaim when loaded",
	  "longer or more direct reclaim stalls when loaded", "latency pair reclaim vmscan" },
	{ "mm", "counts", "kmem:*", NULL, NULL, NULL,
	  "counts of the mm tracepoints (kmem): which allocation events grow",
	  "kmem event rates grow when loaded", "counts count tracepoints kmem events" },
	{ "sched", "counts", "sched:*", NULL, NULL, NULL,
	  "counts of the sched tracepoints: switches, wakeups, migrations",
	  "sched event rates grow when loaded", "counts count tracepoints events" },
	{ "locking", "tracepoint_latency", NULL, "lock:contention_begin", "lock:contention_end", NULL,
	  "a latency pair: how long locks are contended",
	  "longer contention when loaded", "latency pair contention lock" },
	{ "block", "tracepoint_latency", NULL, "block:block_rq_issue", "block:block_rq_complete", NULL,
	  "a latency pair: block request latency",
	  "longer requests when loaded", "latency pair block io" },
	{ "block", "counts", "block:*", NULL, NULL, NULL,
	  "counts of the block tracepoints", "block event rates grow when loaded",
	  "counts count tracepoints events" },
	{ "fs", "counts", "writeback:*", NULL, NULL, NULL,
	  "counts of the writeback tracepoints", "writeback event rates grow when loaded",
	  "counts count tracepoints writeback events" },
	{ "net", "counts", "net:*", NULL, NULL, NULL,
	  "counts of the net tracepoints", "net event rates grow when loaded",
	  "counts count tracepoints events" },
	{ "irq", "counts", "irq:*", NULL, NULL, NULL,
	  "counts of the irq tracepoints", "irq event rates grow when loaded",
	  "counts count tracepoints events" },
	{ "syscall", "counts", "raw_syscalls:*", NULL, NULL, NULL,
	  "counts of the syscall tracepoints", "syscall rates grow when loaded",
	  "counts count tracepoints events" },
	{ NULL, "offcpu", NULL, NULL, NULL, NULL,
	  "off-CPU time with wakers: where threads block on this path, and who wakes them",
	  "more blocked time near the verdict when loaded",
	  "offcpu off-cpu blocked block blocking sleep wait waits waker wakers wakeup" },
	{ NULL, "sample", NULL, NULL, NULL, "4999",
	  "a deeper sample: cpu-clock at 4999 Hz, five times the calibration's resolution",
	  "the verdict's node holds its share at a finer grain", "sample sampling deeper frequency cpu" },
};

#define ALT_N (sizeof(alts) / sizeof(alts[0]))
_Static_assert(ALT_N <= 32, "alternative bitmask");

/* whether reason holds word w as a word (case-insensitive) */
static int reason_has(const char *reason, const char *w, size_t n)
{
	for (const char *p = reason; p && *p; p++) {
		if (p != reason && (isalnum((unsigned char)p[-1]) || p[-1] == '_'))
			continue;
		if (!strncasecmp(p, w, n) && !isalnum((unsigned char)p[n]) && p[n] != '_')
			return 1;
	}
	return 0;
}

static int alt_named(const struct alt *a, const char *reason)
{
	const char *w = a->words;

	if (!reason)
		return 0;
	if (reason_has(reason, a->kind, strlen(a->kind)))
		return 1;
	while (w && *w) {
		size_t n = strcspn(w, " ");

		if (n && reason_has(reason, w, n))
			return 1;
		w += n;
		while (*w == ' ')
			w++;
	}
	return 0;
}

/* A tracepoint the reason names ("kmem:mm_page_alloc"), into buf; 0: none. */
static int reason_tracepoint(const char *reason, char *buf, size_t len)
{
	for (const char *p = reason; p && *p; p++) {
		const char *s = p, *c;

		if (!isalpha((unsigned char)*p) || (p != reason && (isalnum((unsigned char)p[-1]) ||
								    p[-1] == '_')))
			continue;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		c = p;
		if (*c != ':' || !(isalnum((unsigned char)c[1]) || c[1] == '_' || c[1] == '*')) {
			if (!*p)
				break;
			continue;
		}
		p++;
		while (isalnum((unsigned char)*p) || *p == '_' || *p == '*')
			p++;
		if ((size_t)(p - s) < len) {
			snprintf(buf, len, "%.*s", (int)(p - s), s);
			return 1;
		}
		if (!*p)
			break;
	}
	return 0;
}

static int alt_build(const struct alt *a, const char *target, const struct verdict *v,
		     struct agent_reply *out)
{
	char rationale[512];
	struct agent_step_spec sp = {
		.kind = a->kind, .target = target ? target : a->target, .begin = a->begin,
		.end = a->end, .freq_hz = a->freq_hz, .duration_s = "5", .rationale = rationale,
		.expect = a->expect,
	};

	snprintf(rationale, sizeof(rationale), "%s (second opinion; verdict so far: %s > %s, %+.1f/s)",
		 a->why, v->subsystem, v->leaf ? v->leaf : "?", v->delta);
	return agent_reply_propose(out, &sp, "second opinion", a->kind);
}

int agent_second_propose(const struct verdict *v, const char *reason, const char *avoid_kind,
			 uint32_t *used, struct agent_reply *out)
{
	char tp[128], desc[256];
	int named = 0;

	if (!v || !used || !out)
		return -EINVAL;
	/* a tracepoint named in the reason: count it, first of all */
	if (reason_tracepoint(reason, tp, sizeof(tp)) && !(*used & (1u << 31))) {
		static const struct alt counts = { NULL, "counts", NULL, NULL, NULL, NULL,
			"counts of the tracepoint the reason names", "its rate grows when loaded", "" };

		*used |= 1u << 31;
		if (!alt_build(&counts, tp, v, out))
			return agent_reply_line(out, "second opinion: the reason names %s -> propose %s",
						tp, step_describe(out->step, desc, sizeof(desc)));
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < ALT_N; i++) {
			const struct alt *a = &alts[i];

			if (*used & (1u << i))
				continue;
			if (a->subsys && strcmp(a->subsys, v->subsystem))
				continue;
			named = alt_named(a, reason);
			if (pass == 0 && !named)
				continue;    /* the reason's words first */
			if (!named && avoid_kind && !strcmp(avoid_kind, a->kind))
				continue;    /* not the kind just vetoed, unless asked for */
			*used |= 1u << i;
			if (alt_build(a, NULL, v, out))
				continue;
			return agent_reply_line(out, "second opinion%s: %s -> propose %s",
						named ? " (as the reason asks)" : "", a->why,
						step_describe(out->step, desc, sizeof(desc)));
		}
	return agent_reply_line(out, "no other step in the catalog for %s: the verdict stands",
				*v->subsystem ? v->subsystem : "this node");
}
