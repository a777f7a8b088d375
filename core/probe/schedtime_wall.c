/* schedtime_wall — a duty-cycled window's per-thread times from
 * /proc/TGID/task/TID/schedstat (see schedtime_wall.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probe/schedtime_wall.h"

struct schedtime_wall_base {
	uint32_t pid;
	uint64_t oncpu_ns, delay_ns, t_ns;
};

/* One thread's exact times in the window, and what the snapshot has. */
struct wall_thread {
	uint32_t pid, tgid;
	char comm[SCHEDTIME_COMM_LEN];
	double want[3];              /* ns: ONCPU, RUNNABLE, BLOCKED */
	double got[3];
	int known;                   /* want is known (an earlier count) */
};

static uint64_t wall_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int by_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* on-CPU and run-queue ns so far; -errno when it has gone */
static int wall_schedstat(uint32_t tgid, uint32_t tid, uint64_t *oncpu, uint64_t *delay)
{
	char path[64];
	unsigned long long run, wait, slices;
	int got;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/task/%" PRIu32 "/schedstat", tgid, tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	got = fscanf(f, "%llu %llu %llu", &run, &wait, &slices) == 3;
	fclose(f);
	if (!got)
		return -EINVAL;
	*oncpu = run;
	*delay = wait;
	return 0;
}

static int kind_slot(uint32_t kind)
{
	switch (kind) {
	case SCHEDTIME_ONCPU: return 0;
	case SCHEDTIME_RUNNABLE: return 1;
	case SCHEDTIME_BLOCKED: return 2;
	default: return -1;
	}
}

/* The threads' exact times since the last call into t (sorted by pid),
 * and the counters now into w. */
static int wall_counts(struct schedtime_wall *w, const struct schedtime_wall_thread *th, size_t n,
		       struct wall_thread *t)
{
	struct schedtime_wall_base *nb = calloc(n ? n : 1, sizeof(*nb));
	size_t nn = 0;

	if (!nb)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct schedtime_wall_base b = { .pid = th[i].pid }, *old;
		uint64_t now = wall_now_ns();

		t[i] = (struct wall_thread){ .pid = th[i].pid, .tgid = th[i].tgid };
		memcpy(t[i].comm, th[i].comm, sizeof(t[i].comm));
		if (wall_schedstat(th[i].tgid, th[i].pid, &b.oncpu_ns, &b.delay_ns))
			continue;
		b.t_ns = now;
		old = w->n ? bsearch(&b.pid, w->base, w->n, sizeof(*w->base), by_pid) : NULL;
		if (old && now > old->t_ns && b.oncpu_ns >= old->oncpu_ns && b.delay_ns >= old->delay_ns) {
			double dt = (double)(now - old->t_ns), on = (double)(b.oncpu_ns - old->oncpu_ns),
			       rq = (double)(b.delay_ns - old->delay_ns);

			t[i].want[0] = on;
			t[i].want[1] = rq;
			t[i].want[2] = dt > on + rq ? dt - on - rq : 0;
			t[i].known = 1;
		}
		nb[nn++] = b;
	}
	qsort(nb, nn, sizeof(*nb), by_pid);
	free(w->base);
	w->base = nb;
	w->n = nn;
	qsort(t, n, sizeof(*t), by_pid);
	return 0;
}

/* Appends a stackless entry of kind for thread t (on-CPU time it had only
 * while the programs were detached, or a wait they never saw begin). */
static int wall_append(struct probe_schedtime_snap *s, size_t *cap, const struct wall_thread *t,
		       uint32_t kind, double ns)
{
	struct probe_schedtime_entry *e;

	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 16;

		e = realloc(s->e, nc * sizeof(*e));
		if (!e)
			return -ENOMEM;
		s->e = e;
		*cap = nc;
	}
	e = &s->e[s->n++];
	memset(e, 0, sizeof(*e));
	e->key.pid = t->pid;
	e->key.tgid = t->tgid;
	e->key.kind = kind;
	e->key.stack_id = SCHEDTIME_NO_STACK;
	e->key.ustack_id = SCHEDTIME_NO_STACK;
	e->key.other_kind = SCHEDTIME_OTHER_NONE;
	memcpy(e->key.comm, t->comm, sizeof(e->key.comm));
	e->val.count = 1;
	e->val.total_ns = (uint64_t)llround(ns);
	return 0;
}

int schedtime_wall_fix(struct schedtime_wall *w, const struct schedtime_wall_thread *th, size_t n,
		       struct probe_schedtime_snap *s)
{
	struct wall_thread *t = calloc(n ? n : 1, sizeof(*t));
	double k = s->attached_secs > 1e-3 ? s->secs / s->attached_secs : 0;
	size_t cap = s->n, keep = 0;
	int err;

	if (!t)
		return -ENOMEM;
	err = wall_counts(w, th, n, t);
	if (err || !(s->attached_secs < s->secs - 1e-6))
		goto out;
	for (size_t i = 0; i < s->n; i++) {
		struct wall_thread *p = bsearch(&s->e[i].key.pid, t, n, sizeof(*t), by_pid);
		int j = kind_slot(s->e[i].key.kind);

		if (p && j >= 0)
			p->got[j] += (double)s->e[i].val.total_ns;
	}
	for (size_t i = 0; i < s->n; i++) {
		struct probe_schedtime_entry *e = &s->e[i];
		struct schedtime_val *v = &e->val;
		struct wall_thread *p = bsearch(&e->key.pid, t, n, sizeof(*t), by_pid);
		int j = kind_slot(e->key.kind);
		double f = k;

		if (p && p->known && j >= 0) {
			if (p->got[j] > 0) {
				f = p->want[j] / p->got[j];
			} else if (j == 2 && e->key.other_kind == SCHEDTIME_OTHER_NONE &&
				   p->want[j] > 0) {
				/* the placeholder: its stack, the thread's whole wait */
				v->total_ns = (uint64_t)llround(p->want[j]);
				v->count = 1;
				p->got[j] = p->want[j];
				continue;
			}
		}
		v->total_ns = (uint64_t)llround((double)v->total_ns * f);
		v->count = (uint64_t)llround((double)v->count * k);
		for (int b = 0; b < SCHEDTIME_BUCKETS; b++)
			v->hist[b] = (uint64_t)llround((double)v->hist[b] * k);
	}
	/* what the programs saw nothing of: stackless */
	for (size_t i = 0; i < n && !err; i++) {
		static const uint32_t kinds[3] = { SCHEDTIME_ONCPU, SCHEDTIME_RUNNABLE, SCHEDTIME_BLOCKED };

		if (!t[i].known)
			continue;
		for (int j = 0; j < 3 && !err; j++)
			if (!(t[i].got[j] > 0) && t[i].want[j] >= 1e5) /* 0.1 ms */
				err = wall_append(s, &cap, &t[i], kinds[j], t[i].want[j]);
	}
	/* placeholders nobody needed */
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].val.total_ns || s->e[i].val.count)
			s->e[keep++] = s->e[i];
	s->n = keep;
out:
	free(t);
	return err;
}

void schedtime_wall_fini(struct schedtime_wall *w)
{
	free(w->base);
	w->base = NULL;
	w->n = 0;
}
