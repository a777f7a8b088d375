/* app — the interactive tree's event loop, key handling and teardown. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "agent.h"
#include "app.h"
#include "opts_agent.h"
#include "calib.h"
#include "edit_line.h"
#include "edit_spec.h"
#include "fmt.h"
#include "pane.h"
#include "export.h"
#include "fmt.h"
#include "glossary.h"
#include "probe.h"
#include "kind.h"
#include "session_step.h"
#include "source_replay.h"
#include "step_merge.h"
#include "theme.h"
#include "view_agent.h"
#include "view_keys.h"
#include "view_log.h"
#include "view_screen.h"
#include "view_tree.h"

#define APP_MAX_SRC_FDS 16
#define APP_MAX_AGENT_FDS 8
#define APP_LOG_LINES 500

enum app_mode {
	MODE_TREE,
	MODE_SEARCH,
	MODE_OVERLAY,
};

struct app {
	struct source *src;
	struct tui_opts o;
	struct tree *t;
	struct view_tree *v;
	struct screen scr;
	SCREEN *term;
	WINDOW *win_in;           /* keys are read here, never drawn on */
	struct theme theme;
	int theme_idx;
	const struct glyphs *gl;
	int utf8;
	struct log_ring *log;
	FILE *logf;
	int sigfd, errpipe, saved_err;
	sigset_t sigmask, oldmask;
	int calibrated;
	enum tree_group group;
	char summary[512];
	enum app_mode mode;
	char query[128];
	size_t qlen;
	char last_query[128];
	uint64_t search_origin;
	int search_found;
	char **ov_lines;
	int ov_n, ov_top;
	char ov_title[128];
	char msg[256];
	int quit;
	double last_rebuild;
	int pending_change;
	struct source_status st;
	/* the agent pane (NULL without one) */
	struct pane *pane;
	int focus_agent;          /* Tab: keys go to the agent pane */
	struct edit_line *talk;   /* ':' prompt, history in $XDG_STATE_HOME */
	struct edit_line *field;  /* field edits and veto reasons, in memory */
	int replay;               /* src is a session replay: n/p step through it */
	struct verdict vd;        /* the descent's verdict over the tree shown */
	char **vd_lines;          /* and its decisions */
	unsigned vd_nlines;
};

static const char *const theme_cycle[] = { "default", "light", "high-contrast", "mono" };

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void tui_opts_default(struct tui_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.001;
	o->explain = 0.5;
	o->group = TREE_BY_SUBSYS;
	o->refresh_s = 1.0;
}

static void set_msg(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_msg(struct app *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->msg, sizeof(a->msg), fmt, ap);
	va_end(ap);
}

static void set_cause(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (!cause)
		return;
	free(*cause);
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
	va_end(ap);
}

/* ---- tree --------------------------------------------------------------------- */

static void app_verdict_clear(struct app *a)
{
	verdict_clear(&a->vd);
	for (unsigned i = 0; i < a->vd_nlines; i++)
		free(a->vd_lines[i]);
	free(a->vd_lines);
	a->vd_lines = NULL;
	a->vd_nlines = 0;
}

/* In a replay, the steps whose results were recorded up to the current
 * event go into the tree as they did live (their event nodes and
 * annotations), so the tree is the one of that moment. */
static void replay_merge_steps(struct app *a, struct tree *t)
{
	const struct session_log *l = source_replay_log(a->src);
	size_t pos = source_replay_pos(a->src);

	for (unsigned s = 1; l && s < l->nstep_profile; s++) {
		struct step *st;
		struct step_data *d;

		if (session_log_step_data(l, pos, s, &st, &d) < 0)
			continue;
		step_merge_into_tree(t, st, d, s);
		step_data_free(d);
		step_free(st);
	}
}

static int rebuild(struct app *a, char **cause)
{
	const struct profile *p = a->src->ops->profile(a->src);
	struct tree_opts topts = { .group = a->group, .exclude_tgid = a->o.exclude_tgid };
	struct tree *t, *old = a->t;
	int calibrated = 0, err;

	if (!p)
		return 0;
	t = tree_build(p, &topts);
	if (!t) {
		err = -errno;
		set_cause(cause, "cannot build the tree: %s", strerror(errno));
		return err ? err : -ENOMEM;
	}
	a->summary[0] = '\0';
	if (a->pane)
		pane_merge(a->pane, t);   /* accepted steps' results, again */
	if (a->replay)
		replay_merge_steps(a, t);
	if (profile_cond_windows(p, COND_REF) && profile_cond_windows(p, COND_LOAD)) {
		struct calib_opts co;

		calib_opts_default(&co);
		co.freq_hz = a->st.freq_hz;
		co.sequential = a->o.sequential;
		if (calib_run(t, &co) == 0) {
			struct agent_reply reply = { 0 };

			calibrated = 1;
			app_verdict_clear(a);
			agent_descend(t, t->root, a->o.explain, &a->vd, &reply);
			a->vd_lines = reply.lines;
			a->vd_nlines = reply.nlines;
			reply.lines = NULL;
			reply.nlines = 0;
			agent_reply_clear(&reply);
			calib_summary(t, a->utf8, a->summary, sizeof(a->summary));
		}
	}
	tree_sort(t, calibrated ? TREE_SORT_DELTA : TREE_SORT_TOTAL);
	a->calibrated = calibrated;
	if (a->pane)
		pane_after_rebuild(a->pane, t);
	err = view_tree_set(a->v, t, calibrated);
	a->t = t;
	tree_free(old);
	if (err)
		set_cause(cause, "cannot lay out the tree: %s", strerror(-err));
	return err;
}

/* ---- overlays -------------------------------------------------------------------- */

static void overlay_free(struct app *a)
{
	for (int i = 0; i < a->ov_n; i++)
		free(a->ov_lines[i]);
	free(a->ov_lines);
	a->ov_lines = NULL;
	a->ov_n = 0;
	a->ov_top = 0;
}

static void overlay_add(struct app *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void overlay_add(struct app *a, const char *fmt, ...)
{
	char **nl = realloc(a->ov_lines, (size_t)(a->ov_n + 1) * sizeof(*nl));
	va_list ap;

	if (!nl)
		return;
	a->ov_lines = nl;
	va_start(ap, fmt);
	if (vasprintf(&a->ov_lines[a->ov_n], fmt, ap) >= 0)
		a->ov_n++;
	va_end(ap);
}

static void overlay_open(struct app *a, const char *title)
{
	snprintf(a->ov_title, sizeof(a->ov_title), "%s", title);
	a->mode = MODE_OVERLAY;
}

static void overlay_close(struct app *a)
{
	overlay_free(a);
	screen_close_overlay(&a->scr);
	a->mode = MODE_TREE;
}

static void open_help(struct app *a)
{
	overlay_free(a);
	if (a->replay)
		for (const struct key_binding *b = key_replay_table; b->label; b++)
			overlay_add(a, "%-12s %s", b->label, b->help);
	for (const struct key_binding *b = key_table; b->label; b++)
		if (!a->replay || key_lookup_replay(b->code[0]) == b->action)
			overlay_add(a, "%-12s %s", b->label, b->help);
	overlay_add(a, "%s", "");
	if (a->calibrated) {
		overlay_add(a, "columns: ref/s load/s (samples per second in each condition),");
		overlay_add(a, "  %s/s (load - ref), %s%% (of ref); %s = significant (q <= 0.05,",
			    a->gl->g[GLYPH_DELTA], a->gl->g[GLYPH_DELTA], a->gl->g[GLYPH_SIG]);
		overlay_add(a, "  pairs agree); %s = verdict path; [new] / [gone] = only loaded /",
			    a->gl->g[GLYPH_VERDICT]);
		overlay_add(a, "  only reference");
	} else {
		overlay_add(a, "columns: samples (node total), %% of all, self (samples in the");
		overlay_add(a, "  node itself)");
	}
	overlay_add(a, "nodes below %g%% of all samples are hidden (--threshold)",
		    a->o.threshold * 100);
	overlay_open(a, "argus keys (any other key closes)");
}

static void open_why(struct app *a)
{
	struct tree_node *n = view_tree_selected(a->v);
	const char *path[64];
	char buf[512];
	size_t off = 0;
	unsigned np = 0;

	if (!n)
		return;
	overlay_free(a);
	for (const struct tree_node *p = n; p && p->parent && np < 64; p = p->parent)
		path[np++] = p->name;
	buf[0] = '\0';
	while (np-- > 0 && off < sizeof(buf) - 8) {
		int w = snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? " > " : "", path[np]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	overlay_add(a, "path: %s", off ? buf : "(root)");
	if (!a->calibrated) {
		uint64_t root = a->t && a->t->root ? tree_node_sum(a->t->root) : 0;

		overlay_add(a, "samples %llu (%.1f%% of all), self %llu",
			    (unsigned long long)tree_node_sum(n),
			    root ? 100.0 * (double)tree_node_sum(n) / (double)root : 0.0,
			    (unsigned long long)(n->self[COND_REF] + n->self[COND_LOAD]));
		overlay_add(a, "not marked: live sampling has one condition, nothing to compare;");
		overlay_add(a, "deltas and significance need reference and loaded windows");
		overlay_open(a, "why is this marked");
		return;
	}
	calib_explain(n, buf, sizeof(buf));
	overlay_add(a, "%s", buf);
	overlay_add(a, "rate: ref %.1f/s, load %.1f/s; delta %+.1f/s", n->stat.rate[COND_REF],
		    n->stat.rate[COND_LOAD], n->stat.delta);
	if (n->stat.cpu_ms[COND_REF] > 0 || n->stat.cpu_ms[COND_LOAD] > 0)
		overlay_add(a, "cpu: ref %.2f ms/s, load %.2f ms/s", n->stat.cpu_ms[COND_REF],
			    n->stat.cpu_ms[COND_LOAD]);
	overlay_add(a, "test: two-rate Poisson p = %.3g, Benjamini-Hochberg q = %.3g",
		    n->stat.p, n->stat.q);
	overlay_add(a, "sign consistency: %u of %u reference/loaded pairs agree",
		    n->stat.pairs_agree, n->stat.pairs);
	overlay_add(a, "marked: %s", !n->stat.significant ? "not significant"
				      : n->stat.delta >= 0 ? "significant increase"
							   : "significant decrease");
	if (n->presence == TREE_NEW)
		overlay_add(a, "new: seen only in the loaded windows");
	else if (n->presence == TREE_VANISHED)
		overlay_add(a, "gone: seen only in the reference windows");
	if (n->flags & TREE_F_VERDICT)
		overlay_add(a, "on the verdict path (%.0f%% of its parent's delta)",
			    n->stat.share_of_parent * 100);
	overlay_open(a, "why is this marked");
}

/* ---- theme ------------------------------------------------------------------------ */

static enum theme_depth term_depth(void)
{
	const char *nc = getenv("NO_COLOR");

	if ((nc && *nc) || !has_colors())
		return THEME_DEPTH_MONO;
	return theme_depth_for(COLORS, nc);
}

static void cycle_theme(struct app *a)
{
	struct theme t;
	char *cause = NULL;
	int n = (int)(sizeof(theme_cycle) / sizeof(theme_cycle[0]));

	a->theme_idx = (a->theme_idx + 1) % n;
	if (theme_load(&t, theme_cycle[a->theme_idx], &cause) < 0) {
		set_msg(a, "%s", cause ? cause : "cannot load theme");
		free(cause);
		return;
	}
	a->theme = t;
	screen_set_theme(&a->scr, &a->theme, term_depth());
	set_msg(a, "theme %s", a->theme.name);
}

/* ---- replay, explain (x), export (w) ------------------------------------------------ */

/* Adds text to the overlay wrapped at width columns (the texts are ASCII). */
static void overlay_wrap(struct app *a, const char *text, int width)
{
	while (*text) {
		int n = (int)strlen(text), cut = n;

		if (n > width) {
			cut = width;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = width;
		}
		overlay_add(a, "%.*s", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

static void open_explain(struct app *a)
{
	struct tree_node *n = view_tree_selected(a->v);
	char text[1024], title[120];
	int width = a->scr.cols > 20 ? a->scr.cols - 12 : 60;

	if (!n)
		return;
	if (width > 76)
		width = 76;
	overlay_free(a);
	overlay_wrap(a, glossary_explain(n, text, sizeof(text)), width);
	overlay_add(a, "%s", "");
	overlay_wrap(a, glossary_numbers(n, a->calibrated, a->t && a->t->root ?
					 tree_node_sum(a->t->root) : 0, a->st.freq_hz,
					 text, sizeof(text)), width);
	if (n->flags & TREE_F_VERDICT) {
		overlay_add(a, "%s", "");
		overlay_wrap(a, "It is on the verdict path: the descent followed it because it "
			     "explains most of its parent's increase.", width);
	}
	snprintf(title, sizeof(title), "what is %.*s", (int)(subsys_base_len(n->name) > 100 ? 100 :
							     subsys_base_len(n->name)), n->name);
	overlay_open(a, title);
}

/* The report's file name: after the session, in the current directory, or
 * in $TMPDIR (/tmp) when that is not writable. */
static void export_path(struct app *a, char *buf, size_t len)
{
	char base[256];
	const char *s = a->o.session_path, *dir = ".";
	size_t pos = source_replay_pos(a->src);

	if (s) {
		const char *slash = strrchr(s, '/');
		size_t bl;

		snprintf(base, sizeof(base), "%s", slash ? slash + 1 : s);
		bl = strlen(base);
		if (bl > 6 && !strcmp(base + bl - 6, ".jsonl"))
			base[bl - 6] = '\0';
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(base, sizeof(base), "argus-%Y%m%d-%H%M%S", &tm);
	}
	if (access(".", W_OK) != 0) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	if (a->replay && pos < source_replay_count(a->src))
		snprintf(buf, len, "%s/%s-event%zu.md", dir, base, pos);
	else
		snprintf(buf, len, "%s/%s.md", dir, base);
}

static void write_export(struct app *a)
{
	struct export_view xv;
	char path[PATH_MAX];
	FILE *f;
	int err;

	memset(&xv, 0, sizeof(xv));
	export_path(a, path, sizeof(path));
	xv.name = a->o.session_path ? a->o.session_path : (a->o.title ? a->o.title : "argus");
	xv.log = source_replay_log(a->src);
	xv.nev = source_replay_pos(a->src);
	xv.t = a->t;
	if (a->replay && source_replay_verdict(a->src)) {
		xv.v = source_replay_verdict(a->src);
		xv.v_recorded = 1;
	} else if (a->calibrated) {
		xv.v = &a->vd;
	}
	xv.lines = a->vd_lines;
	xv.nlines = a->vd_nlines;
	f = fopen(path, "w");
	if (!f) {
		set_msg(a, "cannot write %s: %s", path, strerror(errno));
		return;
	}
	err = export_markdown(&xv, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		set_msg(a, "cannot write %s: %s", path, strerror(-err));
	else
		set_msg(a, "wrote %s", path);
}

/* 1 when the replayed session has transcript lines for the agent pane */
static int app_replay_talks(struct source *src)
{
	const struct session_log *l = source_replay_log(src);

	for (size_t i = 0; l && i < l->nev; i++)
		if (l->ev[i].type == SESSION_EV_TRANSCRIPT)
			return 1;
	return 0;
}

static int replay_move(struct app *a, enum key_action act, char **cause)
{
	size_t pos = source_replay_pos(a->src), n = source_replay_count(a->src);
	int r;

	switch (act) {
	case KEY_ACT_REPLAY_NEXT:
		if (pos >= n) {
			set_msg(a, "end of the session (%zu events); p steps back", n);
			return 0;
		}
		pos++;
		break;
	case KEY_ACT_REPLAY_PREV:
		if (pos == 0) {
			set_msg(a, "start of the session; n steps forward");
			return 0;
		}
		pos--;
		break;
	case KEY_ACT_REPLAY_START:
		pos = 0;
		break;
	default:
		pos = n;
		break;
	}
	r = source_replay_seek(a->src, pos);
	if (r < 0) {
		set_cause(cause, "cannot replay event %zu: %s", pos, strerror(-r));
		return r;
	}
	a->src->ops->status(a->src, &a->st);
	if (a->pane && pane_replay(a->pane, source_replay_log(a->src), pos) < 0) {
		set_cause(cause, "cannot replay the transcript: out of memory");
		return -ENOMEM;
	}
	if (r > 0) {
		/* the tree as it was at this event, now rather than at the next refresh */
		a->src->ops->tick(a->src, mono_s(), cause);
		r = rebuild(a, cause);
		if (r)
			return r;
		a->pending_change = 0;
	}
	return 0;
}

/* The footer line of a replay: the current event as a person reads it. */
static void replay_footer(struct app *a, char *buf, size_t len)
{
	char text[300];
	const struct session_event *e = source_replay_current(a->src);

	source_replay_event_text(e, text, sizeof(text));
	if (!e && source_replay_log(a->src) && source_replay_log(a->src)->nnotes)
		snprintf(buf, len, " %.300s", source_replay_log(a->src)->notes[0]);
	else
		snprintf(buf, len, " %s", text);
}

/* ---- keys ------------------------------------------------------------------------- */

static void search_run(struct app *a)
{
	a->v->sel_id = a->search_origin;
	view_tree_flatten(a->v);
	a->search_found = a->qlen ? view_tree_find(a->v, 1, 1, view_tree_match_name, a->query) : 1;
}

static void key_search(struct app *a, int fn, wint_t ch)
{
	if (!fn && (ch == '\n' || ch == '\r')) {
		snprintf(a->last_query, sizeof(a->last_query), "%s", a->query);
		a->mode = MODE_TREE;
		if (a->qlen && !a->search_found)
			set_msg(a, "no match for '%s'", a->query);
		return;
	}
	if (!fn && ch == 27) { /* Esc: back where the search started */
		a->v->sel_id = a->search_origin;
		view_tree_flatten(a->v);
		a->mode = MODE_TREE;
		return;
	}
	if ((fn && ch == KEY_BACKSPACE) || (!fn && (ch == 127 || ch == 8))) {
		while (a->qlen && ((unsigned char)a->query[a->qlen - 1] & 0xc0) == 0x80)
			a->qlen--;
		if (a->qlen)
			a->qlen--;
		a->query[a->qlen] = '\0';
		search_run(a);
		return;
	}
	if (!fn && ch == KEY_CTRL('u')) {
		a->qlen = 0;
		a->query[0] = '\0';
		search_run(a);
		return;
	}
	if (!fn && ch >= 32) {
		char mb[MB_LEN_MAX];
		mbstate_t ps;
		size_t n;

		memset(&ps, 0, sizeof(ps));
		n = wcrtomb(mb, (wchar_t)ch, &ps);
		if (n == (size_t)-1 || a->qlen + n >= sizeof(a->query))
			return;
		memcpy(a->query + a->qlen, mb, n);
		a->qlen += n;
		a->query[a->qlen] = '\0';
		search_run(a);
	}
}

static void key_overlay(struct app *a, int code)
{
	int page = a->scr.rows > 6 ? a->scr.rows - 6 : 1;

	switch (key_lookup(code)) {
	case KEY_ACT_UP:
		a->ov_top--;
		return;
	case KEY_ACT_DOWN:
		a->ov_top++;
		return;
	case KEY_ACT_PGUP:
		a->ov_top -= page;
		return;
	case KEY_ACT_PGDN:
		a->ov_top += page;
		return;
	case KEY_ACT_QUIT:
		if (code == 'q' || code == 'Q') {
			overlay_close(a);
			return;
		}
		break;
	default:
		break;
	}
	overlay_close(a);
}

/* ---- the agent pane ------------------------------------------------------------- */

/* the node the pane's reply concerns, selected in the tree */
static void pane_sync_tree(struct app *a)
{
	struct tree_node *n;

	if (!a->pane || !a->pane->select_focus || !a->t)
		return;
	a->pane->select_focus = 0;
	n = a->pane->focus_id ? tree_find_id(a->t, a->pane->focus_id) : NULL;
	if (!n)
		return;
	/* TREE_F_FOCUS marks it; clear the mark elsewhere */
	for (size_t i = 0; i < a->v->nvn; i++)
		a->v->vn[i].n->flags &= ~TREE_F_FOCUS;
	n->flags |= TREE_F_FOCUS;
	view_tree_select_node(a->v, n);
}

static char *prompt(struct app *a, struct edit_line *e, const char *text, const char *initial,
		    enum edit_complete what)
{
	char *line;

	if (!e) {
		set_msg(a, "no line editor: out of memory");
		return NULL;
	}
	line = edit_line_read(e, text, initial, a->scr.rows - 1, what);
	screen_invalidate(&a->scr);
	return line;
}

static void pane_edit_field(struct app *a)
{
	struct pane *p = a->pane;
	const char *f = fmt_agent_fields[p->cursor];
	char val[1024], pr[64], *line;
	int names = !strcmp(f, "target") || !strcmp(f, "begin") || !strcmp(f, "end");

	fmt_agent_field_value(pane_shown_step(p), f, val, sizeof(val));
	snprintf(pr, sizeof(pr), "%s> ", f);
	line = prompt(a, a->field, pr, val, names ? EDIT_COMPLETE_NAMES : EDIT_COMPLETE_NONE);
	if (!line)
		return;                   /* abandoned: unchanged */
	pane_edit_set(p, f, line);
	free(line);
}

static void pane_edit_whole(struct app *a)
{
	struct pane *p = a->pane;
	char *json, *out = NULL, *cause = NULL;
	int rc;

	if (p->mode == FMT_AGENT_MODE_PROPOSAL && pane_edit_begin(p) < 0)
		return;
	if (p->mode != FMT_AGENT_MODE_EDIT) {
		set_msg(a, "nothing to edit: no proposal is waiting");
		return;
	}
	json = step_to_json(pane_shown_step(p));
	if (!json) {
		set_msg(a, "cannot write the step as JSON: out of memory");
		return;
	}
	rc = edit_spec_run(json, &out, &cause);
	screen_invalidate(&a->scr);
	if (rc < 0)
		set_msg(a, "%s", cause ? cause : "the editor failed");
	else if (rc == 1)
		set_msg(a, "unchanged");
	else if (out)
		pane_edit_json(p, out);
	free(json);
	free(out);
	free(cause);
}

/* Keys for the agent pane; returns 1 when the key was taken. */
static int key_pane(struct app *a, int code)
{
	struct pane *p = a->pane;
	enum key_action act = key_lookup(code);
	char *line;

	if (!p)
		return 0;
	if (a->replay && act != KEY_ACT_PANE_FOCUS && act != KEY_ACT_ZOOM)
		return 0;         /* a replayed pane only shows */
	if (p->mode == FMT_AGENT_MODE_EDIT) {
		switch (act) {
		case KEY_ACT_UP:
			if (p->cursor > 0)
				p->cursor--;
			p->version++;
			return 1;
		case KEY_ACT_DOWN:
			if (fmt_agent_fields[p->cursor + 1])
				p->cursor++;
			p->version++;
			return 1;
		case KEY_ACT_TOGGLE:
		case KEY_ACT_EDIT:
			pane_edit_field(a);
			return 1;
		case KEY_ACT_CANCEL:
			pane_edit_abandon(p);
			return 1;
		default:
			break;
		}
	}
	switch (act) {
	case KEY_ACT_PANE_FOCUS:
		a->focus_agent = !a->focus_agent;
		if (a->scr.zoom != SCREEN_ZOOM_NONE) {
			a->scr.zoom = a->focus_agent ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_TREE;
			screen_relayout(&a->scr);
			screen_set_theme(&a->scr, &a->theme, term_depth());
		}
		set_msg(a, "focus: %s", a->focus_agent ? "agent pane" : "tree");
		return 1;
	case KEY_ACT_ZOOM:
		a->scr.zoom = a->scr.zoom != SCREEN_ZOOM_NONE ? SCREEN_ZOOM_NONE :
			      a->focus_agent ? SCREEN_ZOOM_AGENT : SCREEN_ZOOM_TREE;
		screen_relayout(&a->scr);
		screen_set_theme(&a->scr, &a->theme, term_depth());
		return 1;
	case KEY_ACT_ACCEPT:
		pane_accept(p, a->t);
		return 1;
	case KEY_ACT_EDIT:
		pane_edit_begin(p);
		return 1;
	case KEY_ACT_EDIT_JSON:
		pane_edit_whole(a);
		return 1;
	case KEY_ACT_VETO:
		if (p->mode != FMT_AGENT_MODE_PROPOSAL && p->mode != FMT_AGENT_MODE_EDIT) {
			pane_veto(p, a->t, NULL);  /* says there is nothing to veto */
			return 1;
		}
		line = prompt(a, a->field, "veto reason (Enter: none; Ctrl-C: keep it)> ", NULL,
			      EDIT_COMPLETE_NONE);
		if (line)
			pane_veto(p, a->t, line);
		else
			set_msg(a, "not vetoed: the proposal is still waiting");
		free(line);
		return 1;
	case KEY_ACT_ANOTHER:
		pane_another(p, a->t);
		return 1;
	case KEY_ACT_UNDO:
		pane_undo(p);
		return 1;
	case KEY_ACT_TALK:
		line = prompt(a, a->talk, "talk to the agent> ", NULL, EDIT_COMPLETE_NAMES);
		if (line && *line)
			pane_talk(p, a->t, line);
		free(line);
		return 1;
	case KEY_ACT_FOCUS_NODE:
		if (view_tree_selected(a->v))
			pane_focus(p, a->t, view_tree_selected(a->v));
		return 1;
	case KEY_ACT_CANCEL:
		pane_cancel(p);
		return 1;
	default:
		break;
	}
	if (a->focus_agent) {
		int page = a->scr.agent.h > 4 ? a->scr.agent.h - 4 : 1;

		switch (act) {
		case KEY_ACT_UP:
			view_agent_scroll(p, 1);
			return 1;
		case KEY_ACT_DOWN:
			view_agent_scroll(p, -1);
			return 1;
		case KEY_ACT_PGUP:
			view_agent_scroll(p, page);
			return 1;
		case KEY_ACT_PGDN:
			view_agent_scroll(p, -page);
			return 1;
		case KEY_ACT_HOME:
			view_agent_scroll(p, 1 << 20);
			return 1;
		case KEY_ACT_END:
			view_agent_scroll(p, -(1 << 20));
			return 1;
		default:
			break;
		}
	}
	return 0;
}

static int key_tree(struct app *a, int code, char **cause)
{
	struct view_tree *v = a->v;
	long page = v->height > 1 ? (long)v->height - 1 : 1;
	enum key_action act = a->replay ? key_lookup_replay(code) : key_lookup(code);
	int err = 0, r;

	switch (act) {
	case KEY_ACT_TOGGLE:
		err = view_tree_toggle(v);
		break;
	case KEY_ACT_EXPAND:
		err = view_tree_expand(v);
		break;
	case KEY_ACT_COLLAPSE:
		err = view_tree_collapse(v);
		break;
	case KEY_ACT_EXPAND_ALL:
		err = view_tree_expand_all(v);
		break;
	case KEY_ACT_COLLAPSE_ALL:
		err = view_tree_collapse_all(v);
		break;
	case KEY_ACT_UP:
		view_tree_move(v, -1);
		break;
	case KEY_ACT_DOWN:
		view_tree_move(v, 1);
		break;
	case KEY_ACT_PGUP:
		view_tree_move(v, -page);
		break;
	case KEY_ACT_PGDN:
		view_tree_move(v, page);
		break;
	case KEY_ACT_HOME:
		view_tree_move_to(v, 0);
		break;
	case KEY_ACT_END:
		view_tree_move_to(v, v->nrows ? v->nrows - 1 : 0);
		break;
	case KEY_ACT_SEARCH:
		a->mode = MODE_SEARCH;
		a->qlen = 0;
		a->query[0] = '\0';
		a->search_found = 1;
		a->search_origin = v->sel_id;
		break;
	case KEY_ACT_SEARCH_NEXT:
	case KEY_ACT_SEARCH_PREV:
		if (!a->last_query[0]) {
			set_msg(a, "no search yet: press / and type a name");
			break;
		}
		r = view_tree_find(v, act == KEY_ACT_SEARCH_NEXT ? 1 : -1, 0,
				   view_tree_match_name, a->last_query);
		if (r <= 0)
			set_msg(a, "no match for '%s'", a->last_query);
		break;
	case KEY_ACT_SIG_NEXT:
	case KEY_ACT_SIG_PREV:
		if (!a->calibrated) {
			set_msg(a, "nothing is marked: significance needs reference and loaded windows");
			break;
		}
		r = view_tree_find(v, act == KEY_ACT_SIG_NEXT ? 1 : -1, 0,
				   view_tree_match_significant, NULL);
		if (r <= 0)
			set_msg(a, "no significant node");
		break;
	case KEY_ACT_WHY:
		open_why(a);
		break;
	case KEY_ACT_GROUP:
		a->group = a->group == TREE_BY_PROCESS ? TREE_BY_SUBSYS : TREE_BY_PROCESS;
		err = rebuild(a, cause);
		if (err)
			return err;
		set_msg(a, "grouped by %s", a->group == TREE_BY_PROCESS ? "process" : "subsystem");
		break;
	case KEY_ACT_THEME:
		cycle_theme(a);
		break;
	case KEY_ACT_REDRAW:
		screen_invalidate(&a->scr);
		break;
	case KEY_ACT_HELP:
		open_help(a);
		break;
	case KEY_ACT_QUIT:
		a->quit = 1;
		break;
	case KEY_ACT_PANE_FOCUS:
	case KEY_ACT_ZOOM:
	case KEY_ACT_ACCEPT:
	case KEY_ACT_EDIT:
	case KEY_ACT_EDIT_JSON:
	case KEY_ACT_VETO:
	case KEY_ACT_ANOTHER:
	case KEY_ACT_UNDO:
	case KEY_ACT_TALK:
	case KEY_ACT_FOCUS_NODE:
	case KEY_ACT_CANCEL:
		if (!a->pane)
			set_msg(a, "no agent pane: it comes with a calibrated run (--load CMD)");
		break;
	case KEY_ACT_EXPLAIN:
		open_explain(a);
		break;
	case KEY_ACT_EXPORT:
		write_export(a);
		break;
	case KEY_ACT_REPLAY_NEXT:
	case KEY_ACT_REPLAY_PREV:
	case KEY_ACT_REPLAY_START:
	case KEY_ACT_REPLAY_END:
		return replay_move(a, act, cause);
	case KEY_ACT_NONE:
		break;
	}
	if (err)
		set_cause(cause, "out of memory laying out the tree");
	return err;
}

static int read_keys(struct app *a, char **cause)
{
	wint_t ch;
	int rc, err;

	while ((rc = wget_wch(a->win_in, &ch)) != ERR) {
		int fn = rc == KEY_CODE_YES;
		int code = fn ? KEY_FN((int)ch) : (int)ch;

		if (fn && ch == KEY_RESIZE)
			continue;
		if (a->mode == MODE_SEARCH) {
			key_search(a, fn, ch);
			continue;
		}
		a->msg[0] = '\0';
		if (a->mode == MODE_OVERLAY) {
			key_overlay(a, code);
			continue;
		}
		if (key_pane(a, code))
			continue;
		err = key_tree(a, code, cause);
		if (err)
			return err;
		if (a->quit)
			break;
	}
	return 0;
}

/* ---- drawing ----------------------------------------------------------------------- */

static void render(struct app *a)
{
	struct fmt_cols cols;
	struct fmt_row_ctx ctx;
	char title[256], footer[320];
	const char *ft = NULL;
	enum theme_role frole = THEME_NORMAL;

	if (a->scr.too_small) {
		screen_draw_too_small(&a->scr);
		doupdate();
		return;
	}
	pane_sync_tree(a);
	view_tree_set_height(a->v, (unsigned)screen_tree_rows(&a->scr));
	fmt_cols_layout(&cols, a->scr.tree.w, a->calibrated);
	ctx.gl = a->gl;
	ctx.cols = &cols;
	ctx.root_total = a->t && a->t->root ? tree_node_sum(a->t->root) : 0;
	ctx.match = a->mode == MODE_SEARCH ? a->query : a->last_query;
	snprintf(title, sizeof(title), "%s %s %s%s", a->o.title ? a->o.title : "argus",
		 a->gl->g[GLYPH_SEP], a->calibrated ? "calibrated" : "live",
		 a->group == TREE_BY_PROCESS ? " by process" : "");
	screen_draw_header(&a->scr, title, a->calibrated ? a->summary : NULL, a->gl);
	if (a->mode == MODE_SEARCH) {
		snprintf(footer, sizeof(footer), "/%s%s", a->query,
			 a->search_found ? "" : "   (no match)");
		ft = footer;
		frole = a->search_found ? THEME_NORMAL : THEME_STATUS_WARN;
	} else if (a->msg[0]) {
		snprintf(footer, sizeof(footer), " %s", a->msg);
		ft = footer;
		frole = THEME_STATUS_WARN;
	} else if (a->replay) {
		replay_footer(a, footer, sizeof(footer));
		ft = footer;
	}
	if (screen_tree_shown(&a->scr))
		screen_draw_tree(&a->scr, a->v, &ctx, ft, frole, a->o.threshold);
	if (a->pane) {
		struct source_status st = a->st;
		char phase[128];
		/* a replay's phase is the replay's position */
		const char *ph = a->replay ? NULL : pane_status(a->pane, &st, phase, sizeof(phase));

		view_agent_draw(&a->scr, a->pane, a->pane->agent ? a->pane->agent->ops->name :
				a->replay ? "replay" : "none", a->focus_agent, a->gl);
		/* the message line of a hidden tree goes to the status bar */
		if (!screen_tree_shown(&a->scr) && ft) {
			fmt_line_reset(&a->scr.scratch);
			fmt_line_add(&a->scr.scratch, frole == THEME_NORMAL ? THEME_STATUS : frole, ft,
				     a->scr.status.w);
			fmt_line_pad(&a->scr.scratch, THEME_STATUS, a->scr.status.w);
		} else {
			fmt_status_ex(&a->scr.scratch, &st, a->scr.status.w, a->gl, ph,
				      a->o.auto_accept ? "AUTO: steps load without asking" : NULL);
		}
		screen_put_line(&a->scr, a->scr.wstatus, &a->scr.cstatus, 0, &a->scr.scratch);
	} else {
		screen_draw_status(&a->scr, &a->st, a->gl);
	}
	if (a->mode == MODE_OVERLAY)
		screen_draw_overlay(&a->scr, a->ov_title, (const char *const *)a->ov_lines,
				    a->ov_n, &a->ov_top);
	if (a->mode == MODE_SEARCH) {
		curs_set(1);
		wmove(a->scr.wtree, a->scr.tree.h - 1, 1 + fmt_width(a->query));
		wnoutrefresh(a->scr.wtree);
	} else {
		curs_set(0);
	}
	screen_flush(&a->scr);
}

static int handle_resize(struct app *a)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	if (screen_resize(&a->scr, LINES, COLS) < 0)
		return -ENOMEM;
	screen_set_theme(&a->scr, &a->theme, term_depth());
	if (a->mode == MODE_OVERLAY)
		screen_close_overlay(&a->scr); /* redrawn at its new size */
	return 0;
}

static void suspend(struct app *a)
{
	sigset_t ts;

	def_prog_mode();
	curs_set(1);
	endwin();
	signal(SIGTSTP, SIG_DFL);
	sigemptyset(&ts);
	sigaddset(&ts, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &ts, NULL);
	raise(SIGTSTP);           /* stops here until SIGCONT */
	sigprocmask(SIG_BLOCK, &ts, NULL);
	reset_prog_mode();
	handle_resize(a);
}

static void log_to_ring(void *arg, enum probe_log_level level, const char *msg)
{
	(void)level;
	log_ring_feed(arg, msg, strlen(msg));
}

/* ---- terminal setup and teardown ------------------------------------------------------- */

static int capture_stderr(struct app *a)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	a->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (a->saved_err < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		if (a->saved_err >= 0)
			close(a->saved_err);
		a->saved_err = -1;
		return err;
	}
	close(p[1]);
	a->errpipe = p[0];
	return 0;
}

static void drain_stderr(struct app *a)
{
	char buf[4096];
	ssize_t n;

	if (a->errpipe < 0)
		return;
	while ((n = read(a->errpipe, buf, sizeof(buf))) > 0)
		log_ring_feed(a->log, buf, (size_t)n);
}

static void release_stderr(struct app *a)
{
	if (a->saved_err < 0)
		return;
	fflush(stderr);
	dup2(a->saved_err, STDERR_FILENO);
	close(a->saved_err);
	a->saved_err = -1;
	drain_stderr(a);
	log_ring_flush(a->log);
	close(a->errpipe);
	a->errpipe = -1;
}

static int handle_signals(struct app *a)
{
	struct signalfd_siginfo si;

	while (read(a->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
			a->quit = 1;
			break;
		case SIGWINCH:
			if (handle_resize(a) < 0)
				return -ENOMEM;
			break;
		case SIGTSTP:
			suspend(a);
			break;
		default:
			break;
		}
	}
	return 0;
}

static int loop(struct app *a, char **cause)
{
	double now = mono_s(), next_status = now;
	int err = 0;

	a->last_rebuild = -1e9;
	while (!a->quit) {
		struct pollfd fds[3 + APP_MAX_SRC_FDS + APP_MAX_AGENT_FDS];
		int nfds = 3, nsrc = 0, tmo = 1000, rc;

		fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = a->sigfd, .events = POLLIN };
		fds[2] = (struct pollfd){ .fd = a->errpipe, .events = POLLIN };
		if (a->src->ops->pollfds) {
			nsrc = a->src->ops->pollfds(a->src, fds + 3, APP_MAX_SRC_FDS);
			if (nsrc > 0)
				nfds += nsrc;
		}
		if (a->pane && a->pane->in_flight) {   /* the LLM's sockets: its reply at once */
			int nag = agent_pollfds(a->pane->agent, fds + nfds, APP_MAX_AGENT_FDS);

			if (nag > 0)
				nfds += nag;
		}
		if (a->src->ops->timeout_ms) {
			int t = a->src->ops->timeout_ms(a->src, now);

			if (t >= 0 && t < tmo)
				tmo = t;
		}
		if (a->pane) {
			int t = pane_timeout_ms(a->pane, now);

			if (t >= 0 && t < tmo)
				tmo = t;
			if (a->pane->need_rebuild)
				tmo = 0;
		}
		if (a->pending_change) {
			double due = a->last_rebuild + a->o.refresh_s - now;
			int t = due > 0 ? (int)ceil(due * 1000) : 0;

			if (t < tmo)
				tmo = t;
		}
		{
			double due = next_status - now;
			int t = due > 0 ? (int)ceil(due * 1000) : 0;

			if (t < tmo)
				tmo = t;
		}
		rc = poll(fds, (nfds_t)nfds, tmo);
		if (rc < 0 && errno != EINTR) {
			err = -errno;
			set_cause(cause, "poll failed: %s", strerror(errno));
			break;
		}
		now = mono_s();
		if (rc > 0 && fds[1].revents) {
			err = handle_signals(a);
			if (err) {
				set_cause(cause, "out of memory after a resize");
				break;
			}
		}
		if (rc > 0 && (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) &&
		    !(fds[0].revents & POLLIN)) {
			a->quit = 1; /* the terminal went away */
			break;
		}
		if (rc > 0 && (fds[0].revents & POLLIN)) {
			err = read_keys(a, cause);
			if (err)
				break;
		}
		if (rc > 0 && fds[2].revents)
			drain_stderr(a);
		if (a->quit)
			break;
		rc = a->src->ops->tick(a->src, now, cause);
		if (rc < 0) {
			err = rc;
			if (!*cause)
				set_cause(cause, "measurement failed: %s", strerror(-rc));
			break;
		}
		if (rc > 0)
			a->pending_change = 1;
		a->src->ops->status(a->src, &a->st);
		if (a->pending_change && now - a->last_rebuild >= a->o.refresh_s) {
			err = rebuild(a, cause);
			if (err)
				break;
			a->pending_change = 0;
			a->last_rebuild = now;
		}
		if (a->pane) {
			/* the first turn sees the tree of every window: not before
			 * the rebuild that follows the last one */
			pane_tick(a->pane, a->t, a->calibrated && !a->pending_change, &a->st, now);
			if (a->pane->need_rebuild) {
				err = rebuild(a, cause);
				if (err)
					break;
				a->pane->need_rebuild = 0;
				pane_tick(a->pane, a->t, a->calibrated, &a->st, now);
			}
		}
		if (now >= next_status)
			next_status = now + 1.0;
		render(a);
	}
	return err;
}

int tui_run(struct source *src, const struct tui_opts *o, char **cause)
{
	struct app a;
	int err = 0, curses_up = 0, masked = 0;

	memset(&a, 0, sizeof(a));
	a.src = src;
	a.sigfd = a.errpipe = a.saved_err = -1;
	if (o)
		a.o = *o;
	else
		tui_opts_default(&a.o);
	if (a.o.refresh_s <= 0)
		a.o.refresh_s = 1.0;
	a.group = a.o.group;
	a.replay = source_replay_is(src);
	err = theme_load(&a.theme, a.o.theme, cause);
	if (err)
		goto out;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		err = -ENOTTY;
		set_cause(cause, "the interactive tree needs a terminal on stdin and stdout; "
			  "use 'argus record' for output to a file or pipe");
		goto out;
	}
	for (unsigned i = 0; i < sizeof(theme_cycle) / sizeof(theme_cycle[0]); i++)
		if (!strcmp(a.theme.name, theme_cycle[i]))
			a.theme_idx = (int)i;
	if (a.o.log_path) {
		a.logf = fopen(a.o.log_path, "a");
		if (!a.logf) {
			err = -errno;
			set_cause(cause, "cannot open log file %s: %s", a.o.log_path, strerror(errno));
			goto out;
		}
	}
	a.log = log_ring_new(APP_LOG_LINES, a.logf);
	a.v = view_tree_new(a.o.threshold);
	if (!a.log || !a.v) {
		err = -ENOMEM;
		set_cause(cause, "out of memory");
		goto out;
	}
	a.utf8 = !a.o.ascii && glyphs_locale_utf8();
	a.gl = glyphs_get(a.utf8);
	if (a.o.agent_pane || (a.replay && app_replay_talks(src))) {
		struct pane_opts po = {
			.steps = a.o.steps,
			.auto_accept = a.o.auto_accept,
			.utf8 = a.utf8,
			.load = a.o.load,
			.preflight = a.o.load != NULL,
			.sequential = a.o.sequential,
			.ses = a.o.session,
		};
		/* --agent (tui/opts_agent.h): the LLM, with the heuristic taking its failed
		 * turns; a replay has none (its pane shows the recorded transcript).  The
		 * LLM's reply streams into the pane as it arrives (tui/pane_stream.h) */
		struct pane_stream *ps = pane_stream_new();
		struct agent *ag = a.replay || !ps ? NULL :
				   a.o.agent ? opts_agent_new(a.o.agent, NULL, pane_stream_delta, ps, NULL)
					     : agent_heuristic_new();
		char *hp = edit_line_history_path();

		a.pane = ag || (a.replay && ps) ? pane_new(&po, ag) : NULL;
		if (a.pane)
			a.pane->stream = ps;
		else
			pane_stream_free(ps);
		if (a.pane && a.replay &&
		    pane_replay(a.pane, source_replay_log(src), source_replay_pos(src)) < 0) {
			pane_free(a.pane);
			a.pane = NULL;
		}
		a.talk = edit_line_new(hp);
		a.field = edit_line_new(NULL);
		free(hp);
		if (!a.pane) {
			err = -ENOMEM;
			set_cause(cause, "cannot make the agent pane: out of memory");
			goto out;
		}
		a.scr.want_agent = 1;
	}

	sigemptyset(&a.sigmask);
	sigaddset(&a.sigmask, SIGINT);
	sigaddset(&a.sigmask, SIGTERM);
	sigaddset(&a.sigmask, SIGHUP);
	sigaddset(&a.sigmask, SIGWINCH);
	sigaddset(&a.sigmask, SIGTSTP);
	if (sigprocmask(SIG_BLOCK, &a.sigmask, &a.oldmask) < 0) {
		err = -errno;
		set_cause(cause, "cannot block signals: %s", strerror(errno));
		goto out;
	}
	masked = 1;
	a.sigfd = signalfd(-1, &a.sigmask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (a.sigfd < 0) {
		err = -errno;
		set_cause(cause, "cannot create a signalfd: %s", strerror(errno));
		goto out;
	}

	a.term = newterm(NULL, stdout, stdin);
	if (!a.term) {
		const char *term = getenv("TERM");

		err = -ENOTTY;
		set_cause(cause, "cannot start the terminal (TERM=%s): unknown terminal type; "
			  "try TERM=xterm-256color or TERM=vt100", term ? term : "unset");
		goto out;
	}
	curses_up = 1;
	set_term(a.term);
	err = capture_stderr(&a);
	if (err) {
		set_cause(cause, "cannot redirect stderr: %s", strerror(-err));
		goto out;
	}
	probe_set_log(log_to_ring, a.log);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR"))) {
		start_color();
		use_default_colors();
	}
	a.win_in = newwin(1, 1, 0, 0);
	if (!a.win_in || screen_init(&a.scr) < 0) {
		err = -ENOMEM;
		set_cause(cause, "cannot create the windows: out of memory");
		goto out;
	}
	keypad(a.win_in, TRUE);
	nodelay(a.win_in, TRUE);
	screen_set_theme(&a.scr, &a.theme, term_depth());
	a.src->ops->status(a.src, &a.st);
	render(&a);

	err = loop(&a, cause);

out:
	overlay_free(&a);
	if (curses_up) {
		screen_fini(&a.scr);
		if (a.win_in)
			delwin(a.win_in);
		curs_set(1);
		endwin();
		delscreen(a.term);
	}
	if (curses_up)
		probe_set_log(NULL, NULL);
	release_stderr(&a);
	pane_free(a.pane);           /* stops a running step before the loads end */
	edit_line_free(a.talk);
	edit_line_free(a.field);
	if (src && src->ops->stop)
		src->ops->stop(src);
	if (err && a.log) {
		unsigned n = log_ring_count(a.log), from = n > 5 ? n - 5 : 0;

		for (unsigned i = from; i < n; i++)
			fprintf(stderr, "argus: log: %s\n", log_ring_line(a.log, i));
	}
	if (a.sigfd >= 0) {
		struct signalfd_siginfo si;

		/* consume what arrived during teardown so unblocking kills nobody */
		while (read(a.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(a.sigfd);
	}
	if (masked)
		sigprocmask(SIG_SETMASK, &a.oldmask, NULL);
	view_tree_free(a.v);
	app_verdict_clear(&a);
	tree_free(a.t);
	log_ring_free(a.log);
	if (a.logf)
		fclose(a.logf);
	return err;
}
