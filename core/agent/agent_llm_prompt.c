/* agent_llm_prompt — prompt files, the template, and the texts sent each
 * turn (see agent_llm_int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_llm_int.h"
#include "agent/llm.h"
#include "base/redact.h"
#include "base/util.h"

char *al_prompt_load(const char *dir, const char *name, char **cause)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *data = getenv("ARGUS_DATADIR");
	char *paths[4] = { 0 }, *text = NULL;
	int np = 0;

	if (dir) {
		paths[np++] = al_asprintf("%s/%s", dir, name);
	} else {
		if (x && *x == '/')
			paths[np++] = al_asprintf("%s/argus/prompts/%s", x, name);
		else if (home && *home)
			paths[np++] = al_asprintf("%s/.config/argus/prompts/%s", home, name);
		paths[np++] = al_asprintf("%s/prompts/%s", data && *data ? data : ARGUS_DATADIR, name);
		paths[np++] = al_asprintf("prompts/%s", name);
	}
	for (int i = 0; i < np && !text; i++)
		if (paths[i] && util_read_file(paths[i], 0, &text, NULL))
			text = NULL;
	if (!text && cause) {
		*cause = al_asprintf("prompt file %s not found (looked in %s%s%s%s%s); "
				   "install argus or set ARGUS_DATADIR", name,
				   paths[0] ? paths[0] : "?", np > 1 ? ", " : "", np > 1 && paths[1] ? paths[1] : "",
				   np > 2 ? ", " : "", np > 2 && paths[2] ? paths[2] : "");
		errno = ENOENT;
	}
	for (int i = 0; i < np; i++)
		free(paths[i]);
	return text;
}

char *agent_llm_template(const char *tmpl, const char *const *names, const char *const *vals,
			 size_t n)
{
	struct al_sbuf b = { 0 };
	const char *p = tmpl;

	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		size_t i;

		if (!open) {
			al_sb_addf(&b, "%s", p);
			break;
		}
		al_sb_addf(&b, "%.*s", (int)(open - p), p);
		close = strstr(open + 2, "}}");
		if (!close) {
			al_sb_addf(&b, "%s", open);
			break;
		}
		for (i = 0; i < n; i++)
			if (strlen(names[i]) == (size_t)(close - open - 2) &&
			    !strncmp(open + 2, names[i], close - open - 2))
				break;
		if (i < n)
			al_sb_addf(&b, "%s", vals[i] ? vals[i] : "");
		else
			al_sb_addf(&b, "%.*s", (int)(close + 2 - open), open);
		p = close + 2;
	}
	return al_sb_take(&b);
}

char *al_prompt_catalog(const struct agent_llm_opts *o)
{
	struct al_sbuf b = { 0 };

	for (int k = 0; k < STEP_KIND_N; k++) {
		if (o->kinds_mask && !(o->kinds_mask & (1u << k)))
			continue;
		al_sb_addf(&b, "- %s: %s\n", step_kind_name(k), step_kind_help(k));
	}
	return al_sb_take(&b);
}

/* Process nodes ("comm [tgid]") and their comms, registered for redaction. */
static void redact_procs(struct redact *r, const struct tree_node *n)
{
	if (n->kind == TREE_PROCESS && n->name && *n->name) {
		char comm[64];

		redact_name(r, REDACT_PROC, n->name);
		snprintf(comm, sizeof(comm), "%.*s", (int)strcspn(n->name, "["), n->name);
		for (size_t k = strlen(comm); k && comm[k - 1] == ' '; k--)
			comm[k - 1] = '\0';
		if (*comm)
			redact_name(r, REDACT_PROC, comm);
		return;
	}
	if (n->kind == TREE_COMMAND && n->name && *n->name)
		redact_name(r, REDACT_PROC, n->name);
	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->kind == TREE_PROCESS || n->child[i]->kind == TREE_COMMAND ||
		    n->kind == TREE_ROOT)
			redact_procs(r, n->child[i]);
}

/* The user message of a turn with the tree cut to tree_bytes (fit gets the
 * counts); NULL on ENOMEM. */
static char *turn_text(struct agent_llm *al, const struct agent_ctx *ctx, size_t tree_bytes,
		       struct agent_llm_tree_fit *fit)
{
	char idx[16], max[16], *tree, *hist, *vet, *focus = NULL, *hyp, *out = NULL;
	const char *names[] = { "STEP_INDEX", "STEP_MAX", "FOCUS", "TREE", "HISTORY", "VETOES",
				"HYPOTHESES" };

	snprintf(idx, sizeof(idx), "%u", ctx->step_index);
	snprintf(max, sizeof(max), "%u", ctx->step_max);
	tree = agent_llm_render_tree_fit(ctx->tree, ctx->focus, tree_bytes, fit);
	hist = al_strv_join(al->history, al->nhistory,
			 al->nhistory > AL_HISTORY_MAX ? al->nhistory - AL_HISTORY_MAX : 0,
			 "(none yet)");
	vet = al_strv_join(al->vetoes, al->nvetoes, 0, "(none)");
	hyp = al_ledger_text(al);
	if (ctx->focus && ctx->focus->name)
		focus = al_asprintf("The person asked you to look at node '%s'.\n", ctx->focus->name);
	else
		focus = strdup("");
	if (tree && hist && vet && focus && hyp) {
		const char *vals[] = { idx, max, focus, tree, hist, vet, hyp };

		out = agent_llm_template(al->turn_tmpl, names, vals, 7);
	}
	if (out && al->o.redact) {
		char *r;

		if (ctx->tree && ctx->tree->root)
			redact_procs(al->o.redact, ctx->tree->root);
		r = redact_text(al->o.redact, out);
		free(out);
		out = r;
	}
	free(hyp);
	free(tree);
	free(hist);
	free(vet);
	free(focus);
	return out;
}

/* Estimated tokens of the request: text as the first user message, then
 * extra (a repair's), with the system prompt and the tool schema. */
static size_t request_tokens(const struct agent_llm *al, const char *text,
			     const struct llm_msg *extra, size_t nextra)
{
	struct llm_msg first = { LLM_USER, text };

	return llm_prompt_tokens(&first, 1, al->system, al->schema) +
	       llm_prompt_tokens(extra, nextra, NULL, NULL);
}

char *al_prompt_turn_text(struct agent_llm *al, const struct agent_ctx *ctx,
			  const struct llm_msg *extra, size_t nextra)
{
	struct agent_llm_tree_fit fit, best_fit;
	size_t budget = al->prompt_budget;
	size_t cap = al->o.tree_budget ? al->o.tree_budget : AL_DEFAULT_BUDGET;
	size_t tok, lo, hi, full;
	char *text, *best = NULL;

	al->fit_ctx = 0;
	al->note[0] = '\0';
	/* as much as tree_budget allows, when it fits */
	text = turn_text(al, ctx, cap, &fit);
	if (!text)
		return NULL;
	tok = request_tokens(al, text, extra, nextra);
	if (tok <= budget) {
		al->fit = fit;
		return text;
	}
	full = strlen(text);
	free(text);
	/* the path under study alone: the least that is worth sending */
	text = turn_text(al, ctx, 0, &fit);
	if (!text)
		return NULL;
	tok = request_tokens(al, text, extra, nextra);
	if (tok > budget) {
		snprintf(al->error, sizeof(al->error),
			 "the prompt does not fit the LLM's context of %u tokens: about %zu tokens "
			 "with the tree cut to the path under study (%zu of %zu nodes; the system "
			 "prompt and tool schema are about %zu); raise context_tokens "
			 "(ARGUS_LLM_CONTEXT_TOKENS) and the server's context with it (Ollama's "
			 "num_ctx, llama-server's -c)", al->context_tokens, tok, fit.sent, fit.nodes,
			 llm_prompt_tokens(NULL, 0, al->system, al->schema));
		free(text);
		errno = E2BIG;
		return NULL;
	}
	best = text;
	best_fit = fit;
	/* the most tree that fits: tree bytes are not tokens one for one (a
	 * digit is a token, a word about four bytes), so search */
	lo = 0;
	hi = full < cap ? full : cap;
	for (int i = 0; i < 16 && hi - lo > 64; i++) {
		size_t mid = lo + (hi - lo) / 2;

		text = turn_text(al, ctx, mid, &fit);
		if (!text) {
			free(best);
			return NULL;
		}
		if (request_tokens(al, text, extra, nextra) <= budget) {
			free(best);
			best = text;
			best_fit = fit;
			lo = mid;
		} else {
			free(text);
			hi = mid;
		}
	}
	al->fit = best_fit;
	al->fit_ctx = 1;
	snprintf(al->note, sizeof(al->note), "prompt pruned to fit %u tokens: %zu of %zu nodes sent",
		 al->context_tokens, best_fit.sent, best_fit.nodes);
	return best;
}
