/* Classification of real-looking kernel stacks (root first). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "data/subsys.h"
#include "data/subsys_table.h"

#define CLASSIFY(...) ({ \
	static const char *const fr_[] = { __VA_ARGS__ }; \
	subsys_classify(fr_, sizeof(fr_) / sizeof(fr_[0])); })

static void test_names(void **state)
{
	(void)state;
	for (int i = 0; i < SUBSYS_N; i++)
		assert_int_equal(subsys_from_name(subsys_name(i)), i);
	assert_string_equal(subsys_name(SUBSYS_MM), "mm");
	assert_string_equal(subsys_name(SUBSYS_OTHER), "other");
	/* issue 24 item 9: time accounting's user-space time is not "other",
	 * kernel code the table does not place */
	assert_string_equal(subsys_name(SUBSYS_USER), "user");
	assert_int_equal(subsys_of_function(SUBSYS_USER_FRAME), SUBSYS_USER);
	assert_int_equal(CLASSIFY("[user space]"), SUBSYS_USER);
	assert_int_equal(subsys_from_name("nope"), SUBSYS_N);
}

static void test_base_len(void **state)
{
	(void)state;
	assert_int_equal(subsys_base_len("foo.isra.0"), 3);
	assert_int_equal(subsys_base_len("foo.constprop.0.isra.0"), 3);
	assert_int_equal(subsys_base_len("finish_task_switch.isra.0"), 18);
	assert_int_equal(subsys_base_len("foo.cold"), 3);
	assert_int_equal(subsys_base_len("foo.part.12"), 3);
	assert_int_equal(subsys_base_len("foo.llvm.123456"), 3);
	assert_int_equal(subsys_base_len("foo"), 3);
	assert_int_equal(subsys_base_len("foo [kvm]"), 3);
	assert_int_equal(subsys_base_len(""), 0);
}

static void test_functions(void **state)
{
	(void)state;
	assert_int_equal(subsys_of_function("handle_mm_fault"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("exc_page_fault"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("exc_debug"), SUBSYS_SYSCALL);
	assert_int_equal(subsys_of_function("folio_add_lru"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("clear_page_erms"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("finish_task_switch.isra.0"), SUBSYS_SCHED);
	assert_int_equal(subsys_of_function("__schedule"), SUBSYS_SCHED);
	assert_int_equal(subsys_of_function("_raw_spin_lock_irqsave"), SUBSYS_LOCKING);
	/* skid leaves, not lock cost */
	assert_int_equal(subsys_of_function("_raw_spin_unlock_irqrestore"), SUBSYS_N);
	assert_int_equal(subsys_of_function("__sys_connect"), SUBSYS_NET);
	assert_int_equal(subsys_of_function("__sys_bpf"), SUBSYS_OTHER);
	assert_int_equal(subsys_of_function("__x64_sys_read"), SUBSYS_FS);
	assert_int_equal(subsys_of_function("__x64_sys_futex"), SUBSYS_LOCKING);
	assert_int_equal(subsys_of_function("__x64_sys_mmap"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("__x64_sys_sendto"), SUBSYS_NET);
	assert_int_equal(subsys_of_function("__x64_sys_sched_yield"), SUBSYS_SCHED);
	assert_int_equal(subsys_of_function("__x64_sys_getpid"), SUBSYS_SYSCALL);
	assert_int_equal(subsys_of_function("page_pool_alloc_pages"), SUBSYS_NET);
	assert_int_equal(subsys_of_function("page_remove_rmap"), SUBSYS_MM);
	assert_int_equal(subsys_of_function("vp_notify"), SUBSYS_BLOCK);
	assert_int_equal(subsys_of_function("pv_native_safe_halt"), SUBSYS_IDLE);
	assert_int_equal(subsys_of_function("asm_sysvec_apic_timer_interrupt"), SUBSYS_IRQ);
	assert_int_equal(subsys_of_function("entry_SYSCALL_64_after_hwframe"), SUBSYS_SYSCALL);
	assert_int_equal(subsys_of_function("kthread"), SUBSYS_N);
	assert_int_equal(subsys_of_function("no_such_function_here"), SUBSYS_N);
	assert_int_equal(subsys_of_function(""), SUBSYS_N);
	assert_int_equal(subsys_of_function(NULL), SUBSYS_N);
}

static void test_stacks(void **state)
{
	(void)state;
	/* a user page fault; the skid leaf is exc_page_fault itself */
	assert_int_equal(CLASSIFY("asm_exc_page_fault", "exc_page_fault"), SUBSYS_MM);
	assert_int_equal(CLASSIFY("asm_exc_page_fault", "exc_page_fault",
				  "do_user_addr_fault", "handle_mm_fault",
				  "__handle_mm_fault", "do_anonymous_page",
				  "alloc_anon_folio", "vma_alloc_folio_noprof",
				  "clear_page_erms"), SUBSYS_MM);
	/* read(2) of a pipe, blocking in schedule: fs from the root side */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "x64_sys_call", "__x64_sys_read", "ksys_read",
				  "vfs_read", "anon_pipe_read", "schedule", "__schedule",
				  "finish_task_switch.isra.0"), SUBSYS_FS);
	/* idle */
	assert_int_equal(CLASSIFY("secondary_startup_64_no_verify", "start_secondary",
				  "cpu_startup_entry", "do_idle", "default_idle_call",
				  "pv_native_safe_halt"), SUBSYS_IDLE);
	/* an interrupt on top of a syscall: interrupt context wins */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "__x64_sys_write", "ksys_write", "vfs_write",
				  "asm_sysvec_apic_timer_interrupt",
				  "sysvec_apic_timer_interrupt", "__irq_exit_rcu",
				  "handle_softirqs", "run_timer_softirq"), SUBSYS_IRQ);
	/* an interrupt during idle */
	assert_int_equal(CLASSIFY("do_idle", "default_idle_call", "asm_common_interrupt",
				  "common_interrupt", "handle_edge_irq"), SUBSYS_IRQ);
	/* futex */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "__x64_sys_futex", "do_futex", "futex_wait",
				  "futex_wait_queue", "schedule"), SUBSYS_LOCKING);
	/* syscall return path preempted: generic entry looked past */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "syscall_exit_to_user_mode", "schedule", "__schedule"),
			 SUBSYS_SCHED);
	/* nothing but entry frames */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "__x64_sys_getpid"), SUBSYS_SYSCALL);
	/* unknown -> other; kthread plumbing is transparent */
	assert_int_equal(CLASSIFY("ret_from_fork_asm", "ret_from_fork", "kthread",
				  "some_driver_thread"), SUBSYS_OTHER);
	assert_int_equal(CLASSIFY("ret_from_fork_asm", "ret_from_fork", "kthread",
				  "kswapd", "balance_pgdat", "shrink_node"), SUBSYS_MM);
	assert_int_equal(CLASSIFY("ret_from_fork_asm", "ret_from_fork", "kthread",
				  "smpboot_thread_fn", "run_ksoftirqd", "handle_softirqs"),
			 SUBSYS_IRQ);
	/* an unlock skid leaf under an unknown kthread is not locking */
	assert_int_equal(CLASSIFY("ret_from_fork_asm", "ret_from_fork", "kthread",
				  "rcu_gp_kthread", "rcu_gp_cleanup", "_raw_spin_unlock_irq"),
			 SUBSYS_OTHER);
	/* an LRU batch under a fault ending in an unlock skid leaf stays mm */
	assert_int_equal(CLASSIFY("asm_exc_page_fault", "exc_page_fault", "handle_mm_fault",
				  "__handle_mm_fault", "do_anonymous_page",
				  "__folio_batch_add_and_move", "folio_batch_move_lru",
				  "_raw_spin_unlock_irqrestore"), SUBSYS_MM);
	/* bpf(2) allocating maps is not mm */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "__x64_sys_bpf", "__sys_bpf", "map_create", "stack_map_alloc",
				  "__vmalloc_node_range_noprof", "alloc_pages_noprof"),
			 SUBSYS_OTHER);
	/* this kernel tail-calls __x64_sys_write: ksys_write decides */
	assert_int_equal(CLASSIFY("entry_SYSCALL_64_after_hwframe", "do_syscall_64",
				  "ksys_write", "vfs_write", "anon_pipe_write",
				  "_raw_spin_unlock_irqrestore"), SUBSYS_FS);
	/* suffixes stripped before matching */
	assert_int_equal(CLASSIFY("do_wp_page.cold", "wp_page_copy.isra.0"), SUBSYS_MM);
	assert_int_equal(CLASSIFY("tcp_sendmsg_locked.constprop.0"), SUBSYS_NET);
	assert_int_equal(subsys_classify(NULL, 0), SUBSYS_OTHER);
}

/* No exact name may be listed twice with different subsystems. */
static void test_table_consistent(void **state)
{
	(void)state;
	assert_true(subsys_nrules >= 150);
	for (size_t i = 0; i < subsys_nrules; i++) {
		assert_true(subsys_rules[i].subsys < SUBSYS_N);
		for (size_t j = i + 1; j < subsys_nrules; j++) {
			if (subsys_rules[i].prefix != subsys_rules[j].prefix)
				continue;
			if (strcmp(subsys_rules[i].name, subsys_rules[j].name) == 0) {
				print_error("duplicate rule %s\n", subsys_rules[i].name);
				fail();
			}
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_base_len),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_stacks),
		cmocka_unit_test(test_table_consistent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
