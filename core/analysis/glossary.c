/* glossary — lookups in the glossary table and a node's numbers in words. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/glossary.h"
#include "base/numfmt.h"

static const char *const subsys_texts[SUBSYS_N] = {
	[SUBSYS_MM] = "Memory management: page faults, the page allocator and slab caches, page tables and TLB flushes, reclaim and compaction, the page cache and memory cgroups. A rise here usually means a program touches new memory, maps and unmaps a lot, or runs short of free memory.",
	[SUBSYS_SCHED] = "The scheduler: choosing which task runs on which CPU, context switches, wakeups and load balancing. A rise here means more sleeping and waking (blocking I/O, locks, pipes) or more runnable tasks than CPUs.",
	[SUBSYS_FS] = "File systems and the VFS: opening and looking up paths, read and write of files, pipes, poll and epoll, fsync and writeback. A rise here means more file or pipe operations; the callee says which filesystem work.",
	[SUBSYS_NET] = "Networking: sockets, TCP/UDP/IP, packet receive and transmit, netfilter, the network drivers. A rise here means more packets or more socket calls.",
	[SUBSYS_BLOCK] = "The block layer: I/O requests to disks, I/O schedulers and the disk drivers (virtio-blk here). A rise means more disk I/O; the time a task waits for the disk is off-CPU and needs an offcpu step to be seen.",
	[SUBSYS_IRQ] = "Interrupt context: hardware interrupts, inter-processor interrupts, softirqs (network, timers, block completions, RCU) and timers. Work here is charged to whatever task was interrupted.",
	[SUBSYS_LOCKING] = "Locks: spinlocks, mutexes, reader-writer semaphores and futexes (user-space locks). Much time here means contention: several CPUs or threads want the same lock.",
	[SUBSYS_SYSCALL] = "System call and exception entry and exit, with nothing more specific known below: the cost of crossing into the kernel and back, including the work done on return to user space.",
	[SUBSYS_IDLE] = "The idle loop: CPUs with nothing to run. Samples here are idle time, not work, and are left out of the descent.",
	[SUBSYS_OTHER] = "Kernel code argus's subsystem table does not place (drivers, BPF, security modules, architecture code). The function names below say what it is.",
	[SUBSYS_USER] = "Time the diagnosed threads ran in user space: on-CPU time with no kernel sample (the scheduler's exact on-CPU time of each process less its kernel samples; samples the sampler lost count here too). A fall here with a rise elsewhere means the threads compute less and wait or run the kernel more.",
};

const char *glossary_subsys_text(enum subsys s)
{
	return (unsigned)s < SUBSYS_N ? subsys_texts[s] : "";
}

const struct glossary_entry *glossary_find(const char *name)
{
	size_t n = subsys_base_len(name);
	static const char noprof[] = "_noprof";
	size_t np = sizeof(noprof) - 1;

	if (!n)
		return NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < glossary_count; i++) {
			const char *g = glossary_table[i].name;

			if (strlen(g) == n && !memcmp(g, name, n))
				return &glossary_table[i];
		}
		/* alloc_pages_noprof and friends: the allocation-profiling wrappers */
		if (n > np && !memcmp(name + n - np, noprof, np))
			n -= np;
		else
			break;
	}
	return NULL;
}

char *glossary_explain(const struct tree_node *n, char *buf, size_t len)
{
	const struct glossary_entry *e;

	if (!len)
		return buf;
	switch (n->kind) {
	case TREE_ROOT:
		snprintf(buf, len, "All samples of the measurement, split by subsystem below. "
			 "Rates are samples per second of window time in each condition.");
		return buf;
	case TREE_PROCESS:
		snprintf(buf, len, "A process (%s): the samples taken while it ran in the kernel, "
			 "split by subsystem below.", n->name);
		return buf;
	case TREE_COMMAND:
		snprintf(buf, len, "The %u processes named %s: their samples summed; each process "
			 "is below it, split by subsystem.", n->nproc, n->name);
		return buf;
	case TREE_SUBSYS:
		snprintf(buf, len, "%s", glossary_subsys_text(n->subsys));
		return buf;
	case TREE_EVENT:
		snprintf(buf, len, "A tracepoint event (%s) counted by an instrumentation step "
			 "at this place in the kernel.", n->name);
		return buf;
	case TREE_TIME:
		snprintf(buf, len, "A kind of time of the diagnosed threads (%s): on-cpu from the "
			 "sampler, blocked (off-CPU, not runnable) and runnable (waiting for a CPU) "
			 "in sample-equivalents, split by subsystem below.", n->name);
		return buf;
	case TREE_FRAME:
		break;
	}
	if (n->name && !strcmp(n->name, SUBSYS_USER_FRAME)) {
		snprintf(buf, len, "%s", glossary_subsys_text(SUBSYS_USER));
		return buf;
	}
	e = glossary_find(n->name);
	if (e)
		snprintf(buf, len, "%s", e->text);
	else
		snprintf(buf, len, "No glossary entry for %.*s. It runs in %s: %s",
			 (int)subsys_base_len(n->name), n->name, subsys_name(n->subsys),
			 glossary_subsys_text(n->subsys));
	return buf;
}

/* "412", "3.1", "0.25": a rate for a sentence. */
static void words_rate(char *b, size_t len, double r)
{
	if (r >= 100 || r == floor(r))
		snprintf(b, len, "%.0f", r);
	else if (r >= 1)
		snprintf(b, len, "%.1f", r);
	else
		snprintf(b, len, "%.2g", r);
}

char *glossary_numbers(const struct tree_node *n, int calibrated, uint64_t root_total,
		       unsigned freq_hz, char *buf, size_t len)
{
	const struct calib_stat *s = &n->stat;
	char rl[32], rr[32], q[32], cmp[96], cpu[96] = "";
	uint64_t tot = tree_node_sum(n), self = n->self[COND_REF] + n->self[COND_LOAD];
	const char *unit = tree_node_unit(n);
	size_t off;

	if (!len)
		return buf;
	if (!calibrated && unit) {
		snprintf(buf, len, "A step counted %llu %s here, over its own windows: they are "
			 "not samples and no share of the tree's.", (unsigned long long)tot, unit);
		return buf;
	}
	if (!calibrated) {
		snprintf(buf, len, "This node has %llu samples (%.1f%% of all), %llu of them in "
			 "the function itself rather than in what it calls. There is no reference "
			 "to compare with, so nothing says whether this is more than usual.",
			 (unsigned long long)tot,
			 root_total ? 100.0 * (double)tot / (double)root_total : 0.0,
			 (unsigned long long)self);
		return buf;
	}
	words_rate(rl, sizeof(rl), s->rate[COND_LOAD]);
	words_rate(rr, sizeof(rr), s->rate[COND_REF]);
	numfmt_p(q, sizeof(q), "q", s->q, NUMFMT_P_BRIEF);
	if (s->rate[COND_REF] <= 0 && s->rate[COND_LOAD] > 0)
		snprintf(cmp, sizeof(cmp), "never in the reference: it is new under load");
	else if (s->rate[COND_LOAD] <= 0 && s->rate[COND_REF] > 0)
		snprintf(cmp, sizeof(cmp), "%s in the reference: it vanished under load", rr);
	else if (s->rate[COND_LOAD] <= 0)
		snprintf(cmp, sizeof(cmp), "none in the reference either");
	else if (s->ratio >= 1.995)
		snprintf(cmp, sizeof(cmp), "%s in the reference: %.0f times more", rr, s->ratio);
	else if (s->ratio > 1.005)
		snprintf(cmp, sizeof(cmp), "%s in the reference: %.0f%% more", rr,
			 (s->ratio - 1) * 100);
	else if (s->ratio > 0 && s->ratio < 0.5)
		snprintf(cmp, sizeof(cmp), "%s in the reference: %.0f times less", rr, 1 / s->ratio);
	else if (s->ratio < 0.995)
		snprintf(cmp, sizeof(cmp), "%s in the reference: %.0f%% less", rr,
			 (1 - s->ratio) * 100);
	else
		snprintf(cmp, sizeof(cmp), "%s in the reference: about the same", rr);
	if (unit) {
		/* a step's node: its own events over the step's windows, not
		 * samples, so no CPU time follows from them */
		off = (size_t)snprintf(buf, len, "A step counted these %s %s times a second while "
				       "loaded against %s; ", unit, rl, cmp);
		goto verdict;
	}
	if (freq_hz)
		snprintf(cpu, sizeof(cpu), " (at %u Hz, about %.1f ms of CPU per second against %.1f)",
			 freq_hz, s->rate[COND_LOAD] * 1000.0 / freq_hz,
			 s->rate[COND_REF] * 1000.0 / freq_hz);
	off = (size_t)snprintf(buf, len, "This node was sampled %s times a second while loaded "
			       "against %s%s; ", rl, cmp, cpu);
verdict:
	if (off >= len)
		return buf;
	if (s->significant)
		snprintf(buf + off, len - off, "the difference is significant (%s) and %u of %u "
			 "window pairs agree.", q, s->pairs_agree, s->pairs);
	else if (s->q <= 0.05 && s->pairs)
		snprintf(buf + off, len - off, "the difference would be significant (%s) but only "
			 "%u of %u window pairs agree, so it is not trusted.", q, s->pairs_agree,
			 s->pairs);
	else if (tot < 5)
		snprintf(buf + off, len - off, "with %llu %s that is too few to tell.",
			 (unsigned long long)tot, unit ? unit : "samples");
	else
		snprintf(buf + off, len - off, "the difference is not significant (%s, %u of %u "
			 "window pairs agree): it may be noise.", q, s->pairs_agree, s->pairs);
	return buf;
}
