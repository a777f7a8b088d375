/* agent_llm — the LLM behind the agent interface (see agent_llm.h): the turn
 * machine; the other agent_llm_*.c files hold its parts (agent_llm_int.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_llm_int.h"
#include "base/redact.h"

/* ---- the turn ------------------------------------------------------------------- */

static void account(struct agent_llm *al, const struct llm_result *res)
{
	al->st.requests++;
	al->st.latency_s += res->latency_s;
	al->st.wait_s += res->wait_s;
	al->st.tokens_in += res->tokens_in;
	al->st.tokens_out += res->tokens_out;
	al->st.last_latency_s += res->latency_s;
	al->st.last_tokens_in += res->tokens_in;
	al->st.last_tokens_out += res->tokens_out;
}

static int start_turn(struct agent_llm *al)
{
	struct llm_msg m = { LLM_USER, al->turn_text };
	int rc = llm_request_start(al->llm, &m, 1, al->system, al->schema, al->o.on_delta,
				   al->o.delta_arg);

	if (rc)
		snprintf(al->error, sizeof(al->error), "%s", llm_last_error(al->llm));
	return rc;
}

static int start_repair(struct agent_llm *al, const char *why)
{
	char *fix = al_asprintf("Your reply could not be used: %s.\nReply again: a few lines of "
			      "reasoning, then exactly one %s call (or the step object alone in a "
			      "```json block), or a verdict object in a ```json block.",
			      why, LLM_TOOL_NAME);
	struct llm_msg m[3] = {
		{ LLM_USER, al->turn_text },
		{ LLM_ASSISTANT, al->first_reply },
		{ LLM_USER, fix },
	};
	char *text;
	int rc;

	if (fix && al->o.redact) {
		char *r = redact_text(al->o.redact, fix);

		free(fix);
		fix = r;
		m[2].content = fix;
	}
	if (!fix)
		return -ENOMEM;
	/* the first reply and the fix come on top of the turn: prune again */
	text = al_prompt_turn_text(al, &al->ctx, m + 1, 2);
	if (!text) {
		rc = errno == E2BIG ? -E2BIG : -ENOMEM;
		if (rc == -ENOMEM)
			snprintf(al->error, sizeof(al->error), "out of memory building the repair turn");
		free(fix);
		return rc;
	}
	free(al->turn_text);
	al->turn_text = text;
	m[0].content = text;
	rc = llm_request_start(al->llm, m, 3, al->system, al->schema, al->o.on_delta,
			       al->o.delta_arg);
	if (rc)
		snprintf(al->error, sizeof(al->error), "%s", llm_last_error(al->llm));
	free(fix);
	return rc;
}

static int al_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	struct agent_llm *al = a->priv;
	int rc;

	if (al->state != AL_IDLE) {
		snprintf(al->error, sizeof(al->error), "an LLM turn is already running");
		return -EBUSY;
	}
	al->error[0] = '\0';
	al->ctx = *ctx;
	al->turns++;
	free(al->turn_text);
	free(al->first_reply);
	free(al->first_error);
	al->first_reply = al->first_error = NULL;
	al->st.last_latency_s = 0;
	al->st.last_tokens_in = al->st.last_tokens_out = 0;
	al->turn_text = al_prompt_turn_text(al, ctx, NULL, 0);
	if (!al->turn_text) {
		if (errno == E2BIG) { /* al->error says why */
			al->st.fallbacks++;
			return -E2BIG;
		}
		snprintf(al->error, sizeof(al->error), "out of memory building the LLM turn");
		return -ENOMEM;
	}
	rc = start_turn(al);
	if (rc) {
		al->st.fallbacks++;
		return rc;
	}
	al->state = AL_TURN;
	return -EINPROGRESS;
}

static int al_poll(struct agent *a, struct agent_reply *out)
{
	struct agent_llm *al = a->priv;
	struct llm_result res;
	char err[512];
	int rc;

	if (al->state == AL_IDLE)
		return -ENOENT;
	llm_perform(al->llm);
	rc = llm_request_poll(al->llm, &res);
	if (rc == -EINPROGRESS)
		return rc;
	account(al, &res);
	if (rc) {
		snprintf(al->error, sizeof(al->error), "%s", res.error ? res.error : strerror(-rc));
		goto fail;
	}
	err[0] = '\0';
	rc = al_reply_interpret(al, &res, out, err, sizeof(err));
	if (rc == 0) {
		if (res.text)
			al_ledger_update(al, res.text);
		char desc[256], acct[160];

		snprintf(acct, sizeof(acct), "llm: %.2f s, %lu tokens in, %lu out%s",
			 al->st.last_latency_s, al->st.last_tokens_in, al->st.last_tokens_out,
			 al->state == AL_REPAIR ? " (after one repair turn)" : "");
		if (al->state == AL_REPAIR && al->first_error) {
			char *l = al_asprintf("llm: first reply unusable (%s)", al->first_error);

			if (l)
				al_reply_line(out, l, strlen(l));
			free(l);
		}
		al_reply_line(out, acct, strlen(acct));
		if (al->note[0]) {
			char note[sizeof(al->note) + 8];

			snprintf(note, sizeof(note), "llm: %s", al->note);
			al_reply_line(out, note, strlen(note));
		}
		if (out->kind == AGENT_REPLY_PROPOSAL) {
			al_reply_redact_step(al, out->step);
			step_describe(out->step, desc, sizeof(desc));
			free(al->pending);
			al->pending = strdup(desc);
		} else if (out->kind == AGENT_REPLY_VERDICT) {
			al_strv_push(&al->history, &al->nhistory,
				  al_asprintf("you gave a verdict: %s", out->verdict.summary ?
					    out->verdict.summary : "?"));
		}
		al->state = AL_IDLE;
		llm_result_clear(&res);
		return 0;
	}
	if (rc != -EINVAL)
		goto fail;
	if (al->state == AL_TURN) {
		/* one repair turn quoting the error */
		al->first_error = strdup(err);
		al->first_reply = res.tool_args
			? al_asprintf("%s%s%s(%s)", res.text ? res.text : "", res.text && *res.text ? "\n" : "",
				    res.tool_name ? res.tool_name : LLM_TOOL_NAME, res.tool_args)
			: strdup(res.text && *res.text ? res.text : "(empty)");
		llm_result_clear(&res);
		if (!al->first_error || !al->first_reply) {
			rc = -ENOMEM;
			snprintf(al->error, sizeof(al->error), "out of memory");
			goto fail_nores;
		}
		al->st.repairs++;
		rc = start_repair(al, err);
		if (rc)
			goto fail_nores;
		al->state = AL_REPAIR;
		return -EINPROGRESS;
	}
	snprintf(al->error, sizeof(al->error), "the LLM's reply was still unusable after a repair "
		 "turn: %s", err);
	rc = -EPROTO;
fail:
	llm_result_clear(&res);
fail_nores:
	al->state = AL_IDLE;
	al->st.fallbacks++;
	return rc;
}

static void al_cancel(struct agent *a)
{
	struct agent_llm *al = a->priv;
	struct llm_result res;

	if (al->state == AL_IDLE)
		return;
	llm_cancel(al->llm);
	if (llm_request_poll(al->llm, &res) != -EINPROGRESS)
		llm_result_clear(&res);
	snprintf(al->error, sizeof(al->error), "LLM request cancelled");
	al->state = AL_IDLE;
}

static int al_tell(struct agent *a, const struct agent_event *ev, struct agent_reply *out)
{
	struct agent_llm *al = a->priv;
	const char *pend = al->pending ? al->pending : "the last proposal";
	char desc[256];
	int rc = 0;

	switch (ev->kind) {
	case AGENT_EV_ACCEPTED:
		al->nsteps++;
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("step %u: %s -- accepted", al->nsteps, pend));
		break;
	case AGENT_EV_EDITED:
		al->nsteps++;
		al_reply_redact_step(al, ev->step);
		if (ev->step)
			step_describe(ev->step, desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "?");
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("step %u: you proposed %s; the person edited it to %s and "
					 "accepted that", al->nsteps, pend, desc));
		break;
	case AGENT_EV_VETOED:
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("you proposed %s -- VETOED by the person%s%s", pend,
					 ev->text && *ev->text ? ": " : " (no reason given)",
					 ev->text && *ev->text ? ev->text : ""));
		if (!rc)
			rc = al_strv_push(&al->vetoes, &al->nvetoes,
				       al_asprintf("- %s%s%s", pend, ev->text && *ev->text ? ": " : "",
						 ev->text && *ev->text ? ev->text : ""));
		break;
	case AGENT_EV_RESULT:
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("  result of step %u: %s", al->nsteps,
					 ev->text ? ev->text : "(none)"));
		break;
	case AGENT_EV_SAY:
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("the person said: %s", ev->text ? ev->text : ""));
		if (!rc && out) {
			memset(out, 0, sizeof(*out));
			out->kind = AGENT_REPLY_TEXT;
			out->text = strdup("noted; the next turn sends it to the LLM");
			if (!out->text)
				rc = -ENOMEM;
		}
		break;
	case AGENT_EV_FOCUS:
		rc = al_strv_push(&al->history, &al->nhistory,
			       al_asprintf("the person asked you to look at node '%s'",
					 ev->text ? ev->text : ev->node && ev->node->name ?
					 ev->node->name : "?"));
		break;
	}
	return rc;
}

static void al_free(struct agent *a)
{
	struct agent_llm *al;

	if (!a)
		return;
	al = a->priv;
	llm_free(al->llm);
	free(al->model);
	free(al->system);
	free(al->turn_tmpl);
	free(al->schema);
	free(al->turn_text);
	free(al->first_reply);
	free(al->first_error);
	free(al->pending);
	al_strv_free(al->history, al->nhistory);
	al_strv_free(al->vetoes, al->nvetoes);
	free(al);
}

static int al_pollfds(struct agent *a, struct pollfd *fds, int max)
{
	return llm_pollfds(((struct agent_llm *)a->priv)->llm, fds, max);
}

static int al_timeout_ms(struct agent *a)
{
	return llm_timeout_ms(((struct agent_llm *)a->priv)->llm);
}

static const struct agent_ops agent_llm_ops = {
	.name = "llm",
	.turn = al_turn,
	.poll = al_poll,
	.cancel = al_cancel,
	.tell = al_tell,
	.free = al_free,
	.hypotheses = agent_llm_hypotheses,
	.pollfds = al_pollfds,
	.timeout_ms = al_timeout_ms,
};

struct agent *agent_llm_new(const struct llm_config *cfg, const struct agent_llm_opts *o,
			    char **cause)
{
	struct agent_llm *al;
	char *sys = NULL, *kinds = NULL, *schema = NULL;
	int err = 0;

	if (cause)
		*cause = NULL;
	al = calloc(1, sizeof(*al));
	if (!al)
		goto nomem;
	al->base.ops = &agent_llm_ops;
	al->base.priv = al;
	if (o)
		al->o = *o;
	sys = al_prompt_load(al->o.prompt_dir, "system.txt", cause);
	al->turn_tmpl = sys ? al_prompt_load(al->o.prompt_dir, "turn.txt", cause) : NULL;
	schema = al->turn_tmpl ? al_prompt_load(al->o.prompt_dir, "step.schema.json", cause) : NULL;
	if (!schema) {
		err = errno ? errno : ENOENT;
		goto fail;
	}
	kinds = al_prompt_catalog(&al->o);
	if (!kinds)
		goto nomem;
	{
		/* The schema goes once, as the tool (both APIs argus speaks, the
		 * OpenAI-compatible one and Anthropic's, send it with every
		 * request, and a server that cannot render tools refuses the
		 * request rather than drop them: Ollama "does not support tools",
		 * llama-server without --jinja "tools param requires --jinja
		 * flag").  system.txt refers to the tool; it used to embed the
		 * schema as well.  Measured with test_turn_fits_context (all
		 * kinds, llm_prompt_tokens' estimate): the fixed prompt (system
		 * prompt and tool) was 6223 tokens and a 8192-token context sent
		 * 28 of its 1529-node tree; now 3991, and 8192 sends 107 nodes
		 * (77 with the tree's default 6000-byte cap, which then binds
		 * before the context); the least context that works went from
		 * 8192 to 5120.  {{SCHEMA}} in a prompt directory of one's own
		 * is filled with a pointer to the tool. */
		const char *names[] = { "KINDS", "SCHEMA" };
		const char *vals[] = { kinds, "(the propose_step tool's parameters, sent with this "
				       "request)" };

		al->system = agent_llm_template(sys, names, vals, 2);
	}
	if (!al->system)
		goto nomem;
	al->schema = schema;
	schema = NULL;
	al->llm = llm_new(cfg);
	if (!al->llm) {
		err = errno;
		if (cause)
			*cause = al_asprintf("cannot set up the LLM client: %s", strerror(err));
		goto fail;
	}
	al->prompt_budget = llm_prompt_budget(cfg);
	al->context_tokens = cfg->context_tokens ? cfg->context_tokens : LLM_DEF_CONTEXT_TOKENS;
	{
		/* said at once, not at the first turn: the fixed part and the
		 * turn's frame alone must fit, with some tree */
		struct llm_msg frame = { LLM_USER, al->turn_tmpl };
		size_t need = llm_prompt_tokens(&frame, 1, al->system, al->schema) +
			      AL_MIN_TREE_TOKENS;

		if (need > al->prompt_budget) {
			err = E2BIG;
			if (cause)
				*cause = al_asprintf("the LLM's context of %u tokens cannot hold argus's "
						   "prompt: the system prompt, tool schema and turn take "
						   "about %zu tokens, the tree at least %u more, and the "
						   "reply needs room; set context_tokens "
						   "(ARGUS_LLM_CONTEXT_TOKENS) to %zu or more, and the "
						   "server's context with it (Ollama's num_ctx, "
						   "llama-server's -c)", al->context_tokens,
						   need - AL_MIN_TREE_TOKENS, AL_MIN_TREE_TOKENS,
						   (need * 8 / 7 + 1023) / 1024 * 1024);
			goto fail;
		}
	}
	al->model = strdup(cfg->model);
	if (!al->model)
		goto nomem;
	free(sys);
	free(kinds);
	return &al->base;
nomem:
	err = ENOMEM;
	if (cause && !*cause)
		*cause = strdup("out of memory setting up the LLM agent");
fail:
	free(sys);
	free(kinds);
	free(schema);
	if (al)
		al_free(&al->base);
	errno = err;
	return NULL;
}

struct llm *agent_llm_client(struct agent *a)
{
	return ((struct agent_llm *)a->priv)->llm;
}

const char *agent_llm_note(const struct agent *a)
{
	return ((const struct agent_llm *)a->priv)->note;
}

const char *agent_llm_error(const struct agent *a)
{
	return ((const struct agent_llm *)a->priv)->error;
}

void agent_llm_stats(const struct agent *a, struct agent_llm_stats *out)
{
	*out = ((const struct agent_llm *)a->priv)->st;
}
