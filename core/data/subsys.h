/* subsys — which kernel subsystem a stack belongs to.
 *
 * Classified from a shipped table of function names and prefixes
 * (core/data/subsys_table.c).  Names are compared with compiler suffixes
 * (.isra.N, .constprop.N, .part.N, .cold, .llvm.N) stripped.
 */
#ifndef ARGUS_SUBSYS_H
#define ARGUS_SUBSYS_H

#include <stddef.h>

#include "data/subsys_id.h"

/* The frame time accounting (core/model/timeacct.c) puts on-CPU time
 * under when the sampler has no kernel stack for it: user mode. */
#define SUBSYS_USER_FRAME "[user space]"

/* "mm", "sched", "fs", "net", "block", "irq", "locking", "syscall",
 * "idle", "other", "user". */
const char *subsys_name(enum subsys s);
/* Inverse of subsys_name; SUBSYS_N when unknown. */
enum subsys subsys_from_name(const char *name);

/* Subsystem of one function name, SUBSYS_N when the table does not know it.
 * Generic entry frames (entry_SYSCALL_64, do_syscall_64, ...) classify as
 * SUBSYS_SYSCALL; SUBSYS_USER_FRAME as SUBSYS_USER. */
enum subsys subsys_of_function(const char *name);

/* Subsystem of a whole stack (frames root first).  Interrupt context wins
 * (an irq entry frame anywhere makes the stack irq); otherwise the first
 * frame from the root side that the table classifies, ignoring generic entry
 * frames unless nothing else matches; SUBSYS_OTHER when nothing matches. */
enum subsys subsys_classify(const char *const *frames, size_t nframes);

/* Length of name without a compiler suffix: "foo.isra.0" -> 3. */
size_t subsys_base_len(const char *name);

#endif
