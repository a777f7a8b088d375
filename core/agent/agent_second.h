/* agent_second — the heuristic agent's second opinion: after a veto or an
 * `r`, the next-best step from a catalog for the verdict's node (off-CPU
 * time with wakers, a latency pair, counts of the subsystem's tracepoints, a
 * deeper sample), steered by words of the person's reason that name a kind
 * or a tracepoint.  Kept apart from the descent and the rules
 * (core/agent/agent_heuristic.c), which call it when their rules are spent. */
#ifndef ARGUS_AGENT_SECOND_H
#define ARGUS_AGENT_SECOND_H

#include <stdint.h>

#include "agent/agent.h"
#include "data/verdict.h"

/* Proposes into out (out->step, out->kind = PROPOSAL, a line saying why)
 * the first catalog entry for v's subsystem not in *used (a bit per entry,
 * updated) whose kind is not avoid_kind (the vetoed step's, NULL: none);
 * reason (may be NULL) puts entries it names first — a kind ("offcpu",
 * "off-cpu", "latency", "counts", "sample", "stacks") or a tracepoint
 * ("kmem:mm_page_alloc", counted).  0 with out->step NULL when the catalog
 * is spent (a line says so); -errno on failure. */
int agent_second_propose(const struct verdict *v, const char *reason, const char *avoid_kind,
			 uint32_t *used, struct agent_reply *out);

#endif
