/* verdict — what a diagnosis concludes, with its evidence. */
#ifndef ARGUS_VERDICT_H
#define ARGUS_VERDICT_H

#include <stdint.h>
#include <stdio.h>

#define VERDICT_MAX_PATH 128

struct verdict {
	int found;                 /* 0: "no bottleneck found" (honest) */
	char subsystem[16];
	char *path[VERDICT_MAX_PATH]; /* root-first kernel function names, owned */
	unsigned npath;
	char *leaf;                /* owned; last element of the path */
	double confidence;         /* 0..1 */
	/* evidence, from the node the descent stopped at */
	double rate_ref, rate_load, delta, ratio, q;
	unsigned pairs, pairs_agree;
	double share_of_root;      /* node delta / the sum of the increases of
	                            * the root's children (not the net root
	                            * delta: idle falls as work rises) */
	char *summary;             /* one line for people, owned */
	char **notes;              /* extra evidence lines (step results), owned */
	unsigned nnotes;
};

void verdict_clear(struct verdict *v); /* frees owned strings, zeroes */
int verdict_add_note(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* JSON for verdicts (core/verdict_json.c).  The object is the "verdict" of
 * `argus diagnose --batch --json` and of `argus diff`, and of the session's
 * verdict event:
 *   {"found":1,"subsystem":"mm","path":[...],"leaf":"...","confidence":0.9,
 *    "summary":"...","evidence":{"rate_ref":..,"rate_load":..,"delta":..,
 *    "ratio":..|null,"q":..,"pairs":..,"pairs_agree":..,"share_of_root":..},
 *    "notes":[...]}
 * ratio is null when the reference rate is 0 (infinite).  A cJSON object is
 * returned so callers can embed it; caller frees with cJSON_Delete. */
struct cJSON;
struct cJSON *verdict_json_new(const struct verdict *v);

/* Reads such an object into v (zeroed first; verdict_clear frees it).
 * Returns 0, or -EINVAL with *cause set (caller frees) naming the field. */
int verdict_json_parse(const struct cJSON *o, struct verdict *v, char **cause);

/* Writes one line, the shape `argus diagnose --batch --json` prints:
 * {"verdict":{...},"decisions":[lines...],"steps":[],"elapsed_s":S}
 * lines are the agent's explanations (may be NULL when nlines is 0); steps
 * is steps_json (a JSON array text) or [] when NULL.  Returns 0 or -errno. */
int verdict_json_report(FILE *out, const struct verdict *v, char *const *lines,
			unsigned nlines, const char *steps_json, double elapsed_s);

#endif
