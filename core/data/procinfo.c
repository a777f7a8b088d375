/* procinfo — process and thread identity from /proc (see procinfo.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "data/procinfo.h"
#include "data/profile.h"

#define PROCINFO_PF_KTHREAD 0x00200000u

/* Reads a whole small /proc file; caller frees; NULL with errno. */
static char *procinfo_slurp(const char *path, size_t *len)
{
	size_t cap = 512, n = 0;
	char *buf = malloc(cap + 1);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (fd < 0 || !buf) {
		int e = fd < 0 ? errno : ENOMEM;

		free(buf);
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n)) > 0) {
		n += (size_t)r;
		if (n == cap) {
			if (cap >= (1u << 20))
				break; /* enough of a cmdline */
			if (vec_resize(&buf, cap * 2 + 1, 1)) {
				free(buf);
				close(fd);
				errno = ENOMEM;
				return NULL;
			}
			cap *= 2;
		}
	}
	close(fd);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}

char *procinfo_cgroup_path(const char *text)
{
	const char *line = text, *best = NULL;
	size_t bestlen = 0;

	while (line && *line) {
		const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);

		if (!strncmp(line, "0::", 3)) {
			best = line + 3;
			bestlen = (size_t)(end - best);
			break; /* cgroup v2: the one that counts */
		}
		{
			const char *c1 = memchr(line, ':', (size_t)(end - line)), *c2;

			if (c1 && (c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1))) &&
			    (size_t)(c2 - c1 - 1) == strlen("name=systemd") &&
			    !strncmp(c1 + 1, "name=systemd", 12)) {
				best = c2 + 1;
				bestlen = (size_t)(end - best);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return best ? strndup(best, bestlen) : NULL;
}

static int procinfo_is_hex64(const char *s, size_t n)
{
	if (n < 64)
		return 0;
	for (size_t i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return n == 64 || !isxdigit((unsigned char)s[64]);
}

void procinfo_cgroup_parse(const char *path, char *unit, size_t unit_len,
			   char *cid, size_t cid_len)
{
	static const char *const sfx[] = { ".service", ".scope", ".slice", ".socket",
					   ".mount", ".swap", NULL };
	const char *p = path;

	if (unit_len)
		unit[0] = 0;
	if (cid_len)
		cid[0] = 0;
	while (p && *p) {
		const char *s = strchr(p, '/');
		size_t n = s ? (size_t)(s - p) : strlen(p);

		for (size_t i = 0; i + 64 <= n; i++)
			if ((i == 0 || !isxdigit((unsigned char)p[i - 1])) &&
			    procinfo_is_hex64(p + i, n - i) && cid_len) {
				snprintf(cid, cid_len, "%.12s", p + i);
				break;
			}
		for (int k = 0; sfx[k]; k++) {
			size_t l = strlen(sfx[k]);

			/* the innermost unit wins, but not the slices around it
			 * once a service or scope was seen */
			if (n > l && !memcmp(p + n - l, sfx[k], l) &&
			    (strcmp(sfx[k], ".slice") || !unit[0] ||
			     strstr(unit, ".slice")) && unit_len)
				snprintf(unit, unit_len, "%.*s", (int)n, p);
		}
		p = s ? s + 1 : NULL;
	}
}

const char *procinfo_kthread_role(const char *comm)
{
	static const struct { const char *prefix, *role; } tab[] = {
		{ "kworker/", "kworker" }, { "ksoftirqd/", "softirq" },
		{ "jbd2/", "journal" }, { "kswapd", "reclaim" },
		{ "kcompactd", "compaction" }, { "rcu_", "rcu" },
		{ "migration/", "migration" }, { "irq/", "irq thread" },
		{ "khugepaged", "thp" }, { "kthreadd", "kthreadd" },
		{ "idle_inject/", "idle" }, { "cpuhp/", "hotplug" },
		{ "writeback", "writeback" }, { "kblockd", "block" },
		{ "scsi_", "scsi" }, { "nvme", "nvme" }, { "watchdog", "watchdog" },
		{ "ext4-", "ext4" }, { "xfs", "xfs" }, { "kauditd", "audit" },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strncmp(comm, tab[i].prefix, strlen(tab[i].prefix)))
			return tab[i].role;
	return NULL;
}

static void procinfo_copy_comm(char *dst, const char *src)
{
	size_t n = strcspn(src, "\n");

	if (n > 15)
		n = 15;
	memcpy(dst, src, n);
	dst[n] = 0;
}

int procinfo_read(uint32_t pid, struct procinfo *pi)
{
	char path[64], *s = NULL, *cg = NULL;
	size_t len;
	int err = 0;

	memset(pi, 0, sizeof(*pi));
	pi->pid = pid;
	snprintf(path, sizeof(path), "/proc/%u/status", pid);
	s = procinfo_slurp(path, NULL);
	if (!s) {
		err = errno == ENOMEM ? -ENOMEM : -ESRCH;
		goto out;
	}
	{
		char *t = strstr(s, "\nTgid:"), *nm = !strncmp(s, "Name:", 5) ? s + 5 : NULL;

		pi->tgid = t ? (uint32_t)strtoul(t + 6, NULL, 10) : pid;
		if (nm) {
			while (*nm == ' ' || *nm == '\t')
				nm++;
			procinfo_copy_comm(pi->comm, nm);
		}
	}
	free(s);
	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	s = procinfo_slurp(path, NULL);
	if (s) {
		/* field 9 (flags) after the ")" that ends comm */
		char *p = strrchr(s, ')');
		unsigned long flags = 0;

		if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags) == 1)
			pi->kthread = (flags & PROCINFO_PF_KTHREAD) != 0;
		free(s);
	}
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pi->tgid);
	s = procinfo_slurp(path, &len);
	if (s) {
		while (len && s[len - 1] == 0)
			len--;
		for (size_t i = 0; i < len; i++)
			if (s[i] == 0)
				s[i] = ' ';
		s[len] = 0;
		pi->cmdline = s;
	}
	{
		char buf[4096];
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%u/exe", pi->tgid);
		n = readlink(path, buf, sizeof(buf) - 1);
		pi->exe = strndup(n > 0 ? buf : "", n > 0 ? (size_t)n : 0);
	}
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pi->tgid);
	s = procinfo_slurp(path, NULL);
	if (s) {
		cg = procinfo_cgroup_path(s);
		free(s);
	}
	pi->cgroup = cg ? cg : strdup("");
	if (!pi->cmdline)
		pi->cmdline = strdup("");
	if (!pi->exe || !pi->cgroup || !pi->cmdline) {
		err = -ENOMEM;
		goto out;
	}
	procinfo_cgroup_parse(pi->cgroup, pi->unit, sizeof(pi->unit), pi->container,
			      sizeof(pi->container));
	if (pi->kthread)
		pi->role = procinfo_kthread_role(pi->comm);
out:
	if (err)
		procinfo_clear(pi);
	return err;
}

void procinfo_clear(struct procinfo *pi)
{
	if (!pi)
		return;
	free(pi->cmdline);
	free(pi->exe);
	free(pi->cgroup);
	memset(pi, 0, sizeof(*pi));
}

int procinfo_thread_names(uint32_t tgid, char (*names)[16], unsigned *counts, size_t max)
{
	char path[64];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	while ((de = readdir(d))) {
		char p2[320], comm[16] = "", *s;
		size_t i;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(p2, sizeof(p2), "/proc/%u/task/%s/comm", tgid, de->d_name);
		s = procinfo_slurp(p2, NULL);
		if (!s)
			continue;
		procinfo_copy_comm(comm, s);
		free(s);
		for (i = 0; i < n && i < max; i++)
			if (!strcmp(names[i], comm))
				break;
		if (i < n && i < max) {
			counts[i]++;
		} else {
			if (n < max) {
				memcpy(names[n], comm, 16);
				counts[n] = 1;
			}
			n++;
		}
	}
	closedir(d);
	return (int)n;
}

void procinfo_threads_text(char (*names)[16], const unsigned *counts, size_t n,
			   char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return;
	buf[0] = 0;
	for (size_t i = 0; i < n && at + 1 < len; i++) {
		int w = counts[i] > 1 ?
			snprintf(buf + at, len - at, "%s%s x%u", i ? ", " : "", names[i], counts[i]) :
			snprintf(buf + at, len - at, "%s%s", i ? ", " : "", names[i]);

		if (w < 0 || (size_t)w >= len - at)
			break;
		at += (size_t)w;
	}
}

#define PROCINFO_THREAD_NAMES 8

int procinfo_profile_capture(struct profile *p, uint32_t skip_tgid)
{
	int nread = 0;

	if (!p)
		return 0;
	/* a new tgid always comes with a new stack (stacks are keyed by
	 * frames and tgid): only the stacks added since the last call */
	for (; p->ident_scanned < p->nstacks; p->ident_scanned++) {
		const struct profile_stack *st = &p->stacks[p->ident_scanned];
		struct profile_ident id = { .tgid = st->tgid, .comm = st->comm };
		char names[PROCINFO_THREAD_NAMES][16], threads[256] = "";
		unsigned counts[PROCINFO_THREAD_NAMES];
		struct procinfo pi;
		int n, err;

		if (!st->tgid || st->tgid == skip_tgid || profile_ident_find(p, st->tgid))
			continue;
		if (procinfo_read(st->tgid, &pi) == 0) {
			n = procinfo_thread_names(st->tgid, names, counts, PROCINFO_THREAD_NAMES);
			if (n > 0)
				procinfo_threads_text(names, counts,
						      n < PROCINFO_THREAD_NAMES ? (size_t)n :
						      PROCINFO_THREAD_NAMES, threads, sizeof(threads));
			id.comm = pi.comm[0] ? pi.comm : st->comm;
			id.cmdline = pi.cmdline;
			id.exe = pi.exe;
			id.cgroup = pi.cgroup;
			id.unit = pi.unit;
			id.container = pi.container;
			id.role = pi.role;
			id.kthread = pi.kthread;
			id.threads = threads;
			nread++;
		}
		/* gone: the comm alone, so it is not asked again */
		err = profile_ident_set(p, &id);
		procinfo_clear(&pi);
		if (err)
			return err;
	}
	return nread;
}
