/* test_model_window — the model's windows (core/model_window): the mark
 * read from a pipe line by line, the windows inside the marked phase, the
 * messages of a mark that never matched and of a load that never reached
 * a steady state, the header texts. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include <cmocka.h>

#include "model/model_window.h"

struct seen {
	char lines[8][64];
	int n;
};

static void collect(void *arg, const char *line)
{
	struct seen *s = arg;

	if (s->n < 8)
		snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s", line);
}

static void test_mark_lines(void **state)
{
	struct model_lines lb = { .used = 0 };
	struct model_mark mk;
	struct seen s = { .n = 0 };
	char *cause = NULL;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(model_mark_init(&mk, "steady (begin|end)", &cause), 0);
	/* a line split over two reads is one line, read when complete */
	assert_int_equal(write(p[1], "warming up\ntier3: steady be", 27), 27);
	assert_int_equal(model_lines_read(&lb, p[0], 1.0, &mk, collect, &s), 1);
	assert_int_equal(s.n, 1);
	assert_true(mk.open_s < 0);
	assert_int_equal(write(p[1], "gin\nwork\n", 9), 9);
	assert_int_equal(model_lines_read(&lb, p[0], 2.5, &mk, collect, &s), 1);
	assert_int_equal(s.n, 3);
	assert_string_equal(s.lines[1], "tier3: steady begin");
	assert_true(mk.open_s == 2.5);
	assert_true(mk.close_s < 0);
	/* the next match closes; a last line without a newline comes at EOF */
	assert_int_equal(write(p[1], "tier3: steady end", 17), 17);
	close(p[1]);
	assert_int_equal(model_lines_read(&lb, p[0], 9.0, &mk, collect, &s), 0);
	assert_int_equal(s.n, 4);
	assert_true(mk.close_s == 9.0);
	assert_int_equal(mk.lines, 4);
	close(p[0]);
	model_mark_fini(&mk);
	model_mark_fini(&mk); /* twice is harmless */
	/* a bad expression is said, with the expression escaped */
	assert_int_equal(model_mark_init(&mk, "(\x1b[31m", &cause), -EINVAL);
	assert_non_null(strstr(cause, "bad --mark regular expression"));
	assert_null(strchr(cause, '\x1b'));
	free(cause);
}

/* n windows of 1 s from t0, window i with blocks[i] wakeups/s */
static struct waitgraph **wins(unsigned n, double t0, const uint64_t *blocks)
{
	struct waitgraph **w = calloc(n, sizeof(*w));

	for (unsigned i = 0; i < n; i++) {
		struct wg_edge e = { .pid = 1, .tgid = 1, .waker = WG_WAKER_TASK, .wpid = 2,
				     .wtgid = 2, .stack = "unix_stream_read_generic",
				     .count = blocks[i], .total_ns = 1000 };

		w[i] = wg_new();
		assert_non_null(w[i]);
		w[i]->secs = 1;
		w[i]->start_s = t0 + i;
		snprintf(e.comm, sizeof(e.comm), "c");
		snprintf(e.wcomm, sizeof(e.wcomm), "s");
		assert_int_equal(wg_edge_add(w[i], &e), 0);
		assert_int_equal(wg_thread_add(w[i], 1, 1, "c", blocks[i] * 100000), 0);
	}
	return w;
}

static void wins_free(struct waitgraph **w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		wg_free(w[i]);
	free(w);
}

static void test_marked(void **state)
{
	static const uint64_t b[] = { 100, 100, 100, 100, 100, 100 };
	struct waitgraph **w = wins(6, 0.5, b); /* [0.5,1.5) [1.5,2.5) ... [5.5,6.5) */
	struct model_mark mk;
	unsigned first = 99, last = 99;
	char *cause = NULL, txt[240];

	(void)state;
	assert_int_equal(model_mark_init(&mk, "steady begin", &cause), 0);
	/* never matched: said, with the lines read */
	model_mark_line(&mk, "tier3: warming", 0.2);
	model_mark_line(&mk, "tier3: more", 0.3);
	assert_int_equal(model_window_marked(w, 6, &mk, 1, &first, &last, &cause), -ERANGE);
	assert_non_null(strstr(cause, "--mark 'steady begin' never matched the load's output "
			       "(2 lines read)"));
	free(cause);
	cause = NULL;
	/* opened at 2.1 s: the windows that start after it, to the end */
	assert_int_equal(model_mark_line(&mk, "tier3: steady begin", 2.1), 1);
	assert_int_equal(model_window_marked(w, 6, &mk, 1, &first, &last, &cause), 0);
	assert_int_equal(first, 2);
	assert_int_equal(last, 5);
	assert_string_equal(model_window_text('m', first, last, 6, 0.2, &mk, "loaded windows", txt,
					      sizeof(txt)),
			    "marked: 'steady begin' at 2.1 s .. end: windows 3-6 of 6");
	/* closed at 5.0 s: windows wholly inside */
	assert_int_equal(model_mark_line(&mk, "steady begin again", 5.0), 1);
	assert_int_equal(model_window_marked(w, 6, &mk, 1, &first, &last, &cause), 0);
	assert_int_equal(first, 2);
	assert_int_equal(last, 3);
	assert_string_equal(model_window_text('m', first, last, 6, 0.2, &mk, NULL, txt, sizeof(txt)),
			    "marked: 'steady begin' at 2.1 s .. 5.0 s: windows 3-4 of 6");
	/* a phase shorter than a window holds none: said */
	mk.open_s = 2.6;
	mk.close_s = 3.0;
	assert_int_equal(model_window_marked(w, 6, &mk, 1, &first, &last, &cause), -ERANGE);
	assert_non_null(strstr(cause, "no whole window of 1.0 s lies inside the phase"));
	free(cause);
	model_mark_fini(&mk);
	wins_free(w, 6);
}

static void test_steady(void **state)
{
	static const uint64_t ramp[] = { 10, 400, 1000, 1050, 980, 1010, 1000, 300 };
	static const uint64_t wild[] = { 10, 500, 40, 900, 100 };
	struct waitgraph **w = wins(8, 0, ramp), **x = wins(5, 0, wild);
	unsigned first = 99, last = 99;
	char *cause = NULL, txt[240];

	(void)state;
	assert_int_equal(model_window_steady(w, 8, 900, 0.2, 3, &first, &last, &cause), 0);
	assert_int_equal(first, 2);
	assert_int_equal(last, 6);
	assert_string_equal(model_window_text('s', first, last, 8, 0.2, NULL, NULL, txt, sizeof(txt)),
			    "steady state: windows 3-7 of 8 (rates within 20%)");
	assert_int_equal(model_window_steady(x, 5, 900, 0.2, 3, &first, &last, &cause), -ERANGE);
	assert_non_null(strstr(cause, "the load never reached a steady state: no 3 consecutive "
			       "windows with rates within 20% of their mean"));
	assert_non_null(strstr(cause, " 10/0.00 500/0.05 40/0.00 900/0.09 100/0.01"));
	free(cause);
	cause = NULL;
	assert_int_equal(model_window_steady(x, 0, 900, 0.2, 3, &first, &last, &cause), -ERANGE);
	assert_non_null(strstr(cause, "no window was measured"));
	free(cause);
	assert_string_equal(model_window_text('a', 0, 11, 12, 0.2, NULL, "loaded windows", txt,
					      sizeof(txt)),
			    "all 12 loaded windows (no --steady/--mark)");
	assert_string_equal(model_window_text('s', 4, 4, 9, 0.1, NULL, NULL, txt, sizeof(txt)),
			    "steady state: window 5 of 9 (rates within 10%)");
	wins_free(w, 8);
	wins_free(x, 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_lines),
		cmocka_unit_test(test_marked),
		cmocka_unit_test(test_steady),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
