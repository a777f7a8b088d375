/* util — small helpers written once (see util.h). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/vec.h"
#include "base/util.h"

static void util_vcause(char **cause, const char *fmt, va_list ap)
{
	if (!cause)
		return;
	free(*cause);
	if (vasprintf(cause, fmt, ap) < 0)
		*cause = NULL;
}

void util_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	util_vcause(cause, fmt, ap);
	va_end(ap);
}

int util_fail(char **cause, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	util_vcause(cause, fmt, ap);
	va_end(ap);
	return err;
}

int util_lines_vadd(char ***v, unsigned *n, const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		return -ENOMEM;
	if (vec_resize(v, (size_t)*n + 1, sizeof(**v))) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*n)++] = s;
	return 0;
}

double util_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int64_t util_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int util_read_stream(FILE *f, size_t max, char **out, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	int err = 0;

	*out = NULL;
	errno = 0;
	for (;;) {
		size_t r;

		if (cap - n < 4096) {
			size_t ncap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, ncap + 1);

			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (max && n > max) {
			err = -EFBIG;
			goto out;
		}
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		err = errno ? -errno : -EIO; /* fread's read(2) failure, e.g. EISDIR */
		goto out;
	}
	buf[n] = '\0';
	*out = buf;
	buf = NULL;
	if (len)
		*len = n;
out:
	free(buf);
	return err;
}

int util_read_file(const char *path, size_t max, char **out, size_t *len)
{
	FILE *f = fopen(path, "re");
	int err;

	*out = NULL;
	if (!f)
		return -errno;
	err = util_read_stream(f, max, out, len);
	fclose(f);
	return err;
}

int util_read_file_cause(const char *path, size_t max, char **out, size_t *len, char **cause)
{
	FILE *f = fopen(path, "re");
	int err;

	*out = NULL;
	if (!f)
		return util_fail(cause, -errno, "cannot open %s: %s", path, strerror(errno));
	err = util_read_stream(f, max, out, len);
	fclose(f);
	if (err == -ENOMEM)
		util_cause(cause, "%s: out of memory", path);
	else if (err && err != -EFBIG)
		util_cause(cause, "cannot read %s: %s", path, strerror(-err));
	return err;
}

int util_cgroup2_mount(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[PATH_MAX], type[64];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3) {
		if (!strcmp(type, "cgroup2")) {
			snprintf(buf, len, "%s", dir);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* Optimal string alignment distance of a and b, capped at 8 (names are
 * short; nothing further is near). */
static unsigned util_edits(const char *a, const char *b)
{
	enum { MAX = 64 };
	unsigned d[MAX + 1][MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > MAX || lb > MAX)
		return 8;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < c)
				c = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < c)
				c = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < c)
				c = d[i - 2][j - 2] + 1;
			d[i][j] = c;
		}
	return d[la][lb] < 8 ? d[la][lb] : 8;
}

/* 1 when word is cand with letters left out ("--lod" of "--load") */
static int util_subsequence(const char *word, const char *cand)
{
	for (; *cand && *word; cand++)
		word += *cand == *word;
	return !*word;
}

const char *util_nearest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned bd = 3, letters = 0;

	if (!word)
		return NULL;
	for (const char *p = word; *p; p++)
		letters += *p != '-';
	for (size_t i = 0; i < n; i++) {
		unsigned e;

		if (!cands[i] || !strcmp(cands[i], word))
			continue;
		e = util_edits(word, cands[i]);
		/* a tie goes to a name the word left letters out of: the
		 * commonest typo ("--lod" is nearer "--load" than "--log") */
		if ((e < bd || (e == bd && best && util_subsequence(word, cands[i]) &&
				!util_subsequence(word, best))) && 2 * e < letters) {
			bd = e;
			best = cands[i];
		}
	}
	return best;
}
