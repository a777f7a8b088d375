/* llm — HTTP to LLM providers on the libcurl multi interface, driven by the
 * caller's poll loop (see llm.h for the loop and the contract). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "json_safe.h"
#include "llm.h"
#include "sanitize.h"
#include "util.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "0"
#endif

#define LLM_MAX_SOCKS 16
#define LLM_ERRMSG_MAX 300   /* bytes of a server's error message we quote */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > LLM_MAX_REPLY_BYTES)
		return -E2BIG;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *np;

		while (cap < b->len + n + 1)
			cap *= 2;
		np = realloc(b->p, cap);
		if (!np)
			return -ENOMEM;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

static void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

enum req_state {
	REQ_IDLE,
	REQ_RUNNING,    /* an attempt is in curl */
	REQ_BACKOFF,    /* waiting to retry */
	REQ_DONE,       /* finished; llm_request_poll hands it over */
};

struct llm_sock {
	curl_socket_t fd;
	int what;       /* CURL_POLL_IN / OUT / INOUT */
};

struct llm {
	struct llm_config cfg;
	CURLM *multi;
	struct llm_sock socks[LLM_MAX_SOCKS];
	int nsocks;
	int64_t timer_at;            /* ms, monotonic; -1: no curl timer */
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

char *llm_scrub(char *s, const char *secret)
{
	static const char red[] = "[redacted]";
	size_t sl;
	char *p;

	if (!s || !secret || !*secret)
		return s;
	sl = strlen(secret);
	while ((p = strstr(s, secret))) {
		if (sl >= sizeof(red) - 1) {
			memcpy(p, red, sizeof(red) - 1);
			memmove(p + sizeof(red) - 1, p + sl, strlen(p + sl) + 1);
		} else {
			memset(p, '*', sl);
		}
	}
	return s;
}

/* Control characters from a server's text would garble a terminal line. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

static void req_fail(struct llm *l, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- request bodies ---------------------------------------------------------- */

static const char tool_desc[] =
	"Propose the next instrumentation step: one kind from the catalog with its "
	"parameters. It is validated, then a person accepts, edits or vetoes it before "
	"anything is loaded. To state a verdict instead, reply with text.";

char *llm_body_build(const struct llm_config *cfg, const struct llm_msg *msgs, size_t n,
		     const char *system, const char *tool_schema_json, char **cause)
{
	cJSON *root = NULL, *arr, *m, *schema = NULL, *tools, *tool, *fn;
	char *out = NULL;
	int anth = cfg->provider == LLM_ANTHROPIC;

	if (cause)
		*cause = NULL;
	if (tool_schema_json && *tool_schema_json) {
		const char *ep = NULL;

		schema = cJSON_ParseWithOpts(tool_schema_json, &ep, 1);
		if (!schema || !cJSON_IsObject(schema)) {
			if (cause && asprintf(cause, "step schema is not a JSON object (at byte %ld)",
					      schema || !ep ? 0L : (long)(ep - tool_schema_json)) < 0)
				*cause = NULL;
			errno = EINVAL;
			goto out;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(schema, "$schema");
		cJSON_DeleteItemFromObjectCaseSensitive(schema, "$id");
	}
	root = cJSON_CreateObject();
	if (!root || !cJSON_AddStringToObject(root, "model", cfg->model ? cfg->model : ""))
		goto nomem;
	if (anth) {
		if (!cJSON_AddNumberToObject(root, "max_tokens", cfg->max_tokens ? cfg->max_tokens
									  : LLM_DEF_MAX_TOKENS))
			goto nomem;
		if (system && *system && !cJSON_AddStringToObject(root, "system", system))
			goto nomem;
	}
	arr = cJSON_AddArrayToObject(root, "messages");
	if (!arr)
		goto nomem;
	if (!anth && system && *system) {
		m = cJSON_CreateObject();
		if (!m)
			goto nomem;
		cJSON_AddItemToArray(arr, m);
		if (!cJSON_AddStringToObject(m, "role", "system") ||
		    !cJSON_AddStringToObject(m, "content", system))
			goto nomem;
	}
	for (size_t i = 0; i < n; i++) {
		m = cJSON_CreateObject();
		if (!m)
			goto nomem;
		cJSON_AddItemToArray(arr, m);
		if (!cJSON_AddStringToObject(m, "role",
					     msgs[i].role == LLM_ASSISTANT ? "assistant" : "user") ||
		    !cJSON_AddStringToObject(m, "content", msgs[i].content ? msgs[i].content : ""))
			goto nomem;
	}
	if (cfg->stream) {
		if (!cJSON_AddTrueToObject(root, "stream"))
			goto nomem;
		if (!anth) {
			cJSON *so = cJSON_AddObjectToObject(root, "stream_options");

			if (!so || !cJSON_AddTrueToObject(so, "include_usage"))
				goto nomem;
		}
	}
	if (schema) {
		tools = cJSON_AddArrayToObject(root, "tools");
		tool = cJSON_CreateObject();
		if (!tools || !tool)
			goto nomem_tool;
		cJSON_AddItemToArray(tools, tool);
		if (anth) {
			fn = tool;
		} else {
			if (!cJSON_AddStringToObject(tool, "type", "function"))
				goto nomem;
			fn = cJSON_AddObjectToObject(tool, "function");
			if (!fn)
				goto nomem;
		}
		if (!cJSON_AddStringToObject(fn, "name", LLM_TOOL_NAME) ||
		    !cJSON_AddStringToObject(fn, "description", tool_desc))
			goto nomem;
		cJSON_AddItemToObject(fn, anth ? "input_schema" : "parameters", schema);
		schema = NULL;
	}
	out = cJSON_PrintUnformatted(root);
	if (!out)
		goto nomem;
	goto out;
nomem_tool:
	cJSON_Delete(tool);
nomem:
	errno = ENOMEM;
	if (cause && !*cause)
		*cause = strdup("out of memory building the LLM request");
out:
	cJSON_Delete(schema);
	cJSON_Delete(root);
	return out;
}

/* ---- reply parsing ----------------------------------------------------------- */

static void set_str(char **dst, const char *s)
{
	char *n;

	if (!s)
		return;
	n = strdup(s);
	if (!n)
		return;
	free(*dst);
	*dst = n;
}

static int add_text(struct llm *l, enum llm_delta_kind kind, const char *s)
{
	size_t n = strlen(s);
	int err;

	if (!n)
		return 0;
	err = buf_add(kind == LLM_DELTA_TEXT ? &l->text :
		      kind == LLM_DELTA_THINKING ? &l->thinking : &l->tool_args, s, n);
	if (err)
		return err;
	if (l->cb) {
		/* the pane shows this as it streams: escaped first */
		char *safe = kind != LLM_DELTA_TOOL && !sanitize_is_clean(s, SANITIZE_JSON_TEXT) ?
			     sanitize_str(s, SANITIZE_JSON_TEXT) : NULL;

		l->cb(kind, safe ? safe : s, safe ? strlen(safe) : n, l->cb_arg);
		free(safe);
	}
	return 0;
}

static unsigned long json_ulong(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	/* a server's count: a number it sends of 1e38 is not cast (UB), it is 0 */
	return cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 1e15 ?
	       (unsigned long)v->valuedouble : 0;
}

/* A server's error object -> a short message (caller frees), or NULL. */
static char *json_error_message(const cJSON *root)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
	const cJSON *msg;
	char *s;

	if (cJSON_IsString(e))
		msg = e;
	else if (cJSON_IsObject(e))
		msg = cJSON_GetObjectItemCaseSensitive(e, "message");
	else
		return NULL;
	if (!cJSON_IsString(msg) || !msg->valuestring)
		return strdup("(no message)");
	s = strndup(msg->valuestring, LLM_ERRMSG_MAX);
	if (s)
		sanitize(s);
	return s;
}

static void stream_error(struct llm *l, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void stream_error(struct llm *l, int code, const char *fmt, ...)
{
	va_list ap;

	if (l->stream_err)
		return;
	va_start(ap, fmt);
	if (vasprintf(&l->stream_err, fmt, ap) < 0)
		l->stream_err = NULL;
	va_end(ap);
	l->stream_err_code = code;
}

static void openai_usage(struct llm *l, const cJSON *root)
{
	const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "usage");

	if (!cJSON_IsObject(u))
		return;
	if (json_ulong(u, "prompt_tokens"))
		l->tokens_in = json_ulong(u, "prompt_tokens");
	if (json_ulong(u, "completion_tokens"))
		l->tokens_out = json_ulong(u, "completion_tokens");
}

/* One tool call of an OpenAI message or delta.  Servers differ: OpenAI and
 * llama-server key streamed pieces by "index" and send id and name in the
 * first piece only; Ollama has sent them without "index", each piece a whole
 * call, and its arguments as an object rather than a string.  So: by index
 * when there is one, else by arrival — a piece with a new id is another call;
 * one without an id continues the current one.  One call per turn is used;
 * later ones are ignored. */
static int openai_tool_call(struct llm *l, const cJSON *tc, int pos, int delta)
{
	const cJSON *idx = cJSON_GetObjectItemCaseSensitive(tc, "index");
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(tc, "id");
	const cJSON *fn = cJSON_GetObjectItemCaseSensitive(tc, "function");
	const cJSON *name, *args;
	int i;

	if (cJSON_IsNumber(idx)) {
		i = idx->valueint;
	} else if (delta) {
		/* by arrival: a new id starts another call */
		if (cJSON_IsString(id) && id->valuestring[0] &&
		    (!l->tool_id || strcmp(l->tool_id, id->valuestring)))
			l->tool_calls_seen++;
		else if (!l->tool_calls_seen)
			l->tool_calls_seen = 1;
		i = l->tool_calls_seen - 1;
	} else {
		i = pos;
	}
	if (l->tool_index < 0)
		l->tool_index = i;
	if (i != l->tool_index || !cJSON_IsObject(fn))
		return 0;
	if (cJSON_IsString(id) && id->valuestring[0])
		set_str(&l->tool_id, id->valuestring);
	name = cJSON_GetObjectItemCaseSensitive(fn, "name");
	args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
	if (cJSON_IsString(name) && name->valuestring[0])
		set_str(&l->tool_name, name->valuestring);
	if (cJSON_IsString(args))
		return add_text(l, LLM_DELTA_TOOL, args->valuestring);
	if (cJSON_IsObject(args)) { /* Ollama: an object, whole, even streamed */
		char *a = cJSON_PrintUnformatted(args);
		int err;

		if (!a)
			return -ENOMEM;
		err = add_text(l, LLM_DELTA_TOOL, a);
		free(a);
		return err;
	}
	return 0;
}

/* choices[0].message (full reply) or choices[0].delta (stream chunk). */
static int openai_choice(struct llm *l, const cJSON *root, int delta)
{
	const cJSON *choices = cJSON_GetObjectItemCaseSensitive(root, "choices");
	const cJSON *c0, *msg, *content, *tcs, *fr;
	int err, pos = 0;

	if (!cJSON_IsArray(choices))
		return delta ? 0 : -EPROTO;
	c0 = cJSON_GetArrayItem(choices, 0);
	if (!c0)
		return 0; /* the usage-only chunk */
	fr = cJSON_GetObjectItemCaseSensitive(c0, "finish_reason");
	if (cJSON_IsString(fr))
		set_str(&l->stop_reason, fr->valuestring);
	msg = cJSON_GetObjectItemCaseSensitive(c0, delta ? "delta" : "message");
	if (!cJSON_IsObject(msg))
		return delta ? 0 : -EPROTO;
	/* thinking, apart from the answer: llama-server's reasoning_content,
	 * Ollama's reasoning */
	for (unsigned k = 0; k < 2; k++) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(msg, k ? "reasoning" : "reasoning_content");

		if (cJSON_IsString(r) && (err = add_text(l, LLM_DELTA_THINKING, r->valuestring)))
			return err;
	}
	content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (cJSON_IsString(content)) {
		err = add_text(l, LLM_DELTA_TEXT, content->valuestring);
		if (err)
			return err;
	}
	tcs = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls");
	if (cJSON_IsArray(tcs)) {
		const cJSON *tc;

		cJSON_ArrayForEach(tc, tcs) {
			err = openai_tool_call(l, tc, pos++, delta);
			if (err)
				return err;
		}
	}
	return 0;
}

static int anth_usage(struct llm *l, const cJSON *u)
{
	if (!cJSON_IsObject(u))
		return 0;
	if (json_ulong(u, "input_tokens"))
		l->tokens_in = json_ulong(u, "input_tokens");
	if (json_ulong(u, "output_tokens"))
		l->tokens_out = json_ulong(u, "output_tokens");
	return 0;
}

static int anth_event(struct llm *l, const cJSON *root)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
	const char *t = cJSON_IsString(type) ? type->valuestring : "";
	const cJSON *idx = cJSON_GetObjectItemCaseSensitive(root, "index");
	int index = cJSON_IsNumber(idx) ? idx->valueint : -1;

	if (!strcmp(t, "message_start")) {
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "message");

		return anth_usage(l, cJSON_GetObjectItemCaseSensitive(msg, "usage"));
	}
	if (!strcmp(t, "content_block_start")) {
		const cJSON *cb = cJSON_GetObjectItemCaseSensitive(root, "content_block");
		const cJSON *bt = cJSON_GetObjectItemCaseSensitive(cb, "type");

		if (cJSON_IsString(bt) && !strcmp(bt->valuestring, "tool_use") &&
		    l->anth_tool_block < 0) {
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(cb, "name");

			l->anth_tool_block = index;
			if (cJSON_IsString(name))
				set_str(&l->tool_name, name->valuestring);
		} else if (cJSON_IsString(bt) && !strcmp(bt->valuestring, "text")) {
			const cJSON *tx = cJSON_GetObjectItemCaseSensitive(cb, "text");

			if (cJSON_IsString(tx))
				return add_text(l, LLM_DELTA_TEXT, tx->valuestring);
		}
		return 0;
	}
	if (!strcmp(t, "content_block_delta")) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "delta");
		const cJSON *dt = cJSON_GetObjectItemCaseSensitive(d, "type");
		const cJSON *v;

		if (!cJSON_IsString(dt))
			return 0;
		if (!strcmp(dt->valuestring, "text_delta")) {
			v = cJSON_GetObjectItemCaseSensitive(d, "text");
			return cJSON_IsString(v) ? add_text(l, LLM_DELTA_TEXT, v->valuestring) : 0;
		}
		if (!strcmp(dt->valuestring, "thinking_delta")) {
			v = cJSON_GetObjectItemCaseSensitive(d, "thinking");
			return cJSON_IsString(v) ? add_text(l, LLM_DELTA_THINKING, v->valuestring) : 0;
		}
		if (!strcmp(dt->valuestring, "input_json_delta") && index == l->anth_tool_block &&
		    index >= 0) {
			v = cJSON_GetObjectItemCaseSensitive(d, "partial_json");
			return cJSON_IsString(v) ? add_text(l, LLM_DELTA_TOOL, v->valuestring) : 0;
		}
		return 0;
	}
	if (!strcmp(t, "message_delta")) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "delta");
		const cJSON *sr = cJSON_GetObjectItemCaseSensitive(d, "stop_reason");

		if (cJSON_IsString(sr))
			set_str(&l->stop_reason, sr->valuestring);
		return anth_usage(l, cJSON_GetObjectItemCaseSensitive(root, "usage"));
	}
	if (!strcmp(t, "message_stop")) {
		l->stream_done = 1;
		return 0;
	}
	if (!strcmp(t, "error")) {
		char *m = json_error_message(root);

		stream_error(l, -EIO, "the LLM server sent an error mid-reply: %s", m ? m : "?");
		free(m);
		return -EIO;
	}
	return 0; /* ping, content_block_stop, and events added later */
}

/* One SSE event of either API. */
static int sse_event(const char *event, const char *data, size_t len, void *arg)
{
	struct llm *l = arg;
	const char *ep = NULL;
	cJSON *root;
	int err;

	if (l->stream_done)
		return 0; /* anything after the end is ignored */
	if (l->cfg.provider == LLM_OPENAI && len == 6 && !memcmp(data, "[DONE]", 6)) {
		l->stream_done = 1;
		return 0;
	}
	root = cJSON_ParseWithOpts(data, &ep, 0);
	if (!root) {
		stream_error(l, -EPROTO, "LLM stream event '%s' is not JSON (at byte %ld of %zu)",
			     event, ep ? (long)(ep - data) : 0L, len);
		return -EPROTO;
	}
	json_safe_tree(root, 0, SANITIZE_JSON_TEXT, NULL); /* its text is shown as it streams */
	if (l->cfg.provider == LLM_ANTHROPIC) {
		err = anth_event(l, root);
	} else {
		char *m = json_error_message(root);

		if (m) {
			stream_error(l, -EIO, "the LLM server sent an error mid-reply: %s", m);
			free(m);
			err = -EIO;
		} else {
			openai_usage(l, root);
			err = openai_choice(l, root, 1);
		}
	}
	if (err && !l->stream_err)
		stream_error(l, err, "LLM stream event '%s' could not be used: %s", event,
			     strerror(-err));
	cJSON_Delete(root);
	return err;
}

/* A whole (non-streamed) JSON reply. */
static int parse_full(struct llm *l, const char *body)
{
	const char *ep = NULL;
	cJSON *root;
	int err = 0;

	root = cJSON_ParseWithOpts(body, &ep, 0);
	if (root)
		json_safe_tree(root, 0, SANITIZE_JSON_TEXT, NULL); /* text, tool name, errors: shown */
	if (!root) {
		stream_error(l, -EPROTO, "the LLM reply is not JSON (at byte %ld)",
			     ep ? (long)(ep - body) : 0L);
		return -EPROTO;
	}
	if (l->cfg.provider == LLM_OPENAI) {
		openai_usage(l, root);
		err = openai_choice(l, root, 0);
		if (err == -EPROTO)
			stream_error(l, -EPROTO, "the LLM reply has no choices[0].message");
	} else {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
		const cJSON *sr = cJSON_GetObjectItemCaseSensitive(root, "stop_reason");
		const cJSON *b;

		anth_usage(l, cJSON_GetObjectItemCaseSensitive(root, "usage"));
		if (cJSON_IsString(sr))
			set_str(&l->stop_reason, sr->valuestring);
		if (!cJSON_IsArray(content)) {
			stream_error(l, -EPROTO, "the LLM reply has no content array");
			err = -EPROTO;
			goto out;
		}
		cJSON_ArrayForEach(b, content) {
			const cJSON *bt = cJSON_GetObjectItemCaseSensitive(b, "type");

			if (!cJSON_IsString(bt))
				continue;
			if (!strcmp(bt->valuestring, "text")) {
				const cJSON *tx = cJSON_GetObjectItemCaseSensitive(b, "text");

				if (cJSON_IsString(tx) && (err = add_text(l, LLM_DELTA_TEXT, tx->valuestring)))
					goto out;
			} else if (!strcmp(bt->valuestring, "thinking")) {
				const cJSON *th = cJSON_GetObjectItemCaseSensitive(b, "thinking");

				if (cJSON_IsString(th) &&
				    (err = add_text(l, LLM_DELTA_THINKING, th->valuestring)))
					goto out;
			} else if (!strcmp(bt->valuestring, "tool_use") && !l->tool_name) {
				const cJSON *name = cJSON_GetObjectItemCaseSensitive(b, "name");
				const cJSON *in = cJSON_GetObjectItemCaseSensitive(b, "input");
				char *s;

				set_str(&l->tool_name, cJSON_IsString(name) ? name->valuestring : "?");
				s = in ? cJSON_PrintUnformatted(in) : strdup("{}");
				if (s) {
					err = add_text(l, LLM_DELTA_TOOL, s);
					free(s);
					if (err)
						goto out;
				}
			}
		}
	}
out:
	cJSON_Delete(root);
	return err;
}

/* ---- curl callbacks ------------------------------------------------------------ */

static size_t on_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct llm *l = arg;
	size_t n = size * nmemb;

	if (n >= 5 && !strncmp(data, "HTTP/", 5)) {
		l->retry_after_s = -1; /* a new response (after 100 Continue, say) */
	} else if (n > 12 && !strncasecmp(data, "Retry-After:", 12)) {
		char v[64];
		size_t vl = n - 12;
		char *s, *end;

		if (vl >= sizeof(v))
			vl = sizeof(v) - 1;
		memcpy(v, data + 12, vl);
		v[vl] = '\0';
		s = v;
		while (isspace((unsigned char)*s))
			s++;
		end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (isdigit((unsigned char)*s)) {
			long x = strtol(s, &end, 10);

			if (!*end && x >= 0)
				l->retry_after_s = x;
		} else if (*s) {
			time_t t = curl_getdate(s, NULL);

			if (t != -1)
				l->retry_after_s = t > time(NULL) ? (long)(t - time(NULL)) : 0;
		}
	}
	return n;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct llm *l = arg;
	size_t n = size * nmemb;
	int err;

	if (!l->decided) {
		char *ct = NULL;

		curl_easy_getinfo(l->easy, CURLINFO_RESPONSE_CODE, &l->status);
		curl_easy_getinfo(l->easy, CURLINFO_CONTENT_TYPE, &ct);
		l->sse = l->status >= 200 && l->status < 300 && ct &&
			 !strncasecmp(ct, "text/event-stream", 17);
		l->decided = 1;
	}
	if (l->sse) {
		err = llm_sse_feed(&l->sse_p, data, n, sse_event, l);
		if (err == -E2BIG)
			stream_error(l, -EPROTO, "an LLM stream event exceeds %u MiB",
				     LLM_MAX_REPLY_BYTES >> 20);
		else if (err == -ENOMEM)
			stream_error(l, -ENOMEM, "out of memory reading the LLM reply");
		return err ? 0 : n; /* 0 aborts the transfer */
	}
	err = buf_add(&l->raw, data, n);
	if (err) {
		stream_error(l, err == -E2BIG ? -EPROTO : err, "the LLM reply exceeds %u MiB",
			     LLM_MAX_REPLY_BYTES >> 20);
		return 0;
	}
	return n;
}

static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp)
{
	struct llm *l = userp;
	int i;

	for (i = 0; i < l->nsocks; i++)
		if (l->socks[i].fd == s)
			break;
	if (what == CURL_POLL_REMOVE) {
		if (i < l->nsocks)
			l->socks[i] = l->socks[--l->nsocks];
		return 0;
	}
	if (i == l->nsocks) {
		if (l->nsocks == LLM_MAX_SOCKS)
			return -1;
		l->nsocks++;
	}
	l->socks[i].fd = s;
	l->socks[i].what = what;
	return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct llm *l = userp;

	l->timer_at = timeout_ms < 0 ? -1 : util_mono_ms() + timeout_ms;
	return 0;
}

/* ---- the request ---------------------------------------------------------------- */

static void slist_wipe_free(struct curl_slist *h)
{
	for (struct curl_slist *p = h; p; p = p->next)
		if (p->data)
			explicit_bzero(p->data, strlen(p->data));
	curl_slist_free_all(h);
}

static void attempt_reset(struct llm *l)
{
	l->status = 0;
	l->decided = 0;
	l->sse = 0;
	llm_sse_clear(&l->sse_p);
	buf_reset(&l->raw);
	l->retry_after_s = -1;
	l->errbuf[0] = '\0';
	l->stream_done = 0;
	free(l->stream_err);
	l->stream_err = NULL;
	l->stream_err_code = 0;
	buf_reset(&l->text);
	buf_reset(&l->tool_args);
	buf_reset(&l->thinking);
	free(l->tool_name);
	l->tool_name = NULL;
	free(l->tool_id);
	l->tool_id = NULL;
	l->tool_calls_seen = 0;
	free(l->stop_reason);
	l->stop_reason = NULL;
	l->tool_index = -1;
	l->anth_tool_block = -1;
	l->tokens_in = l->tokens_out = 0;
}

static void easy_drop(struct llm *l)
{
	if (l->easy) {
		curl_multi_remove_handle(l->multi, l->easy);
		curl_easy_cleanup(l->easy);
		l->easy = NULL;
	}
}

/* Everything of the request but the outcome. */
static void req_drop(struct llm *l)
{
	easy_drop(l);
	slist_wipe_free(l->hdrs);
	l->hdrs = NULL;
	free(l->body);
	l->body = NULL;
	free(l->endpoint);
	l->endpoint = NULL;
	l->cb = NULL;
	l->cb_arg = NULL;
}

static void req_fail(struct llm *l, int rc, const char *fmt, ...)
{
	va_list ap;

	free(l->error);
	l->error = NULL;
	va_start(ap, fmt);
	if (vasprintf(&l->error, fmt, ap) < 0)
		l->error = NULL;
	va_end(ap);
	if (l->error) {
		llm_scrub(l->error, l->cfg.api_key);
		sanitize(l->error);
	}
	l->rc = rc;
	l->state = REQ_DONE;
	req_drop(l);
}

static int attempt_start(struct llm *l)
{
	CURL *e;
	CURLMcode mc;

	attempt_reset(l);
	e = curl_easy_init();
	if (!e)
		return -ENOMEM;
	l->easy = e;
	curl_easy_setopt(e, CURLOPT_URL, l->endpoint);
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, l->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)strlen(l->body));
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, l->hdrs);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "argus/" ARGUS_VERSION);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)l->cfg.connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)l->cfg.timeout_ms);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, l->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, l);
	curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(e, CURLOPT_HEADERDATA, l);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	/* TLS verification stays on (libcurl's default); proxies come from the
	 * environment (http_proxy, https_proxy, no_proxy) as libcurl does by
	 * default; redirects are not followed (the key must not travel). */
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	mc = curl_multi_add_handle(l->multi, e);
	if (mc != CURLM_OK) {
		easy_drop(l);
		return -ENOMEM;
	}
	l->attempts++;
	l->state = REQ_RUNNING;
	return 0;
}

static const char *status_hint(long status, enum llm_provider p)
{
	switch (status) {
	case 401:
	case 403:
		return "; check the API key (ARGUS_LLM_API_KEY or ARGUS_LLM_API_KEY_FILE)";
	case 404:
		return p == LLM_ANTHROPIC
			? "; check ARGUS_LLM_URL (the base URL, e.g. https://api.anthropic.com/v1) and the model"
			: "; check ARGUS_LLM_URL (the base URL, e.g. http://127.0.0.1:8080/v1) and the model";
	default:
		return "";
	}
}

static int curl_errno(struct llm *l, CURLcode cc)
{
	long oserr = 0;

	switch (cc) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_CONNECT:
		curl_easy_getinfo(l->easy, CURLINFO_OS_ERRNO, &oserr);
		return oserr > 0 ? -(int)oserr : -ECONNREFUSED;
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_RESOLVE_PROXY:
		return -EHOSTUNREACH;
	case CURLE_GOT_NOTHING:
		return -ENODATA;
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
		return -ECONNRESET;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		return -EACCES;
	default:
		return -EIO;
	}
}

/* An attempt ended: succeed, retry or fail. */
/* A 2xx reply fully received (raw, or its stream fed): parse what is left
 * and decide the outcome. */
static void attempt_finish(struct llm *l, const char *url)
{
	if (!l->sse) {
		if (!l->raw.len) {
			req_fail(l, -ENODATA, "the LLM server at %s sent an empty reply (HTTP %ld, "
				 "no body)", url, l->status);
			return;
		}
		if (!strncmp(l->raw.p, "data:", 5) || !strncmp(l->raw.p, "event:", 6)) {
			/* SSE under another content type */
			l->sse = 1;
			if (llm_sse_feed(&l->sse_p, l->raw.p, l->raw.len, sse_event, l) ||
			    llm_sse_feed(&l->sse_p, "\n\n", 2, sse_event, l)) {
				req_fail(l, l->stream_err_code ? l->stream_err_code : -EPROTO, "%s",
					 l->stream_err ? l->stream_err : "the LLM stream did not parse");
				return;
			}
		} else if (parse_full(l, l->raw.p)) {
			req_fail(l, l->stream_err_code ? l->stream_err_code : -EPROTO, "%s",
				 l->stream_err ? l->stream_err : "the LLM reply did not parse");
			return;
		}
	}
	if (l->sse && !l->stream_done && !l->stop_reason) {
		req_fail(l, -ECONNRESET, "the LLM stream from %s ended before it was complete "
			 "(no %s)", url, l->cfg.provider == LLM_ANTHROPIC ? "message_stop" : "[DONE]");
		return;
	}
	if (!l->text.len && !l->tool_args.len && !l->tool_name) {
		req_fail(l, -ENODATA, "the LLM sent an empty reply: no text and no tool call%s%s",
			 l->stop_reason ? "; stop reason " : "",
			 l->stop_reason ? l->stop_reason : "");
		return;
	}
	l->rc = 0;
	l->state = REQ_DONE;
	req_drop(l);
}

static void attempt_done(struct llm *l, CURLcode cc)
{
	const char *url = l->endpoint;
	unsigned secs = l->cfg.timeout_ms / 1000, csecs = l->cfg.connect_timeout_ms / 1000;
	int rc;

	curl_easy_getinfo(l->easy, CURLINFO_RESPONSE_CODE, &l->status);
	if (cc != CURLE_OK) {
		const char *why = l->errbuf[0] ? l->errbuf : curl_easy_strerror(cc);

		if (l->stream_err) {
			req_fail(l, l->stream_err_code ? l->stream_err_code : -EPROTO, "%s",
				 l->stream_err);
			return;
		}
		rc = curl_errno(l, cc);
		switch (rc) {
		case -ETIMEDOUT:
			req_fail(l, rc, "LLM request to %s timed out (%s; limits: connect %u s, "
				 "total %u s)", url, why, csecs ? csecs : 1, secs ? secs : 1);
			return;
		case -ENODATA:
			req_fail(l, rc, "the LLM server at %s closed the connection without replying",
				 url);
			return;
		case -ECONNRESET:
			req_fail(l, rc, "the LLM reply from %s was cut off: %s", url, why);
			return;
		case -EHOSTUNREACH:
			req_fail(l, rc, "cannot resolve the LLM host of %s: %s", url, why);
			return;
		case -EACCES:
			req_fail(l, rc, "TLS with %s failed: %s; the certificate must verify "
				 "(CURL_CA_BUNDLE / SSL_CERT_FILE name a CA bundle)", url, why);
			return;
		default:
			if (cc == CURLE_COULDNT_CONNECT)
				req_fail(l, rc, "cannot connect to the LLM at %s: %s; is the server "
					 "running and ARGUS_LLM_URL right?", url, why);
			else
				req_fail(l, rc, "LLM request to %s failed: %s", url, why);
			return;
		}
	}
	if (l->status == 429 || l->status >= 500) {
		if (l->attempts <= l->cfg.max_retries) {
			long delay_ms;

			if (l->retry_after_s >= 0) {
				if (l->retry_after_s > (long)LLM_MAX_RETRY_AFTER_S) {
					req_fail(l, -EIO, "the LLM server at %s answered HTTP %ld and asks "
						 "to retry after %ld s (more than %u s); try later",
						 url, l->status, l->retry_after_s, LLM_MAX_RETRY_AFTER_S);
					return;
				}
				delay_ms = l->retry_after_s * 1000;
			} else {
				delay_ms = (long)l->cfg.backoff_ms << (l->attempts - 1 < 10 ? l->attempts - 1 : 10);
			}
			easy_drop(l);
			l->retry_at = util_mono_ms() + delay_ms;
			l->wait_s += delay_ms / 1000.0;
			l->state = REQ_BACKOFF;
			return;
		}
	}
	if (l->status < 200 || l->status >= 300) {
		cJSON *root = l->raw.len ? cJSON_Parse(l->raw.p) : NULL;
		char *m = root ? json_error_message(root) : NULL;

		cJSON_Delete(root);
		req_fail(l, -EIO, "the LLM server at %s answered HTTP %ld%s%s%s%s", url, l->status,
			 l->attempts > 1 ? " (after retries)" : "", m ? ": " : "", m ? m : "",
			 status_hint(l->status, l->cfg.provider));
		free(m);
		return;
	}
	attempt_finish(l, url);
}

static void check_done(struct llm *l)
{
	CURLMsg *msg;
	int left;

	while ((msg = curl_multi_info_read(l->multi, &left))) {
		if (msg->msg != CURLMSG_DONE || msg->easy_handle != l->easy)
			continue;
		attempt_done(l, msg->data.result);
	}
}

/* ---- public -------------------------------------------------------------------- */

static int curl_global(void)
{
	static int done;

	if (!done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			return -ENOMEM;
		done = 1;
	}
	return 0;
}

struct llm *llm_new(const struct llm_config *cfg)
{
	struct llm *l;
	int err;

	if (!cfg || !cfg->url || !cfg->model) {
		errno = EINVAL;
		return NULL;
	}
	err = curl_global();
	if (err) {
		errno = -err;
		return NULL;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->cfg = *cfg;
	l->cfg.url = strdup(cfg->url);
	l->cfg.model = strdup(cfg->model);
	l->cfg.api_key = cfg->api_key ? strdup(cfg->api_key) : NULL;
	l->cfg.source = cfg->source ? strdup(cfg->source) : NULL;
	if (!l->cfg.connect_timeout_ms)
		l->cfg.connect_timeout_ms = LLM_DEF_CONNECT_TIMEOUT_MS;
	if (!l->cfg.timeout_ms)
		l->cfg.timeout_ms = LLM_DEF_TIMEOUT_MS;
	l->timer_at = -1;
	l->tool_index = -1;
	l->anth_tool_block = -1;
	llm_sse_init(&l->sse_p);
	l->multi = curl_multi_init();
	if (!l->cfg.url || !l->cfg.model || (cfg->api_key && !l->cfg.api_key) || !l->multi) {
		llm_free(l);
		errno = ENOMEM;
		return NULL;
	}
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
	curl_multi_setopt(l->multi, CURLMOPT_SOCKETDATA, l);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERFUNCTION, on_timer);
	curl_multi_setopt(l->multi, CURLMOPT_TIMERDATA, l);
	return l;
}

void llm_free(struct llm *l)
{
	if (!l)
		return;
	req_drop(l);
	attempt_reset(l);
	llm_sse_clear(&l->sse_p);
	buf_free(&l->raw);
	buf_free(&l->text);
	buf_free(&l->tool_args);
	buf_free(&l->thinking);
	free(l->tool_id);
	free(l->error);
	if (l->multi)
		curl_multi_cleanup(l->multi);
	llm_config_clear(&l->cfg);
	free(l);
}

const char *llm_last_error(const struct llm *l)
{
	return l->last_error;
}

int llm_request_start(struct llm *l, const struct llm_msg *msgs, size_t n,
		      const char *system, const char *tool_schema_json,
		      llm_delta_cb on_text, void *arg)
{
	char *cause = NULL, *h = NULL;
	const char *ep = l->cfg.provider == LLM_ANTHROPIC ? "/messages" : "/chat/completions";
	int err = 0;

	l->last_error[0] = '\0';
	if (l->state == REQ_RUNNING || l->state == REQ_BACKOFF) {
		snprintf(l->last_error, sizeof(l->last_error), "an LLM request is already running");
		return -EBUSY;
	}
	/* a finished request nobody collected is dropped */
	free(l->error);
	l->error = NULL;
	l->state = REQ_IDLE;
	l->body = llm_body_build(&l->cfg, msgs, n, system, tool_schema_json, &cause);
	if (!l->body) {
		err = -(errno ? errno : ENOMEM);
		snprintf(l->last_error, sizeof(l->last_error), "%s", cause ? cause : "out of memory");
		goto out;
	}
	if (asprintf(&l->endpoint, "%s%s", l->cfg.url, ep) < 0) {
		l->endpoint = NULL;
		err = -ENOMEM;
		goto out;
	}
	l->hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	l->hdrs = curl_slist_append(l->hdrs, l->cfg.stream ? "Accept: text/event-stream"
							   : "Accept: application/json");
	l->hdrs = curl_slist_append(l->hdrs, "Expect:");
	if (l->cfg.provider == LLM_ANTHROPIC)
		l->hdrs = curl_slist_append(l->hdrs, "anthropic-version: 2023-06-01");
	if (l->cfg.api_key && *l->cfg.api_key) {
		if (asprintf(&h, l->cfg.provider == LLM_ANTHROPIC ? "x-api-key: %s"
								   : "Authorization: Bearer %s",
			     l->cfg.api_key) < 0) {
			h = NULL;
			err = -ENOMEM;
			goto out;
		}
		l->hdrs = curl_slist_append(l->hdrs, h);
	}
	if (!l->hdrs) {
		err = -ENOMEM;
		goto out;
	}
	l->cb = on_text;
	l->cb_arg = arg;
	l->attempts = 0;
	l->wait_s = 0;
	l->t_start = util_mono_ms();
	err = attempt_start(l);
out:
	if (h) {
		explicit_bzero(h, strlen(h));
		free(h);
	}
	free(cause);
	if (err) {
		if (!l->last_error[0])
			snprintf(l->last_error, sizeof(l->last_error),
				 "cannot start the LLM request: %s", strerror(-err));
		req_drop(l);
		l->state = REQ_IDLE;
	}
	return err;
}

static char *dup_or_empty(const struct buf *b)
{
	return strdup(b->len ? b->p : "");
}

/* The JSON object of a tool call written as text, {"name": LLM_TOOL_NAME,
 * "arguments": {...}} (or "parameters"), starting at text[from..]: its
 * arguments as JSON text (caller frees) and the span [*b, *e) it covers;
 * NULL when there is none. */
static char *text_tool_call_at(const char *text, size_t from, size_t *b, size_t *e)
{
	for (const char *p = strchr(text + from, '{'); p; p = strchr(p + 1, '{')) {
		const char *end = NULL;
		cJSON *o = cJSON_ParseWithOpts(p, &end, 0);
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name"), *args;
		char *out = NULL;

		args = cJSON_GetObjectItemCaseSensitive(o, "arguments");
		if (!args)
			args = cJSON_GetObjectItemCaseSensitive(o, "parameters");
		if (cJSON_IsString(name) && !strcmp(name->valuestring, LLM_TOOL_NAME) && args) {
			out = cJSON_IsString(args) ? strdup(args->valuestring) : cJSON_PrintUnformatted(args);
			*b = (size_t)(p - text);
			*e = (size_t)(end - text);
		}
		cJSON_Delete(o);
		if (out)
			return out;
	}
	return NULL;
}

/* llama-server with a chat template that is not tool-aware (and models
 * that ignore tools, as Ollama lets them: it ignores tool_choice) write the
 * call into the text, bare or inside <tool_call>...</tool_call>.  When no
 * structured call came, one naming our tool is taken from the text, and the
 * text keeps only what was around it.  1 when recovered, 0, or -ENOMEM. */
static int recover_text_tool_call(struct llm *l)
{
	static const char open_tag[] = "<tool_call>", close_tag[] = "</tool_call>";
	const char *text = l->text.len ? l->text.p : NULL, *tag;
	size_t b = 0, e = 0, from = 0;
	char *args, *rest;

	if (!text || l->tool_name || l->tool_args.len)
		return 0;
	tag = strstr(text, open_tag);
	if (tag)
		from = (size_t)(tag - text);
	args = text_tool_call_at(text, from, &b, &e);
	if (!args)
		return 0;
	if (tag && b >= from) {
		const char *close = strstr(text + e, close_tag);

		b = from;
		if (close)
			e = (size_t)(close - text) + sizeof(close_tag) - 1;
	}
	if (asprintf(&rest, "%.*s%s", (int)b, text, text + e) < 0) {
		free(args);
		return -ENOMEM;
	}
	buf_reset(&l->text);
	buf_reset(&l->tool_args);
	if (buf_add(&l->text, rest, strlen(rest)) || buf_add(&l->tool_args, args, strlen(args))) {
		free(rest);
		free(args);
		return -ENOMEM;
	}
	free(rest);
	free(args);
	set_str(&l->tool_name, LLM_TOOL_NAME);
	return 1;
}

int llm_request_poll(struct llm *l, struct llm_result *res)
{
	int rc;

	if (l->state == REQ_RUNNING || l->state == REQ_BACKOFF)
		return -EINPROGRESS;
	if (l->state == REQ_IDLE)
		return -ENOENT;
	memset(res, 0, sizeof(*res));
	rc = l->rc;
	res->latency_s = (util_mono_ms() - l->t_start) / 1000.0;
	res->wait_s = l->wait_s;
	res->attempts = l->attempts;
	res->http_status = (int)l->status;
	res->tokens_in = l->tokens_in;
	res->tokens_out = l->tokens_out;
	if (rc == 0) {
		int rec = recover_text_tool_call(l);

		if (rec < 0)
			rc = rec;
		res->tool_from_text = rec > 0;
		if (l->thinking.len)
			res->thinking = strdup(l->thinking.p);
		res->text = dup_or_empty(&l->text);
		if (l->tool_name || l->tool_args.len) {
			res->tool_name = strdup(l->tool_name ? l->tool_name : "");
			res->tool_args = l->tool_args.len ? strdup(l->tool_args.p) : strdup("{}");
		}
		if (l->stop_reason)
			res->stop_reason = strdup(l->stop_reason);
		/* what the LLM said is shown and recorded: escaped (core/sanitize.h);
		 * tool_args stays JSON, its strings are escaped by the step parser */
		if (sanitize_inplace(&res->text, SANITIZE_JSON_TEXT) ||
		    sanitize_inplace(&res->thinking, SANITIZE_JSON_TEXT) ||
		    sanitize_inplace(&res->tool_name, 0) || sanitize_inplace(&res->stop_reason, 0))
			llm_result_clear(res);
		if (!res->text || ((l->tool_name || l->tool_args.len) &&
				   (!res->tool_name || !res->tool_args))) {
			llm_result_clear(res);
			rc = -ENOMEM;
			res->error = strdup("out of memory collecting the LLM reply");
		}
	} else {
		res->error = l->error;
		l->error = NULL;
		if (!res->error)
			res->error = strdup(strerror(-rc));
		sanitize_inplace(&res->error, 0); /* may quote the server's body */
	}
	l->state = REQ_IDLE;
	attempt_reset(l);
	return rc;
}

int llm_reply_parse(struct llm *l, const char *body, size_t n, int sse, struct llm_result *res)
{
	int err;

	if (!l || !res || (!body && n))
		return -EINVAL;
	if (l->state == REQ_RUNNING || l->state == REQ_BACKOFF)
		return -EBUSY;
	attempt_reset(l);
	l->status = 200;
	l->decided = 1;
	l->sse = sse;
	l->state = REQ_RUNNING;
	l->t_start = util_mono_ms();
	l->wait_s = 0;
	l->attempts = 1;
	if (sse) {
		err = llm_sse_feed(&l->sse_p, body ? body : "", n, sse_event, l);
		if (err == -E2BIG)
			stream_error(l, -EPROTO, "an LLM stream event exceeds %u MiB",
				     LLM_MAX_REPLY_BYTES >> 20);
		else if (err == -ENOMEM)
			stream_error(l, -ENOMEM, "out of memory reading the LLM reply");
	} else if ((err = buf_add(&l->raw, body ? body : "", n))) {
		stream_error(l, err == -E2BIG ? -EPROTO : err, "the LLM reply exceeds %u MiB",
			     LLM_MAX_REPLY_BYTES >> 20);
	}
	if (l->stream_err && l->state == REQ_RUNNING)
		req_fail(l, l->stream_err_code ? l->stream_err_code : -EPROTO, "%s", l->stream_err);
	if (l->state == REQ_RUNNING)
		attempt_finish(l, "(a parsed reply)");
	return llm_request_poll(l, res);
}

void llm_cancel(struct llm *l)
{
	if (!l || (l->state != REQ_RUNNING && l->state != REQ_BACKOFF))
		return;
	req_fail(l, -ECANCELED, "LLM request cancelled");
}

void llm_result_clear(struct llm_result *r)
{
	if (!r)
		return;
	free(r->text);
	free(r->tool_name);
	free(r->thinking);
	free(r->tool_args);
	free(r->stop_reason);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

int llm_pollfds(struct llm *l, struct pollfd *fds, int max)
{
	int n = 0;

	for (int i = 0; i < l->nsocks && n < max; i++) {
		fds[n].fd = l->socks[i].fd;
		fds[n].events = 0;
		fds[n].revents = 0;
		if (l->socks[i].what & CURL_POLL_IN)
			fds[n].events |= POLLIN;
		if (l->socks[i].what & CURL_POLL_OUT)
			fds[n].events |= POLLOUT;
		n++;
	}
	return n;
}

int llm_timeout_ms(const struct llm *l)
{
	int64_t at = -1, now;

	if (l->state == REQ_RUNNING && l->timer_at >= 0)
		at = l->timer_at;
	if (l->state == REQ_BACKOFF)
		at = l->retry_at;
	if (at < 0)
		return -1;
	now = util_mono_ms();
	if (at <= now)
		return 0;
	return at - now > INT_MAX ? INT_MAX : (int)(at - now);
}

int llm_perform(struct llm *l)
{
	struct pollfd fds[LLM_MAX_SOCKS];
	int n, running = 0, err;

	if (l->state == REQ_BACKOFF && util_mono_ms() >= l->retry_at) {
		err = attempt_start(l);
		if (err) {
			req_fail(l, err, "cannot retry the LLM request: %s", strerror(-err));
			return 0;
		}
	}
	if (l->state != REQ_RUNNING)
		return 0;
	n = llm_pollfds(l, fds, LLM_MAX_SOCKS);
	if (n && poll(fds, n, 0) > 0) {
		for (int i = 0; i < n; i++) {
			int ev = 0;

			if (!fds[i].revents)
				continue;
			if (fds[i].revents & (POLLIN | POLLHUP))
				ev |= CURL_CSELECT_IN;
			if (fds[i].revents & POLLOUT)
				ev |= CURL_CSELECT_OUT;
			if (fds[i].revents & (POLLERR | POLLNVAL))
				ev |= CURL_CSELECT_ERR;
			curl_multi_socket_action(l->multi, fds[i].fd, ev, &running);
			check_done(l);
			if (l->state != REQ_RUNNING)
				return 0;
		}
	}
	if (l->timer_at >= 0 && util_mono_ms() >= l->timer_at) {
		l->timer_at = -1;
		curl_multi_socket_action(l->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	}
	check_done(l);
	return 0;
}

int llm_request_wait(struct llm *l, struct llm_result *res, int max_ms)
{
	int64_t end = max_ms < 0 ? -1 : util_mono_ms() + max_ms;
	struct pollfd fds[LLM_MAX_SOCKS];
	int rc;

	for (;;) {
		int n, t;

		llm_perform(l);
		rc = llm_request_poll(l, res);
		if (rc != -EINPROGRESS)
			return rc;
		n = llm_pollfds(l, fds, LLM_MAX_SOCKS);
		t = llm_timeout_ms(l);
		if (end >= 0) {
			int64_t left = end - util_mono_ms();

			if (left <= 0)
				return -EINPROGRESS;
			if (t < 0 || t > left)
				t = (int)left;
		}
		if (t < 0 || t > 1000)
			t = 1000; /* belt and braces: never sleep unbounded */
		if (poll(fds, n, t) < 0 && errno != EINTR)
			return -errno;
	}
}
