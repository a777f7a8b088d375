/* pprof — profiles in the profile.proto format of pprof, Pyroscope and Parca.
 *
 * Writing (pprof_write.c): the windows of a profile as one gzip-compressed
 * profile.proto.  Sample types samples/count and cpu/nanoseconds, period
 * type cpu/nanoseconds with the period 1e9/freq_hz, time_nanos (wall clock
 * of the first window written), duration_nanos (the sum of the windows'
 * measured lengths).  One function and one location per distinct kernel
 * frame; frames "sym [module]" become the function "sym" in the mapping
 * "[module]", every other frame lives in the mapping "[kernel.kallsyms]";
 * hex-address frames (unresolved) carry their address.  User frames
 * "function (module)" live in one mapping per module: its filename the
 * file's full path and its build_id the GNU build-id in hex when the
 * profile's module table knows them (profile_module, issue 27: what go tool
 * pprof, Pyroscope and Parca find symbols and debug files by), else the
 * module's name alone and no build_id.
 *
 * Time accounting (core/model/timeacct.h: stacks whose first frame is
 * "[on-cpu]", "[blocked]" or "[runnable]", counted in sample-equivalents):
 * sample types samples/count, cpu/nanoseconds, blocked/nanoseconds and
 * runnable/nanoseconds, each sample's nanoseconds (count * period) in its
 * kind's type and 0 in the others; the kind frame is left out of the
 * locations, and the trailing "[woken by X]" (or "[no wakeup seen]"...)
 * becomes the label waker "X", the "[ran instead: ...]" ; "[tgid T]" frames
 * the label ran_instead ("cgroup /x, COMM (tgid T)").  A profile without
 * them keeps the two sample types and its frames as they are.  One sample per
 * (stack, process, window), locations leaf first, with the labels
 *     condition  "ref" | "load"       window  number (the profile's index)
 *     comm       process name         pid     number (absent when unknown)
 *     subsystem  subsys_classify of the stack
 *     service_name  pprof_write_opts.service_name, when given
 *     unit, container, cgroup  the process's identity (profile_ident), where known
 * and one comment per window written,
 *     "argus-window index=I cond=ref|load secs=S start=S lost=N"
 * so argus reads its own windows back (pprof_read), as the folded export's
 * "# argus-window" line does.
 *
 * Reading (pprof_read.c): a profile.proto, gzip-compressed or not, from any
 * producer (argus, go tool pprof -proto, Pyroscope, Parca, perf_data_
 * converter) into profile windows.  Frames are the functions of the
 * locations' lines (inlined ones included), reversed to root first.  Kernel
 * frames are those of a mapping "[kernel.kallsyms]" ("[kernel...]",
 * "[guest.kernel.kallsyms]"), of a kernel module mapping ("[name]" that is
 * no user pseudo-mapping like "[vdso]", or ".../name.ko[.xz]"), named with
 * the "_[k]" suffix, or without a mapping at an address in the upper half;
 * when any location is so marked, only marked frames are kept and samples
 * with none are counted as user-only; when none is, the frames of locations
 * without a mapping file are kept (the file is taken as kernel stacks, as
 * from a folded conversion) and those in user-space files' mappings left
 * out; info.note says which.  The user-space mappings with a full path
 * (and their build_id) go into the profile's module table, keyed by the
 * file's base name.  The count of
 * a sample is its samples/count value; without one, the cpu/nanoseconds (or
 * first) value divided by the period.  Window length: argus's window
 * comments when present (one profile window each), else duration_nanos,
 * else 1 s (secs_known 0).  Samples labelled with the other condition are
 * left out (a file with both conditions reads as either).
 *
 * Everything read is untrusted: sizes, counts and indices are checked,
 * names longer than PPROF_MAX_NAME are cut, control characters in names are
 * escaped (\xNN), and a malformed file is refused with a reason naming it.
 */
#ifndef ARGUS_PPROF_H
#define ARGUS_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "data/profile.h"

#define PPROF_MAX_NAME    400                /* bytes of a frame name kept */
#define PPROF_MAX_FRAMES  1024               /* frames of one sample */

struct pprof_write_opts {
	unsigned freq_hz;       /* sampling frequency; 0: unknown (period 0) */
	int64_t time_nanos;     /* wall clock (ns since the epoch) of the
	                         * profile's start offset 0; 0: unknown */
	int cond;               /* COND_REF or COND_LOAD: that condition's
	                         * windows only; COND_N: both */
	unsigned win_from;      /* windows [win_from, win_to) only; */
	unsigned win_to;        /* win_to 0: to the last */
	int raw;                /* 1: no gzip (for tests) */
	int plain;              /* 1: a live recording without conditions (argus
	                         * record): no condition label and no window
	                         * comments, so it reads as REF or LOAD */
	int kernel_only;        /* 1: no user-space frames (issue 27); 0:
	                         * each sample's user frames follow its kernel
	                         * ones (leaf first, as pprof wants), in
	                         * mappings named by the module's file */
	const char *service_name; /* the label service_name on every sample
	                         * (what Pyroscope groups by; pprof_service_
	                         * name); NULL or "": none */
};

/* The service name of a program from its command line: the base name of
 * its first word, every byte but [A-Za-z0-9_.] made '_' (and a leading
 * digit or '.' prefixed with '_'), so that it is also a valid Pyroscope
 * application name; "" when cmd names nothing.  Writes at most len bytes
 * (NUL included) into buf; returns buf. */
char *pprof_service_name(const char *cmd, char *buf, size_t len);

struct pprof_write_info {
	uint64_t samples;       /* sum of the counts written */
	unsigned records;       /* Sample messages */
	unsigned locations;     /* = functions */
	unsigned mappings;
	unsigned windows;
	double secs;            /* duration written */
};

/* Encodes the windows o selects of p.  *out (caller frees) gets *outlen
 * bytes.  info may be NULL.  Returns 0, or -errno with *cause (caller
 * frees); -ENODATA when the selection has no window. */
int pprof_write(const struct profile *p, const struct pprof_write_opts *o, uint8_t **out,
		size_t *outlen, struct pprof_write_info *info, char **cause);

/* pprof_write to a stream.  0 or -errno with *cause. */
int pprof_write_stream(const struct profile *p, const struct pprof_write_opts *o, FILE *f,
		       struct pprof_write_info *info, char **cause);

/* What pprof_read read. */
struct pprof_read_info {
	int gzipped;
	uint64_t samples;       /* counts added */
	uint64_t user_only;     /* counts of samples without a kernel frame */
	uint64_t other_cond;    /* counts of samples labelled with the other condition */
	unsigned records;       /* Sample messages read */
	unsigned windows;       /* profile windows filled */
	int secs_known;
	double secs;            /* length of the first window */
	uint64_t frames_dropped; /* user frames left out */
	int kernel_marked;      /* some frame was marked kernel */
	char note[320];         /* what was kept, for people; "" when nothing to say */
};

/* 1 when buf looks like a pprof: the gzip magic 1f 8b, or protobuf whose
 * first fields parse as a Profile's (known field numbers, right wire types,
 * a string table starting with ""). */
int pprof_detect(const void *buf, size_t len);

/* Reads buf (len bytes) into window win of p (opened by the caller); may
 * open further windows of the same condition.  name is used in messages.
 * info may be NULL.  0 or -errno with *cause (caller frees); the profile
 * may then hold part of the file. */
int pprof_read(const char *name, const void *buf, size_t len, struct profile *p,
	       unsigned win, struct pprof_read_info *info, char **cause);

#endif
