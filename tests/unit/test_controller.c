/* test_controller — the step controller without a terminal or a kernel: a
 * scripted agent, a fake executor and a hand-built kernel (caps); the
 * analysis (core/analysis/analysis.h) rebuilds the tree after the result. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/analysis.h"
#include "probe/caps.h"
#include "step/controller.h"
#include "probe/kind.h"
#include "step/step_exec.h"
#include "step/step_preflight.h"

/* ---- a scripted agent ------------------------------------------------------------- */

#define MAX_TOLD 16

struct script {
	unsigned turns;
	const char *targets[4];        /* the proposal of each turn; NULL: a verdict */
	struct {
		enum agent_event_kind kind;
		char text[200];
		char target[64];
	} told[MAX_TOLD];
	unsigned ntold;
	unsigned step_index[4];        /* ctx.step_index seen at each turn */
	int tree_seen[4];              /* the turn saw a tree with a step node */
};

static int has_step_node(struct tree_node *n, void *arg)
{
	(void)arg;
	return (n->flags & TREE_F_STEP) ? 1 : 0;
}

static int sa_turn(struct agent *a, const struct agent_ctx *ctx, struct agent_reply *out)
{
	struct script *s = a->priv;
	unsigned t = s->turns++;
	char json[256];
	struct step_error e;

	assert_true(t < 4);
	s->step_index[t] = ctx->step_index;
	s->tree_seen[t] = tree_walk(ctx->tree->root, has_step_node, NULL) == 1;
	memset(out, 0, sizeof(*out));
	assert_int_equal(agent_reply_line(out, "turn %u looks at the tree", t + 1), 0);
	if (!s->targets[t]) {
		out->kind = AGENT_REPLY_VERDICT;
		out->verdict.found = 1;
		snprintf(out->verdict.subsystem, sizeof(out->verdict.subsystem), "mm");
		out->verdict.summary = strdup("mm: page faults");
		return 0;
	}
	out->kind = AGENT_REPLY_PROPOSAL;
	snprintf(json, sizeof(json), "{\"kind\":\"tracepoint_stacks\",\"target\":\"%s\","
		 "\"duration_s\":1,\"rationale\":\"test\"}", s->targets[t]);
	assert_int_equal(step_parse_json(json, strlen(json), &out->step, &e), 0);
	return 0;
}

static int sa_tell(struct agent *a, const struct agent_event *ev, struct agent_reply *out)
{
	struct script *s = a->priv;

	(void)out;
	assert_true(s->ntold < MAX_TOLD);
	s->told[s->ntold].kind = ev->kind;
	snprintf(s->told[s->ntold].text, sizeof(s->told[0].text), "%s", ev->text ? ev->text : "");
	snprintf(s->told[s->ntold].target, sizeof(s->told[0].target), "%s",
		 ev->step && ev->step->ntargets ? ev->step->targets[0] : "");
	s->ntold++;
	return 0;
}

static void sa_free(struct agent *a)
{
	free(a);
}

static const struct agent_ops script_ops = {
	.name = "script", .turn = sa_turn, .tell = sa_tell, .free = sa_free,
};

static struct agent *script_agent(struct script *s)
{
	struct agent *a = calloc(1, sizeof(*a));

	assert_non_null(a);
	a->ops = &script_ops;
	a->priv = s;
	return a;
}

/* ---- a fake executor ----------------------------------------------------------------- */

struct fake_x {
	struct step *s;
	unsigned ticks;
	int stopped;
};

static unsigned fx_started, fx_preflights;
static int fx_started_tgid;           /* the filter.tgid of the last step started */
static double fx_started_duty;        /* ... and its duty */
static int fx_preflight_err;
static double fx_overhead = 0.1;      /* the pre-flight's estimate, % of a CPU */

static void *fx_start(void *arg, const struct step *s, char **cause)
{
	struct fake_x *x = calloc(1, sizeof(*x));

	(void)arg;
	(void)cause;
	assert_non_null(x);
	x->s = step_clone(s);
	fx_started++;
	fx_started_tgid = s->filter.tgid;
	fx_started_duty = s->duty;
	return x;
}

static int fx_tick(void *x, double now, char **cause)
{
	(void)now;
	(void)cause;
	((struct fake_x *)x)->ticks++;
	return 1;
}

static int fx_timeout_ms(void *x, double now)
{
	(void)now;
	return ((struct fake_x *)x)->ticks >= 2 ? -1 : 0;
}

static int fx_finished(const void *x)
{
	return ((const struct fake_x *)x)->ticks >= 2 || ((const struct fake_x *)x)->stopped;
}

static void fx_status(void *x, struct source_status *st)
{
	(void)x;
	memset(st, 0, sizeof(*st));
	st->phase = SOURCE_STEP;
	st->dropped = 2;            /* its windows so far */
}

static void fx_info(const void *x, struct step_exec_info *info)
{
	memset(info, 0, sizeof(*info));
	info->state = ((const struct fake_x *)x)->stopped ? STEP_EXEC_STOPPED : STEP_EXEC_DONE;
	info->pairs = 3;
	info->windows = 6;
}

/* page faults under the calibration's path, 10x in the loaded windows */
static struct step_data *fx_take(void *vx)
{
	static const char *frames[] = { "asm_exc_page_fault", "exc_page_fault",
		"[tp] exceptions:page_fault_user" };
	struct step_data *d = step_data_new(1, "events");

	(void)vx;
	assert_non_null(d);
	for (unsigned w = 0; w < 6; w++) {
		enum cond c = w % 2 ? COND_LOAD : COND_REF;
		uint64_t n = c == COND_LOAD ? 10000 : 1000;

		assert_int_equal(step_data_window_begin(d, c, w * 0.5), (int)w);
		step_data_window_end(d, w, 0.5);
		step_data_target(d, w, 0)->events = n;
		d->prof->wins[w].lost = w;   /* 15 in all */
		assert_int_equal(profile_add(d->prof, w, frames, 3, 7, "pf", n), 0);
	}
	return d;
}

static void fx_stop(void *x)
{
	((struct fake_x *)x)->stopped = 1;
}

static void fx_free(void *vx)
{
	struct fake_x *x = vx;

	if (!x)
		return;
	step_free(x->s);
	free(x);
}

static int fx_preflight(void *arg, struct step *s, const struct caps *c,
			struct step_preflight *pf)
{
	(void)arg;
	(void)s;
	(void)c;
	fx_preflights++;
	memset(pf, 0, sizeof(*pf));
	pf->overhead_pct = fx_overhead;
	if (fx_preflight_err) {
		pf->cause = strdup("does not attach: test");
		return fx_preflight_err;
	}
	pf->ok = 1;
	return 0;
}

static int fx_gone;                   /* the load has exited (load_gone) */

static int fx_load_gone(void *arg, char *buf, size_t len)
{
	(void)arg;
	if (fx_gone)
		snprintf(buf, len, "exited (0)");
	return fx_gone;
}

static const struct ctl_exec_ops fake_exec_gone = {
	.start = fx_start, .tick = fx_tick, .timeout_ms = fx_timeout_ms, .finished = fx_finished,
	.status = fx_status, .info = fx_info, .take = fx_take, .stop = fx_stop, .free = fx_free,
	.preflight = fx_preflight, .load_gone = fx_load_gone,
};

static const struct ctl_exec_ops fake_exec = {
	.start = fx_start, .tick = fx_tick, .timeout_ms = fx_timeout_ms, .finished = fx_finished,
	.status = fx_status, .info = fx_info, .take = fx_take, .stop = fx_stop, .free = fx_free,
	.preflight = fx_preflight,
};

/* ---- what the sinks heard -------------------------------------------------------------- */

struct heard {
	unsigned n[CTL_EV_TURN_END + 1];
	unsigned proposal_no[4], nproposal;
	enum ctl_decision_kind decision[4];
	char decision_text[4][64];
	unsigned ndecision;
	int result_ok;
	char result_text[200];
	char said[4096];
};

static void heard_event(void *arg, const struct ctl_event *ev)
{
	struct heard *h = arg;

	h->n[ev->kind]++;
	switch (ev->kind) {
	case CTL_EV_SAY:
		strncat(h->said, ev->text, sizeof(h->said) - strlen(h->said) - 2);
		strcat(h->said, "\n");
		break;
	case CTL_EV_PROPOSAL:
		if (h->nproposal < 4)
			h->proposal_no[h->nproposal++] = ev->step_no;
		break;
	case CTL_EV_DECISION:
		if (h->ndecision < 4) {
			h->decision[h->ndecision] = ev->decision;
			snprintf(h->decision_text[h->ndecision++], 64, "%s", ev->text ? ev->text : "");
		}
		break;
	case CTL_EV_RESULT:
		h->result_ok = ev->ok;
		snprintf(h->result_text, sizeof(h->result_text), "%s", ev->summary ? ev->summary : "");
		break;
	default:
		break;
	}
}

/* ---- fixtures ------------------------------------------------------------------------------ */

static struct caps *fake_caps(void)
{
	struct caps *c = caps_new();

	assert_non_null(c);
	assert_int_equal(caps_add_tracepoint(c, "exceptions", "page_fault_user",
					     CAPS_TP_RAW | CAPS_TP_TRACEFS), 0);
	assert_int_equal(caps_add_tracepoint(c, "kmem", "mm_page_alloc",
					     CAPS_TP_RAW | CAPS_TP_TRACEFS), 0);
	assert_int_equal(caps_add_function(c, "handle_mm_fault", CAPS_FN_KALLSYMS | CAPS_FN_BTF), 0);
	caps_finish(c);
	c->categories_known = 1;
	for (int k = 0; k < STEP_KIND_N; k++)
		caps_set_kind(c, k, 1, "test");
	return c;
}

/* three reference/loaded pairs; page faults rise tenfold */
static struct profile *fault_profile(void)
{
	static const char *pf[] = { "asm_exc_page_fault", "exc_page_fault", "handle_mm_fault",
		"do_anonymous_page" };
	static const char *other[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read" };
	struct profile *p = profile_new();

	assert_non_null(p);
	for (unsigned w = 0; w < 6; w++) {
		int load = w % 2;

		assert_int_equal(profile_window_begin(p, load ? COND_LOAD : COND_REF, w * 0.5), (int)w);
		profile_window_end(p, w, 0.5);
		assert_int_equal(profile_add(p, w, pf, 4, 7, "pf", load ? 400 : 40), 0);
		assert_int_equal(profile_add(p, w, other, 3, 8, "rd", 50), 0);
	}
	return p;
}

static int event_node(struct tree_node *n, void *arg)
{
	(void)arg;
	return n->kind == TREE_EVENT && (n->flags & TREE_F_STEP) &&
	       !strcmp(n->name, "[tp] exceptions:page_fault_user");
}

/* ---- tests ------------------------------------------------------------------------------------ */

/* proposal -> veto with a reason -> the agent hears it -> a new proposal ->
 * accept -> the result merged by the analysis -> a verdict */
static void test_veto_accept_verdict(void **state)
{
	struct script s = { .targets = { "kmem:mm_page_alloc", "exceptions:page_fault_user", NULL } };
	struct heard h = { 0 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an, next;
	struct analysis_step steps[4];
	struct ctl_opts o = { .steps = 3, .caps = caps, .exec = &fake_exec,
			      .sinks = { { heard_event, &h } } };
	struct controller *c;
	unsigned n;
	int guard;

	(void)state;
	fx_started = fx_preflights = 0;
	fx_preflight_err = 0;
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	assert_true(an.calibrated);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_int_equal(ctl_mode(c), CTL_WAIT);
	/* not calibrated yet: nothing happens */
	assert_int_equal(ctl_tick(c, an.t, 0, NULL, 0), 0);
	assert_int_equal(s.turns, 0);

	/* the first turn: a proposal waits for the person */
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_non_null(ctl_proposal(c));
	assert_string_equal(ctl_proposal(c)->targets[0], "kmem:mm_page_alloc");
	assert_int_equal(h.nproposal, 1);
	assert_int_equal(h.proposal_no[0], 1);
	assert_int_equal(fx_started, 0);            /* nothing runs before a decision */

	/* veto with a reason: the agent is told, nothing ran, a new turn is due */
	assert_int_equal(ctl_veto(c, "allocations are not the question", NULL), 0);
	assert_int_equal(s.ntold, 1);
	assert_int_equal(s.told[0].kind, AGENT_EV_VETOED);
	assert_string_equal(s.told[0].text, "allocations are not the question");
	assert_string_equal(s.told[0].target, "kmem:mm_page_alloc");
	assert_int_equal(h.ndecision, 1);
	assert_int_equal(h.decision[0], CTL_DEC_VETO);
	assert_string_equal(h.decision_text[0], "allocations are not the question");
	assert_int_equal(ctl_mode(c), CTL_THINKING);
	assert_null(ctl_proposal(c));
	assert_int_equal(ctl_timeout_ms(c, 0), 0);
	assert_int_equal(fx_started, 0);

	/* the new proposal; accepted, it runs through the executor */
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(s.turns, 2);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_string_equal(ctl_proposal(c)->targets[0], "exceptions:page_fault_user");
	assert_int_equal(h.proposal_no[1], 1);      /* still step 1: nothing ran */
	assert_int_equal(ctl_lost(c), 0);
	assert_int_equal(ctl_accept(c, NULL, NULL), 0);
	assert_int_equal(ctl_mode(c), CTL_RUNNING);
	assert_int_equal(fx_started, 1);
	assert_int_equal(ctl_lost(c), 2);           /* the running step's windows */
	assert_int_equal(h.decision[1], CTL_DEC_ACCEPT);
	assert_int_equal(s.told[1].kind, AGENT_EV_ACCEPTED);
	for (guard = 0; guard < 10 && ctl_mode(c) == CTL_RUNNING; guard++)
		ctl_tick(c, an.t, 1, NULL, guard);
	assert_int_equal(ctl_mode(c), CTL_THINKING);
	assert_int_equal(ctl_lost(c), 15);          /* what its windows lost */
	assert_true(h.result_ok);
	assert_non_null(strstr(h.result_text, "page_fault_user"));
	/* the agent hears the result, and waits for the tree with it */
	assert_int_equal(s.told[2].kind, AGENT_EV_RESULT);
	assert_non_null(strstr(s.told[2].text, "page_fault_user"));
	assert_true(ctl_need_rebuild(c));
	assert_int_equal(ctl_tick(c, an.t, 1, NULL, 20), 0);
	assert_int_equal(s.turns, 2);

	/* the caller's rebuild: the analysis merges the kept result */
	n = ctl_steps(c, steps, 4);
	assert_int_equal(n, 1);
	assert_int_equal(steps[0].idx, 0);
	assert_int_equal(analysis_run(p, steps, n, NULL, &next, NULL), 0);
	assert_int_equal(steps[0].err, 0);
	assert_true(next.calibrated);
	assert_int_equal(tree_walk(next.t->root, event_node, NULL), 1);
	analysis_clear(&an);
	an = next;
	ctl_rebuilt(c);

	/* the third turn sees the step's node and gives the verdict */
	assert_true(ctl_tick(c, an.t, 1, NULL, 21) > 0);
	assert_int_equal(s.turns, 3);
	assert_true(s.tree_seen[2]);
	assert_int_equal(s.step_index[2], 1);
	assert_int_equal(ctl_mode(c), CTL_IDLE);
	assert_int_equal(h.n[CTL_EV_VERDICT], 1);
	assert_non_null(strstr(h.said, "mm: page faults"));
	assert_non_null(strstr(h.said, "vetoed: allocations are not the question"));
	assert_int_equal(ctl_last_reply(c)->kind, AGENT_REPLY_VERDICT);
	assert_true(ctl_last_reply(c)->verdict.found);
	/* undone, its windows stay in the session: still counted */
	assert_int_equal(ctl_undo(c), 0);
	assert_int_equal(ctl_lost(c), 15);

	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
}

/* issue 24 item 8: a focus while a proposal waits withdraws it, and the
 * verdict the descent then gives is a finding of the exploration ("focus on
 * ..."), never the session's verdict */
static int verdict_focus_seen;
static char verdict_focus[160];

static void focus_event(void *arg, const struct ctl_event *ev)
{
	(void)arg;
	if (ev->kind != CTL_EV_VERDICT)
		return;
	verdict_focus_seen++;
	snprintf(verdict_focus, sizeof(verdict_focus), "%s", ev->focus ? ev->focus : "");
}

static void test_focus_keeps_verdict(void **state)
{
	struct script s = { .targets = { "kmem:mm_page_alloc", NULL } };
	struct heard h = { 0 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 3, .caps = caps, .exec = &fake_exec,
			      .sinks = { { heard_event, &h }, { focus_event, NULL } } };
	struct controller *c;
	struct tree_node *n;

	(void)state;
	verdict_focus_seen = 0;
	fx_started = fx_preflights = 0;
	fx_preflight_err = 0;
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	n = tree_child(an.t, an.t->root, "syscall");
	if (!n)
		n = an.t->root->child[0];
	assert_int_equal(ctl_focus(c, n, NULL), 0);
	assert_null(ctl_proposal(c));
	assert_non_null(strstr(h.said, "the waiting proposal is withdrawn"));
	assert_true(ctl_tick(c, an.t, 1, NULL, 1) > 0);
	assert_int_equal(verdict_focus_seen, 1);
	assert_non_null(strstr(verdict_focus, "focus on"));
	assert_int_equal(fx_started, 0);
	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
}

/* issue 24: one step number everywhere (a step undone keeps its number, so
 * the next is step 2 in the proposal, the accept and the run); nothing is
 * proposed or accepted once the load has exited */
static void test_numbers_and_gone_load(void **state)
{
	struct script s = { .targets = { "kmem:mm_page_alloc", "exceptions:page_fault_user",
					 "kmem:kfree", NULL } };
	struct heard h = { 0 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 3, .caps = caps, .exec = &fake_exec_gone,
			      .sinks = { { heard_event, &h } } };
	struct controller *c;

	(void)state;
	fx_started = fx_preflights = 0;
	fx_preflight_err = 0;
	fx_gone = 0;
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_int_equal(ctl_accept(c, NULL, NULL), 0);
	assert_non_null(strstr(h.said, "accepted step 1\n"));
	assert_non_null(strstr(h.said, "step 1 loads"));
	assert_int_equal(ctl_undo(c), 0);             /* stopped while it ran */
	assert_int_equal(ctl_last_run_no(c), 0);
	assert_int_equal(ctl_another(c), 0);
	assert_true(ctl_tick(c, an.t, 1, NULL, 1) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_int_equal(ctl_next_step_no(c), 2);
	assert_non_null(strstr(h.said, "step 2 (run 1 of at most 3): "));
	assert_int_equal(ctl_accept(c, NULL, NULL), 0);
	assert_non_null(strstr(h.said, "accepted step 2\n"));
	assert_non_null(strstr(h.said, "step 2 loads"));
	assert_null(strstr(h.said, "accepted step 1\nundo"));
	assert_int_equal(ctl_last_run_no(c), 2);
	ctl_run_status(c, &(struct source_status){ 0 }, &(unsigned){ 0 });
	assert_int_equal(ctl_undo(c), 0);

	/* the load exits while a card waits: a runs nothing */
	assert_int_equal(ctl_another(c), 0);
	assert_true(ctl_tick(c, an.t, 1, NULL, 2) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	fx_gone = 1;
	fx_started = 0;
	assert_int_equal(ctl_accept(c, NULL, NULL), -ESRCH);
	assert_int_equal(fx_started, 0);
	assert_non_null(strstr(h.said, "not run: the load exited (0)"));
	assert_int_equal(ctl_mode(c), CTL_IDLE);
	/* and another turn proposes nothing against it */
	s.turns = 1;                                  /* the script proposes again */
	assert_int_equal(ctl_another(c), 0);
	ctl_tick(c, an.t, 1, NULL, 3);
	assert_int_equal(ctl_mode(c), CTL_IDLE);
	assert_null(ctl_proposal(c));
	assert_non_null(strstr(h.said, "no step proposed: the load exited (0)"));
	assert_int_equal(fx_started, 0);

	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
	fx_gone = 0;
}

struct batch {
	int auto_accept;
	unsigned max;
};

static enum ctl_decide batch_decide(void *arg, struct controller *c, const struct step *s,
				    const char **why)
{
	struct batch *b = arg;

	(void)s;
	if (!b->auto_accept)
		return CTL_DECIDE_STOP;
	if (ctl_next_step_no(c) > b->max) {   /* steps tried */
		*why = "the budget is spent";
		return CTL_DECIDE_DECLINE;
	}
	return CTL_DECIDE_ACCEPT;
}

/* batch without --auto: the proposal is recorded as not run and the loop ends */
static void test_batch_not_run(void **state)
{
	struct script s = { .targets = { "exceptions:page_fault_user", NULL } };
	struct heard h = { 0 };
	struct batch b = { .auto_accept = 0 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 3, .caps = caps, .exec = &fake_exec, .batch = 1,
			      .decide = batch_decide, .decide_arg = &b,
			      .sinks = { { heard_event, &h } } };
	struct controller *c;

	(void)state;
	fx_started = 0;
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_int_equal(ctl_tick(c, an.t, 1, NULL, 0), 0);   /* done, no error */
	assert_int_equal(ctl_mode(c), CTL_DONE);
	assert_int_equal(h.n[CTL_EV_NOT_RUN], 1);
	assert_int_equal(fx_started, 0);
	assert_int_equal(ctl_last_reply(c)->kind, AGENT_REPLY_PROPOSAL);
	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
}

/* batch --auto: a step that does not pass its pre-flight is not run, the
 * agent hears why and the step is counted; over the budget the next
 * proposal is declined; then the verdict ends it */
static void test_batch_gate_and_budget(void **state)
{
	struct script s = { .targets = { "exceptions:page_fault_user", "kmem:mm_page_alloc", NULL } };
	struct heard h = { 0 };
	struct batch b = { .auto_accept = 1, .max = 1 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 1, .caps = caps, .exec = &fake_exec, .batch = 1,
			      .decide = batch_decide, .decide_arg = &b,
			      .sinks = { { heard_event, &h } } };
	struct controller *c;
	int guard;

	(void)state;
	fx_started = fx_preflights = 0;
	fx_preflight_err = -EINVAL;
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	for (guard = 0; guard < 10 && ctl_mode(c) != CTL_DONE; guard++)
		assert_true(ctl_tick(c, an.t, 1, NULL, guard) >= 0);
	assert_int_equal(ctl_mode(c), CTL_DONE);
	assert_int_equal(ctl_outcome(c, NULL), 0);
	assert_int_equal(fx_preflights, 1);
	assert_int_equal(fx_started, 0);
	assert_int_equal(h.n[CTL_EV_PREFLIGHT], 1);
	assert_int_equal(h.n[CTL_EV_DECLINED], 1);
	/* told: the pre-flight's refusal, then the budget */
	assert_int_equal(s.ntold, 2);
	assert_int_equal(s.told[0].kind, AGENT_EV_VETOED);
	assert_non_null(strstr(s.told[0].text, "test"));
	assert_int_equal(s.told[1].kind, AGENT_EV_VETOED);
	assert_string_equal(s.told[1].text, "the budget is spent");
	assert_int_equal(s.step_index[1], 1);      /* the refused step counts */
	assert_int_equal(ctl_last_reply(c)->kind, AGENT_REPLY_VERDICT);
	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
	fx_preflight_err = 0;
}

/* issue 13 item 2: the run's scope goes into every proposal before anyone
 * sees it; with no reference (-p without --pause) that is said before the
 * step may be accepted; scope=system in an edit widens what runs */
static void test_scope(void **state)
{
	struct script s = { .targets = { "exceptions:page_fault_user", "exceptions:page_fault_user",
					 NULL } };
	struct heard h = { 0 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 3, .caps = caps, .exec = &fake_exec,
			      .sinks = { { heard_event, &h } } };
	struct controller *c;
	struct step *ed;
	struct step_error e;
	int guard;

	(void)state;
	fx_started = fx_preflights = 0;
	fx_preflight_err = 0;
	o.scope.by = STEP_SCOPE_BY_TGID;
	o.scope.tgid = (int)getpid();
	o.scope.no_reference = 1;
	snprintf(o.scope.what, sizeof(o.scope.what), "PID %d", (int)getpid());
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_int_equal(ctl_proposal(c)->filter.tgid, (int)getpid());
	assert_int_equal(ctl_proposal(c)->scope, STEP_SCOPE_LOAD);
	assert_non_null(strstr(h.said, "this step has no reference: PID"));
	assert_int_equal(fx_started, 0);
	/* accepted as proposed: the scoped step runs */
	assert_int_equal(ctl_accept(c, NULL, NULL), 0);
	assert_int_equal(fx_started, 1);
	assert_int_equal(fx_started_tgid, (int)getpid());
	for (guard = 0; guard < 10 && ctl_mode(c) == CTL_RUNNING; guard++)
		ctl_tick(c, an.t, 1, NULL, guard);
	/* the result says it has no reference, with its numbers */
	assert_non_null(strstr(h.result_text, "(no reference: PID"));
	ctl_rebuilt(c);
	/* the next proposal, widened by the person: nothing of the scope runs */
	assert_true(ctl_tick(c, an.t, 1, NULL, 20) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	ed = step_clone(ctl_proposal(c));
	assert_non_null(ed);
	assert_int_equal(step_set_field(ed, "scope", "system", &e), 0);
	assert_int_equal(ctl_accept(c, ed, "scope: load -> system"), 0);
	assert_int_equal(fx_started, 2);
	assert_int_equal(fx_started_tgid, 0);
	step_free(ed);
	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
}

/* issue 21 item 2: a step estimated over its budget is changed to fit
 * (attached part of each window) before a person decides, and says so;
 * batch runs it so instead of refusing it; a kind that cannot be attached
 * part of the time is said to be stopped */
static void test_over_budget_fits(void **state)
{
	struct script s = { .targets = { "exceptions:page_fault_user", NULL } };
	struct heard h = { 0 };
	struct batch b = { .auto_accept = 1, .max = 1 };
	struct caps *caps = fake_caps();
	struct profile *p = fault_profile();
	struct analysis an;
	struct ctl_opts o = { .steps = 1, .caps = caps, .exec = &fake_exec, .preflight = 1,
			      .sinks = { { heard_event, &h } } };
	struct step_preflight pf = { .ok = 1, .overhead_pct = 8 };
	struct controller *c;
	struct step *off;
	char why[400];
	int guard;

	(void)state;
	fx_started = fx_preflights = 0;
	fx_preflight_err = 0;
	fx_overhead = 8;    /* over the 5% of a per-event kind */
	assert_int_equal(analysis_run(p, NULL, 0, NULL, &an, NULL), 0);
	/* a person: the proposal on the card already fits, and says so */
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	assert_true(ctl_tick(c, an.t, 1, NULL, 0) > 0);
	assert_int_equal(ctl_mode(c), CTL_PROPOSAL);
	assert_true(fabs(ctl_proposal(c)->duty - 0.56) < 0.011);
	assert_non_null(strstr(h.said, "attached 56% of each window instead"));
	assert_int_equal(ctl_accept(c, NULL, NULL), 0);
	assert_int_equal(fx_started, 1);
	assert_true(fabs(fx_started_duty - 0.56) < 0.011);
	/* a kind without a duty cycle: said to be stopped, nothing changed */
	off = step_new();
	assert_non_null(off);
	off->kind = STEP_OFFCPU;
	off->duration_s = 2;
	assert_int_equal(ctl_fit_budget(c, off, &pf, why, sizeof(why)), -EDQUOT);
	assert_non_null(strstr(why, "it would be stopped"));
	assert_true(off->duty == 0);
	pf.overhead_pct = 3;   /* under the budget: nothing to fit */
	assert_int_equal(ctl_fit_budget(c, off, &pf, why, sizeof(why)), 0);
	step_free(off);
	ctl_free(c);

	/* batch: run attached part of each window, not refused */
	memset(&h, 0, sizeof(h));
	memset(&s, 0, sizeof(s));
	s.targets[0] = "exceptions:page_fault_user";
	fx_started = 0;
	o.batch = 1;
	o.preflight = 0;
	o.decide = batch_decide;
	o.decide_arg = &b;
	c = ctl_new(&o, script_agent(&s));
	assert_non_null(c);
	for (guard = 0; guard < 10 && ctl_mode(c) != CTL_DONE; guard++)
		assert_true(ctl_tick(c, an.t, 1, NULL, guard) >= 0);
	assert_int_equal(fx_started, 1);
	assert_true(fabs(fx_started_duty - 0.56) < 0.011);
	assert_int_equal(h.n[CTL_EV_DECLINED], 0);
	ctl_free(c);
	analysis_clear(&an);
	profile_free(p);
	caps_free(caps);
	fx_overhead = 0.1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_veto_accept_verdict),
		cmocka_unit_test(test_focus_keeps_verdict),
		cmocka_unit_test(test_numbers_and_gone_load),
		cmocka_unit_test(test_batch_not_run),
		cmocka_unit_test(test_batch_gate_and_budget),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_over_budget_fits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
