/* vec — checked growth of arrays (see vec.h).
 *
 * The array pointer is read and written through memcpy: pp points to a
 * pointer of the caller's element type, and reading it as a void * through
 * a cast would break the aliasing rules. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"

#define VEC_MIN_CAP 2 /* the first allocation, in elements: the smallest any site used */

int vec_resize(void *pp, size_t n, size_t elem)
{
	void *p, *np;

	memcpy(&p, pp, sizeof(p));
	if (!n || !elem) {
		free(p);
		p = NULL;
		memcpy(pp, &p, sizeof(p));
		return 0;
	}
	if (n > SIZE_MAX / elem)
		return -EOVERFLOW;
	np = realloc(p, n * elem);
	if (!np)
		return -ENOMEM;
	memcpy(pp, &np, sizeof(np));
	return 0;
}

/* The capacity vec_grow gives for need elements over cap, at most max; 0
 * when need cannot be held. */
static size_t vec_next_cap(size_t cap, size_t need, size_t elem, size_t max)
{
	size_t ncap;

	if (elem && max > SIZE_MAX / elem)
		max = SIZE_MAX / elem;
	if (need > max)
		return 0;
	ncap = cap > max / 2 ? max : cap * 2;
	if (ncap < VEC_MIN_CAP)
		ncap = VEC_MIN_CAP < max ? VEC_MIN_CAP : max;
	return ncap > need ? ncap : need;
}

/* grows *cap (a count below max) to hold need elements */
static int vec_grow_max(void *pp, size_t *cap, size_t need, size_t elem, size_t max)
{
	size_t ncap;
	int err;

	if (need <= *cap)
		return 0;
	ncap = vec_next_cap(*cap, need, elem, max);
	if (!ncap)
		return -EOVERFLOW;
	err = vec_resize(pp, ncap, elem);
	if (!err)
		*cap = ncap;
	return err;
}

int vec_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	return vec_grow_max(pp, cap, need, elem, SIZE_MAX);
}

int vec_grow_u(void *pp, unsigned *cap, size_t need, size_t elem)
{
	size_t c = *cap;
	int err = vec_grow_max(pp, &c, need, elem, UINT_MAX);

	if (!err)
		*cap = (unsigned)c;
	return err;
}
