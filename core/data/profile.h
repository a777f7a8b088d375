/* profile — aggregated kernel stacks, per measurement window.
 *
 * A profile is what a measurement yields, whatever its source: live BPF
 * sampling (core/probe_profile), a recorded session (core/session), or
 * folded / perf-script files (core/import).  It knows nothing of subsystems
 * or trees: core/tree builds the calling-context tree from it.
 *
 * Frames are symbol names, root first (outermost caller first, leaf last),
 * interned in the profile's string pool: two equal names are the same
 * pointer for as long as the profile lives.
 *
 * Windows alternate between conditions (reference, loaded).  Every stack
 * carries one count per window, so calibration can compare conditions and
 * check sign consistency pair by pair.
 */
#ifndef ARGUS_PROFILE_H
#define ARGUS_PROFILE_H

#include <stddef.h>
#include <stdint.h>

enum cond {
	COND_REF = 0,   /* reference: load paused, absent, or a saved idle run */
	COND_LOAD = 1,  /* loaded */
	COND_N
};

const char *cond_name(enum cond c); /* "ref" / "load" */

struct profile_window {
	enum cond cond;
	double secs;            /* measured length, settle time excluded */
	double start_s;         /* offset from the start of the measurement */
	uint64_t lost;          /* samples the source lost in this window */
	uint64_t ustack_errors; /* issue 27: samples counted in this window
	                         * without their user stack, which could not be
	                         * taken (a fault or an unmapped stack in the
	                         * walk): in no call site, so said apart (0:
	                         * none, or an old session that did not count
	                         * them).  A step's: its events (an offcpu
	                         * step's blocked intervals, not microseconds) */
	int works_traced;       /* the workqueue tracepoint counted this
	                         * window's work items (profile_work; 0: not
	                         * run, an old session, another source) */
};

/* A work function a kernel worker ran in a window (issue 15), counted by
 * the workqueue_execute_start tracepoint (core/probe/probe_workqueue.h) while
 * the window ran: what names a kworker whose samples its stacks do not
 * (core/data/kwork.h). */
struct profile_work {
	unsigned win;
	uint32_t pid;           /* the worker (a kernel thread: its tgid too) */
	const char *func;       /* interned: "name" or "name [module]" as
	                         * kallsyms says, or "0x..." when unknown */
	uint64_t count;         /* executions in the window */
};

struct profile_stack {
	const char **frames;    /* nframes interned names, root first */
	uint32_t nframes;
	/* issue 27: the user-space stack under the kernel one, root first
	 * (core/usym.h: "function (module)", ending in a "[...]" marker where
	 * the walk stopped short); NULL with 0: none taken.  Part of the
	 * stack's identity: one kernel path reached from two call sites is
	 * two stacks. */
	const char **uframes;
	uint32_t nuframes;
	uint32_t tgid;          /* 0 when unknown (imported files) */
	const char *comm;       /* interned; "" when unknown */
	uint64_t *win;          /* counts, one per window (profile->nwin) */
	uint64_t total;         /* sum over all windows */
};

/* Which processes are the diagnosed work (issue 11): set by the source
 * that knows (core/measure: the load's processes, or every sampled one when
 * the sampling is filtered to a victim).  known 0: nobody said (imported
 * files, old sessions). */
#define PROFILE_DIAG_MAX 64
struct profile_diag {
	int known;
	int all;                /* every stack is the diagnosed work's (a victim:
	                         * tgids then lists its processes, to tell its own
	                         * wakers and CPU rivals from others; none in
	                         * older sessions) */
	unsigned ntgids;
	uint32_t tgids[PROFILE_DIAG_MAX];
};

/* Adds tgid to d (once; ignored when d is full).  Sets d->known. */
void profile_diag_add(struct profile_diag *d, uint32_t tgid);

/* Who a process is (issue 15), as /proc showed it while it ran
 * (core/data/procinfo.h, procinfo_profile_capture) or as a session recorded it.
 * Strings are interned in the profile's pool, "" when unknown, escaped
 * (core/base/sanitize.h) when they held control characters. */
struct profile_ident {
	uint32_t tgid;
	const char *comm;       /* the process's (main thread's) name */
	const char *cmdline;    /* arguments joined by spaces; "" for kernel threads */
	const char *exe;
	const char *cgroup;
	const char *unit;       /* systemd unit the cgroup path shows */
	const char *container;  /* container id (12 hex digits) */
	const char *role;       /* kernel threads: "kworker", "softirq", ... */
	const char *threads;    /* thread names with counts: "worker x8, main" */
	int kthread;
};

/* A user-space module named in the stacks' user frames (issue 27): the
 * "module" of "function (module)" with the file it was mapped from, so a
 * pprof's Mapping carries what go tool pprof, Pyroscope and Parca look
 * symbols up by.  Strings interned, "" when unknown. */
struct profile_module {
	const char *name;       /* the base name the frames use: "libc.so.6" */
	const char *path;       /* the file as /proc/PID/maps named it */
	const char *build_id;   /* its GNU build-id, lower-case hex */
};

struct profile {
	struct profile_diag diag;
	/* user-space modules, in the order found (profile_module_set) */
	struct profile_module *modules;
	size_t nmodules, module_cap;
	/* identities by tgid, in the order found (profile_ident_set) */
	struct profile_ident *idents;
	size_t nidents, ident_cap;
	size_t ident_scanned;   /* stacks already looked at by a capture */
	uint32_t *ident_slot;   /* private: tgid -> index + 1 (open addressing) */
	size_t ident_slots;
	struct profile_window *wins;
	unsigned nwin, win_cap;
	struct profile_stack *stacks;
	size_t nstacks, stack_cap;
	/* the workers' executed work functions, in the order added (a
	 * window's entries together; readers sum equal {win, pid, func}) */
	struct profile_work *works;
	size_t nworks, work_cap;
	/* private: */
	struct strpool *pool;
	struct profile_index *index; /* (frames, tgid) -> stack */
};

/* Returns an empty profile, or NULL with errno set.  Free with profile_free. */
struct profile *profile_new(void);
void profile_free(struct profile *p); /* NULL-safe */

/* A new profile with p's windows (condition, start, length, loss) and
 * nothing else: no stacks, strings, identities or work counts.  What a
 * continuous recorder (`argus record --push --every S`) keeps after each
 * push, so that its memory is bounded by what one interval holds, not by
 * how long it runs.  NULL with errno set. */
struct profile *profile_fresh_like(const struct profile *p);

/* A new profile of p's windows [from, to) only, renumbered from 0, with
 * their stacks (user frames too), work counts, diagnosed set, identities
 * and modules: one phase of a load that changed character while it was
 * measured (core/analysis/analysis.c).  NULL with errno set (EINVAL: not
 * from < to <= nwin). */
struct profile *profile_windows(const struct profile *p, unsigned from, unsigned to);

/* Interns s in the profile's pool; the result lives as long as the profile. */
const char *profile_intern(struct profile *p, const char *s);

/* Opens a new window of condition c; returns its index or -errno. */
int profile_window_begin(struct profile *p, enum cond c, double start_s);
/* Sets the measured length (seconds) of window w. */
void profile_window_end(struct profile *p, unsigned w, double secs);

/* Adds count samples of one stack to window w.  frames (root first) need not
 * be interned: they are copied into the pool.  comm may be NULL.  Returns 0
 * or -errno. */
int profile_add(struct profile *p, unsigned w, const char *const *frames,
		unsigned nframes, uint32_t tgid, const char *comm, uint64_t count);
/* The same with the stack's user-space frames (root first, copied; NULL
 * with nuframes 0: none). */
int profile_add_user(struct profile *p, unsigned w, const char *const *frames,
		     unsigned nframes, const char *const *uframes, unsigned nuframes,
		     uint32_t tgid, const char *comm, uint64_t count);

/* Adds count executions of work function func (copied into the pool) by
 * worker pid to window w, and marks w traced.  0 or -errno. */
int profile_work_add(struct profile *p, unsigned w, uint32_t pid, const char *func,
		     uint64_t count);

/* The identity of tgid, or NULL. */
const struct profile_ident *profile_ident_find(const struct profile *p, uint32_t tgid);
/* Records id (strings copied into the pool, escaped as core/base/sanitize.h
 * does when they hold control characters; NULL fields as "").  A tgid
 * already known keeps its first identity (a pid is identified once, while
 * it ran).  0 or -errno. */
int profile_ident_set(struct profile *p, const struct profile_ident *id);

/* The module named name, or NULL. */
const struct profile_module *profile_module_find(const struct profile *p, const char *name);
/* Records module name's path and build-id (strings copied into the pool,
 * escaped as profile_ident_set does; NULL as "").  A name already known
 * keeps its first entry, except that an empty path or build-id is filled
 * in.  0, -EINVAL (no name), or -ENOMEM. */
int profile_module_set(struct profile *p, const char *name, const char *path,
		       const char *build_id);

/* Copies src's diagnosed set, identities and modules into dst (a profile made from
 * src's windows: a replay's, a cut).  0 or -ENOMEM. */
int profile_copy_about(struct profile *dst, const struct profile *src);

/* Sum of window lengths and of counts for condition c. */
double profile_cond_secs(const struct profile *p, enum cond c);
uint64_t profile_cond_samples(const struct profile *p, enum cond c);

/* Number of windows of condition c. */
unsigned profile_cond_windows(const struct profile *p, enum cond c);

/* Samples lost in all windows (the sum of their lost; p NULL: 0): what a
 * status bar counts as dropped, and what a session's windows add up to. */
uint64_t profile_lost(const struct profile *p);

#endif
