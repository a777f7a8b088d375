/* schedtime_table — open-addressing tables the user side of the
 * scheduler-time probe keeps (core/probe/probe_schedtime.c: baselines, credited
 * parts, names); a part of that probe, not an API of its own. */
#ifndef ARGUS_SCHEDTIME_TABLE_H
#define ARGUS_SCHEDTIME_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "probe/probe_schedtime.h"

/* key -> val, open addressing; user-side baselines and credited parts. */
struct st_table {
	struct probe_schedtime_entry *slot;
	unsigned char *used;
	size_t cap, n;
};

/* pid -> who (tgid, comm), the latest seen: from the state map (tracked
 * threads), else the kernel's names map (the other side of a key). */
struct st_name {
	uint32_t pid, tgid;
	char comm[SCHEDTIME_COMM_LEN];
};
struct st_names {
	struct st_name *slot;        /* pid 0 marks a free slot */
	size_t cap, n;
};

void st_table_free(struct st_table *t);
/* The entry of k, inserted zeroed when absent; NULL on ENOMEM.  Owned by
 * the table (moved when it grows). */
struct probe_schedtime_entry *st_table_get(struct st_table *t, const struct schedtime_key *k);
void st_val_add(struct schedtime_val *a, const struct schedtime_val *b);
/* Adds every entry of src into dst.  0 or -ENOMEM. */
int st_table_add_all(struct st_table *dst, const struct st_table *src);

/* pid's entry, or NULL. */
struct st_name *st_names_find(struct st_names *t, uint32_t pid);
/* Sets pid's name (pid != 0).  0 or -ENOMEM. */
int st_names_set(struct st_names *t, uint32_t pid, uint32_t tgid, const char *comm);

#endif
