/* fmt_row — a visible tree row as a styled line: indent glyphs, marker,
 * name, columns (live: samples % self; calibrated: ref/s load/s Δ Δ%). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "fmt.h"
#include "base/sanitize.h"
#include "view_tree.h"

#define NAME_MIN 16

static const struct {
	int width;
	const char *utf8, *ascii;
} col_info[FMT_COL_N] = {
	[FMT_COL_SAMPLES] = { 7, "samples", "samples" },
	[FMT_COL_PCT] = { 5, "%", "%" },
	[FMT_COL_SELF] = { 7, "self", "self" },
	[FMT_COL_REF] = { 7, "ref/s", "ref/s" },
	[FMT_COL_LOAD] = { 7, "load/s", "load/s" },
	[FMT_COL_CPU] = { 6, "%CPU", "%CPU" },
	[FMT_COL_DELTA] = { 8, "\u0394/s", "delta/s" },
	[FMT_COL_DPCT] = { 6, "\u0394%", "d%" },
	[FMT_COL_SIG] = { 1, "", "" },
};

int fmt_col_width(enum fmt_col c)
{
	return (unsigned)c < FMT_COL_N ? col_info[c].width : 0;
}

void fmt_cols_layout(struct fmt_cols *c, int width, int calibrated, int cpu)
{
	static const enum fmt_col live[] = { FMT_COL_SAMPLES, FMT_COL_PCT, FMT_COL_SELF };
	static const enum fmt_col live_drop[] = { FMT_COL_SELF, FMT_COL_PCT, FMT_COL_SAMPLES };
	static const enum fmt_col cal[] = { FMT_COL_REF, FMT_COL_LOAD, FMT_COL_CPU,
					    FMT_COL_DELTA, FMT_COL_DPCT, FMT_COL_SIG };
	static const enum fmt_col cal_drop[] = { FMT_COL_REF, FMT_COL_LOAD, FMT_COL_DPCT,
						 FMT_COL_DELTA };
	const enum fmt_col *want = calibrated ? cal : live;
	const enum fmt_col *drop = calibrated ? cal_drop : live_drop;
	unsigned nwant = calibrated ? 6 : 3, ndrop = calibrated ? 4 : 3;
	unsigned dropped = 0;
	int on[FMT_COL_N] = { 0 };

	memset(c, 0, sizeof(*c));
	c->width = width < 0 ? 0 : width;
	c->calibrated = calibrated;
	for (unsigned i = 0; i < nwant; i++)
		on[want[i]] = 1;
	if (calibrated) {
		int used = 0;

		for (unsigned i = 0; i < nwant; i++)
			used += 1 + col_info[want[i]].width;
		/* %CPU repeats load/s in another unit: it is a comfort, so it
		 * goes before the name is cut at all (80 columns keep the
		 * columns of before), never a column it displaces */
		if (!cpu || c->width - used < FMT_NAME_CPU)
			on[FMT_COL_CPU] = 0;
	}
	for (;;) {
		int used = 0;

		for (unsigned i = 0; i < nwant; i++)
			if (on[want[i]])
				used += 1 + col_info[want[i]].width;
		c->namew = c->width - used;
		if (c->namew >= NAME_MIN || dropped == ndrop)
			break;
		on[drop[dropped++]] = 0;
	}
	if (c->namew < 0)
		c->namew = 0;
	for (unsigned i = 0; i < nwant; i++)
		if (on[want[i]])
			c->col[c->ncol++] = want[i];
}

enum theme_role fmt_delta_role(const struct tree_node *n, int calibrated)
{
	if (!calibrated)
		return THEME_NORMAL;
	if (!n->stat.significant)
		return THEME_INSIGNIFICANT;
	return n->stat.delta >= 0 ? THEME_DELTA_UP : THEME_DELTA_DOWN;
}

void fmt_colhead(struct fmt_line *l, const struct fmt_row_ctx *c)
{
	const struct fmt_cols *cols = c->cols;
	char buf[64];

	fmt_line_reset(l);
	fmt_line_add(l, THEME_DIM, " name", cols->namew);
	if (c->unit && cols->calibrated) {
		/* ref/s and load/s count different things by mode: said once */
		snprintf(buf, sizeof(buf), "  (rates: %s)", c->unit);
		if (l->width + fmt_width(buf) <= cols->namew)
			fmt_line_add(l, THEME_DIM, buf, cols->namew - l->width);
	}
	fmt_line_pad(l, THEME_DIM, cols->namew);
	for (unsigned i = 0; i < cols->ncol; i++) {
		enum fmt_col k = cols->col[i];
		const char *t = c->gl->utf8 ? col_info[k].utf8 : col_info[k].ascii;
		int pad = col_info[k].width - fmt_width(t);

		snprintf(buf, sizeof(buf), " %*s%s", pad > 0 ? pad : 0, "", t);
		fmt_line_add(l, THEME_DIM, buf, 1 + col_info[k].width);
	}
	fmt_line_pad(l, THEME_DIM, cols->width);
}

/* Bytes [from, to) of name, the part inside [hit, hit + mlen) highlighted. */
static void add_seg(struct fmt_line *l, enum theme_role r, const char *name, size_t from,
		    size_t to, size_t hit, size_t mlen)
{
	size_t a = hit > from ? hit : from, b = hit + mlen < to ? hit + mlen : to;

	if (!mlen || a >= b) {
		fmt_line_addn(l, r, name + from, to - from);
		return;
	}
	fmt_line_addn(l, r, name + from, a - from);
	fmt_line_addn(l, THEME_SEARCH_MATCH, name + a, b - a);
	fmt_line_addn(l, r, name + b, to - b);
}

/* The name in maxw columns, shortened in the middle when longer (kernel
 * names differ at both ends: __do_sys_x / x_slowpath), with the first
 * match of the query highlighted where it shows. */
static void add_name(struct fmt_line *l, enum theme_role r, const char *name, int maxw,
		     const char *match, const struct glyphs *gl)
{
	int cut = fmt_width(name) > maxw, ew = fmt_width(gl->g[GLYPH_ELLIPSIS]);
	size_t len = strlen(name), n, tail = len, hit = 0, mlen = 0;

	if (maxw <= 0)
		return;
	if (match && *match) {
		const char *h = strcasestr(name, match);

		if (h) {
			hit = (size_t)(h - name);
			mlen = strlen(match);
		}
	}
	if (!cut) {
		add_seg(l, r, name, 0, len, hit, mlen);
		return;
	}
	n = fmt_mid_cut(name, maxw, ew, &tail);
	add_seg(l, r, name, 0, n, hit, mlen);
	fmt_line_add(l, r, gl->g[GLYPH_ELLIPSIS], -1);
	if (tail < len)
		add_seg(l, r, name, tail, len, hit, mlen);
}

const char *fmt_node_name(const struct tree_node *n, const struct glyphs *gl, char *buf,
			  size_t len)
{
	if (n->kind != TREE_COMMAND)
		return n->name ? n->name : "?";
	snprintf(buf, len, "%s %s%u", n->name ? n->name : "?", gl->utf8 ? "\u00d7" : "x", n->nproc);
	return buf;
}

/* The dim text after a process row's name: "  · vmstat_update +2 more"
 * for a kworker that ran work functions (without "+2 more" when that does
 * not fit in room columns: the function is what names it), its role for
 * another kernel thread, else its command line and unit ("" when nothing
 * is known). */
static void fmt_row_who(const struct tree_node *n, const struct tree_ident *id,
			const struct glyphs *gl, char *what, size_t len, int room)
{
	const struct tree_kworker *kw = n->kwork;

	what[0] = 0;
	if (kw && kw->nwork) {
		char fn[160];

		/* a kernel symbol, but from a session that anyone may have written */
		sanitize_into(fn, sizeof(fn), kw->work[0].func, 0);
		if (kw->nwork > 1)
			snprintf(what, len, "  %s %s +%u more", gl->g[GLYPH_SEP], fn, kw->nwork - 1);
		if (kw->nwork <= 1 || fmt_width(what) > room)
			snprintf(what, len, "  %s %s", gl->g[GLYPH_SEP], fn);
	} else if (id && id->kthread && *id->role) {
		snprintf(what, len, "  [%s]", id->role);
	} else if (id) {
		const char *who = *id->cmdline ? id->cmdline : *id->exe ? id->exe : id->role;

		snprintf(what, len, "  %s%s%s", who ? who : "", *id->unit ? "  " : "", id->unit);
	}
}

static void add_col(struct fmt_line *l, enum theme_role r, const char *s, int w)
{
	int end = l->width + 1 + w;

	/* a column never takes more than its width (the row's width math) */
	fmt_line_add(l, THEME_NORMAL, " ", -1);
	fmt_line_add(l, r, s, w);
	fmt_line_pad(l, THEME_NORMAL, end);
}

void fmt_row(struct fmt_line *l, const struct view_tree *v, size_t i,
	     const struct fmt_row_ctx *c)
{
	const struct view_row *row = &v->rows[i];
	const struct tree_node *n = row->n;
	const struct glyphs *gl = c->gl;
	const struct fmt_cols *cols = c->cols;
	enum theme_role dr = fmt_delta_role(n, v->calibrated);
	const char *tag = NULL;
	enum theme_role tagrole = THEME_NORMAL;
	const char *unit = tree_node_unit(n);
	int namew = cols->namew, room, tagw = 0;
	char buf[64], namebuf[256], unitbuf[48];

	fmt_line_reset(l);
	l->selected = i == v->sel;
	fmt_line_add(l, THEME_NORMAL, " ", namew);
	if (row->depth > 0) {
		unsigned levels = row->depth - 1u, skip = 0, first = 1;
		int maxseg = (namew / 2 - 2) / 2;

		if (maxseg < 0)
			maxseg = 0;
		if (levels > (unsigned)maxseg) {
			skip = levels - (unsigned)maxseg + 1;
			if (skip > levels)
				skip = levels;
			fmt_line_add(l, THEME_DIM, gl->g[GLYPH_ELLIPSIS], -1);
			fmt_line_add(l, THEME_DIM, " ", -1);
			first = 1 + skip;
		}
		for (unsigned lvl = first; lvl < row->depth; lvl++)
			fmt_line_add(l, THEME_DIM,
				     gl->g[v->cont[row->cont_off + lvl] ? GLYPH_VERT : GLYPH_BLANK],
				     -1);
		fmt_line_add(l, THEME_DIM, gl->g[row->last ? GLYPH_ELBOW : GLYPH_TEE], -1);
	}
	if (row->has_kids)
		fmt_line_add(l, THEME_NORMAL, gl->g[row->expanded ? GLYPH_OPEN : GLYPH_CLOSED], -1);
	else
		fmt_line_add(l, THEME_DIM, gl->g[GLYPH_LEAF], -1);
	fmt_line_add(l, THEME_NORMAL, " ", -1);
	if (n->flags & TREE_F_VERDICT) {
		fmt_line_add(l, THEME_VERDICT, gl->g[GLYPH_VERDICT], -1);
		fmt_line_add(l, THEME_NORMAL, " ", -1);
	}
	if (unit) {
		/* a step's node counts its own events over its own windows: the
		 * columns above it are samples, so its numbers carry their unit
		 * (a page-fault count is not "350 times its parent") */
		snprintf(unitbuf, sizeof(unitbuf), " [%s%s]", unit, v->calibrated ? "/s" : "");
		tag = unitbuf;
		tagrole = THEME_DIM;
	} else if (v->calibrated && n->presence == TREE_NEW) {
		tag = " [new]";
		tagrole = THEME_NEW;
	} else if (v->calibrated && n->presence == TREE_VANISHED) {
		tag = " [gone]";
		tagrole = THEME_VANISHED;
	}
	room = namew - l->width;
	if (tag) {
		tagw = fmt_width(tag);
		if (room - tagw < 4 && !unit)
			tag = NULL, tagw = 0;
		else if (room - tagw < 4)
			tagw = room > 8 ? room - 4 : room / 2; /* the unit, cut at the end */
	}
	/* the node the agent's proposal concerns */
	add_name(l, (n->flags & TREE_F_FOCUS) ? THEME_FOCUS :
		 v->calibrated ? dr : (n->kind == TREE_FRAME ? THEME_NORMAL : THEME_HEADER),
		 fmt_node_name(n, gl, namebuf, sizeof(namebuf)), room - tagw, c->match, gl);
	if (n->kind == TREE_PROCESS && (n->ident || n->kwork)) {
		/* who it is, in what room is left: its command line, its unit;
		 * a kworker by the work function it ran most (x: all of them) */
		const struct tree_ident *id = n->ident;
		int left = namew - l->width - tagw;
		char what[512];

		fmt_row_who(n, id, gl, what, sizeof(what), left);
		if (what[0] && what[2] && left > 6)
			fmt_line_add_mid(l, THEME_DIM, what, left, gl);
	}
	if (tag)
		fmt_line_add(l, tagrole, tag, namew - l->width);
	fmt_line_pad(l, THEME_NORMAL, namew);
	for (unsigned k = 0; k < cols->ncol; k++) {
		enum fmt_col col = cols->col[k];
		int w = col_info[col].width;
		const struct calib_stat *st = &n->stat;

		switch (col) {
		case FMT_COL_SAMPLES:
			add_col(l, THEME_NORMAL, fmt_count(tree_node_sum(n), w, buf, sizeof(buf)), w);
			break;
		case FMT_COL_PCT:
			if (unit) { /* events are no share of the samples */
				add_col(l, THEME_NORMAL, "", w);
				break;
			}
			add_col(l, THEME_NORMAL,
				fmt_pct(c->root_total ? 100.0 * (double)tree_node_sum(n) /
						(double)c->root_total : 0, w, buf, sizeof(buf)), w);
			break;
		case FMT_COL_SELF:
			add_col(l, THEME_DIM, fmt_count(n->self[COND_REF] + n->self[COND_LOAD], w,
							buf, sizeof(buf)), w);
			break;
		case FMT_COL_REF:
			add_col(l, THEME_NORMAL, fmt_rate(st->rate[COND_REF], w, buf, sizeof(buf)), w);
			break;
		case FMT_COL_LOAD:
			add_col(l, THEME_NORMAL, fmt_rate(st->rate[COND_LOAD], w, buf, sizeof(buf)), w);
			break;
		case FMT_COL_CPU:
			if (unit) { /* events are no CPU time */
				add_col(l, THEME_NORMAL, "", w);
				break;
			}
			/* CPU-ms per second over 1000 ms, in percent: samples/s
			 * over the frequency (calib.c), one CPU = 100 as in top */
			add_col(l, THEME_NORMAL, fmt_pct(st->cpu_ms[COND_LOAD] / 10.0, w, buf,
							 sizeof(buf)), w);
			break;
		case FMT_COL_DELTA:
			add_col(l, dr, fmt_signed(st->delta, w, buf, sizeof(buf)), w);
			break;
		case FMT_COL_DPCT: {
			char t[32];

			if (st->rate[COND_REF] > 0) {
				double p = 100.0 * st->delta / st->rate[COND_REF];

				double x = st->rate[COND_LOAD] / st->rate[COND_REF];

				/* at most 6 columns: "+99999%" would push the
				 * significance glyph into the next row */
				if (fabs(p) < 9.95)
					snprintf(t, sizeof(t), "%+.1f%%", p);
				else if (fabs(p) < 9999.5)
					snprintf(t, sizeof(t), "%+.0f%%", p);
				else if (x < 99999.5)
					snprintf(t, sizeof(t), "x%.0f", x);
				else
					snprintf(t, sizeof(t), "%s", p > 0 ? "+big" : "-big");
			} else {
				snprintf(t, sizeof(t), "%s", st->rate[COND_LOAD] > 0 ? "new" : "");
			}
			snprintf(buf, sizeof(buf), "%*s", w, t);
			add_col(l, dr, buf, w);
			break;
		}
		case FMT_COL_SIG:
			add_col(l, dr, st->significant ? gl->g[GLYPH_SIG] : " ", w);
			break;
		case FMT_COL_N:
			break;
		}
	}
	fmt_line_pad(l, THEME_NORMAL, cols->width);
}

void fmt_footer(struct fmt_line *l, int width, const char *path, size_t nhidden,
		double threshold, const struct glyphs *gl)
{
	const char *sep = gl == glyphs_get(1) ? " \u203a " : " > ";
	char buf[128], crumb[1536];
	size_t at = 0;
	int rw, left;

	fmt_line_reset(l);
	if (nhidden)
		snprintf(buf, sizeof(buf), " %s %zu node%s below %g%% hidden", gl->g[GLYPH_ELLIPSIS],
			 nhidden, nhidden == 1 ? "" : "s", threshold * 100);
	else
		snprintf(buf, sizeof(buf), " no node below %g%% hidden", threshold * 100);
	rw = fmt_width(buf);
	left = width - rw - 1;
	crumb[0] = '\0';
	for (const char *p = path; p && *p && at + 8 < sizeof(crumb);) {
		size_t n = strcspn(p, ";");
		int w = snprintf(crumb + at, sizeof(crumb) - at, "%s%.*s", at ? sep : " ", (int)n, p);

		if (w < 0 || (size_t)w >= sizeof(crumb) - at)
			break;
		at += (size_t)w;
		p += n + (p[n] == ';');
	}
	if (at && left >= 12) {
		int ew = fmt_width(gl->g[GLYPH_ELLIPSIS]);
		size_t from = 0;

		if (fmt_width(crumb) > left) {
			/* keep the end (the selected node): the shortest fitting suffix */
			for (from = 1; crumb[from]; from++)
				if (((unsigned char)crumb[from] & 0xc0) != 0x80 &&
				    fmt_width(crumb + from) <= left - ew - 1)
					break;
			fmt_line_add(l, THEME_DIM, " ", -1);
			fmt_line_add(l, THEME_DIM, gl->g[GLYPH_ELLIPSIS], -1);
		}
		fmt_line_add(l, THEME_NORMAL, crumb + from, left);
		fmt_line_pad(l, THEME_DIM, width - rw);
		fmt_line_add(l, THEME_DIM, buf, rw);
	} else {
		fmt_line_add(l, THEME_DIM, buf, width);
	}
	fmt_line_pad(l, THEME_DIM, width);
}
