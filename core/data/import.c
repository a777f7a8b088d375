/* import — stacks recorded elsewhere into a profile window: the format
 * names, the detection and the entry points, which hand the text to a
 * reader (core/data/import_folded.c, core/data/import_perf.c; shared parts in
 * core/data/import_util.c, import_int.h).  Formats and window lengths are
 * described in import.h. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/import.h"
#include "data/pprof.h"
#include "data/import_int.h"
#include "base/util.h"

#define IMPORT_MAX_FILE (1ull << 31)  /* 2 GiB: a larger text is a mistake */

const char *import_format_name(enum import_format f)
{
	switch (f) {
	case IMPORT_FOLDED: return "folded";
	case IMPORT_PERF_SCRIPT: return "perf script";
	case IMPORT_PPROF: return "pprof";
	default: return "unknown";
	}
}

/* ---- entry points ---------------------------------------------------------------- */

enum import_format import_detect(const char *buf, size_t len)
{
	struct import_reader r = { .buf = buf, .len = len };
	struct import_line l, first = { 0 };
	int seen = 0, second_indented = 0;

	while (import_reader_next(&r, &l)) {
		if (!l.len || l.s[0] == '#')
			continue;
		if (!seen && import_is_blank(l.s[0]))
			return IMPORT_PERF_SCRIPT;
		if (seen++) {
			second_indented = import_is_blank(l.s[0]);
			break;
		}
		first = l;
	}
	if (!seen)
		return IMPORT_UNKNOWN;
	size_t i = first.len;
	while (i && !import_is_blank(first.s[i - 1]))
		i--;
	int counted = i && import_all_digits(first.s + i, first.len - i);
	if (counted && (memchr(first.s, ';', first.len) || !second_indented))
		return IMPORT_FOLDED;
	for (size_t k = 1; k < first.len; k++)
		if (first.s[k] == ':' && (k + 1 == first.len || import_is_blank(first.s[k + 1])))
			return IMPORT_PERF_SCRIPT;
	return second_indented ? IMPORT_PERF_SCRIPT : IMPORT_UNKNOWN;
}

/* pprof_read, with what was read said in import's terms. */
static int import_pprof(const char *name, const void *buf, size_t len, struct profile *p,
			unsigned win, struct import_info *info, char **cause)
{
	struct pprof_read_info pi;
	int err = pprof_read(name, buf, len, p, win, &pi, cause);

	info->format = IMPORT_PPROF;
	info->samples = pi.samples;
	info->user_only = pi.user_only;
	info->stacks = pi.records;
	info->windows = pi.windows;
	info->secs_known = pi.secs_known;
	info->secs = pi.secs;
	snprintf(info->note, sizeof(info->note), "%s", pi.note);
	return err;
}

int import_buf(const char *name, const char *buf, size_t len, struct profile *p,
	       unsigned win, struct import_info *info, char **cause)
{
	return import_buf_as(name, buf, len, IMPORT_UNKNOWN, p, win, info, cause);
}

int import_buf_as(const char *name, const char *buf, size_t len, enum import_format fmt,
		  struct profile *p, unsigned win, struct import_info *info, char **cause)
{
	struct import_ctx c = {
		.name = name ? name : "-", .p = p, .first_win = win, .cur_win = win,
		.info = info, .cause = cause,
	};
	struct import_reader r = { .buf = buf, .len = len };
	struct import_info local;
	char q[80];
	int err;

	if (!info)
		info = &local;
	*info = (struct import_info){ .windows = 1, .secs = 1.0 };
	c.info = info;
	if (!p || win >= p->nwin)
		return util_fail(cause, -EINVAL, "%s: no such profile window %u", c.name, win);
	c.cond = p->wins[win].cond;
	if (fmt == IMPORT_PPROF || (fmt == IMPORT_UNKNOWN && pprof_detect(buf, len)))
		return import_pprof(c.name, buf, len, p, win, info, cause);
	const char *nul = len ? memchr(buf, 0, len) : NULL;
	if (nul)
		return util_fail(cause, -EINVAL,
				 "%s: binary data (a NUL byte at offset %zu) that is not a pprof profile either; expected folded stacks, perf script text or pprof",
				 c.name, (size_t)(nul - buf));
	enum import_format f = fmt == IMPORT_UNKNOWN ? import_detect(buf, len) : fmt;
	info->format = f;
	switch (f) {
	case IMPORT_FOLDED:
		err = import_folded(&c, &r);
		break;
	case IMPORT_PERF_SCRIPT:
		err = import_perf(&c, &r);
		break;
	default: {
		struct import_line l = { 0 };
		int any = 0;
		while (import_reader_next(&r, &l))
			if (l.len && l.s[0] != '#') {
				any = 1;
				break;
			}
		if (!any)
			return util_fail(cause, -EINVAL, "%s: no stacks in the file (it is empty or only comments)",
					 c.name);
		import_quote(l.s, l.raw_len, q, sizeof(q));
		return util_fail(cause, -EINVAL,
				 "%s:%u: neither folded stacks ('a;b;c COUNT') nor perf script text: '%s'",
				 c.name, l.no, q);
	}
	}
	if (err)
		return err;
	if (!c.cur_secs_set)
		profile_window_end(p, c.cur_win, 1.0);
	if (!info->samples && f == IMPORT_PERF_SCRIPT)
		return util_fail(cause, -EINVAL,
				 "%s: no kernel call chains in %llu perf samples; record with 'perf record -g' (and kernel symbols readable)",
				 c.name, (unsigned long long)info->user_only);
	if (!info->samples)
		return util_fail(cause, -EINVAL, "%s: no samples in the file (%s with zero counts only)",
				 c.name, import_format_name(f));
	return 0;
}

int import_file_info(const char *path, struct profile *p, unsigned win,
		     struct import_info *info, char **cause)
{
	char *buf;
	size_t len;
	int err = util_read_file_cause(path, IMPORT_MAX_FILE, &buf, &len, cause);

	if (err == -EFBIG)
		return util_fail(cause, err, "%s: larger than %llu bytes; not a stack file", path,
				 IMPORT_MAX_FILE);
	if (err)
		return err;
	err = import_buf(path, buf, len, p, win, info, cause);
	free(buf);
	return err;
}

int import_file(const char *path, struct profile *p, unsigned win, char **cause)
{
	return import_file_info(path, p, win, NULL, cause);
}
