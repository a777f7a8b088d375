/* measure — alternating reference/loaded windows as a source (core/measure/source.h).
 *
 * k pairs of windows of w seconds, R L R L ...: in a reference window the
 * load is paused (or not started yet, for the first one), in a loaded window
 * it runs.  After every switch a settle time is measured into a scratch
 * profile and dropped, so the transient of pausing/resuming is not counted.
 * Alternation makes slow drift (the machine's own background) cancel.
 *
 * Conditions (see man/argus.1, LOAD OPTIONS):
 *   load_argv            started by argus, paused in the reference windows
 *   victim_argv / _pid   sampling is filtered to it; runs in both conditions
 *   background_argv      runs in both conditions (noise that must cancel)
 *   pid (+ pause)        an already running load: paused only with pause;
 *                        otherwise only loaded windows are measured and the
 *                        reference windows come from a saved reference
 *                        (core/host/reference.h)
 *   reference_only       `argus reference save`: every window is a reference
 *                        of the idle system
 * Sampling is system-wide unless there is a victim.  With --time wall
 * (the default with a victim) the diagnosed threads' blocked and runnable
 * time is accounted too, in the same windows (core/model/timeacct.h).
 *
 * Test hooks: ARGUS_TEST_FAIL_AFTER=window (or window:N) makes tick fail after
 * the first (N-th) window, as an internal error would (tests/live/lifecycle.sh);
 * ARGUS_TEST_STACKS=N gives the live sampler a stack map of N entries, so
 * that stacks are lost and counted (tests/tui/status_truth.sh).
 */
#ifndef ARGUS_MEASURE_H
#define ARGUS_MEASURE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "data/profile.h"
#include "measure/measure_model.h"
#include "measure/measure_opts.h"
#include "measure/source.h"

/* Starts the loads (held before exec), opens the sampler (NULL o->sampler:
 * /proc/kallsyms and the live BPF sampler), loads a saved reference when
 * one is needed.  Nothing is measured before the first tick.  Returns NULL
 * with errno and *cause set (caller frees); errno ENOEXEC... see cause.
 * *noexec is set to 1 when a command could not be run (exit 127).  The
 * source owns the loads: source_free resumes and ends them. */
struct source *measure_new(const struct measure_opts *o, int *noexec, char **cause);

/* The loads of a measure source (NULL when absent); valid while s lives. */
struct load *measure_load(struct source *s);
/* Why the saved reference in use was recorded on a busy system (its
 * "busy" key), or NULL (none, or no saved reference). */
const char *measure_ref_busy(struct source *s);
/* The warning every use of a busy saved reference gives (issue 24 item 7),
 * one sentence without "warning: ", into buf; 1, or 0 when there is none
 * (s: any source). */
int measure_ref_busy_warning(struct source *s, char *buf, size_t len);
/* The load's last non-blank output line (when its output is piped:
 * LOAD_F_PIPE_*), sanitized, or NULL; valid while s lives.  "the load
 * failed" quotes it. */
const char *measure_load_last_line(struct source *s);
/* Whose samples each condition holds, for the header and the JSON:
 * "system-wide", "system-wide, saved 12:01" (a saved reference),
 * "system-wide (PID 1234 runs)" (-p without --pause), "the victim (PID 7)".
 * A saved reference scoped otherwise than the loaded windows says so
 * ("... : not the loaded windows' scope").  Writes ref and load. */
void measure_scopes(struct source *s, char *ref, size_t rlen, char *load, size_t llen);
struct load *measure_victim(struct source *s);

/* 1 when tick failed because the load's command could not be run (exec
 * failure reported at its first loaded window): the caller exits 127. */
int measure_noexec(struct source *s);

/* Closes the sampler (its BPF programs detach) and keeps the loads, as the
 * source does itself when measuring is done (steps then run against the
 * same loads with probes of their own).  Idempotent. */
void measure_close_sampler(struct source *s);

/* Why measuring stopped, once it has: "settled after 3 pairs: ...",
 * "maximum of 12 pairs reached; ...", "the load exited (0) after 2 pairs",
 * "fixed: 6 pairs"; *settled 1 for the first; *pairs the pairs measured;
 * *windows (may be NULL) how the windows adapted ("" when they did not).
 * Strings valid while s lives.  Returns 0, -EAGAIN while measuring, -EINVAL
 * when s is not a measure source. */
int measure_stopping(struct source *s, const char **reason, unsigned *pairs, int *settled,
		     const char **windows);

/* The windows the model of the load is built from (time accounting:
 * --time wall, a victim), as far as measuring got, into out (struct
 * measure_windows, core/measure/measure_model.h).  0 with out->g; -EAGAIN
 * while the windows are not there yet (why: "waiting for ..."); -ERANGE
 * when measuring ended without them (why: a --mark that never matched,
 * with the lines read; no steady state, with the rates); -ENOENT without
 * time accounting or when s is not a measure source; -ENOMEM. */
int measure_model_windows(struct source *s, struct measure_windows *out);

/* Seconds spent measuring (first tick to DONE). */
double measure_elapsed(struct source *s);

#endif
