/* The model derived from a fake wait graph shaped like tests/scenarios/tier3
 * (4 clients -> front -> back with a mutex and disk reads), its solution
 * and its writers (lqn, lqnx, dot, json); the same load as a message
 * ping-pong (no think time: the reference and the calls from the blocks'
 * lengths); the probe correction on a client/server pair solved by hand. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/model.h"
#include "model/model_view.h"
#include "data/waitgraph.h"
#include "model/model_capture.h"
#include "model/model_view.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const char st_sleep[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_clock_nanosleep;"
			       "common_nsleep;hrtimer_nanosleep;do_nanosleep;schedule";
static const char st_unix[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_read;ksys_read;vfs_read;"
			      "sock_read_iter;unix_stream_recvmsg;unix_stream_read_generic;"
			      "unix_stream_data_wait;schedule_timeout;schedule";
static const char st_futex[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_futex;do_futex;futex_wait;"
			       "__futex_wait;futex_wait_queue;schedule";
static const char st_dio[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_pread64;vfs_read;"
			     "ext4_file_read_iter;iomap_dio_rw;__iomap_dio_rw;io_schedule;schedule";

/* Who blocked where, and who woke them: the part of an edge both makers fill. */
static void edge_who(struct wg_edge *e, uint32_t pid, uint32_t tgid, const char *comm,
		     enum wg_waker wk, uint32_t wpid, uint32_t wtgid, const char *wcomm,
		     const char *stack)
{
	memset(e, 0, sizeof(*e));
	e->pid = pid;
	e->tgid = tgid;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	e->waker = wk;
	e->wpid = wpid;
	e->wtgid = wtgid;
	snprintf(e->wcomm, sizeof(e->wcomm), "%s", wcomm ? wcomm : "");
	e->stack = (char *)stack;
}

static void edge(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		 enum wg_waker wk, uint32_t wpid, uint32_t wtgid, const char *wcomm,
		 uint32_t vec, const char *stack, uint64_t count, double secs)
{
	struct wg_edge e;

	edge_who(&e, pid, tgid, comm, wk, wpid, wtgid, wcomm, stack);
	e.vec = vec;
	e.count = count;
	e.total_ns = (uint64_t)(secs * 1e9);
	assert_int_equal(wg_edge_add(g, &e), 0);
}

/* 4 clients, 10 s, 1000 cycles per client thread (think 5 ms each) */
static struct waitgraph *tier3_graph(void)
{
	struct waitgraph *g = wg_new();

	assert_non_null(g);
	g->secs = 10;
	for (uint32_t i = 1; i <= 4; i++) {
		uint32_t c = 100 + i, f = 200 + i, b = 300 + i;

		edge(g, c, 100, "t3-client", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 1000, 5.0);
		edge(g, c, 100, "t3-client", WG_WAKER_TASK, f, 200, "t3-front", 0, st_unix, 1000, 4.5);
		edge(g, f, 200, "t3-front", WG_WAKER_TASK, c, 100, "t3-client", 0, st_unix, 1000, 5.2);
		edge(g, f, 200, "t3-front", WG_WAKER_TASK, b, 300, "t3-back", 0, st_unix, 1000, 3.5);
		edge(g, b, 300, "t3-back", WG_WAKER_TASK, f, 200, "t3-front", 0, st_unix, 1000, 6.0);
		edge(g, b, 300, "t3-back", WG_WAKER_TASK, 300 + (i % 4) + 1, 300, "t3-back", 0,
		     st_futex, 250, 0.1);
		edge(g, b, 300, "t3-back", WG_WAKER_HARDIRQ, 0, 0, NULL, 25, st_dio, 1000, 1.0);
		/* the wakee of a wakeup argus itself made: left out */
		edge(g, c, 100, "t3-client", WG_WAKER_TASK, 901, 900, "argus", 0, st_unix, 3, 0.01);
		assert_int_equal(wg_thread_add(g, c, 100, "t3-client", 50000000), 0);
		assert_int_equal(wg_thread_add(g, f, 200, "t3-front", 300000000), 0);
		assert_int_equal(wg_thread_add(g, b, 300, "t3-back", 900000000), 0);
	}
	/* a daemon beside the load: clutter */
	edge(g, 501, 500, "cron", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 10, 9.9);
	assert_int_equal(wg_thread_add(g, 501, 500, "cron", 1000000), 0);
	assert_int_equal(wg_thread_add(g, 901, 900, "argus", 80000000), 0);
	return g;
}

static int find(const struct model *m, const char *name)
{
	for (unsigned i = 0; i < m->ntask; i++)
		if (!strcmp(m->task[i].name, name))
			return (int)i;
	return -1;
}

static const struct model_call *call(const struct model *m, int from, int to)
{
	for (unsigned c = 0; c < m->task[from].ncalls; c++)
		if (m->task[from].calls[c].to == to)
			return &m->task[from].calls[c];
	return NULL;
}

static void test_classify(void **state)
{
	(void)state;
	assert_int_equal(wg_classify_stack(st_sleep), WG_CH_SLEEP);
	assert_int_equal(wg_classify_stack(st_unix), WG_CH_UNIX);
	assert_int_equal(wg_classify_stack(st_futex), WG_CH_FUTEX);
	assert_int_equal(wg_classify_stack(st_dio), WG_CH_BLOCKIO);
	assert_int_equal(wg_classify_stack("a;tcp_recvmsg;sk_wait_data;schedule"), WG_CH_TCP);
	assert_int_equal(wg_classify_stack("a;pipe_read;schedule"), WG_CH_PIPE);
	assert_int_equal(wg_classify_stack("a;do_epoll_wait;ep_poll;schedule"), WG_CH_EPOLL);
	assert_int_equal(wg_classify_stack(""), WG_CH_OTHER);
	assert_string_equal(wg_softirq_name(WG_SOFTIRQ_NET_RX), "NET_RX");
}

static void test_merge_and_rates(void **state)
{
	struct waitgraph *a = tier3_graph(), *b = tier3_graph();

	(void)state;
	assert_int_equal(wg_merge(a, b), 0);
	NEAR(a->secs, 20, 1e-12);
	NEAR(wg_block_rate(a), wg_block_rate(b), 1e-9);
	NEAR(wg_cpu_rate(a), wg_cpu_rate(b), 1e-9);
	wg_free(a);
	wg_free(b);
	wg_free(NULL);
}

static void test_structure(void **state)
{
	struct waitgraph *g = tier3_graph();
	struct model_opts o = { .exclude_tgid = 900, .cpus = 2 };
	struct model m;
	char *cause = NULL;
	int c, f, b, l, d;
	const struct model_call *k;

	(void)state;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_null(cause);
	assert_string_equal(m.note, "");
	/* exactly these tasks: nothing invented */
	assert_int_equal(m.ntask, 5);
	c = find(&m, "t3-client");
	f = find(&m, "t3-front");
	b = find(&m, "t3-back");
	l = find(&m, "t3-back.lock");
	d = find(&m, "disk");
	assert_true(c >= 0 && f >= 0 && b >= 0 && l >= 0 && d >= 0);
	assert_int_equal(m.ref, c);
	assert_true(m.task[c].ref);
	assert_int_equal(m.task[c].threads, 4);
	assert_int_equal(m.task[f].threads, 4);
	assert_true(m.task[f].per_caller);
	assert_true(m.task[b].per_caller);
	assert_int_equal(m.task[l].kind, MODEL_TASK_SEMAPHORE);
	assert_int_equal(m.task[d].kind, MODEL_TASK_DISK);
	/* calls: client -> front -> back -> {lock, disk}, one each */
	assert_int_equal(m.task[c].ncalls, 1);
	assert_int_equal(m.task[f].ncalls, 1);
	assert_int_equal(m.task[b].ncalls, 2);
	assert_int_equal(m.task[l].ncalls, 0);
	k = call(&m, c, f);
	assert_non_null(k);
	NEAR(k->mean, 1.0, 1e-9);
	assert_string_equal(k->channel, "unix");
	k = call(&m, f, b);
	assert_non_null(k);
	NEAR(k->mean, 1.0, 1e-9);
	assert_non_null(call(&m, b, l));
	k = call(&m, b, d);
	assert_non_null(k);
	NEAR(k->mean, 1.0, 1e-9);
	assert_null(call(&m, f, c)); /* the reply is not a call */
	/* demands */
	NEAR(m.task[c].sleep_s, 0.005, 1e-9);      /* think */
	NEAR(m.task[f].cpu_s, 0.0003, 1e-9);
	/* the section's CPU: the model's own wait per acquisition at the
	 * measured load is the measured one (contended waits x their mean /
	 * acquisitions: 0.25 x 0.4 ms), the pool keeping the rest of the
	 * measured 0.9 ms; the holding time is that CPU and its CPU wait */
	NEAR(m.task[l].wait_s, 0.0004, 1e-9);
	NEAR(m.task[b].cpu_s + m.task[l].cpu_s, 0.0009, 1e-9);
	assert_true(m.task[l].cpu_s > 0 && m.task[l].cpu_s < 0.0009);
	{
		struct model_prediction p;
		const char *why;

		assert_int_equal(model_solve(&m, NULL, &p, &why), 0);
		NEAR(p.task_wait[l], 0.25 * 0.0004, 0.01 * 0.25 * 0.0004);
		NEAR(p.x, 400, 0.01 * 400);
		NEAR(m.task[l].hold_s, m.task[l].cpu_s + p.task_cpu_wait[l], 1e-9);
	}
	assert_non_null(strstr(m.task[l].stack, "futex_wait"));
	NEAR(m.task[d].visit_s, 0.001, 1e-9);
	NEAR(m.x, 400, 1e-9);
	NEAR(m.r, 4 * 10.0 / 4000 - 0.005, 1e-9); /* cycle less think */
	assert_true(m.beta >= 0);
	/* clutter: cron is other, argus is not there at all */
	assert_int_equal(m.other_tasks, 1);
	assert_int_equal(find(&m, "argus"), -1);
	assert_int_equal(find(&m, "cron"), -1);
	wg_free(g);
}

/* A wait edge whose blocks fall in two log2 buckets (n1 in b1, n2 in b2). */
static void edge_h(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		   uint32_t wpid, uint32_t wtgid, const char *wcomm, int b1, uint64_t n1, int b2,
		   uint64_t n2, double secs)
{
	struct wg_edge e;

	memset(&e, 0, sizeof(e));
	e.pid = pid;
	e.tgid = tgid;
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	e.waker = WG_WAKER_TASK;
	e.wpid = wpid;
	e.wtgid = wtgid;
	snprintf(e.wcomm, sizeof(e.wcomm), "%s", wcomm);
	e.stack = (char *)st_unix;
	e.count = n1 + n2;
	e.total_ns = (uint64_t)(secs * 1e9);
	e.hist[b1] += n1;
	e.hist[b2] += n2;
	assert_int_equal(wg_edge_add(g, &e), 0);
}

/* tier3 as a message ping-pong (--think-ms 0, no work): 2 clients ->
 * front -> back, 10 s, 10000 calls per client thread, every block under
 * 33 us.  Per call: a client blocks twice on the front (until the front
 * reads its request: the write-space wakeup, ~1 us; then until the
 * reply, ~16 us); the front once on the client (9000: the next request
 * sometimes finds it awake) and 0.6 times on the back (the back's read
 * and reply often end one block); the back twice on the front (300 of
 * them over 33 us).  The front has a few stray timer sleeps, the client
 * none: "the most timer sleep" picked the front as the reference.  The
 * reference is the root: the client (a leaf of the pairs, more of its time
 * blocked on its partner than the back's); calls ~1 per request each
 * hop (the pair's blocks / 2 on the side that blocks twice), the
 * throughput the client's 20000 cycles in 10 s. */
static struct waitgraph *pingpong_graph(void)
{
	struct waitgraph *g = wg_new();

	assert_non_null(g);
	g->secs = 10;
	for (uint32_t i = 1; i <= 2; i++) {
		uint32_t c = 100 + i, f = 200 + i, b = 300 + i;

		edge_h(g, c, 100, "t3-client", f, 200, "t3-front", 10, 10000, 14, 10000, 5.0);
		edge_h(g, f, 200, "t3-front", c, 100, "t3-client", 11, 9000, 11, 0, 0.8);
		edge_h(g, f, 200, "t3-front", b, 300, "t3-back", 12, 6000, 12, 0, 1.5);
		edge_h(g, b, 300, "t3-back", f, 200, "t3-front", 10, 10000, 13, 10000, 3.0);
		edge_h(g, b, 300, "t3-back", f, 200, "t3-front", 15, 300, 15, 0, 0.02);
		edge(g, f, 200, "t3-front", WG_WAKER_SOFTIRQ, 0, 0, NULL, WG_SOFTIRQ_TIMER, st_sleep,
		     3, 0.03);
		assert_int_equal(wg_thread_add(g, c, 100, "t3-client", 800000000), 0);
		assert_int_equal(wg_thread_add(g, f, 200, "t3-front", 2000000000), 0);
		assert_int_equal(wg_thread_add(g, b, 300, "t3-back", 1200000000), 0);
	}
	return g;
}

/* An edge over a stream channel with its blocks' lengths: n[i] blocks in
 * log2 bucket b[i] (2^b ns). */
static void edge_hist(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		      uint32_t wpid, uint32_t wtgid, const char *wcomm, const int *b,
		      const uint64_t *n, int nb)
{
	struct wg_edge e;

	edge_who(&e, pid, tgid, comm, WG_WAKER_TASK, wpid, wtgid, wcomm, st_unix);
	for (int i = 0; i < nb; i++) {
		e.hist[b[i]] += n[i];
		e.count += n[i];
		e.total_ns += n[i] * ((uint64_t)1 << b[i]);
	}
	assert_int_equal(wg_edge_add(g, &e), 0);
}

/* Write-space wakeups that outlast 33 us (the peer slow to read: on a quiet
 * machine it wakes from an idle CPU's sleep state).  tier3 at 1 client,
 * think 10 ms, 1000 cycles: each request and reply is one long block, but
 * the front is also woken 120 times by the client and the back 100 times
 * by the front after 65 us (and many more times within 4 us).  A call is a
 * request and its reply: 1 call a request each hop, not 1.12 and 0.98. */
static void test_slow_write_space(void **state)
{
	struct waitgraph *g = wg_new();
	struct model_opts o = { .cpus = 2 };
	struct model m;
	char *cause = NULL;
	int c, f, b;
	const int lc[] = { 20 }, lf[] = { 23, 16, 12 }, lfb[] = { 19 }, lb[] = { 23, 16, 12 };
	const uint64_t nc[] = { 1000 }, nf[] = { 1000, 120, 800 }, nfb[] = { 1000 },
		       nb[] = { 1000, 100, 700 };

	(void)state;
	assert_non_null(g);
	g->secs = 10;
	edge(g, 101, 100, "t3-client", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 1000, 10.0);
	edge_hist(g, 101, 100, "t3-client", 201, 200, "t3-front", lc, nc, 1);
	edge_hist(g, 201, 200, "t3-front", 101, 100, "t3-client", lf, nf, 3);
	edge_hist(g, 201, 200, "t3-front", 301, 300, "t3-back", lfb, nfb, 1);
	edge_hist(g, 301, 300, "t3-back", 201, 200, "t3-front", lb, nb, 3);
	assert_int_equal(wg_thread_add(g, 101, 100, "t3-client", 40000000), 0);
	assert_int_equal(wg_thread_add(g, 201, 200, "t3-front", 300000000), 0);
	assert_int_equal(wg_thread_add(g, 301, 300, "t3-back", 900000000), 0);
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	c = find(&m, "t3-client");
	f = find(&m, "t3-front");
	b = find(&m, "t3-back");
	assert_true(c >= 0 && f >= 0 && b >= 0);
	assert_int_equal(m.ref, c);
	assert_non_null(call(&m, c, f));
	assert_non_null(call(&m, f, b));
	print_message("calls client->front %.3f, front->back %.3f\n", call(&m, c, f)->mean,
		      call(&m, f, b)->mean);
	NEAR(call(&m, c, f)->mean, 1.0, 1e-9);
	NEAR(call(&m, f, b)->mean, 1.0, 1e-9);
	wg_free(g);
}

static void test_pingpong(void **state)
{
	struct waitgraph *g = pingpong_graph();
	struct model_opts o = { .cpus = 2 };
	struct model m;
	char *cause = NULL;
	int c, f, b;
	const struct model_call *k;

	(void)state;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_null(cause);
	c = find(&m, "t3-client");
	f = find(&m, "t3-front");
	b = find(&m, "t3-back");
	assert_true(c >= 0 && f >= 0 && b >= 0);
	assert_int_equal(m.ref, c);
	assert_true(m.task[c].ref && !m.task[f].ref);
	assert_int_equal(m.task[c].threads, 2);
	NEAR(m.task[c].sleep_s, 0, 1e-12);        /* no think time */
	NEAR(m.task[c].invocations, 20000, 1e-9);
	NEAR(m.x, 2000, 1e-9);
	k = call(&m, c, f);
	assert_non_null(k);
	NEAR(k->mean, 1.0, 1e-9);
	k = call(&m, f, b);
	assert_non_null(k);
	NEAR(k->mean, 20300.0 / 20000, 1e-9);
	assert_null(call(&m, f, c));
	assert_null(call(&m, b, f));
	NEAR(m.task[f].cpu_s, 4.0 / 20000, 1e-12); /* per request */
	/* the process argus started decides between the two leaves */
	o.root_tgid = 300;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_int_equal(m.ref, find(&m, "t3-back"));
	/* the middle is never the root, even named so */
	o.root_tgid = 200;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_int_equal(m.ref, find(&m, "t3-client"));
	wg_free(g);
}

static void test_solve(void **state)
{
	struct waitgraph *g = tier3_graph();
	struct model_opts o = { .exclude_tgid = 900, .cpus = 2 };
	struct model_whatif w;
	struct model_prediction p1, p2, p3;
	struct model m;
	char *cause = NULL;
	const char *why;

	(void)state;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_int_equal(model_solve(&m, NULL, &p1, &why), 0);
	assert_true(p1.converged);
	assert_int_equal(p1.clients, 4);
	assert_true(p1.x > 0 && p1.x <= 4 / 0.005);
	assert_int_equal(model_whatif_parse("clients=2x", &w), 0);
	assert_int_equal(model_solve(&m, &w, &p2, &why), 0);
	assert_int_equal(p2.clients, 8);
	assert_true(p2.x > p1.x);
	assert_true(p2.x <= 1 / m.task[find(&m, "t3-back.lock")].hold_s + 1e-6);
	assert_int_equal(model_whatif_parse("clients=8,cpus=4", &w), 0);
	assert_int_equal(w.clients, 8);
	assert_int_equal(w.cpus, 4);
	assert_int_equal(model_solve(&m, &w, &p3, &why), 0);
	assert_true(p3.x >= p2.x - 1e-9);
	assert_int_equal(model_whatif_parse("clients=0", &w), -EINVAL);
	assert_int_equal(model_whatif_parse("cpus=1.5", &w), -EINVAL);
	assert_int_equal(model_whatif_parse("disks=2", &w), -EINVAL);
	assert_int_equal(model_whatif_parse("clients=2y", &w), -EINVAL);
	wg_free(g);
}

static void test_trivial_and_empty(void **state)
{
	struct waitgraph *g = wg_new();
	struct model m;
	char *cause = NULL;

	(void)state;
	g->secs = 5;
	assert_int_equal(model_build(g, NULL, &m, &cause), -EINVAL);
	assert_non_null(strstr(cause, "nothing to model"));
	free(cause);
	cause = NULL;
	/* one process: CPU and sleeps, no peer */
	edge(g, 11, 11, "solo", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 100, 1.0);
	assert_int_equal(wg_thread_add(g, 11, 11, "solo", 2000000000), 0);
	assert_int_equal(model_build(g, NULL, &m, &cause), 0);
	assert_int_equal(m.ntask, 1);
	assert_non_null(strstr(m.note, "trivial model"));
	assert_string_equal(m.task[0].name, "solo");
	NEAR(m.task[0].cpu_s, 0.02, 1e-9);
	g->secs = 0;
	assert_int_equal(model_build(g, NULL, &m, &cause), -EINVAL);
	free(cause);
	wg_free(g);
}

static char *render(int (*fn)(const struct model *, FILE *), const struct model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(fn(m, f), 0);
	fclose(f);
	return buf;
}

static char *render_text(const struct model *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(model_write_text(m, NULL, f), 0);
	fclose(f);
	return buf;
}

static void test_writers(void **state)
{
	struct waitgraph *g = tier3_graph();
	struct model_opts o = { .exclude_tgid = 900, .cpus = 2 };
	struct model_prediction p;
	struct model m;
	char *cause = NULL, *s, *buf = NULL;
	const char *why;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	/* a name with a control character must not reach the output raw */
	snprintf(m.task[m.ref].cmdline, sizeof(m.task[m.ref].cmdline), "tier3\x1b[2J");
	s = render(model_write_lqn, &m);
	assert_non_null(strstr(s, "\nG \"argus model\""));
	assert_non_null(strstr(s, "\nP 2\n  p host f m 2\n  p disk f\n-1\n"));
	assert_non_null(strstr(s, "\nT 5\n"));
	assert_non_null(strstr(s, "  t t3_client r t3_client_e -1 host z 0.005 m 4\n"));
	assert_non_null(strstr(s, "  t t3_front n t3_front_e -1 host i"));
	assert_non_null(strstr(s, "  t t3_back_lock n t3_back_lock_e -1 host m 1"));
	assert_non_null(strstr(s, "  t disk n disk_e -1 disk i\n"));
	assert_non_null(strstr(s, "\nE 5\n"));
	assert_non_null(strstr(s, "  y t3_client_e t3_front_e 1 -1\n"));
	assert_non_null(strstr(s, "  y t3_front_e t3_back_e 1 -1\n"));
	assert_non_null(strstr(s, "  y t3_back_e t3_back_lock_e 1 -1\n"));
	assert_non_null(strstr(s, "  s disk_e 0.001 -1\n"));
	free(s);
	s = render(model_write_lqnx, &m);
	assert_non_null(strstr(s, "<lqn-model "));
	assert_non_null(strstr(s, "<task name=\"t3_client\" scheduling=\"ref\" think-time=\"0.005\" multiplicity=\"4\">"));
	assert_non_null(strstr(s, "<synch-call dest=\"t3_front_e\" calls-mean=\"1\"/>"));
	assert_non_null(strstr(s, "<processor name=\"disk\" scheduling=\"fcfs\">"));
	assert_non_null(strstr(s, "</lqn-model>\n"));
	free(s);
	s = render(model_write_dot, &m);
	assert_non_null(strstr(s, "digraph argus_model {"));
	assert_non_null(strstr(s, "t3_client -> t3_front [label=\"1.00 (unix)\"];"));
	assert_non_null(strstr(s, "t3_back -> t3_back_lock"));
	assert_non_null(strstr(s, "t3_back -> disk"));
	assert_null(strstr(s, "t3_front -> t3_client"));
	free(s);
	assert_int_equal(model_solve(&m, NULL, &p, &why), 0);
	f = open_memstream(&buf, &len);
	assert_int_equal(model_write_json(&m, &p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "\"reference\":\t\"t3-client\""));
	assert_non_null(strstr(buf, "\"kind\":\t\"semaphore\""));
	assert_non_null(strstr(buf, "\"prediction\":"));
	assert_null(strchr(buf, '\x1b')); /* cJSON escapes it */
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_int_equal(model_write_text(&m, &p, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "t3-back.lock"));
	assert_non_null(strstr(buf, "-> t3-front x 1.00 (unix)"));
	assert_non_null(strstr(buf, "predicted at 4 clients, 2 CPUs"));
	free(buf);
	wg_free(g);
}

/* The probe correction: the scheduler-time probe's run time
 * taken out of each task's CPU demand, and the model solved again.
 *
 * A crafted wait graph small enough to solve by hand: one client thread
 * (think Z = 6 ms, a timer sleep) calls one server thread over a Unix
 * socket, on one CPU, 1000 cycles in 10 s (measured X = 100/s).  Measured
 * CPU per cycle: client 1 ms, server 1 ms (D = 2 ms).  Probe events per
 * cycle: the client comes on the CPU twice (after its sleep, after the
 * reply) and wakes the server once; the server comes on once and wakes the
 * client once: 3 and 2 events.
 *
 * Calibration (the probed load): the model alone gives 1/(Z + D) = 125/s,
 * above the measured 100/s, so the other work is fitted: with one customer
 * on one core and beta always-runnable competitors, processor sharing gives
 * each demand a residence of D_i (1 + beta), so Z + D (1 + beta) = 10 ms:
 * beta = 1.
 *
 * Correction at 100 us per event (stats): client 3 x 0.1 = 0.3 ms, server
 * 2 x 0.1 = 0.2 ms; D' = 0.7 + 0.8 = 1.5 ms.  At N = 1 (exact MVA: a single
 * customer never queues behind itself): R' = D' (1 + beta) = 3 ms,
 * X' = 1 / (6 + 3) ms = 111.111/s.  Removed: 0.5 ms per cycle x 100/s =
 * 0.05 CPUs; events 5 x 100/s = 500/s.
 *
 * At 2N (clients=2x, N = 2): the layered solver's processor station with
 * the arrival theorem (Bard-Schweitzer: an arrival sees (N-1)/N of the
 * queue) plus the beta competitors: R = D (1 + Q/2 + beta), Q = X R,
 * X = 2 / (Z + R).  With beta = 1: R = D (2 + R / (Z + R)), i.e.
 * R (Z + R) = D (2 (Z + R) + R), R^2 + (Z - 3 D) R - 2 D Z = 0:
 *   D' = 1.5 ms: R (6 + R) = 1.5 (2 (6 + R) + R) -> R^2 + 1.5 R - 18 = 0,
 *                R = (-1.5 + sqrt(74.25)) / 2 = 3.558422 ms,
 *                X = 2 / 9.558422 ms = 209.2404/s;
 *   D  = 2 ms (uncorrected, model_solve_probed): R (6 + R) = 2 (12 + 3 R)
 *                -> R^2 = 24, R = 4.898979 ms, X = 2 / 10.898979 ms =
 *                183.5033/s.
 * With the estimate (no statistics, 130 ns a switch-in, 80 ns a wakeup):
 * client 2 x 130 + 80 = 340 ns, server 130 + 80 = 210 ns per cycle; the
 * same figures floor a statistics mean below them (50 ns: 340 ns; 100 ns:
 * 2 x 130 + 100 = 360 ns). */
static struct waitgraph *pair_graph(void)
{
	struct waitgraph *g = wg_new();

	assert_non_null(g);
	g->secs = 10;
	edge(g, 101, 100, "client", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 1000, 6.0);
	edge(g, 101, 100, "client", WG_WAKER_TASK, 201, 200, "server", 0, st_unix, 1000, 3.0);
	edge(g, 201, 200, "server", WG_WAKER_TASK, 101, 100, "client", 0, st_unix, 1000, 8.0);
	assert_int_equal(wg_thread_add(g, 101, 100, "client", 1000000000), 0);
	assert_int_equal(wg_thread_add(g, 201, 200, "server", 1000000000), 0);
	assert_int_equal(wg_thread_add_switches(g, 101, 100, "client", 2000), 0);
	assert_int_equal(wg_thread_add_switches(g, 201, 200, "server", 1000), 0);
	return g;
}

static char *render_json(const struct model *m, const struct model_prediction *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(model_write_json(m, p, f), 0);
	fclose(f);
	return buf;
}

/* stats: 100 us an event; the figures of the header */
static void test_probe_stats(void **state)
{
	struct waitgraph *g = pair_graph();
	struct model_opts o = { .cpus = 1, .probe_source = MODEL_PROBE_STATS,
				.probe_event_ns = 100000 };
	struct model_whatif w;
	struct model_prediction p, pp;
	struct model *m = calloc(1, sizeof(*m));
	char *cause = NULL, *s;
	const char *why;
	int c, sv;

	(void)state;
	assert_non_null(m);
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	c = find(m, "client");
	sv = find(m, "server");
	assert_int_equal(m->ref, c);
	NEAR(m->x, 100, 1e-9);                  /* measured under the probe */
	NEAR(m->beta, 1, 1e-6);                 /* Z + D (1 + beta) = 10 ms */
	NEAR(m->task[c].probe_switches, 2, 1e-12);
	NEAR(m->task[c].probe_wakes, 1, 1e-12);
	NEAR(m->task[sv].probe_switches, 1, 1e-12);
	NEAR(m->task[sv].probe_wakes, 1, 1e-12);
	NEAR(m->task[c].probe_s, 0.3e-3, 1e-12);
	NEAR(m->task[sv].probe_s, 0.2e-3, 1e-12);
	NEAR(m->task[c].cpu_s, 0.7e-3, 1e-12);
	NEAR(m->task[sv].cpu_s, 0.8e-3, 1e-12);
	assert_int_equal(m->probe.source, MODEL_PROBE_STATS);
	NEAR(m->probe.events_per_s, 500, 1e-9);
	NEAR(m->probe.cpus, 0.05, 1e-12);
	assert_false(m->probe.clamped);
	assert_false(m->probe.floored);
	/* without the probe at N = 1: 1 / (6 + 1.5 x 2) ms */
	assert_true(m->probe.solved);
	NEAR(m->probe.x, 1000.0 / 9, 1e-4);
	NEAR(m->probe.r, 3e-3, 1e-8);
	assert_int_equal(model_solve(m, NULL, &p, &why), 0);
	NEAR(p.x, m->probe.x, 1e-9);
	/* the probed model still reproduces what was measured */
	assert_int_equal(model_solve_probed(m, NULL, &pp, &why), 0);
	NEAR(pp.x, 100, 1e-4);
	/* at 2N */
	assert_int_equal(model_whatif_parse("clients=2x", &w), 0);
	assert_int_equal(model_solve(m, &w, &p, &why), 0);
	assert_int_equal(p.clients, 2);
	assert_true(p.converged);
	NEAR(p.r, (-1.5 + sqrt(74.25)) / 2 * 1e-3, 1e-8);
	NEAR(p.x, 2 / ((6 + (-1.5 + sqrt(74.25)) / 2) * 1e-3), 1e-3);
	NEAR(p.x, 209.2404, 1e-3);
	assert_int_equal(model_solve_probed(m, &w, &pp, &why), 0);
	NEAR(pp.r, sqrt(24) * 1e-3, 1e-8);
	NEAR(pp.x, 183.5033, 1e-3);
	/* the outputs carry the corrected demands and say which correction */
	p.x_probed = pp.x;
	s = render_json(m, &p);
	assert_non_null(strstr(s, "\"probe_correction\":"));
	assert_non_null(strstr(s, "\"source\":\t\"stats\""));
	assert_non_null(strstr(s, "\"unprobed\":"));
	assert_non_null(strstr(s, "\"throughput_probed\":"));
	assert_non_null(strstr(s, "\"cpu_measured_s\":\t0.001"));
	assert_non_null(strstr(s, "\"cpu_s\":\t0.0007"));
	{
		/* a session's model reads back with its correction */
		struct model *b = calloc(1, sizeof(*b));

		assert_non_null(b);
		assert_int_equal(model_read_json(s, b, &cause), 0);
		assert_int_equal(b->probe.source, MODEL_PROBE_STATS);
		assert_true(b->probe.solved);
		NEAR(b->probe.x, m->probe.x, 1e-9);
		NEAR(b->probe.cpus, 0.05, 1e-12);
		NEAR(b->task[find(b, "client")].probe_s, 0.3e-3, 1e-12);
		NEAR(b->task[find(b, "server")].probe_wakes, 1, 1e-12);
		free(b);
	}
	free(s);
	s = render(model_write_lqn, m);
	assert_non_null(strstr(s, "# demands without the scheduler-time probe: 5.000% of one CPU removed "
				  "(500 switch-ins and wakeups/s at 100000 ns each, from BPF run-time "
				  "statistics)\n"));
	assert_non_null(strstr(s, "  s client_e 0.0007 -1\n"));
	assert_non_null(strstr(s, "  s server_e 0.0008 -1\n"));
	free(s);
	s = render(model_write_lqnx, m);
	assert_non_null(strstr(s, "<!-- demands without the scheduler-time probe"));
	assert_non_null(strstr(s, "host-demand-mean=\"0.0007\""));
	free(s);
	free(m);
	wg_free(g);
}

/* no statistics: the built-in per-program figures */
static void test_probe_estimate(void **state)
{
	struct waitgraph *g = pair_graph();
	struct model_opts o = { .cpus = 1, .probe_source = MODEL_PROBE_ESTIMATE };
	struct model *m = calloc(1, sizeof(*m));
	char *cause = NULL, *s;

	(void)state;
	assert_non_null(m);
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_int_equal(m->probe.source, MODEL_PROBE_ESTIMATE);
	NEAR(m->task[find(m, "client")].probe_s, 340e-9, 1e-15);
	NEAR(m->task[find(m, "server")].probe_s, 210e-9, 1e-15);
	NEAR(m->task[find(m, "client")].cpu_s, 1e-3 - 340e-9, 1e-15);
	assert_true(m->probe.solved && m->probe.x > 100 && m->probe.x < 1000.0 / 9);
	s = render(model_write_lqn, m);
	assert_non_null(strstr(s, "estimated at 130 ns a switch-in and 80 ns a wakeup: no BPF run-time "
				  "statistics"));
	free(s);
	/* stats whose mean is below a load's event (other tasks' early exits
	 * outnumber the load's runs): floored at the estimate's figures */
	o.probe_source = MODEL_PROBE_STATS;
	o.probe_event_ns = 50;
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_int_equal(m->probe.source, MODEL_PROBE_STATS);
	assert_true(m->probe.floored);
	NEAR(m->probe.mean_ns, 50, 1e-12);
	NEAR(m->task[find(m, "client")].probe_s, 340e-9, 1e-15);
	s = render(model_write_lqn, m);
	assert_non_null(strstr(s, "at 130 ns a switch-in and 80 ns a wakeup: the BPF run-time "
				  "statistics' mean, 50 ns a run, is below what a load's event costs"));
	free(s);
	o.probe_event_ns = 100;               /* between the two: the wakeup's own */
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	NEAR(m->task[find(m, "client")].probe_s, (2 * 130 + 100) * 1e-9, 1e-15);
	/* stats asked for without a usable mean: the estimate, said so */
	o.probe_source = MODEL_PROBE_STATS;
	o.probe_event_ns = 0;
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_int_equal(m->probe.source, MODEL_PROBE_ESTIMATE);
	free(m);
	wg_free(g);
}

/* none: the model of the probed load, as before the correction */
static void test_probe_none_and_clamp(void **state)
{
	struct waitgraph *g = pair_graph();
	struct model_opts o = { .cpus = 1 };
	struct model *m = calloc(1, sizeof(*m));
	struct model_prediction p;
	char *cause = NULL, *s;
	const char *why;

	(void)state;
	assert_non_null(m);
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_int_equal(m->probe.source, MODEL_PROBE_NONE);
	assert_false(m->probe.solved);
	NEAR(m->task[find(m, "client")].cpu_s, 1e-3, 1e-15);
	NEAR(m->task[find(m, "client")].probe_s, 0, 0);
	assert_int_equal(model_solve(m, NULL, &p, &why), 0);
	NEAR(p.x, 100, 1e-4);
	s = render_json(m, NULL);
	assert_null(strstr(s, "\"unprobed\":"));
	assert_non_null(strstr(s, "\"source\":\t\"none\""));
	free(s);
	s = render(model_write_lqn, m);
	assert_non_null(strstr(s, "# demands as measured under the scheduler-time probe (no probe correction)\n"));
	free(s);
	/* a cost per event above the measured CPU: clamped, said so */
	o.probe_source = MODEL_PROBE_STATS;
	o.probe_event_ns = 1e6;
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_true(m->probe.clamped);
	NEAR(m->task[find(m, "client")].cpu_s, 0, 1e-15);
	NEAR(m->task[find(m, "client")].probe_s, 1e-3, 1e-15);
	free(m);
	wg_free(g);
}

/* switch-ins survive a merge of windows */
static void test_merge_switches(void **state)
{
	struct waitgraph *a = pair_graph(), *b = pair_graph();

	(void)state;
	assert_int_equal(wg_merge(a, b), 0);
	for (size_t i = 0; i < a->nthreads; i++)
		assert_int_equal(a->threads[i].switches, a->threads[i].pid == 101 ? 4000 : 2000);
	wg_free(a);
	wg_free(b);
}


/* --steady: the longest run of windows whose rates agree */
static void test_steady(void **state)
{
	static const uint64_t ramp[] = { 10, 100, 400, 1000, 1050, 980, 1010, 300 };
	static const uint64_t wild[] = { 10, 500, 40, 900, 100, 700 };
	struct model_capture c;
	char *cause = NULL;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.self_tgid = 900;
	c.nwin = 8;
	c.win = calloc(c.nwin, sizeof(*c.win));
	assert_non_null(c.win);
	for (unsigned i = 0; i < c.nwin; i++) {
		c.win[i] = wg_new();
		c.win[i]->secs = 1;
		edge(c.win[i], 1, 1, "w", WG_WAKER_TASK, 2, 2, "v", 0, st_unix, ramp[i], 0.1);
		assert_int_equal(wg_thread_add(c.win[i], 1, 1, "w", ramp[i] * 100000), 0);
		/* argus's own activity does not count */
		edge(c.win[i], 901, 900, "argus", WG_WAKER_NONE, 0, 0, NULL, 0, st_sleep, i * 1000, 0.1);
	}
	assert_int_equal(model_capture_steady(&c, 0.1, 3, &cause), 0);
	assert_int_equal(c.first, 3);
	assert_int_equal(c.last, 6);
	/* the last window at the steady rate, but read after the load ended
	 * (ndead): never kept */
	wg_free(c.win[7]);
	c.win[7] = wg_new();
	c.win[7]->secs = 1;
	edge(c.win[7], 1, 1, "w", WG_WAKER_TASK, 2, 2, "v", 0, st_unix, 1000, 0.1);
	assert_int_equal(wg_thread_add(c.win[7], 1, 1, "w", 1000 * 100000), 0);
	assert_int_equal(model_capture_steady(&c, 0.1, 3, &cause), 0);
	assert_int_equal(c.last, 7);
	c.ndead = 1;
	assert_int_equal(model_capture_steady(&c, 0.1, 3, &cause), 0);
	assert_int_equal(c.first, 3);
	assert_int_equal(c.last, 6);
	c.ndead = 0;
	for (unsigned i = 0; i < 6; i++) {
		wg_free(c.win[i]);
		c.win[i] = wg_new();
		c.win[i]->secs = 1;
		edge(c.win[i], 1, 1, "w", WG_WAKER_TASK, 2, 2, "v", 0, st_unix, wild[i], 0.1);
	}
	c.nwin = 6;
	assert_int_equal(model_capture_steady(&c, 0.1, 3, &cause), -ERANGE);
	assert_non_null(strstr(cause, "never reached a steady state"));
	assert_non_null(strstr(cause, " 900/")); /* the rates are listed */
	free(cause);
	for (unsigned i = 0; i < 8; i++)
		wg_free(c.win[i]);
	free(c.win);
}


/* The model checks itself (issue 25, item 5) and counts as clients only
 * the threads that cycle (item 3).  A client process of 2 threads with a
 * main thread of the same name that only waits (a sleep a second, no
 * message) calling an event-loop server: 2 clients, the main thread's
 * sleeps not its think time; the model reproduces it (valid).  Then the
 * same load where the clients' accounted time is half their wall time (a
 * thread that does not cycle counted: the measured response per cycle far
 * below N / X - Z): not valid, both numbers and a reason said in the text,
 * the JSON ("valid": false, the check, the prediction untrustworthy), the
 * model view's rows and back from the JSON; a trivial model is never
 * valid. */
static struct waitgraph *evloop_graph(double client_wait_s)
{
	struct waitgraph *g = wg_new();

	assert_non_null(g);
	g->secs = 10;
	for (uint32_t i = 1; i <= 2; i++) {
		uint32_t c = 100 + i;

		/* 1000 cycles a thread: think 8.9 ms, CPU 0.1 ms, the server 1 ms */
		edge(g, c, 100, "ev-client", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 1000, 8.9);
		edge(g, c, 100, "ev-client", WG_WAKER_TASK, 201, 200, "ev-server", 0, st_unix, 1000,
		     client_wait_s);
		edge(g, 201, 200, "ev-server", WG_WAKER_TASK, c, 100, "ev-client", 0, st_sleep, 1000,
		     8.0);
		assert_int_equal(wg_thread_add(g, c, 100, "ev-client", 100000000), 0);
	}
	/* the main thread: sleeps a second at a time, nothing else */
	edge(g, 100, 100, "ev-client", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 10, 10.0);
	assert_int_equal(wg_thread_add(g, 100, 100, "ev-client", 1000000), 0);
	assert_int_equal(wg_thread_add(g, 201, 200, "ev-server", 2000000000ULL), 0);
	return g;
}

static void test_check(void **state)
{
	struct waitgraph *g = evloop_graph(1.0);
	struct model_opts o = { .cpus = 2 };
	struct model_prediction p;
	struct model *m = calloc(1, sizeof(*m)), *back = calloc(1, sizeof(*back));
	struct model_row *rows = NULL;
	const char *why;
	char *cause = NULL, *text, *json = NULL;
	size_t len = 0;
	FILE *f;
	int c, s, n, found = 0;

	(void)state;
	assert_non_null(m);
	assert_non_null(back);
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	c = find(m, "ev-client");
	s = find(m, "ev-server");
	assert_true(c >= 0 && s >= 0);
	assert_int_equal(m->ref, c);
	assert_int_equal(m->task[c].threads, 2);        /* not the main thread */
	NEAR(m->task[c].sleep_s, 0.0089, 1e-9);         /* its sleeps are not think */
	NEAR(call(m, c, s)->mean, 1.0, 1e-9);           /* epoll_wait ended by a client: a call */
	assert_true(m->check.done);
	if (!m->check.valid)
		print_message("check: x %g/%g r %g/%g beta %g: %s\n", m->check.x_model, m->check.x_meas,
			      m->check.r_model, m->check.r_meas, m->beta, m->check.why);
	assert_true(m->check.valid);
	NEAR(m->check.x_meas, 200, 1e-6);
	NEAR(m->check.r_meas, 0.0011, 1e-6);            /* CPU 0.1 + 1 ms waiting a cycle */
	assert_string_equal(m->check.why, "");
	/* clients=2x doubles the real population */
	{
		struct model_whatif w;

		assert_int_equal(model_whatif_parse("clients=2x", &w), 0);
		assert_int_equal(model_solve(m, &w, &p, &why), 0);
		assert_int_equal(p.clients, 4);
	}
	wg_free(g);

	/* part of the clients' time unaccounted: the response per cycle the
	 * threads show (0.6 ms) is far below N / X - Z (1.1 ms) */
	g = evloop_graph(0.5);
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_true(m->check.done);
	assert_false(m->check.valid);
	NEAR(m->check.r_meas, 0.0006, 1e-6);
	assert_true(m->check.r_err > 0.10);
	assert_non_null(strstr(m->check.why, "do not cycle"));
	text = render_text(m);
	assert_non_null(strstr(text, "check: the model does NOT reproduce the measured load"));
	assert_non_null(strstr(text, "untrustworthy"));
	free(text);
	assert_int_equal(model_solve(m, NULL, &p, &why), 0);
	f = open_memstream(&json, &len);
	assert_non_null(f);
	assert_int_equal(model_write_json(m, &p, f), 0);
	fclose(f);
	assert_non_null(strstr(json, "\"valid\":\tfalse"));
	assert_non_null(strstr(json, "\"trustworthy\":\tfalse"));
	assert_non_null(strstr(json, "\"throughput_measured\":"));
	assert_non_null(strstr(json, "\"response_measured_s\":"));
	/* the session keeps it: read back, the same check */
	assert_int_equal(model_read_json(json, back, &cause), 0);
	assert_true(back->check.done);
	assert_false(back->check.valid);
	NEAR(back->check.r_meas, m->check.r_meas, 1e-12);
	assert_string_equal(back->check.why, m->check.why);
	/* the model view (the TUI's m) says it in a row of its own */
	n = model_rows(back, NULL, &rows);
	assert_true(n > 0);
	for (int i = 0; i < n; i++)
		if (rows[i].kind == MODEL_ROW_CHECK) {
			found = 1;
			assert_non_null(strstr(rows[i].text, "does NOT reproduce"));
		}
	assert_true(found);
	free(rows);
	free(json);
	wg_free(g);

	/* a trivial model fits whatever it is given: never valid */
	g = wg_new();
	g->secs = 5;
	edge(g, 11, 11, "solo", WG_WAKER_HARDIRQ, 0, 0, NULL, 0, st_sleep, 100, 1.0);
	assert_int_equal(wg_thread_add(g, 11, 11, "solo", 2000000000), 0);
	assert_int_equal(model_build(g, NULL, m, &cause), 0);
	assert_true(m->check.done);
	assert_false(m->check.valid);
	assert_non_null(strstr(m->check.why, "trivial model"));
	wg_free(g);
	free(m);
	free(back);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_merge_and_rates),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_solve),
		cmocka_unit_test(test_pingpong),
		cmocka_unit_test(test_slow_write_space),
		cmocka_unit_test(test_trivial_and_empty),
		cmocka_unit_test(test_writers),
		cmocka_unit_test(test_steady),
		cmocka_unit_test(test_probe_stats),
		cmocka_unit_test(test_probe_estimate),
		cmocka_unit_test(test_probe_none_and_clamp),
		cmocka_unit_test(test_merge_switches),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
