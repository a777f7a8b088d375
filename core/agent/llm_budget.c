/* llm_budget — how many tokens a prompt is, estimated without a tokenizer,
 * and how many the server's context leaves for it (see llm.h).
 *
 * Local servers do not say no politely: Ollama cuts a prompt longer than its
 * num_ctx from the front without an error (the system prompt and the tree's
 * top go first), llama-server refuses it (HTTP 400 or 500,
 * exceed_context_size_error).  So argus keeps its prompts under the budget
 * itself, which needs a token count before sending; a tokenizer per model
 * family is not something to ship, so the count is an estimate that errs
 * high: a prompt it passes fits. */
#include <stddef.h>

#include "agent/llm.h"

/* Per message, the chat template's role markers and separators (ChatML's
 * "<|im_start|>user\n ... <|im_end|>\n" is 5 tokens; Llama 3's header
 * tokens 4-5): 8 covers them. */
#define BUDGET_MSG_TOKENS 8u
/* The tool's wrapper when a template renders the definitions as text (the
 * "# Tools ... <tools></tools>" preamble of Qwen-style templates is about
 * 100 tokens besides the schema itself). */
#define BUDGET_TOOL_TOKENS 160u

/* Estimated tokens of s[0..n):
 *  - a digit is a token: Qwen, Llama 2, Mistral and Gemma split numbers
 *    into single digits (Llama 3 into groups of up to three), and the tree
 *    is mostly numbers;
 *  - a byte outside ASCII is a token: byte-level BPE often keeps the bytes
 *    of a rare character ("…", "◆") apart;
 *  - the rest at 3.5 bytes a token, rounded up: English prose is about 4 to
 *    4.5 bytes a token in these tokenizers, kernel symbol names and JSON
 *    (underscores, quotes, braces) about 4; 3.5 keeps a margin of an eighth
 *    or more on the text argus sends.  Runs of spaces (the tree's
 *    indentation) count byte for byte, though tokenizers merge them: more
 *    margin. */
size_t llm_tokens_estimate(const char *s, size_t n)
{
	size_t digits = 0, wide = 0;

	if (!s)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= '0' && c <= '9')
			digits++;
		else if (c >= 0x80)
			wide++;
	}
	/* ceil(rest / 3.5) = ceil(2 rest / 7) */
	return digits + wide + (2 * (n - digits - wide) + 6) / 7;
}

static size_t text_tokens(const char *s)
{
	size_t n = 0;

	if (!s)
		return 0;
	while (s[n])
		n++;
	return llm_tokens_estimate(s, n);
}

size_t llm_prompt_tokens(const struct llm_msg *msgs, size_t n, const char *system,
			 const char *tool_schema_json)
{
	size_t t = BUDGET_MSG_TOKENS; /* the assistant's opening marker */

	if (system && *system)
		t += BUDGET_MSG_TOKENS + text_tokens(system);
	if (tool_schema_json && *tool_schema_json)
		t += BUDGET_TOOL_TOKENS + text_tokens(tool_schema_json);
	for (size_t i = 0; i < n; i++)
		t += BUDGET_MSG_TOKENS + text_tokens(msgs[i].content);
	return t;
}

/* The reply needs room in the same context: max_tokens, but at most an
 * eighth of the context, so that a max_tokens meant for a large context
 * does not leave a small one nothing.  argus's replies are a few lines and
 * one step, a few hundred tokens: 1024 of the default 8192 is plenty (a
 * thinking model's reasoning may need a larger context). */
size_t llm_prompt_budget(const struct llm_config *cfg)
{
	size_t ctx = cfg->context_tokens ? cfg->context_tokens : LLM_DEF_CONTEXT_TOKENS;
	size_t reply = cfg->max_tokens ? cfg->max_tokens : LLM_DEF_MAX_TOKENS;

	if (reply > ctx / 8)
		reply = ctx / 8;
	return ctx - reply;
}
