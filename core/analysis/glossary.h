/* glossary — what a kernel function or subsystem does, in two or three
 * sentences for learners (`x` in the TUI), and a node's numbers in words.
 *
 * The table is compiled in (core/analysis/glossary_table.c): no install path, no
 * file to lose.  Each entry names the subsystem its function classifies
 * into (core/subsys; SUBSYS_N for helpers the classifier looks through,
 * such as copy_to_user or ret_from_fork) — a unit test keeps the two
 * tables in agreement.  Names are matched with compiler suffixes (.isra.N,
 * .constprop.N, .cold ...) and the allocation-profiling suffix _noprof
 * stripped.
 */
#ifndef ARGUS_GLOSSARY_H
#define ARGUS_GLOSSARY_H

#include <stddef.h>

#include "data/subsys.h"
#include "data/tree.h"

struct glossary_entry {
	const char *name;
	enum subsys subsys;        /* SUBSYS_N: a helper of no subsystem of its own */
	const char *text;
};

extern const struct glossary_entry glossary_table[];
extern const size_t glossary_count;

/* The entry for a function name (suffixes stripped), or NULL. */
const struct glossary_entry *glossary_find(const char *name);

/* Two or three sentences about a subsystem. */
const char *glossary_subsys_text(enum subsys s);

/* What node n is, for people: the glossary entry of its function, or its
 * subsystem's entry with an honest "no glossary entry for NAME".  Writes
 * buf (len bytes); returns buf. */
char *glossary_explain(const struct tree_node *n, char *buf, size_t len);

/* The node's numbers in words: "This node was sampled 412 times a second
 * while loaded against 3 in the reference: 137 times more; the difference
 * is significant (q=1e-40) and 6 of 6 window pairs agree."  calibrated 0:
 * counts only.  root_total: the root's samples (for shares).  freq_hz: the
 * sampling frequency (0: unknown), for CPU time.  Writes buf; returns it. */
char *glossary_numbers(const struct tree_node *n, int calibrated, uint64_t root_total,
		       unsigned freq_hz, char *buf, size_t len);

#endif
