/* model_view — the model (core/model/model.h) for people: its wait chain, one
 * row per task and call, and the model read back from its JSON (sessions).
 * The TUI's model view (tui/view_model.c) lays these out; nothing here
 * knows a terminal.
 *
 * The wait chain: where the reference task's response time goes, followed
 * down the call graph.  From the reference task, each link is the largest
 * wait of the current task: on a callee (a synchronous call), on a lock (a
 * hidden queue) or on the disk; the chain goes on from an application
 * callee and ends at a lock, the disk, or a task without calls (whose own
 * CPU time is the last link).  A link's share is
 *
 *     time per reference cycle the task spends in that wait
 *     -----------------------------------------------------
 *     the reference task's response time per cycle (m->r)
 *
 * m->r is measured: the reference's cycle time less its think time.  Time
 * per reference cycle = the task's invocations per reference cycle x calls
 * per invocation x the wait per call, where the wait per call is
 *   a call      the caller's measured block until the reply (call.wait_s);
 *               when not measured (older models), the callee's residence
 *               estimated from its demands and calls
 *   a lock      the contended waits (waits x wait_s) over all acquisitions
 *   the disk    the time per visit
 *   own CPU     CPU plus waiting for a CPU, per invocation.
 * Shares are nested: "client waits on front 90% -> front waits on back
 * 70%" means 70% of the client's response time is spent while the front
 * waits for the back (inside the 90% the client waits on the front).
 */
#ifndef ARGUS_MODEL_VIEW_H
#define ARGUS_MODEL_VIEW_H

#include <stddef.h>

#include "model/model.h"

enum model_link_kind {
	MODEL_LINK_CALL,        /* waits on an application task */
	MODEL_LINK_LOCK,        /* waits on a lock (semaphore task) */
	MODEL_LINK_DISK,        /* waits on the disk */
	MODEL_LINK_CPU,         /* its own CPU (and waiting for a CPU) */
};

struct model_link {
	enum model_link_kind kind;
	int from, to;           /* task indices; to is -1 for MODEL_LINK_CPU */
	double time_s;          /* per reference cycle */
	double share;           /* of m->r (0..1, may exceed 1 by noise) */
};

#define MODEL_CHAIN_MAX MODEL_MAX_TASKS

struct model_chain {
	struct model_link link[MODEL_CHAIN_MAX];
	unsigned n;
	double r;               /* the reference's response time per cycle */
};

/* The wait chain of m into c.  Returns 0, or -ENOENT (c->n 0) when m has
 * no reference task or no measured response time. */
int model_wait_chain(const struct model *m, struct model_chain *c);

/* The time per reference cycle task `from` spends waiting in its call
 * `call` (as a link of the chain would count it); 0 when unknown. */
double model_call_time(const struct model *m, int from, unsigned call);

/* The chain as one line: "t3-client waits on t3-front 62% -> t3-front
 * waits on lock t3-back.lock 40% -> ..." (utf8: the arrow is U+2192).
 * Names escaped.  Returns buf ("" for an empty chain). */
char *model_chain_text(const struct model *m, const struct model_chain *c, int utf8,
		       char *buf, size_t len);

/* The rest of the reference's response time, beside the chain's first
 * link: "t3-client itself: on CPU 2%, waiting for a CPU 24%; calls 80%;
 * not explained 18%" (shares of m->r as in the chain; "not explained" is
 * what neither its calls, its own CPU, runnable time nor its other waits
 * account for, 0 when they add up to more).  Returns buf ("" without a
 * reference or a response time). */
char *model_chain_rest(const struct model *m, char *buf, size_t len);

enum model_row_kind {
	MODEL_ROW_HEAD,         /* the model's summary line */
	MODEL_ROW_NOTE,         /* why the model is trivial */
	MODEL_ROW_TASK,         /* a task: application, lock or disk */
	MODEL_ROW_CALL,         /* a call of the task above it */
	MODEL_ROW_OTHER,        /* tasks folded into "other" */
	MODEL_ROW_KTHREAD,      /* a kernel thread that woke the load */
	MODEL_ROW_CHECK,        /* the model's check of itself (model.h) */
};

struct model_row {
	enum model_row_kind kind;
	int task;               /* TASK: its index; CALL: the caller's */
	int to;                 /* CALL: the callee's index */
	unsigned depth;         /* TASK: calls from the reference (0: itself) */
	/* TASK */
	unsigned threads;       /* multiplicity */
	double demand_s;        /* CPU per invocation; lock: holding time;
	                         * disk: time per visit */
	double cpu_used;        /* CPUs the task used (measured) */
	double util;            /* busy threads / threads at the measured load
	                         * (the solved model), -1 unknown */
	/* CALL */
	double calls;           /* per invocation of the caller */
	double share;           /* model_call_time over m->r, -1 unknown */
	char text[1024];        /* the row as text (names escaped) */
};

/* The rows of m: a head line, the note, the check (when checked), each task in call order (depth
 * first from the reference) followed by its calls, other, kernel wakers.
 * p (may be NULL: no utilisation) is the model solved at the measured
 * load.  Returns the number of rows (*out, caller frees) or -ENOMEM. */
int model_rows(const struct model *m, const struct model_prediction *p,
	       struct model_row **out);

/* Reads m back from model_write_json's text (a session's model event).
 * Returns 0, or -EINVAL with *cause (caller frees) when the text is not a
 * model; -ENOMEM. */
int model_read_json(const char *json, struct model *m, char **cause);

#endif
