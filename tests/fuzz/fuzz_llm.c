/* fuzz_llm — libFuzzer target for the LLM reply parsers (llm_reply_parse):
 * OpenAI chat completions and Anthropic messages, whole JSON bodies and SSE
 * streams.  The first input byte picks the API (bit 0) and the form (bit 1:
 * a stream); the rest is the reply.  Properties beyond "no crash, no leak":
 * a parsed reply has text (maybe ""), and neither it, the thinking, the tool
 * name nor an error message holds a control byte that could drive a terminal
 * (core/base/sanitize.h); a failure always explains itself. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent/llm.h"
#include "base/sanitize.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct llm *fuzz_llm[2];

static struct llm *fuzz_client(int anthropic)
{
	struct llm_config cfg;

	if (fuzz_llm[anthropic])
		return fuzz_llm[anthropic];
	llm_config_defaults(&cfg);
	cfg.provider = anthropic ? LLM_ANTHROPIC : LLM_OPENAI;
	cfg.url = strdup("http://127.0.0.1:9/v1");
	cfg.model = strdup("fuzz");
	cfg.api_key = strdup("sk-fuzz");
	fuzz_llm[anthropic] = llm_new(&cfg);
	llm_config_clear(&cfg);
	if (!fuzz_llm[anthropic])
		abort();
	return fuzz_llm[anthropic];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct llm_result res;
	int rc;

	if (!size)
		return 0;
	rc = llm_reply_parse(fuzz_client(data[0] & 1), (const char *)data + 1, size - 1,
			     (data[0] >> 1) & 1, &res);
	if (rc == 0) {
		if (!res.text || !sanitize_is_clean(res.text, SANITIZE_JSON_TEXT) ||
		    !sanitize_is_clean(res.thinking, SANITIZE_JSON_TEXT) ||
		    !sanitize_is_clean(res.tool_name, 0) || !sanitize_is_clean(res.stop_reason, 0))
			abort();
	} else {
		if (!res.error || !*res.error)
			abort(); /* every failure says why */
		for (const char *p = res.error; *p; p++)
			if (*p == '\033' || *p == '\007')
				abort();
	}
	llm_result_clear(&res);
	return 0;
}
