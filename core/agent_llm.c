/* agent_llm — the LLM behind the agent interface (see agent_llm.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "agent_llm.h"
#include "json_safe.h"
#include "calib.h"
#include "redact.h"

#ifndef ARGUS_DATADIR
#define ARGUS_DATADIR "/usr/local/share/argus"
#endif

#define AL_DEFAULT_BUDGET  6000
#define AL_HISTORY_MAX     60     /* lines of history kept in the prompt */
#define AL_REASON_LINES    12
#define AL_REASON_WIDTH    200

enum al_state {
	AL_IDLE,
	AL_TURN,      /* the first request of a turn is out */
	AL_REPAIR,    /* the repair request is out */
};

struct agent_llm {
	struct agent base;
	struct llm *llm;
	struct agent_llm_opts o;
	char *model;
	char *system;               /* the rendered system prompt */
	char *turn_tmpl;
	char *schema;               /* prompts/step.schema.json, the tool's parameters */
	enum al_state state;
	struct agent_ctx ctx;       /* of the turn in flight */
	char *turn_text;            /* the user message of the turn in flight */
	char *first_reply;          /* the reply a repair quotes */
	char *first_error;
	char **history;
	unsigned nhistory;
	char **vetoes;
	unsigned nvetoes;
	char *pending;              /* the last proposal, described */
	unsigned nsteps;
	unsigned turns;
	struct agent_hyp hyp[AGENT_LLM_MAX_HYP];
	unsigned nhyp;
	struct agent_llm_stats st;
	char error[512];
};

/* ---- small helpers ------------------------------------------------------------- */

static int strv_push(char ***v, unsigned *n, char *s)
{
	char **nv;

	if (!s)
		return -ENOMEM;
	nv = realloc(*v, (*n + 1) * sizeof(**v));
	if (!nv) {
		free(s);
		return -ENOMEM;
	}
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static void strv_free(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static int reply_line(struct agent_reply *r, const char *s, size_t len)
{
	char *l;

	if (len > AL_REASON_WIDTH)
		len = AL_REASON_WIDTH;
	l = strndup(s, len);
	if (!l)
		return -ENOMEM;
	for (char *p = l; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return strv_push(&r->lines, &r->nlines, l);
}

struct sbuf {
	char *p;
	size_t len, cap;
	int oom;
};

static void sb_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		{
			size_t cap = b->cap ? b->cap * 2 : 1024;
			char *np;

			while (cap < b->len + n + 1)
				cap *= 2;
			np = realloc(b->p, cap);
			if (!np) {
				b->oom = 1;
				return;
			}
			b->p = np;
			b->cap = cap;
		}
	}
}

static char *sb_take(struct sbuf *b)
{
	if (b->oom) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	if (!b->p)
		return strdup("");
	return b->p;
}

/* ---- prompts -------------------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	struct sbuf b = { 0 };
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sb_addf(&b, "%.*s", (int)n, chunk);
	fclose(f);
	return sb_take(&b);
}

/* The first of the search path that has file name; *cause lists the places. */
static char *prompt_load(const char *dir, const char *name, char **cause)
{
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	const char *data = getenv("ARGUS_DATADIR");
	char *paths[4] = { 0 }, *text = NULL;
	int np = 0;

	if (dir) {
		paths[np++] = xasprintf("%s/%s", dir, name);
	} else {
		if (x && *x == '/')
			paths[np++] = xasprintf("%s/argus/prompts/%s", x, name);
		else if (home && *home)
			paths[np++] = xasprintf("%s/.config/argus/prompts/%s", home, name);
		paths[np++] = xasprintf("%s/prompts/%s", data && *data ? data : ARGUS_DATADIR, name);
		paths[np++] = xasprintf("prompts/%s", name);
	}
	for (int i = 0; i < np && !text; i++)
		if (paths[i])
			text = slurp(paths[i]);
	if (!text && cause) {
		*cause = xasprintf("prompt file %s not found (looked in %s%s%s%s%s); "
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
	struct sbuf b = { 0 };
	const char *p = tmpl;

	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		size_t i;

		if (!open) {
			sb_addf(&b, "%s", p);
			break;
		}
		sb_addf(&b, "%.*s", (int)(open - p), p);
		close = strstr(open + 2, "}}");
		if (!close) {
			sb_addf(&b, "%s", open);
			break;
		}
		for (i = 0; i < n; i++)
			if (strlen(names[i]) == (size_t)(close - open - 2) &&
			    !strncmp(open + 2, names[i], close - open - 2))
				break;
		if (i < n)
			sb_addf(&b, "%s", vals[i] ? vals[i] : "");
		else
			sb_addf(&b, "%.*s", (int)(close + 2 - open), open);
		p = close + 2;
	}
	return sb_take(&b);
}

/* ---- the tree as text ------------------------------------------------------------- */

struct rnode {
	const struct tree_node *n;
	size_t line_len;
	int sel;
};

static int rnode_cmp_ptr(const void *a, const void *b)
{
	const struct tree_node *x = ((const struct rnode *)a)->n, *y = ((const struct rnode *)b)->n;

	return x < y ? -1 : x > y;
}

static int rnode_cmp_rank(const void *a, const void *b)
{
	const struct tree_node *x = (*(const struct rnode *const *)a)->n;
	const struct tree_node *y = (*(const struct rnode *const *)b)->n;
	double dx = fabs(x->stat.delta), dy = fabs(y->stat.delta);

	if (x->stat.significant != y->stat.significant)
		return y->stat.significant - x->stat.significant;
	if (dx != dy)
		return dx < dy ? 1 : -1;
	if (tree_node_sum(x) != tree_node_sum(y))
		return tree_node_sum(x) < tree_node_sum(y) ? 1 : -1;
	return x->depth < y->depth ? -1 : x->depth > y->depth;
}

static struct rnode *rnode_find(struct rnode *v, size_t n, const struct tree_node *node)
{
	struct rnode key = { .n = node };

	return bsearch(&key, v, n, sizeof(*v), rnode_cmp_ptr);
}

static void fmt_num(char *buf, size_t len, double x)
{
	if (isinf(x))
		snprintf(buf, len, "inf");
	else if (fabs(x) >= 100 || x == floor(x))
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.3g", x);
}

static void node_line(const struct tree_node *n, const struct tree_node *focus, char *buf,
		      size_t len)
{
	const struct calib_stat *s = &n->stat;
	char r[32], l[32], d[32], x[32];

	fmt_num(r, sizeof(r), s->rate[COND_REF]);
	fmt_num(l, sizeof(l), s->rate[COND_LOAD]);
	fmt_num(d, sizeof(d), s->delta);
	fmt_num(x, sizeof(x), s->ratio);
	snprintf(buf, len, "%*s%s  ref %s  load %s  delta %s%s  x%s  q %.2g%s%s%s", (int)n->depth * 2,
		 "", n->name ? n->name : "?", r, l, s->delta > 0 ? "+" : "", d, x, s->q,
		 s->significant ? "  SIG" : "",
		 n->presence == TREE_NEW ? "  NEW" : n->presence == TREE_VANISHED ? "  GONE" : "",
		 n == focus ? "  <- FOCUS (the person asked to look here)" : "");
}

static void collect(const struct tree_node *n, struct rnode *v, size_t *k, size_t max)
{
	if (*k >= max)
		return;
	v[(*k)++].n = n;
	for (unsigned i = 0; i < n->nchild; i++)
		collect(n->child[i], v, k, max);
}

static size_t count(const struct tree_node *n)
{
	size_t c = 1;

	for (unsigned i = 0; i < n->nchild; i++)
		c += count(n->child[i]);
	return c;
}

static void render(struct sbuf *b, const struct tree_node *n, struct rnode *v, size_t nv,
		   const struct tree_node *focus)
{
	char line[512];
	unsigned left = 0;

	for (unsigned i = 0; i < n->nchild; i++) {
		struct rnode *r = rnode_find(v, nv, n->child[i]);

		if (!r || !r->sel)
			left++;
	}
	node_line(n, focus, line, sizeof(line));
	if (left && left == n->nchild)
		sb_addf(b, "%s  (+%u children)\n", line, left);
	else if (left)
		sb_addf(b, "%s  (+%u more)\n", line, left);
	else
		sb_addf(b, "%s\n", line);
	for (unsigned i = 0; i < n->nchild; i++) {
		struct rnode *r = rnode_find(v, nv, n->child[i]);

		if (r && r->sel)
			render(b, n->child[i], v, nv, focus);
	}
}

char *agent_llm_render_tree(const struct tree *t, const struct tree_node *focus, size_t budget)
{
	struct rnode *v = NULL, **rank = NULL;
	struct sbuf b = { 0 };
	size_t n, k = 0, used = 0;
	char line[512];
	char *out = NULL;

	if (!t || !t->root)
		return strdup("(no tree: nothing measured yet)\n");
	if (!budget)
		budget = AL_DEFAULT_BUDGET;
	n = count(t->root);
	v = calloc(n, sizeof(*v));
	rank = calloc(n, sizeof(*rank));
	if (!v || !rank)
		goto out;
	collect(t->root, v, &k, n);
	for (size_t i = 0; i < n; i++) {
		node_line(v[i].n, focus, line, sizeof(line));
		v[i].line_len = strlen(line) + 16; /* room for "(+N more)" */
	}
	qsort(v, n, sizeof(*v), rnode_cmp_ptr);
	for (size_t i = 0; i < n; i++)
		rank[i] = &v[i];
	qsort(rank, n, sizeof(*rank), rnode_cmp_rank);
	/* the root and the focus (with its path) always; then by rank */
	{
		const struct tree_node *must[2] = { t->root, focus };

		for (int m = 0; m < 2; m++) {
			for (const struct tree_node *p = must[m]; p; p = p->parent) {
				struct rnode *r = rnode_find(v, n, p);

				if (r && !r->sel) {
					r->sel = 1;
					used += r->line_len;
				}
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		size_t cost = 0;
		const struct tree_node *p;

		if (rank[i]->sel)
			continue;
		for (p = rank[i]->n; p; p = p->parent) {
			struct rnode *r = rnode_find(v, n, p);

			if (r && !r->sel)
				cost += r->line_len;
		}
		if (used + cost > budget)
			continue; /* a cheaper one further down may still fit */
		for (p = rank[i]->n; p; p = p->parent) {
			struct rnode *r = rnode_find(v, n, p);

			if (r)
				r->sel = 1;
		}
		used += cost;
	}
	render(&b, t->root, v, n, focus);
	out = sb_take(&b);
	b.p = NULL;
out:
	if (!out && !errno)
		errno = ENOMEM;
	free(v);
	free(rank);
	return out;
}

/* ---- replies ------------------------------------------------------------------- */

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

/* Registers what a step names about the user's processes, so that later
 * prompts (its description in the history) redact it. */
static void redact_step(struct agent_llm *al, const struct step *s)
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
		if (p->kind == TREE_PROCESS || v->npath == VERDICT_MAX_PATH)
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
				struct sbuf b = { 0 };

				for (unsigned k = 0; k < node->nchild && k < 8; k++)
					sb_addf(&b, "%s%s", k ? ", " : "", node->child[k]->name);
				snprintf(err, errlen, "verdict.path[%d]: '%s' is not a child of '%s' in the "
					 "tree (its children: %s)", i, e->valuestring, node->name,
					 b.p && !b.oom ? b.p : "none");
				free(b.p);
				goto bad;
			}
			node = c;
			if (node->kind == TREE_SUBSYS)
				snprintf(v->subsystem, sizeof(v->subsystem), "%s", node->name);
			if (node->kind == TREE_SUBSYS || node->kind == TREE_PROCESS) {
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
		char **nn;

		if (!cJSON_IsString(e))
			continue;
		nn = realloc(v->notes, (v->nnotes + 1) * sizeof(*nn));
		if (!nn)
			goto nomem;
		v->notes = nn;
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
			err = reply_line(out, s, len);
		if (err)
			return err;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static void copy_trim(char *dst, size_t len, const char *s, size_t n)
{
	while (n && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
}

/* Updates the ledger from "hypothesis: NAME: STATUS: EVIDENCE" lines. */
static void ledger_update(struct agent_llm *al, const char *text)
{
	static const char *const states[] = { "open", "supported", "refuted" };
	const char *p = text;

	while (p && *p) {
		const char *e = strchr(p, '\n'), *s = p, *c1, *c2;
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char name[64], status[16];
		unsigned i, k;

		p = e ? e + 1 : NULL;
		while (len && (isspace((unsigned char)*s) || *s == '-' || *s == '*')) {
			s++;
			len--;
		}
		if (len < 11 || strncasecmp(s, "hypothesis:", 11))
			continue;
		s += 11;
		len -= 11;
		c1 = memchr(s, ':', len);
		if (!c1)
			continue;
		c2 = memchr(c1 + 1, ':', len - (c1 + 1 - s));
		copy_trim(name, sizeof(name), s, c1 - s);
		copy_trim(status, sizeof(status), c1 + 1, (c2 ? c2 : s + len) - (c1 + 1));
		for (k = 0; k < 3; k++)
			if (!strcasecmp(status, states[k]))
				break;
		if (!name[0] || k == 3)
			continue;
		for (i = 0; i < al->nhyp; i++)
			if (!strcasecmp(al->hyp[i].name, name))
				break;
		if (i == al->nhyp) {
			if (al->nhyp == AGENT_LLM_MAX_HYP)
				continue;
			al->nhyp++;
			memset(&al->hyp[i], 0, sizeof(al->hyp[i]));
			snprintf(al->hyp[i].name, sizeof(al->hyp[i].name), "%s", name);
		}
		snprintf(al->hyp[i].status, sizeof(al->hyp[i].status), "%s", states[k]);
		if (c2)
			copy_trim(al->hyp[i].evidence, sizeof(al->hyp[i].evidence), c2 + 1,
				  s + len - (c2 + 1));
		al->hyp[i].turn = al->turns;
	}
}

static char *ledger_text(const struct agent_llm *al)
{
	struct sbuf b = { 0 };

	if (!al->nhyp)
		sb_addf(&b, "(none yet)\n");
	for (unsigned i = 0; i < al->nhyp; i++)
		sb_addf(&b, "hypothesis: %s: %s%s%s (turn %u)\n", al->hyp[i].name, al->hyp[i].status,
			al->hyp[i].evidence[0] ? ": " : "", al->hyp[i].evidence, al->hyp[i].turn);
	return sb_take(&b);
}

unsigned agent_llm_hypotheses(const struct agent *a, const struct agent_hyp **out)
{
	const struct agent_llm *al = a->priv;

	*out = al->hyp;
	return al->nhyp;
}

/* Turns a reply into out; -EINVAL with err when it is not usable. */
static int interpret(struct agent_llm *al, const struct llm_result *res, struct agent_reply *out,
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
			snprintf(err, errlen, "out of memory reading the reply");
			rc = -ENOMEM;
			goto out;
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

/* ---- the turn ------------------------------------------------------------------- */

static char *catalog(const struct agent_llm_opts *o)
{
	struct sbuf b = { 0 };

	for (int k = 0; k < STEP_KIND_N; k++) {
		if (o->kinds_mask && !(o->kinds_mask & (1u << k)))
			continue;
		sb_addf(&b, "- %s: %s\n", step_kind_name(k), step_kind_help(k));
	}
	return sb_take(&b);
}

static char *strv_join(char **v, unsigned n, unsigned from, const char *none)
{
	struct sbuf b = { 0 };

	if (from >= n)
		sb_addf(&b, "%s\n", none);
	for (unsigned i = from; i < n; i++)
		sb_addf(&b, "%s\n", v[i]);
	return sb_take(&b);
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
	for (unsigned i = 0; i < n->nchild; i++)
		if (n->child[i]->kind == TREE_PROCESS || n->kind == TREE_ROOT)
			redact_procs(r, n->child[i]);
}

static char *turn_text(struct agent_llm *al, const struct agent_ctx *ctx)
{
	char idx[16], max[16], *tree, *hist, *vet, *focus = NULL, *hyp, *out = NULL;
	const char *names[] = { "STEP_INDEX", "STEP_MAX", "FOCUS", "TREE", "HISTORY", "VETOES",
				"HYPOTHESES" };

	snprintf(idx, sizeof(idx), "%u", ctx->step_index);
	snprintf(max, sizeof(max), "%u", ctx->step_max);
	tree = agent_llm_render_tree(ctx->tree, ctx->focus, al->o.tree_budget);
	hist = strv_join(al->history, al->nhistory,
			 al->nhistory > AL_HISTORY_MAX ? al->nhistory - AL_HISTORY_MAX : 0,
			 "(none yet)");
	vet = strv_join(al->vetoes, al->nvetoes, 0, "(none)");
	hyp = ledger_text(al);
	if (ctx->focus && ctx->focus->name)
		focus = xasprintf("The person asked you to look at node '%s'.\n", ctx->focus->name);
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
	char *fix = xasprintf("Your reply could not be used: %s.\nReply again: a few lines of "
			      "reasoning, then exactly one %s call (or the step object alone in a "
			      "```json block), or a verdict object in a ```json block.",
			      why, LLM_TOOL_NAME);
	struct llm_msg m[3] = {
		{ LLM_USER, al->turn_text },
		{ LLM_ASSISTANT, al->first_reply },
		{ LLM_USER, fix },
	};
	int rc;

	if (fix && al->o.redact) {
		char *r = redact_text(al->o.redact, fix);

		free(fix);
		fix = r;
		m[2].content = fix;
	}
	if (!fix)
		return -ENOMEM;
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
	al->turn_text = turn_text(al, ctx);
	if (!al->turn_text) {
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
	rc = interpret(al, &res, out, err, sizeof(err));
	if (rc == 0) {
		if (res.text)
			ledger_update(al, res.text);
		char desc[256], acct[160];

		snprintf(acct, sizeof(acct), "llm: %.2f s, %lu tokens in, %lu out%s",
			 al->st.last_latency_s, al->st.last_tokens_in, al->st.last_tokens_out,
			 al->state == AL_REPAIR ? " (after one repair turn)" : "");
		if (al->state == AL_REPAIR && al->first_error) {
			char *l = xasprintf("llm: first reply unusable (%s)", al->first_error);

			if (l)
				reply_line(out, l, strlen(l));
			free(l);
		}
		reply_line(out, acct, strlen(acct));
		if (out->kind == AGENT_REPLY_PROPOSAL) {
			redact_step(al, out->step);
			step_describe(out->step, desc, sizeof(desc));
			free(al->pending);
			al->pending = strdup(desc);
		} else if (out->kind == AGENT_REPLY_VERDICT) {
			strv_push(&al->history, &al->nhistory,
				  xasprintf("you gave a verdict: %s", out->verdict.summary ?
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
			? xasprintf("%s%s%s(%s)", res.text ? res.text : "", res.text && *res.text ? "\n" : "",
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
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("step %u: %s -- accepted", al->nsteps, pend));
		break;
	case AGENT_EV_EDITED:
		al->nsteps++;
		redact_step(al, ev->step);
		if (ev->step)
			step_describe(ev->step, desc, sizeof(desc));
		else
			snprintf(desc, sizeof(desc), "?");
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("step %u: you proposed %s; the person edited it to %s and "
					 "accepted that", al->nsteps, pend, desc));
		break;
	case AGENT_EV_VETOED:
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("you proposed %s -- VETOED by the person%s%s", pend,
					 ev->text && *ev->text ? ": " : " (no reason given)",
					 ev->text && *ev->text ? ev->text : ""));
		if (!rc)
			rc = strv_push(&al->vetoes, &al->nvetoes,
				       xasprintf("- %s%s%s", pend, ev->text && *ev->text ? ": " : "",
						 ev->text && *ev->text ? ev->text : ""));
		break;
	case AGENT_EV_RESULT:
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("  result of step %u: %s", al->nsteps,
					 ev->text ? ev->text : "(none)"));
		break;
	case AGENT_EV_SAY:
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("the person said: %s", ev->text ? ev->text : ""));
		if (!rc && out) {
			memset(out, 0, sizeof(*out));
			out->kind = AGENT_REPLY_TEXT;
			out->text = strdup("noted; the next turn sends it to the LLM");
			if (!out->text)
				rc = -ENOMEM;
		}
		break;
	case AGENT_EV_FOCUS:
		rc = strv_push(&al->history, &al->nhistory,
			       xasprintf("the person asked you to look at node '%s'",
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
	strv_free(al->history, al->nhistory);
	strv_free(al->vetoes, al->nvetoes);
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
	sys = prompt_load(al->o.prompt_dir, "system.txt", cause);
	al->turn_tmpl = sys ? prompt_load(al->o.prompt_dir, "turn.txt", cause) : NULL;
	schema = al->turn_tmpl ? prompt_load(al->o.prompt_dir, "step.schema.json", cause) : NULL;
	if (!schema) {
		err = errno ? errno : ENOENT;
		goto fail;
	}
	kinds = catalog(&al->o);
	if (!kinds)
		goto nomem;
	{
		const char *names[] = { "KINDS", "SCHEMA" };
		const char *vals[] = { kinds, schema };

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
			*cause = xasprintf("cannot set up the LLM client: %s", strerror(err));
		goto fail;
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

const char *agent_llm_error(const struct agent *a)
{
	return ((const struct agent_llm *)a->priv)->error;
}

void agent_llm_stats(const struct agent *a, struct agent_llm_stats *out)
{
	*out = ((const struct agent_llm *)a->priv)->st;
}
