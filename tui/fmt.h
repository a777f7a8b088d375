/* fmt — pure formatting for the TUI: glyphs, display widths, styled lines.
 *
 * Everything here turns data into a struct fmt_line (text plus role spans)
 * without touching the terminal, so it is unit-tested (tests/unit/test_fmt.c)
 * and the screen code only copies lines out.  Widths are terminal columns
 * (wcwidth), never bytes.
 */
#ifndef ARGUS_FMT_H
#define ARGUS_FMT_H

#include <stddef.h>
#include <stdint.h>

#include "measure/source.h"
#include "theme.h"

struct view_tree;
struct tree_node;
struct analysis_displaced;

/* ---- glyphs (fmt_glyph.c) ---------------------------------------------------- */

enum glyph {
	GLYPH_TEE,        /* "├─"  "|-" : a child with siblings below */
	GLYPH_ELBOW,      /* "└─"  "`-" : the last child */
	GLYPH_VERT,       /* "│ "  "| " : an ancestor's line continues */
	GLYPH_BLANK,      /* "  "  "  " */
	GLYPH_OPEN,       /* "▾"   "-"  : expanded */
	GLYPH_CLOSED,     /* "▸"   "+"  : collapsed, has children */
	GLYPH_LEAF,       /* "─"   " "  : no children */
	GLYPH_ELLIPSIS,   /* "…"   "~"  */
	GLYPH_VERDICT,    /* "◆"   "#"  : on the verdict path */
	GLYPH_SEP,        /* "·"   "|"  : between status fields */
	GLYPH_DELTA,      /* "Δ"   "d"  */
	GLYPH_SIG,        /* "●"   "*"  : significant */
	GLYPH_N
};

struct glyphs {
	int utf8;
	const char *g[GLYPH_N];
};

/* The UTF-8 (utf8 != 0) or ASCII glyph table; static, never freed. */
const struct glyphs *glyphs_get(int utf8);
/* Nonzero when the current locale's codeset is UTF-8 (nl_langinfo). */
int glyphs_locale_utf8(void);

/* ---- widths (fmt_text.c) ------------------------------------------------------ */

/* Terminal columns of s (wcwidth per character; invalid bytes count 1). */
int fmt_width(const char *s);
/* Terminal columns of the first n bytes of s. */
int fmt_widthn(const char *s, size_t n);
/* Bytes of s that fit in maxw columns; *w gets their width. */
size_t fmt_fit(const char *s, int maxw, int *w);
/* Where to shorten s in the middle to fit maxw columns with an ellipsis of
 * ew columns between the ends: returns the bytes of the head, *tail the
 * offset where the kept end starts (strlen(s): no end kept).  s that fits
 * whole: strlen(s) and *tail strlen(s). */
size_t fmt_mid_cut(const char *s, int maxw, int ew, size_t *tail);

/* ---- styled lines (fmt_line.c) ------------------------------------------------ */

#define FMT_LINE_MAX 1024
#define FMT_SPAN_MAX 32

struct fmt_span {
	uint16_t start, len;      /* bytes of text */
	uint8_t role;             /* enum theme_role */
};

struct fmt_line {
	char text[FMT_LINE_MAX];
	uint16_t len;             /* bytes */
	uint16_t width;           /* columns */
	uint8_t nspan;
	uint8_t selected;         /* draw with the selected role over the spans */
	struct fmt_span span[FMT_SPAN_MAX];
};

/* Empties l. */
void fmt_line_reset(struct fmt_line *l);
/* Appends s in role r, at most maxw more columns (maxw < 0: no limit);
 * returns the columns added.  Text that does not fit is cut, not wrapped. */
int fmt_line_add(struct fmt_line *l, enum theme_role r, const char *s, int maxw);
/* Appends the first n bytes of s in role r. */
void fmt_line_addn(struct fmt_line *l, enum theme_role r, const char *s, size_t n);
/* Appends s cut to maxw columns with an ellipsis glyph when it is cut. */
int fmt_line_add_trunc(struct fmt_line *l, enum theme_role r, const char *s, int maxw,
		       const struct glyphs *gl);
/* Appends s in maxw columns, shortened in the middle with an ellipsis
 * when longer (both ends of a name or a command say what it is). */
int fmt_line_add_mid(struct fmt_line *l, enum theme_role r, const char *s, int maxw,
		     const struct glyphs *gl);
/* Appends spaces in role r until the line is width columns wide. */
void fmt_line_pad(struct fmt_line *l, enum theme_role r, int width);
/* Same text, spans and selection. */
int fmt_line_eq(const struct fmt_line *a, const struct fmt_line *b);
/* Role of the character at byte off (THEME_NORMAL when uncovered). */
enum theme_role fmt_line_role_at(const struct fmt_line *l, size_t off);

/* ---- numbers (fmt_num.c) ------------------------------------------------------- */

/* Right-aligned in width columns; each returns buf. */
char *fmt_count(uint64_t v, int width, char *buf, size_t len);   /* 123456 -> 123.5k */
char *fmt_rate(double v, int width, char *buf, size_t len);      /* 12.3, 4.5k */
char *fmt_signed(double v, int width, char *buf, size_t len);    /* +12.3, -4.5k */
char *fmt_pct(double v, int width, char *buf, size_t len);       /* 12.3 */
char *fmt_elapsed(double secs, char *buf, size_t len);           /* 1:02:03, 02:03 */

/* ---- tree rows (fmt_row.c) ----------------------------------------------------- */

enum fmt_col {
	FMT_COL_SAMPLES, FMT_COL_PCT, FMT_COL_SELF,
	FMT_COL_REF, FMT_COL_LOAD, FMT_COL_CPU, FMT_COL_DELTA, FMT_COL_DPCT, FMT_COL_SIG,
	FMT_COL_N
};

struct fmt_cols {
	int width;                /* whole line */
	int namew;                /* the name column */
	int calibrated;
	unsigned ncol;
	enum fmt_col col[FMT_COL_N];
};

/* Columns for a line width wide: drops the least useful columns first so
 * the name keeps at least 16 columns.  cpu (calibrated trees of sampled
 * CPU time at a known frequency): a %CPU column after load/s, the loaded
 * side's share of one CPU; it is the first to go, whenever the name would
 * keep fewer than FMT_NAME_CPU columns with it (so at 80 columns). */
#define FMT_NAME_CPU 48
void fmt_cols_layout(struct fmt_cols *c, int width, int calibrated, int cpu);
/* Width of one column (without the space before it). */
int fmt_col_width(enum fmt_col c);

struct fmt_row_ctx {
	const struct glyphs *gl;
	const struct fmt_cols *cols;
	uint64_t root_total;      /* for % */
	const char *match;        /* search query to highlight, or NULL */
	const char *unit;         /* what the rate columns count ("samples/s"),
	                           * said in the heading; NULL: nothing */
};

/* The column heading line. */
void fmt_colhead(struct fmt_line *l, const struct fmt_row_ctx *c);
/* Row i of v as a line (selected when it is the selection). */
void fmt_row(struct fmt_line *l, const struct view_tree *v, size_t i,
	     const struct fmt_row_ctx *c);
/* The name a row shows: a command group's with its process count
 * ("cc1 ×4"; buf holds it), else the node's name (not copied). */
const char *fmt_node_name(const struct tree_node *n, const struct glyphs *gl, char *buf,
			  size_t len);
/* Role for a node's delta: up, down or insignificant (normal when not
 * calibrated). */
enum theme_role fmt_delta_role(const struct tree_node *n, int calibrated);
/* The breadcrumb of the selection and "… N nodes below 0.1% hidden" at
 * the right.  path: the selected node's path joined by ';' (the root left
 * out; view_tree_path), NULL or "" for none; too long, its start gives way
 * so the selected node stays. */
void fmt_footer(struct fmt_line *l, int width, const char *path, size_t nhidden,
		double threshold, const struct glyphs *gl);

/* ---- header and status (fmt_status.c) ----------------------------------------- */

/* "reference window 2/6", "loaded window 3/6", "live", ... into buf. */
char *fmt_phase(const struct source_status *st, char *buf, size_t len);
/* The status bar: phase, rate, samples, dropped (always shown; the dropped
 * role when nonzero), elapsed, probes, overhead, load state; fields that do
 * not fit are left out, least important first. */
void fmt_status(struct fmt_line *l, const struct source_status *st, int width,
		const struct glyphs *gl);
/* fmt_status with the phase said by the caller (phase: NULL keeps the
 * source's) and a first segment in the warning role (warn: NULL none; e.g.
 * "AUTO: steps load without asking"). */
void fmt_status_ex(struct fmt_line *l, const struct source_status *st, int width,
		   const struct glyphs *gl, const char *phase, const char *warn);
/* What the run is now, for the header: "calibrating" while a calibration's
 * windows are measured (sequential stopping says when they are done),
 * "calibration done" after, "live" (plain live sampling), "stopped",
 * "replay", "recorded" (files).  A static string. */
const char *fmt_run_state(const struct source_status *st, int replay);
/* 1 while a calibration's windows are being measured (what the tree and its
 * verdict show may still change). */
int fmt_run_measuring(const struct source_status *st);
/* What the header says after the state: the analysis's fields (struct
 * analysis: subsystems, displaced), or a note in text's place (-p's
 * advice) with no displaced. */
struct fmt_header_sum {
	const char *text;          /* the subsystems (calib_summary) or a note;
	                            * NULL: none */
	const struct analysis_displaced *displaced; /* NULL when ndisplaced is 0 */
	unsigned ndisplaced;
};
/* The header: title left (its aside after "  (" dropped first, then
 * shortened in the middle), " · " state (never
 * cut; NULL: none), the summary after it (sum NULL: none): the text, " · ",
 * "displaced: a −N/s, ...".  When it does not fit, the text yields first,
 * then the displaced processes by whole entries from the last. */
void fmt_header(struct fmt_line *l, int width, const char *title, const char *state,
		const struct fmt_header_sum *sum, const struct glyphs *gl);

/* The verdict as one line: "◆ verdict: mm › handle_mm_fault › … ›
 * do_wp_page", "◆ provisional: ..." while the windows are measured (the
 * tree may still change it); too long, whole frames give way in the
 * middle (the first and the last stay), then characters. */
#define FMT_VERDICT_PARTS 64
struct fmt_verdict {
	int found;                /* 0: "no bottleneck found" */
	int provisional;
	const char *subsystem;    /* the path's first part; may be NULL */
	char *const *path;        /* root-first frames (struct verdict's) */
	unsigned npath;
	unsigned nbranches;       /* a spread verdict's branches (path is the
	                           * first): "+N more" said after it */
	const char *waker;        /* a blocked verdict's waker ("softirq BLOCK"):
	                           * "woken by ..." after it; NULL or "": none */
};
void fmt_verdict_line(struct fmt_line *l, int width, const struct fmt_verdict *v,
		      const struct glyphs *gl);

#endif
