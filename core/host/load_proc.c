/* load_proc — the /proc side of loads (see load_proc.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/load_proc.h"
#include "base/vec.h"

int load_proc_alive(pid_t pid)
{
	return kill(pid, 0) == 0 || errno == EPERM;
}

/* State letter of /proc/PID/stat, 0 when unreadable; ppid and pgrp too. */
char load_proc_stat(pid_t pid, pid_t *ppid, pid_t *pgrp)
{
	char path[64], buf[512], *p;
	char state = 0;
	int pp = 0, pg = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		if (sscanf(p + 1, " %c %d %d", &state, &pp, &pg) < 1)
			state = 0;
	fclose(f);
	if (ppid)
		*ppid = pp;
	if (pgrp)
		*pgrp = pg;
	return state;
}

/* Calls cb for every /proc PID; stops when cb returns non-zero. */
int load_proc_each(int (*cb)(pid_t pid, pid_t ppid, pid_t pgrp, void *arg), void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int ret = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		pid_t pid, ppid = 0, pgrp = 0;
		char *end;

		pid = (pid_t)strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		if (!load_proc_stat(pid, &ppid, &pgrp))
			continue;
		ret = cb(pid, ppid, pgrp, arg);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}


int load_collect_pgrp(pid_t pid, pid_t ppid, pid_t pgrp, void *arg)
{
	struct load_collect *c = arg;
	char st = load_proc_stat(pid, NULL, NULL);

	(void)ppid;
	if (pgrp != c->pgrp || st == 'Z')
		return 0;
	if (c->n < c->max)
		c->out[c->n] = (uint32_t)pid;
	c->n++;
	return 0;
}

int load_collect_desc(pid_t pid, pid_t ppid, pid_t pgrp, void *arg)
{
	struct load_collect *c = arg;

	(void)pgrp;
	for (size_t i = 0; i < c->nset; i++) {
		if (c->set[i] == pid)
			return 0;
	}
	for (size_t i = 0; i < c->nset; i++) {
		if (c->set[i] == ppid) {
			int err = vec_grow(&c->set, &c->cap, c->nset + 1, sizeof(*c->set));

			if (err)
				return err;
			c->set[c->nset++] = pid;
			return 1; /* rescan: its children may come earlier in /proc */
		}
	}
	return 0;
}
