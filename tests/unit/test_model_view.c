/* The wait chain, the rows and the JSON reader of core/model_view on a
 * crafted model shaped like tests/scenarios/tier3 (clients -> front ->
 * back -> {lock, disk}), with numbers chosen so every share is exact. */
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
#include "model/model_write.h"
#include "measure/session.h"
#include "data/waitgraph.h"

#define NEAR(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

static void add_call(struct model_task *t, int to, double mean, double wait_s, const char *ch)
{
	struct model_call *c = &t->calls[t->ncalls++];

	c->to = to;
	c->mean = mean;
	c->wait_s = wait_s;
	c->wakes = 4000;
	c->channel = ch;
}

/* 4 clients, 4000 cycles in 40 s: cycle 40 ms... per client thread 1000
 * cycles of 10 ms think + 5 ms response. */
static void tier3_model(struct model *m)
{
	struct model_task *t;

	memset(m, 0, sizeof(*m));
	m->secs = 15;
	m->cpus = 2;
	m->x = 4000 / 15.0;
	m->r = 0.005;
	m->ref = 0;
	m->ntask = 5;
	t = &m->task[0];
	snprintf(t->name, sizeof(t->name), "t3-client");
	t->ref = 1;
	t->threads = 4;
	t->invocations = 4000;
	t->cpu_s = 0.0001;
	t->sleep_s = 0.010;
	add_call(t, 1, 1, 0.004, "unix");           /* 4 ms of 5: 80% */
	t = &m->task[1];
	snprintf(t->name, sizeof(t->name), "t3-front");
	t->threads = 4;
	t->per_caller = 1;
	t->invocations = 4000;
	t->cpu_s = 0.0003;
	add_call(t, 2, 1, 0.003, "unix");           /* 3 ms of 5: 60% */
	t = &m->task[2];
	snprintf(t->name, sizeof(t->name), "t3-back");
	t->threads = 4;
	t->invocations = 4000;
	t->cpu_s = 0.001;
	t->runq_s = 0.00025;
	add_call(t, 3, 1, 0, "futex");              /* 1000 waits of 4 ms / 4000: 1 ms: 20% */
	add_call(t, 4, 2, 0, "block");              /* 2 x 0.2 ms: 8% */
	t = &m->task[3];
	snprintf(t->name, sizeof(t->name), "t3-back.lock");
	t->kind = MODEL_TASK_SEMAPHORE;
	t->threads = 1;
	t->invocations = 4000;
	t->waits = 1000;
	t->wait_s = 0.004;
	t->hold_s = 0.0005;
	snprintf(t->stack, sizeof(t->stack), "futex_wait > __futex_wait > futex_wait_queue");
	t = &m->task[4];
	snprintf(t->name, sizeof(t->name), "disk");
	t->kind = MODEL_TASK_DISK;
	t->threads = 1;
	t->invocations = 8000;
	t->visit_s = 0.0002;
}

static void test_chain_lock(void **state)
{
	struct model m;
	struct model_chain c;
	char buf[512];

	(void)state;
	tier3_model(&m);
	assert_int_equal(model_wait_chain(&m, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.link[0].kind, MODEL_LINK_CALL);
	assert_int_equal(c.link[0].from, 0);
	assert_int_equal(c.link[0].to, 1);
	NEAR(c.link[0].share, 0.80, 1e-12);
	NEAR(c.link[0].time_s, 0.004, 1e-15);
	assert_int_equal(c.link[1].kind, MODEL_LINK_CALL);
	assert_int_equal(c.link[1].to, 2);
	NEAR(c.link[1].share, 0.60, 1e-12);
	assert_int_equal(c.link[2].kind, MODEL_LINK_LOCK);
	assert_int_equal(c.link[2].from, 2);
	assert_int_equal(c.link[2].to, 3);
	NEAR(c.link[2].share, 0.20, 1e-12);
	model_chain_text(&m, &c, 0, buf, sizeof(buf));
	assert_string_equal(buf, "t3-client waits on t3-front 80% -> t3-front waits on t3-back 60% -> "
			    "t3-back waits on lock t3-back.lock 20%");
	model_chain_text(&m, &c, 1, buf, sizeof(buf));
	assert_string_equal(buf, "t3-client waits on t3-front 80% \u2192 t3-front waits on t3-back 60% "
			    "\u2192 t3-back waits on lock t3-back.lock 20%");
	/* a short buffer is cut, not overrun */
	model_chain_text(&m, &c, 0, buf, 20);
	assert_int_equal(strlen(buf), 19);
	/* the rest of the client's response: 0.1 ms CPU of 5; 80% in calls */
	assert_string_equal(model_chain_rest(&m, buf, sizeof(buf)),
			    "t3-client itself: on CPU 2%, waiting for a CPU 0%; calls 80%; not explained 18%");
	m.task[0].runq_s = 0.0012;
	m.task[0].net_s = 0.0001;
	assert_string_equal(model_chain_rest(&m, buf, sizeof(buf)),
			    "t3-client itself: on CPU 2%, waiting for a CPU 24%, network and other waits 2%; "
			    "calls 80%; not explained 0%");
	m.task[0].runq_s = 0;
	m.task[0].net_s = 0;
	/* the disk's share of the back's calls */
	NEAR(model_call_time(&m, 2, 1) / m.r, 0.08, 1e-12);
}

static void test_chain_disk_and_visits(void **state)
{
	struct model m;
	struct model_chain c;
	char buf[512];

	(void)state;
	tier3_model(&m);
	m.task[4].visit_s = 0.0015;                 /* 2 x 1.5 ms of 5: 60% */
	/* the back runs twice per client cycle: its waits count twice */
	m.task[2].invocations = 8000;
	m.task[3].invocations = 8000;               /* 1000 x 4 ms / 8000 = 0.5 ms */
	m.task[1].calls[0].mean = 2;
	m.task[1].calls[0].wait_s = 0.0015;         /* 2 x 1.5 ms of 5: 60% */
	assert_int_equal(model_wait_chain(&m, &c), 0);
	assert_int_equal(c.n, 3);
	NEAR(c.link[1].share, 0.60, 1e-12);
	assert_int_equal(c.link[2].kind, MODEL_LINK_DISK);
	/* 2 back invocations per cycle x 2 visits x 1.5 ms = 6 ms: 120% of
	 * the response -- inconsistent on purpose: shares are not clamped */
	NEAR(c.link[2].share, 1.20, 1e-12);
	NEAR(model_call_time(&m, 2, 0) / m.r, 2 * 0.0005 / 0.005, 1e-12);
	model_chain_text(&m, &c, 0, buf, sizeof(buf));
	assert_string_equal(buf, "t3-client waits on t3-front 80% -> t3-front waits on t3-back 60% -> "
			    "t3-back waits on the disk 120%");
}

static void test_chain_unmeasured_and_cpu(void **state)
{
	struct model m;
	struct model_chain c;
	char buf[512];

	(void)state;
	tier3_model(&m);
	/* no measured wait on the front: its residence from its demands:
	 * 0.3 ms CPU + back (1 ms CPU + 0.25 ms runnable + lock 1 ms + disk
	 * 2 x 0.2 ms) = 0.3 + 2.65 = 2.95 ms */
	m.task[0].calls[0].wait_s = 0;
	m.task[1].calls[0].wait_s = 0;
	assert_int_equal(model_wait_chain(&m, &c), 0);
	NEAR(c.link[0].time_s, 0.00295, 1e-12);
	NEAR(c.link[0].share, 0.59, 1e-9);
	NEAR(c.link[1].time_s, 0.00265, 1e-12);
	/* a task without calls ends the chain with its own CPU */
	m.task[2].ncalls = 0;
	m.task[0].calls[0].wait_s = 0.004;
	m.task[1].calls[0].wait_s = 0.003;
	assert_int_equal(model_wait_chain(&m, &c), 0);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.link[2].kind, MODEL_LINK_CPU);
	assert_int_equal(c.link[2].to, -1);
	NEAR(c.link[2].share, 0.25, 1e-12);       /* 1.25 ms of 5 */
	model_chain_text(&m, &c, 0, buf, sizeof(buf));
	assert_string_equal(buf, "t3-client waits on t3-front 80% -> t3-front waits on t3-back 60% -> "
			    "t3-back on CPU 25%");
	/* a trivial model: the reference alone */
	m.task[0].ncalls = 0;
	assert_int_equal(model_wait_chain(&m, &c), 0);
	assert_int_equal(c.n, 1);
	NEAR(c.link[0].share, 0.02, 1e-12);
	/* no reference, no response time: no chain */
	m.ref = -1;
	assert_int_equal(model_wait_chain(&m, &c), -ENOENT);
	assert_int_equal(c.n, 0);
	m.ref = 0;
	m.r = 0;
	assert_int_equal(model_wait_chain(&m, &c), -ENOENT);
}

static void test_rows(void **state)
{
	struct model m;
	struct model_prediction p;
	struct model_row *r = NULL;
	int n, tasks = 0, calls = 0;
	const char *order[] = { "t3-client", "t3-front", "t3-back", "t3-back.lock", "disk" };

	(void)state;
	tier3_model(&m);
	snprintf(m.task[1].name, sizeof(m.task[1].name), "t3-\x1b[2Jfront");
	memset(&p, 0, sizeof(p));
	for (int i = 0; i < 5; i++)
		p.task_util[i] = 0.1 * (i + 1);
	n = model_rows(&m, &p, &r);
	assert_true(n > 0);
	assert_int_equal(r[0].kind, MODEL_ROW_HEAD);
	assert_non_null(strstr(r[0].text, "5 tasks"));
	assert_non_null(strstr(r[0].text, "response 5.000 ms"));
	for (int i = 0; i < n; i++) {
		assert_null(strchr(r[i].text, '\x1b'));
		if (r[i].kind == MODEL_ROW_TASK) {
			assert_true(tasks < 5);
			if (tasks != 1)
				assert_int_equal(strncmp(r[i].text, order[tasks], strlen(order[tasks])), 0);
			else
				assert_non_null(strstr(r[i].text, "\\x1b[2Jfront"));
			assert_int_equal(r[i].task, tasks);
			assert_int_equal(r[i].depth, tasks < 3 ? (unsigned)tasks : 3u);
			NEAR(r[i].util, 0.1 * (tasks + 1), 1e-12);
			tasks++;
		} else if (r[i].kind == MODEL_ROW_CALL) {
			calls++;
			if (r[i].task == 0) {
				NEAR(r[i].share, 0.8, 1e-12);
				assert_non_null(strstr(r[i].text, "= 80% of response"));
				assert_non_null(strstr(r[i].text, "1.00/cycle unix, wait 4.000 ms"));
			}
			if (r[i].task == 2 && r[i].to == 3)
				NEAR(r[i].share, 0.2, 1e-12);
		}
	}
	assert_int_equal(tasks, 5);
	assert_int_equal(calls, 4);
	assert_non_null(strstr(r[1].text, "reference"));
	assert_non_null(strstr(r[1].text, "think 10.000 ms"));
	free(r);
	/* without a prediction: no utilisation */
	n = model_rows(&m, NULL, &r);
	assert_true(n > 0);
	assert_true(r[1].util < 0);
	assert_null(strstr(r[1].text, "util"));
	free(r);
}

static void test_json_roundtrip(void **state)
{
	struct model m, back;
	struct model_chain a, b;
	char *text = NULL, *cause = NULL, ta[512], tb[512];
	size_t len = 0;
	FILE *f;

	(void)state;
	tier3_model(&m);
	snprintf(m.note, sizeof(m.note), "a note");
	m.other_tasks = 2;
	m.other_cpu_share = 0.125;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(model_write_json(&m, NULL, f), 0);
	fclose(f);
	assert_int_equal(model_read_json(text, &back, &cause), 0);
	assert_null(cause);
	assert_int_equal(back.ntask, 5);
	assert_int_equal(back.ref, 0);
	assert_string_equal(back.task[3].name, "t3-back.lock");
	assert_int_equal(back.task[3].kind, MODEL_TASK_SEMAPHORE);
	assert_int_equal(back.task[4].kind, MODEL_TASK_DISK);
	assert_int_equal(back.task[2].ncalls, 2);
	assert_string_equal(back.task[2].calls[0].channel, "futex");
	assert_string_equal(back.note, "a note");
	assert_int_equal(back.other_tasks, 2);
	NEAR(back.task[0].sleep_s, 0.010, 1e-15);
	assert_int_equal(model_wait_chain(&m, &a), 0);
	assert_int_equal(model_wait_chain(&back, &b), 0);
	assert_string_equal(model_chain_text(&m, &a, 0, ta, sizeof(ta)),
			    model_chain_text(&back, &b, 0, tb, sizeof(tb)));
	free(text);
	/* not a model */
	assert_int_equal(model_read_json("{\"x\":1}", &back, &cause), -EINVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(model_read_json("not json", &back, &cause), -EINVAL);
	free(cause);
	cause = NULL;
	assert_int_equal(model_read_json("{\"tasks\":[{\"name\":\"a\",\"calls\":[{\"to\":\"b\"}]}]}",
					 &back, &cause), -EINVAL);
	assert_non_null(strstr(cause, "does not have"));
	free(cause);
}

/* argus model's text carries the chain; a session's model event reads
 * back (session_log_model), and a session without one has none */
static void test_text_and_session(void **state)
{
	static const char head[] = "{\"type\":\"header\",\"format\":\"argus-session\","
				   "\"version\":1}\n";
	struct model m, back;
	struct session_log l;
	const struct session_event *e;
	char *text = NULL, *cause = NULL, *ses = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	tier3_model(&m);
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(model_write_text(&m, NULL, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "wait chain: t3-client waits on t3-front 80% -> t3-front waits on "
			       "t3-back 60% -> t3-back waits on lock t3-back.lock 20%\n"));
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(model_write_json(&m, NULL, f), 0);
	fclose(f);
	for (char *p = text; *p; p++)
		if (*p == '\n')
			*p = ' ';
	assert_true(asprintf(&ses, "%s{\"type\":\"note\",\"t\":1,\"text\":\"x\"}\n"
			     "{\"type\":\"model\",\"t\":2.5,\"model\":%s,\"chain\":\"c\"}\n",
			     head, text) > 0);
	assert_int_equal(session_read_buf("mem", ses, strlen(ses), &l, &cause), 0);
	e = session_log_model(&l);
	assert_non_null(e);
	assert_int_equal(e->type, SESSION_EV_MODEL);
	NEAR(e->t, 2.5, 1e-12);
	assert_string_equal(e->text, "c");
	assert_int_equal(model_read_json(e->result_json, &back, &cause), 0);
	assert_int_equal(back.ntask, 5);
	assert_string_equal(back.task[back.ref].name, "t3-client");
	session_log_clear(&l);
	/* an older session: no model */
	assert_int_equal(session_read_buf("mem", head, strlen(head), &l, &cause), 0);
	assert_null(session_log_model(&l));
	session_log_clear(&l);
	/* a model event whose model is not an object is a damaged line */
	free(ses);
	assert_true(asprintf(&ses, "%s{\"type\":\"model\",\"t\":1,\"model\":3}\n", head) > 0);
	assert_int_equal(session_read_buf("mem", ses, strlen(ses), &l, &cause), -EINVAL);
	assert_non_null(strstr(cause, "model"));
	free(cause);
	free(ses);
	free(text);
}

/* model_build records the caller's measured wait per call */
static void test_build_wait(void **state)
{
	static const char st_unix[] = "entry_SYSCALL_64;__x64_sys_read;unix_stream_recvmsg;"
				      "unix_stream_read_generic;unix_stream_data_wait;schedule";
	static const char st_sleep[] = "entry_SYSCALL_64;__x64_sys_clock_nanosleep;do_nanosleep;schedule";
	struct waitgraph *g = wg_new();
	struct model_opts o = { .cpus = 2 };
	struct model m;
	struct model_chain c;
	struct wg_edge e;
	char *cause = NULL;

	(void)state;
	assert_non_null(g);
	g->secs = 10;
	memset(&e, 0, sizeof(e));
	/* the client: 1000 sleeps of 5 ms, 1000 replies after 4 ms */
	e.pid = e.tgid = 10;
	snprintf(e.comm, sizeof(e.comm), "cli");
	e.waker = WG_WAKER_HARDIRQ;
	e.vec = WG_IRQ_TIMER;
	e.stack = (char *)st_sleep;
	e.count = 1000;
	e.total_ns = 5000000000ull;
	assert_int_equal(wg_edge_add(g, &e), 0);
	e.waker = WG_WAKER_TASK;
	e.vec = 0; /* a direct wakeup, no syscall seen (for a task, vec has a meaning) */
	e.wpid = e.wtgid = 20;
	snprintf(e.wcomm, sizeof(e.wcomm), "srv");
	e.stack = (char *)st_unix;
	e.total_ns = 4000000000ull;
	assert_int_equal(wg_edge_add(g, &e), 0);
	/* the server: 1000 requests */
	e.pid = e.tgid = 20;
	snprintf(e.comm, sizeof(e.comm), "srv");
	e.wpid = e.wtgid = 10;
	snprintf(e.wcomm, sizeof(e.wcomm), "cli");
	e.total_ns = 5500000000ull;
	assert_int_equal(wg_edge_add(g, &e), 0);
	assert_int_equal(wg_thread_add(g, 10, 10, "cli", 500000000), 0);
	assert_int_equal(wg_thread_add(g, 20, 20, "srv", 3500000000ull), 0);
	assert_int_equal(model_build(g, &o, &m, &cause), 0);
	assert_int_equal(m.ntask, 2);
	assert_int_equal(m.task[m.ref].ncalls, 1);
	NEAR(m.task[m.ref].calls[0].wait_s, 0.004, 1e-12);
	/* cycle 10 ms, think 5 ms: response 5 ms; 4 ms of it on the server */
	NEAR(m.r, 0.005, 1e-12);
	assert_int_equal(model_wait_chain(&m, &c), 0);
	NEAR(c.link[0].share, 0.8, 1e-9);
	assert_int_equal(c.link[1].kind, MODEL_LINK_CPU);
	NEAR(c.link[1].share, 0.7, 1e-9);          /* 3.5 ms CPU per call of 5 */
	wg_free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_lock),
		cmocka_unit_test(test_chain_disk_and_visits),
		cmocka_unit_test(test_chain_unmeasured_and_cpu),
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_json_roundtrip),
		cmocka_unit_test(test_text_and_session),
		cmocka_unit_test(test_build_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
