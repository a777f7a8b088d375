/* num — finite, in-range number parsing with the limits in its messages. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "base/sanitize.h"

/* How a value is shown in a message: at most 40 bytes, escaped. */
static void num_show(char *buf, size_t n, const char *str)
{
	char cut[48];

	snprintf(cut, sizeof(cut), "%.40s%s", str ? str : "", str && strlen(str) > 40 ? "..." : "");
	sanitize_into(buf, n, cut, 0);
}

static int num_fail(char **cause, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int num_fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;

	if (cause) {
		free(*cause);
		*cause = NULL;
		va_start(ap, fmt);
		if (vasprintf(cause, fmt, ap) < 0)
			*cause = NULL;
		va_end(ap);
	}
	return err;
}

/* "%g" without exponent noise for the limits people type (0.05, 3600). */
static void num_fmt(char *buf, size_t n, double v)
{
	snprintf(buf, n, "%.15g", v);
}

static const char *num_skip(const char *s)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	return s;
}

int num_parse_double(const char *str, double min, double max, const char *unit,
		     double *out, char **cause)
{
	char shown[200], lo[32], hi[32], *end;
	const char *p;
	double v;

	num_show(shown, sizeof(shown), str);
	num_fmt(lo, sizeof(lo), min);
	num_fmt(hi, sizeof(hi), max);
	p = str ? num_skip(str) : "";
	if (!*p)
		return num_fail(cause, -EINVAL, "no value: give a number between %s and %s (%s)",
				lo, hi, unit);
	errno = 0;
	v = strtod(p, &end);
	if (end == p || *num_skip(end) || (!isfinite(v) && errno != ERANGE))
		return num_fail(cause, -EINVAL, "'%s' is not a number between %s and %s (%s)",
				shown, lo, hi, unit);
	if (errno == ERANGE || v < min || v > max)
		return num_fail(cause, -ERANGE, "'%s' is out of range: give a number between %s and %s (%s)",
				shown, lo, hi, unit);
	*out = v;
	return 0;
}

int num_parse_int64(const char *str, int64_t min, int64_t max, const char *unit,
		    int64_t *out, char **cause)
{
	char shown[200], *end;
	const char *p;
	long long v;

	num_show(shown, sizeof(shown), str);
	p = str ? num_skip(str) : "";
	if (!*p)
		return num_fail(cause, -EINVAL, "no value: give a whole number between %lld and %lld (%s)",
				(long long)min, (long long)max, unit);
	errno = 0;
	v = strtoll(p, &end, 10);
	if (end == p || *num_skip(end) || (min >= 0 && (*p == '-' || *p == '+')))
		return num_fail(cause, -EINVAL, "'%s' is not a whole number between %lld and %lld (%s)",
				shown, (long long)min, (long long)max, unit);
	if (errno == ERANGE || v < min || v > max)
		return num_fail(cause, -ERANGE, "'%s' is out of range: give a whole number between %lld and %lld (%s)",
				shown, (long long)min, (long long)max, unit);
	*out = v;
	return 0;
}

int num_parse_uint(const char *str, unsigned min, unsigned max, const char *unit,
		   unsigned *out, char **cause)
{
	int64_t v;
	int rc = num_parse_int64(str, min, max, unit, &v, cause);

	if (!rc)
		*out = (unsigned)v;
	return rc;
}

char *num_check_whole(double v, double min, double max, const char *unit)
{
	char *msg = NULL, lo[32], hi[32], val[32];

	num_fmt(lo, sizeof(lo), min);
	num_fmt(hi, sizeof(hi), max);
	num_fmt(val, sizeof(val), v);
	if (!isfinite(v) || v != floor(v) || v < min || v > max)
		num_fail(&msg, -EINVAL, "%s is not a whole number between %s and %s (%s)",
			 val, lo, hi, unit);
	return msg;
}
