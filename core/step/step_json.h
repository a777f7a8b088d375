/* step_json — a step's results as JSON: `argus step` prints it, and every
 * entry of the "steps" array of `argus diagnose --json` is one.
 *
 *   {"index":0,"decision":"auto","spec":{...},"resolved":[...],
 *    "preflight":{"ok":true,"rate":..,"events":..,"lost":..,"overhead_pct":..,
 *                 "cause":".."},
 *    "state":"done","reason":"","unit":"events",
 *    "windows":[{"cond":"ref","secs":..,"events":[per target]}],
 *    "targets":[{"name":..,"events":{"ref":..,"load":..},"rate":{"ref":..,"load":..},
 *                "delta":..,"ratio":..|null,"p":..,"q":..,"significant":..,
 *                "pairs":..,"pairs_agree":..,
 *                "latency":{"intervals":{..},"p50_ns":{..},"p99_ns":{..},
 *                           "p":..,"significant":..}}],
 *    "stacks":{"ref":[{"frames":[root first],"count":..,"rate":..}],"load":[...]},
 *    "lost":..,"overhead":{"pct":..,"max_pct":..,"budget_pct":..,"run_ns":..,
 *                          "run_cnt":..,"progs":..},
 *    "summary":"page_fault_user 12.1k/s → 48.3k/s (+300%), q=1e-40"}
 *
 * Members whose source is absent (no preflight, no data: a step that did
 * not run) are left out.
 */
#ifndef ARGUS_STEP_JSON_H
#define ARGUS_STEP_JSON_H

#include "probe/kind.h"
#include "data/step.h"
#include "step/step_exec.h"
#include "step/step_preflight.h"

#define STEP_JSON_TOP_STACKS 10

/* Everything one entry says; pointers may be NULL except s. */
struct step_report {
	unsigned index;
	const char *decision;            /* "auto", "accepted", "edited", "not run", ... */
	const struct step *s;
	const struct step_preflight *pf;
	const struct step_data *d;
	const struct step_exec_info *info;
	const char *summary;             /* NULL: computed from d */
};

/* The entry as one line of JSON text; caller frees; NULL with errno. */
char *step_report_json(const struct step_report *r);

/* Joins entries (JSON object texts) into an array text "[a,b]"; caller
 * frees; NULL with errno. */
char *step_report_array(char *const *entries, unsigned n);

#endif
