/* llm — a non-blocking HTTP client for LLM providers (libcurl multi + cJSON).
 *
 * Two wire protocols: OpenAI-compatible Chat Completions (OpenAI, vLLM, the
 * llama.cpp server, Ollama's /v1) and Anthropic Messages.  Both streamed
 * (server-sent events) or not; both with one tool, `propose_step`, whose
 * parameters are the step JSON schema.
 *
 * No threads: the multi handle's sockets and timer are exported to the
 * caller's poll() loop.  The loop is
 *
 *	n = llm_pollfds(l, fds + k, max - k);      // add our sockets
 *	t = min(own_timeout, llm_timeout_ms(l));    // -1: no deadline from us
 *	poll(fds, k + n, t);
 *	llm_perform(l);                             // does the ready work
 *	rc = llm_request_poll(l, &res);             // 0 done, -EINPROGRESS, -errno
 *
 * One request in flight per struct llm.  Retries (429, 5xx; Retry-After
 * honoured; exponential backoff otherwise) happen inside, invisibly to the
 * caller except for res.attempts.
 *
 * Secrets: the API key is copied into the handle and sent only as the
 * provider's auth header.  No message this module builds ever contains it:
 * error texts are built from status codes, curl's error buffer and the
 * server's error message, and every one is scrubbed of the key.
 */
#ifndef ARGUS_LLM_H
#define ARGUS_LLM_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

enum llm_provider {
	LLM_OPENAI = 0,     /* Chat Completions: POST {url}/chat/completions */
	LLM_ANTHROPIC = 1,  /* Messages:         POST {url}/messages */
};

/* Defaults, documented in the man page. */
#define LLM_DEF_CONNECT_TIMEOUT_MS 10000u
#define LLM_DEF_TIMEOUT_MS         120000u
#define LLM_DEF_MAX_RETRIES        3u
#define LLM_DEF_BACKOFF_MS         1000u   /* 1 s, 2 s, 4 s ... */
#define LLM_DEF_MAX_TOKENS         4096u
#define LLM_DEF_CONTEXT_TOKENS     8192u   /* the server's context (num_ctx, -c) */
#define LLM_DEF_CONTEXT_TOKENS_API 128000u /* Anthropic's and api.openai.com's */
#define LLM_MIN_CONTEXT_TOKENS     512u
#define LLM_MAX_CONTEXT_TOKENS     (4u << 20)
#define LLM_MAX_RETRY_AFTER_S      60u     /* a longer Retry-After is an error */
#define LLM_MAX_REPLY_BYTES        (8u << 20)

struct llm_config {
	enum llm_provider provider;
	char *url;                  /* base URL without the endpoint; owned */
	char *model;                /* owned */
	char *api_key;              /* owned; NULL = none; never printed */
	unsigned connect_timeout_ms;
	unsigned timeout_ms;        /* whole request, per attempt */
	unsigned max_retries;       /* extra attempts after the first */
	unsigned backoff_ms;        /* first retry delay without Retry-After */
	unsigned max_tokens;
	unsigned context_tokens;    /* the server's context in tokens: prompts are
	                             * cut to fit it (llm_prompt_budget) */
	int stream;                 /* 1: ask for SSE (default) */
	char *source;               /* where the settings came from, for people; owned */
};

/* Fills cfg with the defaults (no provider URL, no model, no key). */
void llm_config_defaults(struct llm_config *cfg);

/* Loads $XDG_CONFIG_HOME/argus/config (else ~/.config/argus/config), then
 * the ARGUS_LLM_* environment variables over it.  Returns 0, -ENOENT when no
 * LLM is configured at all ("no LLM configured" in *cause), or -errno with
 * *cause (caller frees) — e.g. a key file readable by others.  On error cfg
 * is cleared.  Call llm_config_clear when done. */
int llm_config_load(struct llm_config *cfg, char **cause);

/* Same with an explicit config file path (NULL: none) — for tests. */
int llm_config_load_file(struct llm_config *cfg, const char *path, char **cause);

/* Frees what cfg owns (the key is wiped first) and zeroes it. NULL-safe. */
void llm_config_clear(struct llm_config *cfg);

/* "openai" / "anthropic"; parse returns -EINVAL for anything else. */
const char *llm_provider_name(enum llm_provider p);
int llm_provider_parse(const char *s, enum llm_provider *out);

/* Reads an API key file: refused (-EPERM, *cause) when group- or
 * world-readable.  *key is the first line, trimmed; caller frees (and should
 * wipe). */
int llm_key_file_read(const char *path, char **key, char **cause);

enum llm_role {
	LLM_USER = 0,
	LLM_ASSISTANT = 1,
};

struct llm_msg {
	enum llm_role role;
	const char *content;        /* plain text */
};

/* Name of the one tool offered to the model. */
#define LLM_TOOL_NAME "propose_step"

/* Builds a request body (JSON text, caller frees) for provider p.  system
 * and tool_schema_json may be NULL.  Returns NULL with errno set and *cause
 * (caller frees) when the schema does not parse.  Exported for the tests. */
char *llm_body_build(const struct llm_config *cfg, const struct llm_msg *msgs, size_t n,
		     const char *system, const char *tool_schema_json, char **cause);

/* What a finished request produced.  Every string is owned by the result. */
struct llm_result {
	char *text;                 /* the assistant's text, "" if none */
	char *tool_name;            /* the tool the model called, or NULL */
	char *tool_args;            /* its arguments (JSON text), or NULL */
	char *stop_reason;          /* finish_reason / stop_reason, or NULL; a tool
	                             * call counts whatever it says (Ollama has said
	                             * "stop" with tool calls) */
	char *thinking;             /* the model's thinking (reasoning_content,
	                             * reasoning, Anthropic thinking blocks), or NULL */
	int tool_from_text;         /* the call was written in the text (a chat
	                             * template that is not tool-aware) and read
	                             * from there; text keeps the rest */
	double latency_s;           /* from start to the end, retries included */
	double wait_s;              /* of which, waiting before retries */
	unsigned long tokens_in;    /* as the server counted them; 0 if unsaid */
	unsigned long tokens_out;
	unsigned attempts;          /* 1 + retries */
	int http_status;            /* of the last attempt; 0 if none */
	char *error;                /* on failure: the cause for people */
};

/* Frees what r owns and zeroes it. NULL-safe. */
void llm_result_clear(struct llm_result *r);

struct llm;

/* A client for cfg (copied; cfg may be cleared after).  NULL with errno
 * set. */
struct llm *llm_new(const struct llm_config *cfg);
void llm_free(struct llm *l); /* cancels what is in flight; NULL-safe */

/* Streamed pieces as they arrive, for the agent pane.  kind tells text from
 * tool-call arguments and from thinking.  s is not NUL-terminated; valid
 * during the call. */
enum llm_delta_kind {
	LLM_DELTA_TEXT = 0,
	LLM_DELTA_TOOL = 1,
	LLM_DELTA_THINKING = 2,   /* reasoning the server marks as such */
};
typedef void (*llm_delta_cb)(enum llm_delta_kind kind, const char *s, size_t n, void *arg);

/* Starts a request.  msgs (alternating user/assistant, first user), system
 * and tool_schema_json are copied into the request body at once.  on_text
 * (may be NULL) is called from llm_perform.  Returns 0, -EBUSY when a
 * request is already in flight, or -errno (with llm_last_error). */
int llm_request_start(struct llm *l, const struct llm_msg *msgs, size_t n,
		      const char *system, const char *tool_schema_json,
		      llm_delta_cb on_text, void *arg);

/* The request's state: -EINPROGRESS while running (res untouched); 0 when
 * done (res filled, the handle is free for the next request); -errno on
 * failure (res->error says why, res->http_status/attempts/latency filled).
 * Errors: -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH, -EPROTO (reply did not
 * parse), -ENODATA (empty reply), -EIO (HTTP error status), -ECANCELED,
 * -ECONNRESET (cut mid-reply), -ENOENT (nothing was started). */
int llm_request_poll(struct llm *l, struct llm_result *res);

/* Abandons the request in flight (Esc).  The next llm_request_poll returns
 * -ECANCELED.  No-op when idle. */
void llm_cancel(struct llm *l);

/* Parses body (n bytes; sse: as an event stream) as the reply of a finished
 * HTTP 200 exchange, exactly as a request's reply is parsed, into res (as
 * llm_request_poll gives it, which is what this returns).  No network: for
 * the tests and the fuzzers.  -EBUSY while a request runs. */
int llm_reply_parse(struct llm *l, const char *body, size_t n, int sse, struct llm_result *res);

/* Fills up to max pollfds with the sockets libcurl waits on; returns how
 * many. */
int llm_pollfds(struct llm *l, struct pollfd *fds, int max);

/* Milliseconds until llm_perform must run even without socket activity;
 * -1 when there is no deadline. */
int llm_timeout_ms(const struct llm *l);

/* Does whatever is ready (socket I/O, curl timers, retries) without
 * blocking; callbacks run from here.  Returns 0 or -errno (internal). */
int llm_perform(struct llm *l);

/* Blocks (poll loop) until the request finishes or max_ms passes (-1: no
 * limit; the request's own timeouts still apply).  For batch mode.  Returns
 * like llm_request_poll. */
int llm_request_wait(struct llm *l, struct llm_result *res, int max_ms);

/* The last start error, for people; valid until the next call. */
const char *llm_last_error(const struct llm *l);

/* Replaces every occurrence of secret in s (in place) with "[redacted]"
 * when it fits, else with '*'.  Returns s. */
char *llm_scrub(char *s, const char *secret);

/* ---- the prompt budget (core/agent/llm_budget.c) --------------------------------- */

/* A conservative (high) estimate of how many tokens s[0..n) is for the
 * tokenizers of local models, without one: see llm_budget.c for why. */
size_t llm_tokens_estimate(const char *s, size_t n);

/* The estimated tokens of a request of msgs with system and the tool schema
 * (each may be NULL): their texts plus the chat template's markup. */
size_t llm_prompt_tokens(const struct llm_msg *msgs, size_t n, const char *system,
			 const char *tool_schema_json);

/* How many prompt tokens cfg's context leaves: context_tokens (0: the
 * default) less the room kept for the reply. */
size_t llm_prompt_budget(const struct llm_config *cfg);

/* ---- server-sent events (core/agent/llm_sse.c) ---------------------------------- */

/* One event: its type ("message" when unnamed) and its data lines joined by
 * '\n'.  Return non-zero to stop parsing (llm_sse_feed returns it). */
typedef int (*llm_sse_cb)(const char *event, const char *data, size_t len, void *arg);

struct llm_sse {
	char *line;                 /* the partial line carried between reads */
	size_t line_len, line_cap;
	char *data;                 /* data of the event being built */
	size_t data_len, data_cap;
	int has_data;
	char event[64];
	int last_cr;                /* the previous read ended with '\r' */
	size_t max;                 /* bound on line and data (default 8 MiB) */
};

void llm_sse_init(struct llm_sse *p);
void llm_sse_clear(struct llm_sse *p); /* frees buffers; NULL-safe */
/* Feeds n bytes (any split: lines and CRLF may straddle calls).  Returns 0,
 * the callback's non-zero value, or -E2BIG when a line exceeds the bound. */
int llm_sse_feed(struct llm_sse *p, const char *buf, size_t n, llm_sse_cb cb, void *arg);

#endif
