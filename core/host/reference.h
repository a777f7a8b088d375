/* reference — a saved idle-system reference, for loads argus may not pause
 * (-p PID without --pause).
 *
 * File format (JSON Lines, readable with jq), version 1:
 *   line 1: {"format":"argus-reference","version":1,"host":"H","kernel":"R",
 *            "probe_set":"sample@999Hz","freq_hz":999,"created":EPOCH_S,
 *            "scope":"system-wide","windows":[{"secs":1.0},...]}
 *   then one line per stack and window with a count:
 *           {"win":0,"count":12,"tgid":7,"comm":"kworker/0:1",
 *            "frames":["entry_SYSCALL_64","do_syscall_64",...]}   (root first)
 * Stored by default as $XDG_STATE_HOME/argus/reference-HOST-KERNEL-PROBESET.jsonl
 * ($XDG_STATE_HOME defaults to ~/.local/state).
 */
#ifndef ARGUS_REFERENCE_H
#define ARGUS_REFERENCE_H

#include <stddef.h>

#include "data/profile.h"

#define REFERENCE_MAX_AGE_S (24 * 3600.0)

struct reference_meta {
	char host[256];
	char kernel[128];
	char probe_set[64];
	unsigned freq_hz;
	double created;        /* seconds since the epoch */
	char scope[64];        /* whose samples: REFERENCE_SCOPE_SYSTEM (what
	                          'argus reference save' records); a file without
	                          the key is system-wide too */
};

#define REFERENCE_SCOPE_SYSTEM "system-wide"

/* This machine's host name and kernel release with probe_set / freq_hz. */
void reference_meta_here(struct reference_meta *m, const char *probe_set, unsigned freq_hz);

/* The default file for m; caller frees.  NULL with errno set when neither
 * $XDG_STATE_HOME nor $HOME is set. */
char *reference_default_path(const struct reference_meta *m);

/* Writes the COND_REF windows of p to path (directories created), with m
 * (created set to now).  0 or -errno with *cause. */
int reference_save(const struct profile *p, const struct reference_meta *m,
		   const char *path, char **cause);

/* Reads path into p as COND_REF windows (appended).  want: host, kernel and
 * probe_set must match; older than max_age_s (0: REFERENCE_MAX_AGE_S) is
 * stale.  Refusals return -ESTALE / -EINVAL with the reason in *cause.
 * got (may be NULL) receives the file's header. */
int reference_load(const char *path, const struct reference_meta *want, double max_age_s,
		   struct profile *p, struct reference_meta *got, char **cause);

/* Compares the scope of a loaded reference (got) with the loaded windows'
 * (loaded, e.g. REFERENCE_SCOPE_SYSTEM).  0 when they are the same; else
 * *cause says so and the return is -EINVAL with strict (nothing may be
 * compared), 1 without (the caller warns). */
int reference_scope_check(const struct reference_meta *got, const char *loaded, int strict,
			  char **cause);

/* The reference condition for a header: "system-wide, saved 12:01", with
 * ": not the loaded windows' scope" when it differs from loaded.  Returns
 * buf. */
char *reference_scope_line(const struct reference_meta *got, const char *loaded, char *buf,
			   size_t len);

#endif
