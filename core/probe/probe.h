/* probe — what every live mode checks before loading BPF, and the plumbing
 * they share: privileges, BTF, tracefs, RLIMIT_MEMLOCK, and where libbpf's
 * messages go (never stderr while curses is up: the caller sets a sink).
 *
 * Causes are written for people, without an "argus: " prefix (the caller
 * adds it), and the caller frees them.
 */
#ifndef ARGUS_PROBE_H
#define ARGUS_PROBE_H

/* Levels passed to the log sink (libbpf's warn / info / debug). */
enum probe_log_level {
	PROBE_LOG_WARN = 0,
	PROBE_LOG_INFO = 1,
	PROBE_LOG_DEBUG = 2,
};

/* A log sink: one message (may hold several lines, usually ends in '\n'). */
typedef void (*probe_log_cb)(void *arg, enum probe_log_level level, const char *msg);

/* Routes libbpf's messages (and ours) to cb; cb NULL drops them.  Until this
 * is called, messages are dropped.  arg is passed back untouched. */
void probe_set_log(probe_log_cb cb, void *arg);

/* Sends one message to the sink set by probe_set_log. */
void probe_log(enum probe_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* 0 when this process may load BPF programs and open perf events (root's
 * CAP_SYS_ADMIN, or CAP_BPF and CAP_PERFMON), else -EPERM with *cause. */
int probe_check_privileges(char **cause);

/* 0 when the kernel exposes its BTF (/sys/kernel/btf/vmlinux), which CO-RE
 * and tp_btf need; else -ENOENT with *cause. */
int probe_check_btf(char **cause);

/* Where tracefs is mounted, mounting it at /sys/kernel/tracing when root and
 * it is not mounted anywhere.  Returns a path the caller frees, or NULL with
 * errno and *cause set.  argus's own probes attach without tracefs (raw
 * tracepoints by name, BTF), so nothing should depend on this succeeding. */
char *probe_tracefs_path(char **cause);

/* kernel.perf_event_paranoid, or INT_MIN when unreadable. */
int probe_perf_paranoid(void);

/* A sentence explaining a perf_event_open EACCES/EPERM for this process
 * (mentions perf_event_paranoid when it matters).  Caller frees; NULL on
 * allocation failure. */
char *probe_perf_denied_note(void);

/* Raises RLIMIT_MEMLOCK to infinity where allowed (kernels before 5.11
 * charge BPF maps to it).  Returns 0 or -errno; failure is not fatal. */
int probe_bump_memlock(void);

/* Parses a CPU list such as "0-3,8,10-11" (the format of
 * /sys/devices/system/cpu/online).  Writes up to max CPU numbers to out and
 * returns how many the list holds (may exceed max), or -EINVAL. */
int probe_parse_cpulist(const char *s, int *out, int max);

/* The online CPUs, from /sys/devices/system/cpu/online.  *cpus is malloc'd
 * (caller frees).  Returns the count or -errno. */
int probe_online_cpus(int **cpus);

/* BPF run-time statistics (run_time_ns / run_cnt per program), which the
 * overhead guard of steps reads.  Enabled through BPF_ENABLE_STATS: the
 * kernel keeps them on while the returned fd is open and turns them off
 * when the last such fd closes, even when argus is killed, so
 * kernel.bpf_stats_enabled is never left changed.  Where that call is
 * refused, falls back to writing kernel.bpf_stats_enabled=1 and
 * probe_bpf_stats_end writes back the previous value.  Returns a handle
 * (>= 0) for probe_bpf_stats_end, or -errno with *cause. */
int probe_bpf_stats_begin(char **cause);
/* Ends what probe_bpf_stats_begin started (closes the fd or restores the
 * sysctl); negative handles are ignored. */
void probe_bpf_stats_end(int handle);
/* run_time_ns and run_cnt of the program behind prog_fd; 0 or -errno. */
int probe_prog_run_stats(int prog_fd, unsigned long long *run_ns, unsigned long long *run_cnt);

#endif
