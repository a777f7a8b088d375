/* ksym — kernel addresses to symbol names, from /proc/kallsyms.
 *
 * Loaded once, sorted, looked up by binary search.  Module symbols keep
 * their module name ("name [module]" in kallsyms).  When the kernel hides
 * addresses (kptr_restrict, or not root) every address reads as zero: the
 * loader notices and says so through ksym_hidden().
 */
#ifndef ARGUS_KSYM_H
#define ARGUS_KSYM_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;   /* owned by the table */
	const char *module; /* NULL for the core kernel */
};

struct ksym_table;

/* Loads a kallsyms-format file (path NULL means /proc/kallsyms).  Returns
 * NULL with errno set.  Text symbols (t/T/w/W) only; free with ksym_free. */
struct ksym_table *ksym_load(const char *path);
void ksym_free(struct ksym_table *t); /* NULL-safe */

/* Nonzero when every address in the file was zero (kptr_restrict). */
int ksym_hidden(const struct ksym_table *t);
size_t ksym_count(const struct ksym_table *t);

/* Symbol containing addr (greatest start <= addr), or NULL when addr is below
 * the first symbol or past the end of the text it can vouch for. Valid while
 * the table lives. */
const struct ksym *ksym_lookup(const struct ksym_table *t, uint64_t addr);

/* Writes a display name for addr into buf: "name", "name [module]", or
 * "0xffffffff81234567" when unknown.  Returns buf. */
char *ksym_format(const struct ksym_table *t, uint64_t addr, char *buf, size_t len);

/* Exact-name lookup (for validating function targets); NULL when absent. */
const struct ksym *ksym_by_name(const struct ksym_table *t, const char *name);

#endif
