/* fmt_status — the status bar and the header line. */
#include <stdio.h>
#include <string.h>

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
		if (used + w > width && used > 1)
			continue;
		on[i] = 1;
		used += w;
	}
	fmt_line_reset(l);
	fmt_line_add(l, THEME_STATUS, " ", width);
	if (warn) {
		/* always shown, however narrow: it says steps load unasked */
		fmt_line_add(l, THEME_STATUS_WARN, warn, width - l->width);
		first = 0;
	}
	for (int i = 0; i < SEG_N; i++) {
		if (!on[i])
			continue;
		if (!first)
			fmt_line_add(l, THEME_STATUS, sep, width - l->width);
		fmt_line_add(l, role[i], seg[i], width - l->width);
		first = 0;
	}
	if (l->width + fmt_width(hint) + 1 <= width) {
		fmt_line_pad(l, THEME_STATUS, width - fmt_width(hint));
		fmt_line_add(l, THEME_STATUS, hint, -1);
	}
	fmt_line_pad(l, THEME_STATUS, width);
}

void fmt_header(struct fmt_line *l, int width, const char *title, const char *summary,
		const struct glyphs *gl)
{
	int sw = summary && *summary ? fmt_width(summary) : 0, tw;

	fmt_line_reset(l);
	fmt_line_add(l, THEME_HEADER, " ", width);
	/* the summary is what matters: the title yields room down to 20 columns,
	 * or half the width for a title that says more than the command (-p:
	 * the scope of each condition) */
	tw = width - 1 - (sw ? sw + 2 : 0);
	if (tw < width / 2)
		tw = width / 2;
	if (tw < 20)
		tw = 20;
	fmt_line_add_trunc(l, THEME_HEADER, title ? title : "argus", tw, gl);
	if (sw && l->width + 4 < width) {
		fmt_line_add(l, THEME_HEADER, "  ", -1);
		fmt_line_add_trunc(l, THEME_HEADER, summary, width - l->width, gl);
	}
	fmt_line_pad(l, THEME_HEADER, width);
}
