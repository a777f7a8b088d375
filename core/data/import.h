/* import — kernel stacks recorded elsewhere, read into a profile window.
 *
 * Two text formats and pprof, recognised by their content (never by the file name):
 *
 * folded stacks   one stack per line, frames root first, ';' between them,
 *                 then white space and a sample count: "a;b;c 42".  Frames
 *                 may hold spaces and brackets ("foo [nf_tables]").  Trailing
 *                 spaces and CRLF line ends are fine; blank lines and lines
 *                 starting with '#' are skipped, except the window header
 *                 below.  When frames carry the "_[k]" suffix of
 *                 stackcollapse-perf.pl --kernel, only those frames are kept.
 *
 * perf script     the text of `perf script` over a recording with call
 *                 chains (perf record -g): a header line per sample
 *                 "comm pid[/tid] [cpu] time: [period] event:" then one
 *                 indented line per frame, leaf first, "addr sym+off (dso)",
 *                 samples separated by blank lines.  Only kernel frames are
 *                 kept (dso [kernel.kallsyms] or a kernel module; without a
 *                 dso, addresses in the upper half); offsets are stripped,
 *                 module frames read "sym [module]" as ksym_format writes
 *                 them, and the chain is reversed to root first.  The
 *                 header gives tgid (the pid of "pid/tid"; perf's default
 *                 output prints only the tid, which is then used) and comm.
 *                 Samples without a kernel frame are counted, not added.
 *
 * pprof           a profile.proto (gzip magic 1f 8b, or protobuf whose first
 *                 fields parse as a Profile), read by core/pprof_read: see
 *                 pprof.h for which frames are kept and the window lengths.
 *
 * Window length: a file carries no length unless a folded file starts with
 *     # argus-window secs=S cond=ref|load
 * (what `argus record --folded` writes); a perf script file with time
 * stamps lasts from its first to its last sample plus one sampling period
 * when the period is known, else that span; otherwise the window is taken
 * as 1 s, so two files of unknown length compare their counts directly.
 * Further "# argus-window" lines in one folded file open further windows of
 * the profile (same form; cond defaults to the first window's).
 */
#ifndef ARGUS_IMPORT_H
#define ARGUS_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "data/profile.h"

enum import_format {
	IMPORT_UNKNOWN = 0,
	IMPORT_FOLDED,
	IMPORT_PERF_SCRIPT,
	IMPORT_PPROF,           /* profile.proto, gzipped or not: core/data/pprof.h */
};

/* "folded" / "perf script" / "pprof" / "unknown". */
const char *import_format_name(enum import_format f);

/* What one import read. */
struct import_info {
	enum import_format format;
	unsigned lines;         /* lines read */
	uint64_t samples;       /* samples added to the profile */
	uint64_t user_only;     /* perf script samples with no kernel frame */
	unsigned stacks;        /* stack lines / sample records read */
	unsigned windows;       /* windows filled (1 + extra argus-window headers) */
	int secs_known;         /* window length came from the file */
	double secs;            /* length of the (first) window */
	char note[320];         /* pprof: what was kept ("" when nothing to say) */
};

/* Guesses the format of buf from its first lines; IMPORT_UNKNOWN when it is
 * neither. */
enum import_format import_detect(const char *buf, size_t len);

/* Reads folded stacks or perf script text from buf (len bytes, need not be
 * NUL-terminated) into window win of p, which the caller opened
 * (profile_window_begin).  name is the file name used in messages
 * ("ref.folded:17: ...").  Sets the window's length as described above.
 * info may be NULL.  Returns 0, or -errno with *cause set (caller frees;
 * the profile may then hold part of the file):
 * -EINVAL for text that is not what it claims, naming the line. */
int import_buf(const char *name, const char *buf, size_t len, struct profile *p,
	       unsigned win, struct import_info *info, char **cause);

/* import_buf with the format given (IMPORT_UNKNOWN: detect), for callers
 * that know better than the content, and for the fuzz targets. */
int import_buf_as(const char *name, const char *buf, size_t len, enum import_format fmt,
		  struct profile *p, unsigned win, struct import_info *info, char **cause);

/* The same for a file; messages name path. */
int import_file_info(const char *path, struct profile *p, unsigned win,
		     struct import_info *info, char **cause);

/* import_file_info without the info. */
int import_file(const char *path, struct profile *p, unsigned win, char **cause);

#endif
