/* load_guard — what ends argus's loads when argus cannot (core/host/load.c only).
 *
 * A SIGKILL (the OOM killer, `kill -9`), a crash or any signal argus does
 * not catch ends argus without its cleanup: PR_SET_PDEATHSIG kills the
 * load's first process, but what it forked (a server's workers, a child
 * that called setsid) would run on, frozen or not, until some later argus
 * swept the stale cgroup.  The guard is a small process forked from argus
 * at the first load that needs it, in argus's own cgroup and process group
 * of its own, holding one end of a socket pair and nothing else (every
 * other descriptor closed: no BPF program or map outlives argus through
 * it).  argus tells it what to clean up while it is argus's to clean; when
 * the socket reads end-of-file (argus gone, however), the guard thaws and
 * kills each cgroup still registered (cgroup.kill, then waits until it is
 * empty and removes it), resumes each SIGSTOPped attached PID, kills each
 * process group of a load without a cgroup, says so on stderr, and exits.
 * On a clean exit argus has unregistered everything first, so the guard
 * just exits; load_guard_end waits for it.
 *
 * Its command line reads "argus-guard" (so `pgrep -f ARGUS-CMDLINE` finds
 * argus, not it); it ignores the terminal's signals (Ctrl-C reaches the
 * whole foreground group; the guard must outlive argus by its cleanup).
 */
#ifndef ARGUS_LOAD_GUARD_H
#define ARGUS_LOAD_GUARD_H

#include <sys/types.h>

/* What argus registers with the guard. */
enum load_guard_what {
	LOAD_GUARD_CGROUP = 'C',  /* a load's cgroup directory: killed, removed */
	LOAD_GUARD_PGRP = 'G',    /* a load's process group (no cgroup): killed */
	LOAD_GUARD_STOPPED = 'P', /* an attached PID paused by SIGSTOP: resumed */
};

/* Registers (add 1) or unregisters (add 0) one thing; starts the guard at
 * the first registration.  arg: a path for LOAD_GUARD_CGROUP, else a
 * decimal PID.  0, or -errno when the guard cannot be started or told
 * (killed): best effort, argus runs on without it (its caller says so). */
int load_guard_set(enum load_guard_what what, const char *arg, int add);

/* argus's clean exit, after its loads are ended: closes the socket and
 * waits for the guard (which finds nothing left to do).  Idempotent. */
void load_guard_end(void);

/* PID of the guard, 0 when none runs (tests). */
pid_t load_guard_pid(void);

#endif
