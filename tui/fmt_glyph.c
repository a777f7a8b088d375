/* fmt_glyph — the line-drawing and marker glyphs, UTF-8 and ASCII. */
#include <langinfo.h>
#include <string.h>
#include <strings.h>

#include "fmt.h"

static const struct glyphs glyphs_utf8 = {
	1,
	{
		[GLYPH_TEE] = "\u251c\u2500",      /* ├─ */
		[GLYPH_ELBOW] = "\u2514\u2500",    /* └─ */
		[GLYPH_VERT] = "\u2502 ",          /* │  */
		[GLYPH_BLANK] = "  ",
		[GLYPH_OPEN] = "\u25be",           /* ▾ */
		[GLYPH_CLOSED] = "\u25b8",         /* ▸ */
		[GLYPH_LEAF] = "\u2500",           /* ─ */
		[GLYPH_ELLIPSIS] = "\u2026",       /* … */
		[GLYPH_VERDICT] = "\u25c6",        /* ◆ */
		[GLYPH_SEP] = "\u00b7",            /* · */
		[GLYPH_DELTA] = "\u0394",          /* Δ */
		[GLYPH_SIG] = "\u25cf",            /* ● */
	},
};

static const struct glyphs glyphs_ascii = {
	0,
	{
		[GLYPH_TEE] = "|-",
		[GLYPH_ELBOW] = "`-",
		[GLYPH_VERT] = "| ",
		[GLYPH_BLANK] = "  ",
		[GLYPH_OPEN] = "-",
		[GLYPH_CLOSED] = "+",
		[GLYPH_LEAF] = " ",
		[GLYPH_ELLIPSIS] = "~",
		[GLYPH_VERDICT] = "#",
		[GLYPH_SEP] = "|",
		[GLYPH_DELTA] = "d",
		[GLYPH_SIG] = "*",
	},
};

const struct glyphs *glyphs_get(int utf8)
{
	return utf8 ? &glyphs_utf8 : &glyphs_ascii;
}

int glyphs_locale_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);

	return cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
}
