/* fmt_num — compact, right-aligned numbers for fixed-width columns. */
#include <math.h>
#include <stdio.h>

#include "fmt.h"

static char *right(char *buf, size_t len, int width, const char *s)
{
	snprintf(buf, len, "%*s", width, s);
	return buf;
}

char *fmt_count(uint64_t v, int width, char *buf, size_t len)
{
	char t[32];

	if (v < 100000)
		snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
	else if (v < 100000000ull)
		snprintf(t, sizeof(t), "%.1fk", (double)v / 1e3);
	else if (v < 100000000000ull)
		snprintf(t, sizeof(t), "%.1fM", (double)v / 1e6);
	else
		snprintf(t, sizeof(t), "%.1fG", (double)v / 1e9);
	return right(buf, len, width, t);
}

static void mag(double a, char *t, size_t len, const char *sign)
{
	if (!isfinite(a))
		snprintf(t, len, "%sinf", sign);
	else if (a < 1000)
		snprintf(t, len, "%s%.1f", sign, a);
	else if (a < 100000)
		snprintf(t, len, "%s%.0f", sign, a);
	else if (a < 1e8)
		snprintf(t, len, "%s%.1fk", sign, a / 1e3);
	else
		snprintf(t, len, "%s%.1fM", sign, a / 1e6);
}

char *fmt_rate(double v, int width, char *buf, size_t len)
{
	char t[32];

	mag(fabs(v), t, sizeof(t), v < 0 ? "-" : "");
	return right(buf, len, width, t);
}

char *fmt_signed(double v, int width, char *buf, size_t len)
{
	char t[32];

	mag(fabs(v), t, sizeof(t), v < 0 ? "-" : v > 0 ? "+" : "");
	return right(buf, len, width, t);
}

char *fmt_pct(double v, int width, char *buf, size_t len)
{
	char t[32];

	if (!isfinite(v))
		snprintf(t, sizeof(t), "%s", v < 0 ? "-inf" : "inf");
	else if (fabs(v) < 1000)
		snprintf(t, sizeof(t), "%.1f", v);
	else
		snprintf(t, sizeof(t), "%.0f", v);
	return right(buf, len, width, t);
}

char *fmt_elapsed(double secs, char *buf, size_t len)
{
	unsigned long s = secs > 0 ? (unsigned long)secs : 0;

	if (s >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%02lu:%02lu", s / 60, s % 60);
	return buf;
}
