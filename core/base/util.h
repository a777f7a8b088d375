/* util — the small helpers every part of core (and the subcommands) needs,
 * written once: the *cause formatter, lists of lines, the monotonic clock,
 * reading a whole file, and where cgroup v2 is mounted. */
#ifndef ARGUS_UTIL_H
#define ARGUS_UTIL_H

#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Replaces *cause with a printf-style message the caller frees (the old one
 * is freed).  cause may be NULL (nothing is said); out of memory leaves
 * *cause NULL. */
void util_cause(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* util_cause, then returns err: `return util_fail(cause, -EINVAL, ...)`. */
int util_fail(char **cause, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Appends a line formatted from fmt and ap to the array *v of *n strings
 * (the array and its strings the caller's: grown here, freed by the
 * caller); for the printf-style "add a note" functions.  0, or -ENOMEM
 * with nothing added. */
int util_lines_vadd(char ***v, unsigned *n, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/* Seconds on CLOCK_MONOTONIC (from an arbitrary start; for durations). */
double util_mono_s(void);

/* Whole milliseconds on CLOCK_MONOTONIC. */
int64_t util_mono_ms(void);

/* Reads all of f (from where it stands) into a NUL-terminated buffer the
 * caller frees; *len (may be NULL) gets its length without the NUL.  More
 * than max bytes (0: no limit) is -EFBIG.  0, or -errno with *out NULL. */
int util_read_stream(FILE *f, size_t max, char **out, size_t *len);

/* util_read_stream on the file at path (opened close-on-exec). */
int util_read_file(const char *path, size_t max, char **out, size_t *len);

/* util_read_file saying what failed in *cause ("cannot open PATH: why",
 * "cannot read PATH: why", "PATH: out of memory"), except -EFBIG (more
 * than max bytes), which the caller says: it knows what the file should
 * have been. */
int util_read_file_cause(const char *path, size_t max, char **out, size_t *len, char **cause);

/* Where the cgroup2 file system is mounted (from /proc/self/mounts), into
 * buf; 0, -ENOENT when none is, or -errno. */
int util_cgroup2_mount(char *buf, size_t len);

/* The candidate nearest to word ("recrod" -> "record", "--lod" ->
 * "--load"), for a "did you mean" after an unknown name: at most 2 edits
 * (insertions, deletions, substitutions, swaps of neighbours) and fewer than
 * half of word's letters; NULL when none is that near.  Of candidates as
 * near, the first that word has letters left out of, else the first.
 * Borrowed from cands. */
const char *util_nearest(const char *word, const char *const *cands, size_t n);

#endif
