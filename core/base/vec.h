/* vec — checked growth of arrays (what htop's Vector and tmux's
 * xreallocarray give), written once instead of at every call site.
 *
 * An array here is a pointer to its first element, a count and a capacity
 * the caller keeps.  pp is the address of that pointer (&t->items, of any
 * element type); it is replaced only on success.  Every size computation is
 * checked: a request that does not fit in a size_t (or, for vec_grow_u, a
 * capacity that does not fit an unsigned) is -EOVERFLOW, never a short
 * allocation.  The functions own nothing: the caller frees *pp. */
#ifndef ARGUS_VEC_H
#define ARGUS_VEC_H

#include <stddef.h>

/* Resizes *pp to exactly n elements of elem bytes (realloc, with n * elem
 * checked): 0, -EOVERFLOW or -ENOMEM.  n == 0 frees *pp and sets it NULL. */
int vec_resize(void *pp, size_t n, size_t elem);

/* Room for need elements of elem bytes: when need exceeds *cap, *pp grows
 * to the larger of need and twice *cap (at least 2 elements), and *cap is
 * set to the new capacity.  The new elements are not initialised.  0,
 * -EOVERFLOW or -ENOMEM, with *pp and *cap unchanged on failure. */
int vec_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* vec_grow for an unsigned capacity (the capacity kept at most UINT_MAX). */
int vec_grow_u(void *pp, unsigned *cap, size_t need, size_t elem);

#endif
