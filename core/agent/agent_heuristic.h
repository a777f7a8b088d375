/* agent_heuristic — the built-in agent: the tree-guided descent gives the
 * verdict, a table of rules the next step (core/agent/agent_heuristic.c). */
#ifndef ARGUS_AGENT_HEURISTIC_H
#define ARGUS_AGENT_HEURISTIC_H

#include "agent/agent.h"

/* The heuristic agent.  Returns NULL with errno set. */
struct agent *agent_heuristic_new(void);

/* The descent as the heuristic agent answers: descent_run (core/analysis/
 * descent.h) into v, its lines appended to r's (r may be NULL).  0 or
 * -errno. */
int agent_descend(struct tree *t, const struct tree_node *start, double explain,
		  struct verdict *v, struct agent_reply *r);

#endif
