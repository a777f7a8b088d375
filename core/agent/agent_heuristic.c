/* agent_heuristic — the built-in agent: the tree-guided descent
 * (core/analysis/descent.c, agent_descend) gives the verdict, then (issue 4) a rule
 * table turns the verdict path into the next instrumentation step.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_heuristic.h"
#include "agent/agent_second.h"
#include "analysis/calib.h"
#include "analysis/descent.h"
#include "data/step.h"


int agent_descend(struct tree *t, const struct tree_node *start, double explain,
		  struct verdict *v, struct agent_reply *r)
{
	/* the descent appends to the reply's own lines: they change hands, not copies */
	struct descent_why why = { r ? r->lines : NULL, r ? r->nlines : 0 };
	int err = descent_run(t, start, explain, v, r ? &why : NULL);

	if (r) {
		r->lines = why.lines;
		r->nlines = why.nlines;
	}
	return err;
}

static int name_has_prefix(const char *name, const char *prefix)
{
	return !strncmp(name, prefix, strlen(prefix));
}

/* ---- rules: from the verdict to the next step (issue 4) ------------------- */

/* RULE TABLE (issue 4 item 9).  Each rule: a predicate over the verdict
 * path and the increased frames, and a proposal builder.  At each turn the
 * first matching rule that has not proposed yet builds a step (core/step)
 * and the turn returns AGENT_REPLY_PROPOSAL, with the interim verdict in the
 * reply as well; when no rule is left, or the step budget is spent, or the
 * person said "stop", the turn returns the verdict.  The step is checked for
 * its required fields here; validation against this kernel (caps) is the
 * caller's, before the person is asked.  To add a rule: a frame list, a
 * when_ predicate, a row in heur_rules. */

struct rule_in {
	const struct tree *t;
	const struct verdict *v;
};

struct heur_rule {
	const char *name;
	int (*when)(const struct rule_in *in);
	int (*propose)(const struct heur_rule *rule, const struct rule_in *in,
		       struct agent_reply *out);
	const char *kind;    /* core/step kind */
	const char *target;  /* tracepoint(s) or function, or NULL */
	const char *begin, *end; /* tracepoint_latency pairs */
	const char *why;
	const char *expect;
};

static int path_has(const struct verdict *v, const char *const *names)
{
	for (unsigned i = 0; i < v->npath; i++)
		for (const char *const *n = names; *n; n++)
			if (name_has_prefix(v->path[i], *n))
				return 1;
	return 0;
}

struct up_find {
	const char *const *names;
};

static int up_find_cb(struct tree_node *n, void *arg)
{
	const struct up_find *f = arg;

	if (!descent_is_up(n))
		return 0;
	for (const char *const *p = f->names; *p; p++)
		if (name_has_prefix(n->name, *p))
			return 1;
	return 0;
}

/* on the verdict path, or anywhere among the significant increases */
static int frames_in_delta(const struct rule_in *in, const char *const *names)
{
	struct up_find f = { names };

	return path_has(in->v, names) ||
	       tree_walk(in->t->root, up_find_cb, &f) == 1;
}

static int in_subsys(const struct rule_in *in, const char *s)
{
	return !strcmp(in->v->subsystem, s);
}

static const char *const fr_compaction[] = { "compact_", "try_to_compact_pages",
	"__alloc_pages_direct_compact", "kcompactd", "isolate_migratepages", NULL };
static const char *const fr_reclaim[] = { "__alloc_pages_direct_reclaim",
	"try_to_free_pages", "do_try_to_free_pages", "shrink_node", "shrink_lruvec", NULL };
static const char *const fr_thp[] = { "do_huge_pmd_", "__do_huge_pmd_",
	"vma_alloc_anon_folio_pmd", "khugepaged", "collapse_huge_page", NULL };
static const char *const fr_fault[] = { "exc_page_fault", "do_user_addr_fault",
	"handle_mm_fault", "__handle_mm_fault", NULL };
static const char *const fr_lock[] = { "native_queued_spin_lock_slowpath",
	"queued_spin_lock_slowpath", "__mutex_lock", "rwsem_down_", "osq_lock", NULL };
static const char *const fr_futex[] = { "futex_", "__x64_sys_futex", "do_futex", NULL };
static const char *const fr_block[] = { "submit_bio", "blk_mq_", "vp_notify", NULL };

static int when_compaction(const struct rule_in *in)
{
	return frames_in_delta(in, fr_compaction);
}

static int when_reclaim(const struct rule_in *in)
{
	return frames_in_delta(in, fr_reclaim);
}

static int when_thp(const struct rule_in *in)
{
	return in_subsys(in, "mm") && path_has(in->v, fr_thp);
}

static int when_page_faults(const struct rule_in *in)
{
	return in_subsys(in, "mm") && path_has(in->v, fr_fault);
}

static int when_lock(const struct rule_in *in)
{
	return path_has(in->v, fr_lock);
}

static int when_sched(const struct rule_in *in)
{
	return in_subsys(in, "sched") || path_has(in->v, fr_futex);
}

/* A wall-clock verdict through blocked time in any subsystem: it is named
 * by where it waited (a pipe read is fs, a page-cache read mm), no longer
 * sched, and who woke it and from which user code it waited are still
 * the offcpu step's to see. */
static int when_blocked(const struct rule_in *in)
{
	return !strcmp(in->v->time, "blocked");
}

static int when_block(const struct rule_in *in)
{
	return in_subsys(in, "block") || path_has(in->v, fr_block);
}

#define RULE_DURATION_S "5"

static int rule_propose(const struct heur_rule *rule, const struct rule_in *in,
			struct agent_reply *out)
{
	char rationale[512];
	struct agent_step_spec sp = {
		.kind = rule->kind, .target = rule->target, .begin = rule->begin,
		.end = rule->end, .duration_s = RULE_DURATION_S, .rationale = rationale,
		.expect = rule->expect,
	};

	snprintf(rationale, sizeof(rationale), "%s (verdict so far: %s > %s, %+.1f/s)",
		 rule->why, in->v->subsystem, in->v->leaf ? in->v->leaf : "?", in->v->delta);
	return agent_reply_propose(out, &sp, "rule", rule->name);
}

/* Order matters: the most specific first. */
static const struct heur_rule heur_rules[] = {
	{ "compaction", when_compaction, rule_propose, "tracepoint_latency", NULL,
	  "compaction:mm_compaction_begin", "compaction:mm_compaction_end",
	  "compaction frames in the delta: how long does compaction take in each condition",
	  "compaction latency (p99) grows when loaded" },
	{ "direct_reclaim", when_reclaim, rule_propose, "tracepoint_latency", NULL,
	  "vmscan:mm_vmscan_direct_reclaim_begin", "vmscan:mm_vmscan_direct_reclaim_end",
	  "direct reclaim frames in the delta: how long do allocations stall in reclaim",
	  "more and longer direct reclaim stalls when loaded" },
	{ "thp_faults", when_thp, rule_propose, "counts", "huge_memory:*", NULL, NULL,
	  "huge page frames on the path: which THP events grow",
	  "huge_memory event rates grow when loaded" },
	{ "page_faults", when_page_faults, rule_propose, "tracepoint_stacks",
	  "exceptions:page_fault_user", NULL, NULL,
	  "an mm delta through the page-fault path: count faults per kernel stack",
	  "user page faults grow when loaded, on the verdict path" },
	{ "lock_contention", when_lock, rule_propose, "tracepoint_latency", NULL,
	  "lock:contention_begin", "lock:contention_end",
	  "lock slow paths on the path: how long is the lock contended",
	  "longer lock contention when loaded" },
	{ "sched_offcpu", when_sched, rule_propose, "offcpu", NULL, NULL, NULL,
	  "a sched or futex delta: where do threads block, and who wakes them",
	  "more blocked time on the verdict path when loaded" },
	{ "block_latency", when_block, rule_propose, "tracepoint_latency", NULL,
	  "block:block_rq_issue", "block:block_rq_complete",
	  "block I/O on the path: request latency in each condition",
	  "block request latency grows when loaded" },
	{ "blocked_offcpu", when_blocked, rule_propose, "offcpu", NULL, NULL, NULL,
	  "a blocked verdict: where do threads block, from which code, and who wakes them",
	  "more blocked time on the verdict path when loaded" },
};

#define HEUR_NRULES (sizeof(heur_rules) / sizeof(heur_rules[0]))
_Static_assert(HEUR_NRULES <= 32, "rule bitmask");

/* ---- the agent ---------------------------------------------------------------- */

struct heur {
	uint64_t focus_id;     /* 0: none */
	char *focus_name;      /* NULL: none */
	int stopped;
	uint32_t used;         /* rules that proposed already, bit per row */
	char **why;            /* the last turn's lines */
	unsigned nwhy;
	/* the second opinion (core/agent/agent_second.c) */
	int second;            /* a veto or an `r` asks for the next-best step */
	int gave_verdict;      /* the last turn ended in a verdict, no proposal */
	uint32_t alt_used;     /* catalog entries proposed already */
	char *veto_reason;     /* the last veto's reason; NULL: none */
	char veto_kind[32];    /* the vetoed step's kind; "": none */
};

static void heur_why_clear(struct heur *h)
{
	for (unsigned i = 0; i < h->nwhy; i++)
		free(h->why[i]);
	free(h->why);
	h->why = NULL;
	h->nwhy = 0;
}

static int heur_why_keep(struct heur *h, const struct agent_reply *r)
{
	heur_why_clear(h);
	if (!r->nlines)
		return 0;
	h->why = calloc(r->nlines, sizeof(*h->why));
	if (!h->why)
		return -ENOMEM;
	for (unsigned i = 0; i < r->nlines; i++) {
		h->why[i] = strdup(r->lines[i]);
		if (!h->why[i])
			return -ENOMEM;
		h->nwhy++;
	}
	return 0;
}

struct name_find {
	const char *name;
	const struct tree_node *best;
};

static int name_find_cb(struct tree_node *n, void *arg)
{
	struct name_find *f = arg;

	if (n->parent && descent_name_is(n->name, f->name) &&
	    (!f->best || fabs(n->stat.delta) > fabs(f->best->stat.delta)))
		f->best = n;
	return 0;
}

static const struct tree_node *heur_focus(const struct heur *h, const struct agent_ctx *ctx)
{
	struct name_find f = { 0 };

	if (ctx->focus)
		return ctx->focus;
	if (h->focus_id) {
		const struct tree_node *n = tree_find_id(ctx->tree, h->focus_id);

		if (n)
			return n;
	}
	if (!h->focus_name)
		return NULL;
	f.name = h->focus_name;
	tree_walk(ctx->tree->root, name_find_cb, &f);
	return f.best;
}

/* the deepest node marked TREE_F_VERDICT, or NULL */
static const struct tree_node *verdict_node(const struct tree *t)
{
	const struct tree_node *n = t->root;

	if (!n || !(n->flags & TREE_F_VERDICT))
		return NULL;
	for (;;) {
		const struct tree_node *next = NULL;

		for (unsigned i = 0; i < n->nchild && !next; i++)
			if (n->child[i]->flags & TREE_F_VERDICT)
				next = n->child[i];
		if (!next)
			return n;
		n = next;
	}
}

static int heur_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	struct heur *h = a->priv;
	const struct tree_node *focus;
	int err;

	memset(out, 0, sizeof(*out));
	if (!ctx || !ctx->tree)
		return -EINVAL;
	focus = heur_focus(h, ctx);
	if (!focus && (h->focus_id || h->focus_name)) {
		err = agent_reply_line(out, "focus %s is not in this tree: descending from the root",
				       h->focus_name ? h->focus_name : "node");
		if (err)
			goto cleanup;
	}
	out->kind = AGENT_REPLY_VERDICT;
	/* the descent marks the verdict path on the tree the caller shows */
	err = agent_descend((struct tree *)ctx->tree, focus, DESCENT_EXPLAIN_DEFAULT,
			    &out->verdict, out);
	if (err)
		goto cleanup;
	/* the node the reply concerns: the person's focus, else where the
	 * descent stopped */
	out->focus = focus ? focus : verdict_node(ctx->tree);
	if (out->verdict.found && !h->stopped && ctx->step_index < ctx->step_max) {
		struct rule_in in = { ctx->tree, &out->verdict };

		for (size_t i = 0; i < HEUR_NRULES; i++) {
			const struct heur_rule *rule = &heur_rules[i];
			char desc[256];

			if (!rule->when(&in))
				continue;
			if (h->used & (1u << i)) {
				err = agent_reply_line(out, "rule %s matches again; its step was proposed already",
						       rule->name);
				if (err)
					goto cleanup;
				continue;
			}
			err = rule->propose(rule, &in, out);
			if (err == -EINVAL) { /* said why in a line; try the next rule */
				h->used |= 1u << i;
				err = 0;
				continue;
			}
			if (err)
				goto cleanup;
			h->used |= 1u << i;
			err = agent_reply_line(out, "rule %s: %s -> propose %s", rule->name, rule->why,
					       step_describe(out->step, desc, sizeof(desc)));
			if (err)
				goto cleanup;
			break;
		}
	}
	/* a second opinion: asked for after a veto or an `r` on a verdict */
	if (!err && out->kind == AGENT_REPLY_VERDICT && out->verdict.found && !h->stopped &&
	    ctx->step_index < ctx->step_max && (h->second || h->gave_verdict)) {
		err = agent_second_propose(&out->verdict, h->veto_reason,
					   h->veto_kind[0] ? h->veto_kind : NULL, &h->alt_used, out);
		if (err)
			goto cleanup;
	}
	h->second = 0;
	h->gave_verdict = out->kind == AGENT_REPLY_VERDICT;
	if (out->kind == AGENT_REPLY_PROPOSAL) {
		free(h->veto_reason);
		h->veto_reason = NULL;
		h->veto_kind[0] = 0;
	}
	if (out->verdict.found && ctx->step_index >= ctx->step_max && ctx->step_max) {
		err = agent_reply_line(out, "the step budget (%u) is spent: the verdict stands",
				       ctx->step_max);
		if (err)
			goto cleanup;
	}
	err = heur_why_keep(h, out);
cleanup:
	return err;
}

static char *heur_join_why(const struct heur *h)
{
	size_t len = 1;
	char *s;

	if (!h->nwhy)
		return strdup("no decision yet: nothing has been descended");
	for (unsigned i = 0; i < h->nwhy; i++)
		len += strlen(h->why[i]) + 1;
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = 0;
	for (unsigned i = 0; i < h->nwhy; i++) {
		strcat(s, h->why[i]);
		if (i + 1 < h->nwhy)
			strcat(s, "\n");
	}
	return s;
}

static int heur_set_focus_name(struct heur *h, const char *name)
{
	char *dup = NULL;

	if (name && *name) {
		dup = strdup(name);
		if (!dup)
			return -ENOMEM;
	}
	free(h->focus_name);
	h->focus_name = dup;
	h->focus_id = 0;
	return 0;
}

static int heur_text(struct agent_reply *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int heur_text(struct agent_reply *out, const char *fmt, ...)
{
	va_list ap;
	int n;

	out->kind = AGENT_REPLY_TEXT;
	va_start(ap, fmt);
	n = vasprintf(&out->text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		out->text = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int heur_focus_text(struct agent_reply *out, const char *name)
{
	if (name && *name)
		return heur_text(out, "focus on %s: the next turn descends from there", name);
	return heur_text(out, "focus cleared: the next turn descends from the root");
}

static int heur_tell(struct agent *a, const struct agent_event *ev, struct agent_reply *out)
{
	struct heur *h = a->priv;
	char word[64];
	const char *s, *rest;
	size_t n;
	int err = 0;

	if (!ev)
		return -EINVAL;
	switch (ev->kind) {
	case AGENT_EV_FOCUS:
		err = heur_set_focus_name(h, ev->node ? ev->node->name : ev->text);
		if (err)
			return err;
		if (ev->node)
			h->focus_id = ev->node->id;
		return out ? heur_focus_text(out, h->focus_name) : 0;
	case AGENT_EV_SAY:
		break;
	case AGENT_EV_VETOED:
		/* the next turn gives a second opinion, steered by the reason */
		h->second = 1;
		free(h->veto_reason);
		h->veto_reason = ev->text && *ev->text ? strdup(ev->text) : NULL;
		snprintf(h->veto_kind, sizeof(h->veto_kind), "%s",
			 ev->step && step_kind_name(ev->step->kind) ? step_kind_name(ev->step->kind) : "");
		return 0;
	default:
		return 0; /* accepted / edited / vetoed / results: nothing to answer yet */
	}
	s = ev->text ? ev->text : "";
	while (isspace((unsigned char)*s))
		s++;
	n = strcspn(s, " \t\n");
	snprintf(word, sizeof(word), "%.*s", (int)(n < sizeof(word) - 1 ? n : sizeof(word) - 1), s);
	for (char *p = word; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	rest = s + n;
	while (isspace((unsigned char)*rest))
		rest++;
	if (!strcmp(word, "why") || !strcmp(word, "why?")) {
		if (!out)
			return 0;
		out->kind = AGENT_REPLY_TEXT;
		out->text = heur_join_why(h);
		return out->text ? 0 : -ENOMEM;
	}
	if (!strcmp(word, "stop")) {
		h->stopped = 1;
		return out ? heur_text(out, "stopping: no more steps; the next turn gives the verdict "
				       "from the tree as measured") : 0;
	}
	if (!strcmp(word, "focus")) {
		char name[256];

		snprintf(name, sizeof(name), "%s", rest);
		name[strcspn(name, " \t\n")] = 0;
		err = heur_set_focus_name(h, name);
		if (err || !out)
			return err;
		return heur_focus_text(out, name);
	}
	if (!out)
		return 0;
	return heur_text(out, "the heuristic agent understands: \"why\" (its last decisions), "
			 "\"stop\" (no more steps), \"focus NAME\" (descend from a node); "
			 "free questions need an LLM agent (--agent llm)");
}

static void heur_free(struct agent *a)
{
	struct heur *h;

	if (!a)
		return;
	h = a->priv;
	if (h) {
		heur_why_clear(h);
		free(h->focus_name);
		free(h->veto_reason);
		free(h);
	}
	free(a);
}

static const struct agent_ops heur_ops = {
	.name = "heuristic",
	.turn = heur_turn,
	.tell = heur_tell,
	.free = heur_free,
};

struct agent *agent_heuristic_new(void)
{
	struct agent *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->priv = calloc(1, sizeof(struct heur));
	if (!a->priv) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	a->ops = &heur_ops;
	return a;
}
