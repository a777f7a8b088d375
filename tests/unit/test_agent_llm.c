/* core/agent_llm: the prompt pieces (template, the tree pruned to a budget,
 * JSON found in a reply) always; and, when ARGUS_TEST_STUB_URL names a
 * running tests/llm_stub.py (tests/live/llm_stub.sh), whole turns over HTTP:
 * a proposal by tool call, a repair turn that quotes the validator's error,
 * a second failure handed back for the heuristic agent, a verdict grounded in
 * the tree, and the person's veto reaching the next prompt. */
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "agent/agent_llm.h"
#include "agent/agent_llm_int.h"
#include "base/redact.h"

#define CANARY "sk-CANARY-5b1e0c77a9f2d3"

/* ---- a small calibrated tree, built by hand ------------------------------------ */

static struct tree_node *node(struct tree_node *parent, const char *name, double ref, double load,
			      int sig)
{
	struct tree_node *n = calloc(1, sizeof(*n));

	assert_non_null(n);
	n->name = name;
	n->kind = parent ? TREE_FRAME : TREE_ROOT;
	n->parent = parent;
	n->depth = parent ? parent->depth + 1 : 0;
	n->stat.rate[COND_REF] = ref;
	n->stat.rate[COND_LOAD] = load;
	n->stat.delta = load - ref;
	n->stat.ratio = ref > 0 ? load / ref : 1e9;
	n->stat.q = sig ? 1e-9 : 0.7;
	n->stat.significant = sig;
	n->stat.pairs = 4;
	n->stat.pairs_agree = sig ? 4 : 2;
	n->total[COND_REF] = (uint64_t)ref * 10;
	n->total[COND_LOAD] = (uint64_t)load * 10;
	if (parent) {
		parent->child = realloc(parent->child, (parent->nchild + 1) * sizeof(*parent->child));
		assert_non_null(parent->child);
		parent->child[parent->nchild++] = n;
	}
	return n;
}

static void node_free(struct tree_node *n)
{
	for (unsigned i = 0; i < n->nchild; i++)
		node_free(n->child[i]);
	free(n->child);
	free(n);
}

static char names[40][32];
static struct tree tree;
static struct tree_node *fault_node;

static void tree_make(void)
{
	struct tree_node *root = node(NULL, "all", 100, 520, 1);
	struct tree_node *mm = node(root, "mm", 10, 420, 1);
	struct tree_node *sched = node(root, "sched", 50, 52, 0);
	struct tree_node *f;

	f = node(mm, "do_user_addr_fault", 5, 400, 1);
	fault_node = node(f, "handle_mm_fault", 5, 395, 1);
	node(fault_node, "do_huge_pmd_anonymous_page", 1, 380, 1);
	node(mm, "kswapd", 4, 6, 0);
	for (int i = 0; i < 30; i++) {
		snprintf(names[i], sizeof(names[i]), "sched_noise_%02d", i);
		node(sched, names[i], 1.5, 1.6, 0);
	}
	memset(&tree, 0, sizeof(tree));
	tree.root = root;
	tree.nnodes = 37;
}

static int tree_setup(void **state)
{
	tree_make();
	return 0;
}

static int tree_teardown(void **state)
{
	node_free(tree.root);
	tree.root = NULL;
	return 0;
}

/* ---- pure pieces ---------------------------------------------------------------- */

static void test_template(void **state)
{
	const char *n[] = { "A", "LONG_NAME" };
	const char *v[] = { "1", "two {{A}}" };
	char *s = agent_llm_template("x {{A}} y {{LONG_NAME}} z {{UNKNOWN}} {{", n, v, 2);

	assert_string_equal(s, "x 1 y two {{A}} z {{UNKNOWN}} {{");
	free(s);
}

static void test_extract_json(void **state)
{
	char *s;

	s = agent_llm_extract_json("reasoning\n```json\n{\"kind\": \"sample\"}\n```\nbye");
	assert_string_equal(s, "{\"kind\": \"sample\"}\n");
	free(s);
	s = agent_llm_extract_json("  {\"verdict\": {\"found\": false}}  ");
	assert_string_equal(s, "{\"verdict\": {\"found\": false}}");
	free(s);
	s = agent_llm_extract_json("```\nnot json\n```\nthen {\"a\":1} end");
	assert_string_equal(s, "{\"a\":1}");
	free(s);
	assert_null(agent_llm_extract_json("no json at all"));
	assert_null(agent_llm_extract_json(NULL));
}

static void test_render_tree(void **state)
{
	char *full = agent_llm_render_tree(&tree, NULL, 100000);
	char *small = agent_llm_render_tree(&tree, NULL, 700);
	char *mid = agent_llm_render_tree(&tree, NULL, 900);
	char *focus = agent_llm_render_tree(&tree, tree.root->child[1]->child[29], 900);

	/* everything fits: every node, root first, indented by depth */
	assert_non_null(strstr(full, "sched_noise_29"));
	assert_non_null(strstr(full, "\n    do_user_addr_fault  ref 5  load 400  delta +395"));
	assert_non_null(strstr(full, "SIG"));
	/* pruned: the significant path stays, the noise goes, and says so */
	printf("# rendered tree, 700-byte budget:\n%s", small);
	assert_true(strlen(small) <= 700);
	assert_non_null(strstr(small, "\n… 30 of 37 nodes pruned to fit the prompt budget"));
	assert_null(strstr(full, "nodes pruned"));
	assert_non_null(strstr(small, "do_huge_pmd_anonymous_page"));
	assert_null(strstr(small, "sched_noise_"));
	assert_non_null(strstr(small, "  sched  ref 50  load 52  delta +2  x1.04  q 0.7  (+30 children)"));
	/* a larger budget lets some of the noise in, and counts the rest */
	assert_true(strlen(mid) <= 900);
	assert_non_null(strstr(mid, "sched_noise_00"));
	assert_null(strstr(mid, "sched_noise_29"));
	assert_non_null(strstr(mid, " more)"));
	/* the focus is kept whatever its rank, and marked */
	assert_non_null(strstr(focus, "sched_noise_29"));
	assert_non_null(strstr(focus, "<- FOCUS"));
	assert_non_null(strstr(focus, " more)"));
	assert_non_null(strstr(focus, "do_user_addr_fault"));
	free(full);
	free(small);
	free(mid);
	free(focus);
	full = agent_llm_render_tree(NULL, NULL, 0);
	assert_non_null(strstr(full, "(no tree"));
	free(full);
}

/* ---- the prompt budget -------------------------------------------------------------- */

/* A tree like a real one: the path the descent marked (TREE_F_VERDICT,
 * chain[0..depth)) with two quiet siblings at each level, and a large
 * "sched" subsystem of nbig nodes whose deltas span 0.01 .. nbig/100
 * (some of them larger than the siblings'). */
#define BIG_DEPTH 8
static char big_names[2200][48];
static struct tree big;
static struct tree_node *chain[BIG_DEPTH], *sibs[BIG_DEPTH][2], *big_top, *big_bottom, *branch2;

static void big_make(unsigned nbig)
{
	struct tree_node *root = node(NULL, "all", 100, 900, 1), *p, *sched;
	unsigned k = 0;

	memset(&big, 0, sizeof(big));
	big.root = root;
	p = node(root, "mm", 10, 800, 1);
	p->flags |= TREE_F_VERDICT;
	for (unsigned d = 0; d < BIG_DEPTH; d++) {
		snprintf(big_names[k], sizeof(big_names[k]), "path_%u", d);
		chain[d] = node(p, big_names[k++], 5, 700 - d, 1);
		chain[d]->flags |= TREE_F_VERDICT;
		for (int j = 0; j < 2; j++) {
			snprintf(big_names[k], sizeof(big_names[k]), "sib_%u_%d", d, j);
			sibs[d][j] = node(p, big_names[k++], 1, 1.2, 0);
		}
		p = chain[d];
	}
	/* a second branch the descent flagged, smaller: sent before the noise,
	 * not part of the minimal path */
	branch2 = node(root, "syscall", 5, 300, 1);
	branch2->flags |= TREE_F_VERDICT;
	branch2 = node(branch2, "do_syscall_64", 5, 300, 1);
	branch2->flags |= TREE_F_VERDICT;
	sched = node(root, "sched", 50, 60, 0);
	big_top = big_bottom = NULL;
	for (unsigned i = 0; i < nbig; i++) {
		struct tree_node *x;

		snprintf(big_names[k], sizeof(big_names[k]), "noise_%04u", i);
		x = node(sched, big_names[k++], 1, 1 + (i + 1) / 100.0, 0);
		if (!big_top || x->stat.delta > big_top->stat.delta)
			big_top = x;
		if (!big_bottom || x->stat.delta < big_bottom->stat.delta)
			big_bottom = x;
	}
	big.nnodes = 2 + 3 * BIG_DEPTH + 2 + 1 + nbig;
}

static size_t count_lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static int has_line_of(const char *text, const char *name)
{
	char key[80];
	const char *p = text;

	snprintf(key, sizeof(key), "%s  ref ", name);
	while ((p = strstr(p, key))) {
		if (p == text || p[-1] == ' ')
			return 1;
		p++;
	}
	return 0;
}

static void test_render_tree_fit(void **state)
{
	struct agent_llm_tree_fit fit;
	char marker[96], *s;
	size_t total;

	big_make(1500);
	total = big.nnodes;
	/* everything: no marker */
	s = agent_llm_render_tree_fit(&big, NULL, SIZE_MAX, &fit);
	assert_int_equal(fit.nodes, total);
	assert_int_equal(fit.sent, total);
	assert_int_equal(count_lines(s), total);
	assert_null(strstr(s, "nodes pruned"));
	free(s);

	/* a budget: respected, the path and its siblings kept, the smallest
	 * deltas gone first, the marker says how many */
	s = agent_llm_render_tree_fit(&big, NULL, 4000, &fit);
	printf("# %zu of %zu nodes in 4000 bytes (%zu the path under study)\n", fit.sent, fit.nodes,
	       fit.must);
	assert_true(strlen(s) <= 4000);
	assert_int_equal(fit.nodes, total);
	assert_true(fit.sent < total && fit.sent > fit.must);
	assert_int_equal(fit.must, 2 + BIG_DEPTH); /* all, mm, the chain */
	assert_int_equal(count_lines(s), fit.sent + 1);
	snprintf(marker, sizeof(marker), "\n… %zu of %zu nodes pruned", total - fit.sent, total);
	assert_non_null(strstr(s, marker));
	for (unsigned d = 0; d < BIG_DEPTH; d++) {
		assert_true(has_line_of(s, chain[d]->name));
		assert_true(has_line_of(s, sibs[d][0]->name));
		assert_true(has_line_of(s, sibs[d][1]->name));
	}
	assert_true(has_line_of(s, big_top->name));
	assert_false(has_line_of(s, big_bottom->name));
	assert_true(has_line_of(s, "do_syscall_64"));
	free(s);

	/* no budget: the path under study alone, still marked */
	s = agent_llm_render_tree_fit(&big, NULL, 0, &fit);
	assert_int_equal(fit.sent, fit.must);
	assert_int_equal(count_lines(s), fit.must + 1);
	assert_true(has_line_of(s, chain[BIG_DEPTH - 1]->name));
	assert_false(has_line_of(s, sibs[0][0]->name));
	assert_false(has_line_of(s, "do_syscall_64")); /* the main path only */
	assert_non_null(strstr(s, "nodes pruned to fit the prompt budget"));
	free(s);

	/* the person's focus joins the path, whatever its rank */
	s = agent_llm_render_tree_fit(&big, big_bottom, 0, &fit);
	assert_true(has_line_of(s, big_bottom->name));
	assert_non_null(strstr(s, "<- FOCUS"));
	free(s);
	node_free(big.root);
}

static struct agent *budget_agent(unsigned context_tokens, size_t tree_cap, char **cause)
{
	struct agent_llm_opts o = { .tree_budget = tree_cap };
	struct llm_config cfg;

	llm_config_defaults(&cfg);
	cfg.url = (char *)"http://127.0.0.1:9/v1"; /* never answers: turns stay in flight */
	cfg.model = (char *)"m";
	cfg.context_tokens = context_tokens;
	cfg.connect_timeout_ms = 100;
	cfg.max_retries = 0;
	return agent_llm_new(&cfg, &o, cause);
}

/* The turn's prompt as sent: within the budget, with the warning. */
static void test_turn_fits_context(void **state)
{
	struct agent_ctx ctx = { .tree = &big, .step_max = 4 };
	struct agent_reply r = { 0 };
	struct agent_llm *al;
	struct llm_config cfg;
	struct llm_msg m;
	char *cause = NULL, want[96];
	struct agent *a;
	size_t tok, sent8k;

	big_make(1500);
	/* too small for even the system prompt and the tool schema: said at once */
	assert_null(budget_agent(2048, 0, &cause));
	assert_int_equal(errno, E2BIG);
	printf("# %s\n", cause);
	assert_non_null(strstr(cause, "the LLM's context of 2048 tokens cannot hold argus's prompt"));
	assert_non_null(strstr(cause, "set context_tokens (ARGUS_LLM_CONTEXT_TOKENS) to "));
	free(cause);
	cause = NULL;

	/* 8192 with the tree uncapped: the context cuts it.  The fixed part
	 * was 6223 estimated tokens while system.txt embedded the step schema
	 * the tool sends too (28 of these 1529 nodes went), 3991 since. */
	a = budget_agent(8192, SIZE_MAX, &cause);
	assert_non_null(a);
	al = a->priv;
	assert_int_equal(a->ops->turn(a, &ctx, &r), -EINPROGRESS);
	llm_config_defaults(&cfg);
	cfg.context_tokens = 8192;
	m.role = LLM_USER;
	m.content = al->turn_text;
	tok = llm_prompt_tokens(&m, 1, al->system, al->schema);
	printf("# prompt: %zu tokens estimated, budget %zu; the fixed part (system prompt, "
	       "tool) %zu; %s\n", tok, llm_prompt_budget(&cfg),
	       llm_prompt_tokens(NULL, 0, al->system, al->schema), agent_llm_note(a));
	assert_true(tok <= llm_prompt_budget(&cfg));
	/* it took the budget, not a trifle of it */
	assert_true(tok + 400 > llm_prompt_budget(&cfg));
	/* the schema once, as the tool: the fixed part leaves the tree room */
	assert_true(llm_prompt_tokens(NULL, 0, al->system, al->schema) < 4500);
	snprintf(want, sizeof(want), "prompt pruned to fit 8192 tokens: %zu of %zu nodes sent",
		 al->fit.sent, big.nnodes);
	assert_string_equal(agent_llm_note(a), want);
	assert_true(al->fit.sent < big.nnodes);
	assert_true(al->fit.sent > 60);
	assert_non_null(strstr(al->turn_text, "nodes pruned to fit the prompt budget"));
	assert_true(has_line_of(al->turn_text, chain[BIG_DEPTH - 1]->name));
	sent8k = al->fit.sent;
	a->ops->cancel(a);
	agent_free(a);

	/* 8192 and the tree's own cap (6000 bytes): the cap cuts it, not the
	 * context, so no warning */
	a = budget_agent(8192, 0, &cause);
	assert_non_null(a);
	assert_int_equal(a->ops->turn(a, &ctx, &r), -EINPROGRESS);
	printf("# 8192 tokens, tree capped at 6000 bytes: %zu nodes sent\n",
	       ((struct agent_llm *)a->priv)->fit.sent);
	assert_string_equal(agent_llm_note(a), "");
	assert_true(((struct agent_llm *)a->priv)->fit.sent <= sent8k);
	assert_true(strlen(((struct agent_llm *)a->priv)->turn_text) < 6000 + 3000);
	a->ops->cancel(a);
	agent_free(a);

	/* a larger context sends more of the uncapped tree */
	a = budget_agent(16384, SIZE_MAX, &cause);
	assert_non_null(a);
	assert_int_equal(a->ops->turn(a, &ctx, &r), -EINPROGRESS);
	printf("# 16384 tokens: %zu nodes sent; %s\n", ((struct agent_llm *)a->priv)->fit.sent,
	       agent_llm_note(a));
	assert_true(((struct agent_llm *)a->priv)->fit.sent > sent8k);
	assert_non_null(strstr(agent_llm_note(a), "prompt pruned to fit 16384 tokens"));
	a->ops->cancel(a);
	agent_free(a);
	/* no cap and a context for all of it: all of it, no marker, no warning */
	a = budget_agent(LLM_MAX_CONTEXT_TOKENS, SIZE_MAX, &cause);
	assert_non_null(a);
	assert_int_equal(a->ops->turn(a, &ctx, &r), -EINPROGRESS);
	assert_string_equal(agent_llm_note(a), "");
	assert_int_equal(((struct agent_llm *)a->priv)->fit.sent, big.nnodes);
	assert_null(strstr(((struct agent_llm *)a->priv)->turn_text, "nodes pruned"));
	a->ops->cancel(a);
	agent_free(a);
	node_free(big.root);

	/* the path under study and the rest of the turn too long for the
	 * context: an error, nothing sent */
	big_make(10);
	a = budget_agent(8192, 0, &cause);
	assert_non_null(a);
	{
		/* a history of 60 long lines fills the rest */
		char line[200];

		memset(line, 'h', sizeof(line) - 1);
		line[sizeof(line) - 1] = '\0';
		for (int i = 0; i < 60; i++) {
			struct agent_event ev = { .kind = AGENT_EV_SAY, .text = line };

			assert_int_equal(a->ops->tell(a, &ev, NULL), 0);
		}
	}
	assert_int_equal(a->ops->turn(a, &ctx, &r), -E2BIG);
	printf("# %s\n", agent_llm_error(a));
	assert_non_null(strstr(agent_llm_error(a), "the prompt does not fit the LLM's context of 8192 "
					    "tokens"));
	assert_non_null(strstr(agent_llm_error(a), "raise context_tokens"));
	agent_reply_clear(&r);
	agent_free(a);
	node_free(big.root);
}

/* ---- over HTTP against the stub ------------------------------------------------------ */

static const char *stub;
static char tmpdir[64];

static void stub_call(const char *path, const char *post, char **out)
{
	char url[256];
	CURL *e = curl_easy_init();
	FILE *f;
	size_t len = 0;
	char *buf = NULL;

	snprintf(url, sizeof(url), "%s%s", stub, path);
	f = open_memstream(&buf, &len);
	curl_easy_setopt(e, CURLOPT_URL, url);
	if (post)
		curl_easy_setopt(e, CURLOPT_POSTFIELDS, post);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, f);
	assert_int_equal(curl_easy_perform(e), CURLE_OK);
	curl_easy_cleanup(e);
	fclose(f);
	if (out)
		*out = buf;
	else
		free(buf);
}

/* The user-visible content of request i's messages, joined. */
static char *request_text(int i)
{
	char *s, *out = NULL;
	cJSON *log, *body, *m;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	stub_call("/_stub/log", NULL, &s);
	log = cJSON_Parse(s);
	free(s);
	assert_true(cJSON_GetArraySize(log) > i);
	body = cJSON_Parse(cJSON_GetObjectItem(cJSON_GetArrayItem(log, i), "body")->valuestring);
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(body, "messages"))
		fprintf(f, "[%s] %s\n", cJSON_GetObjectItem(m, "role")->valuestring,
			cJSON_GetObjectItem(m, "content")->valuestring);
	fclose(f);
	cJSON_Delete(body);
	cJSON_Delete(log);
	return out;
}

/* The raw body of request i as the stub got it; caller frees. */
static char *request_body(int i)
{
	char *s, *out;
	cJSON *log;

	stub_call("/_stub/log", NULL, &s);
	log = cJSON_Parse(s);
	free(s);
	assert_true(cJSON_GetArraySize(log) > i);
	out = strdup(cJSON_GetObjectItem(cJSON_GetArrayItem(log, i), "body")->valuestring);
	assert_non_null(out);
	cJSON_Delete(log);
	return out;
}

static unsigned count_of(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* Each description in the schema below n, as JSON spells it in body: once. */
static unsigned descriptions_once(const cJSON *n, const char *body)
{
	const cJSON *c;
	unsigned k = 0;

	cJSON_ArrayForEach(c, n) {
		if (cJSON_IsString(c) && c->string && !strcmp(c->string, "description")) {
			cJSON *str = cJSON_CreateString(c->valuestring);
			char *q = cJSON_PrintUnformatted(str);

			assert_non_null(q);
			q[strlen(q) - 1] = '\0';   /* without the quotes */
			if (count_of(body, q + 1) != 1)
				fail_msg("the schema's description \"%.60s...\" is %u times in the "
					 "request", c->valuestring, count_of(body, q + 1));
			k++;
			free(q);
			cJSON_Delete(str);
		} else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
			k += descriptions_once(c, body);
		}
	}
	return k;
}

/* The step schema is in the request body exactly once: as the tool's
 * parameters (OpenAI: tools[0].function.parameters, Anthropic:
 * tools[0].input_schema), not in the system prompt, which refers to the
 * tool.  Every one of the schema's descriptions is counted in the raw
 * body. */
static void assert_schema_once(const char *body, const char *schema_json, int anth)
{
	cJSON *schema = cJSON_Parse(schema_json), *b = cJSON_Parse(body), *tool, *sys;
	unsigned n;

	assert_non_null(schema);
	assert_non_null(b);
	n = descriptions_once(schema, body);
	printf("# the schema's %u descriptions: each once in the %zu-byte request\n", n,
	       strlen(body));
	assert_true(n >= 10);
	tool = cJSON_GetArrayItem(cJSON_GetObjectItem(b, "tools"), 0);
	assert_non_null(tool);
	if (!anth)
		tool = cJSON_GetObjectItem(tool, "function");
	assert_non_null(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(tool,
			anth ? "input_schema" : "parameters"), "properties"), "duration_s"));
	sys = anth ? cJSON_GetObjectItem(b, "system")
		   : cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(b, "messages"), 0),
					 "content");
	assert_true(cJSON_IsString(sys));
	assert_non_null(strstr(sys->valuestring, "You are the diagnosis agent of argus"));
	assert_non_null(strstr(sys->valuestring, "the arguments of the propose_step tool"));
	assert_null(strstr(sys->valuestring, "additionalProperties"));
	cJSON_Delete(b);
	cJSON_Delete(schema);
}

/* The step schema goes once, as the tool, with both APIs (each sends the
 * tool; neither is tool-less): the body built from the agent's system
 * prompt, schema and turn holds each of the schema's descriptions once.
 * Over HTTP, test_proposal_by_tool and test_repair_then_valid check the
 * bodies the stub received. */
static void test_schema_once(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 4 };
	static const enum llm_provider prov[] = { LLM_OPENAI, LLM_ANTHROPIC };

	(void)state;
	for (size_t i = 0; i < sizeof(prov) / sizeof(prov[0]); i++) {
		struct agent_llm_opts o = { 0 };
		struct agent_reply r = { 0 };
		struct llm_config cfg;
		struct agent_llm *al;
		struct llm_msg m;
		char *cause = NULL, *body;
		struct agent *a;

		llm_config_defaults(&cfg);
		cfg.provider = prov[i];
		cfg.url = (char *)"http://127.0.0.1:9/v1"; /* never answers */
		cfg.model = (char *)"m";
		cfg.connect_timeout_ms = 100;
		cfg.max_retries = 0;
		a = agent_llm_new(&cfg, &o, &cause);
		assert_non_null(a);
		al = a->priv;
		assert_int_equal(a->ops->turn(a, &ctx, &r), -EINPROGRESS);
		m.role = LLM_USER;
		m.content = al->turn_text;
		body = llm_body_build(&cfg, &m, 1, al->system, al->schema, &cause);
		assert_non_null(body);
		assert_schema_once(body, al->schema, prov[i] == LLM_ANTHROPIC);
		free(body);
		a->ops->cancel(a);
		agent_reply_clear(&r);
		agent_free(a);
	}
}

static int requests(void)
{
	char *s;
	cJSON *log;
	int n;

	stub_call("/_stub/log", NULL, &s);
	log = cJSON_Parse(s);
	free(s);
	n = cJSON_GetArraySize(log);
	cJSON_Delete(log);
	return n;
}

/* A validator standing in for step_validate: one tracepoint exists. */
static int validate(struct step *s, void *arg, struct step_error *err)
{
	int rc = step_check_required(s, err);

	if (rc)
		return rc;
	for (unsigned i = 0; i < s->ntargets; i++)
		if (strcmp(s->targets[i], "exceptions:page_fault_user"))
			return step_error_set(err, "target[0]", "unknown tracepoint '%s'; did you "
					      "mean 'exceptions:page_fault_user'?", s->targets[i]);
	return 0;
}

static void reply_free(struct agent_reply *r)
{
	step_free(r->step);
	free(r->text);
	for (unsigned i = 0; i < r->nlines; i++)
		free(r->lines[i]);
	free(r->lines);
	for (unsigned i = 0; i < r->verdict.npath; i++)
		free(r->verdict.path[i]);
	for (unsigned i = 0; i < r->verdict.nnotes; i++)
		free(r->verdict.notes[i]);
	free(r->verdict.notes);
	free(r->verdict.leaf);
	free(r->verdict.summary);
	memset(r, 0, sizeof(*r));
}

static int deltas;

static void on_delta(enum llm_delta_kind k, const char *s, size_t n, void *arg)
{
	deltas++;
}

static struct agent *agent_make(enum llm_provider p)
{
	struct agent_llm_opts o = {
		.validate = validate,
		.kinds_mask = (1u << STEP_SAMPLE) | (1u << STEP_TRACEPOINT_STACKS) |
			      (1u << STEP_TRACEPOINT_LATENCY) | (1u << STEP_OFFCPU) | (1u << STEP_COUNTS),
		.on_delta = on_delta,
	};
	struct llm_config cfg;
	char url[256], *cause = NULL;
	struct agent *a;

	llm_config_defaults(&cfg);
	snprintf(url, sizeof(url), "%s/v1", stub);
	cfg.provider = p;
	cfg.url = url;
	cfg.model = (char *)"stub-model";
	cfg.api_key = (char *)CANARY;
	cfg.timeout_ms = 5000;
	cfg.backoff_ms = 20;
	/* the default context (8192): since the schema goes once (as the tool)
	 * it holds these cases' whole tree, so no pruning note follows the
	 * reply's lines (they ran at 32768 while the schema went twice) */
	assert_int_equal(cfg.context_tokens, 8192);
	a = agent_llm_new(&cfg, &o, &cause);
	if (!a)
		print_error("agent_llm_new: %s\n", cause ? cause : "?");
	assert_non_null(a);
	return a;
}

static int run_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	int rc = a->ops->turn(a, ctx, out);

	while (rc == -EINPROGRESS) {
		struct pollfd fds[16];
		struct llm *l = agent_llm_client(a);
		int n = llm_pollfds(l, fds, 16), t = llm_timeout_ms(l);

		poll(fds, n, t < 0 || t > 200 ? 200 : t);
		rc = a->ops->poll(a, out);
	}
	printf("# turn: rc %d, error: %s\n", rc, rc ? agent_llm_error(a) : "-");
	for (unsigned i = 0; i < out->nlines; i++) {
		printf("#   | %s\n", out->lines[i]);
		/* the default 8192-token context holds these cases' tree */
		assert_null(strstr(out->lines[i], "prompt pruned"));
	}
	if (rc)
		assert_null(strstr(agent_llm_error(a), CANARY));
	return rc;
}

static const char good_step[] =
	"{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault_user\",\"duration_s\":5,"
	"\"rationale\":\"mm delta is faults\"}";

static void script(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void script(const char *fmt, ...)
{
	char buf[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	stub_call("/_stub/script", buf, NULL);
}

#define NEED_STUB() do { if (!stub) { printf("# needs the stub LLM (ARGUS_TEST_STUB_URL): tests/live/llm_stub.sh runs this case with it\n"); skip(); } } while (0)

static void test_proposal_by_tool(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 8 };
	struct agent_reply r = { 0 };
	struct agent_llm_stats st;
	struct agent *a;
	char *req;

	NEED_STUB();
	a = agent_make(LLM_OPENAI);
	deltas = 0;
	script("[{\"text\":\"mm dominates the delta: page faults.\\nTesting THP faults.\",\"tool_args\":%s}]",
	       good_step);
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_PROPOSAL);
	assert_int_equal(r.step->kind, STEP_TRACEPOINT_STACKS);
	assert_string_equal(r.step->targets[0], "exceptions:page_fault_user");
	assert_true(r.nlines >= 3);
	assert_string_equal(r.lines[0], "mm dominates the delta: page faults.");
	assert_non_null(strstr(r.lines[r.nlines - 1], "tokens in"));
	assert_true(deltas > 1);
	reply_free(&r);
	agent_llm_stats(a, &st);
	assert_int_equal(st.requests, 1);
	assert_int_equal(st.repairs, 0);
	assert_int_equal(st.tokens_in, 11);

	/* the prompt: the system prompt with the catalog and schema, the tree */
	req = request_text(0);
	assert_non_null(strstr(req, "[system] You are the diagnosis agent of argus"));
	assert_non_null(strstr(req, "- tracepoint_stacks: "));
	assert_null(strstr(req, "- function_latency: ")); /* not offered here */
	assert_null(strstr(req, "\"duration_s\""));        /* the schema: the tool's, only */
	assert_non_null(strstr(req, "do_huge_pmd_anonymous_page  ref 1  load 380"));
	assert_non_null(strstr(req, "Step budget: 0 of at most 8"));
	assert_null(strstr(req, "{{"));
	free(req);
	req = request_body(0);
	assert_schema_once(req, ((struct agent_llm *)a->priv)->schema, 0);
	free(req);
	agent_free(a);
}

static void test_repair_then_valid(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 8 };
	struct agent_reply r = { 0 };
	struct agent_llm_stats st;
	struct agent *a;
	char *req;

	NEED_STUB();
	a = agent_make(LLM_ANTHROPIC);
	script("[{\"tool_args\":{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault\","
	       "\"duration_s\":5}},{\"text\":\"fixed\",\"tool_args\":%s}]", good_step);
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_PROPOSAL);
	assert_string_equal(r.step->targets[0], "exceptions:page_fault_user");
	assert_non_null(strstr(r.lines[r.nlines - 2], "first reply unusable"));
	reply_free(&r);
	agent_llm_stats(a, &st);
	assert_int_equal(st.requests, 2);
	assert_int_equal(st.repairs, 1);
	/* the repair turn: the first reply as the assistant's, the error quoted */
	req = request_text(1);
	assert_non_null(strstr(req, "[assistant] propose_step({"));
	assert_non_null(strstr(req, "Your reply could not be used: the step is not valid here: "
				    "field target[0]: unknown tracepoint 'exceptions:page_fault'"));
	free(req);
	/* Anthropic's Messages, the turn and its repair: the schema once each */
	for (int i = 0; i < 2; i++) {
		req = request_body(i);
		assert_schema_once(req, ((struct agent_llm *)a->priv)->schema, 1);
		free(req);
	}
	agent_free(a);
}

static void test_twice_bad_falls_back(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 8 };
	struct agent_reply r = { 0 };
	struct agent_llm_stats st;
	struct agent *a;
	char *req;

	NEED_STUB();
	a = agent_make(LLM_OPENAI);
	/* an unknown kind, then prose with no JSON at all */
	script("[{\"tool_args\":{\"kind\":\"kprobe_everything\",\"target\":\"x\",\"duration_s\":5}},"
	       "{\"text\":\"I think it is the page cache.\"}]");
	assert_int_equal(run_turn(a, &ctx, &r), -EPROTO);
	assert_non_null(strstr(agent_llm_error(a), "still unusable after a repair turn"));
	assert_non_null(strstr(agent_llm_error(a), "neither a propose_step call nor a JSON object"));
	req = request_text(1);
	assert_non_null(strstr(req, "unknown kind 'kprobe_everything'"));
	free(req);
	agent_llm_stats(a, &st);
	assert_int_equal(st.fallbacks, 1);
	/* a kind this kernel lacks is refused too, with the reason */
	script("[{\"tool_args\":{\"kind\":\"function_latency\",\"target\":\"vfs_read\",\"duration_s\":5}},"
	       "{\"status\":500},{\"status\":500},{\"status\":500},{\"status\":500}]");
	assert_int_equal(run_turn(a, &ctx, &r), -EIO);
	req = request_text(1);
	assert_non_null(strstr(req, "function_latency is not available on this kernel"));
	free(req);
	assert_non_null(strstr(agent_llm_error(a), "HTTP 500"));
	agent_free(a);
}

static void test_verdict_grounded(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 8, .step_index = 2 };
	struct agent_reply r = { 0 };
	struct agent *a;

	NEED_STUB();
	a = agent_make(LLM_OPENAI);
	/* first a path that is not in the tree, then the right one */
	script("[{\"text\":\"```json\\n{\\\"verdict\\\":{\\\"found\\\":true,\\\"path\\\":[\\\"mm\\\","
	       "\\\"do_page_fault\\\"]}}\\n```\"},"
	       "{\"text\":\"The THP fault path explains the delta.\\n```json\\n{\\\"verdict\\\":{"
	       "\\\"found\\\":true,\\\"subsystem\\\":\\\"mm\\\",\\\"path\\\":[\\\"all\\\",\\\"mm\\\","
	       "\\\"do_user_addr_fault\\\",\\\"handle_mm_fault\\\"],\\\"confidence\\\":0.9,\\\"delta\\\":1e9,"
	       "\\\"summary\\\":\\\"THP faults\\\",\\\"evidence\\\":[\\\"faults x80\\\"]}}\\n```\"}]");
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_VERDICT);
	assert_true(r.verdict.found);
	assert_int_equal(r.verdict.npath, 3);
	assert_string_equal(r.verdict.leaf, "handle_mm_fault");
	assert_string_equal(r.verdict.subsystem, "mm");
	/* numbers from the tree, not from the model's text */
	assert_true(r.verdict.delta == 390);
	assert_true(r.verdict.rate_load == 395);
	assert_ptr_equal(r.focus, fault_node);
	assert_int_equal(r.verdict.nnotes, 1);
	assert_string_equal(r.lines[0], "The THP fault path explains the delta.");
	reply_free(&r);
	{
		char *req = request_text(1);

		assert_non_null(strstr(req, "verdict.path[1]: 'do_page_fault' is not a child of 'mm' in "
					    "the tree (its children: do_user_addr_fault, kswapd)"));
		free(req);
	}
	agent_free(a);
}

static void test_veto_reaches_prompt(void **state)
{
	struct agent_ctx ctx = { .tree = &tree, .step_max = 8 };
	struct agent_reply r = { 0 }, said = { 0 };
	struct agent_event ev = { .kind = AGENT_EV_VETOED, .text = "too much overhead on prod" };
	struct agent_event say = { .kind = AGENT_EV_SAY, .text = "look at the futex path" };
	const struct agent_llm_hyp *hyp;
	struct agent *a;
	char *req;

	NEED_STUB();
	a = agent_make(LLM_OPENAI);
	script("[{\"text\":\"hypothesis: THP compaction: open: mm +410/s\\n- hypothesis: page-cache "
	       "thrash: refuted: no reclaim delta\\nhypothesis: bogus: maybe: x\",\"tool_args\":%s},"
	       "{\"text\":\"hypothesis: THP compaction: supported: faults x80\\n```json\\n"
	       "{\\\"verdict\\\":{\\\"found\\\":false,\\\"path\\\":[]}}\\n```\"}]", good_step);
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	reply_free(&r);
	assert_int_equal(agent_llm_hypotheses(a, &hyp), 2); /* "maybe" is no state */
	assert_string_equal(hyp[0].name, "THP compaction");
	assert_string_equal(hyp[0].status, "open");
	assert_string_equal(hyp[1].name, "page-cache thrash");
	assert_string_equal(hyp[1].status, "refuted");
	assert_string_equal(hyp[1].evidence, "no reclaim delta");
	assert_int_equal(a->ops->tell(a, &ev, &said), 0);
	assert_int_equal(a->ops->tell(a, &say, &said), 0);
	assert_int_equal(said.kind, AGENT_REPLY_TEXT);
	reply_free(&said);
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_VERDICT);
	assert_false(r.verdict.found);
	reply_free(&r);
	assert_int_equal(agent_llm_hypotheses(a, &hyp), 2);
	assert_string_equal(hyp[0].status, "supported");
	assert_int_equal(hyp[0].turn, 2);
	req = request_text(1);
	assert_non_null(strstr(req, "hypothesis: THP compaction: open: mm +410/s (turn 1)"));
	assert_non_null(strstr(req, "hypothesis: page-cache thrash: refuted: no reclaim delta"));
	assert_non_null(strstr(req, "you proposed tracepoint_stacks exceptions:page_fault_user 5s -- "
				    "VETOED by the person: too much overhead on prod"));
	assert_non_null(strstr(req, "- tracepoint_stacks exceptions:page_fault_user 5s: too much"));
	assert_non_null(strstr(req, "the person said: look at the futex path"));
	free(req);
	assert_int_equal(requests(), 2);
	agent_free(a);
}

static void test_missing_prompts(void **state)
{
	struct agent_llm_opts o = { .prompt_dir = "/nonexistent/prompts" };
	struct llm_config cfg;
	char *cause = NULL;

	llm_config_defaults(&cfg);
	cfg.url = (char *)"http://127.0.0.1:9/v1";
	cfg.model = (char *)"m";
	assert_null(agent_llm_new(&cfg, &o, &cause));
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(cause, "prompt file system.txt not found"));
	free(cause);
}

static int env_setup(void **state)
{
	char path[128];
	FILE *f;

	/* the step schema the step branch ships in prompts/, when it is not here
	 * yet: a copy small enough for the test */
	strcpy(tmpdir, "/tmp/argus-test-agent-llm.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
	snprintf(path, sizeof(path), "%s/prompts", tmpdir);
	mkdir(path, 0700);
	if (access("prompts/step.schema.json", R_OK) == 0) {
		setenv("ARGUS_DATADIR", "/nonexistent", 1); /* ./prompts has everything */
	} else {
		snprintf(path, sizeof(path), "%s/prompts/step.schema.json", tmpdir);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs("{\"type\":\"object\",\"required\":[\"kind\",\"duration_s\"],\"properties\":{"
		      "\"kind\":{\"type\":\"string\"},\"target\":{},\"duration_s\":{\"type\":\"number\"}}}",
		      f);
		fclose(f);
		setenv("ARGUS_DATADIR", tmpdir, 1);
	}
	snprintf(path, sizeof(path), "%s/xdg", tmpdir);
	setenv("XDG_CONFIG_HOME", path, 1);
	return 0;
}

static int env_teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd);
}

/* --redact: the process node, its comm and a path never reach the LLM;
 * the LLM's placeholder in a step filter maps back to the real comm. */
static void test_redacted_turn(void **state)
{
	struct tree_node *root, *proc, *mm;
	struct tree t = { .nnodes = 4 };
	struct agent_ctx ctx = { .tree = &t, .step_max = 8 };
	struct agent_event say = { .kind = AGENT_EV_SAY,
				   .text = "secretd keeps its data in /home/alice/db.sqlite" };
	struct agent_reply r = { 0 }, said = { 0 };
	struct agent_llm_opts o = { .validate = validate };
	struct llm_config cfg;
	struct redact *red = NULL;
	char url[256], *cause = NULL, *req;
	struct agent *a;

	NEED_STUB();
	root = node(NULL, "all", 100, 500, 1);
	proc = node(root, "secretd [4242]", 90, 490, 1);
	mm = node(proc, "mm", 10, 400, 1);
	t.root = root;
	proc->kind = TREE_PROCESS;
	mm->kind = TREE_SUBSYS;
	node(mm, "handle_mm_fault", 5, 395, 1);
	red = redact_new();
	assert_non_null(red);
	o.redact = red;
	llm_config_defaults(&cfg);
	snprintf(url, sizeof(url), "%s/v1", stub);
	cfg.url = url;
	cfg.model = (char *)"stub-model";
	cfg.api_key = (char *)CANARY;
	cfg.timeout_ms = 5000;
	a = agent_llm_new(&cfg, &o, &cause);
	assert_non_null(a);
	assert_int_equal(a->ops->tell(a, &say, &said), 0);
	reply_free(&said);
	script("[{\"text\":\"faults of proc-2\",\"tool_args\":{\"kind\":\"tracepoint_stacks\","
	       "\"target\":\"exceptions:page_fault_user\",\"duration_s\":5,"
	       "\"filter\":{\"comm\":\"proc-2\"}}}]");
	assert_int_equal(run_turn(a, &ctx, &r), 0);
	assert_int_equal(r.kind, AGENT_REPLY_PROPOSAL);
	/* proc-1 is the node "secretd [4242]", proc-2 its comm */
	assert_string_equal(r.step->filter.comm, "secretd");
	req = request_text(0);
	printf("# %s\n", strstr(req, "proc-1"));
	assert_null(strstr(req, "secretd"));
	assert_null(strstr(req, "/home/alice"));
	assert_null(strstr(req, "4242"));
	assert_non_null(strstr(req, "proc-1  ref 90  load 490"));
	assert_non_null(strstr(req, "proc-2 keeps its data in path-1"));
	assert_non_null(strstr(req, "handle_mm_fault  ref 5  load 395"));
	free(req);
	reply_free(&r);
	agent_free(a);
	redact_free(red);
	node_free(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template),
		cmocka_unit_test(test_extract_json),
		cmocka_unit_test(test_render_tree),
		cmocka_unit_test(test_render_tree_fit),
		cmocka_unit_test(test_turn_fits_context),
		cmocka_unit_test(test_schema_once),
		cmocka_unit_test(test_missing_prompts),
		cmocka_unit_test(test_proposal_by_tool),
		cmocka_unit_test(test_repair_then_valid),
		cmocka_unit_test(test_twice_bad_falls_back),
		cmocka_unit_test(test_verdict_grounded),
		cmocka_unit_test(test_veto_reaches_prompt),
		cmocka_unit_test(test_redacted_turn),
	};
	int rc;

	stub = getenv("ARGUS_TEST_STUB_URL");
	if (stub && !*stub)
		stub = NULL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	env_setup(NULL);
	tree_setup(NULL);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	tree_teardown(NULL);
	env_teardown(NULL);
	curl_global_cleanup();
	return rc;
}
