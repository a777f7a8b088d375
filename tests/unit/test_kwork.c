/* test_kwork — kworkers named by the work function their sampled stacks
 * show: the extraction (core/kwork), the tree's table per process
 * (core/tree_kwork), and the process row that shows it (tui/fmt_row); and
 * the merge with the workqueue tracepoint's executions (profile_work,
 * their session field and the tree's order: the stacks first). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fmt.h"
#include "data/kwork.h"
#include "data/profile.h"
#include "measure/session.h"
#include "data/tree.h"
#include "view_tree.h"

#define KW "ret_from_fork_asm;ret_from_fork;kthread;worker_thread;process_one_work;"

/* Splits a folded stack into frames (in buf); returns how many. */
static unsigned split(char *buf, size_t len, const char *folded, const char **frames)
{
	char *save = NULL, *tok;
	unsigned nf = 0;

	snprintf(buf, len, "%s", folded);
	for (tok = strtok_r(buf, ";", &save); tok && nf < 64; tok = strtok_r(NULL, ";", &save))
		frames[nf++] = tok;
	return nf;
}

/* The work function of a folded stack, "" when none. */
static const char *func_of(const char *folded, char *out, size_t outlen)
{
	char buf[1024];
	const char *frames[64], *f;
	unsigned nf = split(buf, sizeof(buf), folded, frames);
	size_t len = 0;

	f = kwork_func(frames, nf, &len);
	snprintf(out, outlen, "%.*s", f ? (int)len : 0, f ? f : "");
	return out;
}

static void test_func(void **state)
{
	char o[128];

	(void)state;
	/* the frame process_one_work called */
	assert_string_equal(func_of(KW "vmstat_update;refresh_cpu_vm_stats", o, sizeof(o)),
			    "vmstat_update");
	assert_string_equal(func_of(KW "wb_workfn", o, sizeof(o)), "wb_workfn");
	/* compiler suffixes and a module name are not the function's name */
	assert_string_equal(func_of(KW "wb_workfn.isra.0;wb_do_writeback", o, sizeof(o)),
			    "wb_workfn");
	assert_string_equal(func_of(KW "virtio_transport_tx_work [vsock]", o, sizeof(o)),
			    "virtio_transport_tx_work");
	assert_string_equal(func_of("ret_from_fork;kthread;worker_thread;process_one_work.cold;"
				    "blk_mq_run_work_fn", o, sizeof(o)), "blk_mq_run_work_fn");
	/* no process_one_work: an idle worker, any other stack */
	assert_string_equal(func_of("ret_from_fork_asm;ret_from_fork;kthread;worker_thread;"
				    "schedule;__schedule", o, sizeof(o)), "");
	assert_string_equal(func_of("entry_SYSCALL_64;do_syscall_64;ksys_write;vfs_write",
				    o, sizeof(o)), "");
	/* process_one_work itself is the leaf, or calls its own helpers */
	assert_string_equal(func_of(KW, o, sizeof(o)), "");
	assert_string_equal(func_of(KW "_raw_spin_unlock_irq", o, sizeof(o)), "");
	assert_string_equal(func_of(KW "__cond_resched;__schedule", o, sizeof(o)), "");
	assert_string_equal(func_of(KW "asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt",
				    o, sizeof(o)), "");
	assert_string_equal(func_of(KW "bpf_trace_run2;bpf_prog_1234_wq", o, sizeof(o)), "");
	/* a BH work item run on irq exit is not the interrupted task's work */
	assert_string_equal(func_of("ret_from_fork_asm;ret_from_fork;kthread;worker_thread;schedule;"
				    "asm_sysvec_apic_timer_interrupt;sysvec_apic_timer_interrupt;"
				    "__irq_exit_rcu;handle_softirqs;workqueue_softirq_action;"
				    "bh_worker;process_one_work;flush_backlog", o, sizeof(o)), "");
	/* ... but the worker's own item under it is */
	assert_string_equal(func_of(KW "wb_workfn;asm_sysvec_apic_timer_interrupt;"
				    "__irq_exit_rcu;handle_softirqs;bh_worker;process_one_work;"
				    "flush_backlog", o, sizeof(o)), "wb_workfn");
	assert_null(kwork_func(NULL, 0, NULL));
}

static void test_is_worker(void **state)
{
	(void)state;
	assert_true(kwork_is_worker("kworker/1:2", -1));
	assert_true(kwork_is_worker("kworker/u8:3", 1));
	assert_true(kwork_is_worker("kworker/0:1H", 1));
	/* a task that is known to be no kernel thread names itself anything */
	assert_false(kwork_is_worker("kworker/1:2", 0));
	assert_false(kwork_is_worker("ksoftirqd/0", 1));
	assert_false(kwork_is_worker("bash", -1));
	assert_false(kwork_is_worker(NULL, 1));
}

static void add(struct profile *p, unsigned w, const char *folded, uint32_t tgid,
		const char *comm, uint64_t n)
{
	char buf[1024];
	const char *frames[64];
	unsigned nf = split(buf, sizeof(buf), folded, frames);

	assert_int_equal(profile_add(p, w, frames, nf, tgid, comm, n), 0);
}

/* kworker/1:2 [50]: wb_workfn 30+4 (".cold" merged), vmstat_update 2+10,
 * 5 of its own lock; kworker/0:1 [51] idle only; bash [60] with a BH work
 * item on irq exit; kworker/evil [70] a user task (its identity says so). */
static struct profile *kwork_profile(void)
{
	struct profile *p = profile_new();
	struct profile_ident id = { .tgid = 70, .comm = "kworker/evil", .cmdline = "./evil" };
	int w;

	assert_non_null(p);
	for (int k = 0; k < 2; k++) {
		w = profile_window_begin(p, k ? COND_LOAD : COND_REF, k);
		assert_int_equal(w, k);
		add(p, w, KW "vmstat_update;refresh_cpu_vm_stats", 50, "kworker/1:2", k ? 10 : 2);
		if (k) {
			add(p, w, KW "wb_workfn;wb_do_writeback", 50, "kworker/1:2", 30);
			add(p, w, KW "wb_workfn.cold", 50, "kworker/1:2", 4);
			add(p, w, KW "_raw_spin_unlock_irq", 50, "kworker/1:2", 5);
		}
		add(p, w, "ret_from_fork_asm;ret_from_fork;kthread;worker_thread;schedule", 51,
		    "kworker/0:1", 3);
		add(p, w, "entry_SYSCALL_64;asm_sysvec_apic_timer_interrupt;__irq_exit_rcu;"
			  "handle_softirqs;bh_worker;process_one_work;flush_backlog", 60, "bash", 7);
		add(p, w, KW "evil_fn", 70, "kworker/evil", 9);
		add(p, w, "do_idle;default_idle", 0, "swapper/0", 100);
		profile_window_end(p, w, 1.0);
	}
	assert_int_equal(profile_ident_set(p, &id), 0);
	return p;
}

static void test_tree(void **state)
{
	struct profile *p = kwork_profile();
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	struct tree *t;
	const struct tree_kworker *kw;

	(void)state;
	for (int g = 0; g < 2; g++) {
		t = tree_build(p, g ? &o : NULL);
		assert_non_null(t);
		kw = tree_kworker_of(t, 50);
		assert_non_null(kw);
		assert_int_equal(kw->nwork, 2);
		assert_string_equal(kw->work[0].func, "wb_workfn");
		assert_int_equal(kw->work[0].total[COND_REF], 0);
		assert_int_equal(kw->work[0].total[COND_LOAD], 34);
		assert_string_equal(kw->work[1].func, "vmstat_update");
		assert_int_equal(kw->work[1].total[COND_REF], 2);
		assert_int_equal(kw->work[1].total[COND_LOAD], 10);
		/* all its samples, the unnamed lock time too */
		assert_int_equal(kw->total[COND_REF], 2);
		assert_int_equal(kw->total[COND_LOAD], 49);
		kw = tree_kworker_of(t, 51);
		assert_non_null(kw);
		assert_int_equal(kw->nwork, 0);
		assert_int_equal(kw->total[COND_LOAD], 3);
		assert_null(tree_kworker_of(t, 60));   /* no kworker */
		assert_null(tree_kworker_of(t, 70));   /* no kernel thread */
		assert_null(tree_kworker_of(t, 0));
		assert_int_equal(t->nkworkers, 2);
		tree_free(t);
	}
	/* the stacks the tree leaves out name nothing */
	{
		uint32_t only = 60;

		o.only_tgids = &only;
		o.nonly = 1;
		t = tree_build(p, &o);
		assert_non_null(t);
		assert_null(tree_kworker_of(t, 50));
		tree_free(t);
	}
	profile_free(p);
}

static const char *row_text_w(struct view_tree *v, const char *name, int utf8, int width,
			      char *out, size_t len)
{
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	struct fmt_line l;

	fmt_cols_layout(&cols, width, 0, 0);
	ctx = (struct fmt_row_ctx){ glyphs_get(utf8), &cols, tree_node_sum(v->t->root), NULL, NULL };
	for (size_t i = 0; i < v->nrows; i++)
		if (!strcmp(v->rows[i].n->name, name)) {
			fmt_row(&l, v, i, &ctx);
			snprintf(out, len, "%s", l.text);
			return out;
		}
	fail_msg("no row %s", name);
	return NULL;
}

static const char *row_text(struct view_tree *v, const char *name, int utf8, char *out,
			    size_t len)
{
	return row_text_w(v, name, utf8, 160, out, len);
}

static void test_row(void **state)
{
	struct profile *p = kwork_profile();
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	struct tree *t;
	struct view_tree *v = view_tree_new(0.0);
	char r[1024];
	int w;

	(void)state;
	/* a kworker that ran one function, and one whose name holds escapes
	 * (a session is a file anyone may have written) */
	w = 1;
	add(p, w, KW "blk_mq_run_work_fn", 52, "kworker/0:2", 6);
	add(p, w, KW "evil\x1b[2J\x07_fn", 53, "kworker/0:3", 6);
	t = tree_build(p, &o);
	assert_non_null(t);
	tree_sort(t, TREE_SORT_TOTAL);
	assert_int_equal(view_tree_set(v, t, 0), 0);
	row_text(v, "kworker/1:2 [50]", 1, r, sizeof(r));
	if (!strstr(r, "kworker/1:2 [50]  \u00b7 wb_workfn +1 more"))
		fail_msg("row: %s", r);
	row_text(v, "kworker/1:2 [50]", 0, r, sizeof(r));
	if (!strstr(r, "kworker/1:2 [50]  | wb_workfn +1 more"))
		fail_msg("ascii row: %s", r);
	/* short of room: "+1 more" goes first, never cut; the function stays */
	{
		int bare = 0;

		for (int width = 60; width <= 160; width++) {
			row_text_w(v, "kworker/1:2 [50]", 1, width, r, sizeof(r));
			if (strstr(r, "more") && !strstr(r, "\u00b7 wb_workfn +1 more"))
				fail_msg("width %d: %s", width, r);
			bare += strstr(r, "\u00b7 wb_workfn ") && !strstr(r, "more");
		}
		assert_true(bare > 0);
	}
	row_text(v, "kworker/0:2 [52]", 1, r, sizeof(r));
	if (!strstr(r, "\u00b7 blk_mq_run_work_fn ") || strstr(r, "more"))
		fail_msg("row: %s", r);
	row_text(v, "kworker/0:3 [53]", 1, r, sizeof(r));
	if (!strstr(r, "evil\\x1b[2J\\x07_fn") || strchr(r, '\x1b') || strchr(r, '\x07'))
		fail_msg("row not escaped: %s", r);
	/* no work function named: no "·" (and a user task named kworker neither) */
	row_text(v, "kworker/0:1 [51]", 1, r, sizeof(r));
	assert_null(strstr(r, "\u00b7"));
	row_text(v, "kworker/evil [70]", 1, r, sizeof(r));
	assert_null(strstr(r, "evil_fn"));
	view_tree_free(v);
	tree_free(t);
	profile_free(p);
}

/* kwork_profile plus what the tracepoint counted in its two windows. */
static struct profile *kwork_profile_traced(void)
{
	struct profile *p = kwork_profile();

	/* kworker/1:2 [50]: wb_workfn also counted (one entry, both numbers);
	 * vmstat_update under a module name and added twice (summed);
	 * refresh_vm_stats only counted, more often than anything sampled */
	assert_int_equal(profile_work_add(p, 1, 50, "wb_workfn", 3), 0);
	assert_int_equal(profile_work_add(p, 0, 50, "vmstat_update [vm]", 100), 0);
	assert_int_equal(profile_work_add(p, 1, 50, "vmstat_update", 15), 0);
	assert_int_equal(profile_work_add(p, 1, 50, "vmstat_update", 5), 0);
	assert_int_equal(profile_work_add(p, 1, 50, "refresh_vm_stats", 500), 0);
	/* kworker/0:1 [51]: its stacks name nothing; two counted functions */
	assert_int_equal(profile_work_add(p, 0, 51, "psi_avgs_work", 7), 0);
	assert_int_equal(profile_work_add(p, 1, 51, "mod_work_fn.isra.0 [mod]", 9), 0);
	/* no kept stack (no row to name), a user task named kworker, a zero */
	assert_int_equal(profile_work_add(p, 1, 99, "lonely_fn", 40), 0);
	assert_int_equal(profile_work_add(p, 1, 70, "evil_fn", 40), 0);
	assert_int_equal(profile_work_add(p, 1, 51, "zero_fn", 0), 0);
	assert_int_equal(profile_work_add(p, 5, 51, "no_window_fn", 1), -EINVAL);
	return p;
}

static const struct tree_work *work_of(const struct tree_kworker *kw, const char *fn)
{
	for (unsigned i = 0; i < kw->nwork; i++)
		if (!strcmp(kw->work[i].func, fn))
			return &kw->work[i];
	return NULL;
}

static void check_merged(const struct tree *t)
{
	const struct tree_kworker *kw = tree_kworker_of(t, 50);
	const struct tree_work *w;

	assert_true(t->kwork_traced);
	assert_non_null(kw);
	assert_int_equal(kw->nwork, 3);
	/* the stacks first: wb_workfn by its samples, though refresh_vm_stats
	 * ran far more often */
	assert_string_equal(kw->work[0].func, "wb_workfn");
	assert_int_equal(kw->work[0].total[COND_LOAD], 34);
	assert_int_equal(kw->work[0].exec[COND_LOAD], 3);
	assert_string_equal(kw->work[1].func, "vmstat_update");
	assert_int_equal(kw->work[1].total[COND_REF], 2);
	assert_int_equal(kw->work[1].exec[COND_REF], 100);
	assert_int_equal(kw->work[1].exec[COND_LOAD], 20);
	assert_string_equal(kw->work[2].func, "refresh_vm_stats");
	assert_int_equal(kw->work[2].total[COND_REF] + kw->work[2].total[COND_LOAD], 0);
	assert_int_equal(kw->work[2].exec[COND_LOAD], 500);
	assert_int_equal(kw->exec[COND_REF], 100);
	assert_int_equal(kw->exec[COND_LOAD], 523);
	assert_int_equal(kw->total[COND_LOAD], 49);  /* samples unchanged */
	/* named by the tracepoint alone: most executions first, the module
	 * and the compiler suffix dropped, the zero left out */
	kw = tree_kworker_of(t, 51);
	assert_non_null(kw);
	assert_int_equal(kw->nwork, 2);
	assert_string_equal(kw->work[0].func, "mod_work_fn");
	assert_int_equal(kw->work[0].exec[COND_LOAD], 9);
	assert_string_equal(kw->work[1].func, "psi_avgs_work");
	assert_int_equal(kw->work[1].exec[COND_REF], 7);
	assert_null(work_of(kw, "zero_fn"));
	assert_null(tree_kworker_of(t, 99));
	assert_null(tree_kworker_of(t, 70));
	w = work_of(tree_kworker_of(t, 50), "lonely_fn");
	assert_null(w);
}

static void test_merge(void **state)
{
	struct profile *p = kwork_profile_traced(), *q;
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	struct tree *t;

	(void)state;
	assert_true(p->wins[0].works_traced && p->wins[1].works_traced);
	for (int g = 0; g < 2; g++) {
		t = tree_build(p, g ? &o : NULL);
		assert_non_null(t);
		check_merged(t);
		tree_free(t);
	}
	/* a kworker the tree leaves out gets no executions either */
	{
		uint32_t only = 51;

		o.only_tgids = &only;
		o.nonly = 1;
		t = tree_build(p, &o);
		assert_non_null(t);
		assert_null(tree_kworker_of(t, 50));
		assert_non_null(tree_kworker_of(t, 51));
		assert_int_equal(tree_kworker_of(t, 51)->nwork, 2);
		tree_free(t);
		o.only_tgids = NULL;
		o.nonly = 0;
	}
	/* without the tracepoint: the stacks' names only, and not traced */
	q = kwork_profile();
	t = tree_build(q, &o);
	assert_non_null(t);
	assert_false(t->kwork_traced);
	assert_int_equal(tree_kworker_of(t, 51)->nwork, 0);
	assert_int_equal(tree_kworker_of(t, 50)->nwork, 2);
	tree_free(t);
	profile_free(q);
	/* the row of the kworker no stack names: the counted function */
	{
		struct view_tree *v = view_tree_new(0.0);
		char r[1024];

		t = tree_build(p, &o);
		assert_non_null(t);
		tree_sort(t, TREE_SORT_TOTAL);
		assert_int_equal(view_tree_set(v, t, 0), 0);
		row_text(v, "kworker/0:1 [51]", 1, r, sizeof(r));
		if (!strstr(r, "kworker/0:1 [51]  \u00b7 mod_work_fn +1 more"))
			fail_msg("row: %s", r);
		row_text(v, "kworker/1:2 [50]", 1, r, sizeof(r));
		if (!strstr(r, "kworker/1:2 [50]  \u00b7 wb_workfn +2 more"))
			fail_msg("row: %s", r);
		view_tree_free(v);
		tree_free(t);
	}
	profile_free(p);
}

/* The executions go through a session and back: the same tree; a window
 * traced with nothing counted stays traced; one not traced has no field. */
static void test_session(void **state)
{
	struct profile *p = kwork_profile_traced();
	char path[] = "/tmp/argus-test-kwork-XXXXXX";
	struct session_header h = { .host = "h", .kernel = "k" };
	struct session_log l = { 0 };
	struct session *s;
	struct tree *t;
	const struct profile *r;
	char *cause = NULL;
	int fd = mkstemp(path), w;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	w = profile_window_begin(p, COND_REF, 2);    /* traced, nothing ran */
	assert_int_equal(profile_work_add(p, (unsigned)w, 51, "quiet_fn", 0), 0);
	profile_window_end(p, (unsigned)w, 1.0);
	w = profile_window_begin(p, COND_LOAD, 3);   /* not traced */
	profile_window_end(p, (unsigned)w, 1.0);
	s = session_open(path, &h, &cause);
	assert_non_null(s);
	for (unsigned k = 0; k < p->nwin; k++)
		assert_int_equal(session_write_window(s, p, k, 0), 0);
	assert_int_equal(session_close(s), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	{
		char line[65536];
		unsigned nk = 0, empty = 0;

		while (fgets(line, sizeof(line), f)) {
			nk += strstr(line, "\"kwork\":[") != NULL;
			empty += strstr(line, "\"kwork\":[]") != NULL;
		}
		assert_int_equal(nk, 3);     /* windows 0-2, not window 3 */
		assert_int_equal(empty, 1);
	}
	fclose(f);
	assert_int_equal(session_read(path, &l, &cause), 0);
	r = session_log_profile(&l, 0);
	assert_non_null(r);
	assert_int_equal(r->nwin, 4);
	assert_true(r->wins[0].works_traced && r->wins[1].works_traced && r->wins[2].works_traced);
	assert_false(r->wins[3].works_traced);
	t = tree_build(r, NULL);
	assert_non_null(t);
	check_merged(t);
	tree_free(t);
	session_log_clear(&l);
	/* a bad field is refused with a clear message */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"type\":\"header\",\"format\":\"argus-session\",\"version\":1,\"t\":0}\n"
	      "{\"type\":\"window\",\"t\":0,\"step\":0,\"index\":0,\"cond\":\"ref\","
	      "\"start\":0,\"secs\":1,\"stacks\":[],\"kwork\":[{\"pid\":5,\"function\":7}]}\n", f);
	fclose(f);
	assert_true(session_read(path, &l, &cause) < 0);
	assert_non_null(cause);
	if (!strstr(cause, "kwork[0]"))
		fail_msg("cause: %s", cause);
	free(cause);
	session_log_clear(&l);
	unlink(path);
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_func),
		cmocka_unit_test(test_is_worker),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_row),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_session),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
