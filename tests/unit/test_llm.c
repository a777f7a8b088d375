/* Unit tests of core/llm: the SSE parser over any split of its input, the
 * configuration's precedence and key-file refusal, the request bodies of
 * both providers, and the key's absence from every error text. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "agent/llm.h"

#define CANARY "sk-CANARY-7f3a9e21d4c8b6"

/* ---- SSE ------------------------------------------------------------------ */

struct collect {
	char out[4096];
	size_t len;
	int n;
	int stop_at;  /* return 1 at this event (1-based), 0: never */
};

static int collect_cb(const char *event, const char *data, size_t len, void *arg)
{
	struct collect *c = arg;

	assert_int_equal(strlen(data), len); /* NUL-terminated at len */
	c->len += snprintf(c->out + c->len, sizeof(c->out) - c->len, "[%s|%s]", event, data);
	c->n++;
	return c->stop_at && c->n == c->stop_at;
}

static const char sse_input[] =
	": a comment, ignored\r\n"
	"event: message_start\r\n"
	"data: {\"a\":1}\r\n"
	"\r\n"
	"data: line one\n"
	"data: line two\n"
	"id: 7\n"
	"retry: 100\n"
	"\n"
	":keep-alive\n\n"
	"event: ping\r"
	"data:no-space\r"
	"\r"
	"data\n"
	"\n"
	"event: empty-event-has-no-data\n"
	"\n"
	"data: [DONE]\n\n"
	"data: an unfinished event at the end\n";

static const char sse_expect[] =
	"[message_start|{\"a\":1}]"
	"[message|line one\nline two]"
	"[ping|no-space]"
	"[message|]"
	"[message|[DONE]]";

static void feed_split(const char *in, size_t len, size_t a, size_t b, struct collect *c)
{
	struct llm_sse p;

	llm_sse_init(&p);
	assert_int_equal(llm_sse_feed(&p, in, a, collect_cb, c), 0);
	assert_int_equal(llm_sse_feed(&p, in + a, b - a, collect_cb, c), 0);
	assert_int_equal(llm_sse_feed(&p, in + b, len - b, collect_cb, c), 0);
	llm_sse_clear(&p);
}

/* Every way of cutting the stream into three reads gives the same events. */
static void test_sse_splits(void **state)
{
	size_t len = strlen(sse_input);

	for (size_t a = 0; a <= len; a++) {
		for (size_t b = a; b <= len; b += (b < a + 3 ? 1 : 7)) {
			struct collect c = { 0 };

			feed_split(sse_input, len, a, b, &c);
			if (strcmp(c.out, sse_expect)) {
				print_error("split at %zu,%zu:\n got %s\nwant %s\n", a, b, c.out, sse_expect);
				fail();
			}
		}
	}
}

/* One byte per read: every CR/LF straddles a read. */
static void test_sse_bytewise(void **state)
{
	struct collect c = { 0 };
	struct llm_sse p;

	llm_sse_init(&p);
	for (size_t i = 0; sse_input[i]; i++)
		assert_int_equal(llm_sse_feed(&p, sse_input + i, 1, collect_cb, &c), 0);
	llm_sse_clear(&p);
	assert_string_equal(c.out, sse_expect);
	assert_int_equal(c.n, 5);
}

static void test_sse_stop_and_bound(void **state)
{
	struct collect c = { .stop_at = 2 };
	struct llm_sse p;
	char big[300];

	llm_sse_init(&p);
	assert_int_equal(llm_sse_feed(&p, sse_input, strlen(sse_input), collect_cb, &c), 1);
	assert_int_equal(c.n, 2);
	llm_sse_clear(&p);

	llm_sse_init(&p);
	p.max = 100;
	memset(big, 'x', sizeof(big));
	memcpy(big, "data: ", 6);
	assert_int_equal(llm_sse_feed(&p, big, sizeof(big), collect_cb, &c), -E2BIG);
	llm_sse_clear(&p);
	llm_sse_clear(NULL);
}

static int count_cb(const char *event, const char *data, size_t len, void *arg)
{
	(*(int *)arg)++;
	assert_true(strlen(event) < 64);
	assert_true(len <= 100);
	return 0;
}

/* Junk from the network: random bytes biased to the syntax, in random
 * pieces, never crash or overrun (ASan watches), lines stay bounded. */
static void test_sse_junk(void **state)
{
	static const char *const tok[] = {
		"data: ", "data:", "event: ", "id: 1", ":", "x", "{\"a\":1}", "[DONE]", "\r", "\n",
		"\r\n", "\n\n", " ", "\377", "retry",
	};
	unsigned seed = 12345;
	char buf[512];
	int events = 0;

	for (int iter = 0; iter < 3000; iter++) {
		struct llm_sse p;
		size_t n, off = 0;
		int rc = 0;

		llm_sse_init(&p);
		p.max = 100;
		seed = seed * 1103515245u + 12345u;
		n = seed % sizeof(buf);
		for (size_t i = 0; i < n;) {
			const char *t;
			size_t tl;

			seed = seed * 1103515245u + 12345u;
			t = tok[(seed >> 16) % (sizeof(tok) / sizeof(tok[0]))];
			tl = strlen(t);
			if ((seed >> 8) % 16 == 0) { /* now and then a raw byte, NUL included */
				buf[i++] = (char)(seed >> 24);
				continue;
			}
			if (tl > n - i)
				tl = n - i;
			memcpy(buf + i, t, tl);
			i += tl;
		}
		while (off < n && rc == 0) {
			size_t k;

			seed = seed * 1103515245u + 12345u;
			k = 1 + (seed >> 16) % 40;
			if (k > n - off)
				k = n - off;
			rc = llm_sse_feed(&p, buf + off, k, count_cb, &events);
			assert_true(rc == 0 || rc == -E2BIG);
			off += k;
		}
		llm_sse_clear(&p);
	}
	assert_true(events > 0);
}

/* ---- configuration ----------------------------------------------------------- */

static char tmpdir[64];

static void unset_env(void)
{
	static const char *vars[] = {
		"ARGUS_LLM_PROVIDER", "ARGUS_LLM_URL", "ARGUS_LLM_MODEL", "ARGUS_LLM_API_KEY",
		"ARGUS_LLM_API_KEY_FILE", "ARGUS_LLM_TIMEOUT_S", "ARGUS_LLM_CONNECT_TIMEOUT_S",
		"ARGUS_LLM_CONTEXT_TOKENS",
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

static int setup_tmp(void **state)
{
	strcpy(tmpdir, "/tmp/argus-test-llm.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	unset_env();
	return 0;
}

static int teardown_tmp(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	unset_env();
	return 0;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void test_config_nothing(void **state)
{
	struct llm_config cfg;
	char path[128], *cause = NULL;

	snprintf(path, sizeof(path), "%s/absent", tmpdir);
	assert_int_equal(llm_config_load_file(&cfg, path, &cause), -ENOENT);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "no LLM configured"));
	assert_null(cfg.url);
	free(cause);

	/* the XDG path: nothing there either */
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	cause = NULL;
	assert_int_equal(llm_config_load(&cfg, &cause), -ENOENT);
	free(cause);
}

static void test_config_precedence(void **state)
{
	struct llm_config cfg;
	char dir[128], path[160], keyf[160], text[512], *cause = NULL;

	snprintf(dir, sizeof(dir), "%s/argus", tmpdir);
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/config", dir);
	snprintf(keyf, sizeof(keyf), "%s/key", tmpdir);
	write_file(keyf, "  " CANARY "  \nsecond line ignored\n", 0600);
	snprintf(text, sizeof(text),
		 "# argus settings\n"
		 "provider = anthropic\n"
		 "url = http://127.0.0.1:9/v1/\n"
		 "model = file-model\n"
		 "api_key_file = %s\n"
		 "timeout_s = 30\n"
		 "theme = dark\n", keyf);
	write_file(path, text, 0644);
	setenv("XDG_CONFIG_HOME", tmpdir, 1);

	/* the file alone */
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.provider, LLM_ANTHROPIC);
	assert_string_equal(cfg.url, "http://127.0.0.1:9/v1"); /* trailing / dropped */
	assert_string_equal(cfg.model, "file-model");
	assert_string_equal(cfg.api_key, CANARY);
	assert_int_equal(cfg.timeout_ms, 30000);
	assert_int_equal(cfg.connect_timeout_ms, LLM_DEF_CONNECT_TIMEOUT_MS);
	assert_int_equal(cfg.max_retries, 3);
	assert_null(strstr(cfg.source, CANARY));
	llm_config_clear(&cfg);

	/* the environment wins, key by key */
	setenv("ARGUS_LLM_PROVIDER", "openai", 1);
	setenv("ARGUS_LLM_MODEL", "env-model", 1);
	setenv("ARGUS_LLM_API_KEY", "env-key", 1);
	setenv("ARGUS_LLM_TIMEOUT_S", "5", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.provider, LLM_OPENAI);
	assert_string_equal(cfg.url, "http://127.0.0.1:9/v1");
	assert_string_equal(cfg.model, "env-model");
	assert_string_equal(cfg.api_key, "env-key");
	assert_int_equal(cfg.timeout_ms, 5000);
	llm_config_clear(&cfg);

	/* ARGUS_LLM_API_KEY_FILE over the file's api_key_file, below ARGUS_LLM_API_KEY */
	unsetenv("ARGUS_LLM_API_KEY");
	snprintf(text, sizeof(text), "%s/key2", tmpdir);
	write_file(text, "other-key\n", 0400);
	setenv("ARGUS_LLM_API_KEY_FILE", text, 1);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_string_equal(cfg.api_key, "other-key");
	llm_config_clear(&cfg);

	/* bad values are refused with the reason */
	setenv("ARGUS_LLM_PROVIDER", "gemini", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "unknown LLM provider 'gemini'"));
	free(cause);
	cause = NULL;
	setenv("ARGUS_LLM_PROVIDER", "openai", 1);
	setenv("ARGUS_LLM_URL", "ftp://x/", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "not an http:// or https:// URL"));
	free(cause);
	cause = NULL;
	unsetenv("ARGUS_LLM_URL");
	setenv("ARGUS_LLM_TIMEOUT_S", "soon", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "timeout_s 'soon'"));
	free(cause);
	cause = NULL;
	unsetenv("ARGUS_LLM_TIMEOUT_S");

	/* no model */
	unset_env();
	write_file(path, "url = http://127.0.0.1:9/v1\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "no LLM model configured"));
	free(cause);
	cause = NULL;

	/* a default URL per provider; the key itself is never read from the config */
	setenv("ARGUS_LLM_PROVIDER", "anthropic", 1);
	setenv("ARGUS_LLM_MODEL", "m", 1);
	write_file(path, "", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_string_equal(cfg.url, "https://api.anthropic.com/v1");
	assert_null(cfg.api_key);
	llm_config_clear(&cfg);
	write_file(path, "api_key = " CANARY "\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "api_key is not read from the config file"));
	assert_null(strstr(cause, CANARY));
	free(cause);
	cause = NULL;
	write_file(path, "no equals sign here\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "line 1: expected key = value"));
	free(cause);
}

/* context_tokens: the default, the file, the environment over it, bounds */
static void test_config_context(void **state)
{
	struct llm_config cfg;
	char dir[128], path[160], *cause = NULL;

	snprintf(dir, sizeof(dir), "%s/argus", tmpdir);
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/config", dir);
	setenv("XDG_CONFIG_HOME", tmpdir, 1);
	write_file(path, "url = http://127.0.0.1:9/v1\nmodel = m\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, LLM_DEF_CONTEXT_TOKENS);
	assert_int_equal(cfg.context_tokens, 8192);
	/* the reply keeps an eighth of it */
	assert_int_equal(llm_prompt_budget(&cfg), 8192 - 1024);
	llm_config_clear(&cfg);
	write_file(path, "url = http://127.0.0.1:9/v1\nmodel = m\ncontext_tokens = 32768\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, 32768);
	/* max_tokens (4096) is less than an eighth: all of it is kept */
	assert_int_equal(llm_prompt_budget(&cfg), 32768 - 4096);
	llm_config_clear(&cfg);
	/* the hosted APIs: 128000 unless said */
	write_file(path, "provider = anthropic\nmodel = m\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, LLM_DEF_CONTEXT_TOKENS_API);
	llm_config_clear(&cfg);
	write_file(path, "model = m\n", 0600); /* https://api.openai.com/v1 */
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, 128000);
	llm_config_clear(&cfg);
	write_file(path, "model = m\ncontext_tokens = 16384\n", 0600);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, 16384);
	llm_config_clear(&cfg);
	setenv("ARGUS_LLM_CONTEXT_TOKENS", "4096", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), 0);
	assert_int_equal(cfg.context_tokens, 4096);
	llm_config_clear(&cfg);
	setenv("ARGUS_LLM_CONTEXT_TOKENS", "100", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	assert_non_null(strstr(cause, "context_tokens '100' is not a number of tokens in 512.."));
	free(cause);
	cause = NULL;
	setenv("ARGUS_LLM_CONTEXT_TOKENS", "8k", 1);
	assert_int_equal(llm_config_load(&cfg, &cause), -EINVAL);
	free(cause);
	unsetenv("ARGUS_LLM_CONTEXT_TOKENS");
}

/* The estimate errs high: a digit or a non-ASCII byte is a token, the rest
 * 3.5 bytes a token, rounded up. */
static void test_tokens_estimate(void **state)
{
	const char *words = "handle_mm_fault do_anonymous_page"; /* 33 bytes */
	struct llm_msg m[2] = { { LLM_USER, "abcdefg" }, { LLM_ASSISTANT, "1234567" } };

	assert_int_equal(llm_tokens_estimate("", 0), 0);
	assert_int_equal(llm_tokens_estimate(NULL, 5), 0);
	assert_int_equal(llm_tokens_estimate("abcdefg", 7), 2);
	assert_int_equal(llm_tokens_estimate("abcdefgh", 8), 3);
	assert_int_equal(llm_tokens_estimate(words, strlen(words)), 10);
	assert_int_equal(llm_tokens_estimate("1234567", 7), 7);
	assert_int_equal(llm_tokens_estimate("delta +395", 10), 3 + 2);
	assert_int_equal(llm_tokens_estimate("\xe2\x80\xa6", 3), 3); /* … */
	/* more than the bytes over four (what real tokenizers come to on text) */
	assert_true(llm_tokens_estimate(words, strlen(words)) * 4 > strlen(words));
	/* a request: the texts, 8 a message for the template, 8 for the reply's
	 * opening, 160 for the tool's wrapper */
	assert_int_equal(llm_prompt_tokens(m, 2, NULL, NULL), 8 + (8 + 2) + (8 + 7));
	assert_int_equal(llm_prompt_tokens(m, 1, "abcdefg", "{}"), 8 + (8 + 2) + (8 + 2) + (160 + 1));
	assert_int_equal(llm_prompt_tokens(NULL, 0, NULL, NULL), 8);
}

static void test_config_key_file_mode(void **state)
{
	struct llm_config cfg;
	char keyf[160], want[512], *cause = NULL, *key = NULL;

	snprintf(keyf, sizeof(keyf), "%s/key", tmpdir);
	write_file(keyf, CANARY "\n", 0644);
	setenv("ARGUS_LLM_URL", "http://127.0.0.1:9/v1", 1);
	setenv("ARGUS_LLM_MODEL", "m", 1);
	setenv("ARGUS_LLM_API_KEY_FILE", keyf, 1);
	assert_int_equal(llm_config_load_file(&cfg, NULL, &cause), -EPERM);
	snprintf(want, sizeof(want),
		 "api key file %s is readable by others (mode 0644); chmod 600 %s", keyf, keyf);
	assert_string_equal(cause, want);
	assert_null(cfg.api_key);
	free(cause);
	cause = NULL;

	assert_int_equal(chmod(keyf, 0640), 0);
	assert_int_equal(llm_key_file_read(keyf, &key, &cause), -EPERM);
	assert_non_null(strstr(cause, "(mode 0640)"));
	free(cause);
	cause = NULL;

	assert_int_equal(chmod(keyf, 0600), 0);
	assert_int_equal(llm_config_load_file(&cfg, NULL, &cause), 0);
	assert_string_equal(cfg.api_key, CANARY);
	llm_config_clear(&cfg);

	write_file(keyf, "\n", 0600);
	assert_int_equal(llm_key_file_read(keyf, &key, &cause), -EINVAL);
	assert_non_null(strstr(cause, "is empty"));
	free(cause);
	cause = NULL;
	write_file(keyf, "abc\001def\n", 0600);
	assert_int_equal(llm_key_file_read(keyf, &key, &cause), -EINVAL);
	assert_null(strstr(cause, "abc"));
	free(cause);
	cause = NULL;
	snprintf(want, sizeof(want), "%s/none", tmpdir);
	assert_int_equal(llm_key_file_read(want, &key, &cause), -ENOENT);
	assert_non_null(strstr(cause, "cannot open api key file"));
	free(cause);
}

/* ---- request bodies ------------------------------------------------------------ */

static const char schema[] =
	"{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"$id\":\"step\","
	"\"type\":\"object\",\"required\":[\"kind\"],"
	"\"properties\":{\"kind\":{\"type\":\"string\",\"enum\":[\"sample\"]}}}";

static void cfg_for(struct llm_config *cfg, enum llm_provider p)
{
	llm_config_defaults(cfg);
	cfg->provider = p;
	cfg->url = (char *)"http://127.0.0.1:9/v1";
	cfg->model = (char *)"test-model";
}

static void test_body_openai(void **state)
{
	struct llm_msg msgs[] = {
		{ LLM_USER, "the tree: mm +40%" },
		{ LLM_ASSISTANT, "{\"kind\":\"nope\"}" },
		{ LLM_USER, "that failed: unknown kind \"nope\"" },
	};
	struct llm_config cfg;
	char *body, *cause = NULL;
	cJSON *root, *m, *tool, *params;

	cfg_for(&cfg, LLM_OPENAI);
	body = llm_body_build(&cfg, msgs, 3, "you are argus", schema, &cause);
	assert_non_null(body);
	root = cJSON_Parse(body);
	assert_non_null(root);
	assert_string_equal(cJSON_GetObjectItem(root, "model")->valuestring, "test-model");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "stream")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "stream_options"),
						     "include_usage")));
	m = cJSON_GetObjectItem(root, "messages");
	assert_int_equal(cJSON_GetArraySize(m), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 0), "role")->valuestring, "system");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 0), "content")->valuestring,
			    "you are argus");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 2), "role")->valuestring, "assistant");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 3), "content")->valuestring,
			    "that failed: unknown kind \"nope\"");
	tool = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tools"), 0);
	assert_string_equal(cJSON_GetObjectItem(tool, "type")->valuestring, "function");
	tool = cJSON_GetObjectItem(tool, "function");
	assert_string_equal(cJSON_GetObjectItem(tool, "name")->valuestring, LLM_TOOL_NAME);
	params = cJSON_GetObjectItem(tool, "parameters");
	assert_string_equal(cJSON_GetObjectItem(params, "type")->valuestring, "object");
	assert_null(cJSON_GetObjectItem(params, "$schema"));
	assert_null(cJSON_GetObjectItem(params, "$id"));
	assert_null(cJSON_GetObjectItem(root, "system"));
	cJSON_Delete(root);
	free(body);

	/* not streamed, no tool, no system */
	cfg.stream = 0;
	body = llm_body_build(&cfg, msgs, 1, NULL, NULL, &cause);
	root = cJSON_Parse(body);
	assert_null(cJSON_GetObjectItem(root, "stream"));
	assert_null(cJSON_GetObjectItem(root, "tools"));
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "messages")), 1);
	cJSON_Delete(root);
	free(body);

	/* a schema that does not parse */
	body = llm_body_build(&cfg, msgs, 1, NULL, "{\"type\": ", &cause);
	assert_null(body);
	assert_int_equal(errno, EINVAL);
	assert_non_null(strstr(cause, "step schema is not a JSON object"));
	free(cause);
}

static void test_body_anthropic(void **state)
{
	struct llm_msg msgs[] = { { LLM_USER, "hello" } };
	struct llm_config cfg;
	char *body, *cause = NULL;
	cJSON *root, *m, *tool;

	cfg_for(&cfg, LLM_ANTHROPIC);
	cfg.max_tokens = 1234;
	body = llm_body_build(&cfg, msgs, 1, "you are argus", schema, &cause);
	assert_non_null(body);
	root = cJSON_Parse(body);
	assert_non_null(root);
	assert_string_equal(cJSON_GetObjectItem(root, "system")->valuestring, "you are argus");
	assert_int_equal(cJSON_GetObjectItem(root, "max_tokens")->valueint, 1234);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(root, "stream")));
	assert_null(cJSON_GetObjectItem(root, "stream_options"));
	m = cJSON_GetObjectItem(root, "messages");
	assert_int_equal(cJSON_GetArraySize(m), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(m, 0), "role")->valuestring, "user");
	tool = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tools"), 0);
	assert_string_equal(cJSON_GetObjectItem(tool, "name")->valuestring, LLM_TOOL_NAME);
	assert_null(cJSON_GetObjectItem(tool, "type"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(tool, "input_schema"), "type")
			    ->valuestring, "object");
	cJSON_Delete(root);
	free(body);
}

/* ---- the key in errors ------------------------------------------------------------ */

static void test_scrub(void **state)
{
	char s[] = "x " CANARY " y " CANARY;
	char t[] = "abcSECabc";

	assert_string_equal(llm_scrub(s, CANARY), "x [redacted] y [redacted]");
	assert_string_equal(llm_scrub(t, "SEC"), "abc***abc");
	assert_null(llm_scrub(NULL, "x"));
}

static int free_port(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &al), 0);
	close(fd); /* nobody listens there now: connections are refused */
	return ntohs(a.sin_port);
}

/* Connection refused, with the key in the header and even in the URL's
 * user part: the error says what happened and never holds the key. */
static void test_refused_no_key(void **state)
{
	struct llm_msg msg = { LLM_USER, "hi" };
	struct llm_result res = { 0 };
	struct llm_config cfg;
	char url[128];
	struct llm *l;

	snprintf(url, sizeof(url), "http://u:" CANARY "@127.0.0.1:%d/v1", free_port());
	cfg_for(&cfg, LLM_OPENAI);
	cfg.url = url;
	cfg.api_key = (char *)CANARY;
	l = llm_new(&cfg);
	assert_non_null(l);
	assert_int_equal(llm_request_poll(l, &res), -ENOENT);
	assert_int_equal(llm_request_start(l, &msg, 1, NULL, NULL, NULL, NULL), 0);
	assert_int_equal(llm_request_start(l, &msg, 1, NULL, NULL, NULL, NULL), -EBUSY);
	assert_int_equal(llm_request_wait(l, &res, 20000), -ECONNREFUSED);
	assert_non_null(res.error);
	assert_non_null(strstr(res.error, "cannot connect to the LLM"));
	assert_null(strstr(res.error, CANARY));
	assert_int_equal(res.attempts, 1); /* connection errors are not retried */
	llm_result_clear(&res);

	/* cancel: nothing left in flight, the next poll says so */
	assert_int_equal(llm_request_start(l, &msg, 1, NULL, NULL, NULL, NULL), 0);
	llm_cancel(l);
	assert_int_equal(llm_request_poll(l, &res), -ECANCELED);
	assert_int_equal(llm_pollfds(l, NULL, 0), 0);
	assert_int_equal(llm_timeout_ms(l), -1);
	llm_result_clear(&res);
	llm_free(l);
	llm_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sse_splits),
		cmocka_unit_test(test_sse_bytewise),
		cmocka_unit_test(test_sse_stop_and_bound),
		cmocka_unit_test(test_sse_junk),
		cmocka_unit_test_setup_teardown(test_config_nothing, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_config_precedence, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_config_key_file_mode, setup_tmp, teardown_tmp),
		cmocka_unit_test_setup_teardown(test_config_context, setup_tmp, teardown_tmp),
		cmocka_unit_test(test_tokens_estimate),
		cmocka_unit_test(test_body_openai),
		cmocka_unit_test(test_body_anthropic),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_refused_no_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
