/* kind_util — shared helpers of the step kinds (see kind_util.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/vec.h"
#include "probe/kind_util.h"
#include "probe/probe.h"
#include "probe/usym.h"
#include "data/ksym.h"
#include "data/profile.h"
#include "base/hash.h"
#include "base/sanitize.h"
#include "data/step.h"
#include "base/util.h"

int kind_cgroup_resolve(const char *cg, char *out, size_t outsz, char **cause)
{
	char root[256], path[PATH_MAX + 300], real[PATH_MAX], shown[200];
	size_t rlen;
	struct stat st;

	sanitize_into(shown, sizeof(shown), cg ? cg : "", 0);
	if (!cg || !*cg) {
		util_cause(cause, "the cgroup path is empty");
		return -EINVAL;
	}
	if (util_cgroup2_mount(root, sizeof(root))) {
		util_cause(cause, "cannot filter on cgroup %s: no cgroup2 file system is mounted",
			   shown);
		return -ENOENT;
	}
	rlen = strlen(root);
	while (rlen > 1 && root[rlen - 1] == '/')
		root[--rlen] = '\0';
	if (!strncmp(cg, root, rlen) && (cg[rlen] == '/' || !cg[rlen]))
		snprintf(path, sizeof(path), "%s", cg);
	else
		snprintf(path, sizeof(path), "%s/%s", root, cg[0] == '/' ? cg + 1 : cg);
	if (!realpath(path, real)) {
		int err = -errno;

		sanitize_into(real, sizeof(real), path, 0);
		util_cause(cause, "cgroup '%s' is not a cgroup: no directory %s (give a path "
			   "below the cgroup2 mount %s, as /proc/PID/cgroup shows it)", shown,
			   real, root);
		return err;
	}
	if (strncmp(real, root, rlen) || (real[rlen] != '/' && real[rlen])) {
		char rs[200];

		sanitize_into(rs, sizeof(rs), real, 0);
		util_cause(cause, "cgroup '%s' resolves to %s, outside the cgroup2 mount %s; "
			   "a cgroup filter must name a cgroup", shown, rs, root);
		return -EPERM;
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", real);
	if (stat(real, &st) < 0 || !S_ISDIR(st.st_mode) || access(path, F_OK) < 0) {
		util_cause(cause, "cgroup '%s' is not a cgroup (no cgroup.procs in %s)", shown, real);
		return -ENOTDIR;
	}
	if (strlen(real) >= outsz) {
		util_cause(cause, "cgroup '%s': the path is too long", shown);
		return -ENAMETOOLONG;
	}
	snprintf(out, outsz, "%s", real);
	return 0;
}

int kind_filter_resolve(const struct step_filter *f, struct kind_filter *out, char **cause)
{
	struct stat st;
	char root[256];

	memset(out, 0, sizeof(*out));
	if (!f)
		return 0;
	out->pid = f->pid > 0 ? f->pid : 0;
	out->tgid = f->tgid > 0 ? f->tgid : 0;
	if (f->comm)
		snprintf(out->comm, sizeof(out->comm), "%s", f->comm);
	if (!f->cgroup || !*f->cgroup)
		return 0;
	/* inside the cgroup2 mount and a cgroup, whatever the step says */
	int err = kind_cgroup_resolve(f->cgroup, out->cgroup_path, sizeof(out->cgroup_path), cause);

	if (err)
		return err;
	if (stat(out->cgroup_path, &st) < 0) {
		err = -errno;
		util_cause(cause, "cannot filter on cgroup %s: %s", out->cgroup_path, strerror(-err));
		return err;
	}
	out->cgroup_id = st.st_ino; /* the cgroup v2 id is the directory's inode */
	if (!util_cgroup2_mount(root, sizeof(root)) && !strncmp(out->cgroup_path, root, strlen(root)))
		snprintf(out->cgroup_rel, sizeof(out->cgroup_rel), "%s",
			 out->cgroup_path[strlen(root)] ? out->cgroup_path + strlen(root) : "/");
	return 0;
}

/* --- snapshots --- */

struct kind_snap {
	size_t ksz;
	unsigned nv;
	size_t cap, n;
	unsigned char *slots;       /* cap * (1 + ksz + 8 * nv), first byte = used */
};

static size_t snap_stride(const struct kind_snap *s)
{
	return (1 + s->ksz + 7) / 8 * 8 + 8 * (size_t)s->nv;
}

static uint64_t snap_hash(const void *key, size_t len)
{
	uint64_t h = hash_bytes(HASH_SEED, key, len);

	return h ^ (h >> 29);
}

struct kind_snap *kind_snap_new(size_t key_size, unsigned nv)
{
	struct kind_snap *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->ksz = key_size;
	s->nv = nv;
	return s;
}

void kind_snap_free(struct kind_snap *s)
{
	if (!s)
		return;
	free(s->slots);
	free(s);
}

static unsigned char *snap_find(unsigned char *slots, size_t cap, size_t stride,
				const void *key, size_t ksz)
{
	size_t j = snap_hash(key, ksz) & (cap - 1);

	for (;; j = (j + 1) & (cap - 1)) {
		unsigned char *e = slots + j * stride;
		if (!e[0] || !memcmp(e + 1, key, ksz))
			return e;
	}
}

static int snap_grow(struct kind_snap *s)
{
	size_t cap = s->cap ? s->cap * 2 : 256, stride = snap_stride(s);
	unsigned char *n = calloc(cap, stride);

	if (!n)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		unsigned char *e = s->slots + i * stride;
		if (e[0])
			memcpy(snap_find(n, cap, stride, e + 1, s->ksz), e, stride);
	}
	free(s->slots);
	s->slots = n;
	s->cap = cap;
	return 0;
}

uint64_t *kind_snap_get(struct kind_snap *s, const void *key)
{
	size_t stride = snap_stride(s);
	unsigned char *e;

	if ((s->n + 1) * 2 > s->cap && snap_grow(s))
		return NULL;
	e = snap_find(s->slots, s->cap, stride, key, s->ksz);
	if (!e[0]) {
		e[0] = 1;
		memcpy(e + 1, key, s->ksz);
		s->n++;
	}
	return (uint64_t *)(e + stride - 8 * (size_t)s->nv);
}

/* --- stacks --- */

struct stack_ent {
	const char **names;         /* root first; strings owned here */
	unsigned n;
	int state;                  /* 0 unread, 1 ok, -1 unreadable */
};

struct kind_stacks {
	kind_stack_read_cb read;
	void *arg;
	struct stack_ent *e;
	size_t cap;
};

struct kind_stacks *kind_stacks_new(kind_stack_read_cb read, void *arg)
{
	struct kind_stacks *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->read = read;
	c->arg = arg;
	return c;
}

void kind_stacks_free(struct kind_stacks *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->cap; i++) {
		for (unsigned k = 0; k < c->e[i].n; k++)
			free((char *)c->e[i].names[k]);
		free(c->e[i].names);
	}
	free(c->e);
	free(c);
}

int kind_stacks_add(struct kind_stacks *c, const struct ksym_table *ks, uint32_t id,
		    const char *marker, struct profile *p, unsigned w, uint32_t tgid,
		    const char *comm, size_t comm_len, uint64_t count)
{
	const char *const *fr = NULL;
	const char *frames[130];
	char cm[64];
	int n = kind_stacks_get(c, id, ks, &fr);

	if (n < 0)
		return n;
	if (n > 128)
		n = 128;
	for (int i = 0; i < n; i++)
		frames[i] = fr[i];
	frames[n++] = marker;
	if (comm_len >= sizeof(cm))
		comm_len = sizeof(cm) - 1;
	memcpy(cm, comm, comm_len);
	cm[comm_len] = 0;
	return profile_add(p, w, frames, (unsigned)n, tgid, cm, count);
}

int kind_usym_modules(const struct usym *u, struct profile *p)
{
	int err = 0;

	for (size_t i = 0; !err && i < usym_nmodules(u); i++) {
		const char *name, *path, *bid;

		if (!usym_module(u, i, &name, &path, &bid)) /* else no file: [vdso] */
			err = profile_module_set(p, name, path, bid);
	}
	return err;
}

int kind_frame_is_machinery(const char *name)
{
	static const char *const pre[] = {
		"bpf_prog_", "bpf_trace_run", "__bpf_trace_", "trace_call_bpf",
		"perf_trace_run_bpf_submit", "__traceiter_", "bpf_trampoline_",
	};

	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (!strncmp(name, pre[i], strlen(pre[i])))
			return 1;
	return 0;
}

#define KIND_STACK_MAX 127

int kind_stacks_get(struct kind_stacks *c, uint32_t id, const struct ksym_table *ks,
		    const char *const **frames)
{
	uint64_t ips[KIND_STACK_MAX];
	struct stack_ent *e;
	char buf[256];
	int n, skip = 0;

	*frames = NULL;
	if (id >= (1u << 24))
		return 0; /* "no stack" markers; real ids are below the map size */
	if (id >= c->cap) {
		size_t old = c->cap;

		if (vec_grow(&c->e, &c->cap, (size_t)id + 1, sizeof(*c->e)))
			return -ENOMEM;
		memset(c->e + old, 0, (c->cap - old) * sizeof(*c->e)); /* unread ids */
	}
	e = &c->e[id];
	if (e->state) {
		*frames = e->names;
		return e->state > 0 ? (int)e->n : 0;
	}
	n = c->read(c->arg, id, ips, KIND_STACK_MAX);
	if (n <= 0) {
		e->state = -1;
		return 0;
	}
	e->names = calloc(n, sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	/* leaf first in ips: drop the machinery at the leaf end */
	for (; skip < n; skip++) {
		if (ks)
			ksym_format(ks, ips[skip], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)ips[skip]);
		/* the BPF program itself symbolises as a bare address */
		if (!kind_frame_is_machinery(buf) && (!ks || strncmp(buf, "0x", 2)))
			break;
	}
	for (int i = n - 1; i >= skip; i--) {
		char *s;

		if (ks)
			ksym_format(ks, ips[i], buf, sizeof(buf));
		else
			snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)ips[i]);
		s = strdup(buf);
		if (!s)
			return -ENOMEM; /* names so far freed with the cache */
		e->names[e->n++] = s;
	}
	e->state = 1;
	*frames = e->names;
	return (int)e->n;
}

/* --- run-time statistics --- */

int kind_load_flavour(const char *name, int (*load)(void *arg, int raw), void *arg, char **cause)
{
	int ncpus = libbpf_num_possible_cpus(), err;

	if (ncpus <= 0) {
		err = ncpus ? ncpus : -EINVAL;
		kind_set_cause(cause, "cannot count CPUs: %s", strerror(-err));
		return err;
	}
	probe_bump_memlock();
	err = load(arg, 0);
	if (err) {
		probe_log(PROBE_LOG_INFO, "%s: tp_btf refused (%s), trying raw_tp\n", name,
			  strerror(-err));
		err = load(arg, 1);
	}
	if (err) {
		kind_set_cause(cause, "cannot load the %s programs: %s%s", name, strerror(-err),
			       err == -EPERM ? "; run as root" : "");
		return err;
	}
	return ncpus;
}

int kind_stats_enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);

	return fd < 0 ? -errno : fd;
}

int kind_raw_tp_attach(struct bpf_link **links, struct bpf_program *const *progs,
		       char *const *tps, unsigned n, char **cause)
{
	for (unsigned i = 0; i < n; i++) {
		const char *name = strchr(tps[i], ':');
		int err;

		if (links[i])
			continue;
		name = name ? name + 1 : tps[i];
		links[i] = bpf_program__attach_raw_tracepoint(progs[i], name);
		if (!links[i]) {
			err = -errno;
			util_cause(cause, "cannot attach to tracepoint %s: %s%s", tps[i],
				   strerror(-err), err == -ENOENT ? " (no such raw tracepoint)" : "");
			return err;
		}
	}
	return 0;
}

void kind_links_destroy(struct bpf_link **links, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);
		links[i] = NULL;
	}
}

int kind_stackmap_copy(int map_fd, uint32_t id, unsigned depth, uint64_t *ips, unsigned max)
{
	uint64_t buf[KIND_STACKMAP_MAX_DEPTH] = { 0 };
	unsigned n = 0;

	if (depth > KIND_STACKMAP_MAX_DEPTH)
		return -EINVAL;
	if (bpf_map_lookup_elem(map_fd, &id, buf))
		return -errno;
	while (n < max && n < depth && buf[n]) {
		ips[n] = buf[n];
		n++;
	}
	return (int)n;
}

void kind_prog_runtime(int prog_fd, uint64_t *ns, uint64_t *cnt)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	if (prog_fd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return;
	*ns += info.run_time_ns;
	*cnt += info.run_cnt;
}

/* --- /proc names --- */

char *kind_proc_name(uint32_t tgid, char *buf, size_t len)
{
	char path[64], comm[64] = "", cmd[256];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return buf;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return buf;
	comm[n] = 0;
	comm[strcspn(comm, "\n")] = 0;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? 0 : read(fd, cmd, sizeof(cmd) - 1);
	if (fd >= 0)
		close(fd);
	if (n > 0) {
		cmd[n] = 0;
		for (ssize_t i = 0; i < n - 1; i++)
			if (!cmd[i])
				cmd[i] = ' ';
		if (n > 48)
			strcpy(cmd + 45, "...");
		snprintf(buf, len, "%s: %s", comm, cmd);
	} else {
		snprintf(buf, len, "%s", comm);
	}
	return buf;
}

void kind_delta_add(uint64_t *out, const uint64_t *cur, uint64_t *prev, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (cur[i] > prev[i])
			out[i] += cur[i] - prev[i];
		prev[i] = cur[i];
	}
}

int kind_percpu_sum(int map_fd, uint32_t key, int ncpus, void *out, size_t size)
{
	unsigned char *v = ncpus > 0 ? calloc((size_t)ncpus, size) : NULL;
	size_t nw = size / sizeof(uint64_t);
	int err = 0;

	memset(out, 0, size);
	if (!v)
		return ncpus > 0 ? -ENOMEM : -EINVAL;
	if (bpf_map_lookup_elem(map_fd, &key, v)) {
		err = -errno;
		goto out;
	}
	/* memcpy: the value structs hold __u64, not uint64_t (aliasing) */
	for (size_t i = 0; i < nw; i++) {
		uint64_t sum = 0, x;

		for (int c = 0; c < ncpus; c++) {
			memcpy(&x, v + (size_t)c * size + i * sizeof(x), sizeof(x));
			sum += x;
		}
		memcpy((unsigned char *)out + i * sizeof(sum), &sum, sizeof(sum));
	}
out:
	free(v);
	return err;
}

int kind_map_walk(int map_fd, size_t key_size, size_t val_size, kind_map_cb cb, void *arg)
{
	unsigned char *key = malloc(2 * key_size + val_size), *next, *val;
	void *prev = NULL;
	int rc = 0;

	if (!key)
		return -ENOMEM;
	next = key + key_size;
	val = next + key_size;
	while (!bpf_map_get_next_key(map_fd, prev, next)) {
		memcpy(key, next, key_size);
		prev = key;
		if (bpf_map_lookup_elem(map_fd, key, val))
			continue; /* deleted meanwhile */
		rc = cb(arg, key, val);
		if (rc)
			break;
	}
	free(key);
	return rc;
}
