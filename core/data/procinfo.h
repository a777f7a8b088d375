/* procinfo — who a PID is, from /proc: the identity `argus model` (and the
 * JSON) put beside a number.
 *
 * For a process: comm, cmdline (arguments joined by spaces), exe (the
 * binary's path), cgroup (the v2 path, else the name=systemd one), and what
 * the cgroup path shows: the systemd unit (the last "*.service", "*.scope",
 * "*.slice"... component) and a container id (a 64-hex-digit component, as
 * docker, containerd, podman and CRI-O name them, shortened to 12).  Kernel
 * threads (no exe, PF_KTHREAD) get a role from their name: "kworker",
 * "softirq" (ksoftirqd), "journal" (jbd2), "reclaim" (kswapd)...; a kworker
 * is named better by the workqueue function it runs, which only a
 * tracepoint tells (core/model keeps that when it has it).
 *
 * Strings are copied from the kernel as they are: a caller that prints
 * them to a terminal escapes them first.
 */
#ifndef ARGUS_PROCINFO_H
#define ARGUS_PROCINFO_H

#include <stddef.h>
#include <stdint.h>

struct procinfo {
	uint32_t pid, tgid;
	char comm[16];          /* the thread's name (task comm) */
	char *cmdline;          /* "" for kernel threads or when gone */
	char *exe;              /* "" when unreadable or a kernel thread */
	char *cgroup;           /* "" when unknown */
	char unit[128];         /* systemd unit, or "" */
	char container[16];     /* container id (12 hex digits), or "" */
	int kthread;            /* 1 for kernel threads */
	const char *role;       /* kernel threads: static role name; NULL else */
};

/* Reads what /proc shows about pid (a thread id is accepted: comm is the
 * thread's, the rest its process's).  Returns 0, -ESRCH when the task is
 * gone, -ENOMEM.  Free the strings with procinfo_clear. */
int procinfo_read(uint32_t pid, struct procinfo *pi);
void procinfo_clear(struct procinfo *pi); /* NULL-safe; zeroes *pi */

/* Parses the contents of a /proc/PID/cgroup file into the cgroup path
 * (caller frees; NULL when there is none) — exposed for tests. */
char *procinfo_cgroup_path(const char *file_text);

/* The unit / container id a cgroup path shows, written into unit / cid
 * ("" when none) — exposed for tests. */
void procinfo_cgroup_parse(const char *path, char *unit, size_t unit_len,
			   char *cid, size_t cid_len);

/* Role of a kernel thread from its name ("kworker/3:1H" -> "kworker"),
 * or NULL when the name is not known.  Static string. */
const char *procinfo_kthread_role(const char *comm);

/* The names of tgid's threads: writes up to max distinct names (16 bytes
 * each, with the number of threads of that name in counts) and returns how
 * many distinct names there are, or -errno. */
int procinfo_thread_names(uint32_t tgid, char (*names)[16], unsigned *counts, size_t max);

struct profile;

/* Identifies the processes of p's stacks added since the last call (a pid
 * is read once, while it runs; one that has gone keeps the comm the
 * sampler saw), skipping tgid 0 and skip_tgid (argus itself; 0: none).
 * Called as windows are collected, so sessions and replays name processes
 * as they were.  Returns how many were read, or -ENOMEM. */
int procinfo_profile_capture(struct profile *p, uint32_t skip_tgid);

/* "name xN, other" from procinfo_thread_names' output, into buf (len bytes). */
void procinfo_threads_text(char (*names)[16], const unsigned *counts, size_t n,
			   char *buf, size_t len);

#endif
