/* strpool — string interning: an open-addressing hash set of owned strings
 * whose bytes live in large arena chunks. */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strpool.h"

#define STRPOOL_CHUNK (64u * 1024u)

struct strpool_slot {
	uint64_t hash;
	const char *s;          /* NULL: empty slot */
	size_t len;
};

struct strpool_chunk {
	struct strpool_chunk *next;
	size_t used, cap;
	char data[];
};

struct strpool {
	struct strpool_slot *slots;
	size_t cap;             /* power of two */
	size_t count;
	struct strpool_chunk *chunks;
};

static uint64_t strpool_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t strpool_hash(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ (len * 0x100000001b3ULL);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, p, 8);
		w = le64toh(w);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
		p += 8;
		len -= 8;
	}
	if (len) {
		w = 0;
		for (size_t i = 0; i < len; i++)
			w |= (uint64_t)p[i] << (8 * i);
		h = (h ^ w) * 0x9fb21c651e98df25ULL;
		h ^= h >> 29;
	}
	return strpool_mix(h);
}

struct strpool *strpool_new(void)
{
	struct strpool *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->cap = 1024;
	sp->slots = calloc(sp->cap, sizeof(*sp->slots));
	if (!sp->slots) {
		free(sp);
		errno = ENOMEM;
		return NULL;
	}
	return sp;
}

void strpool_free(struct strpool *sp)
{
	if (!sp)
		return;
	while (sp->chunks) {
		struct strpool_chunk *c = sp->chunks;

		sp->chunks = c->next;
		free(c);
	}
	free(sp->slots);
	free(sp);
}

size_t strpool_count(const struct strpool *sp)
{
	return sp ? sp->count : 0;
}

static int strpool_grow(struct strpool *sp)
{
	size_t ncap = sp->cap * 2;
	struct strpool_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < sp->cap; i++) {
		struct strpool_slot *o = &sp->slots[i];
		size_t j;

		if (!o->s)
			continue;
		for (j = o->hash & (ncap - 1); ns[j].s; j = (j + 1) & (ncap - 1))
			;
		ns[j] = *o;
	}
	free(sp->slots);
	sp->slots = ns;
	sp->cap = ncap;
	return 0;
}

static char *strpool_store(struct strpool *sp, const char *s, size_t len)
{
	struct strpool_chunk *c = sp->chunks;
	char *out;

	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > STRPOOL_CHUNK ? len + 1 : STRPOOL_CHUNK;

		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		/* a big string gets its own chunk behind the current one */
		if (sp->chunks && cap > STRPOOL_CHUNK) {
			c->next = sp->chunks->next;
			sp->chunks->next = c;
		} else {
			c->next = sp->chunks;
			sp->chunks = c;
		}
	}
	out = c->data + c->used;
	memcpy(out, s, len);
	out[len] = '\0';
	c->used += len + 1;
	return out;
}

static struct strpool_slot *strpool_slot(const struct strpool *sp, const char *s,
					 size_t len, uint64_t h)
{
	size_t mask = sp->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct strpool_slot *sl = &sp->slots[i];

		if (!sl->s)
			return sl;
		if (sl->hash == h && sl->len == len && memcmp(sl->s, s, len) == 0)
			return sl;
	}
}

const char *strpool_find(const struct strpool *sp, const char *s, size_t len)
{
	if (!sp || !s)
		return NULL;
	return strpool_slot(sp, s, len, strpool_hash(s, len))->s;
}

const char *strpool_intern_len(struct strpool *sp, const char *s, size_t len)
{
	uint64_t h;
	struct strpool_slot *sl;
	char *copy;

	if (!sp || !s) {
		errno = EINVAL;
		return NULL;
	}
	h = strpool_hash(s, len);
	sl = strpool_slot(sp, s, len, h);
	if (sl->s)
		return sl->s;
	if ((sp->count + 1) * 2 > sp->cap) {
		if (strpool_grow(sp) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		sl = strpool_slot(sp, s, len, h);
	}
	copy = strpool_store(sp, s, len);
	if (!copy) {
		errno = ENOMEM;
		return NULL;
	}
	sl->hash = h;
	sl->s = copy;
	sl->len = len;
	sp->count++;
	return copy;
}

const char *strpool_intern(struct strpool *sp, const char *s)
{
	if (!s) {
		errno = EINVAL;
		return NULL;
	}
	return strpool_intern_len(sp, s, strlen(s));
}
