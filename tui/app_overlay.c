/* app_overlay — the help (?), why (Enter on a mark) and explain (x)
 * overlays of the interactive tree: a view over all the others
 * (app_view_overlay) until a key closes it. */
#include <stdlib.h>
#include <string.h>


#include "app_priv.h"
#include "analysis/glossary.h"
#include "base/sanitize.h"

/* ---- overlays -------------------------------------------------------------------- */

void app_overlay_free(struct app *a)
{
	for (int i = 0; i < a->ov_n; i++)
		free(a->ov_lines[i]);
	free(a->ov_lines);
	a->ov_lines = NULL;
	a->ov_n = 0;
	a->ov_top = 0;
}

void app_overlay_add(struct app *a, const char *fmt, ...)
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

void app_overlay_open(struct app *a, const char *title)
{
	snprintf(a->ov_title, sizeof(a->ov_title), "%s", title);
	app_view_open(a, &app_view_overlay);
}

static void app_overlay_close(struct app *a)
{
	app_overlay_free(a);
	screen_close_overlay(&a->scr);
	app_view_close(a, &app_view_overlay);
}

/* Arrows and pages scroll; any other key closes it.  Every key is its. */
static int overlay_view_key(struct app *a, const struct app_key *k, char **cause)
{
	int code = k->code, page = a->scr.rows > 6 ? a->scr.rows - 6 : 1;

	(void)cause;
	switch (key_lookup(code)) {
	case KEY_ACT_UP:
		a->ov_top--;
		return APP_DRAW_OVERLAY;
	case KEY_ACT_DOWN:
		a->ov_top++;
		return APP_DRAW_OVERLAY;
	case KEY_ACT_PGUP:
		a->ov_top -= page;
		return APP_DRAW_OVERLAY;
	case KEY_ACT_PGDN:
		a->ov_top += page;
		return APP_DRAW_OVERLAY;
	case KEY_ACT_QUIT:
		if (code == 'q' || code == 'Q') {
			app_overlay_close(a);
			return APP_DRAW_PANES;
		}
		break;
	default:
		break;
	}
	app_overlay_close(a);
	return APP_DRAW_PANES;
}

static void overlay_view_draw(struct app *a, const struct app_frame *f)
{
	(void)f;
	screen_draw_overlay(&a->scr, a->ov_title, (const char *const *)a->ov_lines, a->ov_n,
			    &a->ov_top);
}

const struct app_view_ops app_view_overlay = {
	.name = "overlay",
	.area = APP_AREA_OVER,
	.draw = overlay_view_draw,
	.key = overlay_view_key,
	.free = app_overlay_free,
};

void app_open_help(struct app *a)
{
	app_overlay_free(a);
	if (a->replay)
		for (const struct key_binding *b = key_replay_table; b->label; b++)
			app_overlay_add(a, "%-12s %s", b->label, b->help);
	for (const struct key_binding *b = key_table; b->label; b++)
		if ((!a->replay || key_lookup_replay(b->code[0]) == b->action) &&
		    (!(b->flags & KEY_F_LIVE_ONLY) || a->st.phase == SOURCE_LIVE))
			app_overlay_add(a, "%-12s %s", b->label, b->help);
	app_overlay_add(a, "%s", "");
	if (a->calibrated) {
		app_overlay_add(a, "columns: ref/s load/s (samples per second in each condition),");
		app_overlay_add(a, "  %s/s (load - ref), %s%% (of ref); %s = significant (q <= 0.05,",
			    a->gl->g[GLYPH_DELTA], a->gl->g[GLYPH_DELTA], a->gl->g[GLYPH_SIG]);
		app_overlay_add(a, "  pairs agree); %s = verdict path; [new] / [gone] = only loaded /",
			    a->gl->g[GLYPH_VERDICT]);
		app_overlay_add(a, "  only reference");
		/* said also when the column is dropped (narrow pane, --time
		 * wall): the help says where it went */
		app_overlay_add(a, "%%CPU: load/s as a share of one CPU (100 = one CPU), samples");
		app_overlay_add(a, "  over %u Hz; in wide panes, not with --time wall (thread time)",
				a->st.freq_hz);
	} else {
		app_overlay_add(a, "columns: samples (node total), %% of all, self (samples in the");
		app_overlay_add(a, "  node itself)");
	}
	app_overlay_add(a, "nodes below %g%% of all samples are hidden (--threshold)",
		    a->o.threshold * 100);
	app_overlay_open(a, "argus keys (any other key closes)");
}

void app_open_why(struct app *a)
{
	struct tree_node *n = view_tree_selected(a->v);
	const char *path[64];
	char buf[512];
	size_t off = 0;
	unsigned np = 0;

	if (!n)
		return;
	app_overlay_free(a);
	for (const struct tree_node *p = n; p && p->parent && np < 64; p = p->parent)
		path[np++] = p->name;
	buf[0] = '\0';
	while (np-- > 0 && off < sizeof(buf) - 8) {
		int w = snprintf(buf + off, sizeof(buf) - off, "%s%s", off ? " > " : "", path[np]);

		if (w < 0)
			break;
		off += (size_t)w;
	}
	app_overlay_add(a, "path: %s", off ? buf : "(root)");
	if (!a->calibrated) {
		uint64_t root = a->t && a->t->root ? tree_node_sum(a->t->root) : 0;

		app_overlay_add(a, "samples %llu (%.1f%% of all), self %llu",
			    (unsigned long long)tree_node_sum(n),
			    root ? 100.0 * (double)tree_node_sum(n) / (double)root : 0.0,
			    (unsigned long long)(n->self[COND_REF] + n->self[COND_LOAD]));
		app_overlay_add(a, "not marked: live sampling has one condition, nothing to compare;");
		app_overlay_add(a, "deltas and significance need reference and loaded windows");
		app_overlay_open(a, "why is this marked");
		return;
	}
	calib_explain(n, buf, sizeof(buf));
	app_overlay_add(a, "%s", buf);
	app_overlay_add(a, "rate: ref %.1f/s, load %.1f/s; delta %+.1f/s", n->stat.rate[COND_REF],
		    n->stat.rate[COND_LOAD], n->stat.delta);
	if (n->stat.cpu_ms[COND_REF] > 0 || n->stat.cpu_ms[COND_LOAD] > 0)
		app_overlay_add(a, "cpu: ref %.2f ms/s, load %.2f ms/s", n->stat.cpu_ms[COND_REF],
			    n->stat.cpu_ms[COND_LOAD]);
	app_overlay_add(a, "test: two-rate Poisson p = %.3g, Benjamini-Hochberg q = %.3g",
		    n->stat.p, n->stat.q);
	app_overlay_add(a, "sign consistency: %u of %u reference/loaded pairs agree",
		    n->stat.pairs_agree, n->stat.pairs);
	app_overlay_add(a, "marked: %s", !n->stat.significant ? "not significant"
				      : n->stat.delta >= 0 ? "significant increase"
							   : "significant decrease");
	if (n->presence == TREE_NEW)
		app_overlay_add(a, "new: seen only in the loaded windows");
	else if (n->presence == TREE_VANISHED)
		app_overlay_add(a, "gone: seen only in the reference windows");
	if (n->flags & TREE_F_VERDICT)
		app_overlay_add(a, "on the verdict path (%.0f%% of its parent's delta)",
			    n->stat.share_of_parent * 100);
	app_overlay_open(a, "why is this marked");
}

void app_open_load_output(struct app *a)
{
	enum { MAX_SHOWN = 200 };
	unsigned n = a->log ? log_ring_count(a->log) : 0, from = 0, k = 0;

	app_overlay_free(a);
	for (unsigned i = n; i-- > 0 && k < MAX_SHOWN;)
		if (!strncmp(log_ring_line(a->log, i), "load: ", 6)) {
			from = i;
			k++;
		}
	for (unsigned i = from; k && i < n; i++)
		if (!strncmp(log_ring_line(a->log, i), "load: ", 6))
			app_overlay_add(a, "%s", log_ring_line(a->log, i) + 6);
	if (!k)
		app_overlay_add(a, "nothing yet (an attached -p PID writes where it always did)");
	app_overlay_open(a, "the load's output");
}

/* C: the user-space call sites of the selected node (issue 27), computed
 * as the verdict's are (core/data/verdict.h) over the node's frames. */
/* The accepted steps' profiles (their stacks hang under the tree's nodes
 * too): at most max into out; the count. */
static unsigned app_step_profiles(struct app *a, const struct profile **out,
				  const char **units, unsigned max)
{
	struct analysis_step steps[APP_MAX_STEPS];
	unsigned n = a->pane ? pane_steps(a->pane, steps, APP_MAX_STEPS) : 0, k = 0;

	for (unsigned i = 0; i < n && k < max; i++)
		if (steps[i].data && steps[i].data->prof) {
			if (units)
				units[k] = steps[i].data->unit;
			out[k++] = steps[i].data->prof;
		}
	return k;
}

/* Whether an accepted step recorded user frames (issue 27: tracepoint_stacks
 * and offcpu steps do). */
static int app_steps_have_user(struct app *a)
{
	const struct profile *sp[APP_MAX_STEPS];
	unsigned n = app_step_profiles(a, sp, NULL, APP_MAX_STEPS);

	for (unsigned i = 0; i < n; i++)
		for (size_t j = 0; j < sp[i]->nstacks; j++)
			if (sp[i]->stacks[j].nuframes)
				return 1;
	return 0;
}

/* The call sites of v's path from the session's profile p, else from the
 * accepted steps' (a node a step added).  0 or -ENOMEM. */
static int app_callsites_fill(struct app *a, struct verdict *v, const struct profile *p)
{
	const struct profile *sp[APP_MAX_STEPS];
	const char *units[APP_MAX_STEPS];
	unsigned n = app_step_profiles(a, sp, units, APP_MAX_STEPS);

	return verdict_callsites_fill_steps(v, p, sp, units, n, 0);
}

/* The line that says how many samples no call site shows (their user
 * stack could not be taken), when any. */
static void app_callsites_gap(struct app *a, const struct verdict *v)
{
	char gap[160];

	if (verdict_callsites_gap(v, gap, sizeof(gap)))
		app_overlay_add(a, "%s", gap);
}

void app_open_callers(struct app *a)
{
	struct tree_node *n = view_tree_selected(a->v);
	const struct profile *p = a->src->ops->profile(a->src);
	const struct tree_node *chain[VERDICT_MAX_PATH];
	struct verdict v;
	unsigned nc = 0;
	char site[1024];
	int any = 0;

	if (!n || !p)
		return;
	app_overlay_free(a);
	memset(&v, 0, sizeof(v));
	v.found = 1;
	/* the node's kernel frames, root first (subsystem and process levels
	 * are the tree's, not the stacks') */
	for (const struct tree_node *q = n; q && q->parent && nc < VERDICT_MAX_PATH; q = q->parent)
		if (q->kind == TREE_FRAME)
			chain[nc++] = q;
	while (nc-- > 0)
		v.path[v.npath++] = (char *)chain[nc]->name;
	for (size_t i = 0; i < p->nstacks && !any; i++)
		any = p->stacks[i].nuframes > 0;
	any = any || app_steps_have_user(a);
	app_overlay_add(a, "node: %s", n->name);
	if (!v.npath) {
		app_overlay_add(a, "not a kernel function: select one (a frame of the tree)");
	} else if (!any) {
		app_overlay_add(a, "no user-space stacks recorded (kernel stacks only: an older");
		app_overlay_add(a, "session, an imported file, or --kernel-only)");
	} else if (app_callsites_fill(a, &v, p) < 0) {
		app_overlay_add(a, "out of memory");
	} else if (!v.ncallsites) {
		app_overlay_add(a, "no call site whose rate rose under this node (the rises are");
		app_overlay_add(a, "loaded minus reference: they need both conditions)");
		app_callsites_gap(a, &v);
	} else {
		app_callsites_gap(a, &v);
		app_overlay_add(a, "the rise in the loaded windows (%s/s), its share, and the",
				verdict_callsites_unit(&v));
		app_overlay_add(a, "call site (leaf first):");
		for (unsigned i = 0; i < v.ncallsites; i++) {
			verdict_callsite_format_sep(&v.callsites[i], 6, a->utf8 ? " \u2190 " : " <- ",
						    site, sizeof(site));
			app_overlay_add(a, "%+9.1f/s %3.0f%%  %s", v.callsites[i].rise,
					v.callsites[i].share * 100, site);
		}
	}
	/* the path's names are the tree's: not the verdict's to free */
	v.npath = 0;
	verdict_clear(&v);
	app_overlay_open(a, "user-space call sites");
}

/* Adds text to the overlay wrapped at width columns (the texts are ASCII). */
static void app_overlay_wrap(struct app *a, const char *text, int width)
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
		app_overlay_add(a, "%.*s", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
	}
}

static uint64_t app_work_exec(const struct tree_work *w)
{
	return w->exec[COND_REF] + w->exec[COND_LOAD];
}

static int app_work_exec_cmp(const void *a, const void *b)
{
	const struct tree_work *x = *(const struct tree_work *const *)a;
	const struct tree_work *y = *(const struct tree_work *const *)b;
	uint64_t ex = app_work_exec(x), ey = app_work_exec(y);

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return strcmp(x->func, y->func);
}

/* "ran (workqueue tracepoint): vmstat_update ×120, ...": the work
 * functions the tracepoint counted the kworker executing, most first
 * (APP_KWORK_EXEC_SHOWN at most), or why there are none. */
#define APP_KWORK_EXEC_SHOWN 12
static void app_explain_kwork_exec(struct app *a, const struct tree_kworker *kw, int width)
{
	const struct tree_work **by;
	unsigned n = 0, shown;
	char text[1400];
	size_t len;

	if (!a->t || !a->t->kwork_traced) {
		app_overlay_wrap(a, "ran (workqueue tracepoint): not counted in these windows (the "
				 "probe did not load, or the session predates it)", width);
		return;
	}
	by = malloc((kw->nwork ? kw->nwork : 1) * sizeof(*by));
	if (!by)
		return;
	for (unsigned i = 0; i < kw->nwork; i++)
		if (app_work_exec(&kw->work[i]))
			by[n++] = &kw->work[i];
	if (!n) {
		app_overlay_wrap(a, "ran (workqueue tracepoint): no work item in these windows", width);
		free(by);
		return;
	}
	qsort(by, n, sizeof(by[0]), app_work_exec_cmp);
	shown = n < APP_KWORK_EXEC_SHOWN ? n : APP_KWORK_EXEC_SHOWN;
	len = (size_t)snprintf(text, sizeof(text), "ran (workqueue tracepoint):");
	for (unsigned i = 0; i < shown && len < sizeof(text); i++) {
		char fn[100];

		/* a kernel symbol, but from a session that anyone may have written */
		sanitize_into(fn, sizeof(fn), by[i]->func, 0);
		len += (size_t)snprintf(text + len, sizeof(text) - len, "%s %s %s%llu", i ? "," : "",
					fn, a->gl->utf8 ? "\u00d7" : "x",
					(unsigned long long)app_work_exec(by[i]));
	}
	if (n > shown && len < sizeof(text))
		snprintf(text + len, sizeof(text) - len, ", ... %u more", n - shown);
	app_overlay_wrap(a, text, width);
	free(by);
}

/* A kworker's work functions: those its stacks name, each with its share
 * of the kworker's samples (the frame process_one_work called:
 * core/data/kwork.h), then those the workqueue tracepoint counted it running,
 * with their executions. */
static void app_explain_kwork(struct app *a, const struct tree_kworker *kw, int width)
{
	uint64_t all = kw->total[COND_REF] + kw->total[COND_LOAD], named = 0;
	unsigned nsampled = 0, shown;

	/* the sampled ones come first (tree_kworker's order) */
	while (nsampled < kw->nwork &&
	       kw->work[nsampled].total[COND_REF] + kw->work[nsampled].total[COND_LOAD])
		nsampled++;
	shown = nsampled < 20 ? nsampled : 20;
	app_overlay_add(a, "%s", "");
	if (!nsampled) {
		app_overlay_wrap(a, "work functions: none named in its sampled stacks (only the "
				 "workqueue's own code: its lock, scheduling, an interrupt)", width);
	} else {
		app_overlay_wrap(a, "work functions it ran, by its samples (the function "
				 "process_one_work called, as the stacks show it):", width);
	}
	for (unsigned i = 0; i < nsampled; i++) {
		const struct tree_work *w = &kw->work[i];
		uint64_t k = w->total[COND_REF] + w->total[COND_LOAD];
		char fn[160];

		named += k;
		if (i >= shown)
			continue;
		sanitize_into(fn, sizeof(fn), w->func, 0);
		app_overlay_add(a, "  %-32s %5.1f%%  %llu sample%s", fn,
				all ? 100.0 * (double)k / (double)all : 0.0, (unsigned long long)k,
				k == 1 ? "" : "s");
	}
	if (nsampled > shown)
		app_overlay_add(a, "  ... %u more", nsampled - shown);
	if (nsampled && all > named) {
		app_overlay_add(a, "  %-32s %5.1f%%  %llu sample%s", "(no work function named)",
				100.0 * (double)(all - named) / (double)all,
				(unsigned long long)(all - named), all - named == 1 ? "" : "s");
		app_overlay_wrap(a, "  (the workqueue's own code around the work items, or a work "
				 "function that ended in a tail call to one of its helpers)", width);
	}
	app_explain_kwork_exec(a, kw, width);
}

void app_open_explain(struct app *a)
{
	struct tree_node *n = view_tree_selected(a->v);
	char text[1024], title[120];
	int width = a->scr.cols > 20 ? a->scr.cols - 12 : 60;

	if (!n)
		return;
	if (width > 76)
		width = 76;
	app_overlay_free(a);
	app_overlay_wrap(a, glossary_explain(n, text, sizeof(text)), width);
	app_overlay_add(a, "%s", "");
	app_overlay_wrap(a, glossary_numbers(n, a->calibrated, a->t && a->t->root ?
					 tree_node_sum(a->t->root) : 0, a->st.freq_hz,
					 text, sizeof(text)), width);
	if (n->kind == TREE_PROCESS && n->ident) {
		const struct tree_ident *id = n->ident;
		const char *const f[][2] = {
			{ "command line", id->cmdline }, { "executable", id->exe },
			{ "cgroup", id->cgroup }, { "systemd unit", id->unit },
			{ "container", id->container }, { "threads", id->threads },
			{ "kernel thread", id->kthread ? (*id->role ? id->role : "yes") : "" },
		};

		/* as /proc showed it while it ran (strings escaped when read) */
		app_overlay_add(a, "%s", "");
		for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
			if (f[i][1] && *f[i][1]) {
				snprintf(text, sizeof(text), "%s: %s", f[i][0], f[i][1]);
				app_overlay_wrap(a, text, width);
			}
	}
	if (n->kind == TREE_PROCESS && n->kwork)
		app_explain_kwork(a, n->kwork, width);
	if (n->flags & TREE_F_VERDICT) {
		app_overlay_add(a, "%s", "");
		app_overlay_wrap(a, "It is on the verdict path: the descent followed it because it "
			     "explains most of its parent's increase.", width);
	}
	{
		/* a function without its compiler suffix; a marker ("[user
		 * space]") whole: its blank does not start a suffix */
		size_t bl = n->name[0] == '[' ? strlen(n->name) : subsys_base_len(n->name);

		snprintf(title, sizeof(title), "what is %.*s", (int)(bl > 100 ? 100 : bl), n->name);
	}
	app_overlay_open(a, title);
}

