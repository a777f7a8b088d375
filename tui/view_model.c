/* view_model — the model of the load beside the tree (see view_model.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/measure.h"
#include "base/sanitize.h"
#include "measure/session.h"
#include "measure/source_replay.h"
#include "measure/source_session.h"
#include "view_model.h"
#include "view_screen.h"

struct view_model *view_model_new(void)
{
	struct view_model *vm = calloc(1, sizeof(*vm));

	if (vm)
		vm->built_secs = -1;
	return vm;
}

void view_model_free(struct view_model *vm)
{
	if (!vm)
		return;
	free(vm->rows);
	free(vm);
}

static void vm_clear(struct view_model *vm)
{
	free(vm->rows);
	vm->rows = NULL;
	vm->nrows = 0;
	vm->have = 0;
	vm->chain[0] = 0;
	vm->rest[0] = 0;
	vm->windows[0] = 0;
}

/* rows and chain of vm->m */
static void vm_layout(struct view_model *vm, const struct model_prediction *p, int utf8)
{
	struct model_chain c;
	int n = model_rows(&vm->m, p, &vm->rows);

	if (n < 0) {
		vm->rows = NULL;
		snprintf(vm->why, sizeof(vm->why), "cannot lay out the model: out of memory");
		return;
	}
	vm->nrows = n;
	vm->have = 1;
	if (!model_wait_chain(&vm->m, &c)) {
		model_chain_text(&vm->m, &c, utf8, vm->chain, sizeof(vm->chain));
		model_chain_rest(&vm->m, vm->rest, sizeof(vm->rest));
	}
}

static void vm_from_session(struct view_model *vm, struct source *src, int utf8)
{
	const struct session_event *e = session_log_model(source_replay_log(src));
	struct model_prediction p;
	const char *why = NULL;
	char *cause = NULL;

	if (vm->built_secs >= 0)
		return;            /* a session does not change */
	vm->built_secs = 0;
	vm_clear(vm);
	if (!e) {
		snprintf(vm->why, sizeof(vm->why),
			 "this session holds no model of the load.  A model is saved when the run "
			 "accounts blocked time (--time wall, the default with --victim): it needs "
			 "who woke whom, from the scheduler-time probe.  Sessions recorded with "
			 "--time cpu, or by an argus older than the model view, have none.  "
			 "'argus model -- CMD' builds one for a load.");
		return;
	}
	if (model_read_json(e->result_json, &vm->m, &cause)) {
		snprintf(vm->why, sizeof(vm->why), "the session's model cannot be read: %s",
			 cause ? cause : "not a model");
		free(cause);
		return;
	}
	snprintf(vm->origin, sizeof(vm->origin), "saved in the session at %.1f s (line %u)", e->t,
		 e->line);
	/* sessions before the windows were recorded: said, not guessed */
	if (e->windows)
		sanitize_into(vm->windows, sizeof(vm->windows), e->windows, 0);
	else
		snprintf(vm->windows, sizeof(vm->windows), "not recorded (a session older than "
			 "--steady/--mark in the interactive argus)");
	vm_layout(vm, model_solve(&vm->m, NULL, &p, &why) ? NULL : &p, utf8);
}

static void vm_from_live(struct view_model *vm, struct source *src, int utf8)
{
	struct source *in = source_session_inner(src);
	struct model_opts mo = { .exclude_tgid = (uint32_t)getpid() };
	struct measure_windows mw;
	struct model_prediction p;
	const char *why = NULL;
	char *cause = NULL;
	int err = measure_model_windows(in, &mw);

	if (err == -ENOENT) {
		vm->built_secs = -1;
		vm_clear(vm);
		snprintf(vm->why, sizeof(vm->why),
			 "no wait graph: this run samples on-CPU time only.  The model needs who "
			 "woke whom and how long each thread blocked (the scheduler-time probe): "
			 "run the load with --time wall (the default with --victim), or build "
			 "one with 'argus model -- CMD'.");
		return;
	}
	if (err) {
		/* waiting for the windows, or none came (a --mark that never
		 * matched, no steady state): the reason, as it stands */
		vm->built_secs = -1;
		vm_clear(vm);
		snprintf(vm->why, sizeof(vm->why), "%s", mw.why);
		return;
	}
	if (mw.g->secs == vm->built_secs && !strcmp(mw.used, vm->windows))
		return;
	vm->built_secs = mw.g->secs;
	vm_clear(vm);
	snprintf(vm->windows, sizeof(vm->windows), "%s", mw.used);
	if (!(mw.g->secs > 0)) {
		snprintf(vm->why, sizeof(vm->why), "waiting for the first loaded window: the model "
			 "is built from the loaded windows' blocked time and wakeups");
		return;
	}
	err = model_build(mw.g, &mo, &vm->m, &cause);
	if (err) {
		snprintf(vm->why, sizeof(vm->why), "no model yet (%s): %s", mw.used,
			 cause ? cause : strerror(-err));
		free(cause);
		return;
	}
	snprintf(vm->origin, sizeof(vm->origin), "from %.1f s of loaded windows (time accounting)",
		 mw.g->secs);
	vm_layout(vm, model_solve(&vm->m, NULL, &p, &why) ? NULL : &p, utf8);
}

void view_model_update(struct view_model *vm, struct source *src, int replay, int utf8)
{
	if (!vm || !src)
		return;
	if (replay)
		vm_from_session(vm, src, utf8);
	else
		vm_from_live(vm, src, utf8);
}

void view_model_scroll(struct view_model *vm, int delta)
{
	vm->top += delta;
	if (vm->top < 0)
		vm->top = 0;
}

/* ---- drawing ------------------------------------------------------------------------- */

struct vm_lines {
	struct fmt_line *l;
	int n, cap;
};

static struct fmt_line *vm_line(struct vm_lines *ls)
{
	if (ls->n == ls->cap) {
		int cap = ls->cap ? ls->cap * 2 : 64;
		struct fmt_line *n = realloc(ls->l, (size_t)cap * sizeof(*n));

		if (!n)
			return NULL;
		ls->l = n;
		ls->cap = cap;
	}
	fmt_line_reset(&ls->l[ls->n]);
	return &ls->l[ls->n++];
}

/* text word-wrapped to width w: the first line after lead (in role lr),
 * the others indented by ind columns */
static void vm_wrap(struct vm_lines *ls, const char *lead, enum theme_role lr, const char *text,
		    enum theme_role r, int w, int ind)
{
	const char *s = text;
	int first = 1;
	size_t n;

	do {
		struct fmt_line *l = vm_line(ls);
		int room, used;

		if (!l)
			return;
		if (first && lead)
			fmt_line_add(l, lr, lead, w);
		else if (!first)
			fmt_line_addn(l, r, "                ", (size_t)(ind < 16 && ind < w / 2 ? ind : 0));
		room = w - l->width;
		if (room < 8)
			room = 8;
		n = fmt_fit(s, room, &used);
		if (s[n]) {
			/* break at the last space that fits */
			size_t b = n;

			while (b > 0 && s[b] != ' ')
				b--;
			if (b > 0)
				n = b;
		}
		fmt_line_addn(l, r, s, n);
		fmt_line_pad(l, THEME_NORMAL, w);
		s += n;
		while (*s == ' ')
			s++;
		first = 0;
	} while (*s && n);
}

static enum theme_role vm_role(const struct view_model *vm, const struct model_row *r)
{
	if (r->kind == MODEL_ROW_HEAD)
		return THEME_HEADER;
	if (r->kind == MODEL_ROW_NOTE)
		return THEME_STATUS_WARN;
	if (r->kind == MODEL_ROW_CHECK)
		return vm->m.check.valid ? THEME_DIM : THEME_STATUS_WARN;
	if (r->kind == MODEL_ROW_CALL || r->kind == MODEL_ROW_OTHER || r->kind == MODEL_ROW_KTHREAD)
		return THEME_DIM;
	if (r->task >= 0 && vm->m.task[r->task].kind == MODEL_TASK_SEMAPHORE)
		return THEME_VERDICT;
	return r->task == vm->m.ref ? THEME_FOCUS : THEME_NORMAL;
}

void view_model_draw(struct screen *s, struct view_model *vm, int takeover,
		     const struct glyphs *gl)
{
	struct vm_lines ls = { 0 };
	struct fmt_line *l, title, hint;
	char buf[256];
	int h, w, body;

	if (!vm || !screen_agent_shown(s))
		return;
	h = s->agent.h;
	w = s->agent.w;
	snprintf(buf, sizeof(buf), " model of the load %s %s", gl->g[GLYPH_SEP],
		 vm->have ? vm->origin : "none");
	fmt_line_reset(&title);
	fmt_line_add_trunc(&title, THEME_FOCUS, buf, w, gl);
	fmt_line_pad(&title, THEME_FOCUS, w);
	if (!vm->have) {
		vm_wrap(&ls, NULL, THEME_NORMAL, vm->why, THEME_NORMAL, w, 0);
	} else {
		/* the model's boundary first: which loaded windows, and why */
		if (vm->windows[0])
			vm_wrap(&ls, "windows: ", THEME_KEY, vm->windows, THEME_NORMAL, w, 2);
		for (int i = 0; i < vm->nrows; i++) {
			const struct model_row *r = &vm->rows[i];

			if (r->kind == MODEL_ROW_TASK && r->task == vm->m.ref && vm->chain[0]) {
				/* the chain right under the head line, where it is seen */
				vm_wrap(&ls, "wait chain: ", THEME_KEY, vm->chain, THEME_VERDICT, w, 2);
				if (vm->rest[0])
					vm_wrap(&ls, NULL, THEME_DIM, vm->rest, THEME_DIM, w, 2);
				l = vm_line(&ls);
				if (l)
					fmt_line_pad(l, THEME_NORMAL, w);
			}
			vm_wrap(&ls, NULL, THEME_NORMAL, r->text, vm_role(vm, r), w,
				r->kind == MODEL_ROW_CALL ? 7 : 4);
		}
		l = vm_line(&ls);
		if (l)
			fmt_line_pad(l, THEME_NORMAL, w);
		vm_wrap(&ls, NULL, THEME_DIM, "%: share of the reference task's response time per "
			"cycle (its cycle time less its think time), measured; nested waits are inside "
			"the wait above them.  util: busy threads of the task at the measured load "
			"(the solved model).", THEME_DIM, w, 0);
	}
	snprintf(buf, sizeof(buf), " m Esc: back to the %s%s",
		 !takeover && vm->saved_want_agent ? "agent pane" : "tree",
		 takeover ? "   Up Down PgUp PgDn: scroll" : "");
	fmt_line_reset(&hint);
	fmt_line_add_trunc(&hint, THEME_KEY, buf, w, gl);
	fmt_line_pad(&hint, THEME_NORMAL, w);
	body = h - 2;
	vm->nlines = ls.n;
	if (vm->top > ls.n - body)
		vm->top = ls.n - body > 0 ? ls.n - body : 0;
	screen_put_line(s, s->wagent, &s->cagent, 0, &title);
	for (int y = 0; y < body; y++) {
		int i = vm->top + y;
		struct fmt_line blank;

		if (i < ls.n) {
			screen_put_line(s, s->wagent, &s->cagent, 1 + y, &ls.l[i]);
		} else {
			fmt_line_reset(&blank);
			fmt_line_pad(&blank, THEME_NORMAL, w);
			screen_put_line(s, s->wagent, &s->cagent, 1 + y, &blank);
		}
	}
	if (h >= 2)
		screen_put_line(s, s->wagent, &s->cagent, h - 1, &hint);
	free(ls.l);
}
