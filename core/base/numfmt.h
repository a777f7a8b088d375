/* numfmt — the one writer of the numbers argus shows people: p- and
 * q-values, signed rates, percentages.
 *
 * Each function writes into the caller's buffer b (len bytes, cut to fit,
 * always terminated when len > 0) and returns b, so it can stand as an
 * argument of the printf that uses it.  Nothing is kept between calls.
 *
 * The p/q-value styles are the forms the outputs had before they shared
 * this file; a style is a row of the table in numfmt.c, so they stay
 * byte-identical (sessions, exports and golden files depend on them).
 */
#ifndef ARGUS_NUMFMT_H
#define ARGUS_NUMFMT_H

#include <stddef.h>

/* The smallest p-value argus computes (tests floor theirs here). */
#define NUMFMT_P_FLOOR 1e-300

enum numfmt_p_style {
	/* "<1e-300" at or below the floor, "0.05" (%.2f) from 0.01, "3e-05"
	 * (%.0e) between: verdicts, the descent's lines, step results */
	NUMFMT_P_WORDS,
	/* as NUMFMT_P_WORDS with a digit more in the exponent form, "3.2e-05":
	 * calibration's explanation of a node */
	NUMFMT_P_WORDS1,
	/* "-" when not finite, "<1e-300" below the floor, "3e-05" below 0.001,
	 * "0.042" (%.3f) from there: the markdown export's tables */
	NUMFMT_P_TABLE,
	/* "<1e-300" below the floor, "3e-05" below 0.001, "0.042" (%.2g) from
	 * there: the glossary's sentences */
	NUMFMT_P_BRIEF,
};

/* The p- or q-value p in style st.  name NULL: the number alone ("0.05",
 * "<1e-300"); else name and the relation: "q=0.05", "q<1e-300". */
const char *numfmt_p(char *b, size_t len, const char *name, double p, enum numfmt_p_style st);

/* A signed rate per second, one decimal: "+120.0/s", "-3.2/s". */
const char *numfmt_rate(char *b, size_t len, double per_s);

/* A percentage, no decimals: "42%"; sign 1 writes the sign always,
 * "+42%", "-7%" (a change). */
const char *numfmt_pct(char *b, size_t len, double pct, int sign);

#endif
