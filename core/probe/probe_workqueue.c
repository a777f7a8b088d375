/* probe_workqueue — kernel workers' work functions (see probe_workqueue.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/types.h>

#include "../../bpf/workqueue.h"
#include "probe/kind_util.h"
#include "base/util.h"
#include "data/ksym.h"
#include "probe/probe.h"
#include "probe/probe_workqueue.h"
#include "data/profile.h"
#include "workqueue.skel.h"

_Static_assert(sizeof(struct workqueue_key) == 16, "workqueue_key layout");
_Static_assert(sizeof(struct workqueue_val) == 8, "workqueue_val layout");

struct probe_workqueue {
	struct workqueue_bpf *skel;
	struct bpf_link *link;
	struct kind_snap *seen;      /* each key's count at the last collect */
	int raw;                     /* the raw_tp flavour is the one attached */
};

void probe_workqueue_close(struct probe_workqueue *pw)
{
	if (!pw)
		return;
	bpf_link__destroy(pw->link);
	workqueue_bpf__destroy(pw->skel);
	kind_snap_free(pw->seen);
	free(pw);
}

static int wq_load(struct probe_workqueue *pw, unsigned max_keys, int raw)
{
	struct workqueue_bpf *s = workqueue_bpf__open();
	int err;

	if (!s)
		return -errno;
	bpf_map__set_max_entries(s->maps.works, max_keys ? max_keys : 4096);
	bpf_program__set_autoload(s->progs.argus_wq_start, !raw);
	bpf_program__set_autoload(s->progs.argus_wq_start_raw, raw);
	err = workqueue_bpf__load(s);
	if (err) {
		workqueue_bpf__destroy(s);
		return err;
	}
	pw->skel = s;
	pw->raw = raw;
	pw->link = bpf_program__attach(raw ? s->progs.argus_wq_start_raw : s->progs.argus_wq_start);
	if (!pw->link) {
		err = -errno;
		workqueue_bpf__destroy(s);
		pw->skel = NULL;
		return err;
	}
	return 0;
}

struct probe_workqueue *probe_workqueue_open(unsigned max_keys, char **cause)
{
	struct probe_workqueue *pw = calloc(1, sizeof(*pw));
	int err;

	if (!pw) {
		util_cause(cause, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	pw->seen = kind_snap_new(sizeof(struct workqueue_key), 1);
	if (!pw->seen) {
		util_cause(cause, "out of memory");
		free(pw);
		errno = ENOMEM;
		return NULL;
	}
	probe_bump_memlock();
	err = wq_load(pw, max_keys, 0);
	if (err) {
		probe_log(PROBE_LOG_INFO, "workqueue: tp_btf refused (%s), trying raw_tp\n",
			  strerror(-err));
		err = wq_load(pw, max_keys, 1);
	}
	if (err) {
		util_cause(cause, "cannot load the workqueue program: %s%s", strerror(-err),
			   err == -EPERM ? "; run as root" : "");
		kind_snap_free(pw->seen);
		free(pw);
		errno = -err;
		return NULL;
	}
	return pw;
}

char *probe_workqueue_top(struct probe_workqueue *pw, const struct ksym_table *ks,
			  uint32_t pid, char *buf, size_t len)
{
	struct workqueue_key k, next, *cur = NULL;
	struct workqueue_val v;
	uint64_t best = 0, func = 0;
	int fd;

	if (len)
		buf[0] = 0;
	if (!pw || !len)
		return buf;
	fd = bpf_map__fd(pw->skel->maps.works);
	while (!bpf_map_get_next_key(fd, cur, &next)) {
		if (next.pid == pid && !bpf_map_lookup_elem(fd, &next, &v) && v.count > best) {
			best = v.count;
			func = next.func;
		}
		k = next;
		cur = &k;
	}
	if (func) {
		const struct ksym *s = ks ? ksym_lookup(ks, func) : NULL;

		if (s)
			ksym_format(ks, func, buf, len);
		else
			snprintf(buf, len, "0x%llx", (unsigned long long)func);
	}
	return buf;
}

struct wq_collect {
	struct probe_workqueue *pw;
	const struct ksym_table *ks;
	struct profile *p;
	unsigned win;
	int64_t n;
};

static int wq_collect_one(void *arg, const void *key, const void *val)
{
	struct wq_collect *c = arg;
	const struct workqueue_key *k = key;
	const struct workqueue_val *v = val;
	uint64_t *seen = kind_snap_get(c->pw->seen, key), d;
	char name[256];
	int err;

	if (!seen)
		return -ENOMEM;
	d = v->count - *seen;
	*seen = v->count;
	if (!d)
		return 0;
	if (c->ks && ksym_lookup(c->ks, k->func))
		ksym_format(c->ks, k->func, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "0x%llx", (unsigned long long)k->func);
	err = profile_work_add(c->p, c->win, k->pid, name, d);
	if (err)
		return err;
	c->n += (int64_t)d;
	return 0;
}

int64_t probe_workqueue_collect(struct probe_workqueue *pw, const struct ksym_table *ks,
				struct profile *p, unsigned win)
{
	struct wq_collect c = { .pw = pw, .ks = ks, .p = p, .win = win };
	int err;

	if (!pw || !p || win >= p->nwin)
		return -EINVAL;
	p->wins[win].works_traced = 1;
	err = kind_map_walk(bpf_map__fd(pw->skel->maps.works), sizeof(struct workqueue_key),
			    sizeof(struct workqueue_val), wq_collect_one, &c);
	return err ? err : c.n;
}

void probe_workqueue_runtime(struct probe_workqueue *pw, uint64_t *ns, uint64_t *cnt)
{
	*ns = *cnt = 0;
	if (pw && pw->skel)
		kind_prog_runtime(bpf_program__fd(pw->raw ? pw->skel->progs.argus_wq_start_raw :
						  pw->skel->progs.argus_wq_start), ns, cnt);
}
