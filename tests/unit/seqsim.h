/* seqsim — what test_seqtest.c and test_seqstop.c simulate: a seeded
 * random source, Poisson draws, and a synthetic kernel tree with realistic
 * rates (a 2-CPU machine sampled at 999 Hz: mostly idle, a page-fault
 * load's mm paths, syscalls, a dozen rare leaves) measured in alternating
 * reference/loaded windows. */
#ifndef ARGUS_TEST_SEQSIM_H
#define ARGUS_TEST_SEQSIM_H

#include <math.h>
#include <stdint.h>

struct sim_rng {
	uint64_t s;
};

/* splitmix64: small, fast, and the same sequence on every machine */
static inline uint64_t sim_u64(struct sim_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* uniform in (0, 1) */
static inline double sim_unif(struct sim_rng *r)
{
	return ((double)(sim_u64(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Poisson(lam): inversion for small lam, Hormann's PTRS above 10 */
static inline uint64_t sim_poisson(struct sim_rng *r, double lam)
{
	if (lam <= 0)
		return 0;
	if (lam < 10) {
		double l = exp(-lam), p = 1;
		uint64_t k = 0;

		for (;;) {
			p *= sim_unif(r);
			if (p <= l)
				return k;
			k++;
		}
	}
	{
		double slam = sqrt(lam), loglam = log(lam);
		double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
		double inva = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2);

		for (;;) {
			double u = sim_unif(r) - 0.5, v = sim_unif(r), us = 0.5 - fabs(u);
			double k = floor((2 * a / us + b) * u + lam + 0.43);

			if (us >= 0.07 && v <= vr)
				return (uint64_t)k;
			if (k < 0 || (us < 0.013 && v > us))
				continue;
			if (log(v) + log(inva) - log(a / (us * us) + b) <=
			    -lam + k * loglam - lgamma(k + 1))
				return (uint64_t)k;
		}
	}
}

#define SIM_MAXF 10

struct sim_stack {
	const char *frames[SIM_MAXF]; /* root first, NULL-terminated */
	double rate;                  /* samples/s in both conditions */
	int effect;                   /* 1: multiplied by the effect when loaded */
};

#define SIM_PF "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", \
	"handle_mm_fault", "__handle_mm_fault"
#define SIM_SYS "entry_SYSCALL_64", "do_syscall_64"

/* 34 stacks, about 80 nodes: the busy part of a 2-CPU machine at 999 Hz */
static const struct sim_stack sim_stacks[] = {
	{ { "cpu_startup_entry", "do_idle", "cpuidle_enter", "intel_idle" }, 1200, 0 },
	{ { "cpu_startup_entry", "do_idle", "default_idle_call" }, 90, 0 },
	{ { SIM_PF, "do_anonymous_page", "clear_page_erms" }, 150, 1 },
	{ { SIM_PF, "do_anonymous_page", "alloc_anon_folio", "__alloc_pages" }, 40, 1 },
	{ { SIM_PF, "do_anonymous_page", "folio_add_lru" }, 12, 1 },
	{ { SIM_PF, "do_wp_page", "wp_page_copy", "copy_page" }, 20, 0 },
	{ { SIM_PF, "do_fault", "filemap_map_pages" }, 30, 0 },
	{ { "asm_exc_page_fault", "exc_page_fault" }, 25, 0 },
	{ { SIM_SYS, "__x64_sys_munmap", "unmap_region", "zap_pte_range" }, 35, 0 },
	{ { SIM_SYS, "__x64_sys_mmap", "do_mmap", "mmap_region" }, 8, 0 },
	{ { SIM_SYS, "__x64_sys_sched_yield", "do_sched_yield", "schedule", "__schedule" }, 60, 0 },
	{ { SIM_SYS, "__x64_sys_futex", "do_futex", "futex_wait" }, 15, 0 },
	{ { SIM_SYS, "ksys_read", "vfs_read", "filemap_read", "copy_page_to_iter" }, 40, 0 },
	{ { SIM_SYS, "ksys_write", "vfs_write", "anon_pipe_write", "copy_page_from_iter" }, 30, 0 },
	{ { SIM_SYS, "__sys_sendto", "tcp_sendmsg", "tcp_push" }, 10, 0 },
	{ { SIM_SYS, "__x64_sys_openat", "do_sys_openat2", "path_openat" }, 6, 0 },
	{ { SIM_SYS, "__x64_sys_newfstatat", "vfs_fstatat" }, 4, 0 },
	{ { SIM_SYS, "__x64_sys_close", "__fput" }, 3, 0 },
	{ { SIM_SYS, "__x64_sys_epoll_wait", "do_epoll_wait", "ep_poll" }, 5, 0 },
	{ { SIM_SYS, "__x64_sys_nanosleep", "hrtimer_nanosleep" }, 2, 0 },
	{ { "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt",
	    "__sysvec_apic_timer_interrupt", "hrtimer_interrupt" }, 20, 0 },
	{ { "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "irq_exit_rcu",
	    "handle_softirqs", "run_rebalance_domains" }, 6, 0 },
	{ { "asm_common_interrupt", "common_interrupt", "handle_edge_irq" }, 3, 0 },
	{ { "ret_from_fork", "kthread", "worker_thread", "process_one_work", "vmstat_update" }, 2, 0 },
	{ { "ret_from_fork", "kthread", "rcu_gp_kthread", "rcu_gp_fqs_loop" }, 3, 0 },
	{ { "ret_from_fork", "kthread", "kcompactd" }, 1, 0 },
	{ { "ret_from_fork", "kthread", "smpboot_thread_fn", "run_ksoftirqd" }, 2, 0 },
	{ { SIM_SYS, "__x64_sys_exit_group", "do_exit", "mmput", "exit_mmap" }, 1.5, 0 },
	{ { SIM_SYS, "__x64_sys_clone", "kernel_clone", "copy_process" }, 1.5, 0 },
	{ { SIM_SYS, "__x64_sys_execve", "do_execveat_common", "bprm_execve" }, 1, 0 },
	{ { SIM_SYS, "__x64_sys_ioctl", "drm_ioctl" }, 0.5, 0 },
	{ { SIM_SYS, "__x64_sys_getrandom", "get_random_bytes_user" }, 0.5, 0 },
	{ { SIM_SYS, "__x64_sys_madvise", "do_madvise" }, 2, 0 },
	{ { "exit_to_user_mode_loop", "schedule", "__schedule" }, 25, 0 },
};

#define SIM_NSTACKS (sizeof(sim_stacks) / sizeof(sim_stacks[0]))

static inline unsigned sim_nframes(const struct sim_stack *s)
{
	unsigned n = 0;

	while (n < SIM_MAXF && s->frames[n])
		n++;
	return n;
}

#endif
