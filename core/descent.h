/* descent — the tree-guided descent (agent_descend, declared in agent.h)
 * and the little it shares with the heuristic agent's rule table
 * (core/agent_heuristic.c). */
#ifndef ARGUS_DESCENT_H
#define ARGUS_DESCENT_H

#include <string.h>

#include "tree.h"

/* name equals want once a compiler suffix (".isra.0", ".cold", ...) is cut */
static inline int descent_name_is(const char *name, const char *want)
{
	size_t n = strcspn(name, ".");

	return strlen(want) == n && !strncmp(name, want, n);
}

/* a node whose own delta rises significantly */
static inline int descent_is_up(const struct tree_node *n)
{
	return n->stat.significant && n->stat.sign > 0 && n->stat.delta > 0;
}

#endif
