/* load_proc — the /proc side of loads (core/host/load.c only): whether a PID
 * lives, its state, parent and process group, and every process walked
 * (the members of a load without a cgroup, an attached PID's descendants).
 */
#ifndef ARGUS_LOAD_PROC_H
#define ARGUS_LOAD_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* 1 when pid exists (kill 0; EPERM counts as alive). */
int load_proc_alive(pid_t pid);

/* State letter of /proc/PID/stat, 0 when unreadable; ppid and pgrp too
 * (each may be NULL). */
char load_proc_stat(pid_t pid, pid_t *ppid, pid_t *pgrp);

/* Calls cb for every /proc PID; stops when cb returns non-zero, and
 * returns that (or -errno when /proc cannot be read). */
int load_proc_each(int (*cb)(pid_t pid, pid_t ppid, pid_t pgrp, void *arg), void *arg);

/* What the collectors below gather, for load_proc_each. */
struct load_collect {
	pid_t pgrp;          /* match by process group when non-zero */
	pid_t *set;          /* or: descendants of set[0] (grows) */
	size_t nset, cap;
	uint32_t *out;
	size_t max, n;
};

/* Members of process group c->pgrp (zombies left out) into c->out. */
int load_collect_pgrp(pid_t pid, pid_t ppid, pid_t pgrp, void *arg);
/* Descendants of c->set[0], grown into c->set; returns 1 to rescan when
 * one was added (its children may come earlier in /proc), -ENOMEM. */
int load_collect_desc(pid_t pid, pid_t ppid, pid_t pgrp, void *arg);

#endif
