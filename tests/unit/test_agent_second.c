/* core/agent_second: the heuristic's second opinion after a veto — the
 * reason's words steer the kind (offcpu), a tracepoint it names is counted,
 * the vetoed kind is not proposed again unless asked for, each catalog entry
 * is proposed once, and a spent catalog says so with no step. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "agent/agent_second.h"
#include "data/step.h"

static void verdict_mm(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->subsystem, sizeof(v->subsystem), "mm");
	v->found = 1;
	v->delta = 297.8;
}

static const char *kind_of(const struct agent_reply *r)
{
	return r->step ? step_kind_name(r->step->kind) : NULL;
}

static void test_reason_names_offcpu(void **state)
{
	struct verdict v;
	struct agent_reply r = { 0 };
	uint32_t used = 0;

	(void)state;
	verdict_mm(&v);
	assert_int_equal(agent_second_propose(&v, "no, look at off-cpu time and its wakers",
					      "tracepoint_stacks", &used, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_PROPOSAL);
	assert_string_equal(kind_of(&r), "offcpu");
	agent_reply_clear(&r);
	/* the word "offcpu" as the kind's name steers too */
	used = 0;
	assert_int_equal(agent_second_propose(&v, "offcpu please", NULL, &used, &r), 0);
	assert_string_equal(kind_of(&r), "offcpu");
	agent_reply_clear(&r);
}

static void test_reason_names_tracepoint(void **state)
{
	struct verdict v;
	struct agent_reply r = { 0 };
	uint32_t used = 0;

	(void)state;
	verdict_mm(&v);
	assert_int_equal(agent_second_propose(&v, "count kmem:mm_page_alloc instead", NULL, &used, &r), 0);
	assert_string_equal(kind_of(&r), "counts");
	assert_string_equal(r.step->targets[0], "kmem:mm_page_alloc");
	agent_reply_clear(&r);
}

static void test_catalog_order_and_spent(void **state)
{
	struct verdict v;
	struct agent_reply r = { 0 };
	uint32_t used = 0;
	const char *seen[8];
	unsigned n = 0;

	(void)state;
	verdict_mm(&v);
	/* no reason: mm's latency pair first, then its counts, offcpu, a deeper sample */
	for (;;) {
		assert_int_equal(agent_second_propose(&v, NULL, "sample", &used, &r), 0);
		if (!r.step)
			break;
		assert_true(n < 8);
		seen[n++] = kind_of(&r);
		agent_reply_clear(&r);
	}
	assert_int_equal(n, 3);     /* the vetoed kind (sample) is not proposed again */
	assert_string_equal(seen[0], "tracepoint_latency");
	assert_string_equal(seen[1], "counts");
	assert_string_equal(seen[2], "offcpu");
	assert_true(r.nlines >= 1);
	assert_non_null(strstr(r.lines[r.nlines - 1], "no other step in the catalog"));
	agent_reply_clear(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reason_names_offcpu),
		cmocka_unit_test(test_reason_names_tracepoint),
		cmocka_unit_test(test_catalog_order_and_spent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
