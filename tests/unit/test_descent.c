/* Tree-guided descent on synthetic profiles: a dominant child through a
 * skid frame, a spread delta, decreases only, nothing, a noisy neighbor, a
 * self-dominated node, a skid unlock leaf, a focus; and the heuristic agent
 * object (turn, tell).  Issue 11: a rising child under a falling parent, a
 * falling root with one rising path (a victim), a spread over three
 * branches, a displaced background, a time level, the subsystem of the
 * deepest frame. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/agent.h"
#include "agent/agent_heuristic.h"
#include "agent/agent_llm.h"
#include "analysis/analysis.h"
#include "analysis/calib.h"
#include "analysis/descent.h"
#include "data/profile.h"
#include "data/step.h"
#include "data/tree.h"

#define NPAIR 3

/* Windows R L R L R L, one second each. */
static struct profile *prof(void)
{
	struct profile *p = profile_new();

	assert_non_null(p);
	for (unsigned w = 0; w < 2 * NPAIR; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), (int)w);
		profile_window_end(p, w, 1.0);
	}
	return p;
}

static void add(struct profile *p, const char *const *fr, unsigned nf,
		const uint64_t ref[NPAIR], const uint64_t load[NPAIR])
{
	for (unsigned i = 0; i < NPAIR; i++) {
		if (ref[i])
			assert_int_equal(profile_add(p, 2 * i, fr, nf, 1, "x", ref[i]), 0);
		if (load[i])
			assert_int_equal(profile_add(p, 2 * i + 1, fr, nf, 1, "x", load[i]), 0);
	}
}

static void addp(struct profile *p, const char *const *fr, unsigned nf,
		 const uint64_t ref[NPAIR], const uint64_t load[NPAIR], uint32_t tgid,
		 const char *comm)
{
	for (unsigned i = 0; i < NPAIR; i++) {
		if (ref[i])
			assert_int_equal(profile_add(p, 2 * i, fr, nf, tgid, comm, ref[i]), 0);
		if (load[i])
			assert_int_equal(profile_add(p, 2 * i + 1, fr, nf, tgid, comm, load[i]), 0);
	}
}

/* the same for process tgid (comm) */
#define ADDP(p, tgid, comm, ref, load, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	static const uint64_t r_[] = ref, l_[] = load; \
	addp(p, fr_, sizeof(fr_) / sizeof(fr_[0]), r_, l_, tgid, comm); \
} while (0)

#define ADD(p, ref, load, ...) do { \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	static const uint64_t r_[] = ref, l_[] = load; \
	add(p, fr_, sizeof(fr_) / sizeof(fr_[0]), r_, l_); \
} while (0)
#define V(a, b, c) { a, b, c }
#define ZERO V(0, 0, 0)

#define PF "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", \
	"handle_mm_fault", "__handle_mm_fault"
#define SCHED "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_sched_yield", \
	"do_sched_yield", "schedule", "__schedule"
#define PIPE "entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write", \
	"anon_pipe_write", "copy_page_from_iter"
#define READ "entry_SYSCALL_64", "do_syscall_64", "ksys_read", "vfs_read", \
	"filemap_read", "copy_page_to_iter"

static struct tree *calibrate(struct profile *p)
{
	struct calib_opts o;
	struct tree *t = tree_build(p, NULL);

	assert_non_null(t);
	profile_free(p);
	calib_opts_default(&o);
	assert_int_equal(calib_run(t, &o), 0);
	return t;
}

static struct tree_node *node(struct tree *t, const char *const *path, unsigned n)
{
	struct tree_node *x = t->root;

	for (unsigned i = 0; i < n && x; i++)
		x = tree_child(t, x, path[i]);
	assert_non_null(x);
	return x;
}

#define NODE(t, ...) ({ static const char *const p_[] = { __VA_ARGS__ }; \
	node(t, p_, sizeof(p_) / sizeof(p_[0])); })

static void assert_path(const struct verdict *v, const char *const *want, unsigned n)
{
	if (v->npath != n) {
		for (unsigned i = 0; i < v->npath; i++)
			print_message("  path[%u] %s\n", i, v->path[i]);
		fail_msg("path has %u frames, want %u", v->npath, n);
	}
	for (unsigned i = 0; i < n; i++)
		assert_string_equal(v->path[i], want[i]);
	assert_string_equal(v->leaf, want[n - 1]);
}

#define PATH(v, ...) do { static const char *const w_[] = { __VA_ARGS__ }; \
	assert_path(v, w_, sizeof(w_) / sizeof(w_[0])); } while (0)

static int line_has(const struct agent_reply *r, const char *s)
{
	for (unsigned i = 0; i < r->nlines; i++)
		if (strstr(r->lines[i], s))
			return 1;
	return 0;
}

static int note_has(const struct verdict *v, const char *s)
{
	for (unsigned i = 0; i < v->nnotes; i++)
		if (strstr(v->notes[i], s))
			return 1;
	return 0;
}

static int count_flag(struct tree_node *n, void *arg)
{
	if (n->flags & TREE_F_VERDICT)
		++*(unsigned *)arg;
	return 0;
}

static unsigned nflagged(struct tree *t)
{
	unsigned k = 0;

	tree_walk(t->root, count_flag, &k);
	return k;
}

static void dump(const struct agent_reply *r)
{
	for (unsigned i = 0; i < r->nlines; i++)
		print_message("  | %s\n", r->lines[i]);
}

/* The fault path dominates; the hottest exact stack is the two-frame skid
 * stack asm_exc_page_fault;exc_page_fault, which the descent looks past. */
static void test_dominant_child(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;
	struct tree_node *leaf;

	(void)state;
	ADD(p, V(50, 52, 48), V(51, 49, 50), SCHED);
	ADD(p, V(1, 0, 1), V(200, 210, 190), PF, "do_anonymous_page", "alloc_anon_folio",
	    "vma_alloc_folio", "clear_page_erms");
	ADD(p, ZERO, V(20, 25, 22), PF, "do_anonymous_page", "folio_add_lru");
	ADD(p, V(1, 1, 0), V(300, 320, 310), "asm_exc_page_fault", "exc_page_fault");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.subsystem, "mm");
	PATH(&v, "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
	     "handle_mm_fault", "__handle_mm_fault", "do_anonymous_page",
	     "alloc_anon_folio", "vma_alloc_folio", "clear_page_erms");
	/* one line per decision, the skid said out loud */
	assert_true(line_has(&r, "mm: +531.0/s, 100% of the increases at the root (+531.0/s; net +531.0/s), q="));
	assert_true(line_has(&r, "exc_page_fault: self"));
	assert_true(line_has(&r, "sampling skid"));
	assert_true(line_has(&r, "do_anonymous_page -> alloc_anon_folio: 90%"));
	assert_true(line_has(&r, "clear_page_erms: a leaf (its own time, +199.3/s) -> stop here"));
	assert_true(note_has(&v, "exc_page_fault self time"));
	/* evidence and confidence from the leaf */
	leaf = NODE(t, "mm", PF, "do_anonymous_page", "alloc_anon_folio", "vma_alloc_folio",
		    "clear_page_erms");
	assert_true(v.delta == leaf->stat.delta && v.q == leaf->stat.q);
	assert_int_equal(v.pairs, 3);
	assert_int_equal(v.pairs_agree, 3);
	assert_true(fabs(v.share_of_root - leaf->stat.delta / NODE(t, "mm")->stat.delta) < 1e-12);
	/* the skid self time of exc_page_fault is left out of the share */
	{
		struct tree_node *epf = NODE(t, "mm", "asm_exc_page_fault", "exc_page_fault");
		double skid = epf->self[COND_LOAD] / 3.0 - epf->self[COND_REF] / 3.0;

		assert_true(fabs(v.confidence - (1 - v.q) * leaf->stat.delta /
				 (NODE(t, "mm")->stat.delta - skid)) < 1e-12);
	}
	assert_true(v.share_of_root > 0.3 && v.share_of_root < 0.45);
	assert_true(v.confidence > 0.85 && v.confidence < 0.95);
	assert_non_null(strstr(v.summary, "clear_page_erms"));
	/* marks: root, mm and the 9 frames */
	assert_true(leaf->flags & TREE_F_VERDICT);
	assert_true(t->root->flags & TREE_F_VERDICT);
	assert_true(NODE(t, "mm")->flags & TREE_F_VERDICT);
	assert_false(NODE(t, "mm", PF, "do_anonymous_page", "folio_add_lru")->flags & TREE_F_VERDICT);
	assert_false(NODE(t, "sched")->flags & TREE_F_VERDICT);
	assert_int_equal(nflagged(t), 11);
	/* a second run clears the old marks first */
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
	assert_int_equal(nflagged(t), 11);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_spread(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(1, 1, 0), V(100, 98, 102), PF, "do_anonymous_page", "clear_page_erms");
	ADD(p, V(0, 1, 1), V(90, 91, 89), PF, "do_anonymous_page", "folio_add_lru");
	ADD(p, V(1, 0, 0), V(80, 82, 78), PF, "do_anonymous_page", "set_pte_at");
	ADD(p, V(0, 0, 1), V(70, 69, 71), PF, "do_anonymous_page", "__mem_cgroup_charge");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	PATH(&v, "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
	     "handle_mm_fault", "__handle_mm_fault", "do_anonymous_page");
	assert_true(line_has(&r, "do_anonymous_page: children spread (clear_page_erms 29%, "
			     "folio_add_lru 26%, set_pte_at 24%, __mem_cgroup_charge 21%) -> stop here"));
	assert_true(NODE(t, "mm", PF, "do_anonymous_page")->flags & TREE_F_VERDICT);
	assert_false(NODE(t, "mm", PF, "do_anonymous_page", "clear_page_erms")->flags & TREE_F_VERDICT);
	/* with a lower bar the largest child explains enough */
	assert_int_equal(agent_descend(t, NULL, 0.25, &v, NULL), 0);
	assert_string_equal(v.leaf, "clear_page_erms");
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_decreases_only(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(300, 310, 290), V(100, 90, 110), SCHED);
	ADD(p, V(40, 42, 38), V(41, 39, 40), READ);
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_false(v.found);
	assert_int_equal(v.npath, 0);
	assert_null(v.leaf);
	assert_non_null(strstr(v.summary, "no bottleneck found"));
	assert_non_null(strstr(v.summary, "-200.0/s"));
	assert_true(v.delta == t->root->stat.delta);
	assert_true(note_has(&v, "significant decrease: sched -200.0/s (-67%)"));
	assert_int_equal(v.nnotes, 1); /* the top of the decreasing chain only */
	assert_int_equal(nflagged(t), 0);
	assert_true(r.nlines >= 1);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_nothing(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(50, 52, 48), V(50, 49, 51), SCHED);
	ADD(p, V(500, 510, 490), V(505, 495, 500), PIPE);
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	assert_false(v.found);
	assert_int_equal(v.nnotes, 0);
	assert_non_null(strstr(v.summary, "no bottleneck found"));
	assert_non_null(strstr(v.summary, "no subsystem has a significant increase"));
	assert_int_equal(nflagged(t), 0);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* issue 24 item 7: a reference busier than the loaded windows (saved on a
 * busy machine, then -p of a light process): idle rises, and idle is no
 * verdict; what else moved is too small to be one */
static void test_idle_rise(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(500, 510, 490), V(40, 42, 38), PIPE);
	ADD(p, V(50, 52, 48), V(51, 49, 50), SCHED);
	ADD(p, V(400, 405, 395), V(880, 878, 882), "secondary_startup_64", "cpu_startup_entry",
	    "do_idle", "default_idle_call", "pv_native_safe_halt");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_false(v.found && !strcmp(v.subsystem, "idle"));
	assert_null(v.leaf && strstr(v.leaf, "halt") ? v.leaf : NULL);
	assert_false(NODE(t, "idle")->flags & TREE_F_VERDICT);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A busy neighbor runs in both conditions; the load adds a smaller path. */
static void test_noisy_neighbor(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;
	const struct profile_stack *hot = NULL;

	(void)state;
	ADD(p, V(500, 510, 490), V(505, 495, 500), PIPE);
	ADD(p, V(50, 52, 48), V(51, 49, 50), SCHED);
	ADD(p, ZERO, V(80, 85, 75), PF, "do_anonymous_page", "clear_page_erms");
	/* the CPU the load takes is idle time in the reference */
	ADD(p, V(900, 905, 895), V(820, 818, 822), "secondary_startup_64", "cpu_startup_entry",
	    "do_idle", "default_idle_call");
	/* the naive answer: the hottest non-idle stack in the loaded windows */
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *s = &p->stacks[i];
		uint64_t l = s->win[1] + s->win[3] + s->win[5];

		if (!strcmp(s->frames[s->nframes - 1], "default_idle_call"))
			continue;
		if (!hot || l > hot->win[1] + hot->win[3] + hot->win[5])
			hot = s;
	}
	assert_string_equal(hot->frames[hot->nframes - 1], "copy_page_from_iter");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.subsystem, "mm");
	PATH(&v, "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault",
	     "handle_mm_fault", "__handle_mm_fault", "do_anonymous_page", "clear_page_erms");
	assert_false(NODE(t, "fs")->flags & TREE_F_VERDICT);
	assert_false(NODE(t, "fs", PIPE)->stat.significant);
	/* the root's net delta is ~0 (idle fell as much as mm rose); the share
	 * is of the increases */
	assert_true(fabs(t->root->stat.delta) < 5);
	assert_true(v.share_of_root > 0.95);
	assert_true(v.confidence > 0.95);
	assert_true(line_has(&r, "mm: +80.0/s, 100% of the increases at the root (+80.0/s; net"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_self_dominated(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(2, 1, 1), V(300, 310, 290), PF, "do_anonymous_page");
	ADD(p, V(0, 1, 0), V(50, 40, 45), PF, "do_anonymous_page", "clear_page_erms");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "do_anonymous_page");
	assert_true(line_has(&r, "do_anonymous_page: self +"));
	assert_true(line_has(&r, "the function itself is the hot spot, stop here"));
	assert_false(NODE(t, "mm", PF, "do_anonymous_page", "clear_page_erms")->flags & TREE_F_VERDICT);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* The wakeup's time with interrupts off lands on the unlock: stop at the
 * caller, do not name _raw_spin_unlock_irqrestore. */
static void test_skid_unlock(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(2, 1, 2), V(200, 190, 210), "entry_SYSCALL_64", "do_syscall_64",
	    "__x64_sys_futex", "do_futex", "futex_wake", "wake_up_q", "try_to_wake_up",
	    "_raw_spin_unlock_irqrestore");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "try_to_wake_up");
	assert_true(line_has(&r, "sampling skid"));
	assert_true(note_has(&v, "_raw_spin_unlock_irqrestore"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A paravirtualised kernel (PVM here, Xen elsewhere) turns interrupts back
 * on by a call, so the skid that a native kernel leaves on exc_page_fault
 * and on the unlock lands one or two frames below them:
 * exc_page_fault > __raw_callee_save_pvm_irq_enable > pvm_irq_enable.  It is
 * the caller's own time: the descent looks past it to the fault path and
 * stops at the waker, never naming an irq-enable frame (nor converging on
 * one reached from many callers). */
static void test_paravirt_irq_on(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(50, 52, 48), V(51, 49, 50), SCHED);
	ADD(p, V(1, 0, 1), V(60, 70, 65), PF, "do_anonymous_page", "alloc_anon_folio",
	    "vma_alloc_folio", "clear_page_erms");
	ADD(p, ZERO, V(8, 9, 7), PF, "do_anonymous_page", "folio_batch_move_lru",
	    "_raw_spin_unlock_irqrestore", "__raw_callee_save_pvm_irq_enable", "pvm_irq_enable");
	ADD(p, V(1, 1, 0), V(300, 320, 310), "asm_exc_page_fault", "exc_page_fault",
	    "__raw_callee_save_pvm_irq_enable", "pvm_irq_enable");
	ADD(p, ZERO, V(30, 28, 33), "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_munmap",
	    "flush_tlb_mm_range", "__raw_callee_save_pvm_irq_enable", "pvm_irq_enable");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.subsystem, "mm");
	assert_string_equal(v.leaf, "clear_page_erms");
	assert_true(line_has(&r, "exc_page_fault: self"));
	for (unsigned i = 0; i < v.npath; i++)
		assert_null(strstr(v.path[i], "irq_enable"));
	for (unsigned i = 0; i < v.nbranches; i++)
		for (unsigned j = 0; j < v.branches[i].npath; j++)
			assert_null(strstr(v.branches[i].path[j], "irq_enable"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);

	/* the wakeup's interrupts-off section, as test_skid_unlock, one call
	 * further down on Xen */
	p = prof();
	ADD(p, V(2, 1, 2), V(200, 190, 210), "entry_SYSCALL_64", "do_syscall_64",
	    "__x64_sys_futex", "do_futex", "futex_wake", "wake_up_q", "try_to_wake_up",
	    "_raw_spin_unlock_irqrestore", "xen_irq_enable_direct");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "try_to_wake_up");
	assert_true(line_has(&r, "sampling skid"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_focus(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(1, 1, 1), V(300, 290, 310), PF, "do_anonymous_page", "clear_page_erms");
	ADD(p, V(2, 1, 2), V(100, 105, 95), READ);
	ADD(p, V(50, 52, 48), V(51, 49, 50), SCHED);
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
	assert_string_equal(v.leaf, "clear_page_erms");
	/* the person points at fs */
	assert_int_equal(agent_descend(t, NODE(t, "fs"), 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	/* issue 11: the subsystem of the deepest classified frame, where the
	 * cost lies (filemap_read, the page cache: mm), no longer the first
	 * classified one from the root (vfs_read: fs) */
	assert_string_equal(v.subsystem, "mm");
	PATH(&v, READ);
	assert_false(NODE(t, "mm")->flags & TREE_F_VERDICT);
	assert_true(NODE(t, "fs", READ)->flags & TREE_F_VERDICT);
	assert_true(v.share_of_root < 0.3);
	/* a focus with nothing rising under it */
	assert_int_equal(agent_descend(t, NODE(t, "sched"), 0.5, &v, NULL), 0);
	assert_false(v.found);
	assert_non_null(strstr(v.summary, "no bottleneck found under sched"));
	assert_int_equal(nflagged(t), 0);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

static void test_agent_object(void **state)
{
	struct profile *p = prof();
	struct agent *a = agent_heuristic_new();
	struct agent_reply r = { 0 };
	struct agent_event ev = { .kind = AGENT_EV_SAY };
	struct agent_ctx ctx = { 0 };
	struct tree *t;

	(void)state;
	assert_non_null(a);
	assert_string_equal(a->ops->name, "heuristic");
	ADD(p, V(1, 1, 1), V(300, 290, 310), PF, "do_anonymous_page", "clear_page_erms");
	ADD(p, V(2, 1, 2), V(100, 105, 95), READ);
	t = calibrate(p);
	ctx.tree = t;
	ctx.step_max = 3;

	ev.text = "why";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_TEXT);
	assert_non_null(strstr(r.text, "no decision yet"));
	agent_reply_clear(&r);

	/* the rule table matches the page-fault path: a proposal, with the
	 * interim verdict */
	assert_int_equal(a->ops->turn(a, &ctx, &r), 0);
	dump(&r);
	assert_int_equal(r.kind, AGENT_REPLY_PROPOSAL);
	assert_non_null(r.step);
	assert_int_equal(r.step->kind, STEP_TRACEPOINT_STACKS);
	assert_int_equal(r.step->ntargets, 1);
	assert_string_equal(r.step->targets[0], "exceptions:page_fault_user");
	assert_true(r.step->duration_s > 0);
	assert_non_null(strstr(r.step->rationale, "clear_page_erms"));
	assert_true(r.verdict.found);
	assert_string_equal(r.verdict.leaf, "clear_page_erms");
	assert_string_equal(r.focus->name, "clear_page_erms");
	assert_true(line_has(&r, "rule page_faults"));
	agent_reply_clear(&r);
	/* once proposed, a rule does not propose again: the verdict */
	ctx.step_index = 1;
	assert_int_equal(a->ops->turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_VERDICT);
	assert_null(r.step);
	assert_true(line_has(&r, "proposed already"));
	agent_reply_clear(&r);

	ev.text = "  Why ";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_non_null(strstr(r.text, "mm: +"));
	assert_non_null(strstr(r.text, "\n"));
	agent_reply_clear(&r);

	ev.text = "focus vfs_read";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_non_null(strstr(r.text, "focus on vfs_read"));
	agent_reply_clear(&r);
	assert_int_equal(a->ops->turn(a, &ctx, &r), 0);
	assert_non_null(r.focus);
	assert_string_equal(r.focus->name, "vfs_read");
	assert_string_equal(r.verdict.leaf, "copy_page_to_iter");
	agent_reply_clear(&r);

	/* FOCUS events by node; focus without a name clears it */
	ev.kind = AGENT_EV_FOCUS;
	ev.node = NODE(t, "mm");
	ev.text = NULL;
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	agent_reply_clear(&r);
	assert_int_equal(a->ops->turn(a, &ctx, &r), 0);
	assert_ptr_equal(r.focus, NODE(t, "mm"));
	assert_string_equal(r.verdict.leaf, "clear_page_erms");
	agent_reply_clear(&r);
	ev.kind = AGENT_EV_SAY;
	ev.node = NULL;
	ev.text = "focus";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_non_null(strstr(r.text, "focus cleared"));
	agent_reply_clear(&r);

	ev.text = "stop";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_non_null(strstr(r.text, "stopping"));
	agent_reply_clear(&r);
	assert_int_equal(a->ops->turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_VERDICT);
	assert_string_equal(r.focus->name, "clear_page_erms");
	assert_false(line_has(&r, "rule "));
	agent_reply_clear(&r);

	ev.text = "what is going on with the page cache?";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_non_null(strstr(r.text, "understands"));
	agent_reply_clear(&r);

	ev.kind = AGENT_EV_VETOED;
	ev.text = "no";
	assert_int_equal(a->ops->tell(a, &ev, &r), 0);
	assert_null(r.text);
	agent_reply_clear(&r);

	agent_free(a);
	agent_free(NULL);
	tree_free(t);
}

static enum agent_reply_kind one_turn(struct profile *p, struct agent_reply *r)
{
	struct agent *a = agent_heuristic_new();
	struct agent_ctx ctx = { .step_max = 3 };
	struct tree *t = calibrate(p);

	assert_non_null(a);
	ctx.tree = t;
	assert_int_equal(a->ops->turn(a, &ctx, r), 0);
	dump(r);
	r->focus = NULL; /* the tree goes away */
	agent_free(a);
	tree_free(t);
	return r->kind;
}

/* the rule table picks the step from the frames in the delta */
static void test_rules(void **state)
{
	struct profile *p = prof();
	struct agent_reply r = { 0 };

	(void)state;
	ADD(p, V(1, 0, 1), V(100, 110, 90), PF, "do_anonymous_page", "alloc_anon_folio",
	    "vma_alloc_folio", "__alloc_pages_slowpath", "__alloc_pages_direct_compact",
	    "try_to_compact_pages", "compact_zone");
	assert_int_equal(one_turn(p, &r), AGENT_REPLY_PROPOSAL);
	assert_int_equal(r.step->kind, STEP_TRACEPOINT_LATENCY);
	assert_string_equal(r.step->begin, "compaction:mm_compaction_begin");
	assert_string_equal(r.step->end, "compaction:mm_compaction_end");
	assert_true(line_has(&r, "rule compaction"));
	agent_reply_clear(&r);

	p = prof();
	ADD(p, V(10, 12, 8), V(200, 190, 210), SCHED);
	assert_int_equal(one_turn(p, &r), AGENT_REPLY_PROPOSAL);
	assert_int_equal(r.step->kind, STEP_OFFCPU);
	assert_true(line_has(&r, "rule sched_offcpu"));
	agent_reply_clear(&r);

	/* nothing matches a pipe write: the verdict */
	p = prof();
	ADD(p, V(10, 12, 8), V(200, 190, 210), PIPE);
	assert_int_equal(one_turn(p, &r), AGENT_REPLY_VERDICT);
	assert_true(r.verdict.found);
	assert_null(r.step);
	agent_reply_clear(&r);
}

/* many small increases, none significant alone: the subsystem is the
 * verdict, without a path */
static void test_subsystem_only(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, ZERO, V(1, 1, 1), PF, "do_anonymous_page", "clear_page_erms");
	ADD(p, ZERO, V(1, 1, 1), "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_munmap");
	ADD(p, ZERO, V(1, 1, 1), "kcompactd", "kcompactd_do_work");
	ADD(p, ZERO, V(1, 1, 1), "khugepaged", "khugepaged_scan_mm_slot");
	ADD(p, ZERO, V(1, 1, 1), "kswapd", "balance_pgdat");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(NODE(t, "mm")->stat.significant);
	assert_true(v.found);
	assert_string_equal(v.subsystem, "mm");
	assert_int_equal(v.npath, 0);
	assert_string_equal(v.leaf, "mm");
	assert_true(line_has(&r, "mm: no child rises significantly"));
	assert_non_null(strstr(v.summary, "mm: (no single path below it): +5.0/s"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}


/* A load displaces a busy background under the same syscall parent: the
 * background's getppid path falls, the load's sibling path rises, the
 * parent's net delta is negative.  The rise is found under it, and the
 * background's fall is displaced work, not the verdict. */
#define SYS "entry_SYSCALL_64", "do_syscall_64"
static void test_rise_under_falling_parent(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;
	struct tree_node *sys;

	(void)state;
	profile_diag_add(&p->diag, 2); /* the load is process 2 */
	ADDP(p, 1, "bg", V(900, 905, 895), V(500, 510, 490), SYS, "__x64_sys_getppid");
	ADDP(p, 2, "load", ZERO, V(300, 310, 290), SYS, "__x64_sys_sched_yield",
	     "do_sched_yield", "schedule", "__schedule", "pick_next_task_fair");
	t = calibrate(p);
	sys = NODE(t, "sched", SYS);
	(void)sys;
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.subsystem, "sched");
	assert_string_equal(v.time, "on-cpu");
	assert_string_equal(v.leaf, "pick_next_task_fair");
	assert_int_equal(v.nbranches, 0);
	/* the getppid stacks classify as syscall, the load's as sched: the
	 * parents differ by subsystem; the displaced fall is named */
	assert_true(v.ndisplaced >= 1);
	assert_string_equal(v.displaced[0].process, "bg [1]");
	assert_string_equal(v.displaced[0].path[v.displaced[0].npath - 1], "__x64_sys_getppid");
	assert_true(v.displaced[0].delta < -350 && v.displaced[0].delta > -450);
	assert_true(line_has(&r, "displaced (reported, not diagnosed): bg [1]"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);

	/* one subsystem, one parent: the background and the load both under
	 * do_syscall_64 > x64_sys_call, net delta of the parent negative */
	p = prof();
	profile_diag_add(&p->diag, 2);
	ADDP(p, 1, "bg", V(900, 905, 895), V(500, 510, 490), SYS, "x64_sys_call",
	     "__x64_sys_write", "ksys_write", "vfs_write", "anon_pipe_write", "copy_page_from_iter");
	ADDP(p, 2, "load", ZERO, V(300, 310, 290), SYS, "x64_sys_call",
	     "__x64_sys_read", "ksys_read", "vfs_read", "filemap_read", "copy_page_to_iter");
	t = calibrate(p);
	sys = NODE(t, "fs", SYS, "x64_sys_call");
	assert_true(sys->stat.delta < -50);
	assert_true(sys->stat.rise > 250 && sys->stat.fall > 350);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "copy_page_to_iter");
	assert_string_equal(v.subsystem, "mm"); /* filemap_read, the deepest classified */
	assert_true(v.confidence > 0.9);
	assert_int_equal(v.ndisplaced, 1);
	assert_string_equal(v.displaced[0].process, "bg [1]");
	assert_string_equal(v.displaced[0].path[v.displaced[0].npath - 1], "copy_page_from_iter");
	assert_int_equal(v.nfalls, 0); /* all of the fall was the background's */
	assert_false(NODE(t, "fs", SYS, "x64_sys_call", "__x64_sys_write")->flags & TREE_F_VERDICT);
	/* the tree the LLM reads says the same: rises and falls apart, the
	 * background's fall marked displaced */
	{
		char *txt = agent_llm_render_tree(t, NULL, 0);

		assert_non_null(txt);
		print_message("%s", txt);
		assert_non_null(strstr(txt, "x64_sys_call  ref 900  load 800  delta -100  x0.889  q"));
		assert_non_null(strstr(txt, "SIG  rise +300 fall -400  DISPLACED (bg [1] -400"));
		assert_non_null(strstr(txt, "__x64_sys_write  ref 900  load 500  delta -400"));
		{
			const char *rd = strstr(txt, "__x64_sys_read  ref");

			assert_non_null(rd);
			assert_null(memmem(rd, strcspn(rd, "\n"), "DISPLACED", 9));
		}
		free(txt);
	}
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A victim (sampling filtered to it): its kernel time falls at the root and
 * in its subsystem, one new path below rises.  The old rule said "no
 * bottleneck found"; the rise is the verdict, the fall its own finding, and
 * nothing is displaced (every sample is the victim's). */
static void test_victim_falling_root(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	p->diag.known = p->diag.all = 1;
	ADD(p, V(700, 705, 695), V(150, 160, 140), PF, "do_fault", "__do_fault",
	    "shmem_fault", "shmem_get_folio_gfp", "clear_page_erms");
	ADD(p, ZERO, V(70, 75, 65), PF, "do_fault", "__do_fault", "filemap_fault",
	    "__folio_lock", "folio_wait_bit_common");
	t = calibrate(p);
	assert_true(t->root->stat.significant && t->root->stat.sign < 0);
	assert_true(NODE(t, "mm")->stat.sign < 0);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "folio_wait_bit_common");
	assert_string_equal(v.subsystem, "mm");
	assert_true(v.rise > 60 && v.rise < 80);
	assert_true(v.share_of_root > 0.99);
	assert_int_equal(v.ndisplaced, 0);
	assert_int_equal(v.nfalls, 1);
	assert_string_equal(v.falls[0].path[v.falls[0].npath - 1], "clear_page_erms");
	assert_true(v.falls[0].mass > 500);
	assert_true(NODE(t, "mm", PF, "do_fault", "__do_fault", "filemap_fault")->flags & TREE_F_VERDICT);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A fork/exec loop: the rise spreads over execve, exit and clone below
 * do_syscall_64.  Each branch is descended to its own depth; path is the
 * largest branch. */
static void test_spread_branches(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, ZERO, V(120, 125, 115), SYS, "__x64_sys_execve", "do_execveat_common",
	    "bprm_execve", "load_elf_binary", "begin_new_exec", "exec_mmap", "mmput",
	    "exit_mmap", "unmap_vmas", "zap_pte_range");
	ADD(p, ZERO, V(100, 105, 95), SYS, "__x64_sys_exit_group", "do_group_exit", "do_exit",
	    "mmput", "exit_mmap", "free_pgtables");
	ADD(p, ZERO, V(80, 82, 78), SYS, "__x64_sys_clone", "kernel_clone", "copy_process",
	    "dup_mm", "dup_mmap", "copy_page_range");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_int_equal(v.nbranches, 3);
	assert_string_equal(v.leaf, "zap_pte_range");
	assert_string_equal(v.branches[0].path[v.branches[0].npath - 1], "zap_pte_range");
	assert_string_equal(v.branches[1].path[v.branches[1].npath - 1], "free_pgtables");
	assert_string_equal(v.branches[2].path[v.branches[2].npath - 1], "copy_page_range");
	assert_true(v.branches[0].share > 0.35 && v.branches[0].share < 0.45);
	assert_true(fabs(v.branches[0].share + v.branches[1].share + v.branches[2].share - 1) < 1e-9);
	assert_string_equal(v.branches[2].subsystem, "mm");
	/* together they explain all of it */
	assert_true(v.confidence > 0.9);
	assert_non_null(strstr(v.summary, "spreads over 3 branches"));
	assert_true(line_has(&r, "descending each of the 3 branches"));
	/* every branch is marked on the tree */
	assert_true(NODE(t, "mm", SYS, "__x64_sys_clone", "kernel_clone", "copy_process", "dup_mm",
			 "dup_mmap", "copy_page_range")->flags & TREE_F_VERDICT);
	assert_true(NODE(t, "mm", SYS, "__x64_sys_exit_group")->flags & TREE_F_VERDICT);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* Convergence (issue 23): a TCP send reached through write(2) and
 * sendto(2), each branch smaller than an unrelated spread one (epoll_ctl),
 * together larger: the verdict is the function summed over its callers,
 * descended in the merged view, with both callers named; the walk's own
 * answer is kept as a note.  A walk whose answer already goes through the
 * function (test_spread_branches: exit_mmap under exec and exit) stands. */
static void test_convergence(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, ZERO, V(30, 31, 29), SYS, "__x64_sys_epoll_ctl", "do_epoll_ctl", "ep_remove");
	ADD(p, ZERO, V(25, 24, 26), SYS, "__x64_sys_epoll_ctl", "do_epoll_ctl", "ep_item_poll");
	ADD(p, ZERO, V(20, 21, 19), SYS, "__x64_sys_epoll_ctl", "do_epoll_ctl", "kmem_cache_alloc");
	ADD(p, ZERO, V(60, 62, 58), SYS, "ksys_write", "vfs_write", "sock_write_iter", "tcp_sendmsg",
	    "tcp_sendmsg_locked", "tcp_write_xmit");
	ADD(p, ZERO, V(55, 54, 56), SYS, "__x64_sys_sendto", "__sys_sendto", "tcp_sendmsg",
	    "tcp_sendmsg_locked", "tcp_write_xmit");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_non_null(v.convergence);
	assert_string_equal(v.convergence, "tcp_sendmsg");
	assert_true(v.convergence_rise > 110 && v.convergence_rise < 120);
	assert_int_equal(v.ncallers, 2);
	assert_string_equal(v.leaf, "tcp_write_xmit");
	assert_string_equal(v.subsystem, "net");
	assert_non_null(strstr(v.summary, "converges on tcp_sendmsg"));
	assert_non_null(strstr(v.summary, "sock_write_iter"));
	assert_non_null(strstr(v.summary, "__sys_sendto"));
	assert_true(note_has(&v, "the walk alone"));
	assert_true(line_has(&r, "summed over its 2 places"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* Convergence and sampling skid (stress-ng --futex on real hardware
 * without a PMU): schedule is reached from a futex wait and from a
 * preemption on the return to user space, and nearly all of it is
 * finish_task_switch's self time, the skid of the context switch's
 * interrupts-off section.  Summed over callers that skid is no
 * convergence: the walk's answer (futex_wake > get_futex_key) stands. */
static void test_convergence_skid(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, ZERO, V(50, 52, 48), SYS, "__x64_sys_futex", "do_futex", "futex_wake",
	    "get_futex_key");
	ADD(p, ZERO, V(20, 21, 19), SYS, "__x64_sys_futex", "do_futex", "futex_wake", "wake_up_q");
	ADD(p, ZERO, V(45, 44, 46), SYS, "__x64_sys_futex", "do_futex", "futex_wait", "__futex_wait",
	    "futex_do_wait", "schedule", "__schedule", "finish_task_switch");
	ADD(p, ZERO, V(45, 46, 44), SYS, "syscall_exit_to_user_mode", "exit_to_user_mode_loop",
	    "schedule", "__schedule", "finish_task_switch");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_null(v.convergence);
	assert_int_equal(v.ncallers, 0);
	assert_string_equal(v.leaf, "get_futex_key");
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* Wait chains (issue 23, item 2): a Redis victim beside CPU hogs.  Its
 * largest rise is an epoll wait woken by the network softirq (a client's
 * send, the client itself waiting for a CPU): a link of a chain, not its
 * root.  The root is the runnable time behind the hogs: the verdict, with
 * the chain in a note.  A wait woken by the disk (softirq BLOCK) is a root
 * itself and stays the verdict. */
static void test_wait_chain_root(void **state)
{
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct profile *p;
	struct tree *t;
	int note = 0;

	(void)state;
	for (int disk = 0; disk < 2; disk++) {
		p = prof();
		/* a victim's runnable time also falls as a whole: less work done */
		ADD(p, V(300, 305, 295), V(120, 122, 118), "[runnable]", SYS, "__x64_sys_write",
		    "ksys_write", "schedule", "__schedule", "[ran instead: cc1 (tgid 60)]");
		if (disk)
			ADD(p, V(100, 104, 96), V(400, 410, 390), "[blocked]", SYS, "__x64_sys_fdatasync",
			    "ext4_sync_file", "file_write_and_wait_range", "folio_wait_writeback",
			    "io_schedule", "schedule", "__schedule", "[woken by softirq BLOCK]");
		else
			ADD(p, V(100, 104, 96), V(400, 410, 390), "[blocked]", SYS, "__x64_sys_epoll_wait",
			    "do_epoll_wait", "schedule_hrtimeout_range_clock", "schedule", "__schedule",
			    "[woken by softirq NET_RX]");
		ADD(p, ZERO, V(200, 205, 195), "[runnable]", SYS, "__x64_sys_epoll_wait", "do_epoll_wait",
		    "schedule_hrtimeout_range_clock", "schedule", "__schedule",
		    "[ran instead: stress-ng-cpu (tgid 50)]");
		t = calibrate(p);
		assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
		dump(&r);
		assert_true(v.found);
		assert_int_equal(v.nbranches, 2);
		note = note_has(&v, "wait chain");
		if (disk) {
			assert_string_equal(v.time, "blocked");
			assert_string_equal(v.leaf, "[woken by softirq BLOCK]");
			assert_false(note);
		} else {
			assert_string_equal(v.time, "runnable");
			assert_string_equal(v.leaf, "[ran instead: stress-ng-cpu (tgid 50)]");
			assert_true(note);
			assert_true(line_has(&r, "a link of a wait chain"));
		}
		verdict_clear(&v);
		agent_reply_clear(&r);
		tree_free(t);
	}
	/* a shift: the runnable time falls as a whole (-180/s behind cc1) while
	 * a new task runs instead (+150/s behind fio, the largest rise); the
	 * wait for a CPU did not grow, the disk wait is the root */
	p = prof();
	ADD(p, V(300, 305, 295), V(120, 122, 118), "[runnable]", SYS, "__x64_sys_write", "ksys_write",
	    "schedule", "__schedule", "[ran instead: cc1 (tgid 60)]");
	ADD(p, ZERO, V(150, 152, 148), "[runnable]", SYS, "__x64_sys_fdatasync", "ext4_sync_file",
	    "schedule", "__schedule", "[ran instead: fio (tgid 61)]");
	ADD(p, V(100, 104, 96), V(200, 205, 195), "[blocked]", SYS, "__x64_sys_fdatasync",
	    "ext4_sync_file", "file_write_and_wait_range", "folio_wait_writeback", "io_schedule",
	    "schedule", "__schedule", "[woken by softirq BLOCK]");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.time, "blocked");
	assert_string_equal(v.leaf, "[woken by softirq BLOCK]");
	assert_true(note_has(&v, "who ran instead changed"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A ping-pong victim beside a spinner on its CPU: its blocked time woken by
 * its own thread rises most (a link: the peer waits behind the spinner),
 * its runnable time falls as a whole (its threads wait less behind each
 * other), and behind the spinner it rises.  No branch is a root; the CPU
 * time the spinner, outside the victim, took is the verdict.  A victim's
 * tree that does not list its processes (an older session) cannot tell the
 * spinner from the victim's own threads: the link stays the verdict. */
static void test_wait_chain_shift_out(void **state)
{
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct profile *p;
	struct tree *t;

	(void)state;
	for (int listed = 0; listed < 2; listed++) {
		p = prof();
		p->diag.known = 1;
		p->diag.all = 1;
		if (listed)
			profile_diag_add(&p->diag, 20);
		ADD(p, V(600, 605, 595), V(300, 302, 298), "[runnable]", SYS, "ksys_read",
		    "unix_stream_read_generic", "schedule_timeout", "schedule", "__schedule",
		    "[ran instead: t3-back (tgid 20)]");
		ADD(p, ZERO, V(250, 255, 245), "[runnable]", SYS, "ksys_read",
		    "unix_stream_read_generic", "schedule_timeout", "schedule", "__schedule",
		    "[ran instead: spinner (tgid 50)]");
		ADD(p, V(100, 104, 96), V(500, 510, 490), "[blocked]", SYS, "ksys_read",
		    "unix_stream_read_generic", "schedule_timeout", "schedule", "__schedule",
		    "[woken by task t3-front (tgid 20)]");
		t = calibrate(p);
		assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
		dump(&r);
		assert_true(v.found);
		if (listed) {
			assert_string_equal(v.time, "runnable");
			assert_string_equal(v.leaf, "[ran instead: spinner (tgid 50)]");
			assert_true(note_has(&v, "outside the work"));
		} else {
			assert_string_equal(v.time, "blocked");
			assert_false(note_has(&v, "wait chain"));
		}
		verdict_clear(&v);
		agent_reply_clear(&r);
		tree_free(t);
	}
}

/* A load not yet steady (issue 23, item 4): a filesystem walk whose first
 * passes are cold.  Six pairs; the block I/O under getdents64 is heavy in
 * the first three loaded windows and small after, the stat path steady:
 * the verdict says it is not steady and from which loaded window it is.
 * The same profile with the block I/O steady has no such note. */
/* mode 0: the cold pass in loaded windows 1-3 of 6; 1: cold throughout
 * (steady); 2: cold in 1-5, the last alone warm */
static struct profile *cold_then_warm(int mode)
{
	static const char *const cold[] = { "entry_SYSCALL_64", "do_syscall_64",
		"__x64_sys_getdents64", "iterate_dir", "ext4_readdir", "ext4_bread", "submit_bio" };
	static const char *const warm[] = { "entry_SYSCALL_64", "do_syscall_64",
		"__do_sys_newfstatat", "vfs_statx", "filename_lookup", "path_lookupat" };
	struct profile *p = profile_new();

	assert_non_null(p);
	for (unsigned w = 0; w < 12; w++) {
		int load = w % 2, early = w < (mode == 2 ? 10 : 6);

		assert_int_equal(profile_window_begin(p, load ? COND_LOAD : COND_REF, w), (int)w);
		if (load) {
			assert_int_equal(profile_add(p, w, cold, 7, 1, "find",
						     mode == 1 || early ? 400 : 30), 0);
			assert_int_equal(profile_add(p, w, warm, 6, 1, "find", 150 + w), 0);
		}
		profile_window_end(p, w, 1.0);
	}
	return p;
}

static void test_not_steady(void **state)
{
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };

	(void)state;
	for (int mode = 0; mode < 3; mode++) {
		struct tree *t = calibrate(cold_then_warm(mode));

		assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
		dump(&r);
		assert_true(v.found);
		if (mode == 1) {
			assert_false(note_has(&v, "not steady"));
			assert_int_equal(v.phase_from_win, 0);
			assert_false(v.phase_pending);
		} else if (mode == 0) {
			assert_true(note_has(&v, "not steady: submit_bio's share"));
			assert_true(note_has(&v, "steady from loaded window 4 of 6"));
			/* the pair of loaded window 4: windows 6 and 7 */
			assert_int_equal(v.phase_from_win, 6);
			assert_false(v.phase_pending);
		} else {
			/* one window is no phase yet: measuring must go on */
			assert_int_equal(v.phase_from_win, 0);
			assert_true(v.phase_pending);
			assert_true(note_has(&v, "in loaded windows 1-5 and"));
		}
		verdict_clear(&v);
		agent_reply_clear(&r);
		tree_free(t);
	}
}

/* The analysis judges the later phase alone: the warm walk's path, with
 * the cold pass's block I/O said as the earlier phase (issue 23 item 4);
 * a steady load is judged whole. */
static void test_later_phase(void **state)
{
	for (int steady = 0; steady < 2; steady++) {
		struct profile *p = cold_then_warm(steady);  /* modes 0 and 1 */
		struct analysis a = { 0 };
		char *cause = NULL;
		cJSON *o;

		(void)state;
		assert_int_equal(analysis_run(p, NULL, 0, NULL, &a, &cause), 0);
		assert_true(a.verdict.found);
		if (steady) {
			assert_string_equal(a.verdict.leaf, "submit_bio");
			assert_null(a.verdict.phase_earlier);
		} else {
			assert_string_equal(a.verdict.leaf, "path_lookupat");
			assert_int_equal(a.verdict.phase_from_win, 6);
			assert_non_null(a.verdict.phase_earlier);
			assert_non_null(strstr(a.verdict.phase_earlier, "submit_bio"));
			assert_true(note_has(&a.verdict, "its first 3 loaded windows (3.0 s of it "
					     "running) are an earlier phase"));
			/* the tree is the later phase's: 6 windows; an agent's
			 * descent over it says so too */
			assert_int_equal(a.t->nwin, 6);
			{
				struct verdict v2 = { 0 };

				assert_int_equal(agent_descend(a.t, NULL, 0.5, &v2, NULL), 0);
				assert_non_null(v2.phase_earlier);
				assert_int_equal(v2.phase_from_win, 6);
				assert_true(note_has(&v2, "are an earlier phase"));
				verdict_clear(&v2);
			}
			o = cJSON_CreateObject();
			assert_int_equal(verdict_json_add_paths(o, &a.verdict), 0);
			assert_int_equal(cJSON_GetNumberValue(cJSON_GetObjectItem(
				cJSON_GetObjectItem(o, "phase"), "from_window")), 6);
			cJSON_Delete(o);
		}
		analysis_clear(&a);
		profile_free(p);
	}
}

/* Displaced work with a process level (a tree by process): the fall of a
 * process that is not the diagnosed one is displaced, never the verdict;
 * without knowing the diagnosed processes nothing is called displaced. */
static void test_displaced_by_process(void **state)
{
	struct profile *p = prof();
	struct tree_opts to = { .group = TREE_BY_PROCESS };
	struct calib_opts o;
	struct verdict v = { 0 };
	struct tree *t;

	(void)state;
	profile_diag_add(&p->diag, 2);
	ADDP(p, 1, "bg", V(900, 905, 895), V(300, 310, 290), SYS, "__x64_sys_getppid");
	ADDP(p, 2, "load", ZERO, V(200, 190, 210), PF, "do_anonymous_page", "clear_page_erms");
	t = tree_build(p, &to);
	assert_non_null(t);
	calib_opts_default(&o);
	assert_int_equal(calib_run(t, &o), 0);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
	assert_true(v.found);
	assert_string_equal(v.leaf, "clear_page_erms");
	assert_int_equal(v.ndisplaced, 1);
	assert_string_equal(v.displaced[0].process, "bg [1]");
	assert_int_equal(v.nfalls, 0);
	verdict_clear(&v);
	tree_free(t);
	/* nobody said which process is diagnosed: a fall, not displaced */
	p->diag.known = 0;
	p->diag.ntgids = 0;
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
	assert_int_equal(v.ndisplaced, 0);
	assert_int_equal(v.nfalls, 1);
	verdict_clear(&v);
	tree_free(t);
}

/* set a hand-made node's counts: ref/load per pair, all self */
static void setn(struct tree_node *n, const uint64_t ref[NPAIR], const uint64_t load[NPAIR])
{
	for (struct tree_node *x = n; x; x = x->parent)
		for (unsigned i = 0; i < NPAIR; i++) {
			x->total[COND_REF] += ref[i];
			x->total[COND_LOAD] += load[i];
			x->win_total[2 * i] += ref[i];
			x->win_total[2 * i + 1] += load[i];
		}
	for (unsigned i = 0; i < NPAIR; i++) {
		n->self[COND_REF] += ref[i];
		n->self[COND_LOAD] += load[i];
	}
}

/* The time level (the timeacct contract): root -> on-cpu / blocked ->
 * subsystem -> frames.  The victim's on-CPU time falls, its blocked time
 * under a fault's wait rises: the verdict is blocked, its own field. */
static void test_time_level(void **state)
{
	struct profile *p = prof();
	struct tree *t = tree_build(p, NULL);
	struct calib_opts o;
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree_node *on, *bl, *n;
	static const uint64_t r1[] = V(600, 610, 590), l1[] = V(200, 210, 190);
	static const uint64_t r2[] = V(5, 4, 6), l2[] = V(380, 390, 370);

	(void)state;
	profile_free(p);
	assert_non_null(t);
	on = tree_node_add(t, t->root, "on-cpu", TREE_TIME);
	bl = tree_node_add(t, t->root, "blocked", TREE_TIME);
	assert_non_null(on);
	assert_non_null(bl);
	n = tree_node_add(t, on, "mm", TREE_SUBSYS);
	n = tree_node_add(t, n, "asm_exc_page_fault", TREE_FRAME);
	n = tree_node_add(t, n, "shmem_fault", TREE_FRAME);
	setn(n, r1, l1);
	n = tree_node_add(t, bl, "sched", TREE_SUBSYS);
	n = tree_node_add(t, n, "asm_exc_page_fault", TREE_FRAME);
	n = tree_node_add(t, n, "filemap_fault", TREE_FRAME);
	n = tree_node_add(t, n, "folio_wait_bit_common", TREE_FRAME);
	n = tree_node_add(t, n, "io_schedule", TREE_FRAME);
	n = tree_node_add(t, n, "[woken by softirq BLOCK]", TREE_FRAME);
	setn(n, r2, l2);
	calib_opts_default(&o);
	assert_int_equal(calib_run(t, &o), 0);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.time, "blocked");
	assert_string_equal(v.leaf, "[woken by softirq BLOCK]");
	/* issue 26 item 3: where it waited (the page cache), not sched; the
	 * waker apart */
	assert_string_equal(v.subsystem, "mm");
	assert_non_null(strstr(v.summary, "blocked, mm: "));
	assert_string_equal(v.waker, "softirq BLOCK");
	assert_string_equal(v.waker_class, "softirq");
	assert_non_null(strstr(v.summary, "; woken by softirq BLOCK"));
	assert_int_equal(v.nfalls, 1);
	assert_string_equal(v.falls[0].time, "on-cpu");
	assert_true(on->flags & TREE_F_VERDICT ? 0 : 1);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* verdict.subsystem: a TCP send through write(2) is net, not fs */
static void test_subsystem_deepest(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(1, 1, 1), V(300, 290, 310), SYS, "ksys_write", "vfs_write", "sock_write_iter",
	    "tcp_sendmsg", "tcp_sendmsg_locked", "tcp_push");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, NULL), 0);
	assert_true(v.found);
	assert_non_null(NODE(t, "fs"));
	assert_string_equal(v.subsystem, "net");
	verdict_clear(&v);
	tree_free(t);
}

/* issue 26 item 4: a branch never ends at a syscall or exception entry
 * frame.  Its names, as the descent's own rule (descent.c is_entry) does
 * not export them. */
static int entry_name(const char *f)
{
	static const char *const names[] = { "entry_SYSCALL_64", "do_syscall_64", "x64_sys_call",
		"asm_exc_page_fault", "exc_page_fault", NULL };

	for (const char *const *n = names; *n; n++)
		if (!strcmp(f, *n))
			return 1;
	return 0;
}

static void assert_no_entry_end(const struct verdict *v)
{
	if (v->found && v->npath)
		assert_false(entry_name(v->leaf));
	for (unsigned i = 0; i < v->nbranches; i++)
		assert_true(v->branches[i].npath > 0 &&
			    !entry_name(v->branches[i].path[v->branches[i].npath - 1]));
}

/* Eight read-side syscalls each rise by a third, none significant alone;
 * together they make do_syscall_64 rise significantly.  The old descent
 * stopped at do_syscall_64 ("no child rises significantly"); now the rise
 * is shared out over its entries by their net deltas, a branch each, each
 * to a real function, with do_syscall_64's evidence. */
static void test_entry_thin(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;
	struct tree_node *ds;

	(void)state;
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_read", "ksys_read", "vfs_read", "seq_read");
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_pread64", "vfs_read", "filemap_read");
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_newfstat", "vfs_fstat", "vfs_getattr");
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_lseek", "ksys_lseek", "vfs_llseek");
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_openat", "do_sys_openat2", "do_filp_open");
	ADD(p, V(20, 20, 20), V(26, 26, 26), SYS, "__x64_sys_close", "close_fd", "filp_close");
	t = calibrate(p);
	ds = NODE(t, "fs", SYS);
	assert_true(ds->stat.significant);
	for (unsigned i = 0; i < ds->nchild; i++)
		assert_false(ds->child[i]->stat.significant);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_no_entry_end(&v);
	assert_true(v.nbranches >= 2);
	assert_true(line_has(&r, "do_syscall_64: an entry frame, no code path"));
	assert_true(note_has(&v, "shared out by net deltas"));
	/* the evidence is do_syscall_64's test, the rise its, shared out */
	assert_true(v.q == ds->stat.q);
	{
		double sum = 0;

		for (unsigned i = 0; i < v.nbranches; i++)
			sum += v.branches[i].mass;
		assert_true(sum > 0 && sum <= ds->stat.rise * (1 + 1e-9));
	}
	assert_false(NODE(t, "fs", SYS)->flags & TREE_F_VERDICT ? 0 : 1);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* The rise is do_syscall_64's own time (entry and exit) beside a real
 * fault path: the entry frame is no branch, the fault path is the verdict. */
static void test_entry_self(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(20, 22, 21), V(300, 310, 290), SYS);
	ADD(p, V(30, 30, 30), V(30, 31, 29), SYS, "__x64_sys_getppid");
	ADD(p, V(1, 0, 1), V(200, 190, 210), PF, "do_anonymous_page", "clear_page_erms");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_no_entry_end(&v);
	assert_string_equal(v.leaf, "clear_page_erms");
	assert_true(note_has(&v, "entry and exit time with no code path below it rising"));
	verdict_clear(&v);
	agent_reply_clear(&r);

	/* alone: nothing is found, honestly, and the note says why */
	p = prof();
	ADD(p, V(20, 22, 21), V(300, 310, 290), SYS);
	tree_free(t);
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_no_entry_end(&v);
	assert_false(v.found);
	assert_true(note_has(&v, "entry and exit time"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* All of a fault's rise is skid on exc_page_fault, with a little spread
 * thinly below it: the branch ends below the entry, not at exc_page_fault. */
static void test_entry_fault_skid(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	ADD(p, V(1, 1, 0), V(300, 320, 310), "asm_exc_page_fault", "exc_page_fault");
	ADD(p, V(10, 10, 10), V(13, 13, 14), PF, "do_anonymous_page", "clear_page_erms");
	ADD(p, V(10, 10, 10), V(12, 13, 12), PF, "do_fault", "filemap_map_pages");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_no_entry_end(&v);
	assert_true(v.found);
	assert_string_equal(v.leaf, "clear_page_erms");
	/* the skid is nobody's: the branch carries only what rose below it */
	assert_true(v.rise < 10);
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A branch entered for its share at the root that ends at almost nothing
 * (stress-ng futex: the syscall branch is mostly entry and exit time,
 * what is left under it 1% of the increase) is no branch of the verdict:
 * dropped with a note, the branch that carries the rise kept. */
static struct tree *small_branch_tree(int larger)
{
	struct profile *p = prof();

	ADD(p, ZERO, V(500, 510, 490), SYS, "__x64_sys_futex", "do_futex", "futex_wake",
	    "get_futex_key");
	ADD(p, ZERO, V(300, 310, 290), SYS);
	if (larger)
		ADD(p, ZERO, V(30, 31, 29), SYS, "exit_to_user_mode_loop",
		    "__rseq_handle_notify_resume", "__get_user_8");
	else
		ADD(p, ZERO, V(12, 13, 12), SYS, "exit_to_user_mode_loop",
		    "__rseq_handle_notify_resume", "__get_user_8");
	return calibrate(p);
}

static void test_small_branch_dropped(void **state)
{
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;

	(void)state;
	/* 1.5% of the rise where the walk began: dropped */
	t = small_branch_tree(0);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_string_equal(v.leaf, "get_futex_key");
	for (unsigned i = 0; i < v.nbranches; i++)
		assert_string_not_equal(v.branches[i].path[v.branches[i].npath - 1], "__get_user_8");
	assert_true(note_has(&v, "__get_user_8 (+"));
	assert_true(note_has(&v, "is too small to be a branch"));
	assert_true(line_has(&r, "branch __get_user_8"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
	/* 3.6%: under what makes a branch where the walk splits, but a branch
	 * that ends with it still names a part of the increase (a fork/exec
	 * loop's copy_page_range, 5-6%) and is kept */
	t = small_branch_tree(1);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_int_equal(v.nbranches, 2);
	assert_string_equal(v.branches[1].path[v.branches[1].npath - 1], "__get_user_8");
	assert_false(note_has(&v, "is too small to be a branch"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* A branch entered with 11% of the rise whose walk thins below its caller
 * (a fork/exec loop: dup_mmap, copy_page_range with just over half of it,
 * __pte_alloc with just over half of that, down to clear_page_erms with
 * 1.6%) ends at the deepest caller that still carries a part worth naming,
 * not dropped with the clone branch lost. */
static void test_thin_branch_ends_higher(void **state)
{
	struct profile *p = prof();
	struct verdict v = { 0 };
	struct agent_reply r = { 0 };
	struct tree *t;
	int clone = -1;

	(void)state;
	ADD(p, ZERO, V(300, 305, 295), SYS, "__x64_sys_execve", "do_execveat_common",
	    "bprm_execve", "load_elf_binary", "begin_new_exec", "exec_mmap", "mmput",
	    "exit_mmap", "unmap_vmas", "zap_pte_range");
	ADD(p, ZERO, V(240, 245, 235), SYS, "__x64_sys_exit_group", "do_group_exit", "do_exit",
	    "mmput", "exit_mmap", "free_pgtables");
	ADD(p, ZERO, V(34, 35, 33), SYS, "__do_sys_clone", "kernel_clone", "copy_process",
	    "dup_mm", "dup_mmap");
	ADD(p, ZERO, V(17, 18, 16), SYS, "__do_sys_clone", "kernel_clone", "copy_process",
	    "dup_mm", "dup_mmap", "copy_page_range");
	ADD(p, ZERO, V(9, 10, 8), SYS, "__do_sys_clone", "kernel_clone", "copy_process",
	    "dup_mm", "dup_mmap", "copy_page_range", "__pte_alloc");
	ADD(p, ZERO, V(10, 11, 9), SYS, "__do_sys_clone", "kernel_clone", "copy_process",
	    "dup_mm", "dup_mmap", "copy_page_range", "__pte_alloc", "clear_page_erms");
	t = calibrate(p);
	assert_int_equal(agent_descend(t, NULL, 0.5, &v, &r), 0);
	dump(&r);
	assert_true(v.found);
	assert_int_equal(v.nbranches, 3);
	for (unsigned i = 0; i < v.nbranches; i++)
		if (!strcmp(v.branches[i].path[v.branches[i].npath - 1], "__pte_alloc"))
			clone = (int)i;
	assert_true(clone >= 0);
	assert_true(line_has(&r, "it ends at its caller __pte_alloc"));
	assert_false(note_has(&v, "is too small to be a branch"));
	verdict_clear(&v);
	agent_reply_clear(&r);
	tree_free(t);
}

/* issue 26 item 3: the subsystem of blocked or runnable time is where it
 * waited; sched only when nothing else is known above the scheduler.  So is
 * on-CPU time in the switch of a wait (a voluntary schedule), not in a
 * preemption or a yield. */
static void test_wait_subsystem(void **state)
{
	static const struct {
		const char *time;
		const char *frames[12];
		const char *want;
	} cases[] = {
		{ "blocked", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read", "ksys_read",
			       "vfs_read", "filemap_read", "filemap_get_pages", "folio_wait_bit_common",
			       "io_schedule", "schedule", "[woken by softirq BLOCK]" }, "mm" },
		{ "blocked", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_write", "ksys_write",
			       "vfs_write", "ext4_buffered_write_iter", "down_write",
			       "rwsem_down_write_slowpath", "schedule_preempt_disabled", "schedule",
			       "[woken by task writer (tgid 7)]" }, "locking" },
		{ "blocked", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_io_submit",
			       "blk_mq_submit_bio", "blk_mq_get_tag", "io_schedule", "schedule",
			       "[woken by hardirq 25]" }, "block" },
		{ "runnable", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_read", "ksys_read",
				"vfs_read", "filemap_read", "asm_sysvec_apic_timer_interrupt",
				"irqentry_exit", "preempt_schedule_irq", "__schedule",
				"[ran instead: x (tgid 9)]" }, "mm" },
		{ "blocked", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_nanosleep",
			       "hrtimer_nanosleep", "do_nanosleep", "schedule",
			       "[woken by hardirq timer]" }, "sched" },
		{ "on-cpu", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_write", "ksys_write",
			      "vfs_write", "anon_pipe_write", "__wake_up_sync_key", "try_to_wake_up" },
		  "sched" },
		/* the switch of a futex wait is the wait's cost (stress-ng futex) */
		{ "on-cpu", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_futex", "do_futex",
			      "futex_wait", "__futex_wait", "futex_do_wait", "schedule",
			      "__schedule" }, "locking" },
		/* a preemption on the way out is the scheduler's */
		{ "on-cpu", { "entry_SYSCALL_64", "do_syscall_64", "exit_to_user_mode_loop",
			      "schedule", "__schedule" }, "sched" },
		/* a yield is not a wait */
		{ "on-cpu", { "entry_SYSCALL_64", "do_syscall_64", "__x64_sys_sched_yield",
			      "do_sched_yield", "schedule", "__schedule" }, "sched" },
	};

	(void)state;
	for (unsigned c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct profile *p = profile_new();
		struct tree *t;
		struct tree_node *n;
		struct verdict_branch b;
		char *names[VERDICT_MAX_PATH];

		assert_non_null(p);
		t = tree_build(p, NULL);
		profile_free(p);
		assert_non_null(t);
		n = strcmp(cases[c].time, "on-cpu") ?
		    tree_node_add(t, t->root, cases[c].time, TREE_TIME) : t->root;
		n = tree_node_add(t, n, "fs", TREE_SUBSYS);
		for (unsigned i = 0; i < 12 && cases[c].frames[i]; i++)
			n = tree_node_add(t, n, cases[c].frames[i], TREE_FRAME);
		descent_branch_of(n, &b, names, VERDICT_MAX_PATH);
		if (strcmp(b.subsystem, cases[c].want))
			fail_msg("case %u (%s ... %s): subsystem %s, want %s", c, cases[c].time,
				 n->name, b.subsystem, cases[c].want);
		tree_free(t);
	}
}

/* the waker below a stop: the marker with the largest rise, its class */
static void test_waker_of(void **state)
{
	struct profile *p = profile_new();
	struct tree *t;
	struct tree_node *n, *a, *b;
	char who[64], cls[16];

	(void)state;
	assert_non_null(p);
	t = tree_build(p, NULL);
	profile_free(p);
	assert_non_null(t);
	n = tree_node_add(t, t->root, "filemap_get_pages", TREE_FRAME);
	descent_waker_of(n, who, sizeof(who), cls, sizeof(cls));
	assert_string_equal(who, "");
	assert_string_equal(cls, "");
	a = tree_node_add(t, n, "[woken by task kswapd0 (tgid 80)]", TREE_FRAME);
	b = tree_node_add(t, n, "[no wakeup seen]", TREE_FRAME);
	a->stat.rise = 10;
	b->stat.rise = 3;
	descent_waker_of(n, who, sizeof(who), cls, sizeof(cls));
	assert_string_equal(who, "task kswapd0 (tgid 80)");
	assert_string_equal(cls, "task");
	b->stat.rise = 30;
	descent_waker_of(n, who, sizeof(who), cls, sizeof(cls));
	assert_string_equal(who, "none seen");
	assert_string_equal(cls, "none");
	tree_free(t);
}

/* the waker is its own field in the verdict's JSON (diagnose --json, the
 * session's verdict event), read back the same */
static void test_waker_json(void **state)
{
	struct verdict v = { 0 }, w = { 0 };
	char *cause = NULL;
	cJSON *o;

	(void)state;
	v.found = 1;
	snprintf(v.subsystem, sizeof(v.subsystem), "mm");
	snprintf(v.time, sizeof(v.time), "blocked");
	snprintf(v.waker, sizeof(v.waker), "softirq BLOCK");
	snprintf(v.waker_class, sizeof(v.waker_class), "softirq");
	o = verdict_json_new(&v);
	assert_non_null(o);
	assert_string_equal(cJSON_GetObjectItem(o, "waker")->valuestring, "softirq BLOCK");
	assert_string_equal(cJSON_GetObjectItem(o, "waker_class")->valuestring, "softirq");
	assert_int_equal(verdict_json_parse(o, &w, &cause), 0);
	assert_string_equal(w.waker, "softirq BLOCK");
	assert_string_equal(w.waker_class, "softirq");
	assert_string_equal(w.subsystem, "mm");
	cJSON_Delete(o);
	verdict_clear(&w);
	/* on-CPU: no waker, no field */
	v.waker[0] = v.waker_class[0] = 0;
	o = verdict_json_new(&v);
	assert_non_null(o);
	assert_null(cJSON_GetObjectItem(o, "waker"));
	cJSON_Delete(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dominant_child),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_decreases_only),
		cmocka_unit_test(test_nothing),
		cmocka_unit_test(test_noisy_neighbor),
		cmocka_unit_test(test_idle_rise),
		cmocka_unit_test(test_self_dominated),
		cmocka_unit_test(test_skid_unlock),
		cmocka_unit_test(test_paravirt_irq_on),
		cmocka_unit_test(test_focus),
		cmocka_unit_test(test_agent_object),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_subsystem_only),
		cmocka_unit_test(test_rise_under_falling_parent),
		cmocka_unit_test(test_small_branch_dropped),
		cmocka_unit_test(test_thin_branch_ends_higher),
		cmocka_unit_test(test_victim_falling_root),
		cmocka_unit_test(test_spread_branches),
		cmocka_unit_test(test_convergence),
		cmocka_unit_test(test_convergence_skid),
		cmocka_unit_test(test_wait_chain_root),
		cmocka_unit_test(test_wait_chain_shift_out),
		cmocka_unit_test(test_not_steady),
		cmocka_unit_test(test_later_phase),
		cmocka_unit_test(test_displaced_by_process),
		cmocka_unit_test(test_time_level),
		cmocka_unit_test(test_subsystem_deepest),
		cmocka_unit_test(test_entry_thin),
		cmocka_unit_test(test_entry_self),
		cmocka_unit_test(test_entry_fault_skid),
		cmocka_unit_test(test_wait_subsystem),
		cmocka_unit_test(test_waker_of),
		cmocka_unit_test(test_waker_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
