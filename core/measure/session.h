/* session — an append-only record of a diagnosis, and its reader.
 *
 * A session file is JSON Lines (one JSON object per line, UTF-8), readable
 * with jq.  The first line is the header; every later line is one event,
 * with "type" and "t" (seconds since the session started).  The format is
 * documented for people in man/argus.1 (SESSION FILES) and
 * tests/data/SESSION-FORMAT.md; this header is the contract for code.
 *
 *   {"type":"header","format":"argus-session","version":1,"argus":"0.1.0",
 *    "host":"h","kernel":"6.18.0","created":"2026-01-02T03:04:05Z",
 *    "caps":{...},"options":{...}}
 *   {"type":"window","t":4.1,"step":0,"index":0,"cond":"ref","start":0.5,
 *    "secs":2.0,"samples":812,"lost":3,
 *    "stacks":[[["asm_exc_page_fault","exc_page_fault"],4242,"pf",57],...]}
 *   {"type":"proposal","t":..,"step":1,"agent":"heuristic","spec":{...},
 *    "lines":["..."],"focus":"do_anonymous_page"}
 *   {"type":"decision","t":..,"step":1,"action":"accept|edit|veto|undo",
 *    "by":"human|auto","reason":"...","original":{...},"edited":{...}|null}
 *   {"type":"step_result","t":..,"step":1,"status":"ok","summary":"...",
 *    "result":{...}}
 *   {"type":"transcript","t":..,"who":"agent|human|argus","text":"..."}
 *   {"type":"llm_turn","t":..,"provider":"openai","model":"m","latency_s":2.1,
 *    "tokens_in":1200,"tokens_out":80,"status":"ok","error":null}
 *   {"type":"verdict","t":..,"verdict":{...verdict_json_new...},"lines":[...]}
 *   {"type":"note","t":..,"text":"..."}
 *   {"type":"model","t":..,"model":{...model_write_json...},"chain":"...",
 *    "windows":{"used":"steady state: windows 3-9 of 12 (...)","first":3,"last":9,"of":12}}
 *
 * The writer flushes after every event and fsyncs after windows and
 * verdicts, so a crash or kill loses at most the event being written.  The
 * reader replays a file cut at any byte up to its last complete line, says
 * so in a note, skips unknown event types (with a note), and refuses files
 * of a newer format version.
 */
#ifndef ARGUS_SESSION_H
#define ARGUS_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "data/profile.h"
#include "data/verdict.h"

#define SESSION_FORMAT "argus-session"
#define SESSION_VERSION 1

enum session_event_type {
	SESSION_EV_WINDOW,
	SESSION_EV_PROPOSAL,
	SESSION_EV_DECISION,
	SESSION_EV_STEP_RESULT,
	SESSION_EV_TRANSCRIPT,
	SESSION_EV_LLM_TURN,
	SESSION_EV_VERDICT,
	SESSION_EV_NOTE,
	SESSION_EV_MODEL,
	SESSION_EV_N
};

/* "window", "proposal", ... as in the file. */
const char *session_event_name(enum session_event_type t);

enum session_decision {
	SESSION_ACCEPT,
	SESSION_EDIT,
	SESSION_VETO,
	SESSION_UNDO,
	SESSION_DECISION_N
};

/* "accept", "edit", "veto", "undo". */
const char *session_decision_name(enum session_decision d);

/* ---- writer ------------------------------------------------------------------- */

struct session_header {
	const char *host;          /* NULL: uname's nodename */
	const char *kernel;        /* NULL: uname's release */
	const char *caps_json;     /* JSON object text (what argus probes found), or NULL */
	const char *options_json;  /* JSON object text (the run's options), or NULL */
};

struct session;

/* $XDG_STATE_HOME/argus/sessions/argus-YYYYmmdd-HHMMSS.jsonl ($HOME/.local/state
 * when XDG_STATE_HOME is unset), creating the directories (0700).  Caller
 * frees.  NULL with *cause set on failure. */
char *session_default_path(char **cause);

/* Creates the session file and writes its header.  path NULL: the default
 * path above, never overwriting (a -2, -3 ... suffix when taken); a path
 * given is created or truncated (mode 0600: sessions name processes).  h
 * may be NULL.  Returns NULL with *cause set (caller frees). */
struct session *session_open(const char *path, const struct session_header *h, char **cause);

/* Flushes, fsyncs and closes; NULL-safe.  Returns 0 or the first write
 * error met (-errno) since open. */
int session_close(struct session *s);

/* The file being written; valid until session_close. */
const char *session_path(const struct session *s);

/* Seconds since session_open (the "t" of the next event). */
double session_elapsed(const struct session *s);

/* Each writer appends one line and flushes; each returns 0 or -errno (a
 * write error is also remembered for session_close).  JSON text arguments
 * (spec, result) are parsed and embedded as JSON; text that does not parse
 * gives -EINVAL and writes nothing. */

/* Window w of p, as measured for step (0: the calibration sampling).
 * Writes every stack with a non-zero count in w; fsyncs. */
int session_write_window(struct session *s, const struct profile *p, unsigned w,
			 unsigned step);

/* The same without the stacks of process exclude_tgid (argus itself, which
 * diagnose leaves out of the verdict too); 0 keeps all. */
int session_write_window_without(struct session *s, const struct profile *p, unsigned w,
				 unsigned step, uint32_t exclude_tgid);

/* An agent's proposal for step: spec_json is the step spec as the agent
 * gave it; lines are its reasoning; focus the node name or NULL. */
int session_write_proposal(struct session *s, unsigned step, const char *agent,
			   const char *spec_json, char *const *lines, unsigned nlines,
			   const char *focus);

/* A decision on step's proposal.  by: "human" or "auto"; reason may be NULL;
 * original_json the agent's spec, edited_json the person's (NULL unless
 * SESSION_EDIT). */
int session_write_decision(struct session *s, unsigned step, enum session_decision d,
			   const char *by, const char *reason, const char *original_json,
			   const char *edited_json);

/* A step's outcome: status "ok", "error", "detached" ...; summary one line;
 * result_json any JSON (NULL: none). */
int session_write_step_result(struct session *s, unsigned step, const char *status,
			      const char *summary, const char *result_json);

/* One transcript line; who: "agent", "human" or "argus". */
int session_write_transcript(struct session *s, const char *who, const char *text);

/* Accounting for one LLM turn.  Never give it a key: nothing here is meant
 * to hold one, and error text must be scrubbed by the caller. */
struct session_llm_turn {
	const char *provider, *model;
	double latency_s;
	uint64_t tokens_in, tokens_out;
	const char *status;        /* "ok", "repair", "fallback", "error" */
	const char *error;         /* NULL when none */
};
int session_write_llm_turn(struct session *s, const struct session_llm_turn *lt);

/* The verdict and the agent's explanation lines (may be NULL); fsyncs. */
int session_write_verdict(struct session *s, const struct verdict *v,
			  char *const *lines, unsigned nlines);

/* A finding after the diagnosis: the verdict of an exploration the person
 * started after a verdict (exploration: what started it, "focus on X";
 * NULL: this is the diagnosis, as session_write_verdict).  Readers keep the
 * last verdict without "exploration" as the diagnosis (session_log_diagnosis). */
int session_write_finding(struct session *s, const struct verdict *v,
			  char *const *lines, unsigned nlines, const char *exploration);

/* A conclusion: each of lines as an "agent" transcript line, the naive
 * answer (nnaive > 0: "a profiler without a reference would point at the
 * hottest path: SUBSYS > f > g") as an "argus" line, then the verdict with
 * lines (fsynced).  What the analysis (core/analysis/analysis.h) and diagnose
 * conclude, recorded the same way.  0 or -errno. */
int session_write_conclusion(struct session *s, char *const *lines, unsigned nlines,
			     const char *naive_subsystem, char *const *naive_path, unsigned nnaive,
			     const struct verdict *v);

/* s as a JSON string literal with its quotes ("a\"b"), for callers that
 * build header options without a JSON library (tui/).  Caller frees; NULL
 * with errno set. */
char *session_json_quote(const char *s);

/* A free note (argus's own remarks: load exited, step detached ...). */
int session_write_note(struct session *s, const char *text);

/* The layered queueing model of the load (core/model/model.h) as model_json
 * (model_write_json's text), its wait chain as one line (may be NULL) and
 * the loaded windows it was built from: windows (core/model/model_window.h's
 * text, may be NULL: then no "windows" field), first..last of n (0-based);
 * fsyncs.  Written when time accounting gave a wait graph (the replay's
 * model view reads it: session_log_model). */
int session_write_model(struct session *s, const char *model_json, const char *chain,
			const char *windows, unsigned first, unsigned last, unsigned n);

/* ---- reader ------------------------------------------------------------------- */

/* One event as read.  Strings are owned by the event (NULL when absent);
 * the JSON text fields are compact JSON. */
struct session_event {
	enum session_event_type type;
	double t;
	unsigned line;             /* 1-based line in the file */
	unsigned step;             /* window, proposal, decision, step_result */
	char *json;                /* the whole line as read */
	/* window */
	int window;                /* index in session_log_profile(log, step); -1 */
	enum cond cond;
	uint64_t samples;
	/* proposal */
	char *agent;
	char *spec_json;           /* proposal spec; decision: the original */
	char **lines;              /* proposal/verdict reasoning */
	unsigned nlines;
	char *focus;               /* proposal: its node; verdict: the exploration */
	/* decision */
	enum session_decision decision;
	char *by;
	char *edited_json;
	/* step_result */
	char *status;              /* also llm_turn */
	char *result_json;         /* model: the model's JSON */
	char *windows;             /* model: the windows it was built from
	                            * ("steady state: windows 3-9 of 12 ..."),
	                            * NULL in sessions before it was recorded */
	/* transcript / note / step_result summary / decision reason / llm error /
	 * model: its wait chain */
	char *who;
	char *text;
	/* llm_turn */
	char *provider, *model;
	double latency_s;
	uint64_t tokens_in, tokens_out;
	/* verdict */
	struct verdict verdict;
};

struct session_log {
	int version;
	char *argus_version, *host, *kernel, *created;
	char *caps_json, *options_json;        /* "{}" when absent */
	struct profile *profile;               /* step 0 windows (calibration); owned */
	struct profile **step_profile;         /* [step], step >= 1, NULL when no
	                                        * window; owned */
	unsigned nstep_profile;
	struct session_event *ev;              /* in file order; owned */
	size_t nev;
	char **notes;                          /* the reader's remarks for people */
	unsigned nnotes;
	size_t bytes;                          /* bytes read (complete lines) */
	int truncated;                         /* the file ends mid-event */
};

/* Reads a session file into out (zeroed first).  Returns 0 (notes may say
 * the file was cut or events were skipped), or -errno with *cause set
 * (caller frees): not a session, newer version, a malformed line (with its
 * number).  Free with session_log_clear. */
int session_read(const char *path, struct session_log *out, char **cause);

/* The same from memory (len bytes, need not be NUL-terminated); name is used
 * in messages. */
int session_read_buf(const char *name, const char *buf, size_t len,
		     struct session_log *out, char **cause);

void session_log_clear(struct session_log *l); /* frees, zeroes; NULL-safe */

/* The last model event of l (its result_json is the model, text the
 * chain), or NULL when the session has none (recorded without time
 * accounting, or by an argus before models were saved). */
const struct session_event *session_log_model(const struct session_log *l);

/* Profile of step's windows (0: calibration), or NULL when it has none.
 * Valid while the log lives. */
const struct profile *session_log_profile(const struct session_log *l, unsigned step);

/* A new profile holding the windows of step among the first nev events —
 * the data as it was at that point of the replay.  Caller frees
 * (profile_free).  NULL with errno set. */
struct profile *session_log_profile_upto(const struct session_log *l, size_t nev,
					 unsigned step);

/* The diagnosis among the first nev events: the last verdict that is not an
 * exploration (a verdict with "exploration" is a later finding and never
 * replaces it); NULL when none.  Valid while the log lives. */
const struct session_event *session_log_diagnosis(const struct session_log *l, size_t nev);

#endif
