/* --decay (issue 24 item 11): the live tree's counts halve every half-life,
 * what a node gained since the last refresh added in full; the profile (what
 * the session records) keeps every sample; a reset starts again; a regroup
 * scales the new ids as the root was. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "data/profile.h"
#include "data/tree.h"
#include "view_decay.h"

#define ADD(p, w, tgid, comm, count, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	assert_int_equal(profile_add(p, w, fr_, sizeof(fr_) / sizeof(fr_[0]), \
				     tgid, comm, count), 0); \
} while (0)

struct find {
	const char *name;
	struct tree_node *n;
};

static int find_cb(struct tree_node *n, void *arg)
{
	struct find *f = arg;

	if (n->name && !strcmp(n->name, f->name)) {
		f->n = n;
		return 1;
	}
	return 0;
}

static uint64_t count_of(struct tree *t, const char *name)
{
	struct find f = { name, NULL };

	tree_walk(t->root, find_cb, &f);
	assert_non_null(f.n);
	return f.n->total[COND_LOAD];
}

static uint64_t profile_total(const struct profile *p)
{
	uint64_t s = 0;

	for (size_t i = 0; i < p->nstacks; i++)
		s += p->stacks[i].total;
	return s;
}

static struct tree *build(const struct profile *p, enum tree_group g)
{
	struct tree_opts o = { .group = g };
	struct tree *t = tree_build(p, &o);

	assert_non_null(t);
	return t;
}

static void test_halves(void **state)
{
	struct profile *p = profile_new();
	struct view_decay d;
	struct tree *t;

	(void)state;
	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	ADD(p, 0, 10, "a", 1000, "entry_SYSCALL_64", "do_syscall_64", "old_path");
	view_decay_init(&d, 10);
	t = build(p, TREE_BY_SUBSYS);
	assert_int_equal(view_decay_apply(&d, t, 100), 0);
	assert_int_equal(count_of(t, "old_path"), 1000);     /* first sight: as counted */
	tree_free(t);

	/* one half-life later: the old path halves, a new one counts in full */
	ADD(p, 0, 10, "a", 100, "entry_SYSCALL_64", "do_syscall_64", "new_path");
	t = build(p, TREE_BY_SUBSYS);
	assert_int_equal(view_decay_apply(&d, t, 110), 0);
	assert_int_equal(count_of(t, "old_path"), 500);
	assert_int_equal(count_of(t, "new_path"), 100);
	assert_int_equal(count_of(t, "do_syscall_64"), 600);
	assert_int_equal(tree_node_sum(t->root), 600);
	/* the view only: the profile (the session's record) keeps all of it */
	assert_int_equal(profile_total(p), 1100);
	tree_free(t);

	/* two more half-lives, and 40 more samples on the old path */
	ADD(p, 0, 10, "a", 40, "entry_SYSCALL_64", "do_syscall_64", "old_path");
	t = build(p, TREE_BY_SUBSYS);
	assert_int_equal(view_decay_apply(&d, t, 130), 0);
	assert_int_equal(count_of(t, "old_path"), 125 + 40);
	assert_int_equal(count_of(t, "new_path"), 25);
	tree_free(t);

	/* by process: every id is new, and shows as the root did (190 of 1140) */
	view_decay_regroup(&d);
	t = build(p, TREE_BY_PROCESS);
	assert_int_equal(view_decay_apply(&d, t, 130), 0);
	assert_int_equal(tree_node_sum(t->root), 190);
	assert_int_equal(count_of(t, "old_path"), llround(1040.0 * 190 / 1140));
	tree_free(t);

	/* key 0: what is shown starts again from the counts */
	view_decay_reset(&d);
	assert_true(d.half_life_s == 10);
	t = build(p, TREE_BY_PROCESS);
	assert_int_equal(view_decay_apply(&d, t, 200), 0);
	assert_int_equal(tree_node_sum(t->root), 1140);
	tree_free(t);
	view_decay_free(&d);
	profile_free(p);
}

/* The source forgot its stacks (a reset closed the window): a count that
 * fell starts again from what it now has, never below zero. */
static void test_counts_fall(void **state)
{
	struct profile *p = profile_new(), *q = profile_new();
	struct view_decay d;
	struct tree *t;

	(void)state;
	assert_non_null(p);
	assert_non_null(q);
	assert_int_equal(profile_window_begin(p, COND_LOAD, 0), 0);
	assert_int_equal(profile_window_begin(q, COND_LOAD, 0), 0);
	ADD(p, 0, 10, "a", 1000, "entry_SYSCALL_64", "do_syscall_64", "path");
	ADD(q, 0, 10, "a", 30, "entry_SYSCALL_64", "do_syscall_64", "path");
	view_decay_init(&d, 5);
	t = build(p, TREE_BY_SUBSYS);
	assert_int_equal(view_decay_apply(&d, t, 1), 0);
	tree_free(t);
	t = build(q, TREE_BY_SUBSYS);
	assert_int_equal(view_decay_apply(&d, t, 2), 0);
	assert_int_equal(count_of(t, "path"), 30);
	tree_free(t);
	view_decay_free(&d);
	profile_free(p);
	profile_free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_halves),
		cmocka_unit_test(test_counts_fall),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
