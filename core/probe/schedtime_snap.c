/* schedtime_snap — a snapshot of the scheduler-time probe freed, and a
 * key's other side named (see schedtime_snap.h). */
#include <stdio.h>
#include <stdlib.h>

#include "probe/schedtime_snap.h"
#include "probe/usym.h"

void probe_schedtime_snap_free(struct probe_schedtime_snap *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->e && i < s->n; i++)
		usym_names_free(s->e[i].uframes, s->e[i].nuframes);
	free(s->e);
	free(s);
}

const char *probe_schedtime_softirq_name(uint32_t vec)
{
	static const char *const names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

	return vec < sizeof(names) / sizeof(names[0]) ? names[vec] : "?";
}

char *probe_schedtime_other_str(const struct schedtime_key *k, char *buf, size_t len)
{
	char comm[4 * SCHEDTIME_COMM_LEN + 1];
	size_t j = 0;

	for (int i = 0; i < SCHEDTIME_COMM_LEN && k->other_comm[i]; i++) {
		unsigned char ch = (unsigned char)k->other_comm[i];

		if (ch < 0x20 || ch == 0x7f || ch >= 0x80)
			j += (size_t)snprintf(comm + j, sizeof(comm) - j, "\\x%02x", ch);
		else
			comm[j++] = (char)ch;
	}
	comm[j] = 0;
	switch (k->other_kind) {
	case SCHEDTIME_OTHER_TASK:
		if (!k->other_pid)
			snprintf(buf, len, "idle (%s)", comm);
		else if (k->kind == SCHEDTIME_BLOCKED && (k->other_vec & SCHEDTIME_VIA_MASK))
			snprintf(buf, len, "task %s (pid %u, tgid %u) via softirq %s", comm, k->other_pid,
				 k->other_tgid,
				 probe_schedtime_softirq_name((k->other_vec & SCHEDTIME_VIA_MASK) - 1));
		else if (k->kind == SCHEDTIME_BLOCKED && (k->other_vec & SCHEDTIME_VIA_WORK))
			snprintf(buf, len, "task %s (pid %u, tgid %u) via kworker", comm, k->other_pid,
				 k->other_tgid);
		else if (k->kind == SCHEDTIME_BLOCKED && k->other_vec)
			snprintf(buf, len, "task %s (pid %u, tgid %u) %s", comm, k->other_pid,
				 k->other_tgid, k->other_vec & SCHEDTIME_BY_SEND ? "sending" : "receiving");
		else
			snprintf(buf, len, "task %s (pid %u, tgid %u)", comm, k->other_pid, k->other_tgid);
		break;
	case SCHEDTIME_OTHER_HARDIRQ:
		if (k->other_vec == SCHEDTIME_IRQ_TIMER)
			snprintf(buf, len, "hardirq timer");
		else if (k->other_vec == SCHEDTIME_IRQ_OTHER)
			snprintf(buf, len, "hardirq (ipi/other)");
		else
			snprintf(buf, len, "hardirq %u", k->other_vec);
		break;
	case SCHEDTIME_OTHER_SOFTIRQ:
		snprintf(buf, len, "softirq %s", probe_schedtime_softirq_name(k->other_vec));
		break;
	case SCHEDTIME_OTHER_PENDING:
		snprintf(buf, len, "still in progress");
		break;
	default:
		snprintf(buf, len, "no wakeup seen");
		break;
	}
	return buf;
}
