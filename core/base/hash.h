/* hash — the one byte-string hash of argus's own tables: 64-bit FNV-1a.
 *
 * Static inline: the hash tables of probe snapshots, wait-graph edges and
 * pprof string tables call it per byte in their hot loops.  The functions
 * continue a hash h, so a key of several parts is hashed part by part.
 * Strings interned in a strpool use strpool_hash instead (base/strpool.h,
 * a word-at-a-time hash for long names).
 */
#ifndef ARGUS_HASH_H
#define ARGUS_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a's published 64-bit offset basis. */
#define HASH_FNV_BASIS 0xcbf29ce484222325ull
/* What the tables start from: the basis with its last digit lost
 * (14695981039346656037 -> 1469598103934665603).  Any odd-looking seed does
 * as well; kept so every hash, and so every table's order, stays as it was. */
#define HASH_SEED 1469598103934665603ull
#define HASH_FNV_PRIME 1099511628211ull /* 0x100000001b3 */

/* h continued over the n bytes at p. */
static inline uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * HASH_FNV_PRIME;
	return h;
}

/* h continued over string s up to its NUL or max bytes, then a 0xff
 * separator, so that ("ab", "c") and ("a", "bc") hash apart. */
static inline uint64_t hash_str(uint64_t h, const char *s, size_t max)
{
	for (size_t i = 0; i < max && s[i]; i++)
		h = (h ^ (unsigned char)s[i]) * HASH_FNV_PRIME;
	return (h ^ 0xff) * HASH_FNV_PRIME;
}

#endif
