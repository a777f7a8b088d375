/* schedtime_table — the user side's tables of core/probe/probe_schedtime.c (keys
 * to values, pids to names; see schedtime_table.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe/schedtime_snap.h"
#include "base/hash.h"
#include "probe/schedtime_table.h"

static uint64_t st_hash(const struct schedtime_key *k)
{
	return hash_bytes(HASH_SEED, k, sizeof(*k));
}

void st_table_free(struct st_table *t)
{
	free(t->slot);
	free(t->used);
	memset(t, 0, sizeof(*t));
}

/* The entry of k, inserted zeroed when absent; NULL on ENOMEM. */
struct probe_schedtime_entry *st_table_get(struct st_table *t, const struct schedtime_key *k)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap) {
		struct st_table g = { 0 };

		g.cap = t->cap ? t->cap * 2 : 256;
		g.slot = calloc(g.cap, sizeof(*g.slot));
		g.used = calloc(g.cap, 1);
		if (!g.slot || !g.used) {
			st_table_free(&g);
			return NULL;
		}
		for (size_t j = 0; j < t->cap; j++) {
			if (!t->used[j])
				continue;
			i = st_hash(&t->slot[j].key) & (g.cap - 1);
			while (g.used[i])
				i = (i + 1) & (g.cap - 1);
			g.used[i] = 1;
			g.slot[i] = t->slot[j];
			g.n++;
		}
		st_table_free(t);
		*t = g;
	}
	i = st_hash(k) & (t->cap - 1);
	while (t->used[i]) {
		if (!memcmp(&t->slot[i].key, k, sizeof(*k)))
			return &t->slot[i];
		i = (i + 1) & (t->cap - 1);
	}
	t->used[i] = 1;
	memset(&t->slot[i], 0, sizeof(t->slot[i]));
	t->slot[i].key = *k;
	t->n++;
	return &t->slot[i];
}

void st_val_add(struct schedtime_val *a, const struct schedtime_val *b)
{
	a->count += b->count;
	a->total_ns += b->total_ns;
	for (int i = 0; i < SCHEDTIME_BUCKETS; i++)
		a->hist[i] += b->hist[i];
}

int st_table_add_all(struct st_table *dst, const struct st_table *src)
{
	for (size_t i = 0; i < src->cap; i++) {
		struct probe_schedtime_entry *e;

		if (!src->used[i])
			continue;
		e = st_table_get(dst, &src->slot[i].key);
		if (!e)
			return -ENOMEM;
		st_val_add(&e->val, &src->slot[i].val);
	}
	return 0;
}

static uint64_t st_pid_hash(uint32_t pid)
{
	return (pid * 0x9e3779b97f4a7c15ull) >> 20;
}

struct st_name *st_names_find(struct st_names *t, uint32_t pid)
{
	size_t i;

	if (!t->cap)
		return NULL;
	for (i = st_pid_hash(pid) & (t->cap - 1); t->slot[i].pid; i = (i + 1) & (t->cap - 1))
		if (t->slot[i].pid == pid)
			return &t->slot[i];
	return NULL;
}

/* Sets pid's name (pid != 0).  0 or -ENOMEM. */
int st_names_set(struct st_names *t, uint32_t pid, uint32_t tgid, const char *comm)
{
	struct st_name *n = st_names_find(t, pid);
	size_t i;

	if (!n) {
		if ((t->n + 1) * 2 > t->cap) {
			struct st_names g = { .cap = t->cap ? t->cap * 2 : 256 };

			g.slot = calloc(g.cap, sizeof(*g.slot));
			if (!g.slot)
				return -ENOMEM;
			for (size_t j = 0; j < t->cap; j++) {
				if (!t->slot[j].pid)
					continue;
				for (i = st_pid_hash(t->slot[j].pid) & (g.cap - 1); g.slot[i].pid;
				     i = (i + 1) & (g.cap - 1))
					;
				g.slot[i] = t->slot[j];
				g.n++;
			}
			free(t->slot);
			*t = g;
		}
		for (i = st_pid_hash(pid) & (t->cap - 1); t->slot[i].pid; i = (i + 1) & (t->cap - 1))
			;
		n = &t->slot[i];
		n->pid = pid;
		t->n++;
	}
	n->tgid = tgid;
	memcpy(n->comm, comm, sizeof(n->comm));
	n->comm[sizeof(n->comm) - 1] = 0;
	return 0;
}
