/* The calling-context tree: merging, counts per condition and window, ids,
 * lookups, sorting, process grouping, filters, presence; and the profile
 * underneath. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/calib.h"
#include "data/profile.h"
#include "data/tree.h"

#define ADD(p, w, tgid, comm, count, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	assert_int_equal(profile_add(p, w, fr_, sizeof(fr_) / sizeof(fr_[0]), \
				     tgid, comm, count), 0); \
} while (0)

#define PF "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault"

/* Windows: 0 ref, 1 load, 2 ref, 3 load. */
static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(profile_window_begin(p, i % 2 ? COND_LOAD : COND_REF, i), i);
		profile_window_end(p, i, 1.0);
	}
	/* page faults of pid 100, mostly loaded */
	ADD(p, 1, 100, "thp", 40, PF, "__handle_mm_fault", "do_anonymous_page");
	ADD(p, 3, 100, "thp", 60, PF, "__handle_mm_fault", "do_anonymous_page");
	ADD(p, 1, 100, "thp", 5, PF, "__handle_mm_fault", "do_anonymous_page.isra.0");
	ADD(p, 3, 100, "thp", 7, PF);
	ADD(p, 1, 100, "thp", 3, "asm_exc_page_fault", "exc_page_fault");
	/* pid 200 reads in both conditions */
	ADD(p, 0, 200, "cat", 10, "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read",
	    "ksys_read", "vfs_read");
	ADD(p, 1, 200, "cat", 12, "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read",
	    "ksys_read", "vfs_read");
	/* idle only in the reference: vanished when loaded */
	ADD(p, 0, 0, NULL, 50, "cpu_startup_entry", "do_idle", "default_idle_call");
	ADD(p, 2, 0, NULL, 30, "cpu_startup_entry", "do_idle", "default_idle_call");
	return p;
}

static void test_profile_basics(void **state)
{
	struct profile *p = sample_profile();
	const char *a, *b;

	(void)state;
	assert_string_equal(cond_name(COND_REF), "ref");
	assert_string_equal(cond_name(COND_LOAD), "load");
	a = profile_intern(p, "handle_mm_fault");
	b = profile_intern(p, "handle_mm_fault");
	assert_ptr_equal(a, b);
	/* same frames + tgid merge; the .isra.0 variant is a different stack */
	assert_int_equal(p->nstacks, 6);
	assert_int_equal(profile_cond_windows(p, COND_REF), 2);
	assert_int_equal(profile_cond_windows(p, COND_LOAD), 2);
	assert_true(profile_cond_secs(p, COND_LOAD) == 2.0);
	assert_int_equal(profile_cond_samples(p, COND_REF), 10 + 50 + 30);
	assert_int_equal(profile_cond_samples(p, COND_LOAD), 40 + 60 + 5 + 7 + 3 + 12);
	assert_ptr_equal(p->stacks[0].frames[3], a);
	assert_int_equal(p->stacks[0].win[1], 40);
	assert_int_equal(p->stacks[0].win[3], 60);
	assert_int_equal(p->stacks[0].total, 100);
	assert_string_equal(p->stacks[0].comm, "thp");
	/* bad window */
	assert_int_equal(profile_add(p, 9, NULL, 0, 0, NULL, 1), -EINVAL);
	profile_free(p);
	profile_free(NULL);
}

static void test_profile_window_growth(void **state)
{
	struct profile *p = profile_new();
	const char *fr[] = { "a", "b" };

	(void)state;
	assert_int_equal(profile_window_begin(p, COND_REF, 0), 0);
	assert_int_equal(profile_add(p, 0, fr, 2, 1, "x", 1), 0);
	for (unsigned w = 1; w < 100; w++) {
		assert_int_equal(profile_window_begin(p, w % 2, w), (int)w);
		assert_int_equal(profile_add(p, w, fr, 2, 1, "x", w), 0);
	}
	assert_true(p->win_cap >= 100);
	assert_int_equal(p->nstacks, 1);
	assert_int_equal(p->stacks[0].win[0], 1);
	for (unsigned w = 1; w < 100; w++)
		assert_int_equal(p->stacks[0].win[w], w);
	assert_int_equal(p->stacks[0].total, 1 + 99 * 100 / 2);
	profile_free(p);
}

static void test_merge_counts(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL);
	struct tree_node *mm, *n, *dap;

	(void)state;
	assert_non_null(t);
	assert_string_equal(t->root->name, "all");
	assert_int_equal(t->root->kind, TREE_ROOT);
	assert_int_equal(t->root->total[COND_REF], 90);
	assert_int_equal(t->root->total[COND_LOAD], 127);
	assert_int_equal(t->nwin, 4);
	assert_int_equal(t->root->win_total[0], 60);
	assert_int_equal(t->root->win_total[1], 60);
	assert_int_equal(t->root->win_total[2], 30);
	assert_int_equal(t->root->win_total[3], 67);

	mm = tree_child(t, t->root, "mm");
	assert_non_null(mm);
	assert_int_equal(mm->kind, TREE_SUBSYS);
	assert_int_equal(mm->subsys, SUBSYS_MM);
	assert_int_equal(mm->total[COND_LOAD], 115);
	assert_int_equal(mm->total[COND_REF], 0);
	assert_int_equal(mm->presence, TREE_NEW);
	/* full stack below the subsystem, root first */
	n = tree_child(t, mm, "asm_exc_page_fault");
	assert_non_null(n);
	assert_int_equal(n->total[COND_LOAD], 115);
	n = tree_child(t, n, "exc_page_fault");
	assert_int_equal(n->total[COND_LOAD], 115);
	assert_int_equal(n->self[COND_LOAD], 3);   /* the skid leaf */
	n = tree_child(t, n, "do_user_addr_fault");
	n = tree_child(t, n, "handle_mm_fault");
	assert_int_equal(n->self[COND_LOAD], 7);
	assert_int_equal(n->total[COND_LOAD], 112);
	n = tree_child(t, n, "__handle_mm_fault");
	assert_non_null(n);
	/* do_anonymous_page and do_anonymous_page.isra.0 merge */
	dap = tree_child(t, n, "do_anonymous_page");
	assert_non_null(dap);
	assert_ptr_equal(tree_child(t, n, "do_anonymous_page.isra.0"), dap);
	assert_int_equal(n->nchild, 1);
	assert_int_equal(dap->total[COND_LOAD], 105);
	assert_int_equal(dap->self[COND_LOAD], 105);
	assert_int_equal(dap->win_total[1], 45);
	assert_int_equal(dap->win_total[3], 60);
	assert_int_equal(dap->win_total[0], 0);
	assert_int_equal(dap->subsys, SUBSYS_MM);
	assert_int_equal(dap->kind, TREE_FRAME);
	assert_int_equal(dap->depth, 7);
	assert_null(tree_child(t, n, "nope"));

	/* presence */
	n = tree_child(t, t->root, "idle");
	assert_non_null(n);
	assert_int_equal(n->presence, TREE_VANISHED);
	n = tree_child(t, t->root, "fs");
	assert_non_null(n);
	assert_int_equal(n->presence, TREE_BOTH);
	assert_int_equal(t->root->presence, TREE_BOTH);
	tree_free(t);
	profile_free(p);
}

static int count_cb(struct tree_node *n, void *arg)
{
	(void)n;
	(*(size_t *)arg)++;
	return 0;
}

static int find_cb(struct tree_node *n, void *arg)
{
	return strcmp(n->name, (const char *)arg) == 0 ? 7 : 0;
}

static void test_ids_stable(void **state)
{
	struct profile *p = sample_profile();
	struct tree *a = tree_build(p, NULL), *b;
	struct tree_node *n, *m;
	const char *path[16];
	size_t count = 0;

	(void)state;
	/* rebuild after more samples arrive in a different order */
	ADD(p, 0, 300, "new", 4, "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_futex");
	b = tree_build(p, NULL);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(a->root->id, b->root->id);
	assert_int_equal(a->root->id, tree_id(0, "all"));
	n = tree_child(a, tree_child(a, a->root, "mm"), "asm_exc_page_fault");
	m = tree_find_id(b, n->id);
	assert_non_null(m);
	assert_string_equal(m->name, "asm_exc_page_fault");
	assert_string_equal(m->parent->name, "mm");
	assert_int_equal(n->id, tree_id(tree_id(tree_id(0, "all"), "mm"), "asm_exc_page_fault"));
	/* every node of a is found in b by id, same name */
	tree_walk(a->root, count_cb, &count);
	assert_int_equal(count, a->nnodes);
	assert_true(b->nnodes > a->nnodes);
	assert_ptr_equal(tree_find_id(a, n->id), n);
	assert_null(tree_find_id(a, 12345));
	/* walk stops and returns the callback's value */
	assert_int_equal(tree_walk(a->root, find_cb, (void *)"vfs_read"), 7);
	assert_int_equal(tree_walk(a->root, find_cb, (void *)"zzz"), 0);
	/* path */
	n = tree_child(a, n, "exc_page_fault");
	assert_int_equal(tree_path(n, path, 16), 3);
	assert_string_equal(path[0], "mm");
	assert_string_equal(path[1], "asm_exc_page_fault");
	assert_string_equal(path[2], "exc_page_fault");
	assert_int_equal(tree_path(a->root, path, 16), 0);
	tree_free(a);
	tree_free(b);
	tree_free(NULL);
	profile_free(p);
}

static void test_sort(void **state)
{
	struct profile *p = sample_profile();
	struct tree *t = tree_build(p, NULL);
	struct tree_node *r;

	(void)state;
	r = t->root;
	/* insertion order first: mm, fs, idle */
	assert_int_equal(r->nchild, 3);
	assert_string_equal(r->child[0]->name, "mm");
	tree_sort(t, TREE_SORT_NAME);
	assert_string_equal(r->child[0]->name, "fs");
	assert_string_equal(r->child[1]->name, "idle");
	assert_string_equal(r->child[2]->name, "mm");
	tree_sort(t, TREE_SORT_TOTAL);
	assert_string_equal(r->child[0]->name, "mm");     /* 115 */
	assert_string_equal(r->child[1]->name, "idle");   /* 80 */
	assert_string_equal(r->child[2]->name, "fs");     /* 22 */
	/* by |delta|, total as tie-break */
	tree_child(t, r, "fs")->stat.delta = -50;
	tree_child(t, r, "mm")->stat.delta = 10;
	tree_child(t, r, "idle")->stat.delta = 10;
	tree_sort(t, TREE_SORT_DELTA);
	assert_string_equal(r->child[0]->name, "fs");
	assert_string_equal(r->child[1]->name, "mm");
	assert_string_equal(r->child[2]->name, "idle");
	/* lookups still work after sorting */
	assert_non_null(tree_child(t, r, "idle"));
	tree_free(t);
	profile_free(p);
}

static void test_by_process_and_filter(void **state)
{
	struct profile *p = sample_profile();
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	const uint32_t only[] = { 200, 999 };
	struct tree *t;
	struct tree_node *pr, *n;

	(void)state;
	/* a process whose name holds a dot */
	ADD(p, 1, 300, "python3.11", 1, "do_idle");
	t = tree_build(p, &o);
	assert_non_null(t);
	pr = tree_child(t, t->root, "thp [100]");
	assert_non_null(pr);
	assert_int_equal(pr->kind, TREE_PROCESS);
	assert_int_equal(pr->tgid, 100);
	assert_int_equal(pr->total[COND_LOAD], 115);
	n = tree_child(t, pr, "mm");
	assert_non_null(n);
	assert_int_equal(n->kind, TREE_SUBSYS);
	assert_non_null(tree_child(t, n, "asm_exc_page_fault"));
	assert_non_null(tree_child(t, t->root, "cat [200]"));
	/* a '.' in a process name is no compiler suffix */
	assert_non_null(tree_child(t, t->root, "python3.11 [300]"));
	assert_non_null(tree_child(t, t->root, "unknown"));
	assert_null(tree_child(t, t->root, "mm"));
	tree_free(t);

	o.group = TREE_BY_SUBSYS;
	o.only_tgids = only;
	o.nonly = 2;
	t = tree_build(p, &o);
	assert_non_null(t);
	assert_int_equal(t->root->nchild, 1);
	assert_string_equal(t->root->child[0]->name, "fs");
	assert_int_equal(t->root->total[COND_REF], 10);
	assert_int_equal(t->root->total[COND_LOAD], 12);
	tree_free(t);
	profile_free(p);
}

/* By process, a command of several processes gets a TREE_COMMAND level
 * ("cc1", nproc 3) above its processes, summing them (counts per condition
 * and per window, and so every calibrated number); one process alone has
 * none; a name also seen without a tgid is not grouped; process nodes carry
 * the profile's identity. */
static void test_command_groups(void **state)
{
	struct profile *p = sample_profile();
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	struct profile_ident id = { .tgid = 101, .comm = "cc1", .cmdline = "cc1 -quiet a.c",
				    .exe = "/usr/lib/gcc/cc1", .unit = "make.service" };
	struct calib_opts co;
	struct tree *t;
	struct tree_node *g, *c;
	double rate = 0, delta = 0;
	uint64_t load = 0;

	(void)state;
	for (uint32_t pid = 101; pid <= 103; pid++)
		for (int w = 0; w < 4; w++)
			ADD(p, w, pid, "cc1", (w % 2 ? 50 : 5) + pid - 100 + w, PF);
	ADD(p, 1, 0, "kthr", 3, "do_idle");
	ADD(p, 1, 400, "kthr", 3, "do_idle");
	ADD(p, 3, 401, "kthr", 3, "do_idle");
	assert_int_equal(profile_ident_set(p, &id), 0);
	t = tree_build(p, &o);
	assert_non_null(t);
	g = tree_child(t, t->root, "cc1");
	assert_non_null(g);
	assert_int_equal(g->kind, TREE_COMMAND);
	assert_int_equal(g->nproc, 3);
	assert_int_equal(g->nchild, 3);
	assert_int_equal(g->id, tree_id(t->root->id, "cc1"));
	for (unsigned i = 0; i < g->nchild; i++) {
		c = g->child[i];
		assert_int_equal(c->kind, TREE_PROCESS);
		load += c->total[COND_LOAD];
	}
	assert_int_equal(g->total[COND_LOAD], load);
	for (unsigned w = 0; w < 4; w++) {
		uint64_t sum = 0;

		for (unsigned i = 0; i < g->nchild; i++)
			sum += g->child[i]->win_total[w];
		assert_int_equal(g->win_total[w], sum);
	}
	/* the group's list says who is in it */
	assert_non_null(g->procs);
	c = tree_child(t, g, "cc1 [101]");
	assert_non_null(c);
	assert_non_null(c->ident);
	assert_string_equal(c->ident->cmdline, "cc1 -quiet a.c");
	assert_string_equal(c->ident->unit, "make.service");
	assert_null(tree_child(t, g, "cc1 [102]")->ident);
	/* one process: no group */
	assert_non_null(tree_child(t, t->root, "thp [100]"));
	assert_null(tree_child(t, t->root, "thp"));
	/* kthr also comes without a tgid: its processes stay at the top */
	assert_non_null(tree_child(t, t->root, "kthr [400]"));
	assert_non_null(tree_child(t, t->root, "kthr"));
	assert_int_equal(tree_child(t, t->root, "kthr")->kind, TREE_PROCESS);
	/* calibrated, the group's rates and delta are its processes' summed */
	calib_opts_default(&co);
	assert_int_equal(calib_run(t, &co), 0);
	for (unsigned i = 0; i < g->nchild; i++) {
		rate += g->child[i]->stat.rate[COND_LOAD];
		delta += g->child[i]->stat.delta;
	}
	assert_true(g->stat.rate[COND_LOAD] > 0);
	assert_true(fabs(g->stat.rate[COND_LOAD] - rate) < 1e-9);
	assert_true(fabs(g->stat.delta - delta) < 1e-9);
	assert_true(g->stat.significant);
	tree_free(t);
	profile_free(p);
}

/* Stacks marked "[blocked]" / "[runnable]" group under TREE_TIME nodes
 * above the subsystems; unmarked stacks go under "on-cpu"; the marker is
 * not a frame; the parts add up at the process. */
static void test_time_level(void **state)
{
	struct profile *p = sample_profile();
	struct tree_opts o = { .group = TREE_BY_PROCESS };
	struct tree_node *pr, *on, *bl, *ru, *n;
	struct tree *t;

	(void)state;
	ADD(p, 1, 100, "thp", 30, "[blocked]", PF, "__handle_mm_fault", "do_fault",
	    "filemap_fault", "folio_wait_bit", "[woken by softirq BLOCK]");
	ADD(p, 3, 100, "thp", 20, "[blocked]", PF, "__handle_mm_fault", "do_fault",
	    "filemap_fault", "folio_wait_bit", "[still blocked at a read]");
	ADD(p, 1, 100, "thp", 4, "[runnable]", "exit_to_user_mode_loop", "schedule",
	    "[ran instead: aggressor (tgid 7)]");
	ADD(p, 0, 100, "thp", 6, "[on-cpu]", "[user space]");
	t = tree_build(p, &o);
	assert_non_null(t);
	pr = tree_child(t, t->root, "thp [100]");
	assert_non_null(pr);
	assert_int_equal(pr->nchild, 3);
	on = tree_child(t, pr, "on-cpu");
	bl = tree_child(t, pr, "blocked");
	ru = tree_child(t, pr, "runnable");
	assert_non_null(on);
	assert_non_null(bl);
	assert_non_null(ru);
	assert_int_equal(on->kind, TREE_TIME);
	assert_int_equal(bl->kind, TREE_TIME);
	assert_int_equal(bl->total[COND_LOAD], 50);
	assert_int_equal(ru->total[COND_LOAD], 4);
	assert_int_equal(on->total[COND_LOAD], 115);
	assert_int_equal(on->total[COND_REF], 6);
	assert_int_equal(pr->total[COND_LOAD], 115 + 50 + 4);
	assert_null(tree_child(t, pr, "mm"));
	n = tree_child(t, bl, "mm");
	assert_non_null(n);
	assert_int_equal(n->kind, TREE_SUBSYS);
	n = tree_child(t, n, "asm_exc_page_fault");
	assert_non_null(n);
	assert_null(tree_child(t, tree_child(t, bl, "mm"), "[blocked]"));
	n = tree_child(t, tree_child(t, on, "mm"), "asm_exc_page_fault");
	assert_non_null(n);
	assert_int_equal(n->total[COND_LOAD], 115);
	tree_free(t);
	profile_free(p);
}

static void test_empty_and_add(void **state)
{
	struct profile *p = profile_new();
	struct tree *t = tree_build(p, NULL);
	struct tree_node *e, *e2;

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->nnodes, 1);
	assert_int_equal(t->root->nchild, 0);
	assert_int_equal(tree_node_sum(t->root), 0);
	e = tree_node_add(t, t->root, "tp:sched_switch", TREE_EVENT);
	assert_non_null(e);
	e2 = tree_node_add(t, t->root, "tp:sched_switch", TREE_EVENT);
	assert_ptr_equal(e, e2);
	assert_ptr_equal(tree_child(t, t->root, "tp:sched_switch"), e);
	assert_ptr_equal(tree_find_id(t, e->id), e);
	assert_int_equal(t->nnodes, 2);
	tree_free(t);
	profile_free(p);
}

struct inv_arg {
	unsigned nwin;
	size_t bad;
};

/* total == self + children's totals, per condition and per window */
static int invariant_cb(struct tree_node *n, void *arg)
{
	struct inv_arg *a = arg;
	uint64_t sum[COND_N] = { n->self[0], n->self[1] };

	for (unsigned i = 0; i < n->nchild; i++) {
		sum[0] += n->child[i]->total[0];
		sum[1] += n->child[i]->total[1];
		if (n->child[i]->parent != n || n->child[i]->depth != n->depth + 1)
			a->bad++;
	}
	if (sum[0] != n->total[0] || sum[1] != n->total[1])
		a->bad++;
	for (unsigned w = 0; w < a->nwin; w++) {
		uint64_t ws = 0;

		for (unsigned i = 0; i < n->nchild; i++)
			ws += n->child[i]->win_total[w];
		if (n->nchild && ws > n->win_total[w])
			a->bad++;
	}
	return 0;
}

/* Random stacks with shared prefixes, suffix variants and recursion: the
 * prefix-reusing merge must agree with the counts. */
static void test_random_invariants(void **state)
{
	static const char *const vocab[] = {
		"entry_SYSCALL_64", "do_syscall_64", "ksys_read", "vfs_read",
		"asm_exc_page_fault", "exc_page_fault", "handle_mm_fault",
		"handle_mm_fault.isra.0", "schedule", "__schedule", "f", "g", "g.cold",
		"asm_sysvec_apic_timer_interrupt", "do_idle", "_raw_spin_lock",
	};
	const unsigned nv = sizeof(vocab) / sizeof(vocab[0]);
	struct profile *p = profile_new();
	uint64_t seed = 42, expect[COND_N] = { 0, 0 };
	struct inv_arg a = { .nwin = 6 };
	struct tree *t;

	(void)state;
	for (int w = 0; w < 6; w++)
		profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w);
	for (int i = 0; i < 3000; i++) {
		const char *fr[12];
		unsigned n, w;
		uint64_t c;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		n = (unsigned)(seed >> 33) % 12;
		w = (unsigned)(seed >> 40) % 6;
		c = 1 + (seed >> 50) % 5;
		for (unsigned k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			fr[k] = vocab[(k < 3 ? (seed >> 62) : (seed >> 35)) % nv];
		}
		assert_int_equal(profile_add(p, w, fr, n, (seed >> 20) % 3, "c", c), 0);
		expect[w % 2] += c;
	}
	for (int g = 0; g < 2; g++) {
		struct tree_opts o = { .group = g ? TREE_BY_PROCESS : TREE_BY_SUBSYS };

		t = tree_build(p, &o);
		assert_non_null(t);
		assert_int_equal(t->root->total[COND_REF], expect[COND_REF]);
		assert_int_equal(t->root->total[COND_LOAD], expect[COND_LOAD]);
		a.bad = 0;
		tree_walk(t->root, invariant_cb, &a);
		assert_int_equal(a.bad, 0);
		/* every stack is found by names along its own path, and its
		 * leaf holds at least its own self count */
		for (size_t i = 0; i < p->nstacks; i++) {
			const struct profile_stack *st = &p->stacks[i];
			struct tree_node *n = t->root;
			char pn[64];

			if (g) {
				snprintf(pn, sizeof(pn), st->tgid ? "c [%u]" : "c", st->tgid);
				n = tree_child(t, n, pn);
				assert_non_null(n);
			}
			n = tree_child(t, n, subsys_name(subsys_classify(st->frames, st->nframes)));
			assert_non_null(n);
			for (uint32_t f = 0; f < st->nframes; f++) {
				n = tree_child(t, n, st->frames[f]);
				assert_non_null(n);
			}
			assert_true(n->self[0] + n->self[1] >= st->total);
		}
		tree_free(t);
	}
	profile_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_basics),
		cmocka_unit_test(test_profile_window_growth),
		cmocka_unit_test(test_merge_counts),
		cmocka_unit_test(test_ids_stable),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_by_process_and_filter),
		cmocka_unit_test(test_command_groups),
		cmocka_unit_test(test_time_level),
		cmocka_unit_test(test_empty_and_add),
		cmocka_unit_test(test_random_invariants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
