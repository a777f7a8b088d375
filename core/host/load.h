/* load — the processes a measurement pauses, resumes and ends.
 *
 * Two kinds of load:
 *  - owned: argus started it (load_spawn).  It runs in its own process group
 *    and, where cgroup v2 is mounted, in a cgroup of its own
 *    (<cgroup2 mount><argus's cgroup>/argus-PID-N).  It is created stopped
 *    until load_start releases it, so a sampler filter can be set on its PID
 *    before it runs a single instruction of CMD.  The child is started with
 *    PR_SET_PDEATHSIG(SIGKILL): if argus dies, even by SIGKILL, the load's
 *    first process dies with it (its own children only when they are in
 *    the cgroup and argus's cleanup ran, see below).
 *  - attached: a process that was already running (-p PID).  argus pauses it
 *    only when asked, resumes it on every exit path it can catch, and never
 *    signals it otherwise.
 *
 * Pausing uses cgroup.freeze (waiting until the cgroup reports frozen) when
 * the load has a cgroup, else SIGSTOP to its process group (owned) or PID
 * (attached); resuming uses cgroup.freeze=0 / SIGCONT.
 *
 * Every load is in a process-wide registry until freed:
 * load_registry_cleanup() resumes each one, then ends the owned ones.  It is
 * meant for the main path of every exit (commands take signals through a
 * signalfd), and is also registered with atexit.  It is not async-signal-safe.
 *
 * What a SIGKILL of argus (or a crash, or a signal it does not catch)
 * leaves behind: nothing, once the guard (core/host/load_guard.h, a small process
 * forked at the first load) has run:
 *  - an owned load: its first process gets SIGKILL from PDEATHSIG at once (a
 *    frozen or stopped task still dies from SIGKILL); the guard thaws and
 *    kills the rest of its cgroup (cgroup.kill: also what left the process
 *    group by setsid), waits until it is empty and removes it; without a
 *    cgroup it kills the process group.
 *  - an attached load paused by SIGSTOP: the guard resumes it (load_pause
 *    also logs the `kill -CONT PID` that does).
 * When the guard is gone too (both killed), the next argus that starts a
 * load sweeps the stale argus-PID-N cgroups (thaws, kills, removes).
 */
#ifndef ARGUS_LOAD_H
#define ARGUS_LOAD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct load;

enum load_flags {
	LOAD_F_NO_CGROUP = 0x1,   /* process group only, even with cgroup v2 */
	LOAD_F_QUIET = 0x2,       /* the load's stdout and stderr go to /dev/null */
	LOAD_F_STDOUT_STDERR = 0x4, /* its stdout goes to argus's stderr (batch
	                             * modes keep stdout for their JSON) */
	LOAD_F_PIPE_STDOUT = 0x8, /* its stdout is a pipe argus reads (--mark;
	                           * the interactive argus: nothing reaches the
	                           * terminal): load_output_take(l, 1) */
	LOAD_F_PIPE_STDERR = 0x10, /* its stderr too: load_output_take(l, 2) */
};

/* Where load messages (pause/resume notes, "kill -CONT" hints) go; NULL
 * (the default) drops them.  Not owned. */
void load_set_log(FILE *log);

/* Forks argv (argv[0] searched in PATH) in a process group and a cgroup of
 * its own, held before exec until load_start.  A command that cannot be run
 * is refused here when PATH lookup shows it ("cannot run 'CMD': No such
 * file or directory").  Returns NULL with errno and *cause set (caller
 * frees).  flags: LOAD_F_*.  The caller frees the load with load_free. */
struct load *load_spawn(char *const argv[], unsigned flags, char **cause);

/* The read end (non-blocking, close-on-exec) of the pipe that holds the
 * load's stdout (which 1) or stderr (2) with LOAD_F_PIPE_*; the caller
 * owns it from then on and must keep reading it (a full pipe, 1 MiB where
 * the kernel allows, stops the load at its next write).  -1 when there is
 * none or it was taken already. */
int load_output_take(struct load *l, int which);

/* Lets an owned load exec its command.  Returns 0, or -errno with *cause
 * when exec failed (the caller exits 127 then: EXIT_NOEXEC).  A no-op for
 * loads already started and for attached loads. */
int load_start(struct load *l, char **cause);

/* Attaches to a running process for -p PID.  Returns NULL with errno and
 * *cause ("no process with PID N") set. */
struct load *load_attach_pid(pid_t pid, char **cause);

/* Pauses / resumes the load (see the header comment).  Pausing an owned load
 * that was not started yet, or one that exited, is a no-op returning 0.
 * Return 0 or -errno. */
int load_pause(struct load *l);
int load_resume(struct load *l);

/* Ends an owned load: resume, SIGTERM to its group (and cgroup), up to 2 s,
 * then SIGKILL; reaps it and removes its cgroup.  An attached load is only
 * resumed.  Idempotent.  Returns 0 or -errno. */
int load_stop(struct load *l);

/* Stops (load_stop) and frees; NULL-safe. */
void load_free(struct load *l);

/* 1 while the load's main process exists (reaping it when it exited), 0
 * when it is gone. */
int load_alive(struct load *l);

/* When an owned load's main process has exited: 0 and its wait status in
 * *status.  -EAGAIN while it runs, -ECHILD for attached loads. */
int load_exit_status(struct load *l, int *status);

/* PID of the load's main process. */
pid_t load_pid(const struct load *l);

/* 1 once load_start released it (always for attached loads). */
int load_started(const struct load *l);

/* 1 when the load is paused now. */
int load_paused(const struct load *l);

/* 1 when pause/resume go through cgroup.freeze. */
int load_has_cgroup(const struct load *l);

/* Path of the load's cgroup directory, or NULL. Valid while l lives. */
const char *load_cgroup_path(const struct load *l);

/* The load's member processes (thread-group ids), for the sampler filter:
 * cgroup.procs when it has a cgroup, else the processes of its group (or
 * the attached PID and its descendants) from /proc.  Writes at most max to
 * out and returns how many there are (may exceed max), or -errno. */
int load_tgids(struct load *l, uint32_t *out, size_t max);

/* "not started", "running", "paused", "exited (N)", "killed (SIG)" or
 * "gone"; writes into buf (len bytes) and returns buf. */
char *load_state(struct load *l, char *buf, size_t len);

/* Resumes every registered load, then ends the owned ones (load_stop),
 * then lets the guard go (load_guard_end).  Loads stay registered until
 * load_free.  Idempotent. */
void load_registry_cleanup(void);

/* The cgroup v2 mount point ("/sys/fs/cgroup" or, on hybrid systems,
 * "/sys/fs/cgroup/unified"), or NULL when there is none.  Static string. */
const char *load_cgroup2_mount(void);

#endif
