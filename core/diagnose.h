/* diagnose — from a measured profile to a verdict, and the verdict as JSON.
 *
 * The batch pipeline of `argus diagnose` (and later the TUI's): tree_build,
 * calib_run, the heuristic descent, plus the naive answer a reference-less
 * profiler would give (the hottest kernel path of the loaded windows) for
 * comparison.  JSON is written here because tui/ never includes cJSON.
 */
#ifndef ARGUS_DIAGNOSE_H
#define ARGUS_DIAGNOSE_H

#include <stdio.h>

#include "calib.h"
#include "profile.h"
#include "verdict.h"

struct diagnose_result {
	struct verdict verdict;
	char **decisions;          /* one line per descent decision; owned */
	unsigned ndecisions;
	/* naive: from the root, the child with the largest loaded total, down
	 * to a leaf (the idle subsystem skipped) */
	char naive_subsystem[16];
	char *naive_path[VERDICT_MAX_PATH]; /* owned */
	unsigned nnaive;
	double thinking_s;         /* tree + calibration + descent */
};

/* Builds the calibrated tree of p and descends.  co may be NULL (defaults;
 * freq_hz taken from the argument).  Returns 0 or -errno with *cause. */
int diagnose_run(const struct profile *p, const struct calib_opts *co, unsigned freq_hz,
		 struct diagnose_result *r, char **cause);

/* Frees what r owns and zeroes it. */
void diagnose_result_clear(struct diagnose_result *r);

/* Facts of the run that go into the JSON besides the result. */
struct diagnose_run_info {
	double elapsed_s;          /* command start to verdict */
	double measuring_s;
	const char *load_cmd;      /* may be NULL */
	const char *load_state;    /* may be NULL */
	unsigned pairs, freq_hz;
	double window_s, settle_s;
	unsigned saved_ref_windows;
};

/* Writes the one-object JSON of `argus diagnose --json` (man/argus.1) and a
 * newline.  0 or -errno. */
int diagnose_write_json(const struct diagnose_result *r, const struct profile *p,
			const struct diagnose_run_info *info, FILE *out);

#endif
