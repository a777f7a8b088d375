/* caps — what this kernel lets argus do, kind by kind, with reasons.
 *
 * Kernels differ: the development machines have raw tracepoints, tp_btf and
 * perf_event cpu-clock but no kprobes and refuse fentry (EPERM); tracefs may
 * be unmounted.  caps_probe loads and attaches tiny test programs
 * (bpf/caps.bpf.c, core/probe/probe_caps.c) to learn which attach mechanisms work,
 * derives from them which step kinds are available (with a reason for each
 * one that is not), and enumerates the tracepoints and kernel functions that
 * steps may name:
 *
 *  - tracepoints from BTF (the btf_trace_<name> typedefs, one per raw
 *    tracepoint; no tracefs needed).  Their categories (the "category" in
 *    "category:name") come from tracefs events/<category>/<name>: from the
 *    mounted tracefs, else (root) from a private mount in a child's own mount
 *    namespace that the system never sees.  Without either the category is
 *    "?" and targets are matched by name ("name" or "*:name").  Events that
 *    tracefs lists but BTF does not (syscalls:sys_enter_*) are kept, marked
 *    not attachable as raw tracepoints.
 *  - functions from /proc/kallsyms (text symbols, ".isra.0"-style suffixes
 *    stripped) and BTF FUNC entries; a function inlined everywhere is in
 *    neither.  available_filter_functions narrows them when readable.
 *
 * A struct caps can also be built by hand (caps_new, caps_add_*, caps_finish)
 * for tests and for replaying a recorded machine.
 */
#ifndef ARGUS_CAPS_H
#define ARGUS_CAPS_H

#include <stddef.h>
#include <stdio.h>

#include "probe/probe_caps.h"
#include "data/step.h"

struct caps_kind {
	int available;
	char reason[256];           /* why not (or how, when available) */
};

/* Tracepoint flags */
#define CAPS_TP_RAW     0x1u    /* btf_trace_<name> in BTF: raw_tp attachable by name */
#define CAPS_TP_TRACEFS 0x2u    /* listed in tracefs events/ */

struct caps_tp {
	char *category;             /* "?" when unknown; owned */
	char *name;                 /* owned */
	unsigned flags;
};

/* Function flags */
#define CAPS_FN_KALLSYMS 0x1u   /* a text symbol of that exact name */
#define CAPS_FN_SUFFIXED 0x2u   /* only optimised copies ("name.isra.0") in kallsyms */
#define CAPS_FN_BTF      0x4u   /* a BTF FUNC entry (fentry can attach) */
#define CAPS_FN_FILTER   0x8u   /* in available_filter_functions (ftrace-able) */

struct caps_fn {
	char *name;                 /* owned */
	unsigned flags;
};

struct caps {
	struct caps_kind kinds[STEP_KIND_N];
	struct caps_mech_result mech[CAPS_MECH_N];

	struct caps_tp *tps;        /* sorted by name, then category */
	size_t ntps, tp_cap;
	struct caps_fn *fns;        /* sorted by name */
	size_t nfns, fn_cap;

	int categories_known;       /* tracepoint categories came from tracefs */
	int filter_known;           /* available_filter_functions was read */
	int is_root;
	char tp_source[96];         /* "BTF btf_trace_* (1601) + tracefs events/ (2305)" */
	char fn_source[96];         /* "kallsyms (..) + BTF FUNC (..)" */
	char tracefs[160];          /* where tracefs was found, or why not */
	char btf[160];              /* the BTF used, or why none */
	char **notes;               /* what could not be probed and why; owned */
	unsigned nnotes;
};

/* Flags for caps_probe */
#define CAPS_PROBE_NO_BPF     0x1u  /* skip loading test programs */
#define CAPS_PROBE_NO_TRACEFS 0x2u  /* do not read or mount tracefs */

/* Probes this kernel (see above).  Never fails for lack of privileges: what
 * could not be probed is said in kinds[].reason and notes.  Returns NULL
 * with errno set only when out of memory.  Free with caps_free. */
struct caps *caps_probe(unsigned flags);

/* The process-wide probe result, made on first use (caps_probe(0)) and kept:
 * enumeration costs ~100 ms.  Valid until caps_cached_free. */
const struct caps *caps_cached(void);
void caps_cached_free(void);

/* An empty caps (nothing available) to fill by hand, or NULL with errno set. */
struct caps *caps_new(void);
void caps_free(struct caps *c); /* NULL-safe */

/* Adds entries (copied); call caps_finish before any lookup.  0 or -ENOMEM. */
int caps_add_tracepoint(struct caps *c, const char *category, const char *name, unsigned flags);
int caps_add_function(struct caps *c, const char *name, unsigned flags);
/* Sorts and merges duplicate entries (flags OR-ed, a known category wins over "?"). */
void caps_finish(struct caps *c);
/* Sets a kind's availability and reason (printf-style). */
void caps_set_kind(struct caps *c, enum step_kind k, int available, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Appends a note (printf-style); 0 or -ENOMEM. */
int caps_note(struct caps *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Derives kinds[] from mech[] (what caps_probe does after probing). */
void caps_derive_kinds(struct caps *c);

/* Lookups: the first entry of that name (tracepoints: any category when
 * category is NULL, "?" or "*"), or NULL.  Valid while c lives. */
const struct caps_tp *caps_find_tracepoint(const struct caps *c, const char *category,
					   const char *name);
const struct caps_fn *caps_find_function(const struct caps *c, const char *name);

/* How many tracepoints can be attached as raw tracepoints (CAPS_TP_RAW). */
size_t caps_count_raw(const struct caps *c);

/* Writes the tracepoints ("category:name") or functions matching the glob
 * pattern (NULL = all; a tracepoint pattern without ':' matches the name) to
 * out, one per line.  Returns how many. */
size_t caps_list_tracepoints(const struct caps *c, const char *pattern, FILE *out);
size_t caps_list_functions(const struct caps *c, const char *pattern, FILE *out);

/* The probe result as a JSON object ({"kinds": [{kind, available, reason}],
 * "mechanisms", "tracepoints": {count, source}, "functions", "tracefs",
 * "btf", "root", "notes"}); caller frees with free(); NULL with errno set. */
char *caps_to_json(const struct caps *c);

/* Name of a mechanism ("perf_event cpu-clock", "raw_tp", ...). */
const char *caps_mech_name(enum caps_mech m);

#endif
