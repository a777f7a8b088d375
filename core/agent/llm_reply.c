/* llm_reply — the LLM client's request bodies (OpenAI or Anthropic JSON) and
 * its reply parsing: whole JSON replies and SSE events of either API, tool
 * calls, thinking, and a tool call written as text recovered (see llm.h;
 * the transport is llm.c, the shared state llm_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/json_safe.h"
#include "agent/llm.h"
#include "agent/llm_int.h"
#include "base/sanitize.h"

/* Control characters from a server's text would garble a terminal line. */
void llm_blank_controls(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

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
	err = llm_reply_add(kind == LLM_DELTA_TEXT ? &l->text :
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
char *llm_json_error_message(const cJSON *root)
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
		llm_blank_controls(s);
	return s;
}

char *llm_json_context_hint(const cJSON *root)
{
	const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
	const cJSON *np = cJSON_GetObjectItemCaseSensitive(e, "n_prompt_tokens");
	const cJSON *nc = cJSON_GetObjectItemCaseSensitive(e, "n_ctx");
	char *s = NULL;

	if (!cJSON_IsObject(e) || !cJSON_IsString(type) ||
	    strcmp(type->valuestring, "exceed_context_size_error"))
		return NULL;
	if (cJSON_IsNumber(np) && cJSON_IsNumber(nc) && np->valuedouble >= 0 && nc->valuedouble > 0 &&
	    np->valuedouble < 1e12 && nc->valuedouble < 1e12) {
		if (asprintf(&s, "; the server counted %.0f prompt tokens against its context of "
			     "%.0f: set context_tokens (ARGUS_LLM_CONTEXT_TOKENS) to %.0f or less, or "
			     "start llama-server with a larger -c", np->valuedouble, nc->valuedouble,
			     nc->valuedouble) < 0)
			s = NULL;
	} else {
		s = strdup("; the prompt exceeds the server's context: set context_tokens "
			   "(ARGUS_LLM_CONTEXT_TOKENS) to the server's context (llama-server's -c) "
			   "or less");
	}
	return s;
}

void llm_stream_error(struct llm *l, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void llm_stream_error(struct llm *l, int code, const char *fmt, ...)
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
		char *m = llm_json_error_message(root);

		llm_stream_error(l, -EIO, "the LLM server sent an error mid-reply: %s", m ? m : "?");
		free(m);
		return -EIO;
	}
	return 0; /* ping, content_block_stop, and events added later */
}

/* One SSE event of either API. */
int llm_sse_event(const char *event, const char *data, size_t len, void *arg)
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
		llm_stream_error(l, -EPROTO, "LLM stream event '%s' is not JSON (at byte %ld of %zu)",
			     event, ep ? (long)(ep - data) : 0L, len);
		return -EPROTO;
	}
	json_safe_tree(root, 0, SANITIZE_JSON_TEXT, NULL); /* its text is shown as it streams */
	if (l->cfg.provider == LLM_ANTHROPIC) {
		err = anth_event(l, root);
	} else {
		char *m = llm_json_error_message(root);

		if (m) {
			llm_stream_error(l, -EIO, "the LLM server sent an error mid-reply: %s", m);
			free(m);
			err = -EIO;
		} else {
			openai_usage(l, root);
			err = openai_choice(l, root, 1);
		}
	}
	if (err && !l->stream_err)
		llm_stream_error(l, err, "LLM stream event '%s' could not be used: %s", event,
			     strerror(-err));
	cJSON_Delete(root);
	return err;
}

/* A whole (non-streamed) JSON reply. */
int llm_parse_full(struct llm *l, const char *body)
{
	const char *ep = NULL;
	cJSON *root;
	int err = 0;

	root = cJSON_ParseWithOpts(body, &ep, 0);
	if (root)
		json_safe_tree(root, 0, SANITIZE_JSON_TEXT, NULL); /* text, tool name, errors: shown */
	if (!root) {
		llm_stream_error(l, -EPROTO, "the LLM reply is not JSON (at byte %ld)",
			     ep ? (long)(ep - body) : 0L);
		return -EPROTO;
	}
	if (l->cfg.provider == LLM_OPENAI) {
		openai_usage(l, root);
		err = openai_choice(l, root, 0);
		if (err == -EPROTO)
			llm_stream_error(l, -EPROTO, "the LLM reply has no choices[0].message");
	} else {
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(root, "content");
		const cJSON *sr = cJSON_GetObjectItemCaseSensitive(root, "stop_reason");
		const cJSON *b;

		anth_usage(l, cJSON_GetObjectItemCaseSensitive(root, "usage"));
		if (cJSON_IsString(sr))
			set_str(&l->stop_reason, sr->valuestring);
		if (!cJSON_IsArray(content)) {
			llm_stream_error(l, -EPROTO, "the LLM reply has no content array");
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
int llm_recover_text_tool_call(struct llm *l)
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
	if (llm_reply_add(&l->text, rest, strlen(rest)) || llm_reply_add(&l->tool_args, args, strlen(args))) {
		free(rest);
		free(args);
		return -ENOMEM;
	}
	free(rest);
	free(args);
	set_str(&l->tool_name, LLM_TOOL_NAME);
	return 1;
}
