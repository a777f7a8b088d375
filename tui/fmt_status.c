/* fmt_status — the status bar and the header line. */
#include <stdio.h>
#include <string.h>

#include "analysis/analysis.h"
#include "fmt.h"

char *fmt_phase(const struct source_status *st, char *buf, size_t len)
{
	char of[24] = "", left[24] = "";

	if (st->nwindows)
		snprintf(of, sizeof(of), "/%u", st->nwindows);
	if (st->phase_left_s > 0)
		snprintf(left, sizeof(left), " (%.0fs left)", st->phase_left_s);
	if (st->detail) {
		snprintf(buf, len, "%s", st->detail);
		return buf;
	}
	switch (st->phase) {
	case SOURCE_STARTING:
		snprintf(buf, len, "starting");
		break;
	case SOURCE_SETTLING:
		snprintf(buf, len, "settling before window %u%s%s", st->window + 1, of, left);
		break;
	case SOURCE_REF:
		snprintf(buf, len, "reference window %u%s%s", st->window + 1, of, left);
		break;
	case SOURCE_LOAD:
		snprintf(buf, len, "loaded window %u%s%s", st->window + 1, of, left);
		break;
	case SOURCE_LIVE:
		snprintf(buf, len, "live");
		break;
	case SOURCE_STEP:
		snprintf(buf, len, "step measuring%s", left);
		break;
	case SOURCE_DONE:
		snprintf(buf, len, "done");
		break;
	case SOURCE_STATIC:
		snprintf(buf, len, "recorded");
		break;
	default:
		snprintf(buf, len, "?");
		break;
	}
	return buf;
}

enum { SEG_PHASE, SEG_RATE, SEG_SAMPLES, SEG_DROPPED, SEG_ELAPSED, SEG_PROBES,
       SEG_OVERHEAD, SEG_LOAD, SEG_N };

void fmt_status(struct fmt_line *l, const struct source_status *st, int width,
		const struct glyphs *gl)
{
	fmt_status_ex(l, st, width, gl, NULL, NULL);
}

void fmt_status_ex(struct fmt_line *l, const struct source_status *st, int width,
		   const struct glyphs *gl, const char *phase, const char *warn)
{
	/* most important first; shown in SEG_ order */
	static const int prio[] = { SEG_DROPPED, SEG_PHASE, SEG_ELAPSED, SEG_SAMPLES, SEG_RATE,
				    SEG_LOAD, SEG_PROBES, SEG_OVERHEAD };
	char seg[SEG_N][80], num[32];
	enum theme_role role[SEG_N];
	int on[SEG_N] = { 0 }, used, sepw;
	char sep[16];
	const char *hint = " ? help  q quit ";
	int first = 1;

	for (int i = 0; i < SEG_N; i++) {
		seg[i][0] = '\0';
		role[i] = THEME_STATUS;
	}
	if (phase)
		snprintf(seg[SEG_PHASE], sizeof(seg[SEG_PHASE]), "%s", phase);
	else
		fmt_phase(st, seg[SEG_PHASE], sizeof(seg[SEG_PHASE]));
	if (st->phase == SOURCE_SETTLING && !phase)
		role[SEG_PHASE] = THEME_STATUS_WARN;
	if (st->phase != SOURCE_STATIC && st->phase != SOURCE_DONE) {
		if (st->freq_hz)
			snprintf(seg[SEG_RATE], sizeof(seg[SEG_RATE]), "%u Hz %s/s", st->freq_hz,
				 fmt_rate(st->rate, 0, num, sizeof(num)));
		else
			snprintf(seg[SEG_RATE], sizeof(seg[SEG_RATE]), "%s/s",
				 fmt_rate(st->rate, 0, num, sizeof(num)));
	}
	snprintf(seg[SEG_SAMPLES], sizeof(seg[SEG_SAMPLES]), "%s samples",
		 fmt_count(st->samples, 0, num, sizeof(num)));
	snprintf(seg[SEG_DROPPED], sizeof(seg[SEG_DROPPED]), "dropped %s",
		 fmt_count(st->dropped, 0, num, sizeof(num)));
	if (st->dropped)
		role[SEG_DROPPED] = THEME_DROPPED;
	if (st->phase != SOURCE_STATIC)
		fmt_elapsed(st->elapsed_s, seg[SEG_ELAPSED], sizeof(seg[SEG_ELAPSED]));
	if (st->probes)
		snprintf(seg[SEG_PROBES], sizeof(seg[SEG_PROBES]), "%u probe%s", st->probes,
			 st->probes == 1 ? "" : "s");
	if (st->overhead_pct >= 0 && st->phase != SOURCE_STATIC)
		snprintf(seg[SEG_OVERHEAD], sizeof(seg[SEG_OVERHEAD]), "overhead %.1f%%",
			 st->overhead_pct);
	if (st->load_state) {
		snprintf(seg[SEG_LOAD], sizeof(seg[SEG_LOAD]), "load %s", st->load_state);
		if (strncmp(st->load_state, "running", 7) && strncmp(st->load_state, "paused", 6))
			role[SEG_LOAD] = THEME_STATUS_WARN;
	}

	snprintf(sep, sizeof(sep), " %s ", gl->g[GLYPH_SEP]);
	sepw = fmt_width(sep);
	used = 1 + (warn ? fmt_width(warn) + sepw : 0);
	for (unsigned k = 0; k < sizeof(prio) / sizeof(prio[0]); k++) {
		int i = prio[k], w;

		if (!seg[i][0])
			continue;
		w = fmt_width(seg[i]) + (used > 1 ? sepw : 0);
		/* whole fields in width - 1 columns: the status bar is the
		 * screen's last row, whose last cell is never written
		 * (screen_put_line), so a field ending there lost its last
		 * letter ("load runnin" at 80 columns, issue 24 item 9); a
		 * field that does not fit goes, in prio order */
		if (used + w > width - 1 && used > 1)
			continue;
		on[i] = 1;
		used += w;
	}
	fmt_line_reset(l);
	fmt_line_add(l, THEME_STATUS, " ", width);
	if (warn) {
		/* always shown, however narrow: it says steps load unasked */
		fmt_line_add(l, THEME_STATUS_WARN, warn, width - 1 - l->width);
		first = 0;
	}
	for (int i = 0; i < SEG_N; i++) {
		if (!on[i])
			continue;
		if (!first)
			fmt_line_add(l, THEME_STATUS, sep, width - 1 - l->width);
		fmt_line_add(l, role[i], seg[i], width - 1 - l->width);
		first = 0;
	}
	if (l->width + fmt_width(hint) + 1 <= width) {
		fmt_line_pad(l, THEME_STATUS, width - fmt_width(hint));
		fmt_line_add(l, THEME_STATUS, hint, -1);
	}
	fmt_line_pad(l, THEME_STATUS, width);
}

const char *fmt_run_state(const struct source_status *st, int replay)
{
	if (replay)
		return "replay";
	switch (st->phase) {
	case SOURCE_STATIC:
		return "recorded";
	case SOURCE_LIVE:
		return "live";
	case SOURCE_DONE:
		return st->nwindows ? "calibration done" : "stopped";
	default:
		/* a measure source plans its windows; plain live sampling not */
		return st->nwindows ? "calibrating" : "starting";
	}
}

int fmt_run_measuring(const struct source_status *st)
{
	switch (st->phase) {
	case SOURCE_STARTING:
	case SOURCE_SETTLING:
	case SOURCE_REF:
	case SOURCE_LOAD:
		return st->nwindows > 0;
	default:
		return 0;
	}
}

/* The displaced processes d[0..n) of sum, said whole: "displaced: a −812/s,
 * b −3/s" (analysis_displaced_text); with ", +K more" when only the first n
 * of them are said.  Returns its columns. */
static int header_displaced(const struct fmt_header_sum *sum, unsigned n, const struct glyphs *gl,
			    char *buf, size_t len)
{
	size_t at;

	analysis_displaced_text(sum->displaced, n, gl->utf8, buf, len);
	at = strlen(buf);
	if (n < sum->ndisplaced && at)
		snprintf(buf + at, len - at, ", +%u more", sum->ndisplaced - n);
	return fmt_width(buf);
}

/* The summary's columns, said whole. */
static int header_sum_width(const struct fmt_header_sum *sum, const struct glyphs *gl)
{
	char dt[FMT_LINE_MAX];
	int tw = sum && sum->text ? fmt_width(sum->text) : 0, dw;

	if (!sum || !sum->displaced || !sum->ndisplaced)
		return tw;
	dw = header_displaced(sum, sum->ndisplaced, gl, dt, sizeof(dt));
	return tw && dw ? tw + fmt_width(gl->g[GLYPH_SEP]) + 2 + dw : tw + dw;
}

/* The summary in room columns, from the analysis's fields.  When it does
 * not fit, the subsystems yield first: the processes the load displaced
 * are what a narrow terminal would otherwise lose, and they are the finding
 * that is not in the tree's ◆ path; with no room left for the subsystems,
 * the displaced processes alone, as many whole entries as fit (the first is
 * cut only when it alone does not). */
static void fmt_header_summary(struct fmt_line *l, const struct fmt_header_sum *sum, int room,
			       const struct glyphs *gl)
{
	const char *text = sum->text ? sum->text : "";
	unsigned n = sum->displaced ? sum->ndisplaced : 0;
	char dt[FMT_LINE_MAX], sep[16];
	int dw, sepw;

	if (!n || header_sum_width(sum, gl) <= room) {
		if (*text)
			fmt_line_add_trunc(l, THEME_HEADER, text, room, gl);
		if (n) {
			snprintf(sep, sizeof(sep), " %s ", gl->g[GLYPH_SEP]);
			header_displaced(sum, n, gl, dt, sizeof(dt));
			if (*text)
				fmt_line_add(l, THEME_HEADER, sep, -1);
			fmt_line_add(l, THEME_HEADER, dt, -1);
		}
		return;
	}
	snprintf(sep, sizeof(sep), " %s ", gl->g[GLYPH_SEP]);
	sepw = fmt_width(sep);
	dw = header_displaced(sum, n, gl, dt, sizeof(dt));
	if (*text && room - dw - sepw >= 8) {
		fmt_line_add_trunc(l, THEME_HEADER, text, room - dw - sepw, gl);
		fmt_line_add(l, THEME_HEADER, sep, -1);
		fmt_line_add(l, THEME_HEADER, dt, -1);
		return;
	}
	while (n > 1 && dw > room)
		dw = header_displaced(sum, --n, gl, dt, sizeof(dt));
	fmt_line_add_trunc(l, THEME_HEADER, dt, room, gl);
}

void fmt_header(struct fmt_line *l, int width, const char *title, const char *state,
		const struct fmt_header_sum *summary, const struct glyphs *gl)
{
	int sw = header_sum_width(summary, gl), stw = 0, tw;
	char sep[16], head[FMT_LINE_MAX];
	const char *aside;

	snprintf(sep, sizeof(sep), " %s ", gl->g[GLYPH_SEP]);
	if (state && *state)
		stw = fmt_width(sep) + fmt_width(state);
	if (!title)
		title = "argus";
	fmt_line_reset(l);
	fmt_line_add(l, THEME_HEADER, " ", width);
	/* the state is never cut (what the tree is now: calibrating, done,
	 * live); the summary is what matters next: the title yields room down
	 * to 24 columns, shortened in the middle (the command and its end);
	 * on a wide terminal to 2/5 of it (-p's title names each condition's
	 * scope) */
	tw = width - 1 - stw - (sw ? sw + 2 : 0);
	if (tw < 24)
		tw = 24;
	if (width >= 120 && tw < width * 2 / 5)
		tw = width * 2 / 5;
	if (tw > fmt_width(title))
		tw = fmt_width(title);
	if (tw > width - 1 - stw)
		tw = width - 1 - stw;
	/* a title's aside ("victim: app  (load paused in ref: stress)") goes
	 * whole before the rest is cut: a cut in the middle would join the
	 * victim's name to the load's.  What is left names what is diagnosed:
	 * it keeps up to 40 columns from the summary (a command and its
	 * arguments), then is shortened in the middle too */
	aside = strstr(title, "  (");
	if (aside && fmt_width(title) > tw && (size_t)(aside - title) < sizeof(head)) {
		snprintf(head, sizeof(head), "%.*s", (int)(aside - title), title);
		title = head;
		if (tw < 40)
			tw = 40;
		if (tw > fmt_width(title))
			tw = fmt_width(title);
		if (tw > width - 1 - stw)
			tw = width - 1 - stw;
	}
	fmt_line_add_mid(l, THEME_HEADER, title, tw, gl);
	if (stw) {
		fmt_line_add(l, THEME_HEADER, sep, width - l->width);
		fmt_line_add(l, THEME_HEADER, state, width - l->width);
	}
	if (sw && l->width + 4 < width) {
		fmt_line_add(l, THEME_HEADER, "  ", -1);
		fmt_header_summary(l, summary, width - l->width, gl);
	}
	fmt_line_pad(l, THEME_HEADER, width);
}

/* Columns of parts[from..to) joined by a separator of sepw columns. */
static int parts_width(const char *const *parts, unsigned from, unsigned to, int sepw)
{
	int w = 0;

	for (unsigned i = from; i < to; i++)
		w += fmt_width(parts[i]) + (i > from ? sepw : 0);
	return w;
}

/* parts[0..head) + sep + ellipsis + sep + parts[n-tail..n) */
static int elided_width(const char *const *parts, unsigned n, unsigned head, unsigned tail,
			int sepw, int ew)
{
	return parts_width(parts, 0, head, sepw) + 2 * sepw + ew +
	       parts_width(parts, n - tail, n, sepw);
}

/* Appends parts[from..to) joined by sep to buf at *at. */
static void parts_join(char *buf, size_t len, size_t *at, const char *const *parts,
		       unsigned from, unsigned to, const char *sep)
{
	for (unsigned i = from; i < to && *at + 1 < len; i++) {
		int w = snprintf(buf + *at, len - *at, "%s%s", i > from ? sep : "", parts[i]);

		if (w < 0 || (size_t)w >= len - *at) {
			buf[*at] = '\0';
			return;
		}
		*at += (size_t)w;
	}
}

void fmt_verdict_line(struct fmt_line *l, int width, const struct fmt_verdict *v,
		      const struct glyphs *gl)
{
	const char *sep = gl->utf8 ? " \u203a " : " > ";
	const char *parts[FMT_VERDICT_PARTS];
	const char *ell = gl->g[GLYPH_ELLIPSIS];
	char buf[FMT_LINE_MAX], more[112] = "";
	unsigned n = 0, head, tail = 0;
	int sepw = fmt_width(sep), ew = fmt_width(ell), room;
	size_t at = 0;

	fmt_line_reset(l);
	fmt_line_add(l, THEME_NORMAL, " ", width);
	fmt_line_add(l, THEME_VERDICT, gl->g[GLYPH_VERDICT], width - l->width);
	fmt_line_add(l, THEME_NORMAL, " ", width - l->width);
	if (v->provisional)
		fmt_line_add(l, THEME_STATUS_WARN, "provisional", width - l->width);
	else
		fmt_line_add(l, THEME_NORMAL, "verdict", width - l->width);
	if (!v->found || !v->npath) {
		fmt_line_add(l, THEME_NORMAL, v->provisional ? ": no bottleneck found so far" :
			     ": no bottleneck found", width - l->width);
		fmt_line_pad(l, THEME_NORMAL, width);
		return;
	}
	fmt_line_add(l, THEME_NORMAL, ": ", width - l->width);
	if (v->subsystem && *v->subsystem)
		parts[n++] = v->subsystem;
	for (unsigned i = 0; i < v->npath && n < FMT_VERDICT_PARTS; i++)
		parts[n++] = v->path[i];
	if (n == FMT_VERDICT_PARTS)
		parts[n - 1] = v->path[v->npath - 1];   /* the leaf, always */
	if (v->nbranches > 1)
		snprintf(more, sizeof(more), "  +%u more", v->nbranches - 1);
	if (v->waker && *v->waker)
		snprintf(more + strlen(more), sizeof(more) - strlen(more), "  woken by %s", v->waker);
	room = width - l->width - 1 - fmt_width(more);
	if (room < 8 && more[0]) {            /* the path first */
		room += fmt_width(more);
		more[0] = '\0';
	}
	head = n;
	if (n >= 3 && parts_width(parts, 0, n, sepw) > room) {
		/* whole frames out of the middle: the first (where it starts) and
		 * the last (where the time goes) stay, then as many of the last
		 * ones as fit, then of the first ones */
		head = 1;
		tail = 1;
		while (head + tail < n - 1 && elided_width(parts, n, head, tail + 1, sepw, ew) <= room)
			tail++;
		while (head + tail < n - 1 && elided_width(parts, n, head + 1, tail, sepw, ew) <= room)
			head++;
	}
	buf[0] = '\0';
	parts_join(buf, sizeof(buf), &at, parts, 0, head, sep);
	if (tail) {
		snprintf(buf + at, sizeof(buf) - at, "%s%s%s", sep, ell, sep);
		at += strlen(buf + at);
		parts_join(buf, sizeof(buf), &at, parts, n - tail, n, sep);
	}
	/* still too long (one long name): characters out of the middle */
	fmt_line_add_mid(l, THEME_VERDICT, buf, room, gl);
	fmt_line_add(l, THEME_DIM, more, width - l->width);
	fmt_line_pad(l, THEME_NORMAL, width);
}
