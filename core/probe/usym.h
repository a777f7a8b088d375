/* usym — user-space symbolizer for sampled user stacks (issue 27).
 *
 * Built on elfutils' libdwfl: a process's mappings are read from
 * /proc/PID/maps once, while it lives (usym_attach, or the first
 * usym_stack), and kept, so samples of a process that has exited since
 * still resolve; symbols come from each file's .symtab/.dynsym, or from a
 * separate debug file under /usr/lib/debug found by build-id.
 *
 * A user stack as the kernel walks it follows frame pointers.  Where a
 * function keeps none (most of Debian's libraries), the next return address
 * the walk found is not its caller's, so the stack is cut after that
 * function and a marker frame says where and why:
 *   "[ends in libc.so.6: no frame pointers]"
 * Nothing past a cut is guessed.  Frames are "function (module)", module
 * the mapped file's base name; an address no symbol covers is
 * "module+0xOFFSET".
 *
 * Not thread-safe; one per sampler.
 */
#ifndef ARGUS_USYM_H
#define ARGUS_USYM_H

#include <stddef.h>
#include <stdint.h>

#define USYM_MAX_DEPTH 127      /* the kernel's walk stops there
                                 * (kernel.perf_event_max_stack) */
#define USYM_MAX_PROCS 1024     /* processes whose mappings are kept at once */

struct usym;

/* A new symbolizer, or NULL with errno set.  Free with usym_free. */
struct usym *usym_new(void);
void usym_free(struct usym *u); /* NULL-safe */

/* Reads tgid's mappings now, while it lives (a no-op when known).  0, or
 * -ESRCH when the process is gone, -ENOSPC when USYM_MAX_PROCS are kept,
 * other -errno. */
int usym_attach(struct usym *u, uint32_t tgid);

/* Marks the processes that have exited by now; usym_reap then forgets
 * their mappings.  Between the two, a sampler collects what they left in
 * its maps (all it will get of them). */
void usym_reap_mark(struct usym *u);
/* Forgets the mappings of the processes marked.  Returns how many. */
size_t usym_reap(struct usym *u);

/* Symbolizes a user stack of tgid, sampled while it was named comm (NULL:
 * any; a process that has exec'd since is another image, said as such):
 * ips leaf first (as the kernel's stack
 * map holds them, n of them).  *names gets the frames root first (caller
 * frees with usym_names_free), at most n + 1 (the cut marker).  Returns
 * their number, or -errno (-ENOMEM). */
int usym_stack(struct usym *u, uint32_t tgid, const char *comm, const uint64_t *ips,
	       unsigned n, char ***names);
void usym_names_free(char **names, unsigned n);

/* The modules (mapped files) usym_stack has named so far, for the
 * profile's module table (data/profile.h): usym_module gives module i's
 * base name (the "module" of the frames), its path as /proc/PID/maps named
 * it and its GNU build-id in hex ("" when it has none), valid until the
 * next usym call.  0, or -ENOENT when i is past the end or names no file
 * ("[vdso]").  The table is bounded: it may start over, so callers copy
 * what they need after each batch of usym_stack calls. */
size_t usym_nmodules(const struct usym *u);
int usym_module(const struct usym *u, size_t i, const char **name, const char **path,
		const char **build_id);

/* Whether the function at absolute address addr of tgid sets up a frame
 * pointer (push %rbp; mov %rsp,%rbp, after an optional endbr64): 1 yes,
 * 0 no, -errno when it cannot tell.  For tests. */
int usym_has_frame_pointer(struct usym *u, uint32_t tgid, uint64_t addr);

/* The absolute address of the function name in tgid's mappings (the first
 * module that has it).  0, -ENOENT, or -errno.  For tests. */
int usym_find_symbol(struct usym *u, uint32_t tgid, const char *name, uint64_t *addr);

#endif
