/* idle — is the system idle while a reference is recorded?
 *
 * A saved reference stands for "the system with nothing of yours running";
 * recorded beside a compiler or another load it would cancel that work in
 * every later -p run.  Two measures, both from /proc: the share of CPU time
 * that was not idle (user, nice, system, irq, softirq, steal over all CPUs)
 * between two snapshots of /proc/stat, and the 1-minute load average.
 */
#ifndef ARGUS_IDLE_H
#define ARGUS_IDLE_H

/* Busy share above which the system is not idle (argus itself samples at a
 * cost of well under 1% of a CPU). */
#define IDLE_MAX_BUSY_SHARE 0.10
/* Load average per CPU above which the system is not idle. */
#define IDLE_MAX_LOADAVG_PER_CPU 0.5

struct idle_snap {
	unsigned long long busy, total;   /* jiffies summed over all CPUs */
};

/* Reads /proc/stat's "cpu" line into s.  0 or -errno. */
int idle_snapshot(struct idle_snap *s);

/* Share of CPU time busy between a and b (0..1); 0 when no time passed. */
double idle_busy_share(const struct idle_snap *a, const struct idle_snap *b);

/* 1 when the system was not idle between a and b (busy share, or load
 * average per CPU over the limits above), with *why saying by how much and
 * what to do (caller frees); 0 when idle; -errno when /proc cannot be read. */
int idle_judge(const struct idle_snap *a, const struct idle_snap *b, char **why);

#endif
