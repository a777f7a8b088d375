/* opts_agent — --agent and --redact (see opts_agent.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts_agent.h"
#include "base/redact.h"
#include "measure/session.h"

enum opts_agent_id { OA_AGENT, OA_REDACT };

static const struct opt opts_agent_table[] = {
	{ OA_AGENT, "--agent", NULL, "NAME",
	  "heuristic (default) or llm (ARGUS_LLM_*, the config file)" },
	{ OA_REDACT, "--redact", NULL, NULL,
	  "the LLM sees proc-N, cmd-N, path-N, not names and paths" },
};

const struct opt_group opts_agent_group = OPT_GROUP("agent options", opts_agent_table);

void opts_agent_init(struct opts_agent *oa)
{
	memset(oa, 0, sizeof(*oa));
}

void opts_agent_free(struct opts_agent *oa)
{
	redact_free(oa->red);
	oa->red = NULL;
	free(oa->note);
	oa->note = NULL;
}

int opts_agent_apply(struct opts_agent *oa, const struct opt_hit *h, FILE *err)
{
	if (h->o->id == OA_REDACT) {
		oa->redact = 1;
		return 0;
	}
	if (strcmp(h->val, "heuristic") && strcmp(h->val, "llm")) {
		fprintf(err, "argus: %s: unknown agent '%s'; the agents are heuristic and llm\n",
			h->o->name, h->val);
		return -1;
	}
	oa->agent = h->val;
	return 0;
}

/* Each LLM turn's accounting: a line on the log, an event in the session. */
static void opts_agent_turn(const struct agent_turn_info *ti, void *arg)
{
	struct opts_agent *oa = arg;

	if (oa->log)
		fprintf(oa->log, "argus: llm turn: %s %s, %.2f s, %lu tokens in, %lu out: %s%s%s%s%s%s\n",
			ti->provider, ti->model, ti->latency_s, ti->tokens_in, ti->tokens_out,
			ti->status, ti->error ? " (" : "", ti->error ? ti->error : "",
			!strcmp(ti->status, "fallback") ? "); the heuristic agent took this turn" :
			ti->error ? ")" : "", ti->note ? "; " : "", ti->note ? ti->note : "");
	if (oa->ses) {
		struct session_llm_turn lt = {
			.provider = ti->provider,
			.model = ti->model,
			.latency_s = ti->latency_s,
			.tokens_in = ti->tokens_in,
			.tokens_out = ti->tokens_out,
			.status = ti->status,
			.error = ti->error,
		};

		session_write_llm_turn(oa->ses, &lt);
	}
}

struct agent *opts_agent_new(struct opts_agent *oa, const char *load_cmd, llm_delta_cb on_delta,
			     void *delta_arg, FILE *err)
{
	struct agent_select_opts so = { 0 };
	struct agent *a;
	char *note = NULL;

	if (oa->redact && !oa->red) {
		oa->red = redact_new();
		if (!oa->red || (load_cmd && redact_add_command(oa->red, load_cmd) < 0)) {
			if (err)
				fprintf(err, "argus: --redact: out of memory\n");
			return NULL;
		}
	}
	so.on_delta = on_delta;
	so.delta_arg = delta_arg;
	so.on_turn = opts_agent_turn;
	so.turn_arg = oa;
	so.redact = oa->red;
	a = agent_select(oa->agent, &so, &note);
	if (note && err)
		fprintf(err, "argus: %s\n", note);
	free(oa->note);
	oa->note = note;
	return a;
}
