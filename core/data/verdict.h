/* verdict — what a diagnosis concludes, with its evidence. */
#ifndef ARGUS_VERDICT_H
#define ARGUS_VERDICT_H

#include <stdint.h>
#include <stdio.h>

#define VERDICT_MAX_PATH 128
#define VERDICT_MAX_BRANCH 8    /* branches of a spread verdict */
#define VERDICT_MAX_FALLS 4     /* falls / displaced paths reported */

/* One path the verdict names beside its own: a branch of a spread
 * verdict, a significant fall of the diagnosed work, or work of another
 * process the load displaced. */
struct verdict_branch {
	char *process;             /* displaced: "comm [tgid]"; NULL otherwise; owned */
	char subsystem[16];        /* the deepest classified frame's subsystem */
	char time[16];             /* "on-cpu", "blocked", "runnable" */
	char **path;               /* root-first frames, owned */
	unsigned npath;
	double delta;              /* net delta of the node the path ends at */
	double mass;               /* its significant rise (branches) or fall
	                            * (falls, displaced; positive) */
	double share;              /* mass / the rise (or fall) at the start */
};

/* A caller of the function a spread increase converges on (issue 23). */
struct verdict_caller {
	char *name;                /* owned */
	double mass;               /* the rise of the function under it */
	double share;              /* mass / the function's summed rise */
};

/* A user-space call site of the verdict path (issue 27): the user frames
 * under the stacks that pass through the path, with their part of its
 * rise. */
#define VERDICT_MAX_CALLSITES 5
struct verdict_callsite {
	char **frames;             /* root first ("function (module)", maybe a
	                            * last "[ends in ...]" cut); owned; 0 frames:
	                            * samples without a user stack (kernel
	                            * threads, user stacks off) */
	unsigned nframes;
	double rise;               /* loaded minus reference rate, samples/s */
	double share;              /* rise / the summed rise of all call sites
	                            * that rose */
};

struct verdict {
	int found;                 /* 0: "no bottleneck found" (honest) */
	char subsystem[16];
	char *path[VERDICT_MAX_PATH]; /* root-first kernel function names, owned */
	unsigned npath;
	char *leaf;                /* owned; last element of the path */
	double confidence;         /* 0..1 */
	/* evidence, from the node the descent stopped at */
	double rate_ref, rate_load, delta, ratio, q;
	unsigned pairs, pairs_agree;
	double share_of_root;      /* node delta / the sum of the increases of
	                            * the root's children (not the net root
	                            * delta: idle falls as work rises) */
	char *summary;             /* one line for people, owned */
	char **notes;              /* extra evidence lines (step results), owned */
	unsigned nnotes;
	/* issue 11 */
	char time[16];             /* the kind of time of the verdict path:
	                            * "on-cpu" (no TREE_TIME level), "blocked",
	                            * "runnable"; "" when not found */
	/* issue 26: a blocked verdict's waker, apart from its subsystem (which
	 * is where it waited): who woke it most, "softirq BLOCK", "task nginx
	 * (tgid 12)", "hardirq timer", "none seen"; its class "task",
	 * "softirq", "hardirq", "none"; "" when not blocked or not known */
	char waker[64];
	char waker_class[16];
	double rise;               /* the significant rise at the verdict node */
	struct verdict_branch *branches; /* a spread verdict: every branch,
	                            * the largest branch first at every split
	                            * (branches[0] is path); owned */
	unsigned nbranches;        /* 0: one path */
	struct verdict_branch *falls;    /* significant falls of the diagnosed
	                            * work (something vanished); owned */
	unsigned nfalls;
	struct verdict_branch *displaced; /* falls of other processes: displaced
	                            * by the load, reported, never the verdict */
	unsigned ndisplaced;
	/* issue 23: where a spread increase converges (core/analysis/descent_converge.c):
	 * the function summed over its callers (the callee view), NULL when
	 * the verdict is the walk's own */
	char *convergence;         /* owned */
	double convergence_rise;   /* its summed rise */
	struct verdict_caller *callers; /* who reaches it, largest first; owned */
	unsigned ncallers;
	/* issue 27: the user-space call sites of the path, largest rise first
	 * (verdict_callsites_fill); owned */
	struct verdict_callsite *callsites;
	unsigned ncallsites;
	/* what the call sites could not see, from the profile they were looked
	 * for in: callsites_step 0 the sampler's, N > 0 the session's step N
	 * (the caller of verdict_callsites_fill_steps numbers it); its
	 * samples (a step: events) counted without a user stack, which could
	 * not be taken, and so in no call site; callsites_samples: the
	 * sampler's samples in all windows (0 for a step: its unit, an offcpu
	 * step's microseconds, is not its events') */
	unsigned callsites_step;
	uint64_t callsites_ustack_errors;
	uint64_t callsites_samples;
	/* the unit of the call sites' rises (per second): the step's
	 * ("events", "us blocked", "intervals") when a step gave them; empty:
	 * the sampler's samples (verdict_callsites_unit says which) */
	char callsites_unit[24];
	/* issue 23 item 4: a load that changed character while it was
	 * measured (a cold first pass, then warm).  The descent sets
	 * phase_from_win when the verdict's share of the work differs between
	 * the early and the late loaded windows (descent.c's steady check):
	 * the window where the later, steady phase's pair begins.  The
	 * analysis (core/analysis/analysis.c) then judges those windows alone
	 * and keeps the earlier phase's verdict in phase_earlier.  0 and NULL:
	 * steady, or not judged. */
	unsigned phase_from_win;   /* a window index of the profile measured */
	unsigned phase_windows;    /* its windows, all (the later phase is
	                            * [phase_from_win, phase_windows)) */
	char *phase_earlier;       /* the earlier phase's verdict summary; owned */
	int phase_pending;         /* the last loaded window alone differs: a
	                            * change not yet a phase of its own */
	int cache_fill;            /* on-CPU time of the verdict fills a cache
	                            * (block reads under a lookup, slab growth):
	                            * a cold start, or a load bound on misses */
};

/* Appends a copy of b (strings duplicated) to *list.  0 or -ENOMEM. */
int verdict_branch_add(struct verdict_branch **list, unsigned *n,
		       const struct verdict_branch *b);
void verdict_branch_clear(struct verdict_branch *b);
/* Appends a caller (name copied) to v->callers.  0 or -ENOMEM. */
int verdict_caller_add(struct verdict *v, const char *name, double mass, double share);

void verdict_clear(struct verdict *v); /* frees owned strings, zeroes */

struct profile;
/* Fills v->callsites from p (core/data/verdict_callsite.c): every stack
 * whose kernel frames start with v->path (exclude_tgid's left out, 0:
 * none), grouped by its user frames, each group's rate in the loaded
 * windows minus the reference's; the VERDICT_MAX_CALLSITES that rose most.
 * A verdict not found, or a profile without user frames, gets none; a
 * found verdict gets p's count of samples without a user stack
 * (callsites_ustack_errors, callsites_samples) either way.  0 or -ENOMEM. */
int verdict_callsites_fill(struct verdict *v, const struct profile *p, uint32_t exclude_tgid);
/* The same from p (NULL: none) and, while none found names a function
 * (none at all, or only "(no user stack)": measured --kernel-only, or
 * intervals the scheduler programs did not sample), from each step's
 * profile in turn (steps' stacks carry their marker frame where the tree
 * hung it: a path through a step's node finds the step's user frames; a
 * step's counts are never mixed with another's or the sampler's, their
 * units differ).  When none names a function, the first found are kept.
 * callsites_step: the 1-based index in steps of the profile that gave them
 * (0: p, or none found: p's counts kept); callsites_unit: units[that
 * index] (units NULL, or an entry NULL: "events").  0 or -ENOMEM. */
int verdict_callsites_fill_steps(struct verdict *v, const struct profile *p,
				 const struct profile *const *steps, const char *const *units,
				 unsigned nsteps, uint32_t exclude_tgid);
/* The unit of v's call-site rises: callsites_unit, or "samples". */
const char *verdict_callsites_unit(const struct verdict *v);
/* Frame f as it is compared when a step's stack is matched to a verdict
 * path, into buf (len bytes with the NUL): the offcpu step's marker
 * "[offcpu] woken by X" and the wall-clock tree's node "[woken by X]" of
 * the same waker (a hardirq, a softirq, a task, none seen) read alike, f
 * itself otherwise. */
void verdict_callsite_frame_key(const char *f, char *buf, size_t len);
/* "call sites: 12 of 4 210 samples had no user stack (not taken)" (a step:
 * "call sites (step 2): 12 events had no user stack (not taken)") into
 * buf; "" and 0 when none lacked it, else the length. */
int verdict_callsites_gap(const struct verdict *v, char *buf, size_t len);
/* "f3 ← f2 ← f1" of a call site, leaf first, at most max frames (then
 * " ← ..."), into buf. */
void verdict_callsite_format(const struct verdict_callsite *c, unsigned max, char *buf,
			     size_t len);
/* The same with sep between frames (" <- " where UTF-8 cannot be shown). */
void verdict_callsite_format_sep(const struct verdict_callsite *c, unsigned max,
				 const char *sep, char *buf, size_t len);
/* Appends a call site (frames copied).  0 or -ENOMEM. */
int verdict_callsite_add(struct verdict *v, const char *const *frames, unsigned n,
			 double rise, double share);
int verdict_add_note(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* JSON for verdicts (core/data/verdict_json.c).  The object is the "verdict" of
 * `argus diagnose --batch --json` and of `argus diff`, and of the session's
 * verdict event:
 *   {"found":1,"subsystem":"mm","path":[...],"leaf":"...","confidence":0.9,
 *    "summary":"...","evidence":{"rate_ref":..,"rate_load":..,"delta":..,
 *    "ratio":..|null,"q":..,"pairs":..,"pairs_agree":..,"share_of_root":..},
 *    "notes":[...],"time":"on-cpu","rise":..,"waker"?:"softirq BLOCK",
 *    "waker_class"?:"softirq","branches":[...],"falls":[...],
 *    "displaced":[...]}
 * ratio is null when the reference rate is 0 (infinite).  A cJSON object is
 * returned so callers can embed it; caller frees with cJSON_Delete. */
struct cJSON;
struct cJSON *verdict_json_new(const struct verdict *v);

/* Adds the fields of issue 11 to a verdict object o: "time", "rise",
 * "branches" (only for a spread verdict), "falls" and "displaced" (arrays of
 * {"process"?,"subsystem","time","path","leaf","delta","mass","share"}).
 * verdict_json_new calls it; diagnose's own writer too.  0 or -ENOMEM. */
int verdict_json_add_paths(struct cJSON *o, const struct verdict *v);

/* Reads such an object into v (zeroed first; verdict_clear frees it).
 * Returns 0, or -EINVAL with *cause set (caller frees) naming the field. */
int verdict_json_parse(const struct cJSON *o, struct verdict *v, char **cause);

/* Writes one line, the shape `argus diagnose --batch --json` prints:
 * {"verdict":{...},"decisions":[lines...],"steps":[],"elapsed_s":S}
 * lines are the agent's explanations (may be NULL when nlines is 0); steps
 * is steps_json (a JSON array text) or [] when NULL.  Returns 0 or -errno. */
int verdict_json_report(FILE *out, const struct verdict *v, char *const *lines,
			unsigned nlines, const char *steps_json, double elapsed_s);

#endif
