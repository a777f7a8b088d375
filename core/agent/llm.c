/* llm — HTTP to LLM providers on the libcurl multi interface, driven by the
 * caller's poll loop (see llm.h for the loop and the contract).  The request
 * bodies and the reply parsing are in llm_reply.c. */
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

#include "base/json_safe.h"
#include "agent/llm.h"
#include "agent/llm_int.h"
#include "base/sanitize.h"
#include "base/util.h"

#ifndef ARGUS_VERSION
#define ARGUS_VERSION "0"
#endif

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

static void req_fail(struct llm *l, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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
		err = llm_sse_feed(&l->sse_p, data, n, llm_sse_event, l);
		if (err == -E2BIG)
			llm_stream_error(l, -EPROTO, "an LLM stream event exceeds %u MiB",
				     LLM_MAX_REPLY_BYTES >> 20);
		else if (err == -ENOMEM)
			llm_stream_error(l, -ENOMEM, "out of memory reading the LLM reply");
		return err ? 0 : n; /* 0 aborts the transfer */
	}
	err = llm_reply_add(&l->raw, data, n);
	if (err) {
		llm_stream_error(l, err == -E2BIG ? -EPROTO : err, "the LLM reply exceeds %u MiB",
			     LLM_MAX_REPLY_BYTES >> 20);
		return 0;
	}
	return n;
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
		llm_blank_controls(l->error);
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
			if (llm_sse_feed(&l->sse_p, l->raw.p, l->raw.len, llm_sse_event, l) ||
			    llm_sse_feed(&l->sse_p, "\n\n", 2, llm_sse_event, l)) {
				req_fail(l, l->stream_err_code ? l->stream_err_code : -EPROTO, "%s",
					 l->stream_err ? l->stream_err : "the LLM stream did not parse");
				return;
			}
		} else if (llm_parse_full(l, l->raw.p)) {
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
		/* a prompt over the context stays over it: not worth a retry */
		if (l->attempts <= l->cfg.max_retries &&
		    !(l->raw.len && strstr(l->raw.p, "\"exceed_context_size_error\""))) {
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
		char *m = root ? llm_json_error_message(root) : NULL;
		char *h = root ? llm_json_context_hint(root) : NULL;

		cJSON_Delete(root);
		req_fail(l, -EIO, "the LLM server at %s answered HTTP %ld%s%s%s%s", url, l->status,
			 l->attempts > 1 ? " (after retries)" : "", m ? ": " : "", m ? m : "",
			 h ? h : status_hint(l->status, l->cfg.provider));
		free(m);
		free(h);
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
	l->tool_index = -1;
	l->anth_tool_block = -1;
	llm_sse_init(&l->sse_p);
	l->multi = curl_multi_init();
	if (!l->cfg.url || !l->cfg.model || (cfg->api_key && !l->cfg.api_key) || !l->multi) {
		llm_free(l);
		errno = ENOMEM;
		return NULL;
	}
	curl_watch_attach(&l->watch, l->multi);
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
		int rec = llm_recover_text_tool_call(l);

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
		/* what the LLM said is shown and recorded: escaped (core/base/sanitize.h);
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
		err = llm_sse_feed(&l->sse_p, body ? body : "", n, llm_sse_event, l);
		if (err == -E2BIG)
			llm_stream_error(l, -EPROTO, "an LLM stream event exceeds %u MiB",
				     LLM_MAX_REPLY_BYTES >> 20);
		else if (err == -ENOMEM)
			llm_stream_error(l, -ENOMEM, "out of memory reading the LLM reply");
	} else if ((err = llm_reply_add(&l->raw, body ? body : "", n))) {
		llm_stream_error(l, err == -E2BIG ? -EPROTO : err, "the LLM reply exceeds %u MiB",
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
	return curl_watch_pollfds(&l->watch, fds, max);
}

int llm_timeout_ms(const struct llm *l)
{
	int64_t at = -1, now;

	if (l->state == REQ_RUNNING && l->watch.timer_at >= 0)
		at = l->watch.timer_at;
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
	struct pollfd fds[CURL_WATCH_MAX_SOCKS];
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
	n = llm_pollfds(l, fds, CURL_WATCH_MAX_SOCKS);
	if (n && poll(fds, n, 0) > 0) {
		for (int i = 0; i < n; i++) {
			if (!fds[i].revents)
				continue;
			curl_multi_socket_action(l->multi, fds[i].fd,
						 curl_watch_events(fds[i].revents), &running);
			check_done(l);
			if (l->state != REQ_RUNNING)
				return 0;
		}
	}
	if (curl_watch_timer_due(&l->watch))
		curl_multi_socket_action(l->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	check_done(l);
	return 0;
}

int llm_request_wait(struct llm *l, struct llm_result *res, int max_ms)
{
	int64_t end = max_ms < 0 ? -1 : util_mono_ms() + max_ms;
	struct pollfd fds[CURL_WATCH_MAX_SOCKS];
	int rc;

	for (;;) {
		int n, t;

		llm_perform(l);
		rc = llm_request_poll(l, res);
		if (rc != -EINPROGRESS)
			return rc;
		n = llm_pollfds(l, fds, CURL_WATCH_MAX_SOCKS);
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
