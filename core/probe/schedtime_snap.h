/* schedtime_snap — what a read of the scheduler-time probe gives
 * (core/probe/probe_schedtime.h): its entries (a bpf/schedtime.h key and
 * its values, with the stack symbolised), the snapshot that holds them with
 * the time it covers and its on-phases, and a key's other side as text.
 *
 * The vocabulary the probe's parts share: the probe fills snapshots, its
 * tables (core/probe/schedtime_table.h) keep entries, its duty cycle
 * (core/probe/schedtime_duty.h) reweights a snapshot; none of them needs the
 * probe itself.
 */
#ifndef ARGUS_SCHEDTIME_SNAP_H
#define ARGUS_SCHEDTIME_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include <linux/types.h>
#include "../../bpf/schedtime.h"

struct probe_schedtime_entry {
	struct schedtime_key key;
	struct schedtime_val val;
	const char *const *frames;  /* key.stack_id symbolised, root first; owned
	                             * by the probe, valid until close */
	unsigned nframes;           /* 0: no stack */
	char **uframes;             /* key.ustack_id symbolised (core/usym), root
	                             * first, owned by the snapshot; NULL: none */
	unsigned nuframes;
};

#define PROBE_SCHEDTIME_MAX_PHASES 16

struct probe_schedtime_snap {
	struct probe_schedtime_entry *e; /* n entries, owned by the snapshot */
	size_t n;
	struct schedtime_counters ctr;   /* summed over CPUs, since open */
	uint64_t now_ns;                 /* CLOCK_MONOTONIC at the read */
	double secs;                     /* covered: since open (read) or since
	                                  * the previous read_window */
	double attached_secs;            /* of secs, the time the programs were
	                                  * attached (= secs without detaches) */
	unsigned gaps;                   /* detaches in it (read: since open) */
	unsigned nphases;                /* read_window: lengths of the on-phases */
	double phase_s[PROBE_SCHEDTIME_MAX_PHASES]; /* that ended in it (and the
	                                  * one in progress, so far); more
	                                  * than the maximum fold into the last */
};

void probe_schedtime_snap_free(struct probe_schedtime_snap *s); /* NULL-safe */

/* Names for output: "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
 * "TASKLET", "SCHED", "HRTIMER", "RCU", else "?". */
const char *probe_schedtime_softirq_name(uint32_t vec);
/* The key's other side as text: "task COMM (pid P, tgid T)", "softirq
 * BLOCK", "hardirq 25", "hardirq timer", "hardirq (ipi/other)", "no
 * wakeup seen", "still in progress".  Control characters of comm escaped.
 * Returns buf. */
char *probe_schedtime_other_str(const struct schedtime_key *k, char *buf, size_t len);

#endif
