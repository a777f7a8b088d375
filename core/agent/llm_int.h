/* llm_int.h — private to core/llm*.c: the client's state, shared by the
 * transport (llm.c) and the body building and reply parsing (llm_reply.c). */
#ifndef ARGUS_LLM_INT_H
#define ARGUS_LLM_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "base/buf.h"
#include "base/curl_watch.h"
#include "agent/llm.h"


#define LLM_ERRMSG_MAX 300   /* bytes of a server's error message we quote */

/* Appends n bytes of s to one of the reply's buffers, keeping it
 * NUL-terminated: 0, -E2BIG past LLM_MAX_REPLY_BYTES (a server decides
 * how much it sends), -EOVERFLOW or -ENOMEM.  Inline, so that the reply
 * parsing (llm_reply.c) needs nothing back from the transport (llm.c). */
static inline int llm_reply_add(struct buf *b, const char *s, size_t n)
{
	return buf_append_max(b, s, n, LLM_MAX_REPLY_BYTES);
}

enum req_state {
	REQ_IDLE,
	REQ_RUNNING,    /* an attempt is in curl */
	REQ_BACKOFF,    /* waiting to retry */
	REQ_DONE,       /* finished; llm_request_poll hands it over */
};

struct llm {
	struct llm_config cfg;
	CURLM *multi;
	struct curl_watch watch;     /* the sockets and timer curl asks for */
	char last_error[256];

	/* the request */
	enum req_state state;
	CURL *easy;
	struct curl_slist *hdrs;
	char *body;
	char *endpoint;
	llm_delta_cb cb;
	void *cb_arg;
	int64_t t_start, retry_at;
	double wait_s;
	unsigned attempts;

	/* the attempt */
	long status;
	int decided;                 /* sse or raw chosen */
	int sse;
	struct llm_sse sse_p;
	struct buf raw;
	long retry_after_s;          /* -1: none */
	char errbuf[CURL_ERROR_SIZE];
	int stream_done;
	char *stream_err;            /* an error the stream itself carried */
	int stream_err_code;

	/* what the reply says */
	struct buf text, tool_args, thinking;
	char *tool_name;
	char *tool_id;               /* openai: id of the call being assembled */
	char *stop_reason;
	int tool_index;              /* openai: index of the first tool call, -1 */
	int tool_calls_seen;         /* openai: tool-call entries without an index */
	int anth_tool_block;         /* anthropic: content block of the tool, -1 */
	unsigned long tokens_in, tokens_out;

	/* the outcome, while REQ_DONE */
	int rc;
	char *error;
};

/* ---- llm_reply.c: what the transport calls of the reply parsing ---- */

/* Control characters of a server's text blanked, in place. */
void llm_blank_controls(char *s);
/* A server's error object -> a short message (caller frees), or NULL. */
char *llm_json_error_message(const cJSON *root);
/* For llama-server's exceed_context_size_error (HTTP 400, 500 before late
 * 2025): "; the server counted N prompt tokens against its context of M:
 * set context_tokens to M or less" (caller frees), else NULL. */
char *llm_json_context_hint(const cJSON *root);
/* Records the first error the stream itself carried (l->stream_err). */
void llm_stream_error(struct llm *l, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* One SSE event of either API (an llm_sse callback; arg is the llm). */
int llm_sse_event(const char *event, const char *data, size_t len, void *arg);
/* A whole (non-streamed) JSON reply. */
int llm_parse_full(struct llm *l, const char *body);
/* A tool call written into the text taken as the call: 1, 0, or -ENOMEM. */
int llm_recover_text_tool_call(struct llm *l);

#endif
