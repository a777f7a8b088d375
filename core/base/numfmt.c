/* numfmt — p/q-values, signed rates and percentages written for people. */
#include <math.h>
#include <stdio.h>

#include "base/numfmt.h"

/* One row per style: where the "<floor" form starts, where the fixed form
 * starts, the two printf forms, and what a NaN or infinity prints as (NULL:
 * whatever the forms make of it, as before). */
static const struct {
	int at_floor;           /* 1: the floor itself is "<1e-300" too */
	double fixed_from;
	const char *fixed, *exp, *nonfinite;
} numfmt_styles[] = {
	[NUMFMT_P_WORDS]  = { 1, 0.01,  "%.2f", "%.0e", NULL },
	[NUMFMT_P_WORDS1] = { 1, 0.01,  "%.2f", "%.1e", NULL },
	[NUMFMT_P_TABLE]  = { 0, 0.001, "%.3f", "%.0e", "-" },
	[NUMFMT_P_BRIEF]  = { 0, 0.001, "%.2g", "%.0e", NULL },
};

const char *numfmt_p(char *b, size_t len, const char *name, double p, enum numfmt_p_style st)
{
	const char *n = name ? name : "", *eq = name ? "=" : "";

	if (!len)
		return b;
	if ((unsigned)st >= sizeof(numfmt_styles) / sizeof(numfmt_styles[0]))
		st = NUMFMT_P_WORDS;
	if (numfmt_styles[st].nonfinite && !isfinite(p)) {
		snprintf(b, len, "%s%s%s", n, eq, numfmt_styles[st].nonfinite);
		return b;
	}
	if (numfmt_styles[st].at_floor ? p <= NUMFMT_P_FLOOR : p < NUMFMT_P_FLOOR) {
		snprintf(b, len, "%s<1e-300", n);
		return b;
	}
	int w = snprintf(b, len, "%s%s", n, eq);

	if (w < 0 || (size_t)w >= len)
		return b;
	/* the forms are the table's own literals, never a caller's string */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(b + w, len - (size_t)w,
		 p >= numfmt_styles[st].fixed_from ? numfmt_styles[st].fixed : numfmt_styles[st].exp,
		 p);
#pragma GCC diagnostic pop
	return b;
}

const char *numfmt_rate(char *b, size_t len, double per_s)
{
	if (len)
		snprintf(b, len, "%+.1f/s", per_s);
	return b;
}

const char *numfmt_pct(char *b, size_t len, double pct, int sign)
{
	if (len)
		snprintf(b, len, sign ? "%+.0f%%" : "%.0f%%", pct);
	return b;
}
