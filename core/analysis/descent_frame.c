/* descent_frame — what a frame is to the descent: a code path, or a level,
 * dispatch or entry frame that names none, or sampling skid (interrupts off
 * until an unlock, or a call that turns them back on).  By name, from fixed
 * tables; no numbers but the irq-on rise under a node.
 *
 * Split from core/analysis/descent.c along this seam so that the walk there
 * and the convergence (core/analysis/descent_converge.c) both call down into
 * the same names, and neither calls back into the other. */
#include <stddef.h>
#include <string.h>

#include "analysis/descent.h"
#include "data/subsys.h"

static const struct skid {
	const char *name;
	enum descent_skid kind;
} skid_table[] = {
	{ "asm_exc_page_fault", DESCENT_SKID_ENTRY },
	{ "exc_page_fault", DESCENT_SKID_ENTRY },
	{ "_raw_spin_unlock_irqrestore", DESCENT_SKID_UNLOCK },
	{ "_raw_spin_unlock_irq", DESCENT_SKID_UNLOCK },
	{ "_raw_spin_unlock_bh", DESCENT_SKID_UNLOCK },
	{ "finish_task_switch", DESCENT_SKID_UNLOCK },
};

enum descent_skid descent_skid_of(const struct tree_node *n)
{
	if (n->kind != TREE_FRAME)
		return DESCENT_SKID_NONE;
	for (size_t i = 0; i < sizeof(skid_table) / sizeof(skid_table[0]); i++)
		if (descent_name_is(n->name, skid_table[i].name))
			return skid_table[i].kind;
	return DESCENT_SKID_NONE;
}

static const char *const wait_entries[] = { "schedule", "io_schedule", "schedule_timeout",
	"schedule_hrtimeout", "schedule_hrtimeout_range", "schedule_hrtimeout_range_clock",
	"schedule_preempt_disabled", "io_schedule_timeout", NULL };

/* name is one of list's (descent_name_is: a compiler suffix allowed) */
static int name_in(const char *name, const char *const *list)
{
	for (const char *const *w = list; *w; w++)
		if (descent_name_is(name, *w))
			return 1;
	return 0;
}

int descent_is_wait_entry(const char *name)
{
	return name_in(name, wait_entries);
}

/* Frames that fill a cache: a block read under the page cache or a
 * directory or inode lookup, slab growth, an inode read in.  A load's
 * first pass over cold data runs here and then stops (a filesystem walk:
 * 2 s cold, 0.45 s a pass once warm); a load bound on its misses stays. */
static const char *const cache_fill_names[] = { "page_cache_sync_ra", "page_cache_async_ra",
	"page_cache_ra_unbounded", "page_cache_ra_order", "read_pages", "ext4_bread",
	"ext4_read_bh", "__ext4_read_dirblock", "ext4_mpage_readpages", "__ext4_iget",
	"allocate_slab", "new_slab", NULL };

int descent_is_cache_fill(const char *name)
{
	return name_in(name, cache_fill_names);
}

/* Interrupts-on primitives.  A native x86 kernel turns interrupts back on
 * with an inline sti, so cpu-clock samples held back by a section with them
 * off land in its caller's own time (exc_page_fault, above).  A
 * paravirtualised kernel (PVM, Xen) calls out to do it
 * (__raw_callee_save_pvm_irq_enable > pvm_irq_enable, xen_irq_enable_direct),
 * and the same samples land there, under every caller that had interrupts
 * off.  Such a frame's subtree (with an interrupt that was pending and is
 * taken the moment they come back on) is the caller's skid: counted as the
 * caller's own time, never a path or a child of its own. */
static const char *const irq_on_suffixes[] = { "irq_enable", "irq_enable_direct",
	"irq_restore", "restore_fl", "restore_fl_direct", NULL };

int descent_is_irq_on(const struct tree_node *n)
{
	size_t len;

	if (n->kind != TREE_FRAME)
		return 0;
	len = strcspn(n->name, ".");
	for (const char *const *s = irq_on_suffixes; *s; s++) {
		size_t k = strlen(*s);

		if (len > k && n->name[len - k - 1] == '_' && !strncmp(n->name + len - k, *s, k))
			return 1;
	}
	return 0;
}

/* per second, the rise (load - reference) of n's irq-on children's
 * subtrees: the part of its own time that its calls to turn interrupts
 * back on carry */
double descent_irq_on_below(const struct tree_node *n, const double secs[COND_N])
{
	double s = 0;

	for (unsigned i = 0; i < n->nchild; i++)
		if (descent_is_irq_on(n->child[i]))
			s += n->child[i]->total[COND_LOAD] / secs[COND_LOAD] -
			     n->child[i]->total[COND_REF] / secs[COND_REF];
	return s;
}

/* kthread plumbing: its children are unrelated work items */
static const char *const dispatch_names[] = { "ret_from_fork", "ret_from_fork_asm",
	"kthread", "worker_thread", "process_one_work", "smpboot_thread_fn", NULL };

/* levels that are not code paths: the root, processes, kinds of time,
 * subsystems (whose children are unrelated entry points: a fault, a
 * syscall, a kthread) */
int descent_is_grouping(const struct tree_node *n)
{
	return n->kind == TREE_ROOT || n->kind == TREE_PROCESS || n->kind == TREE_SUBSYS ||
	       n->kind == TREE_TIME || n->kind == TREE_COMMAND;
}

/* frames that only dispatch: syscall and exception entry, kthread loops */
int descent_is_dispatch(const struct tree_node *n)
{
	if (n->kind != TREE_FRAME)
		return 0;
	return subsys_of_function(n->name) == SUBSYS_SYSCALL || name_in(n->name, dispatch_names);
}

/* syscall-specific entry frames (__x64_sys_getpid) name their syscall: a
 * path; the generic ones around them do not */
static const char *const syscall_prefixes[] = { "__x64_sys_", "__ia32_sys_", "__do_sys_",
	"__se_sys_", "__arm64_sys_", NULL };

/* Syscall and exception entry and exit frames that name no code path
 * (entry_SYSCALL_64*, do_syscall_64, x64_sys_call, syscall_exit_to_user_mode,
 * irqentry_*, asm_exc_page_fault, exc_page_fault, ...): no branch ends at
 * one (descent.c's entry_end). */
int descent_is_entry(const struct tree_node *n)
{
	if (n->kind != TREE_FRAME)
		return 0;
	if (descent_skid_of(n) == DESCENT_SKID_ENTRY)
		return 1;
	if (subsys_of_function(n->name) != SUBSYS_SYSCALL)
		return 0;
	for (const char *const *p = syscall_prefixes; *p; p++)
		if (!strncmp(n->name, *p, strlen(*p)))
			return 0;
	return 1;
}

int descent_not_a_path(const struct tree_node *n)
{
	return descent_is_grouping(n) || descent_is_dispatch(n) || descent_is_entry(n);
}

int descent_is_unlock_skid(const struct tree_node *n)
{
	return descent_skid_of(n) == DESCENT_SKID_UNLOCK;
}
