/* bench_tree — merging 1M samples over 100k distinct synthetic kernel
 * stacks (depth 10-40, shared prefixes, names reused across paths) into a
 * profile, then building, sorting and writing the calling-context tree.
 * Prints each phase's CPU time (this process, so other load on the
 * machine matters less) and its share of the whole, side by side. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data/profile.h"
#include "data/tree.h"

#define NSTACKS   100000u
#define NSAMPLES  1000000u
#define NNAMES    20000u
#define MAXDEPTH  40u
#define NWIN      4u

static uint64_t rng_state = 0x853c49e6748fea9bULL;

static uint64_t rng(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static const char *const heads[][6] = {
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "x64_sys_call", "__x64_sys_read", "ksys_read", "vfs_read" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "x64_sys_call", "__x64_sys_futex", "do_futex", "futex_wait" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "x64_sys_call", "__x64_sys_write", "ksys_write", "vfs_write" },
	{ "asm_exc_page_fault", "exc_page_fault", "do_user_addr_fault", "handle_mm_fault", "__handle_mm_fault", "do_anonymous_page" },
	{ "secondary_startup_64_no_verify", "start_secondary", "cpu_startup_entry", "do_idle", "default_idle_call", "pv_native_safe_halt" },
	{ "ret_from_fork_asm", "ret_from_fork", "kthread", "worker_thread", "process_one_work", "vmstat_update" },
	{ "entry_SYSCALL_64_after_hwframe", "do_syscall_64", "x64_sys_call", "__x64_sys_sendto", "__sys_sendto", "tcp_sendmsg" },
	{ "asm_sysvec_apic_timer_interrupt", "sysvec_apic_timer_interrupt", "__sysvec_apic_timer_interrupt", "hrtimer_interrupt", "__hrtimer_run_queues", "tick_sched_timer" },
};

int main(void)
{
	static char namebuf[NNAMES][48];
	const char **names = malloc(NNAMES * sizeof(*names));
	const char *(*stk)[MAXDEPTH] = malloc(NSTACKS * sizeof(*stk));
	unsigned *depth = malloc(NSTACKS * sizeof(*depth));
	uint32_t *order = malloc(NSAMPLES * sizeof(*order));
	struct profile *p = profile_new();
	struct tree *t;
	double t0, t_add, t_build, t_sort, t_json, t_rebuild, all, t_agg_add, t_agg_build;
	uint64_t sum = 0;
	FILE *devnull = fopen("/dev/null", "w");

	if (!names || !stk || !depth || !order || !p || !devnull) {
		fprintf(stderr, "bench_tree: out of memory\n");
		return 1;
	}
	for (unsigned i = 0; i < NNAMES; i++) {
		snprintf(namebuf[i], sizeof(namebuf[i]), "synthetic_function_%u%s", i,
			 i % 17 == 0 ? ".isra.0" : i % 23 == 0 ? ".constprop.0" : "");
		names[i] = namebuf[i];
	}
	/* stacks: a head of 6 real frames, then frames chosen by a hash of the
	 * path so far: up to 4 branches near the root, rarely deeper */
	for (unsigned s = 0; s < NSTACKS; s++) {
		unsigned h = (unsigned)(rng() % (sizeof(heads) / sizeof(heads[0])));
		uint64_t path = h + 1;

		depth[s] = 10 + (unsigned)(rng() % 31);
		for (unsigned i = 0; i < depth[s]; i++) {
			if (i < 6) {
				stk[s][i] = heads[h][i];
				continue;
			}
			unsigned br = i < 10 ? 4 : (rng() % 100 < 12 ? 3 : 1);
			path = path * 0x100000001b3ULL + 1 + rng() % br;
			path ^= path >> 29;
			stk[s][i] = names[path % NNAMES];
		}
	}
	/* 10 samples per stack, in random order, over 4 alternating windows */
	for (unsigned i = 0; i < NSAMPLES; i++)
		order[i] = i % NSTACKS;
	for (unsigned i = NSAMPLES - 1; i > 0; i--) {
		unsigned j = (unsigned)(rng() % (i + 1));
		uint32_t x = order[i];

		order[i] = order[j];
		order[j] = x;
	}
	for (unsigned w = 0; w < NWIN; w++) {
		profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w);
		profile_window_end(p, w, 1.0);
	}

	t0 = now_s();
	for (unsigned i = 0; i < NSAMPLES; i++) {
		unsigned s = order[i];

		if (profile_add(p, i % NWIN, stk[s], depth[s], 1000 + s % 50, "load", 1) < 0) {
			fprintf(stderr, "bench_tree: profile_add failed\n");
			return 1;
		}
	}
	t_add = now_s() - t0;

	t0 = now_s();
	t = tree_build(p, NULL);
	t_build = now_s() - t0;
	if (!t) {
		fprintf(stderr, "bench_tree: tree_build failed\n");
		return 1;
	}
	t0 = now_s();
	tree_sort(t, TREE_SORT_TOTAL);
	t_sort = now_s() - t0;
	t0 = now_s();
	tree_write_json(t, COND_N, devnull);
	t_json = now_s() - t0;
	t0 = now_s();
	{
		struct tree *t2 = tree_build(p, NULL);

		t_rebuild = now_s() - t0;
		if (!t2 || !tree_find_id(t2, t->root->child[0]->child[0]->id)) {
			fprintf(stderr, "bench_tree: rebuilt tree lost an id\n");
			return 1;
		}
		tree_free(t2);
	}
	for (unsigned c = 0; c < t->root->nchild; c++)
		sum += tree_node_sum(t->root->child[c]);

	/* The same 1M samples as argus receives them: the kernel has merged
	 * them per stack (stack map + hash), so user space adds each distinct
	 * {stack, window} once with its count, then builds the tree. */
	{
		uint32_t *cnt = calloc((size_t)NSTACKS * NWIN, sizeof(*cnt));
		struct profile *p2 = profile_new();
		struct tree *t3;

		if (!cnt || !p2) {
			fprintf(stderr, "bench_tree: out of memory\n");
			return 1;
		}
		for (unsigned i = 0; i < NSAMPLES; i++)
			cnt[(size_t)order[i] * NWIN + i % NWIN]++;
		for (unsigned w = 0; w < NWIN; w++) {
			profile_window_begin(p2, w % 2 ? COND_LOAD : COND_REF, w);
			profile_window_end(p2, w, 1.0);
		}
		t0 = now_s();
		for (unsigned st = 0; st < NSTACKS; st++)
			for (unsigned w = 0; w < NWIN; w++)
				if (cnt[(size_t)st * NWIN + w] &&
				    profile_add(p2, w, stk[st], depth[st], 1000 + st % 50, "load",
						cnt[(size_t)st * NWIN + w]) < 0) {
					fprintf(stderr, "bench_tree: profile_add failed\n");
					return 1;
				}
		t_agg_add = now_s() - t0;
		t0 = now_s();
		t3 = tree_build(p2, NULL);
		t_agg_build = now_s() - t0;
		if (!t3 || t3->nnodes != t->nnodes) {
			fprintf(stderr, "bench_tree: the aggregated tree differs\n");
			return 1;
		}
		tree_free(t3);
		profile_free(p2);
		free(cnt);
	}

	all = t_add + t_build + t_sort + t_json;
	printf("stacks %zu (of %u generated), samples %" PRIu64 ", windows %u, tree nodes %zu\n",
	       p->nstacks, NSTACKS, sum, NWIN, t->nnodes);
	printf("%-26s %10s %8s %12s\n", "phase", "ms", "share", "per item");
	printf("%-26s %10.1f %7.1f%% %9.0f ns/sample\n", "profile_add (1M samples)",
	       t_add * 1e3, 100 * t_add / all, t_add * 1e9 / NSAMPLES);
	printf("%-26s %10.1f %7.1f%% %9.0f ns/stack\n", "tree_build", t_build * 1e3,
	       100 * t_build / all, t_build * 1e9 / p->nstacks);
	printf("%-26s %10.1f %7.1f%% %9.0f ns/node\n", "tree_sort (total)", t_sort * 1e3,
	       100 * t_sort / all, t_sort * 1e9 / t->nnodes);
	printf("%-26s %10.1f %7.1f%% %9.0f ns/node\n", "tree_write_json", t_json * 1e3,
	       100 * t_json / all, t_json * 1e9 / t->nnodes);
	printf("%-26s %10.1f %7s  (x%.2f of the first build)\n", "tree_build again",
	       t_rebuild * 1e3, "", t_rebuild / t_build);
	printf("\nmerge of 1M samples over %zu stacks, as argus does it (kernel-aggregated):\n",
	       p->nstacks);
	printf("%-26s %10.1f\n%-26s %10.1f\n%-26s %10.1f ms   (%.2f of the 1 s target)\n",
	       "profile_add (per stack)", t_agg_add * 1e3, "tree_build", t_agg_build * 1e3,
	       "total", (t_agg_add + t_agg_build) * 1e3, t_agg_add + t_agg_build);
	printf("%-26s %10.1f ms   (%.2f of the 1 s target)\n",
	       "one sample at a time", (t_add + t_build) * 1e3, t_add + t_build);
	tree_free(t);
	profile_free(p);
	fclose(devnull);
	free(names);
	free(stk);
	free(depth);
	free(order);
	return sum == NSAMPLES ? 0 : 1;
}
