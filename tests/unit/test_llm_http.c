/* core/llm over real HTTP against tests/llm_stub.py (both APIs, streamed and
 * not, and every failure the stub can script).  tests/live/llm_stub.sh starts
 * the stub and sets ARGUS_TEST_STUB_URL; without it this test is skipped
 * (exit 77, as tests/run.sh expects). */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agent/llm.h"

#define CANARY "sk-CANARY-5b1e0c77a9f2d3"

static const char *stub; /* http://127.0.0.1:PORT */

/* ---- talking to the stub's control endpoints --------------------------------- */

static size_t collect_body(char *d, size_t s, size_t n, void *arg)
{
	char **out = arg;
	size_t old = *out ? strlen(*out) : 0;
	char *p = realloc(*out, old + s * n + 1);

	assert_non_null(p);
	memcpy(p + old, d, s * n);
	p[old + s * n] = '\0';
	*out = p;
	return s * n;
}

static char *stub_call(const char *path, const char *post)
{
	char url[256], *out = NULL;
	CURL *e = curl_easy_init();
	long code = 0;

	snprintf(url, sizeof(url), "%s%s", stub, path);
	curl_easy_setopt(e, CURLOPT_URL, url);
	if (post)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect_body);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, &out);
	assert_int_equal(curl_easy_perform(e), CURLE_OK);
	curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
	assert_int_equal(code, 200);
	curl_easy_cleanup(e);
	return out;
}

static void stub_script(const char *json)
{
	free(stub_call("/_stub/script", json));
}

/* The requests the stub received since the last script; caller deletes. */
static cJSON *stub_log(void)
{
	char *s = stub_call("/_stub/log", NULL);
	cJSON *log = cJSON_Parse(s);

	free(s);
	assert_true(cJSON_IsArray(log));
	return log;
}

static const char *log_header(const cJSON *rec, const char *name)
{
	const cJSON *h = cJSON_GetObjectItem(rec, "headers"); /* case-insensitive */
	const cJSON *v = cJSON_GetObjectItem(h, name);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- running a request through a poll loop, as the TUI does -------------------- */

struct trace {
	int text_deltas, tool_deltas, think_deltas;
	int partial_seen;   /* a delta had arrived while the request still ran */
	char text[4096];
	size_t len;
	int cancel_after;   /* llm_cancel after this many deltas (0: never) */
};

static void on_delta(enum llm_delta_kind kind, const char *s, size_t n, void *arg)
{
	struct trace *t = arg;

	if (kind == LLM_DELTA_TEXT) {
		t->text_deltas++;
		if (t->len + n < sizeof(t->text)) {
			memcpy(t->text + t->len, s, n);
			t->len += n;
			t->text[t->len] = '\0';
		}
	} else if (kind == LLM_DELTA_THINKING) {
		t->think_deltas++;
	} else {
		t->tool_deltas++;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run(struct llm *l, const char *user, const char *schema, struct trace *t,
	       struct llm_result *res)
{
	struct llm_msg msg = { LLM_USER, user };
	double give_up = now_s() + 60; /* a hang is a failure, not a wait */
	int rc;

	memset(res, 0, sizeof(*res));
	assert_int_equal(llm_request_start(l, &msg, 1, "you are a test", schema, on_delta, t), 0);
	for (;;) {
		struct pollfd fds[16];
		int n = llm_pollfds(l, fds, 16);
		int to = llm_timeout_ms(l);

		if (to < 0 || to > 500)
			to = 500;
		assert_true(poll(fds, n, to) >= 0);
		llm_perform(l);
		rc = llm_request_poll(l, res);
		if (rc != -EINPROGRESS)
			break;
		if (t->text_deltas + t->tool_deltas > 0)
			t->partial_seen = 1;
		if (t->cancel_after && t->text_deltas >= t->cancel_after)
			llm_cancel(l);
		assert_true(now_s() < give_up);
	}
	printf("# rc %d (%s) attempts %u status %d tokens %lu/%lu error: %s\n", rc,
	       rc ? strerror(-rc) : "ok", res->attempts, res->http_status, res->tokens_in,
	       res->tokens_out, res->error ? res->error : "-");
	if (res->error)
		assert_null(strstr(res->error, CANARY));
	return rc;
}

static struct llm *client(enum llm_provider p, int stream)
{
	struct llm_config cfg;
	char url[256];
	struct llm *l;

	llm_config_defaults(&cfg);
	snprintf(url, sizeof(url), "%s/v1", stub);
	cfg.provider = p;
	cfg.url = url;
	cfg.model = (char *)"stub-model";
	cfg.api_key = (char *)CANARY;
	cfg.stream = stream;
	cfg.timeout_ms = 5000;
	cfg.connect_timeout_ms = 2000;
	cfg.backoff_ms = 50;
	l = llm_new(&cfg);
	assert_non_null(l);
	return l;
}

static const char schema[] =
	"{\"type\":\"object\",\"required\":[\"kind\"],\"properties\":{\"kind\":{\"type\":\"string\"}}}";
static const char tool_args[] =
	"{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault_user\","
	"\"duration_s\":5,\"rationale\":\"mm delta is page faults\"}";

/* ---- the cases ------------------------------------------------------------------ */

static void test_openai_stream_text(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;
	cJSON *log, *body;

	stub_script("[{\"text\":\"verdict: the page fault path dominates\",\"piece\":5,"
		    "\"chunk_delay_s\":0.02,\"usage\":{\"in\":123,\"out\":45}}]");
	assert_int_equal(run(l, "turn 1", schema, &t, &res), 0);
	assert_string_equal(res.text, "verdict: the page fault path dominates");
	assert_string_equal(t.text, res.text);
	assert_true(t.text_deltas >= 5);
	assert_true(t.partial_seen);
	assert_null(res.tool_args);
	assert_int_equal(res.tokens_in, 123);
	assert_int_equal(res.tokens_out, 45);
	assert_int_equal(res.attempts, 1);
	assert_string_equal(res.stop_reason, "stop");
	llm_result_clear(&res);

	log = stub_log();
	assert_int_equal(cJSON_GetArraySize(log), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "path")->valuestring,
			    "/v1/chat/completions");
	assert_string_equal(log_header(cJSON_GetArrayItem(log, 0), "Authorization"), "Bearer " CANARY);
	assert_null(log_header(cJSON_GetArrayItem(log, 0), "x-api-key"));
	body = cJSON_Parse(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "body")->valuestring);
	assert_non_null(body);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(body, "stream")));
	assert_string_equal(cJSON_GetObjectItem(body, "model")->valuestring, "stub-model");
	assert_non_null(cJSON_GetObjectItem(body, "tools"));
	assert_null(strstr(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "body")->valuestring, CANARY));
	cJSON_Delete(body);
	cJSON_Delete(log);
	llm_free(l);
}

static void check_tool_args(const struct llm_result *res)
{
	cJSON *a = cJSON_Parse(res->tool_args), *b = cJSON_Parse(tool_args);

	assert_non_null(a);
	assert_string_equal(res->tool_name, LLM_TOOL_NAME);
	assert_true(cJSON_Compare(a, b, 1));
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_openai_stream_tool(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;
	char script[1024];

	snprintf(script, sizeof(script), "[{\"text\":\"drilling into mm\",\"tool_args\":%s,\"piece\":7}]",
		 tool_args);
	stub_script(script);
	assert_int_equal(run(l, "turn", schema, &t, &res), 0);
	check_tool_args(&res);
	assert_true(t.tool_deltas > 5); /* assembled from many pieces */
	assert_string_equal(res.text, "drilling into mm");
	assert_string_equal(res.stop_reason, "tool_calls");
	llm_result_clear(&res);
	llm_free(l);
}

static void test_anthropic_stream(void **state)
{
	struct llm *l = client(LLM_ANTHROPIC, 1);
	struct trace t = { 0 };
	struct llm_result res;
	char script[1024];
	cJSON *log, *rec, *body;

	/* CRLF line ends and keep-alive comments between the events */
	snprintf(script, sizeof(script),
		 "[{\"text\":\"compaction is the suspect\",\"tool_args\":%s,\"piece\":4,\"crlf\":true,"
		 "\"comments\":true,\"chunk_delay_s\":0.005,\"usage\":{\"in\":321,\"out\":54}}]",
		 tool_args);
	stub_script(script);
	assert_int_equal(run(l, "turn", schema, &t, &res), 0);
	assert_string_equal(res.text, "compaction is the suspect");
	check_tool_args(&res);
	assert_true(t.text_deltas > 3);
	assert_true(t.tool_deltas > 3);
	assert_true(t.partial_seen);
	assert_int_equal(res.tokens_in, 321);
	assert_int_equal(res.tokens_out, 54);
	assert_string_equal(res.stop_reason, "tool_use");
	llm_result_clear(&res);

	log = stub_log();
	rec = cJSON_GetArrayItem(log, 0);
	assert_string_equal(cJSON_GetObjectItem(rec, "path")->valuestring, "/v1/messages");
	assert_string_equal(log_header(rec, "x-api-key"), CANARY);
	assert_string_equal(log_header(rec, "anthropic-version"), "2023-06-01");
	assert_null(log_header(rec, "Authorization"));
	body = cJSON_Parse(cJSON_GetObjectItem(rec, "body")->valuestring);
	assert_string_equal(cJSON_GetObjectItem(body, "system")->valuestring, "you are a test");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(body, "tools"), 0),
					    "input_schema"));
	cJSON_Delete(body);
	cJSON_Delete(log);
	llm_free(l);
}

static void test_plain_json_both(void **state)
{
	struct trace t = { 0 };
	struct llm_result res;
	char script[1024];

	for (int p = 0; p < 2; p++) {
		struct llm *l = client(p ? LLM_ANTHROPIC : LLM_OPENAI, 0);
		cJSON *log, *body;

		snprintf(script, sizeof(script),
			 "[{\"text\":\"plain\",\"tool_args\":%s,\"usage\":{\"in\":9,\"out\":8}}]", tool_args);
		stub_script(script);
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		assert_string_equal(res.text, "plain");
		check_tool_args(&res);
		assert_int_equal(res.tokens_in, 9);
		assert_int_equal(res.tokens_out, 8);
		llm_result_clear(&res);
		log = stub_log();
		body = cJSON_Parse(cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "body")->valuestring);
		assert_null(cJSON_GetObjectItem(body, "stream"));
		cJSON_Delete(body);
		cJSON_Delete(log);
		llm_free(l);
	}
}

/* 429 with Retry-After: 1, then success: the second request reached the stub
 * at least 1 s after the first (the stub's arrival times, not our clock). */
/* Local servers as they really behave (issue 13): each dialect, streamed
 * and not, gives the same call. */
static void test_dialect_ollama(void **state)
{
	char script[2048];

	for (int stream = 0; stream < 2; stream++) {
		struct llm *l = client(LLM_OPENAI, stream);
		struct trace t = { 0 };
		struct llm_result res;

		/* no "index", the whole call in one chunk, arguments an object,
		 * finish_reason "stop" with a tool call */
		snprintf(script, sizeof(script), "[{\"dialect\":\"ollama\",\"text\":\"mm rose\","
			 "\"tool_args\":%s}]", tool_args);
		stub_script(script);
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		check_tool_args(&res);
		assert_string_equal(res.stop_reason, "stop");
		assert_false(res.tool_from_text);
		llm_result_clear(&res);
		llm_free(l);
	}
}

static void test_dialect_llamacpp_thinking(void **state)
{
	char script[2048];

	for (int stream = 0; stream < 2; stream++) {
		struct llm *l = client(LLM_OPENAI, stream);
		struct trace t = { 0 };
		struct llm_result res;

		snprintf(script, sizeof(script), "[{\"dialect\":\"llamacpp\",\"thinking\":"
			 "\"the mm subtree doubled, so faults\",\"text\":\"faults\",\"tool_args\":%s,"
			 "\"piece\":5}]", tool_args);
		stub_script(script);
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		check_tool_args(&res);
		/* thinking apart from the answer, never in the text */
		assert_non_null(res.thinking);
		assert_string_equal(res.thinking, "the mm subtree doubled, so faults");
		assert_string_equal(res.text, "faults");
		if (stream)
			assert_true(t.think_deltas >= 5);
		llm_result_clear(&res);
		llm_free(l);
	}
}

static void test_dialect_llamacpp_text_call(void **state)
{
	char script[2048];

	for (int stream = 0; stream < 2; stream++) {
		struct llm *l = client(LLM_OPENAI, stream);
		struct trace t = { 0 };
		struct llm_result res;

		snprintf(script, sizeof(script), "[{\"dialect\":\"llamacpp-text\",\"text\":"
			 "\"page faults it is\",\"tool_args\":%s}]", tool_args);
		stub_script(script);
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		/* the call was text; it is read from there and the text keeps the rest */
		assert_true(res.tool_from_text);
		check_tool_args(&res);
		assert_null(strstr(res.text, "tool_call"));
		assert_non_null(strstr(res.text, "page faults it is"));
		assert_string_equal(res.stop_reason, "stop");
		llm_result_clear(&res);
		llm_free(l);
	}
	/* a JSON object in the text that does not name our tool stays text */
	{
		struct llm *l = client(LLM_OPENAI, 0);
		struct trace t = { 0 };
		struct llm_result res;

		stub_script("[{\"text\":\"{\\\"name\\\":\\\"rm_rf\\\",\\\"arguments\\\":{}}\"}]");
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		assert_false(res.tool_from_text);
		assert_null(res.tool_args);
		assert_non_null(strstr(res.text, "rm_rf"));
		llm_result_clear(&res);
		llm_free(l);
	}
}

static void test_anthropic_thinking(void **state)
{
	char script[2048];

	for (int stream = 0; stream < 2; stream++) {
		struct llm *l = client(LLM_ANTHROPIC, stream);
		struct trace t = { 0 };
		struct llm_result res;

		snprintf(script, sizeof(script), "[{\"thinking\":\"compaction or faults?\","
			 "\"text\":\"faults\",\"tool_args\":%s}]", tool_args);
		stub_script(script);
		assert_int_equal(run(l, "turn", schema, &t, &res), 0);
		check_tool_args(&res);
		assert_string_equal(res.thinking, "compaction or faults?");
		assert_string_equal(res.text, "faults");
		llm_result_clear(&res);
		llm_free(l);
	}
}

static void test_429_retry_after(void **state)
{
	struct llm *l = client(LLM_ANTHROPIC, 1);
	struct trace t = { 0 };
	struct llm_result res;
	cJSON *log;
	double t0, t1;

	stub_script("[{\"status\":429,\"headers\":{\"Retry-After\":\"1\"},\"error\":\"rate limited\"},"
		    "{\"text\":\"after the wait\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), 0);
	assert_string_equal(res.text, "after the wait");
	assert_int_equal(res.attempts, 2);
	assert_true(res.wait_s >= 1.0);
	llm_result_clear(&res);
	log = stub_log();
	assert_int_equal(cJSON_GetArraySize(log), 2);
	t0 = cJSON_GetObjectItem(cJSON_GetArrayItem(log, 0), "t")->valuedouble;
	t1 = cJSON_GetObjectItem(cJSON_GetArrayItem(log, 1), "t")->valuedouble;
	printf("# retry came %.3f s after the 429 (Retry-After: 1)\n", t1 - t0);
	assert_true(t1 - t0 >= 1.0);
	cJSON_Delete(log);
	llm_free(l);
}

/* 500 four times: the first try and three retries, backing off 50, 100,
 * 200 ms (in order: each gap at least the one before it asked for). */
static void test_500_gives_up(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;
	cJSON *log;

	stub_script("[{\"status\":500,\"error\":\"boom\"},{\"status\":502,\"error\":\"boom\"},"
		    "{\"status\":503,\"error\":\"boom\"},{\"status\":500,\"error\":\"boom 4\"},"
		    "{\"text\":\"never reached\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EIO);
	assert_int_equal(res.attempts, 4);
	assert_int_equal(res.http_status, 500);
	assert_non_null(strstr(res.error, "HTTP 500"));
	assert_non_null(strstr(res.error, "boom 4"));
	llm_result_clear(&res);
	log = stub_log();
	assert_int_equal(cJSON_GetArraySize(log), 4);
	for (int i = 1; i < 4; i++) {
		double gap = cJSON_GetObjectItem(cJSON_GetArrayItem(log, i), "t")->valuedouble -
			     cJSON_GetObjectItem(cJSON_GetArrayItem(log, i - 1), "t")->valuedouble;

		assert_true(gap >= 0.05 * (1 << (i - 1)));
	}
	cJSON_Delete(log);
	llm_free(l);
}

static void test_retry_after_too_long(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;

	stub_script("[{\"status\":429,\"headers\":{\"Retry-After\":\"3600\"}}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EIO);
	assert_int_equal(res.attempts, 1);
	assert_non_null(strstr(res.error, "retry after 3600 s"));
	llm_result_clear(&res);
	llm_free(l);
}

static void test_timeout(void **state)
{
	struct llm_config cfg;
	struct llm *l;
	struct trace t = { 0 };
	struct llm_result res;
	char url[256];

	llm_config_defaults(&cfg);
	snprintf(url, sizeof(url), "%s/v1", stub);
	cfg.url = url;
	cfg.model = (char *)"m";
	cfg.timeout_ms = 1000;
	l = llm_new(&cfg);
	stub_script("[{\"delay_s\":3,\"text\":\"too late\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ETIMEDOUT);
	assert_non_null(strstr(res.error, "timed out"));
	assert_int_equal(res.attempts, 1);
	assert_int_equal(t.text_deltas, 0);
	llm_result_clear(&res);
	llm_free(l);
}

static void test_refused(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct llm_config cfg;
	struct llm *l;
	struct trace t = { 0 };
	struct llm_result res;
	char url[256];

	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	close(fd);
	llm_config_defaults(&cfg);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/v1", ntohs(a.sin_port));
	cfg.url = url;
	cfg.model = (char *)"m";
	cfg.api_key = (char *)CANARY;
	l = llm_new(&cfg);
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ECONNREFUSED);
	assert_non_null(strstr(res.error, "cannot connect to the LLM at http://127.0.0.1:"));
	llm_result_clear(&res);
	llm_free(l);
}

static void test_malformed(void **state)
{
	struct llm *l = client(LLM_OPENAI, 0);
	struct trace t = { 0 };
	struct llm_result res;

	stub_script("[{\"body\":\"{\\\"choices\\\": [ {\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EPROTO);
	assert_non_null(strstr(res.error, "not JSON"));
	llm_result_clear(&res);
	stub_script("[{\"json\":{\"unexpected\":true}}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EPROTO);
	assert_non_null(strstr(res.error, "no choices[0].message"));
	llm_result_clear(&res);
	llm_free(l);

	l = client(LLM_ANTHROPIC, 1);
	stub_script("[{\"chunks\":[\"event: message_start\\ndata: {not json}\\n\\n\"]}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EPROTO);
	assert_non_null(strstr(res.error, "is not JSON"));
	llm_result_clear(&res);
	/* an error event inside the stream */
	stub_script("[{\"chunks\":[\"event: error\\ndata: {\\\"type\\\":\\\"error\\\",\\\"error\\\":"
		    "{\\\"type\\\":\\\"overloaded_error\\\",\\\"message\\\":\\\"Overloaded\\\"}}\\n\\n\"]}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EIO);
	assert_non_null(strstr(res.error, "Overloaded"));
	llm_result_clear(&res);
	llm_free(l);
}

static void test_empty(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;

	stub_script("[{\"close\":true}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ENODATA);
	assert_non_null(strstr(res.error, "without replying"));
	llm_result_clear(&res);
	stub_script("[{\"body\":\"\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ENODATA);
	assert_non_null(strstr(res.error, "empty reply"));
	llm_result_clear(&res);
	stub_script("[{\"text\":\"\"}]"); /* a well-formed stream that says nothing */
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ENODATA);
	assert_non_null(strstr(res.error, "no text and no tool call"));
	llm_result_clear(&res);
	llm_free(l);
}

static void test_cut_mid_stream(void **state)
{
	struct trace t = { 0 };
	struct llm_result res;

	for (int p = 0; p < 2; p++) {
		struct llm *l = client(p ? LLM_ANTHROPIC : LLM_OPENAI, 1);

		memset(&t, 0, sizeof(t));
		stub_script("[{\"text\":\"a reply that will never finish, cut in the middle\","
			    "\"piece\":4,\"cut_after\":5}]");
		assert_int_equal(run(l, "turn", NULL, &t, &res), -ECONNRESET);
		assert_non_null(strstr(res.error, "cut off"));
		assert_true(t.text_deltas > 0); /* some text had come */
		llm_result_clear(&res);
		llm_free(l);
	}
}

static void test_cancel_then_reuse(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { .cancel_after = 2 };
	struct llm_result res;

	stub_script("[{\"text\":\"a slow reply, one piece at a time, that the person cancels\","
		    "\"piece\":3,\"chunk_delay_s\":0.1},{\"text\":\"next\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -ECANCELED);
	assert_true(t.text_deltas >= 2);
	llm_result_clear(&res);
	memset(&t, 0, sizeof(t));
	assert_int_equal(run(l, "turn", NULL, &t, &res), 0);
	assert_string_equal(res.text, "next");
	llm_result_clear(&res);
	llm_free(l);
}

/* A server that echoes the key in its error: the message keeps the server's
 * words, without the key, and says what to do. */
static void test_key_echoed_by_server(void **state)
{
	struct llm *l = client(LLM_OPENAI, 1);
	struct trace t = { 0 };
	struct llm_result res;

	stub_script("[{\"status\":401,\"error\":\"Incorrect API key provided: " CANARY "\"}]");
	assert_int_equal(run(l, "turn", NULL, &t, &res), -EIO);
	assert_non_null(strstr(res.error, "HTTP 401"));
	assert_non_null(strstr(res.error, "Incorrect API key provided: [redacted]"));
	assert_non_null(strstr(res.error, "check the API key"));
	llm_result_clear(&res);
	llm_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_openai_stream_text),
		cmocka_unit_test(test_openai_stream_tool),
		cmocka_unit_test(test_anthropic_stream),
		cmocka_unit_test(test_plain_json_both),
		cmocka_unit_test(test_dialect_ollama),
		cmocka_unit_test(test_dialect_llamacpp_thinking),
		cmocka_unit_test(test_dialect_llamacpp_text_call),
		cmocka_unit_test(test_anthropic_thinking),
		cmocka_unit_test(test_429_retry_after),
		cmocka_unit_test(test_500_gives_up),
		cmocka_unit_test(test_retry_after_too_long),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_cut_mid_stream),
		cmocka_unit_test(test_cancel_then_reuse),
		cmocka_unit_test(test_key_echoed_by_server),
	};
	int rc;

	stub = getenv("ARGUS_TEST_STUB_URL");
	if (!stub || !*stub) {
		printf("SKIPPED: ARGUS_TEST_STUB_URL is not set; tests/live/llm_stub.sh starts the "
		       "stub LLM server and runs this test\n");
		return 77;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
