/* json_safe — a parsed JSON document from a file or an LLM, made safe to
 * show and bounded, in place.
 *
 * Readers of untrusted JSON (session lines, LLM replies) call this right
 * after cJSON_Parse, so every string they take from the tree — names,
 * notes, frames, LLM text — is already escaped (core/base/sanitize.h) before
 * anything reaches a terminal or a report, whichever path it takes.
 * With flags 0, strings whose key is "text", "rationale" or "expect" keep their newlines and tabs
 * (notes, transcripts) and all others have them escaped too; other flags
 * (core/base/sanitize.h) apply to every string (an LLM reply: SANITIZE_JSON_TEXT,
 * as its text may carry JSON).
 */
#ifndef ARGUS_JSON_SAFE_H
#define ARGUS_JSON_SAFE_H

#include <stddef.h>

struct cJSON;

/* Escapes every string value and key under o (depth-first) that needs it.
 * 0; -E2BIG when a string is longer than max_str bytes (0: no limit) or the
 * nesting is deeper than 64 (then *what, when what is not NULL, names the
 * key: valid while o lives); -ENOMEM. */
int json_safe_tree(struct cJSON *o, size_t max_str, unsigned flags, const char **what);

#endif
