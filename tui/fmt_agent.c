/* fmt_agent — the agent pane's lines: transcript, proposal card, hints. */
#include <stdio.h>
#include <string.h>

#include "fmt_agent.h"

#define LABEL_W 10                /* "duration  " */
#define LABEL_EDIT_W 14           /* "filter.cgroup " */

const char *const fmt_agent_fields[] = {
	"kind", "target", "begin", "end", "scope", "filter.pid", "filter.tgid", "filter.comm",
	"filter.cgroup", "duration_s", "freq_hz", "sample_every", "max_stacks", "duty",
	"rationale", "expect", NULL,
};

_Static_assert(sizeof(fmt_agent_fields) / sizeof(fmt_agent_fields[0]) == FMT_AGENT_NFIELDS + 1,
	       "FMT_AGENT_NFIELDS");

/* ---- wrapping ------------------------------------------------------------------ */

unsigned fmt_agent_wrap(const char *s, int width, size_t *off, size_t *len, unsigned max)
{
	size_t pos = 0, total = s ? strlen(s) : 0;
	unsigned n = 0;

	if (width < 1)
		width = 1;
	if (!s)
		return 0;
	do {
		size_t end = pos, brk = 0, next;
		int w = 0, at_nl = 0;

		/* the longest run that fits, remembering the last blank */
		while (end < total && s[end] != '\n') {
			size_t cl = 1;
			int cw;

			while (end + cl < total && ((unsigned char)s[end + cl] & 0xc0) == 0x80)
				cl++;
			cw = fmt_widthn(s + end, cl);
			if (w + cw > width)
				break;
			if (s[end] == ' ')
				brk = end;
			w += cw;
			end += cl;
		}
		if (end < total && s[end] != '\n' && brk > pos) {
			next = brk + 1;  /* break at the blank, drop it */
			end = brk;
		} else if (end < total && s[end] == '\n') {
			next = end + 1;
			at_nl = 1;
		} else {
			next = end;
			if (end == pos && end < total) { /* one character wider than width */
				end++;
				while (end < total && ((unsigned char)s[end] & 0xc0) == 0x80)
					end++;
				next = end;
			}
		}
		if (n < max) {
			off[n] = pos;
			len[n] = end - pos;
		}
		n++;
		pos = next;
		while (!at_nl && pos < total && s[pos] == ' ')
			pos++;
	} while (pos < total);
	return n;
}

/* ---- transcript ------------------------------------------------------------------ */

static const struct {
	const char *prefix;       /* NULL: the verdict glyph */
	enum theme_role prole, trole;
} entry_style[FMT_AGENT_KIND_N] = {
	[FMT_AGENT_REASON] = { "  ", THEME_DIM, THEME_AGENT },
	[FMT_AGENT_PROPOSAL] = { "agent> ", THEME_KEY, THEME_AGENT },
	[FMT_AGENT_HUMAN] = { "you> ", THEME_KEY, THEME_HUMAN },
	[FMT_AGENT_RESULT] = { "result> ", THEME_KEY, THEME_NORMAL },
	[FMT_AGENT_VERDICT] = { NULL, THEME_VERDICT, THEME_VERDICT },
	[FMT_AGENT_TEXT] = { "agent> ", THEME_KEY, THEME_AGENT },
	[FMT_AGENT_INFO] = { "-- ", THEME_DIM, THEME_DIM },
	[FMT_AGENT_ERROR] = { "!! ", THEME_STATUS_WARN, THEME_STATUS_WARN },
};

unsigned fmt_agent_entry_lines(struct fmt_line *out, unsigned max,
			       const struct fmt_agent_entry *e, int width,
			       const struct glyphs *gl)
{
	size_t off[64], len[64];
	char vprefix[32];
	const char *prefix;
	unsigned kind = (unsigned)e->kind < FMT_AGENT_KIND_N ? e->kind : FMT_AGENT_INFO;
	unsigned n, shown;
	int pw, indent;

	prefix = entry_style[kind].prefix;
	if (!prefix) {
		snprintf(vprefix, sizeof(vprefix), "%s verdict> ", gl->g[GLYPH_VERDICT]);
		prefix = vprefix;
	}
	pw = fmt_width(prefix);
	indent = kind == FMT_AGENT_REASON ? 4 : 2;
	if (width - pw < 8)
		pw = 0;           /* too narrow for a prefix: the text alone */
	if (width - indent < 8)
		indent = 0;
	/* the first line after the prefix, the rest indented */
	n = fmt_agent_wrap(e->text ? e->text : "", width - pw, off, len, 1);
	if (n > 1) {
		/* wrap the remainder at the indented width */
		const char *rest = (e->text ? e->text : "") + off[0] + len[0];

		while (*rest == ' ' || *rest == '\n')
			rest++;
		n = 1 + fmt_agent_wrap(rest, width - indent, off + 1, len + 1, 63);
		for (unsigned i = 1; i < n && i < 64; i++)
			off[i] += (size_t)(rest - (e->text ? e->text : ""));
	}
	if (n == 0) {
		off[0] = len[0] = 0;
		n = 1;
	}
	shown = n < max ? n : max;
	for (unsigned i = 0; i < shown && i < 64; i++) {
		struct fmt_line *l = &out[i];

		fmt_line_reset(l);
		if (i == 0) {
			if (pw)
				fmt_line_add(l, entry_style[kind].prole, prefix, width);
		} else {
			fmt_line_pad(l, THEME_NORMAL, indent);
		}
		fmt_line_addn(l, entry_style[kind].trole, e->text + off[i], len[i]);
		fmt_line_pad(l, THEME_NORMAL, width);
	}
	return n;
}

/* ---- the proposal ------------------------------------------------------------------ */

char *fmt_agent_field_value(const struct step *s, const char *field, char *buf, size_t len)
{
	buf[0] = 0;
	if (!s || !field)
		return buf;
	if (!strcmp(field, "kind")) {
		const char *k = step_kind_name(s->kind);

		snprintf(buf, len, "%s", k ? k : "?");
	} else if (!strcmp(field, "target")) {
		size_t o = 0;

		for (unsigned i = 0; i < s->ntargets && o < len; i++) {
			int w = snprintf(buf + o, len - o, "%s%s", i ? "," : "", s->targets[i]);

			if (w < 0)
				break;
			o += (size_t)w;
		}
	} else if (!strcmp(field, "begin")) {
		snprintf(buf, len, "%s", s->begin ? s->begin : "");
	} else if (!strcmp(field, "end")) {
		snprintf(buf, len, "%s", s->end ? s->end : "");
	} else if (!strcmp(field, "scope")) {
		snprintf(buf, len, "%s", step_scope_name(s->scope));
	} else if (!strcmp(field, "filter.pid")) {
		if (s->filter.pid)
			snprintf(buf, len, "%d", s->filter.pid);
	} else if (!strcmp(field, "filter.tgid")) {
		if (s->filter.tgid)
			snprintf(buf, len, "%d", s->filter.tgid);
	} else if (!strcmp(field, "filter.comm")) {
		snprintf(buf, len, "%s", s->filter.comm ? s->filter.comm : "");
	} else if (!strcmp(field, "filter.cgroup")) {
		snprintf(buf, len, "%s", s->filter.cgroup ? s->filter.cgroup : "");
	} else if (!strcmp(field, "duration_s")) {
		if (s->duration_s > 0)
			snprintf(buf, len, "%g", s->duration_s);
	} else if (!strcmp(field, "freq_hz")) {
		if (s->freq_hz)
			snprintf(buf, len, "%u", s->freq_hz);
	} else if (!strcmp(field, "sample_every")) {
		if (s->sample_every)
			snprintf(buf, len, "%u", s->sample_every);
	} else if (!strcmp(field, "max_stacks")) {
		if (s->max_stacks)
			snprintf(buf, len, "%u", s->max_stacks);
	} else if (!strcmp(field, "duty")) {
		if (s->duty > 0 && s->duty < 1)
			snprintf(buf, len, "%.2f", s->duty);
	} else if (!strcmp(field, "rationale")) {
		snprintf(buf, len, "%s", s->rationale ? s->rationale : "");
	} else if (!strcmp(field, "expect")) {
		snprintf(buf, len, "%s", s->expect ? s->expect : "");
	}
	return buf;
}

int fmt_agent_field_match(const char *err_field, const char *field)
{
	size_t n;

	if (!err_field || !field || !*err_field)
		return 0;
	n = strcspn(err_field, "[");
	if (!strncmp(err_field, "filter", 6) && !strcmp(field, "filter.pid") &&
	    !strcmp(err_field, "filter"))
		return 1;       /* the filter as a whole: shown by its first field */
	if (!strcmp(err_field, "targets") || !strncmp(err_field, "targets[", 8))
		return !strcmp(field, "target");
	return strlen(field) == n && !strncmp(err_field, field, n);
}

/* "label     value", the value cut or wrapped to the width */
static unsigned card_field(struct fmt_line *out, unsigned at, unsigned max, const char *label,
			   enum theme_role lrole, const char *value, enum theme_role vrole,
			   int width, unsigned maxlines, const struct glyphs *gl, int cursor)
{
	size_t off[8], len[8];
	int lw = cursor ? LABEL_EDIT_W : LABEL_W;  /* 0: the card; +-1: editing */
	int vw = width - 1 - lw;
	unsigned n, i;

	if (vw < 8)
		vw = 8;
	if (maxlines > 8)
		maxlines = 8;
	n = fmt_agent_wrap(value, vw, off, len, 8);
	if (n == 0) {
		n = 1;
		off[0] = len[0] = 0;
	}
	for (i = 0; i < n && i < maxlines; i++) {
		struct fmt_line *l;
		char lab[40];

		if (at + i >= max)
			return at + i;
		l = &out[at + i];
		fmt_line_reset(l);
		l->selected = cursor > 0;
		fmt_line_add(l, THEME_NORMAL, cursor > 0 ? ">" : " ", -1);
		snprintf(lab, sizeof(lab), "%s", i ? "" : label);
		fmt_line_add(l, lrole, lab, lw - 1);
		fmt_line_pad(l, THEME_NORMAL, 1 + lw);
		if (i + 1 == maxlines && n > maxlines) {
			/* the rest of the value, cut with one ellipsis */
			fmt_line_add_trunc(l, vrole, value + off[i], vw, gl);
		} else {
			fmt_line_addn(l, vrole, value + off[i], len[i]);
		}
		fmt_line_pad(l, THEME_NORMAL, width);
	}
	return at + i;
}

static unsigned card_error(struct fmt_line *out, unsigned at, unsigned max,
			   const struct step_error *err, int width, const struct glyphs *gl,
			   int editing)
{
	char msg[400];

	if (at >= max)
		return at;
	if (err->line)
		snprintf(msg, sizeof(msg), "  ^ %d:%d: %s", err->line, err->col, err->msg);
	else
		snprintf(msg, sizeof(msg), "  ^ %s%s%s", err->field, err->field[0] ? ": " : "",
			 err->msg);
	return card_field(out, at, max, "", THEME_NORMAL, msg, THEME_STATUS_WARN, width, 3, gl,
			  editing ? -1 : 0);
}

unsigned fmt_agent_proposal(struct fmt_line *out, unsigned max, const struct fmt_agent_prop *p,
			    int width, const struct glyphs *gl)
{
	const struct step *s = p->step;
	char head[200], val[1024], lab[40], run[48];
	unsigned at = 0;
	int err_shown = 0;

	if (!s || !max)
		return 0;
	fmt_line_reset(&out[at]);
	if (p->run)
		snprintf(run, sizeof(run), " (run %u of at most %u)", p->run, p->max);
	else
		snprintf(run, sizeof(run), " of at most %u", p->max);
	snprintf(head, sizeof(head), " %s %s step %u%s%s%s",
		 p->editing ? "editing" : "proposal", gl->g[GLYPH_SEP], p->index, run,
		 p->edited ? " (edited)" : "", p->auto_accept ? " (--auto: accepted)" : "");
	fmt_line_add_trunc(&out[at], THEME_HEADER, head, width, gl);
	fmt_line_pad(&out[at], THEME_HEADER, width);
	at++;
	if (p->over_budget) {
		/* first, before any field: batch would not run it */
		snprintf(val, sizeof(val), "OVER: ~%.1f%% of a CPU estimated, the budget is %g%%; %s",
			 p->est_pct, p->budget_pct,
			 p->over_confirm ? "a again runs it anyway (stopped if it measures over)"
					 : "a asks again before it runs");
		at = card_field(out, at, max, "budget", THEME_STATUS_WARN, val, THEME_STATUS_WARN,
				width, 2, gl, p->editing ? -1 : 0);
	}
	if (p->not_accepted && at < max) {
		at = card_field(out, at, max, "", THEME_NORMAL,
				"not accepted: your edit was refused (below); fix it or Esc",
				THEME_STATUS_WARN, width, 2, gl, p->editing ? -1 : 0);
	}
	if (p->editing && p->err && p->err->msg[0]) {
		/* an error of no one field (the JSON's line:col) at the top,
		 * where a short pane still shows it */
		int any = 0;

		for (int i = 0; fmt_agent_fields[i]; i++)
			any |= fmt_agent_field_match(p->err->field, fmt_agent_fields[i]);
		if (!any) {
			at = card_error(out, at, max, p->err, width, gl, p->editing);
			err_shown = 1;
		}
	}
	if (p->pinned)
		*p->pinned = at - 1;
	if (p->editing) {
		for (int i = 0; fmt_agent_fields[i] && at < max; i++) {
			const char *f = fmt_agent_fields[i];
			int bad = p->err && fmt_agent_field_match(p->err->field, f);

			fmt_agent_field_value(s, f, val, sizeof(val));
			snprintf(lab, sizeof(lab), "%s", f);
			at = card_field(out, at, max, lab, bad ? THEME_STATUS_WARN : THEME_DIM, val,
					THEME_NORMAL, width, 1, gl, i == p->cursor ? 1 : -1);
			if (bad) {
				at = card_error(out, at, max, p->err, width, gl, p->editing);
				err_shown = 1;
			}
		}
		if (p->err && p->err->msg[0] && !err_shown)
			at = card_error(out, at, max, p->err, width, gl, p->editing);
		return at;
	}
	{
		const char *help = step_kind_help(s->kind);

		snprintf(val, sizeof(val), "%s%s%s", step_kind_name(s->kind) ? step_kind_name(s->kind) : "?",
			 help ? ": " : "", help ? help : "");
		at = card_field(out, at, max, "kind", THEME_DIM, val, THEME_NORMAL, width, 1, gl, 0);
		if (p->err && fmt_agent_field_match(p->err->field, "kind"))
			at = card_error(out, at, max, p->err, width, gl, p->editing), err_shown = 1;
	}
	if (s->ntargets) {
		fmt_agent_field_value(s, "target", val, sizeof(val));
		at = card_field(out, at, max, "target", THEME_DIM, val, THEME_FOCUS, width, 2, gl, 0);
	} else if (s->begin || s->end) {
		snprintf(val, sizeof(val), "%s .. %s", s->begin ? s->begin : "?",
			 s->end ? s->end : "?");
		at = card_field(out, at, max, "target", THEME_DIM, val, THEME_FOCUS, width, 2, gl, 0);
	} else {
		/* whose events is the scope line's: the kind simply takes no target */
		at = card_field(out, at, max, "target", THEME_DIM, "none (every CPU)", THEME_NORMAL,
				width, 1, gl, 0);
	}
	if (p->err && (fmt_agent_field_match(p->err->field, "target") ||
		       fmt_agent_field_match(p->err->field, "begin") ||
		       fmt_agent_field_match(p->err->field, "end")))
		at = card_error(out, at, max, p->err, width, gl, p->editing), err_shown = 1;
	{
		size_t o = 0;

		val[0] = 0;
		if (s->filter.pid)
			o += (size_t)snprintf(val + o, sizeof(val) - o, "pid=%d ", s->filter.pid);
		if (s->filter.tgid && o < sizeof(val))
			o += (size_t)snprintf(val + o, sizeof(val) - o, "tgid=%d ", s->filter.tgid);
		if (s->filter.comm && o < sizeof(val))
			o += (size_t)snprintf(val + o, sizeof(val) - o, "comm=%s ", s->filter.comm);
		if (s->filter.cgroup && o < sizeof(val))
			o += (size_t)snprintf(val + o, sizeof(val) - o, "cgroup=%s ", s->filter.cgroup);
		if (!o)
			snprintf(val, sizeof(val), "none (system-wide)");
		if (p->scope)   /* whose events, and how to widen or narrow it */
			at = card_field(out, at, max, "scope", THEME_DIM, p->scope, THEME_NORMAL, width,
					3, gl, 0);
		else
			at = card_field(out, at, max, "filter", THEME_DIM, val, THEME_NORMAL, width, 1,
					gl, 0);
		if (p->err && !strncmp(p->err->field, "filter", 6))
			at = card_error(out, at, max, p->err, width, gl, p->editing), err_shown = 1;
	}
	if (s->kind == STEP_SAMPLE && s->freq_hz)
		snprintf(val, sizeof(val), "%g s per condition, %u Hz", s->duration_s, s->freq_hz);
	else
		snprintf(val, sizeof(val), "%g s per condition", s->duration_s);
	if (s->duty > 0 && s->duty < 1) {   /* what is measured of each window */
		size_t o = strlen(val);

		snprintf(val + o, sizeof(val) - o, ", attached %.0f%% of each window (duty %.2f)",
			 s->duty * 100, s->duty);
	}
	at = card_field(out, at, max, "duration", THEME_DIM, val, THEME_NORMAL, width, 1, gl, 0);
	if (p->err && fmt_agent_field_match(p->err->field, "duration_s"))
		at = card_error(out, at, max, p->err, width, gl, p->editing), err_shown = 1;
	at = card_field(out, at, max, "why", THEME_DIM, s->rationale ? s->rationale : "(not given)",
			THEME_AGENT, width, 3, gl, 0);
	at = card_field(out, at, max, "expects", THEME_DIM, s->expect ? s->expect : "(not given)",
			THEME_AGENT, width, 2, gl, 0);
	at = card_field(out, at, max, "overhead", THEME_DIM,
			p->estimate ? p->estimate : p->replay ? "not recorded in this session"
				    : "not measured: the step does not validate here",
			THEME_NORMAL, width, 3, gl, 0);   /* wraps: its end is the number */
	if (p->err && p->err->msg[0] && !err_shown)
		at = card_error(out, at, max, p->err, width, gl, p->editing);
	return at;
}

/* ---- hints, title, phase ------------------------------------------------------------- */

struct hint {
	const char *key, *what;
};

static const struct hint hints_proposal[] = {
	{ "a", "accept" }, { "e", "edit" }, { "v", "veto" }, { "r", "another" },
	{ "u", "undo" }, { ":", "talk" }, { NULL, NULL },
};
static const struct hint hints_edit[] = {
	{ "Enter", "edit field" }, { "E", "$EDITOR" }, { "a", "accept" },
	{ "Esc", "abandon" }, { NULL, NULL },
};
static const struct hint hints_running[] = {
	{ "u", "undo (stop)" }, { ":", "talk" }, { "f", "focus" }, { NULL, NULL },
};
static const struct hint hints_thinking[] = {
	{ "Esc", "cancel" }, { ":", "talk" }, { NULL, NULL },
};
static const struct hint hints_idle[] = {
	{ "r", "another" }, { "u", "undo" }, { ":", "talk" }, { "f", "focus" }, { NULL, NULL },
};
static const struct hint hints_replay[] = {
	{ "n", "next" }, { "b", "back" }, { "}", "end" }, { "Tab", "pane" }, { "z", "zoom" },
	{ NULL, NULL },
};
static const struct hint hints_wait[] = {
	{ ":", "talk" }, { "Tab", "pane" }, { "z", "zoom" }, { NULL, NULL },
};

void fmt_agent_hints(struct fmt_line *l, int width, enum fmt_agent_mode mode)
{
	const struct hint *h;

	switch (mode) {
	case FMT_AGENT_MODE_PROPOSAL:
		h = hints_proposal;
		break;
	case FMT_AGENT_MODE_EDIT:
		h = hints_edit;
		break;
	case FMT_AGENT_MODE_RUNNING:
		h = hints_running;
		break;
	case FMT_AGENT_MODE_THINKING:
		h = hints_thinking;
		break;
	case FMT_AGENT_MODE_IDLE:
		h = hints_idle;
		break;
	case FMT_AGENT_MODE_REPLAY:
		h = hints_replay;
		break;
	default:
		h = hints_wait;
		break;
	}
	fmt_line_reset(l);
	fmt_line_add(l, THEME_NORMAL, " ", width);
	for (; h->key; h++) {
		int need = fmt_width(h->key) + 1 + fmt_width(h->what) + (h == hints_proposal ? 0 : 2);

		if (l->width + need > width)
			break;
		if (l->width > 1)
			fmt_line_add(l, THEME_NORMAL, "  ", -1);
		fmt_line_add(l, THEME_KEY, h->key, -1);
		fmt_line_add(l, THEME_NORMAL, " ", -1);
		fmt_line_add(l, THEME_DIM, h->what, -1);
	}
	fmt_line_pad(l, THEME_NORMAL, width);
}

void fmt_agent_title(struct fmt_line *l, int width, const char *agent_name,
		     enum fmt_agent_mode mode, int focused, const struct glyphs *gl)
{
	static const char *const what[] = {
		[FMT_AGENT_MODE_WAIT] = "waits for the calibration",
		[FMT_AGENT_MODE_THINKING] = "thinking",
		[FMT_AGENT_MODE_PROPOSAL] = "proposes; your call",
		[FMT_AGENT_MODE_EDIT] = "you edit its proposal",
		[FMT_AGENT_MODE_RUNNING] = "a step is measuring",
		[FMT_AGENT_MODE_IDLE] = "idle",
	};
	char buf[160];
	enum theme_role r = focused ? THEME_FOCUS : THEME_HEADER;

	snprintf(buf, sizeof(buf), " agent (%s) %s %s", agent_name ? agent_name : "?",
		 gl->g[GLYPH_SEP], (unsigned)mode <= FMT_AGENT_MODE_IDLE ? what[mode] : "");
	fmt_line_reset(l);
	fmt_line_add_trunc(l, r, buf, width, gl);
	fmt_line_pad(l, r, width);
}

const char *fmt_agent_phase(enum fmt_agent_mode mode, unsigned step, const char *step_phase,
			    char *buf, size_t len)
{
	switch (mode) {
	case FMT_AGENT_MODE_THINKING:
		snprintf(buf, len, "agent thinking");
		return buf;
	case FMT_AGENT_MODE_PROPOSAL:
	case FMT_AGENT_MODE_EDIT:
		snprintf(buf, len, "waiting for you");
		return buf;
	case FMT_AGENT_MODE_RUNNING:
		snprintf(buf, len, "step %u %s", step, step_phase ? step_phase : "measuring");
		return buf;
	case FMT_AGENT_MODE_IDLE:
		if (step)
			snprintf(buf, len, "done, step %u", step);
		else
			snprintf(buf, len, "done, no step run");
		return buf;
	default:
		return NULL;
	}
}
