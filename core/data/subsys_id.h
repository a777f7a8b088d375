/* subsys_id — the kernel subsystems argus names, as numbers: the words the
 * shipped table (core/data/subsys_table.c) and the classifier
 * (core/data/subsys.c) share, kept apart so that the table depends on the
 * words and the classifier on the table, never back. */
#ifndef ARGUS_SUBSYS_ID_H
#define ARGUS_SUBSYS_ID_H

enum subsys {
	SUBSYS_MM,
	SUBSYS_SCHED,
	SUBSYS_FS,
	SUBSYS_NET,
	SUBSYS_BLOCK,
	SUBSYS_IRQ,       /* hard and soft interrupts, timers */
	SUBSYS_LOCKING,
	SUBSYS_SYSCALL,   /* syscall / exception entry with nothing more specific */
	SUBSYS_IDLE,
	SUBSYS_OTHER,
	SUBSYS_USER,      /* time accounting's on-CPU time with no kernel sample
	                   * (SUBSYS_USER_FRAME): not kernel code at all */
	SUBSYS_N
};

#endif
