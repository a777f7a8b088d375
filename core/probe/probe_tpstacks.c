/* probe_tpstacks — loads, attaches and reads bpf/tpstacks.bpf.c (see
 * probe_tpstacks.h); and the tracepoint_stacks step kind over it.
 *
 * Stacks go to the profile root first, the BPF machinery's leaf frames
 * dropped, with a marker frame "[tp] category:name" appended at the LEAF
 * end: the executor matches the kernel frames root first against the tree
 * and hangs the tracepoint under the deepest matching node (or under the
 * tracepoint's own node when nothing matches).  Events per target are the
 * exact firings counted in the kernel; a stack's count is its recorded
 * firings times (firings / recorded firings) of its target since the last
 * read, so the stacks of a window sum to its exact firings whatever N was in
 * force (an estimate per stack, exact in total).
 *
 * sample_every 0 (automatic): before attaching, the targets' firing rate
 * (with the filter) is counted for KIND_RATE_PROBE_S by the counts probe, and
 * N = ceil(rate / KIND_TPSTACKS_BUDGET) so that at most ~KIND_TPSTACKS_BUDGET
 * firings per second are recorded with a stack (each costs a stack walk,
 * 1-2 us).  That rate may be of a load paused or not yet started, so N is
 * raised (never lowered) while attached: at every read and every stats call
 * (the executor's overhead guard, four times a second).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/types.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probe/kind_ops.h"
#include "probe/kind_util.h"
#include "probe/probe_counts.h"
#include "probe/probe_tpstacks.h"
#include "probe/usym.h"
#include "data/step.h"
#include "base/util.h"
#include "tpstacks.skel.h"
#include "../../bpf/tpstacks.h"

_Static_assert(sizeof(struct tpstacks_key) == 32, "tpstacks_key layout");
_Static_assert(sizeof(struct tpstacks_counters) == 48, "tpstacks_counters layout");

struct probe_tpstacks {
	struct tpstacks_bpf *skel;
	struct bpf_link *links[TPSTACKS_MAX_TPS];
	struct bpf_program *progs[TPSTACKS_MAX_TPS];
	char *tps[TPSTACKS_MAX_TPS]; /* owned copies: attached again after a pause */
	unsigned ntps;
	unsigned sample_every;
	int ncpus;
};

static struct bpf_program *tps_prog(struct tpstacks_bpf *skel, unsigned i)
{
	char name[32];

	snprintf(name, sizeof(name), "argus_tps_%u", i);
	return bpf_object__find_program_by_name(skel->obj, name);
}

void probe_tpstacks_free(struct probe_tpstacks *t)
{
	if (!t)
		return;
	kind_links_destroy(t->links, TPSTACKS_MAX_TPS);
	for (unsigned i = 0; i < t->ntps; i++)
		free(t->tps[i]);
	tpstacks_bpf__destroy(t->skel);
	free(t);
}

struct probe_tpstacks *probe_tpstacks_open(const struct probe_tpstacks_opts *o, char **cause)
{
	struct probe_tpstacks *t = NULL;
	unsigned max_stacks = o->max_stacks ? o->max_stacks : STEP_DEFAULT_MAX_STACKS;
	int err = 0;

	if (!o->ntps || o->ntps > TPSTACKS_MAX_TPS) {
		util_cause(cause, "tracepoint_stacks takes 1 to %d tracepoints, not %u",
			   TPSTACKS_MAX_TPS, o->ntps);
		err = -EINVAL;
		goto fail;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto fail;
	}
	t->ntps = o->ntps;
	t->sample_every = o->sample_every > 1 ? o->sample_every : 1;
	t->ncpus = libbpf_num_possible_cpus();
	if (t->ncpus <= 0) {
		err = t->ncpus ? t->ncpus : -EINVAL;
		util_cause(cause, "cannot count CPUs: %s", strerror(-err));
		goto fail;
	}
	t->skel = tpstacks_bpf__open();
	if (!t->skel) {
		err = -errno;
		util_cause(cause, "cannot open the tracepoint_stacks BPF object: %s", strerror(-err));
		goto fail;
	}
	t->skel->data->sample_every = t->sample_every;
	t->skel->rodata->filter_pid = o->pid > 0 ? (unsigned)o->pid : 0;
	t->skel->rodata->filter_tgid = o->tgid > 0 ? (unsigned)o->tgid : 0;
	if (o->comm && *o->comm) {
		t->skel->rodata->filter_comm_on = 1;
		strncpy((char *)t->skel->rodata->filter_comm, o->comm, TPSTACKS_COMM_LEN - 1);
	}
	if (o->cgroup && *o->cgroup) {
		struct stat st;
		if (stat(o->cgroup, &st) < 0) {
			err = -errno;
			util_cause(cause, "cannot use cgroup %s: %s", o->cgroup, strerror(-err));
			goto fail;
		}
		t->skel->rodata->filter_cgroup = st.st_ino; /* the cgroup v2 id */
	}
	bpf_map__set_max_entries(t->skel->maps.stacks, max_stacks);
	bpf_map__set_max_entries(t->skel->maps.ustacks, max_stacks);
	bpf_map__set_max_entries(t->skel->maps.counts, max_stacks * 2);
	for (unsigned i = 0; i < TPSTACKS_MAX_TPS; i++)
		bpf_program__set_autoload(tps_prog(t->skel, i), i < o->ntps);
	err = tpstacks_bpf__load(t->skel);
	if (err) {
		util_cause(cause, "cannot load the tracepoint_stacks program: %s%s", strerror(-err),
			   err == -EPERM ? "; run as root" : "");
		goto fail;
	}
	for (unsigned i = 0; i < o->ntps; i++) {
		t->progs[i] = tps_prog(t->skel, i);
		t->tps[i] = strdup(o->tracepoints[i]);
		if (!t->tps[i]) {
			err = -ENOMEM;
			util_cause(cause, "out of memory");
			goto fail;
		}
	}
	err = kind_raw_tp_attach(t->links, t->progs, t->tps, o->ntps, cause);
	if (err)
		goto fail;
	return t;
fail:
	probe_tpstacks_free(t);
	errno = -err;
	return NULL;
}

struct probe_tpstacks *probe_tpstacks_open_step(const struct step *s, char **cause)
{
	struct probe_tpstacks_opts o = {
		.tracepoints = (const char *const *)s->resolved,
		.ntps = s->nresolved,
		.sample_every = s->sample_every,
		.max_stacks = s->max_stacks,
		.pid = s->filter.pid,
		.tgid = s->filter.tgid,
		.comm = s->filter.comm,
		.cgroup = s->filter.cgroup,
	};

	if (s->kind != STEP_TRACEPOINT_STACKS || !s->nresolved) {
		util_cause(cause, "not a validated tracepoint_stacks step");
		errno = EINVAL;
		return NULL;
	}
	return probe_tpstacks_open(&o, cause);
}

void probe_tpstacks_detach(struct probe_tpstacks *t)
{
	kind_links_destroy(t->links, t->ntps);
}

int probe_tpstacks_attach(struct probe_tpstacks *t, char **cause)
{
	return kind_raw_tp_attach(t->links, t->progs, t->tps, t->ntps, cause);
}

unsigned probe_tpstacks_sample_every(const struct probe_tpstacks *t)
{
	return t->sample_every;
}

void probe_tpstacks_set_sample_every(struct probe_tpstacks *t, unsigned n)
{
	t->sample_every = n > 1 ? n : 1;
	/* .data is mapped into this process: the programs see it at once */
	t->skel->data->sample_every = t->sample_every;
}

int probe_tpstacks_totals(struct probe_tpstacks *t, unsigned tp, struct probe_tpstacks_totals *out)
{
	struct tpstacks_counters v;
	int rc;

	memset(out, 0, sizeof(*out));
	if (tp >= t->ntps)
		return -EINVAL;
	rc = kind_percpu_sum(bpf_map__fd(t->skel->maps.counters), tp, t->ncpus, &v, sizeof(v));
	if (rc)
		return rc;
	out->fired = v.fired;
	out->filtered_out = v.filtered_out;
	out->recorded = v.recorded;
	out->stack_error = v.stack_error;
	out->count_map_full = v.count_map_full;
	out->ustack_error = v.ustack_error;
	return 0;
}

struct tps_walk {
	int sfd, usfd;              /* the kernel and the user stack maps */
	uint64_t *ips, *uips;       /* TPSTACKS_MAX_DEPTH each */
	probe_tpstacks_cb cb;
	void *arg;
};

static int tps_walk_one(void *arg, const void *key_, const void *val)
{
	const struct tpstacks_key *key = key_;
	struct tps_walk *w = arg;
	struct probe_tpstacks_stack s = { .tp = key->tp, .tgid = key->tgid, .ips = w->ips,
					  .uips = w->uips, .ustack_id = key->ustack_id,
					  .stack_id = key->stack_id };
	__u64 count;

	memcpy(&count, val, sizeof(count));
	memcpy(s.comm, key->comm, sizeof(s.comm));
	s.comm[sizeof(s.comm) - 1] = 0;
	s.count = count;
	if (key->stack_id != TPSTACKS_NO_STACK &&
	    !bpf_map_lookup_elem(w->sfd, &key->stack_id, w->ips))
		while (s.nips < TPSTACKS_MAX_DEPTH && w->ips[s.nips])
			s.nips++;
	/* a user stack id whose bucket another stack took since: unreadable,
	 * the firings stay counted with the kernel stack */
	memset(w->uips, 0, TPSTACKS_MAX_DEPTH * sizeof(*w->uips));
	if (key->ustack_id != TPSTACKS_NO_STACK &&
	    !bpf_map_lookup_elem(w->usfd, &key->ustack_id, w->uips))
		while (s.nuips < TPSTACKS_MAX_DEPTH && w->uips[s.nuips])
			s.nuips++;
	return w->cb(w->arg, &s);
}

int probe_tpstacks_read(struct probe_tpstacks *t, probe_tpstacks_cb cb, void *arg)
{
	struct tps_walk w = { bpf_map__fd(t->skel->maps.stacks),
			      bpf_map__fd(t->skel->maps.ustacks), NULL, NULL, cb, arg };
	int rc = -ENOMEM;

	w.ips = calloc(TPSTACKS_MAX_DEPTH, sizeof(*w.ips));
	w.uips = calloc(TPSTACKS_MAX_DEPTH, sizeof(*w.uips));
	if (w.ips && w.uips)
		rc = kind_map_walk(bpf_map__fd(t->skel->maps.counts), sizeof(struct tpstacks_key),
				   sizeof(__u64), tps_walk_one, &w);
	free(w.ips);
	free(w.uips);
	return rc;
}

void probe_tpstacks_runtime(struct probe_tpstacks *t, uint64_t *ns, uint64_t *cnt)
{
	for (unsigned i = 0; i < t->ntps; i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);

		memset(&info, 0, sizeof(info));
		if (!bpf_obj_get_info_by_fd(bpf_program__fd(tps_prog(t->skel, i)), &info, &len)) {
			*ns += info.run_time_ns;
			*cnt += info.run_cnt;
		}
	}
}

/* ---- the tracepoint_stacks kind (core/probe/kind.h) ------------------------------ */

struct snap_key {
	uint32_t stack_id, ustack_id, tp, tgid;
	char comm[16];
};

struct kind_tps {
	struct probe_tpstacks *t;
	unsigned ntps;
	unsigned every;
	int auto_every;             /* sample_every 0: retuned at every read */
	double last_read;           /* monotonic seconds of the last retune */
	uint64_t retune_fired;      /* all targets' firings at the last retune */
	double *scale;              /* per target, for the read in progress:
	                             * firings / recorded firings since the last read */
	char **markers;             /* "[tp] category:name" per target */
	struct kind_snap *snap;     /* snap_key -> recorded count */
	struct kind_stacks *stacks;
	struct usym *usym;          /* symbolizes the user stacks (issue 27) */
	const uint64_t *cur_ips;    /* stack being read (probe_tpstacks_read gives ips) */
	unsigned cur_nips;
	struct probe_tpstacks_totals *prev;  /* per target, at the last collect */
	int stats_fd;               /* BPF run-time statistics on while held */
	uint64_t events, lost;
	/* collect in progress */
	struct step_data *d;
	unsigned w;
	const struct ksym_table *ks;
	int discard;
};

static int tps_read_stack(void *arg, uint32_t id, uint64_t *ips, unsigned max)
{
	struct kind_tps *k = arg;
	unsigned n = k->cur_nips < max ? k->cur_nips : max;

	(void)id;
	memcpy(ips, k->cur_ips, n * sizeof(*ips));
	return (int)n;
}

static void tps_close(struct kind_probe *kp)
{
	struct kind_tps *k = (struct kind_tps *)kp;

	if (!k)
		return;
	probe_tpstacks_free(k->t);
	if (k->stats_fd >= 0)
		close(k->stats_fd);
	for (unsigned i = 0; k->markers && i < k->ntps; i++)
		free(k->markers[i]);
	free(k->markers);
	kind_snap_free(k->snap);
	kind_stacks_free(k->stacks);
	usym_free(k->usym);
	free(k->prev);
	free(k->scale);
	free(k);
}

unsigned kind_tpstacks_auto_every(double rate)
{
	double n = rate / KIND_TPSTACKS_BUDGET;

	if (!(n > 1))
		return 1;
	if (n >= 1000000)
		return 1000000;
	return (unsigned)n + ((double)(unsigned)n < n); /* ceil */
}

static int tps_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct kind_tps *k = calloc(1, sizeof(*k));
	struct probe_tpstacks_opts o = { 0 };
	struct kind_filter f;
	int err = 0;

	if (!k) {
		err = -ENOMEM;
		goto fail;
	}
	k->stats_fd = -1;
	if (s->kind != STEP_TRACEPOINT_STACKS || !s->nresolved) {
		err = -EINVAL;
		util_cause(cause, "not a validated tracepoint_stacks step");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	k->ntps = s->nresolved;
	k->markers = calloc(k->ntps, sizeof(*k->markers));
	k->prev = calloc(k->ntps, sizeof(*k->prev));
	k->scale = calloc(k->ntps, sizeof(*k->scale));
	k->snap = kind_snap_new(sizeof(struct snap_key), 1);
	k->stacks = kind_stacks_new(tps_read_stack, k);
	k->usym = usym_new();
	if (!k->markers || !k->prev || !k->scale || !k->snap || !k->stacks || !k->usym) {
		err = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < k->ntps; i++)
		if (asprintf(&k->markers[i], "[tp] %s", s->resolved[i]) < 0) {
			k->markers[i] = NULL;
			err = -ENOMEM;
			goto fail;
		}
	k->every = s->sample_every;
	k->auto_every = !s->sample_every;
	if (!k->every) {
		double rate = 0;

		err = probe_counts_rate((const char *const *)s->resolved, s->nresolved, &f,
					KIND_RATE_PROBE_S, &rate, cause);
		if (err)
			goto fail;
		k->every = kind_tpstacks_auto_every(rate);
	}
	o.tracepoints = (const char *const *)s->resolved;
	o.ntps = s->nresolved;
	o.sample_every = k->every;
	o.max_stacks = s->max_stacks;
	o.pid = f.pid;
	o.tgid = f.tgid;
	o.comm = f.comm[0] ? f.comm : NULL;
	o.cgroup = f.cgroup_path[0] ? f.cgroup_path : NULL;
	k->t = probe_tpstacks_open(&o, cause);
	if (!k->t) {
		err = -errno;
		goto fail;
	}
	k->last_read = util_mono_s(); /* the rate is measured from attach on */
	k->stats_fd = kind_stats_enable();
	*out = (struct kind_probe *)k;
	return 0;
fail:
	if (err == -ENOMEM)
		util_cause(cause, "out of memory");
	tps_close((struct kind_probe *)k);
	return err;
}

static int tps_one(void *arg, const struct probe_tpstacks_stack *st)
{
	struct kind_tps *k = arg;
	struct snap_key key;
	const char *const *fr = NULL;
	const char *frames[130];
	char **unames = NULL;
	uint64_t *prev, d;
	int n, nu = 0, rc;

	memset(&key, 0, sizeof(key));
	key.stack_id = st->stack_id;
	key.ustack_id = st->ustack_id;
	key.tp = st->tp;
	key.tgid = st->tgid;
	memcpy(key.comm, st->comm, sizeof(key.comm));
	prev = kind_snap_get(k->snap, &key);
	if (!prev)
		return -ENOMEM;
	if (st->count <= prev[0] || st->tp >= k->ntps)
		return 0;
	d = st->count - prev[0];
	prev[0] = st->count;
	if (k->discard)
		return 0;
	k->cur_ips = st->ips;
	k->cur_nips = st->nips;
	n = st->nips ? kind_stacks_get(k->stacks, st->stack_id, k->ks, &fr) : 0;
	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (int i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = k->markers[st->tp];
	/* symbolized at every read that saw it grow, not cached: a key's user
	 * stack is one of at most max_stacks, and usym keeps each process's
	 * mappings, so this is lookups, not file reads */
	if (st->nuips) {
		nu = usym_stack(k->usym, st->tgid, st->comm, st->uips, st->nuips, &unames);
		if (nu < 0)
			return nu;
	}
	rc = profile_add_user(k->d->prof, k->w, frames, (unsigned)n,
			      (const char *const *)unames, (unsigned)nu, st->tgid, st->comm,
			      (uint64_t)llround(d * k->scale[st->tp]));
	usym_names_free(unames, (unsigned)nu);
	return rc;
}

/* Reads the exact per-target totals; adds their growth to d (NULL: drop).
 * In automatic mode, then picks 1-in-N for what comes next from the rate
 * just seen: the rate at open may have been measured with the load paused
 * or not yet started, so it is never trusted for long.  Stacks read before
 * this call were recorded under the old N and scaled by it. */
static int tps_totals(struct kind_tps *k, struct step_data *d, unsigned w)
{
	for (unsigned i = 0; i < k->ntps; i++) {
		struct probe_tpstacks_totals t;
		struct step_target_win *tw = d ? step_data_target(d, w, i) : NULL;
		uint64_t lost;
		int err = probe_tpstacks_totals(k->t, i, &t);

		if (err)
			return err;
		lost = (t.count_map_full - k->prev[i].count_map_full) +
		       (t.stack_error - k->prev[i].stack_error);
		k->events += t.fired - k->prev[i].fired;
		/* stacks read next are scaled so that they sum to the exact
		 * firings, whatever N was in force while they were recorded */
		k->scale[i] = t.recorded > k->prev[i].recorded ?
			(double)(t.fired - k->prev[i].fired) / (t.recorded - k->prev[i].recorded) :
			k->every;
		k->lost += lost;
		if (tw) {
			tw->events += t.fired - k->prev[i].fired;
			tw->recorded += t.recorded - k->prev[i].recorded;
			d->lost += lost;
			d->prof->wins[w].lost += lost;
			/* scaled as the stacks are: the profile's unit (issue 27) */
			d->prof->wins[w].ustack_errors += (uint64_t)
				((double)(t.ustack_error - k->prev[i].ustack_error) * k->scale[i] + 0.5);
		}
		k->prev[i] = t;
	}
	return 0;
}

/* Automatic 1-in-N: raises N when the rate since the last retune needs it
 * (never lowers it: a reference window with the load paused must not undo
 * what the loaded one taught).  Called at every read and from stats, which
 * the executor's overhead guard calls four times a second. */
static void tps_retune(struct kind_tps *k)
{
	double now = util_mono_s();
	uint64_t fired = 0;
	unsigned n;

	if (!k->auto_every || now - k->last_read < KIND_RATE_PROBE_S)
		return;
	for (unsigned i = 0; i < k->ntps; i++) {
		struct probe_tpstacks_totals t;

		if (probe_tpstacks_totals(k->t, i, &t) == 0)
			fired += t.fired;
	}
	n = kind_tpstacks_auto_every((fired - k->retune_fired) / (now - k->last_read));
	if (n > k->every) {
		probe_tpstacks_set_sample_every(k->t, n);
		k->every = n;
	}
	k->retune_fired = fired;
	k->last_read = now;
}

static int tps_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
		       const struct ksym_table *ks)
{
	struct kind_tps *k = (struct kind_tps *)kp;
	int err;

	if (w >= d->nwin || d->ntargets < k->ntps)
		return -EINVAL;
	k->d = d;
	k->w = w;
	k->ks = ks;
	k->discard = 0;
	/* processes gone before this read have all their firings in the map:
	 * symbolized with the mappings kept, which are forgotten after */
	usym_reap_mark(k->usym);
	err = tps_totals(k, d, w);
	if (!err)
		err = probe_tpstacks_read(k->t, tps_one, k);
	usym_reap(k->usym);
	if (!err)
		err = kind_usym_modules(k->usym, d->prof);
	k->d = NULL;
	tps_retune(k);
	return err;
}

static int tps_discard(struct kind_probe *kp)
{
	struct kind_tps *k = (struct kind_tps *)kp;
	int err;

	k->discard = 1;
	usym_reap_mark(k->usym);
	err = tps_totals(k, NULL, 0);
	if (!err)
		err = probe_tpstacks_read(k->t, tps_one, k);
	usym_reap(k->usym);
	k->discard = 0;
	tps_retune(k);
	return err;
}

static void tps_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_tps *k = (struct kind_tps *)kp;

	tps_retune(k);
	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->lost = k->lost;
	st->progs = k->ntps;
	probe_tpstacks_runtime(k->t, &st->run_ns, &st->run_cnt);
}

unsigned kind_tpstacks_every(const struct kind_probe *kp)
{
	return ((const struct kind_tps *)kp)->every;
}

static int tps_pause(struct kind_probe *kp)
{
	probe_tpstacks_detach(((struct kind_tps *)kp)->t);
	return 0;
}

static int tps_resume(struct kind_probe *kp)
{
	return probe_tpstacks_attach(((struct kind_tps *)kp)->t, NULL);
}

const struct kind_ops probe_tpstacks_kind_ops = {
	.kind = STEP_TRACEPOINT_STACKS,
	.open = tps_open,
	.collect = tps_collect,
	.discard = tps_discard,
	.stats = tps_stats,
	.close = tps_close,
	.pause = tps_pause,
	.resume = tps_resume,
};
