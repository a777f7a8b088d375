/* measure — alternating reference/loaded windows behind the source
 * interface (see measure.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/load.h"
#include "measure/measure.h"
#include "measure/measure_live.h"
#include "measure/measure_model.h"
#include "measure/measure_seq.h"
#include "data/procinfo.h"
#include "host/reference.h"
#include "base/util.h"
#include "model/model_window.h"
#include "data/waitgraph.h"

#define MEASURE_MAX_TGIDS 1024
#define MEASURE_WARM_PROGS 8     /* programs named in the start-up's log line */
#define MEASURE_WARM_POLL_S 0.05

struct measure {
	struct source src;
	struct measure_opts o;
	struct measure_sampler smp;
	int smp_open;
	struct profile *prof;
	struct profile *scratch;     /* settle samples land here and are dropped */
	struct load *load;           /* paused in the reference (may be NULL) */
	struct load *victim;
	struct load *bg;
	enum cond *seq;              /* condition of each planned window */
	unsigned nseq;
	unsigned done;               /* windows measured */
	int win;                     /* profile window being measured, or -1 */
	unsigned saved_ref_windows;  /* windows that came from a saved reference */
	struct reference_meta ref_meta; /* its header (scope, created) */
	enum source_phase phase;
	enum cond cur;               /* condition being applied */
	int started, stopped;
	double t0, phase_start, phase_end, last_collect, elapsed, done_at;
	double rate;
	uint64_t samples;
	uint64_t lost_seen;          /* the sampler's lost count at the last collect */
	uint64_t ustack_seen;        /* its user stacks not taken, the same */
	unsigned fail_after;         /* test hook; 0 = off */
	int noexec;                  /* the load's command could not be run */
	double now;                  /* time of the last tick */
	char load_state[48];
	double win_s, settle_s;      /* current window and settle (adaptive) */
	struct measure_seq *seq_ctl; /* sequential stopping, or NULL */
	unsigned seq_pairs;          /* pairs looked at */
	int slicing;                 /* slices after the first resume */
	double last_slice;
	char stop_reason[200];
	char stop_brief[96];         /* the status bar's "done (...)" */
	struct measure_model *mm;    /* the loaded windows' waits, the model's
	                              * windows, the loads' output */
	int waits;                   /* the sampler accounts blocked time */
	double wg_mark;              /* time of the previous collect */
	/* the load's start-up, run unmeasured before the first window */
	int warming;
	double warm_start, warm_last; /* when it began, when it last changed */
	int warm_procs;              /* the load's process count at the last look */
	char warm_comm[MEASURE_WARM_PROGS][16]; /* the programs seen in it */
	unsigned warm_ncomm;
};

#define MEASURE_SLICE_S 0.025
#define MEASURE_SLICE_TGIDS 64

static void meas_log(struct measure *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void meas_log(struct measure *m, const char *fmt, ...)
{
	va_list ap;

	if (!m->o.log)
		return;
	va_start(ap, fmt);
	fputs("argus: ", m->o.log);
	vfprintf(m->o.log, fmt, ap);
	fputc('\n', m->o.log);
	fflush(m->o.log);
	va_end(ap);
}

/* ---- window plan and condition switches -------------------------------- */

/* Makes the condition c true for the loads: resume/start or pause. */
static int meas_apply(struct measure *m, enum cond c, char **cause)
{
	int err = 0;

	m->cur = c;
	if (!m->load)
		return 0;
	if (c == COND_LOAD) {
		/* slices time the first resume, not the start-up */
		if (!m->warming && measure_seq_slicing(m->seq_ctl)) {
			m->slicing = 1; /* how fast the load comes back, for the settle */
			m->last_slice = m->now;
		}
		if (!load_started(m->load)) {
			/* the load is the diagnosed process when there is no victim:
			 * tracked while held before exec, so its first children are too */
			if (!m->victim && measure_time_wall(&m->o) && m->smp.add_tgid)
				m->smp.add_tgid(m->smp.ctx, (uint32_t)load_pid(m->load));
			err = load_start(m->load, cause);
			if (err < 0) {
				m->noexec = 1;
				return err;
			}
			meas_log(m, "load started (PID %d)", (int)load_pid(m->load));
		} else {
			err = load_resume(m->load);
		}
	} else {
		err = load_pause(m->load);
	}
	if (err < 0)
		util_cause(cause, "cannot %s the load (PID %d): %s",
			   c == COND_LOAD ? "resume" : "pause", (int)load_pid(m->load),
			   strerror(-err));
	return err;
}

/* What the sampler lost since the last collect goes to the window that
 * collect filled: only windows count (a settle time's losses are dropped
 * with its samples), so the status bar's dropped count is what the
 * session's windows say they lost. */
static void meas_lost(struct measure *m, const struct profile *p, unsigned win)
{
	uint64_t dropped = 0, lost = 0, uerr = 0;
	int ours = p == m->prof && win < m->prof->nwin;

	if (!m->smp_open || !m->smp.counters)
		return;
	m->smp.counters(m->smp.ctx, &dropped, &lost, &uerr);
	if (uerr > m->ustack_seen) {
		if (ours)
			m->prof->wins[win].ustack_errors += uerr - m->ustack_seen;
		m->ustack_seen = uerr;
	}
	if (dropped <= m->lost_seen)
		return;
	if (ours)
		m->prof->wins[win].lost += dropped - m->lost_seen;
	m->lost_seen = dropped;
}

static int64_t meas_collect(struct measure *m, struct profile *p, unsigned win, char **cause)
{
	int64_t n = m->smp.collect(m->smp.ctx, p, win);
	const struct waitgraph *g;

	if (n < 0) {
		util_cause(cause, "cannot read the sampler's counts: %s", strerror((int)-n));
		return n;
	}
	meas_lost(m, p, win);
	/* who the new processes are, read while they still run (issue 15) */
	if (p == m->prof && procinfo_profile_capture(p, (uint32_t)getpid()) < 0) {
		util_cause(cause, "out of memory naming the sampled processes");
		return -ENOMEM;
	}
	g = m->waits ? m->smp.waits(m->smp.ctx) : NULL;
	/* a loaded window's waits (not the settle time's, not a reference's)
	 * join that window's graph, which the model may be built from */
	if (g && p == m->prof && win < p->nwin && p->wins[win].cond == COND_LOAD) {
		int err = measure_model_collect(m->mm, g, win, p->wins[win].start_s,
						m->wg_mark > 0 && m->now > m->wg_mark ?
						m->now - m->wg_mark : 0);

		if (err)
			return util_fail(cause, err, "cannot keep the wait graph: %s", strerror(-err));
	}
	m->wg_mark = m->now;
	return n;
}

/* Drops what was counted since the last collect (the settle time). */
static int meas_drop(struct measure *m, char **cause)
{
	int64_t n;

	profile_free(m->scratch);
	m->scratch = profile_new();
	if (!m->scratch)
		return -ENOMEM;
	if (profile_window_begin(m->scratch, m->cur, 0) < 0)
		return -ENOMEM;
	n = meas_collect(m, m->scratch, 0, cause);
	return n < 0 ? (int)n : 0;
}

static void meas_settle(struct measure *m, double now)
{
	m->phase = SOURCE_SETTLING;
	m->phase_start = now;
	m->phase_end = now + m->settle_s;
}

/* ---- the load's start-up ------------------------------------------------ */

/* 1 when comm names a program not seen before in the start-up (kept while
 * there is room; later ones still count as new, once per look) */
static int warm_new_program(struct measure *m, uint32_t tgid)
{
	char path[48], comm[16] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/comm", (unsigned)tgid);
	f = fopen(path, "re");
	if (!f)
		return 0; /* gone: it started and ended, the count says so */
	if (fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	fclose(f);
	for (unsigned i = 0; i < m->warm_ncomm; i++)
		if (!strcmp(m->warm_comm[i], comm))
			return 0;
	if (m->warm_ncomm < MEASURE_WARM_PROGS)
		snprintf(m->warm_comm[m->warm_ncomm++], sizeof(m->warm_comm[0]), "%s", comm);
	return 1;
}

/* A load just started is starting up: a shell script execs its server,
 * waits for its port, starts the benchmark.  That start-up is not the work
 * a person asks about, and the stop rule would settle on it in the first
 * pairs (exec, the dynamic linker, page tables) before the benchmark ran.
 * So it runs unmeasured until no new program has started in it and its
 * process count has not grown for MEASURE_WARMUP_QUIET_S (a loop of one
 * program forking is steady: neither), at most warmup_s; then it is
 * paused for the first reference window.  1 while it goes on, 0 when it
 * ended (the reference window's settle begun), -errno. */
static int meas_warm(struct measure *m, double now, char **cause)
{
	uint32_t tg[MEASURE_MAX_TGIDS];
	int n = load_tgids(m->load, tg, MEASURE_MAX_TGIDS), changed = 0, capped, err;
	char progs[MEASURE_WARM_PROGS * 18] = "";
	size_t off = 0;

	if (n > m->warm_procs)
		changed = 1;
	if (n >= 0)
		m->warm_procs = n;
	for (int i = 0; i < n && i < MEASURE_MAX_TGIDS; i++)
		changed |= warm_new_program(m, tg[i]);
	if (changed)
		m->warm_last = now;
	capped = now - m->warm_start >= m->o.warmup_s;
	if (now - m->warm_last < MEASURE_WARMUP_QUIET_S && !capped) {
		m->phase_end = now + MEASURE_WARM_POLL_S;
		return 1;
	}
	m->warming = 0;
	for (unsigned i = 0; i < m->warm_ncomm && off < sizeof(progs); i++) {
		int w = snprintf(progs + off, sizeof(progs) - off, "%s%s", i ? ", " : "",
				 m->warm_comm[i]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	if (capped && now - m->warm_last < MEASURE_WARMUP_QUIET_S)
		meas_log(m, "the load ran %.2f s unmeasured and still starts processes (%s): "
			 "measuring it as it is (--warmup S waits longer)", now - m->warm_start,
			 progs);
	else
		meas_log(m, "the load started up in %.2f s, unmeasured (%s; %d process%s)",
			 m->warm_last - m->warm_start, progs, m->warm_procs,
			 m->warm_procs == 1 ? "" : "es");
	err = meas_drop(m, cause);
	if (err < 0)
		return err;
	err = meas_apply(m, m->seq[0], cause);
	if (err < 0)
		return err;
	meas_settle(m, now);
	return 0;
}

/* One slice after the first resume: its busy samples, scaled to
 * MEASURE_SLICE_S (ticks are not exactly on time). */
static int meas_slice(struct measure *m, double now, char **cause)
{
	uint32_t self = (uint32_t)getpid(), tg[MEASURE_SLICE_TGIDS];
	struct profile *p;
	unsigned w;
	uint64_t before, after;
	int64_t n;
	int ntg;

	if (m->phase == SOURCE_SETTLING) {
		if (!m->scratch) {
			m->scratch = profile_new();
			if (!m->scratch || profile_window_begin(m->scratch, m->cur, 0) < 0)
				return -ENOMEM;
		}
		p = m->scratch;
		w = 0;
	} else {
		p = m->prof;
		w = (unsigned)m->win;
	}
	/* the load's own samples: on a saturated machine the busy total does
	 * not show it coming back */
	ntg = m->load ? load_tgids(m->load, tg, MEASURE_SLICE_TGIDS) : 0;
	if (ntg > MEASURE_SLICE_TGIDS)
		ntg = MEASURE_SLICE_TGIDS;
	before = ntg > 0 ? measure_seq_count_tgids(p, w, tg, (unsigned)ntg) :
			   measure_seq_busy(p, w, self);
	n = meas_collect(m, p, w, cause);
	if (n < 0)
		return (int)n;
	if (p == m->prof) {
		m->samples += (uint64_t)n;
		profile_window_end(m->prof, w, now - m->phase_start);
	}
	after = ntg > 0 ? measure_seq_count_tgids(p, w, tg, (unsigned)ntg) :
			  measure_seq_busy(p, w, self);
	if (now > m->last_slice)
		measure_seq_slice(m->seq_ctl, (double)(after - before) * MEASURE_SLICE_S /
				  (now - m->last_slice), MEASURE_SLICE_S);
	m->last_slice = now;
	return 0;
}

static int meas_open_window(struct measure *m, double now, char **cause)
{
	int w;

	w = profile_window_begin(m->prof, m->seq[m->done], now - m->t0);
	if (w < 0) {
		util_cause(cause, "cannot open a window: %s", strerror(-w));
		return w;
	}
	m->win = w;
	m->phase = m->seq[m->done] == COND_REF ? SOURCE_REF : SOURCE_LOAD;
	m->phase_start = now;
	m->phase_end = now + m->win_s;
	m->last_collect = now;
	if (m->smp_open && m->smp.window)
		m->smp.window(m->smp.ctx, now, m->win_s, now);
	meas_log(m, "window %u/%u %s %.2f s", m->done + 1, m->nseq, cond_name(m->seq[m->done]),
		 m->win_s);
	return 0;
}

/* Ends the measurement: the loads run again (never left paused) and the
 * sampler detaches (nothing it would count is read any more: a sampler left
 * running would only fill its maps and count what it then loses). */
static void meas_finish(struct measure *m, double now)
{
	m->phase = SOURCE_DONE;
	m->win = -1;
	m->done_at = now;
	m->elapsed = now - m->t0;
	if (m->load)
		load_resume(m->load);
	measure_close_sampler(&m->src);
	meas_log(m, "measured %u windows in %.1f s", m->done, m->elapsed);
}

/* Which processes are the diagnosed work (struct profile_diag): the
 * victim's, when sampling is filtered to it (every stack, and its
 * processes listed: who woke it or ran instead is its own or another's);
 * else the load's processes as they are at the end of each loaded window
 * (a background that runs in both conditions is not diagnosed: its falls
 * are displaced work). */
static void meas_diag_load(struct profile_diag *d, struct load *l)
{
	uint32_t tg[PROFILE_DIAG_MAX];
	int n;

	profile_diag_add(d, (uint32_t)load_pid(l));
	n = load_tgids(l, tg, PROFILE_DIAG_MAX);
	for (int i = 0; i < n && i < PROFILE_DIAG_MAX; i++)
		profile_diag_add(d, tg[i]);
}

static void meas_diag(struct measure *m)
{
	if (m->o.reference_only)
		return;
	m->prof->diag.known = 1;
	if (m->victim) {
		m->prof->diag.all = 1;
		meas_diag_load(&m->prof->diag, m->victim);
		return;
	}
	if (m->o.pid)
		profile_diag_add(&m->prof->diag, (uint32_t)m->o.pid);
	if (m->load)
		meas_diag_load(&m->prof->diag, m->load);
}

/* Closes the current window at now; 1 when the profile changed. */
static int meas_close_window(struct measure *m, double now, char **cause)
{
	int64_t n = meas_collect(m, m->prof, (unsigned)m->win, cause);

	if (n < 0)
		return (int)n;
	if (m->seq && m->seq[m->done] == COND_LOAD)
		meas_diag(m);
	m->samples += (uint64_t)n;
	profile_window_end(m->prof, (unsigned)m->win, now - m->phase_start);
	m->rate = now > m->last_collect ? n / (now - m->last_collect) : 0;
	m->last_collect = now;
	m->win = -1;
	m->done++;
	return 1;
}

/* Complete reference/loaded pairs among the measured windows. */
static unsigned meas_pairs_done(const struct measure *m)
{
	unsigned r = m->saved_ref_windows, l = 0;

	for (unsigned i = 0; i < m->done; i++) {
		if (m->seq[i] == COND_REF)
			r++;
		else
			l++;
	}
	return r < l ? r : l;
}

static double meas_collect_s(const struct measure *m)
{
	return m->o.collect_s > 0 ? m->o.collect_s : MEASURE_COLLECT_S;
}

static int meas_tick(struct source *s, double now, char **cause)
{
	struct measure *m = s->priv;
	int changed = 0, err;

	m->now = now;
	/* the loads' output, also after measuring (steps run against them): a
	 * pipe nobody reads would stop them */
	measure_model_read(m->mm, m->started ? now - m->t0 : 0);
	if (m->stopped || m->phase == SOURCE_DONE)
		return 0;
	if (m->smp_open && m->smp.tick && (err = m->smp.tick(m->smp.ctx, now, cause)) < 0)
		return err;
	if (!m->started) {
		m->started = 1;
		m->t0 = now;
		if (m->load && !load_started(m->load) && m->o.warmup_s > 0 && m->nseq &&
		    m->seq[0] == COND_REF) {
			/* the start-up first (meas_warm), then the first window */
			m->warming = 1;
			m->warm_start = m->warm_last = now;
			err = meas_apply(m, COND_LOAD, cause);
			if (err < 0)
				return err;
			m->phase = SOURCE_SETTLING;
			m->phase_start = now;
			m->phase_end = now + MEASURE_WARM_POLL_S;
			return 0;
		}
		err = meas_apply(m, m->seq[0], cause);
		if (err < 0)
			return err;
		meas_settle(m, now);
		meas_log(m, "settling %.2f s", m->settle_s);
		return 0;
	}
	/* A load that ended cannot be compared any more. */
	if (m->load && m->cur == COND_LOAD && !load_alive(m->load)) {
		char st[48];

		load_state(m->load, st, sizeof(st));
		if (m->win >= 0) {
			err = meas_close_window(m, now, cause);
			if (err < 0)
				return err;
			changed = 1;
		}
		/* what it wrote before it went (its error) is in the pipes now */
		measure_model_read(m->mm, now - m->t0);
		if (meas_pairs_done(m) == 0 && load_failed(m->load, NULL, 0)) {
			/* its own failure, whatever the phase: said as one, with
			 * its last line (a person reads why, not "too short") */
			const char *last = measure_model_last_line(m->mm);
			char when[64];

			if (m->warming)
				snprintf(when, sizeof(when), "during its start-up (%.2f s)",
					 now - m->warm_start);
			else
				snprintf(when, sizeof(when), "after %.2f s", now - m->t0);
			util_cause(cause, "the load failed: %s %s, before a reference/loaded pair "
				   "was measured%s%s%s; nothing to diagnose (exit status 6)", st, when,
				   last ? "; its last line: \"" : "", last ? last : "",
				   last ? "\"" : "");
			return -ECHILD;
		}
		if (m->warming) {
			util_cause(cause, "the load %s during its start-up (%.2f s, unmeasured), "
				   "before a reference/loaded pair was measured; give it a longer "
				   "run, or --warmup 0 to measure it from its start", st,
				   now - m->warm_start);
			return -ECHILD;
		}
		if (meas_pairs_done(m) == 0) {
			util_cause(cause, "the load %s before a reference/loaded pair was measured; "
				   "give it a longer run", st);
			return -ECHILD;
		}
		meas_log(m, "the load %s: stopping after %u windows", st, m->done);
		snprintf(m->stop_reason, sizeof(m->stop_reason), "the load %s after %u pair%s", st,
			 meas_pairs_done(m), meas_pairs_done(m) == 1 ? "" : "s");
		snprintf(m->stop_brief, sizeof(m->stop_brief), "done (%.88s)", m->stop_reason);
		meas_finish(m, now);
		return changed;
	}
	/* A victim that ended has nothing more to be measured: a verdict from
	 * the windows it was alive in, or none before a pair. */
	if (m->victim && load_started(m->victim) && !load_alive(m->victim)) {
		char st[48];

		load_state(m->victim, st, sizeof(st));
		if (m->win >= 0) {
			err = meas_close_window(m, now, cause);
			if (err < 0)
				return err;
			changed = 1;
		}
		if (meas_pairs_done(m) == 0) {
			util_cause(cause, "the victim (PID %d) %s before a reference/loaded pair was "
				   "measured: nothing of it to diagnose; give it a longer run",
				   (int)load_pid(m->victim), st);
			return -ECHILD;
		}
		meas_log(m, "the victim (PID %d) %s: stopping after %u windows; the verdict is "
			 "from those", (int)load_pid(m->victim), st, m->done);
		meas_finish(m, now);
		return changed;
	}
	if (m->slicing && now - m->last_slice >= MEASURE_SLICE_S && now < m->phase_end) {
		err = meas_slice(m, now, cause);
		if (err < 0)
			return err;
	}
	if (m->phase == SOURCE_SETTLING) {
		if (now < m->phase_end)
			return 0;
		if (m->warming) {
			err = meas_warm(m, now, cause);
			return err < 0 ? err : 0;
		}
		err = meas_drop(m, cause);
		if (err < 0)
			return err;
		err = meas_open_window(m, now, cause);
		return err < 0 ? err : 0;
	}
	if (now >= m->phase_end) {
		err = meas_close_window(m, now, cause);
		if (err < 0)
			return err;
		if (m->fail_after && m->done == m->fail_after) {
			util_cause(cause, "test hook ARGUS_TEST_FAIL_AFTER: failing after window %u",
				   m->done);
			return -EIO;
		}
		if (m->seq_ctl && meas_pairs_done(m) > m->seq_pairs) {
			/* a pair is complete: look, and maybe stop here */
			m->slicing = 0;
			m->seq_pairs = meas_pairs_done(m);
			err = measure_seq_pair(m->seq_ctl, m->prof, m->seq_pairs, &m->win_s, &m->settle_s,
					       m->o.log);
			if (err < 0) {
				util_cause(cause, "cannot analyse pair %u: %s", m->seq_pairs,
					   strerror(-err));
				return err;
			}
			if (err == 1 || m->done == m->nseq) {
				snprintf(m->stop_reason, sizeof(m->stop_reason), "%s",
					 measure_seq_decision(m->seq_ctl)->reason);
				snprintf(m->stop_brief, sizeof(m->stop_brief), "done (%s)",
					 measure_seq_decision(m->seq_ctl)->brief);
				meas_log(m, "stopping: %s", m->stop_reason);
				meas_finish(m, now);
				return 1;
			}
		}
		if (m->done == m->nseq) {
			if (!m->stop_reason[0])
				snprintf(m->stop_reason, sizeof(m->stop_reason), "fixed: %u pair%s",
					 meas_pairs_done(m), meas_pairs_done(m) == 1 ? "" : "s");
			meas_finish(m, now);
			return 1;
		}
		if (m->seq[m->done] != m->cur) {
			err = meas_apply(m, m->seq[m->done], cause);
			if (err < 0)
				return err;
			meas_settle(m, now);
		} else {
			err = meas_open_window(m, now, cause);
			if (err < 0)
				return err;
		}
		return 1;
	}
	if (m->o.collect_s >= 0 && now - m->last_collect >= meas_collect_s(m)) {
		int64_t n = meas_collect(m, m->prof, (unsigned)m->win, cause);

		if (n < 0)
			return (int)n;
		m->samples += (uint64_t)n;
		profile_window_end(m->prof, (unsigned)m->win, now - m->phase_start);
		m->rate = n / (now - m->last_collect);
		m->last_collect = now;
		return n > 0;
	}
	return 0;
}

static int meas_timeout_ms(struct source *s, double now)
{
	struct measure *m = s->priv;
	double next;

	if (m->stopped || m->phase == SOURCE_DONE)
		return -1;
	if (!m->started)
		return 0;
	next = m->phase_end;
	if (m->slicing && m->last_slice + MEASURE_SLICE_S < next)
		next = m->last_slice + MEASURE_SLICE_S;
	if (m->phase != SOURCE_SETTLING && m->o.collect_s >= 0 &&
	    m->last_collect + meas_collect_s(m) < next)
		next = m->last_collect + meas_collect_s(m);
	if (m->smp_open && m->smp.next) {
		double due = m->smp.next(m->smp.ctx); /* an attach or a detach */

		if (due < next)
			next = due;
	}
	/* A load may end at any time: look at least every 100 ms. */
	if (m->load && next > now + 0.1)
		next = now + 0.1;
	return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

static const struct profile *meas_profile(struct source *s)
{
	return ((struct measure *)s->priv)->prof;
}

static void meas_status(struct source *s, struct source_status *st)
{
	struct measure *m = s->priv;

	memset(st, 0, sizeof(*st));
	st->phase = m->started ? m->phase : SOURCE_STARTING;
	st->window = m->done < m->nseq ? m->done : m->nseq - 1;
	st->nwindows = m->nseq;
	/* the run's clock: it goes on after the measurement (a person reads
	 * the tree, steps run); measure_elapsed says how long measuring took */
	st->elapsed_s = m->started ? m->now - m->t0 : 0;
	if (m->started && m->phase != SOURCE_DONE && m->phase_end > m->now)
		st->phase_left_s = m->phase_end - m->now;
	st->rate = m->rate;
	st->samples = m->samples;
	st->dropped = profile_lost(m->prof);
	st->freq_hz = m->o.freq_hz;
	st->probes = m->smp_open ? 1 : 0;
	st->overhead_pct = -1;
	st->closed = m->prof->nwin - (m->win >= 0 ? 1u : 0u);
	if (m->load) {
		load_state(m->load, m->load_state, sizeof(m->load_state));
		st->load_state = m->load_state;
	}
	if (m->phase == SOURCE_DONE && m->seq_ctl && m->stop_brief[0])
		st->detail = m->stop_brief; /* why it stopped, in the status bar */
}

static void meas_stop(struct source *s)
{
	struct measure *m = s->priv;

	if (m->stopped)
		return;
	m->stopped = 1;
	/* Resume first: nothing argus paused may stay paused. */
	if (m->load)
		load_resume(m->load);
	if (m->victim)
		load_resume(m->victim);
	if (m->smp_open) {
		m->smp.close(m->smp.ctx);
		m->smp_open = 0;
	}
	load_stop(m->load);
	load_stop(m->victim);
	load_stop(m->bg);
	if (m->phase != SOURCE_DONE && m->started)
		m->phase = SOURCE_DONE;
}

static void meas_free(struct source *s)
{
	struct measure *m;

	if (!s)
		return;
	m = s->priv;
	meas_stop(s);
	load_free(m->load);
	load_free(m->victim);
	load_free(m->bg);
	profile_free(m->prof);
	profile_free(m->scratch);
	free(m->seq);
	measure_seq_free(m->seq_ctl);
	measure_model_free(m->mm);
	free(m);
}

static int meas_pollfds(struct source *s, struct pollfd *fds, int max)
{
	return measure_model_pollfds(((struct measure *)s->priv)->mm, fds, max);
}

static const struct source_ops measure_ops = {
	.name = "measure",
	.pollfds = meas_pollfds,
	.tick = meas_tick,
	.timeout_ms = meas_timeout_ms,
	.profile = meas_profile,
	.status = meas_status,
	.stop = meas_stop,
	.free = meas_free,
};

static unsigned meas_fail_after_env(void)
{
	const char *e = getenv("ARGUS_TEST_FAIL_AFTER");

	if (!e || strncmp(e, "window", 6))
		return 0;
	if (e[6] == ':')
		return (unsigned)atoi(e + 7);
	return 1;
}

static int meas_plan(struct measure *m, char **cause)
{
	const struct measure_opts *o = &m->o;
	unsigned n;

	if (o->reference_only)
		n = o->reference_windows ? o->reference_windows : o->pairs;
	else if (m->saved_ref_windows)
		n = o->pairs;
	else
		n = 2 * o->pairs;
	m->seq = calloc(n, sizeof(*m->seq));
	if (!m->seq)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (o->reference_only)
			m->seq[i] = COND_REF;
		else if (m->saved_ref_windows)
			m->seq[i] = COND_LOAD;
		else
			m->seq[i] = i % 2 ? COND_LOAD : COND_REF;
	}
	m->nseq = n;
	(void)cause;
	return 0;
}

struct source *measure_new(const struct measure_opts *o, int *noexec, char **cause)
{
	struct measure *m = NULL;
	uint32_t tgids[MEASURE_MAX_TGIDS];
	int ntg = 0, err = 0, filter = 0;
	unsigned lflags;

	if (noexec)
		*noexec = 0;
	err = measure_opts_check(o, cause);
	if (err < 0)
		goto fail;
	m = calloc(1, sizeof(*m));
	if (!m) {
		err = -ENOMEM;
		goto fail;
	}
	m->o = *o;
	m->win_s = o->window_s;
	m->settle_s = o->settle_s;
	if (o->sequential && !o->reference_only) {
		struct measure_seq_opts so = {
			.min_pairs = o->min_pairs, .max_pairs = o->pairs, .explain = o->explain,
			.adapt_window = o->adapt_window, .adapt_settle = o->adapt_settle,
			.freq_hz = o->freq_hz, .exclude_tgid = (uint32_t)getpid(),
			.deadline_s = o->deadline_s,
		};

		m->seq_ctl = measure_seq_new(&so);
		if (!m->seq_ctl) {
			err = -ENOMEM;
			goto fail;
		}
	}
	m->win = -1;
	m->phase = SOURCE_STARTING;
	m->fail_after = meas_fail_after_env();
	m->prof = profile_new();
	if (!m->prof) {
		err = -errno;
		goto fail;
	}
	lflags = o->load_flags;
	/* The saved reference first: a refusal costs nothing to undo. */
	if (o->pid && !o->pause && !o->reference_only) {
		struct reference_meta want;
		char ps[64], *path = NULL;

		reference_meta_here(&want, measure_probe_set(o->freq_hz, ps, sizeof(ps)), o->freq_hz);
		if (!o->reference_path) {
			path = reference_default_path(&want);
			if (!path) {
				err = -ENOENT;
				util_cause(cause, "-p without --pause needs a saved reference, and neither "
					   "$XDG_STATE_HOME nor $HOME is set; use --reference FILE");
				goto fail;
			}
		}
		err = reference_load(path ? path : o->reference_path, &want,
				     o->reference_max_age_s, m->prof, &m->ref_meta, cause);
		if (err == -ENOENT && !o->reference_path)
			util_cause(cause, "-p %d without --pause needs a reference of the idle "
				   "system: run 'argus reference save' first (it writes %s), or add "
				   "--pause to pause PID %d for the reference windows", (int)o->pid,
				   path, (int)o->pid);
		free(path);
		path = NULL;   /* holds the scope check's words next */
		if (err < 0)
			goto fail;
		m->saved_ref_windows = m->prof->nwin;
		meas_log(m, "using a saved reference of %u windows", m->saved_ref_windows);
		if (m->ref_meta.busy[0])
			meas_log(m, "warning: the saved reference was recorded on a busy system (%s): "
				 "what the load does may hide under what ran then; save it again "
				 "on an idle system ('argus reference save --strict')",
				 m->ref_meta.busy);  /* as measure_ref_busy_warning says it */
		/* the loaded windows of -p without --pause are sampled system-wide */
		err = reference_scope_check(&m->ref_meta, REFERENCE_SCOPE_SYSTEM, o->strict, &path);
		if (err > 0)
			meas_log(m, "warning: %s", path ? path : "");
		if (err < 0)
			util_cause(cause, "%s", path ? path : "the saved reference's scope differs");
		free(path);
		if (err < 0)
			goto fail;
		err = 0;
	}
	if (o->load_argv) {
		/* --mark reads the load's stdout */
		m->load = load_spawn(o->load_argv, lflags | (o->model_mark ? LOAD_F_PIPE_STDOUT : 0),
				     cause);
		if (!m->load) {
			err = -errno;
			if (noexec && (errno == ENOENT || errno == EACCES))
				*noexec = 1;
			goto fail;
		}
	} else if (o->pid) {
		m->load = load_attach_pid(o->pid, cause);
		if (!m->load) {
			err = -errno;
			goto fail;
		}
		if (!o->pause && !o->reference_only) {
			/* Nothing to pause: loaded windows only. */
			load_free(m->load);
			m->load = NULL;
		}
	}
	if (o->victim_argv) {
		m->victim = load_spawn(o->victim_argv, lflags, cause);
		if (!m->victim) {
			err = -errno;
			if (noexec && (errno == ENOENT || errno == EACCES))
				*noexec = 1;
			goto fail;
		}
		tgids[ntg++] = (uint32_t)load_pid(m->victim);
		filter = 1;
	} else if (o->victim_pid) {
		m->victim = load_attach_pid(o->victim_pid, cause);
		if (!m->victim) {
			err = -errno;
			goto fail;
		}
		ntg = load_tgids(m->victim, tgids, MEASURE_MAX_TGIDS);
		if (ntg < 0) {
			err = ntg;
			goto fail;
		}
		if (ntg > MEASURE_MAX_TGIDS)
			ntg = MEASURE_MAX_TGIDS;
		filter = 1;
	}
	if (o->background_argv) {
		m->bg = load_spawn(o->background_argv, lflags, cause);
		if (!m->bg) {
			err = -errno;
			if (noexec && (errno == ENOENT || errno == EACCES))
				*noexec = 1;
			goto fail;
		}
	}
	err = meas_plan(m, cause);
	if (err < 0)
		goto fail;
	if (o->sampler) {
		m->smp = *o->sampler;
		for (int i = 0; i < ntg && filter && m->smp.add_tgid; i++)
			m->smp.add_tgid(m->smp.ctx, tgids[i]);
	} else {
		uint32_t ttg[MEASURE_MAX_TGIDS];
		int nt = 0;

		if (filter) {
			memcpy(ttg, tgids, (size_t)ntg * sizeof(*ttg));
			nt = ntg;
		} else if (m->load && o->pid) {
			nt = load_tgids(m->load, ttg, MEASURE_MAX_TGIDS);
			if (nt < 0)
				nt = 0;
			if (nt > MEASURE_MAX_TGIDS)
				nt = MEASURE_MAX_TGIDS;
		}
		err = measure_live_open(&m->smp, &m->o, tgids, (size_t)ntg, filter, ttg, (size_t)nt,
					cause);
		if (err < 0)
			goto fail;
	}
	m->smp_open = 1;
	/* time accounting: the loaded windows' waits, kept for the model;
	 * the loads' output (held before exec: nothing written yet) */
	m->waits = measure_time_wall(&m->o) && m->smp.waits;
	m->mm = measure_model_new(&m->o, m->waits, cause);
	if (!m->mm) {
		err = -errno;
		goto fail;
	}
	measure_model_watch(m->mm, m->load, "load");
	measure_model_watch(m->mm, m->victim, "victim");
	measure_model_watch(m->mm, m->bg, "background");
	/* The victim and the background run in both conditions: from now on. */
	if (m->victim) {
		err = load_start(m->victim, cause);
		if (err < 0) {
			if (noexec)
				*noexec = 1;
			goto fail;
		}
	}
	if (m->bg) {
		err = load_start(m->bg, cause);
		if (err < 0) {
			if (noexec)
				*noexec = 1;
			goto fail;
		}
	}
	m->src.ops = &measure_ops;
	m->src.priv = m;
	return &m->src;
fail:
	if (m) {
		m->src.ops = &measure_ops;
		m->src.priv = m;
		if (!m->seq)
			m->nseq = 0;
		if (o->sampler && !m->smp_open && o->sampler->close)
			o->sampler->close(o->sampler->ctx);
		meas_free(&m->src);
	} else if (o->sampler && o->sampler->close) {
		o->sampler->close(o->sampler->ctx);
	}
	if (cause && !*cause)
		util_cause(cause, "cannot start the measurement: %s", strerror(-err));
	errno = -err;
	return NULL;
}

struct load *measure_load(struct source *s)
{
	return s ? ((struct measure *)s->priv)->load : NULL;
}

const char *measure_ref_busy(struct source *s)
{
	/* any source: the session wrapper asks whatever it wraps */
	struct measure *m = s && s->ops == &measure_ops ? s->priv : NULL;

	return m && m->saved_ref_windows && m->ref_meta.busy[0] ? m->ref_meta.busy : NULL;
}

int measure_ref_busy_warning(struct source *s, char *buf, size_t len)
{
	const char *why = measure_ref_busy(s);

	if (!why)
		return 0;
	snprintf(buf, len, "the saved reference was recorded on a busy system (%s): what the "
		 "load does may hide under what ran then; save it again on an idle system "
		 "('argus reference save --strict')", why);
	return 1;
}

const char *measure_load_last_line(struct source *s)
{
	return s ? measure_model_last_line(((struct measure *)s->priv)->mm) : NULL;
}

void measure_scopes(struct source *s, char *ref, size_t rlen, char *load, size_t llen)
{
	struct measure *m = s ? s->priv : NULL;

	snprintf(ref, rlen, "%s", REFERENCE_SCOPE_SYSTEM);
	snprintf(load, llen, "%s", REFERENCE_SCOPE_SYSTEM);
	if (m && m->victim) {   /* sampling is filtered to it in both conditions */
		snprintf(ref, rlen, "the victim (PID %d)", (int)load_pid(m->victim));
		snprintf(load, llen, "the victim (PID %d)", (int)load_pid(m->victim));
	} else if (m && m->saved_ref_windows) {
		reference_scope_line(&m->ref_meta, REFERENCE_SCOPE_SYSTEM, ref, rlen);
		snprintf(load, llen, "%s (PID %d runs)", REFERENCE_SCOPE_SYSTEM, (int)m->o.pid);
	}
}

struct load *measure_victim(struct source *s)
{
	return s ? ((struct measure *)s->priv)->victim : NULL;
}

int measure_noexec(struct source *s)
{
	return s ? ((struct measure *)s->priv)->noexec : 0;
}

int measure_stopping(struct source *s, const char **reason, unsigned *pairs, int *settled,
		     const char **windows)
{
	struct measure *m = s && s->ops == &measure_ops ? s->priv : NULL;

	if (!m)
		return -EINVAL; /* not a measurement */
	if (m->phase != SOURCE_DONE)
		return -EAGAIN;
	*reason = m->stop_reason[0] ? m->stop_reason : "measuring was stopped";
	*pairs = meas_pairs_done(m);
	*settled = m->seq_ctl && measure_seq_decision(m->seq_ctl)->settled &&
		   !strncmp(m->stop_reason, "settled", 7);
	if (windows)
		*windows = m->seq_ctl ? measure_seq_windows_why(m->seq_ctl) : "";
	return 0;
}

int measure_model_windows(struct source *s, struct measure_windows *out)
{
	struct measure *m = s && s->ops == &measure_ops ? s->priv : NULL;

	if (!m) {
		memset(out, 0, sizeof(*out));
		snprintf(out->why, sizeof(out->why), "not a measurement");
		return -ENOENT;
	}
	return measure_model_windows_get(m->mm, m->phase == SOURCE_DONE || m->stopped, out);
}

double measure_elapsed(struct source *s)
{
	return s ? ((struct measure *)s->priv)->elapsed : 0;
}

void measure_close_sampler(struct source *s)
{
	struct measure *m = s ? s->priv : NULL;

	if (m && m->smp_open) {
		m->smp.close(m->smp.ctx);
		m->smp_open = 0;
	}
}
