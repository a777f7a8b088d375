/* profile — aggregated kernel stacks per window; stacks found by a hash of
 * their interned frame pointers and tgid (open addressing). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "data/profile.h"
#include "base/sanitize.h"
#include "base/strpool.h"

struct profile_slot {
	uint64_t hash;
	size_t idx;             /* stack index + 1; 0: empty */
};

#define PROFILE_CACHE_MIN 4096u
#define PROFILE_CACHE_MAX (1u << 20)

/* Caller's frame pointer -> interned copy, checked with strcmp on every hit:
 * callers that pass the same (or already interned) names skip the hashing. */
struct profile_cache_ent {
	const char *src;
	const char *interned;
};

struct profile_index {
	struct profile_slot *slots;
	size_t cap;             /* power of two */
	struct profile_cache_ent *cache; /* direct-mapped, grows with the pool */
	size_t cache_cap;
};

const char *cond_name(enum cond c)
{
	switch (c) {
	case COND_REF:
		return "ref";
	case COND_LOAD:
		return "load";
	default:
		return "?";
	}
}

void profile_diag_add(struct profile_diag *d, uint32_t tgid)
{
	if (!d)
		return;
	d->known = 1;
	for (unsigned i = 0; i < d->ntgids; i++)
		if (d->tgids[i] == tgid)
			return;
	if (d->ntgids < PROFILE_DIAG_MAX)
		d->tgids[d->ntgids++] = tgid;
}

struct profile *profile_new(void)
{
	struct profile *p = calloc(1, sizeof(*p));

	if (!p)
		goto fail;
	p->pool = strpool_new();
	p->index = calloc(1, sizeof(*p->index));
	if (!p->pool || !p->index)
		goto fail;
	p->index->cap = 1024;
	p->index->slots = calloc(p->index->cap, sizeof(*p->index->slots));
	if (!p->index->slots)
		goto fail;
	return p;
fail:
	profile_free(p);
	errno = ENOMEM;
	return NULL;
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nstacks; i++) {
		free(p->stacks[i].frames);
		free(p->stacks[i].uframes);
		free(p->stacks[i].win);
	}
	free(p->stacks);
	free(p->works);
	free(p->wins);
	free(p->idents);
	free(p->modules);
	free(p->ident_slot);
	if (p->index) {
		free(p->index->slots);
		free(p->index->cache);
	}
	free(p->index);
	strpool_free(p->pool);
	free(p);
}

struct profile *profile_fresh_like(const struct profile *p)
{
	struct profile *q = profile_new();

	if (!q)
		return NULL;
	for (unsigned w = 0; w < p->nwin; w++) {
		int err = profile_window_begin(q, p->wins[w].cond, p->wins[w].start_s);

		if (err < 0) {
			profile_free(q);
			errno = -err;
			return NULL;
		}
		q->wins[w] = p->wins[w];
	}
	q->diag = p->diag;
	return q;
}

struct profile *profile_windows(const struct profile *p, unsigned from, unsigned to)
{
	struct profile *q = NULL;
	int err = 0;

	if (!p || from >= to || to > p->nwin) {
		err = -EINVAL;
		goto out;
	}
	q = profile_new();
	if (!q) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned w = from; w < to && !err; w++) {
		err = profile_window_begin(q, p->wins[w].cond, p->wins[w].start_s);
		if (err >= 0) {
			q->wins[w - from] = p->wins[w];
			err = 0;
		}
	}
	for (size_t i = 0; i < p->nstacks && !err; i++) {
		const struct profile_stack *st = &p->stacks[i];

		for (unsigned w = from; w < to && !err; w++)
			if (st->win[w])
				err = profile_add_user(q, w - from, st->frames, st->nframes,
						       st->uframes, st->nuframes, st->tgid, st->comm,
						       st->win[w]);
	}
	for (size_t i = 0; i < p->nworks && !err; i++)
		if (p->works[i].win >= from && p->works[i].win < to)
			err = profile_work_add(q, p->works[i].win - from, p->works[i].pid,
					       p->works[i].func, p->works[i].count);
	if (!err)
		err = profile_copy_about(q, p);
out:
	if (err) {
		profile_free(q);
		errno = -err;
		return NULL;
	}
	return q;
}

const char *profile_intern(struct profile *p, const char *s)
{
	return strpool_intern(p->pool, s ? s : "");
}

static size_t profile_ident_hash(uint32_t tgid, size_t mask)
{
	return (size_t)((tgid * 0x9e3779b1u) ^ (tgid >> 16)) & mask;
}

const struct profile_ident *profile_ident_find(const struct profile *p, uint32_t tgid)
{
	size_t mask;

	if (!p || !p->ident_slots)
		return NULL;
	mask = p->ident_slots - 1;
	for (size_t i = profile_ident_hash(tgid, mask); p->ident_slot[i]; i = (i + 1) & mask)
		if (p->idents[p->ident_slot[i] - 1].tgid == tgid)
			return &p->idents[p->ident_slot[i] - 1];
	return NULL;
}

/* Room in the tgid index for one more identity. */
static int profile_ident_index_grow(struct profile *p)
{
	size_t n = p->ident_slots ? p->ident_slots * 2 : 64;
	uint32_t *s;

	if ((p->nidents + 1) * 2 <= p->ident_slots)
		return 0;
	s = calloc(n, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < p->nidents; k++) {
		size_t i = profile_ident_hash(p->idents[k].tgid, n - 1);

		while (s[i])
			i = (i + 1) & (n - 1);
		s[i] = (uint32_t)(k + 1);
	}
	free(p->ident_slot);
	p->ident_slot = s;
	p->ident_slots = n;
	return 0;
}

/* Interned, escaped first when it needs it: a cmdline or comm is whatever
 * the process set (argv, prctl), shown later on a terminal. */
static const char *profile_intern_safe(struct profile *p, const char *s)
{
	const char *r;
	char *safe;

	if (!s || sanitize_is_clean(s, 0))
		return profile_intern(p, s);
	safe = sanitize_str(s, 0);
	if (!safe)
		return NULL;
	r = profile_intern(p, safe);
	free(safe);
	return r;
}

int profile_ident_set(struct profile *p, const struct profile_ident *id)
{
	struct profile_ident *e;

	if (!p || !id)
		return -EINVAL;
	if (profile_ident_find(p, id->tgid))
		return 0;
	if (profile_ident_index_grow(p) < 0)
		return -ENOMEM;
	if (vec_grow(&p->idents, &p->ident_cap, p->nidents + 1, sizeof(*p->idents)))
		return -ENOMEM;
	e = &p->idents[p->nidents];
	e->tgid = id->tgid;
	e->kthread = id->kthread;
	if (!(e->comm = profile_intern_safe(p, id->comm)) ||
	    !(e->cmdline = profile_intern_safe(p, id->cmdline)) ||
	    !(e->exe = profile_intern_safe(p, id->exe)) ||
	    !(e->cgroup = profile_intern_safe(p, id->cgroup)) ||
	    !(e->unit = profile_intern_safe(p, id->unit)) ||
	    !(e->container = profile_intern_safe(p, id->container)) ||
	    !(e->role = profile_intern_safe(p, id->role)) ||
	    !(e->threads = profile_intern_safe(p, id->threads)))
		return -ENOMEM;
	{
		size_t mask = p->ident_slots - 1, i = profile_ident_hash(e->tgid, mask);

		while (p->ident_slot[i])
			i = (i + 1) & mask;
		p->ident_slot[i] = (uint32_t)(p->nidents + 1);
	}
	p->nidents++;
	return 0;
}

/* The index of module name, or nmodules.  A linear search: a profile names
 * tens of modules, looked up once per mapping written or per collect. */
static size_t profile_module_index(const struct profile *p, const char *name)
{
	size_t i = 0;

	while (i < p->nmodules && strcmp(p->modules[i].name, name))
		i++;
	return i;
}

const struct profile_module *profile_module_find(const struct profile *p, const char *name)
{
	size_t i = p && name ? profile_module_index(p, name) : 0;

	return p && name && i < p->nmodules ? &p->modules[i] : NULL;
}

int profile_module_set(struct profile *p, const char *name, const char *path,
		       const char *build_id)
{
	struct profile_module *e;
	size_t i;

	if (!p || !name || !*name)
		return -EINVAL;
	i = profile_module_index(p, name);
	e = i < p->nmodules ? &p->modules[i] : NULL;
	if (!e) {
		if (vec_grow(&p->modules, &p->module_cap, p->nmodules + 1, sizeof(*p->modules)))
			return -ENOMEM;
		e = &p->modules[p->nmodules];
		if (!(e->name = profile_intern_safe(p, name)))
			return -ENOMEM;
		e->path = e->build_id = "";
		p->nmodules++;
	}
	if (!*e->path && path && *path && !(e->path = profile_intern_safe(p, path)))
		return -ENOMEM;
	if (!*e->build_id && build_id && *build_id &&
	    !(e->build_id = profile_intern_safe(p, build_id)))
		return -ENOMEM;
	return 0;
}

int profile_copy_about(struct profile *dst, const struct profile *src)
{
	dst->diag = src->diag;
	for (size_t i = 0; i < src->nidents; i++) {
		int err = profile_ident_set(dst, &src->idents[i]);

		if (err)
			return err;
	}
	for (size_t i = 0; i < src->nmodules; i++) {
		const struct profile_module *m = &src->modules[i];
		int err = profile_module_set(dst, m->name, m->path, m->build_id);

		if (err)
			return err;
	}
	return 0;
}

int profile_window_begin(struct profile *p, enum cond c, double start_s)
{
	if (!p || (c != COND_REF && c != COND_LOAD))
		return -EINVAL;
	if (p->nwin == p->win_cap) {
		unsigned ncap = p->win_cap;

		if (vec_grow_u(&p->wins, &ncap, (size_t)p->nwin + 1, sizeof(*p->wins)))
			return -ENOMEM;
		for (size_t i = 0; i < p->nstacks; i++) {
			struct profile_stack *st = &p->stacks[i];

			if (vec_resize(&st->win, ncap, sizeof(*st->win)))
				return -ENOMEM; /* stacks grown so far keep ncap
				                 * room; the rest keep win_cap */
			memset(st->win + p->win_cap, 0, (ncap - p->win_cap) * sizeof(*st->win));
		}
		p->win_cap = ncap;
	}
	memset(&p->wins[p->nwin], 0, sizeof(p->wins[p->nwin]));
	p->wins[p->nwin].cond = c;
	p->wins[p->nwin].start_s = start_s;
	return (int)p->nwin++;
}

void profile_window_end(struct profile *p, unsigned w, double secs)
{
	if (p && w < p->nwin)
		p->wins[w].secs = secs;
}

int profile_work_add(struct profile *p, unsigned w, uint32_t pid, const char *func,
		     uint64_t count)
{
	struct profile_work *e;
	const char *f;

	if (!p || w >= p->nwin || !func)
		return -EINVAL;
	p->wins[w].works_traced = 1;
	if (!count)
		return 0;
	f = profile_intern(p, func);
	if (!f)
		return -ENOMEM;
	/* the window's entries are the last ones (interned: one pointer a name) */
	for (size_t i = p->nworks; i-- > 0 && p->works[i].win == w;)
		if (p->works[i].pid == pid && p->works[i].func == f) {
			p->works[i].count += count;
			return 0;
		}
	if (vec_grow(&p->works, &p->work_cap, p->nworks + 1, sizeof(*p->works)))
		return -ENOMEM;
	e = &p->works[p->nworks++];
	e->win = w;
	e->pid = pid;
	e->func = f;
	e->count = count;
	return 0;
}

static uint64_t profile_key_hash(const char *const *frames, unsigned n, uint32_t tgid)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ ((uint64_t)tgid << 32) ^ n;

	for (unsigned i = 0; i < n; i++) {
		h ^= (uint64_t)(uintptr_t)frames[i];
		h *= 0x9fb21c651e98df25ULL;
		h ^= h >> 31;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static int profile_index_grow(struct profile *p)
{
	struct profile_index *ix = p->index;
	size_t ncap = ix->cap * 2;
	struct profile_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		size_t j;

		if (!ix->slots[i].idx)
			continue;
		for (j = ix->slots[i].hash & (ncap - 1); ns[j].idx; j = (j + 1) & (ncap - 1))
			;
		ns[j] = ix->slots[i];
	}
	free(ix->slots);
	ix->slots = ns;
	ix->cap = ncap;
	return 0;
}

/* Interns names[0..n) into in[] through the pointer cache.  0 or -ENOMEM. */
static int profile_intern_frames(struct profile *p, const char *const *names, unsigned n,
				 const char **in)
{
	for (unsigned f = 0; f < n; f++) {
		const char *s = names[f] ? names[f] : "";
		uintptr_t k = (uintptr_t)s;
		struct profile_cache_ent *e = p->index->cache ?
			&p->index->cache[((k >> 3) ^ (k >> 17)) & (p->index->cache_cap - 1)] : NULL;

		if (e && e->src == s && (s == e->interned || strcmp(s, e->interned) == 0)) {
			in[f] = e->interned;
			continue;
		}
		in[f] = strpool_intern(p->pool, s);
		if (!in[f])
			return -ENOMEM;
		if (e) {
			e->src = s;
			e->interned = in[f];
		}
	}
	return 0;
}

int profile_add(struct profile *p, unsigned w, const char *const *frames,
		unsigned nframes, uint32_t tgid, const char *comm, uint64_t count)
{
	return profile_add_user(p, w, frames, nframes, NULL, 0, tgid, comm, count);
}

int profile_add_user(struct profile *p, unsigned w, const char *const *frames,
		     unsigned nframes, const char *const *uframes, unsigned nuframes,
		     uint32_t tgid, const char *comm, uint64_t count)
{
	const char *buf[128], *ubuf[64];
	const char **in = buf, **uin = ubuf;
	struct profile_index *ix;
	struct profile_stack *st;
	uint64_t h;
	size_t mask, i;
	int err = 0;

	if (!p || w >= p->nwin || (nframes && !frames) || (nuframes && !uframes))
		return -EINVAL;
	if (nframes > sizeof(buf) / sizeof(buf[0])) {
		in = malloc(nframes * sizeof(*in));
		if (!in)
			return -ENOMEM;
	}
	if (nuframes > sizeof(ubuf) / sizeof(ubuf[0])) {
		uin = malloc(nuframes * sizeof(*uin));
		if (!uin) {
			err = -ENOMEM;
			goto out;
		}
	}
	if (!p->index->cache || (strpool_count(p->pool) * 2 > p->index->cache_cap &&
				 p->index->cache_cap < PROFILE_CACHE_MAX)) {
		size_t ncap = p->index->cache_cap ? p->index->cache_cap * 4 : PROFILE_CACHE_MIN;
		struct profile_cache_ent *nc = calloc(ncap, sizeof(*nc));

		if (nc) {
			free(p->index->cache);
			p->index->cache = nc;
			p->index->cache_cap = ncap;
		}
	}
	err = profile_intern_frames(p, frames, nframes, in);
	if (!err)
		err = profile_intern_frames(p, uframes, nuframes, uin);
	if (err)
		goto out;
	if ((p->nstacks + 1) * 2 > p->index->cap) {
		err = profile_index_grow(p);
		if (err < 0)
			goto out;
	}
	h = profile_key_hash(in, nframes, tgid);
	if (nuframes)
		h ^= profile_key_hash(uin, nuframes, ~tgid) * 3;
	ix = p->index;
	mask = ix->cap - 1;
	for (i = h & mask; ix->slots[i].idx; i = (i + 1) & mask) {
		st = &p->stacks[ix->slots[i].idx - 1];
		if (ix->slots[i].hash == h && st->tgid == tgid && st->nframes == nframes &&
		    st->nuframes == nuframes &&
		    (nframes == 0 || memcmp(st->frames, in, nframes * sizeof(*in)) == 0) &&
		    (nuframes == 0 || memcmp(st->uframes, uin, nuframes * sizeof(*uin)) == 0))
			goto found;
	}
	/* a new stack */
	if (vec_grow(&p->stacks, &p->stack_cap, p->nstacks + 1, sizeof(*p->stacks))) {
		err = -ENOMEM;
		goto out;
	}
	st = &p->stacks[p->nstacks];
	memset(st, 0, sizeof(*st));
	st->frames = malloc((nframes ? nframes : 1) * sizeof(*st->frames));
	st->win = calloc(p->win_cap, sizeof(*st->win));
	if (nuframes && !(st->uframes = malloc(nuframes * sizeof(*st->uframes)))) {
		free(st->frames);
		free(st->win);
		err = -ENOMEM;
		goto out;
	}
	{
		/* a task names itself (prctl PR_SET_NAME): escape before it is shown */
		char safe[96];

		if (comm && !sanitize_is_clean(comm, 0)) {
			sanitize_into(safe, sizeof(safe), comm, 0);
			comm = safe;
		}
		st->comm = strpool_intern(p->pool, comm ? comm : "");
	}
	if (!st->frames || !st->win || !st->comm) {
		free(st->frames);
		free(st->uframes);
		free(st->win);
		err = -ENOMEM;
		goto out;
	}
	if (nframes)
		memcpy(st->frames, in, nframes * sizeof(*in));
	st->nframes = nframes;
	if (nuframes)
		memcpy(st->uframes, uin, nuframes * sizeof(*uin));
	st->nuframes = nuframes;
	st->tgid = tgid;
	p->nstacks++;
	ix->slots[i].hash = h;
	ix->slots[i].idx = p->nstacks;
found:
	st->win[w] += count;
	st->total += count;
out:
	if (in != buf)
		free(in);
	if (uin != ubuf)
		free(uin);
	return err;
}

double profile_cond_secs(const struct profile *p, enum cond c)
{
	double s = 0;

	for (unsigned w = 0; p && w < p->nwin; w++)
		if (p->wins[w].cond == c)
			s += p->wins[w].secs;
	return s;
}

uint64_t profile_cond_samples(const struct profile *p, enum cond c)
{
	uint64_t n = 0;

	if (!p)
		return 0;
	for (size_t i = 0; i < p->nstacks; i++)
		for (unsigned w = 0; w < p->nwin; w++)
			if (p->wins[w].cond == c)
				n += p->stacks[i].win[w];
	return n;
}

unsigned profile_cond_windows(const struct profile *p, enum cond c)
{
	unsigned n = 0;

	for (unsigned w = 0; p && w < p->nwin; w++)
		if (p->wins[w].cond == c)
			n++;
	return n;
}

uint64_t profile_lost(const struct profile *p)
{
	uint64_t n = 0;

	for (unsigned w = 0; p && w < p->nwin; w++)
		n += p->wins[w].lost;
	return n;
}
