/* kwork — a kworker's work function from its stack (see kwork.h). */
#include <string.h>

#include "data/kwork.h"
#include "data/procinfo.h"
#include "data/subsys.h"

/* What process_one_work calls itself around the work function, or what
 * interrupts it, by name (exact, or a prefix when it ends in '*'): the
 * pool's lock, lock debugging, scheduling points, the workqueue
 * tracepoints (and a BPF program attached to them), waking another worker,
 * the return thunks of the retpoline/SRSO mitigations. */
static const char *const kwork_helpers[] = {
	"_raw_spin_*", "raw_spin_*", "__raw_spin_*", "do_raw_spin_*", "queued_spin_*",
	"native_queued_spin_*", "__pv_queued_spin_*", "lock_acquire", "lock_release",
	"lock_map_*",
	"schedule", "__schedule", "preempt_schedule*", "__cond_resched", "_cond_resched",
	"finish_task_switch", "__SCT__*",
	"__traceiter_workqueue_*", "trace_workqueue_*", "__bpf_trace_workqueue_*",
	"perf_trace_workqueue_*", "bpf_trace_run*",
	"kick_pool", "wake_up_process", "try_to_wake_up", "insert_work", "worker_set_flags",
	"worker_clr_flags", "pwq_dec_nr_in_flight", "pwq_activate_first_inactive",
	"find_worker_executing_work", "set_work_pool_and_clear_pending", "strscpy",
	"sized_strscpy", "__x86_return_thunk", "its_return_thunk", "srso_*",
	"__x86_indirect_*",
};

static int kwork_match(const char *pat, const char *name, size_t len)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return len >= n - 1 && !memcmp(name, pat, n - 1);
	return len == n && !memcmp(name, pat, n);
}

static int kwork_is_helper(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(kwork_helpers) / sizeof(kwork_helpers[0]); i++)
		if (kwork_match(kwork_helpers[i], name, len))
			return 1;
	return 0;
}

/* 1 when name is word, whole or with a compiler suffix or a module after. */
static int kwork_is(const char *name, const char *word, size_t wlen)
{
	return !strncmp(name, word, wlen) &&
	       (!name[wlen] || name[wlen] == '.' || name[wlen] == ' ' || name[wlen] == '\t');
}

/* An interrupt or exception entry: what runs above it is not the task's
 * own work (a BH work item run on irq exit, by bh_worker, is not the
 * interrupted kworker's).  Every frame of a kworker's stack up to
 * process_one_work is asked: the first character decides most. */
static int kwork_is_entry(const char *f)
{
	switch (f[0]) {
	case 'a': return !strncmp(f, "asm_", 4);
	case 's': return !strncmp(f, "sysvec_", 7);
	case '_': return !strncmp(f, "__sysvec_", 9);
	case 'c': return kwork_is(f, "common_interrupt", 16);
	}
	return 0;
}

const char *kwork_func(const char *const *frames, size_t nframes, size_t *len)
{
	for (size_t i = 0; i < nframes; i++) {
		const char *f = frames[i];
		size_t n;

		if (!f || kwork_is_entry(f))
			return NULL;
		if (f[0] != 'p' || !kwork_is(f, "process_one_work", 16))
			continue;
		if (i + 1 >= nframes || !frames[i + 1])
			return NULL;
		f = frames[i + 1];
		n = subsys_base_len(f);
		if (!n || kwork_is_helper(f, n) || kwork_is_entry(f))
			return NULL;
		if (len)
			*len = n;
		return f;
	}
	return NULL;
}

int kwork_is_worker(const char *comm, int kthread)
{
	const char *role = comm ? procinfo_kthread_role(comm) : NULL;

	return kthread != 0 && role && !strcmp(role, "kworker");
}
