/* strpool — string interning: equal strings give the same pointer.
 *
 * The pool owns every string it returns; they live until strpool_free.
 * Used by core/profile (frame names) and core/tree (node names), so that
 * names compare by pointer.
 */
#ifndef ARGUS_STRPOOL_H
#define ARGUS_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool;

/* Returns an empty pool, or NULL with errno set.  Free with strpool_free. */
struct strpool *strpool_new(void);
void strpool_free(struct strpool *sp); /* NULL-safe; frees every string */

/* Interned copy of s (NUL-terminated); NULL with errno set on ENOMEM. */
const char *strpool_intern(struct strpool *sp, const char *s);
/* Interned copy of the first len bytes of s (s need not be terminated). */
const char *strpool_intern_len(struct strpool *sp, const char *s, size_t len);
/* The interned copy of s when already in the pool, else NULL. */
const char *strpool_find(const struct strpool *sp, const char *s, size_t len);

/* Number of distinct strings held. */
size_t strpool_count(const struct strpool *sp);

/* The 64-bit hash the pool uses (word-wise multiply-xor, final mix); the
 * same on every run and machine, so it may feed stable ids. */
uint64_t strpool_hash(const char *s, size_t len);

#endif
