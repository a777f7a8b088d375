/* kind_sample — the sample kind over core/probe_profile.c: cpu-clock at the
 * step's freq_hz, kernel stacks, counts = samples.
 *
 * The sampler filters by process (a tgid set in the kernel, children
 * followed), so the step filter is turned into that set at open: every
 * process of /proc whose threads match pid / tgid / comm / cgroup joins,
 * with its later children.  A pid filter thus samples the whole process of
 * that thread, and a comm or cgroup filter does not catch processes that
 * take that name or enter that cgroup later without being forked by one
 * already in the set.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "kind_util.h"
#include "probe_profile.h"

struct kind_sample {
	struct probe_profile *pp;
	struct profile *scratch;    /* where discarded samples go */
	uint64_t prev_lost;
	uint64_t events;
};

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Nonzero when some thread of process tgid matches the filter. */
static int proc_matches(int tgid, const struct kind_filter *f, const char *cg_rel)
{
	char path[128], buf[4096];
	struct dirent *de;
	DIR *d;
	int hit = 0;

	if (f->tgid && tgid != f->tgid)
		return 0;
	if (cg_rel) {
		FILE *fp;

		snprintf(path, sizeof(path), "/proc/%d/cgroup", tgid);
		fp = fopen(path, "r");
		if (!fp)
			return 0;
		while (!hit && fgets(buf, sizeof(buf), fp)) {
			buf[strcspn(buf, "\n")] = 0;
			if (!strncmp(buf, "0::", 3)) {
				size_t n = strlen(cg_rel);
				hit = !strcmp(cg_rel, "/") || (!strncmp(buf + 3, cg_rel, n) &&
								 (!buf[3 + n] || buf[3 + n] == '/'));
			}
		}
		fclose(fp);
		if (!hit)
			return 0;
		hit = 0;
	}
	if (!f->pid && !f->comm[0])
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!hit && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0 || (f->pid && tid != f->pid))
			continue;
		if (f->comm[0]) {
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", tgid, tid);
			if (read_line(path, buf, sizeof(buf)) || strcmp(buf, f->comm))
				continue;
		}
		hit = 1;
	}
	closedir(d);
	return hit;
}

/* The processes matching f now; *out malloc'd (caller frees).  Count or -errno. */
static int sample_tgids(const struct kind_filter *f, uint32_t **out)
{
	const char *cg_rel = NULL;
	uint32_t *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*out = NULL;
	if (f->cgroup_id)
		cg_rel = f->cgroup_rel[0] ? f->cgroup_rel : f->cgroup_path;
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		int tgid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		tgid = atoi(de->d_name);
		if (!proc_matches(tgid, f, cg_rel))
			continue;
		if (n == cap) {
			uint32_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (uint32_t)tgid;
	}
	closedir(d);
	*out = v;
	return (int)n;
}

static void sample_close(struct kind_probe *kp)
{
	struct kind_sample *k = (struct kind_sample *)kp;

	if (!k)
		return;
	probe_profile_close(k->pp);
	profile_free(k->scratch);
	free(k);
}

static int sample_open(const struct step *s, struct kind_probe **out, char **cause)
{
	struct probe_profile_opts o = { 0 };
	struct kind_sample *k = calloc(1, sizeof(*k));
	struct kind_filter f;
	uint32_t *tgids = NULL;
	int err, n = 0;

	if (!k) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	err = kind_filter_resolve(&s->filter, &f, cause);
	if (err)
		goto fail;
	o.freq_hz = s->freq_hz ? s->freq_hz : STEP_DEFAULT_FREQ_HZ;
	if (f.pid || f.tgid || f.comm[0] || f.cgroup_id) {
		n = sample_tgids(&f, &tgids);
		if (n < 0) {
			err = n;
			kind_set_cause(cause, "cannot read /proc to apply the filter: %s",
				       strerror(-err));
			goto fail;
		}
		if (!n) {
			err = -ESRCH;
			kind_set_cause(cause, "the filter matches no running process; start the "
				       "load first, or check the filter");
			goto fail;
		}
		o.tgids = tgids;
		o.ntgids = (size_t)n;
		o.filter = 1;
		o.follow_forks = 1;
	}
	if (s->max_stacks) {
		o.stack_entries = s->max_stacks;
		o.count_entries = s->max_stacks * 4;
	}
	k->scratch = profile_new();
	if (!k->scratch || profile_window_begin(k->scratch, COND_REF, 0) < 0) {
		err = -ENOMEM;
		kind_set_cause(cause, "out of memory");
		goto fail;
	}
	k->pp = probe_profile_open(&o, cause);
	if (!k->pp) {
		err = -errno;
		goto fail;
	}
	free(tgids);
	*out = (struct kind_probe *)k;
	return 0;
fail:
	free(tgids);
	sample_close((struct kind_probe *)k);
	return err;
}

static uint64_t sample_lost(struct kind_sample *k)
{
	struct probe_profile_stats st;

	if (probe_profile_stats(k->pp, &st))
		return k->prev_lost;
	return st.dropped;
}

static int sample_collect(struct kind_probe *kp, struct step_data *d, unsigned w,
			  const struct ksym_table *ks)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	struct step_target_win *t = step_data_target(d, w, 0);
	int64_t n;
	uint64_t lost;

	if (!t)
		return -EINVAL;
	n = probe_profile_collect(k->pp, d->prof, w, ks);
	if (n < 0)
		return (int)n;
	t->events += (uint64_t)n;
	t->recorded += (uint64_t)n;
	k->events += (uint64_t)n;
	lost = sample_lost(k);
	if (lost > k->prev_lost) {
		d->lost += lost - k->prev_lost;
		d->prof->wins[w].lost += lost - k->prev_lost;
	}
	k->prev_lost = lost;
	return 0;
}

static int sample_discard(struct kind_probe *kp)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	int64_t n = probe_profile_collect(k->pp, k->scratch, 0, NULL);

	k->prev_lost = sample_lost(k);
	return n < 0 ? (int)n : 0;
}

static void sample_stats(struct kind_probe *kp, struct kind_stats *st)
{
	struct kind_sample *k = (struct kind_sample *)kp;
	struct probe_profile_stats ps;

	memset(st, 0, sizeof(*st));
	st->events = k->events;
	st->progs = 1;
	if (!probe_profile_stats(k->pp, &ps)) {
		st->lost = ps.dropped;
		st->run_ns = ps.bpf_run_ns;
		st->run_cnt = ps.bpf_run_cnt;
	}
}

const struct kind_ops kind_sample_ops = {
	.kind = STEP_SAMPLE,
	.open = sample_open,
	.collect = sample_collect,
	.discard = sample_discard,
	.stats = sample_stats,
	.close = sample_close,
};
