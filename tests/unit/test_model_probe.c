/* The probe correction of core/model: the scheduler-time probe's run time
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
 * client 2 x 130 + 80 = 340 ns, server 130 + 80 = 210 ns per cycle. */
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

#include "model.h"
#include "model_view.h"
#include "waitgraph.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static const char st_sleep[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_clock_nanosleep;"
			       "common_nsleep;hrtimer_nanosleep;do_nanosleep;schedule";
static const char st_unix[] = "entry_SYSCALL_64;do_syscall_64;__x64_sys_read;ksys_read;vfs_read;"
			      "sock_read_iter;unix_stream_recvmsg;unix_stream_read_generic;"
			      "unix_stream_data_wait;schedule_timeout;schedule";

static void edge(struct waitgraph *g, uint32_t pid, uint32_t tgid, const char *comm,
		 enum wg_waker wk, uint32_t wpid, uint32_t wtgid, const char *wcomm,
		 const char *stack, uint64_t count, double secs)
{
	struct wg_edge e;

	memset(&e, 0, sizeof(e));
	e.pid = pid;
	e.tgid = tgid;
	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	e.waker = wk;
	e.wpid = wpid;
	e.wtgid = wtgid;
	snprintf(e.wcomm, sizeof(e.wcomm), "%s", wcomm ? wcomm : "");
	e.stack = (char *)stack;
	e.count = count;
	e.total_ns = (uint64_t)(secs * 1e9);
	assert_int_equal(wg_edge_add(g, &e), 0);
}

static struct waitgraph *pair_graph(void)
{
	struct waitgraph *g = wg_new();

	assert_non_null(g);
	g->secs = 10;
	edge(g, 101, 100, "client", WG_WAKER_HARDIRQ, 0, 0, NULL, st_sleep, 1000, 6.0);
	edge(g, 101, 100, "client", WG_WAKER_TASK, 201, 200, "server", st_unix, 1000, 3.0);
	edge(g, 201, 200, "server", WG_WAKER_TASK, 101, 100, "client", st_unix, 1000, 8.0);
	assert_int_equal(wg_thread_add(g, 101, 100, "client", 1000000000), 0);
	assert_int_equal(wg_thread_add(g, 201, 200, "server", 1000000000), 0);
	assert_int_equal(wg_thread_add_switches(g, 101, 100, "client", 2000), 0);
	assert_int_equal(wg_thread_add_switches(g, 201, 200, "server", 1000), 0);
	return g;
}

static int find(const struct model *m, const char *name)
{
	for (unsigned i = 0; i < m->ntask; i++)
		if (!strcmp(m->task[i].name, name))
			return (int)i;
	fail_msg("no task %s", name);
	return -1;
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

/* stats: 100 us an event; the figures of the header */
static void test_stats(void **state)
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
static void test_estimate(void **state)
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
	/* stats asked for without a usable mean: the estimate, said so */
	o.probe_source = MODEL_PROBE_STATS;
	o.probe_event_ns = 0;
	assert_int_equal(model_build(g, &o, m, &cause), 0);
	assert_int_equal(m->probe.source, MODEL_PROBE_ESTIMATE);
	free(m);
	wg_free(g);
}

/* none: the model of the probed load, as before the correction */
static void test_none_and_clamp(void **state)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_estimate),
		cmocka_unit_test(test_none_and_clamp),
		cmocka_unit_test(test_merge_switches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
