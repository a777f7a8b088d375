/* waitgraph — per-window wait edges and on-CPU time (see waitgraph.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "base/vec.h"
#include "data/waitgraph.h"

const char *wg_channel_name(enum wg_channel c)
{
	static const char *const n[WG_CH_N] = {
		"other", "futex", "kernel lock", "pipe", "unix", "tcp", "udp", "poll",
		"sleep", "block io",
	};

	return c < WG_CH_N ? n[c] : "?";
}

const char *wg_softirq_name(unsigned vec)
{
	static const char *const n[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					 "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return vec < sizeof(n) / sizeof(n[0]) ? n[vec] : "?";
}

/* Does the stack hold a frame that starts with one of the prefixes? */
static int wg_has(const char *stack, const char *const *pfx)
{
	const char *p = stack;

	while (p && *p) {
		const char *e = strchr(p, ';');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		for (int i = 0; pfx[i]; i++) {
			size_t l = strlen(pfx[i]);

			if (n >= l && !strncmp(p, pfx[i], l))
				return 1;
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

enum wg_channel wg_classify_stack(const char *stack)
{
	/* most specific first: a futex wait inside epoll is still a futex */
	static const char *const blockio[] = { "io_schedule", "blkdev_", "iomap_dio", "__iomap_dio",
					       "submit_bio_wait", "folio_wait_bit", "wait_on_page_bit",
					       "__folio_lock", "ext4_file_read_iter", "filemap_read", NULL };
	static const char *const futex[] = { "futex_wait", "__futex_wait", "futex_wait_queue", NULL };
	static const char *const unix_[] = { "unix_stream_", "unix_dgram_", "unix_wait_for_peer",
					     "unix_stream_data_wait", NULL };
	static const char *const tcp[] = { "tcp_recvmsg", "tcp_sendmsg", "inet_csk_accept",
					   "sk_wait_data", "sk_stream_wait_memory", NULL };
	static const char *const udp[] = { "udp_recvmsg", "__skb_wait_for_more_packets", NULL };
	static const char *const pipe[] = { "pipe_read", "pipe_write", "pipe_wait", NULL };
	static const char *const poll[] = { "ep_poll", "do_sys_poll", "do_select", "core_sys_select", NULL };
	static const char *const sleep[] = { "hrtimer_nanosleep", "do_nanosleep", "schedule_hrtimeout",
					     "msleep", "clock_nanosleep", "common_nsleep", NULL };
	static const char *const klock[] = { "__mutex_lock", "mutex_lock", "rwsem_down_", "down_read",
					     "down_write", "__down", NULL };

	if (!stack || !*stack)
		return WG_CH_OTHER;
	if (wg_has(stack, futex))
		return WG_CH_FUTEX;
	if (wg_has(stack, unix_))
		return WG_CH_UNIX;
	if (wg_has(stack, tcp))
		return WG_CH_TCP;
	if (wg_has(stack, udp))
		return WG_CH_UDP;
	if (wg_has(stack, pipe))
		return WG_CH_PIPE;
	if (wg_has(stack, poll))
		return WG_CH_EPOLL;
	if (wg_has(stack, sleep))
		return WG_CH_SLEEP;
	if (wg_has(stack, blockio))
		return WG_CH_BLOCKIO;
	if (wg_has(stack, klock))
		return WG_CH_KLOCK;
	return WG_CH_OTHER;
}

struct waitgraph *wg_new(void)
{
	return calloc(1, sizeof(struct waitgraph));
}

void wg_free(struct waitgraph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->nedges; i++)
		free(g->edges[i].stack);
	free(g->edges);
	free(g->threads);
	free(g->hidx);
	free(g);
}

static int wg_same(const struct wg_edge *a, const struct wg_edge *b)
{
	return a->pid == b->pid && a->tgid == b->tgid && a->waker == b->waker &&
	       a->wpid == b->wpid && a->wtgid == b->wtgid && a->vec == b->vec &&
	       !strcmp(a->comm, b->comm) && !strcmp(a->wcomm, b->wcomm) &&
	       !strcmp(a->stack ? a->stack : "", b->stack ? b->stack : "");
}

/* FNV-1a over the fields wg_same compares */
static size_t wg_hash(const struct wg_edge *e)
{
	uint64_t h;
	uint32_t v[6] = { e->pid, e->tgid, (uint32_t)e->waker, e->wpid, e->wtgid, e->vec };
	const char *s[3] = { e->comm, e->wcomm, e->stack ? e->stack : "" };
	size_t lim[3] = { 15, 15, (size_t)-1 };

	h = hash_bytes(HASH_SEED, v, sizeof(v));
	for (int k = 0; k < 3; k++)
		h = hash_str(h, s[k], lim[k]);
	return (size_t)h;
}

/* The index again at twice the size (keeps it at most half full). */
static int wg_rehash(struct waitgraph *g)
{
	size_t cap = g->hcap ? g->hcap * 2 : 256, *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < g->nedges; i++) {
		size_t k = wg_hash(&g->edges[i]) & (cap - 1);

		while (n[k])
			k = (k + 1) & (cap - 1);
		n[k] = i + 1;
	}
	free(g->hidx);
	g->hidx = n;
	g->hcap = cap;
	return 0;
}

int wg_edge_add(struct waitgraph *g, const struct wg_edge *e)
{
	struct wg_edge *n;
	size_t k;

	if ((g->nedges + 1) * 2 > g->hcap && wg_rehash(g))
		return -ENOMEM;
	for (k = wg_hash(e) & (g->hcap - 1); g->hidx[k]; k = (k + 1) & (g->hcap - 1)) {
		struct wg_edge *x = &g->edges[g->hidx[k] - 1];

		if (wg_same(x, e)) {
			x->count += e->count;
			x->total_ns += e->total_ns;
			for (int b = 0; b < WG_BUCKETS; b++)
				x->hist[b] += e->hist[b];
			return 0;
		}
	}
	if (vec_grow(&g->edges, &g->edge_cap, g->nedges + 1, sizeof(*g->edges)))
		return -ENOMEM;
	n = &g->edges[g->nedges];
	*n = *e;
	n->comm[15] = n->wcomm[15] = 0;
	n->stack = strdup(e->stack ? e->stack : "");
	if (!n->stack)
		return -ENOMEM;
	n->channel = wg_classify_stack(n->stack);
	g->nedges++;
	g->hidx[k] = g->nedges;
	return 0;
}

int wg_thread_add(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		  uint64_t cpu_ns)
{
	struct wg_thread *t;

	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].pid == pid) {
			g->threads[i].cpu_ns += cpu_ns;
			return 0;
		}
	if (vec_grow(&g->threads, &g->thread_cap, g->nthreads + 1, sizeof(*g->threads)))
		return -ENOMEM;
	t = &g->threads[g->nthreads++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = tgid;
	strncpy(t->comm, comm ? comm : "", sizeof(t->comm) - 1);
	t->cpu_ns = cpu_ns;
	return 0;
}

/* A thread's entry, added without time when new; NULL: out of memory. */
static struct wg_thread *wg_thread_of(struct waitgraph *g, uint32_t pid, uint32_t tgid,
				      const char *comm)
{
	if (wg_thread_add(g, pid, tgid, comm, 0))
		return NULL;
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].pid == pid)
			return &g->threads[i];
	return NULL;
}

int wg_thread_add_runq(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		       uint64_t runq_ns)
{
	struct wg_thread *t = wg_thread_of(g, pid, tgid, comm);

	if (!t)
		return -ENOMEM;
	t->runq_ns += runq_ns;
	return 0;
}

int wg_thread_add_switches(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
			   uint64_t n)
{
	struct wg_thread *t = wg_thread_of(g, pid, tgid, comm);

	if (!t)
		return -ENOMEM;
	t->switches += n;
	return 0;
}

void wg_pace_add(struct wg_pace *dst, const struct wg_pace *src)
{
	dst->rw_calls += src->rw_calls;
	dst->switches += src->switches;
	dst->secs += src->secs;
}

int wg_merge(struct waitgraph *dst, const struct waitgraph *src)
{
	int err;

	for (size_t i = 0; i < src->nedges; i++) {
		err = wg_edge_add(dst, &src->edges[i]);
		if (err)
			return err;
	}
	for (size_t i = 0; i < src->nthreads; i++) {
		const struct wg_thread *t = &src->threads[i];

		err = wg_thread_add(dst, t->pid, t->tgid, t->comm, t->cpu_ns);
		if (!err && t->runq_ns)
			err = wg_thread_add_runq(dst, t->pid, t->tgid, t->comm, t->runq_ns);
		if (!err && t->switches)
			err = wg_thread_add_switches(dst, t->pid, t->tgid, t->comm, t->switches);
		if (err)
			return err;
	}
	dst->secs += src->secs;
	dst->wall_s += wg_wall_s(src);
	wg_pace_add(&dst->pace_on, &src->pace_on);
	wg_pace_add(&dst->pace_off, &src->pace_off);
	return 0;
}

double wg_block_rate(const struct waitgraph *g)
{
	uint64_t n = 0;

	for (size_t i = 0; i < g->nedges; i++)
		n += g->edges[i].count;
	return g->secs > 0 ? n / g->secs : 0;
}

double wg_cpu_rate(const struct waitgraph *g)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < g->nthreads; i++)
		ns += g->threads[i].cpu_ns;
	return g->secs > 0 ? ns / 1e9 / g->secs : 0;
}
