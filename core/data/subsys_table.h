/* subsys_table — the shipped classification table (core/data/subsys_table.c).
 * Private to core/data/subsys.c and its tests. */
#ifndef ARGUS_SUBSYS_TABLE_H
#define ARGUS_SUBSYS_TABLE_H

#include <stddef.h>

#include "data/subsys.h"

struct subsys_rule {
	const char *name;         /* function name, or a prefix */
	unsigned char subsys;     /* enum subsys */
	unsigned char prefix;     /* 1: name is a prefix */
};

extern const struct subsys_rule subsys_rules[];
extern const size_t subsys_nrules;

#endif
