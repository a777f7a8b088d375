/* timeacct — on-CPU samples and scheduler times in one profile window (see
 * timeacct.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/kind.h"
#include "probe/kind_util.h"
#include "model/model_capture.h"
#include "probe/probe.h"
#include "probe/probe_schedtime.h"
#include "probe/schedtime_duty.h"
#include "data/procinfo.h"
#include "data/subsys.h"
#include "model/timeacct.h"
#include "base/util.h"

#define TA_MAX_FRAMES 160
#define TA_MAX_TGIDS 256
#define TA_MAX_CGROUPS 64  /* who-ran-instead cgroups looked up per collect */

struct timeacct {
	struct probe_schedtime *st;
	struct kind_snap *carry;     /* schedtime_key -> ns not yet counted
	                              * (signed: rounding may count ahead) */
	unsigned freq;
	struct waitgraph *last;      /* the last collect's intervals (timeacct_waits) */
	uint64_t map_full_seen;      /* the programs' map_full count at the last collect */
	int cycle;                   /* the duty cycle may detach (budget >= 0) */
	struct schedtime_duty duty;
	int stats;                   /* probe_bpf_stats_begin's handle, or < 0 */
};

struct ta_proc {                     /* per process, within one collect */
	uint32_t tgid;
	const char *comm;
	uint64_t kernel;             /* kernel samples of the sampler */
	uint64_t oncpu_ns;           /* exact on-CPU time (schedtime) */
};

struct timeacct *timeacct_open(const uint32_t *tgids, size_t ntgids,
			       const struct timeacct_opts *to, char **cause)
{
	struct probe_schedtime_opts o = { 0 };
	struct schedtime_duty_opts dop = { 0 };
	struct timeacct *ta = calloc(1, sizeof(*ta));
	int err;

	if (!ta) {
		kind_set_cause(cause, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	ta->stats = -1;
	ta->freq = to->freq_hz ? to->freq_hz : PROBE_PROFILE_DEFAULT_HZ;
	ta->carry = kind_snap_new(sizeof(struct schedtime_key), 1);
	if (!ta->carry) {
		err = ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	o.tgids = tgids;
	o.ntgids = ntgids;
	o.tgid_set = 1;
	o.follow_forks = 1;
	o.exclude_tgid = to->exclude_tgid;
	o.windows = 1;
	o.wall_totals = 1; /* duty-cycled windows per wall second, exact per thread */
	o.user_stacks = to->user_stacks;
	ta->st = probe_schedtime_open(&o, cause);
	if (!ta->st) {
		err = errno;
		goto fail;
	}
	if (to->stats) {
		char *why = NULL;

		/* optional: without them the cost is estimated from the switches */
		ta->stats = probe_bpf_stats_begin(&why);
		free(why);
	}
	ta->cycle = to->budget_pct >= 0;
	dop.budget_pct = to->budget_pct > 0 ? to->budget_pct : KIND_EVENT_BUDGET_PCT;
	schedtime_duty_init(&ta->duty, &dop, util_mono_s());
	return ta;
fail:
	timeacct_close(ta);
	errno = err;
	return NULL;
}

void timeacct_close(struct timeacct *ta)
{
	if (!ta)
		return;
	probe_schedtime_close(ta->st);
	probe_bpf_stats_end(ta->stats);
	kind_snap_free(ta->carry);
	wg_free(ta->last);
	free(ta);
}

static double ta_cost_ns(const struct timeacct *ta)
{
	return probe_schedtime_cost_ns(ta->st, ta->stats >= 0);
}

void timeacct_window(struct timeacct *ta, double start, double len, double now)
{
	if (!ta || !ta->cycle)
		return;
	schedtime_duty_period(&ta->duty, start, len, now);
}

int timeacct_tick(struct timeacct *ta, double now, char **cause)
{
	int err = 0;

	if (!ta || !ta->cycle)
		return 0;
	switch (schedtime_duty_tick(&ta->duty, now, ta_cost_ns(ta))) {
	case SCHEDTIME_DUTY_ATTACH:
		err = probe_schedtime_attach(ta->st, cause);
		break;
	case SCHEDTIME_DUTY_DETACH:
		err = probe_schedtime_detach(ta->st);
		if (err)
			kind_set_cause(cause, "cannot detach the scheduler-time programs");
		break;
	default:
		break;
	}
	return err;
}

double timeacct_next(const struct timeacct *ta)
{
	return ta && ta->cycle ? schedtime_duty_next(&ta->duty) : 1e300;
}

void timeacct_cost(const struct timeacct *ta, double now, struct timeacct_cost *out)
{
	memset(out, 0, sizeof(*out));
	if (!ta)
		return;
	out->secs = now - ta->duty.t0;
	out->attached = schedtime_duty_fraction(&ta->duty, now);
	out->cost_pct = out->secs > 0 ? ta_cost_ns(ta) / (out->secs * 1e9) * 100 : 0;
	out->cost_on_pct = out->attached > 0 ? out->cost_pct / out->attached : 0;
	out->budget_pct = ta->duty.o.budget_pct;
	out->phases = ta->duty.phases;
	out->measured = ta->stats >= 0;
	out->cycle = ta->cycle;
}

const struct waitgraph *timeacct_waits(const struct timeacct *ta)
{
	return ta ? ta->last : NULL;
}

int timeacct_add_tgid(struct timeacct *ta, uint32_t tgid)
{
	return probe_schedtime_add_tgid(ta->st, tgid);
}

/* comm with control and non-ASCII bytes escaped (it comes from the kernel). */
static void ta_comm(const char *in, char *out, size_t len)
{
	size_t j = 0;

	for (int i = 0; i < SCHEDTIME_COMM_LEN && in[i] && j + 5 < len; i++) {
		unsigned char ch = (unsigned char)in[i];

		if (ch < 0x20 || ch >= 0x7f)
			j += (size_t)snprintf(out + j, len - j, "\\x%02x", ch);
		else
			out[j++] = (char)ch;
	}
	out[j] = 0;
}

char *timeacct_leaf(const struct schedtime_key *k, char *buf, size_t len)
{
	char comm[4 * SCHEDTIME_COMM_LEN + 1];
	int run = k->kind == SCHEDTIME_RUNNABLE;

	ta_comm(k->other_comm, comm, sizeof(comm));
	switch (k->other_kind) {
	case SCHEDTIME_OTHER_TASK:
		if (run && !k->other_pid)
			snprintf(buf, len, "[ran instead: idle]");
		else if (!run && (k->other_vec & SCHEDTIME_VIA_MASK))
			snprintf(buf, len, "[woken by task %s (tgid %u) via softirq %s]", comm,
				 k->other_tgid,
				 probe_schedtime_softirq_name((k->other_vec & SCHEDTIME_VIA_MASK) - 1));
		else if (!run && (k->other_vec & SCHEDTIME_VIA_WORK))
			snprintf(buf, len, "[woken by task %s (tgid %u) via kworker]", comm,
				 k->other_tgid);
		else
			snprintf(buf, len, run ? "[ran instead: %s (tgid %u)]" : "[woken by task %s (tgid %u)]",
				 comm, k->other_tgid);
		break;
	case SCHEDTIME_OTHER_HARDIRQ:
		if (k->other_vec == SCHEDTIME_IRQ_TIMER)
			snprintf(buf, len, "[woken by hardirq timer]");
		else if (k->other_vec == SCHEDTIME_IRQ_OTHER)
			snprintf(buf, len, "[woken by hardirq]");
		else
			snprintf(buf, len, "[woken by hardirq %u]", k->other_vec);
		break;
	case SCHEDTIME_OTHER_SOFTIRQ:
		snprintf(buf, len, "[woken by softirq %s]", probe_schedtime_softirq_name(k->other_vec));
		break;
	case SCHEDTIME_OTHER_PENDING:
		snprintf(buf, len, run ? "[still runnable at a read]" : "[still blocked at a read]");
		break;
	default:
		snprintf(buf, len, "[no wakeup seen]");
		break;
	}
	return buf;
}

/* Who ran instead, grouped as a person names an aggressor (issue 23):
 * the task's cgroup when it has one of its own (a service, a container,
 * the cgroup argus runs a load in), then its command, then the process:
 *   [ran instead: cgroup /x] ; [ran instead: COMM] ; [tgid T]
 * so four worker processes of one program (or one service) are one node
 * the descent can enter, not four leaves of a quarter each.  The cgroup
 * of each tgid is read from /proc once a collect (cg caches it; a task
 * gone by then has none). */
struct ta_cg {
	uint32_t tgid;
	char *path;                  /* NULL: the root cgroup or unknown */
};

static const char *ta_cgroup_of(struct ta_cg *cg, size_t *n, uint32_t tgid)
{
	char file[48], *text = NULL, *path;
	size_t len;

	for (size_t i = 0; i < *n; i++)
		if (cg[i].tgid == tgid)
			return cg[i].path;
	if (*n == TA_MAX_CGROUPS)
		return NULL;
	snprintf(file, sizeof(file), "/proc/%u/cgroup", tgid);
	path = util_read_file(file, 4096, &text, &len) == 0 ? procinfo_cgroup_path(text) : NULL;
	free(text);
	if (path && (!path[0] || !strcmp(path, "/"))) {
		free(path);
		path = NULL;
	}
	cg[*n] = (struct ta_cg){ tgid, path };
	return cg[(*n)++].path;
}

/* The frames after the stack for key k into fr (room for 3), their
 * strings in bufs; returns how many. */
static unsigned ta_leaves(const struct schedtime_key *k, struct ta_cg *cg, size_t *ncg,
			  const char **fr, char bufs[3][160])
{
	char comm[4 * SCHEDTIME_COMM_LEN + 1];
	const char *path;
	unsigned n = 0;

	if (k->kind != SCHEDTIME_RUNNABLE || k->other_kind != SCHEDTIME_OTHER_TASK ||
	    !k->other_pid) {
		fr[0] = timeacct_leaf(k, bufs[0], sizeof(bufs[0]));
		return 1;
	}
	path = ta_cgroup_of(cg, ncg, k->other_tgid);
	if (path) {
		snprintf(bufs[n], sizeof(bufs[n]), "[ran instead: cgroup %s]", path);
		fr[n] = bufs[n];
		n++;
	}
	ta_comm(k->other_comm, comm, sizeof(comm));
	snprintf(bufs[n], sizeof(bufs[n]), "[ran instead: %s]", comm);
	fr[n] = bufs[n];
	n++;
	snprintf(bufs[n], sizeof(bufs[n]), "[tgid %u]", k->other_tgid);
	fr[n] = bufs[n];
	return n + 1;
}

/* ns -> whole sample-equivalents, rounded to the nearest, the difference
 * (positive or negative) carried under key to its next window.  Rounded
 * down, a key seen once lost half a sample on average: a busy machine's
 * many "ran instead" keys took ~5-10% out of a window's thread time. */
static int ta_samples(struct timeacct *ta, const struct schedtime_key *key, uint64_t ns,
		      uint64_t *out)
{
	uint64_t *c = kind_snap_get(ta->carry, key);
	double per = 1e9 / ta->freq, v;
	int64_t carry, n;

	if (!c)
		return -ENOMEM;
	memcpy(&carry, c, sizeof(carry)); /* the slot holds a signed carry */
	v = (double)carry + (double)ns;
	n = v > 0 ? (int64_t)(v / per + 0.5) : 0;
	carry = (int64_t)(v - (double)n * per);
	memcpy(c, &carry, sizeof(carry));
	*out = (uint64_t)n;
	return 0;
}

static struct ta_proc *ta_proc_of(struct ta_proc *pr, size_t *n, uint32_t tgid)
{
	for (size_t i = 0; i < *n; i++)
		if (pr[i].tgid == tgid)
			return &pr[i];
	if (*n == TA_MAX_TGIDS)
		return NULL;
	memset(&pr[*n], 0, sizeof(pr[*n]));
	pr[*n].tgid = tgid;
	return &pr[(*n)++];
}

/* The sampler's stacks of this collect, moved under [on-cpu]. */
static int64_t ta_oncpu(struct probe_profile *pp, struct profile *p, unsigned win,
			const struct ksym_table *ks, struct ta_proc *pr, size_t *npr)
{
	struct profile *scratch = profile_new();
	const char *fr[TA_MAX_FRAMES + 1];
	int64_t n;
	int err = 0;

	if (!scratch || profile_window_begin(scratch, COND_LOAD, 0) < 0) {
		profile_free(scratch);
		return -ENOMEM;
	}
	n = probe_profile_collect(pp, scratch, 0, ks);
	for (size_t i = 0; n > 0 && i < scratch->nstacks && !err; i++) {
		const struct profile_stack *s = &scratch->stacks[i];
		unsigned nf = s->nframes < TA_MAX_FRAMES ? s->nframes : TA_MAX_FRAMES;
		struct ta_proc *q;

		if (!s->win[0])
			continue;
		fr[0] = "[on-cpu]";
		memcpy(fr + 1, s->frames, nf * sizeof(*fr));
		err = profile_add_user(p, win, fr, nf + 1, s->uframes, s->nuframes, s->tgid,
				       s->comm, s->win[0]);
		q = ta_proc_of(pr, npr, s->tgid);
		if (q) {
			q->kernel += s->win[0];
			q->comm = profile_intern(p, s->comm ? s->comm : "");
		}
	}
	/* the files its user frames name (pprof's mappings) */
	for (size_t i = 0; i < scratch->nmodules && !err; i++)
		err = profile_module_set(p, scratch->modules[i].name, scratch->modules[i].path,
					 scratch->modules[i].build_id);
	profile_free(scratch);
	return err ? err : n;
}

int64_t timeacct_collect(struct timeacct *ta, struct probe_profile *pp, struct profile *p,
			 unsigned win, const struct ksym_table *ks)
{
	struct probe_schedtime_snap *s = NULL;
	struct ta_proc pr[TA_MAX_TGIDS];
	struct ta_cg cg[TA_MAX_CGROUPS];
	const char *fr[TA_MAX_FRAMES + 4];
	char leaf[3][160], comm[SCHEDTIME_COMM_LEN + 1];
	size_t npr = 0, ncg = 0;
	int64_t added;
	int err;

	/* The scheduler's times first, then the sampler: the window's length
	 * is the loop's clock at its open and close, and the sampler's collect
	 * (symbolizing a new process's user stacks reads its files, slow when
	 * they are cold) would move the end of the times it covers past it.
	 * Read after it, a CI run's window held 1.66 thread-s/s of a
	 * single-threaded victim (tests/live/diagnose_victims). */
	err = probe_schedtime_read_window(ta->st, ks, &s);
	if (err)
		return err;
	/* intervals the programs could not count (a map full) are time the
	 * window does not hold: said as the window's losses, beside the
	 * sampler's, so a window short of its wall time tells why */
	if (win < p->nwin && s->ctr.map_full > ta->map_full_seen)
		p->wins[win].lost += s->ctr.map_full - ta->map_full_seen;
	ta->map_full_seen = s->ctr.map_full;
	added = ta_oncpu(pp, p, win, ks, pr, &npr);
	if (added < 0) {
		probe_schedtime_snap_free(s);
		return added;
	}
	/* the same intervals as a wait graph, for the model */
	wg_free(ta->last);
	ta->last = wg_new();
	if (!ta->last || (err = model_capture_convert(s, ta->last))) {
		err = err ? err : -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->n; i++) {
		const struct probe_schedtime_entry *e = &s->e[i];
		unsigned nf = e->nframes < TA_MAX_FRAMES ? e->nframes : TA_MAX_FRAMES;
		struct ta_proc *q;
		uint64_t n;
		unsigned nl;

		memcpy(comm, e->key.comm, SCHEDTIME_COMM_LEN);
		comm[SCHEDTIME_COMM_LEN] = 0;
		if (e->key.kind == SCHEDTIME_ONCPU) {
			q = ta_proc_of(pr, &npr, e->key.tgid);
			if (q) {
				q->oncpu_ns += e->val.total_ns;
				if (!q->comm)
					q->comm = profile_intern(p, comm);
			}
			continue;
		}
		err = ta_samples(ta, &e->key, e->val.total_ns, &n);
		if (err)
			goto out;
		if (!n)
			continue;
		fr[0] = e->key.kind == SCHEDTIME_BLOCKED ? "[blocked]" : "[runnable]";
		for (unsigned f = 0; f < nf; f++)
			fr[1 + f] = e->frames[f];
		nl = ta_leaves(&e->key, cg, &ncg, fr + 1 + nf, leaf);
		err = profile_add_user(p, win, fr, nf + 1 + nl, (const char *const *)e->uframes,
				       e->nuframes, e->key.tgid, comm, n);
		if (err)
			goto out;
		added += (int64_t)n;
	}
	err = probe_schedtime_modules(ta->st, p);
	if (err)
		goto out;
	/* on-CPU time without a kernel sample: user space (and lost samples) */
	for (size_t i = 0; i < npr; i++) {
		struct schedtime_key k = { .tgid = pr[i].tgid, .kind = SCHEDTIME_ONCPU };
		const char *uf[2] = { "[on-cpu]", SUBSYS_USER_FRAME };
		uint64_t n, ns = pr[i].oncpu_ns, kern_ns = (uint64_t)(pr[i].kernel * 1e9 / ta->freq);

		if (!pr[i].oncpu_ns)
			continue; /* not a tracked process: its samples are all there is */
		err = ta_samples(ta, &k, ns > kern_ns ? ns - kern_ns : 0, &n);
		if (err)
			goto out;
		if (!n)
			continue;
		err = profile_add(p, win, uf, 2, pr[i].tgid, pr[i].comm, n);
		if (err)
			goto out;
		added += (int64_t)n;
	}
out:
	for (size_t i = 0; i < ncg; i++)
		free(cg[i].path);
	probe_schedtime_snap_free(s);
	return err ? err : added;
}
