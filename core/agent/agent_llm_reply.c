/* agent_llm_reply — an LLM reply to a validated step or a verdict checked
 * against the tree (see agent_llm_int.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/vec.h"
#include "agent/agent_llm_int.h"
#include "analysis/calib.h"
#include "base/json_safe.h"
#include "base/redact.h"

char *agent_llm_extract_json(const char *text)
{
	const char *p, *end, *open, *close;

	if (!text)
		return NULL;
	/* a fenced block: ```json ... ``` or ``` ... ``` holding an object */
	for (p = text; (p = strstr(p, "```")); p = end + 3) {
		const char *body = p + 3;

		while (isalpha((unsigned char)*body))
			body++;
		end = strstr(body, "```");
		if (!end)
			break;
		while (body < end && isspace((unsigned char)*body))
			body++;
		if (body < end && *body == '{')
			return strndup(body, end - body);
	}
	/* the whole text, or the outermost braces */
	open = strchr(text, '{');
	close = strrchr(text, '}');
	if (!open || !close || close < open)
		return NULL;
	return strndup(open, close - open + 1);
}

static void step_err_text(const struct step_error *e, char *buf, size_t len)
{
	if (e->line)
		snprintf(buf, len, "line %d column %d: %s", e->line, e->col, e->msg);
	else if (e->field[0])
		snprintf(buf, len, "field %s: %s", e->field, e->msg);
	else
		snprintf(buf, len, "%s", e->msg);
}

/* Placeholders the LLM wrote (filter.comm "proc-1", a cgroup "path-2") back
 * to what they stand for, before validation. */
static int unredact_one(struct agent_llm *al, char **field)
{
	const char *orig = *field ? redact_reverse(al->o.redact, *field) : NULL;
	char *dup;

	if (!orig)
		return 0;
	dup = strdup(orig);
	if (!dup)
		return -ENOMEM;
	free(*field);
	*field = dup;
	return 0;
}

static int unredact_step(struct agent_llm *al, struct step *s)
{
	if (unredact_one(al, &s->filter.comm) || unredact_one(al, &s->filter.cgroup))
		return -ENOMEM;
	for (unsigned i = 0; i < s->ntargets; i++)
		if (unredact_one(al, &s->targets[i]))
			return -ENOMEM;
	return 0;
}

void al_reply_redact_step(struct agent_llm *al, const struct step *s)
{
	if (!al->o.redact || !s)
		return;
	if (s->filter.comm && *s->filter.comm)
		redact_name(al->o.redact, REDACT_PROC, s->filter.comm);
	if (s->filter.cgroup && *s->filter.cgroup)
		redact_name(al->o.redact, REDACT_PATH, s->filter.cgroup);
}

static int step_from_json(struct agent_llm *al, const char *json, struct step **out, char *err,
			  size_t errlen)
{
	struct step_error se;
	struct step *s = NULL;
	int rc;

	memset(&se, 0, sizeof(se));
	rc = step_parse_json(json, strlen(json), &s, &se);
	if (rc == -EINVAL) {
		char t[400];

		step_err_text(&se, t, sizeof(t));
		snprintf(err, errlen, "the step does not parse: %s", t);
		return rc;
	}
	if (rc)
		return rc;
	if (al->o.redact && unredact_step(al, s)) {
		step_free(s);
		return -ENOMEM;
	}
	if (al->o.kinds_mask && !(al->o.kinds_mask & (1u << s->kind))) {
		snprintf(err, errlen, "field kind: %s is not available on this kernel%s%s",
			 step_kind_name(s->kind),
			 al->o.kind_reasons && al->o.kind_reasons[s->kind] ? ": " : "",
			 al->o.kind_reasons && al->o.kind_reasons[s->kind] ? al->o.kind_reasons[s->kind] : "");
		step_free(s);
		return -EINVAL;
	}
	memset(&se, 0, sizeof(se));
	rc = al->o.validate ? al->o.validate(s, al->o.validate_arg, &se)
			    : step_check_required(s, &se);
	if (rc) {
		char t[400];

		step_err_text(&se, t, sizeof(t));
		snprintf(err, errlen, "the step is not valid here: %s", t);
		step_free(s);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*out = s;
	return 0;
}

static const struct tree_node *child_named(const struct tree_node *n, const char *name)
{
	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->name && !strcmp(n->child[i]->name, name))
			return n->child[i];
	return NULL;
}

/* The descendant of n named name with the largest |delta|, or NULL. */
static const struct tree_node *desc_named(const struct tree_node *n, const char *name)
{
	const struct tree_node *best = NULL;

	for (unsigned i = 0; i < n->nchild; i++) {
		const struct tree_node *c = n->child[i], *b;

		if (c->name && !strcmp(c->name, name) &&
		    (!best || fabs(c->stat.delta) > fabs(best->stat.delta)))
			best = c;
		b = desc_named(c, name);
		if (b && (!best || fabs(b->stat.delta) > fabs(best->stat.delta)))
			best = b;
	}
	return best;
}

/* The node named name below n's children (they are looked up first), with
 * the largest |delta|, or NULL. */
static const struct tree_node *below_named(const struct tree_node *n, const char *name)
{
	const struct tree_node *best = NULL;

	for (unsigned i = 0; i < n->nchild; i++) {
		const struct tree_node *b = desc_named(n->child[i], name);

		if (b && (!best || fabs(b->stat.delta) > fabs(best->stat.delta)))
			best = b;
	}
	return best;
}

/* Appends the frames from below `from` down to `to` (a descendant) to the
 * verdict path; 1 on success, 0 when out of memory. */
static int chain_push(struct verdict *v, const struct tree_node *from, const struct tree_node *to)
{
	const struct tree_node *chain[VERDICT_MAX_PATH];
	unsigned n = 0;

	for (const struct tree_node *p = to; p && p != from && n < VERDICT_MAX_PATH; p = p->parent)
		chain[n++] = p;
	while (n--) {
		const struct tree_node *p = chain[n];

		if (p->kind == TREE_SUBSYS) {
			snprintf(v->subsystem, sizeof(v->subsystem), "%s", p->name);
			continue;
		}
		if (p->kind == TREE_PROCESS || p->kind == TREE_COMMAND ||
		    v->npath == VERDICT_MAX_PATH)
			continue;
		v->path[v->npath] = strdup(p->name);
		if (!v->path[v->npath])
			return 0;
		v->npath++;
	}
	return 1;
}

static int verdict_from_json(struct agent_llm *al, const cJSON *vj, struct verdict *v, char *err,
			     size_t errlen, const struct tree_node **focus)
{
	const cJSON *found = cJSON_GetObjectItemCaseSensitive(vj, "found");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(vj, "path");
	const cJSON *sub = cJSON_GetObjectItemCaseSensitive(vj, "subsystem");
	const cJSON *conf = cJSON_GetObjectItemCaseSensitive(vj, "confidence");
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(vj, "summary");
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(vj, "evidence");
	const struct tree *t = al->ctx.tree;
	const struct tree_node *node = t ? t->root : NULL;
	const cJSON *e;
	int i = 0;

	if (!cJSON_IsObject(vj)) {
		snprintf(err, errlen, "verdict: expected an object");
		return -EINVAL;
	}
	if (!cJSON_IsBool(found)) {
		snprintf(err, errlen, "verdict.found: expected true or false");
		return -EINVAL;
	}
	if (path && !cJSON_IsArray(path)) {
		snprintf(err, errlen, "verdict.path: expected an array of node names");
		return -EINVAL;
	}
	if (cJSON_IsTrue(found) && cJSON_GetArraySize(path) == 0) {
		snprintf(err, errlen, "verdict.path: a verdict with found=true needs the path of "
			 "tree nodes it concerns");
		return -EINVAL;
	}
	memset(v, 0, sizeof(*v));
	v->found = cJSON_IsTrue(found);
	cJSON_ArrayForEach(e, path) {
		const struct tree_node *c;

		if (!cJSON_IsString(e)) {
			snprintf(err, errlen, "verdict.path[%d]: expected a node name", i);
			goto bad;
		}
		if (al->o.redact && redact_reverse(al->o.redact, e->valuestring))
			cJSON_SetValuestring((cJSON *)e, redact_reverse(al->o.redact, e->valuestring));
		if (i == 0 && node && node->name && !strcmp(e->valuestring, node->name)) {
			i++;
			continue; /* the root named too */
		}
		if (node) {
			c = child_named(node, e->valuestring);
			if (!c) {
				/* a frame further down: the LLM skipped frames between */
				c = below_named(node, e->valuestring);
				if (c && chain_push(v, node, c)) {
					node = c;
					i++;
					continue;
				}
				if (c)
					goto nomem;
			}
			if (!c) {
				struct al_sbuf b = { 0 };

				for (unsigned k = 0; k < node->nchild && k < 8; k++)
					al_sb_addf(&b, "%s%s", k ? ", " : "", node->child[k]->name);
				snprintf(err, errlen, "verdict.path[%d]: '%s' is not a child of '%s' in the "
					 "tree (its children: %s)", i, e->valuestring, node->name,
					 b.p && !b.oom ? b.p : "none");
				free(b.p);
				goto bad;
			}
			node = c;
			if (node->kind == TREE_SUBSYS)
				snprintf(v->subsystem, sizeof(v->subsystem), "%s", node->name);
			if (node->kind == TREE_SUBSYS || node->kind == TREE_PROCESS ||
			    node->kind == TREE_COMMAND) {
				i++;
				continue; /* grouping levels: the path is code */
			}
		}
		if (v->npath < VERDICT_MAX_PATH) {
			v->path[v->npath] = strdup(e->valuestring);
			if (!v->path[v->npath])
				goto nomem;
			v->npath++;
		}
		i++;
	}
	if (v->npath) {
		v->leaf = strdup(v->path[v->npath - 1]);
		if (!v->leaf)
			goto nomem;
	}
	if (cJSON_IsString(sub) && !v->subsystem[0])
		snprintf(v->subsystem, sizeof(v->subsystem), "%s", sub->valuestring);
	else if (v->npath && !v->subsystem[0])
		snprintf(v->subsystem, sizeof(v->subsystem), "%s", v->path[0]);
	v->confidence = cJSON_IsNumber(conf) ? fmin(1, fmax(0, conf->valuedouble)) : 0.5;
	if (cJSON_IsString(sum))
		v->summary = strndup(sum->valuestring, 400);
	else
		v->summary = strdup(v->found ? "the LLM named this path" : "no real difference found");
	if (!v->summary)
		goto nomem;
	/* the numbers come from the measurement, not from the model */
	if (node && node != t->root) {
		v->rate_ref = node->stat.rate[COND_REF];
		v->rate_load = node->stat.rate[COND_LOAD];
		v->delta = node->stat.delta;
		v->ratio = node->stat.ratio;
		v->q = node->stat.q;
		v->pairs = node->stat.pairs;
		v->pairs_agree = node->stat.pairs_agree;
		if (t->root->stat.delta != 0)
			v->share_of_root = node->stat.delta / t->root->stat.delta;
		*focus = node;
	}
	cJSON_ArrayForEach(e, ev) {
		if (!cJSON_IsString(e))
			continue;
		if (vec_resize(&v->notes, (size_t)v->nnotes + 1, sizeof(*v->notes)))
			goto nomem;
		v->notes[v->nnotes] = strndup(e->valuestring, AL_REASON_WIDTH);
		if (!v->notes[v->nnotes])
			goto nomem;
		v->nnotes++;
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
bad:
	for (unsigned k = 0; k < v->npath; k++)
		free(v->path[k]);
	for (unsigned k = 0; k < v->nnotes; k++)
		free(v->notes[k]);
	free(v->notes);
	free(v->leaf);
	free(v->summary);
	memset(v, 0, sizeof(*v));
	return -EINVAL;
}

/* The reasoning lines of a text reply: its lines outside code fences. */
static int reasoning(struct agent_reply *out, const char *text)
{
	const char *p = text;
	int fence = 0, err = 0;

	while (p && *p && out->nlines < AL_REASON_LINES) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		const char *s = p;

		while (len && isspace((unsigned char)*s)) {
			s++;
			len--;
		}
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (len >= 3 && !strncmp(s, "```", 3))
			fence = !fence;
		else if (!fence && len)
			err = al_reply_line(out, s, len);
		if (err)
			return err;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

int al_reply_interpret(struct agent_llm *al, const struct llm_result *res, struct agent_reply *out,
		     char *err, size_t errlen)
{
	struct step *s = NULL;
	char *json = NULL;
	cJSON *root = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (res->tool_args) {
		if (res->tool_name && strcmp(res->tool_name, LLM_TOOL_NAME)) {
			snprintf(err, errlen, "there is no tool named '%.60s'; the only tool is %s",
				 res->tool_name, LLM_TOOL_NAME);
			return -EINVAL;
		}
		rc = step_from_json(al, res->tool_args, &s, err, errlen);
		if (rc)
			return rc;
	} else {
		const cJSON *vj;

		json = agent_llm_extract_json(res->text);
		if (!json) {
			snprintf(err, errlen, "the reply holds neither a %s call nor a JSON object "
				 "(a step, or {\"verdict\": ...})", LLM_TOOL_NAME);
			return -EINVAL;
		}
		root = cJSON_Parse(json);
		/* the verdict's summary, path and notes are shown: escaped */
		if (root && json_safe_tree(root, 0, 0, NULL) < 0) {
			cJSON_Delete(root);
			root = NULL;
		}
		if (!root || !cJSON_IsObject(root)) {
			snprintf(err, errlen, "the JSON in the reply does not parse (near byte %ld)",
				 root ? 0L : (long)(cJSON_GetErrorPtr() ? cJSON_GetErrorPtr() - json : 0));
			rc = -EINVAL;
			goto out;
		}
		vj = cJSON_GetObjectItemCaseSensitive(root, "verdict");
		if (vj) {
			rc = verdict_from_json(al, vj, &out->verdict, err, errlen, &out->focus);
			if (rc)
				goto out;
			out->kind = AGENT_REPLY_VERDICT;
			rc = reasoning(out, res->text);
			goto out;
		}
		rc = step_from_json(al, json, &s, err, errlen);
		if (rc)
			goto out;
	}
	out->kind = AGENT_REPLY_PROPOSAL;
	out->step = s;
	rc = reasoning(out, res->text);
out:
	cJSON_Delete(root);
	free(json);
	return rc;
}
