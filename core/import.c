/* import — folded stacks and perf script text into a profile window.
 * Formats and window lengths are described in import.h. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "import.h"
#include "util.h"

#define IMPORT_MAX_FRAMES 1024        /* perf's own limit is 127 by default */
#define IMPORT_MAX_FILE (1ull << 31)  /* 2 GiB: a larger text is a mistake */

const char *import_format_name(enum import_format f)
{
	switch (f) {
	case IMPORT_FOLDED: return "folded";
	case IMPORT_PERF_SCRIPT: return "perf script";
	default: return "unknown";
	}
}

/* ---- small helpers ---------------------------------------------------------- */

struct line {
	const char *s;   /* not NUL-terminated */
	size_t len;      /* without the line end and trailing blanks */
	size_t raw_len;  /* without the line end only */
	unsigned no;     /* 1-based */
	size_t off;      /* byte offset of the line in the buffer */
};

struct reader {
	const char *buf;
	size_t len, pos;
	unsigned no;
};

static int reader_next(struct reader *r, struct line *l)
{
	if (r->pos >= r->len)
		return 0;
	const char *s = r->buf + r->pos;
	const char *nl = memchr(s, '\n', r->len - r->pos);
	size_t n = nl ? (size_t)(nl - s) : r->len - r->pos;
	l->s = s;
	l->off = r->pos;
	l->no = ++r->no;
	r->pos += n + (nl ? 1 : 0);
	while (n && s[n - 1] == '\r')
		n--;
	l->raw_len = n;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	l->len = n;
	return 1;
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* A printable, bounded quotation of a line for messages. */
static void quote(const char *s, size_t n, char *out, size_t outlen)
{
	size_t o = 0, max = outlen - 4;
	for (size_t i = 0; i < n && o < max; i++) {
		unsigned char c = (unsigned char)s[i];
		out[o++] = (c >= 0x20 && c < 0x7f) || c >= 0x80 ? (char)c : c == '\t' ? ' ' : '?';
	}
	if (o >= max && n > o) {
		out[o++] = '.';
		out[o++] = '.';
		out[o++] = '.';
	}
	out[o] = 0;
}

/* A growing set of NUL-terminated strings: frames of one stack. */
struct frames {
	char *buf;
	size_t len, cap;
	size_t *off;
	unsigned n, cap_n;
	const char **ptr;
	unsigned ptr_cap;
};

static void frames_reset(struct frames *f)
{
	f->len = 0;
	f->n = 0;
}

static int frames_push(struct frames *f, const char *s, size_t n)
{
	if (f->n >= IMPORT_MAX_FRAMES)
		return -E2BIG;
	if (f->len + n + 1 > f->cap) {
		size_t cap = f->cap ? f->cap : 256;
		while (cap < f->len + n + 1)
			cap *= 2;
		char *b = realloc(f->buf, cap);
		if (!b)
			return -ENOMEM;
		f->buf = b;
		f->cap = cap;
	}
	if (f->n >= f->cap_n) {
		unsigned cap = f->cap_n ? f->cap_n * 2 : 32;
		size_t *o = realloc(f->off, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		f->off = o;
		f->cap_n = cap;
	}
	memcpy(f->buf + f->len, s, n);
	f->buf[f->len + n] = 0;
	f->off[f->n++] = f->len;
	f->len += n + 1;
	return 0;
}

/* Pointers to the frames, in order (reverse != 0: last pushed first). */
static const char **frames_ptrs(struct frames *f, int reverse)
{
	if (f->n > f->ptr_cap) {
		const char **p = realloc(f->ptr, f->n * sizeof(*p));
		if (!p)
			return NULL;
		f->ptr = p;
		f->ptr_cap = f->n;
	}
	for (unsigned i = 0; i < f->n; i++)
		f->ptr[i] = f->buf + f->off[reverse ? f->n - 1 - i : i];
	return f->ptr;
}

static void frames_fini(struct frames *f)
{
	free(f->buf);
	free(f->off);
	free(f->ptr);
}

static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	if (!n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static int all_digits(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

static int all_hex(const char *s, size_t n)
{
	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Length of s[0..n) without a trailing "+0x1f" offset. */
static size_t strip_offset(const char *s, size_t n)
{
	for (size_t i = n; i-- > 0;) {
		if (s[i] == '+') {
			if (i + 2 < n && s[i + 1] == '0' && s[i + 2] == 'x' &&
			    all_hex(s + i + 3, n - i - 3))
				return i;
			return n;
		}
	}
	return n;
}

/* ---- window handling ------------------------------------------------------- */

struct import_ctx {
	const char *name;
	struct profile *p;
	unsigned first_win, cur_win;
	enum cond cond;
	unsigned cur_added;         /* stack lines added to cur_win */
	int cur_secs_set;
	struct import_info *info;
	char **cause;
};

/* "# argus-window secs=S cond=ref|load [start=S]" */
static int window_header(struct import_ctx *c, const struct line *l)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	double secs = -1, start = -1;
	int cond = -1;

	s += strlen("# argus-window");
	while (s < end) {
		while (s < end && is_blank(*s))
			s++;
		if (s >= end)
			break;
		const char *w = s;
		while (s < end && !is_blank(*s))
			s++;
		size_t wn = (size_t)(s - w);
		const char *eq = memchr(w, '=', wn);
		if (!eq)
			goto bad;
		size_t kn = (size_t)(eq - w), vn = wn - kn - 1;
		char v[64];
		if (vn == 0 || vn >= sizeof(v))
			goto bad;
		memcpy(v, eq + 1, vn);
		v[vn] = 0;
		if (kn == 4 && !memcmp(w, "secs", 4)) {
			char *e;
			secs = strtod(v, &e);
			if (*e || !(secs > 0) || secs > 1e9)
				goto bad;
		} else if (kn == 5 && !memcmp(w, "start", 5)) {
			char *e;
			start = strtod(v, &e);
			if (*e || !(start >= 0) || start > 1e12)
				goto bad;
		} else if (kn == 4 && !memcmp(w, "cond", 4)) {
			if (!strcmp(v, "ref"))
				cond = COND_REF;
			else if (!strcmp(v, "load"))
				cond = COND_LOAD;
			else
				goto bad;
		} /* other keys: later versions; ignored */
	}
	if (cond >= 0 && (enum cond)cond != c->cond)
		return util_fail(c->cause, -EINVAL,
				 "%s:%u: window says cond=%s but this file is read as the %s profile",
				 c->name, l->no, cond_name((enum cond)cond), cond_name(c->cond));
	if (c->cur_added || c->cur_secs_set) {
		/* a further window of the same condition */
		int w = profile_window_begin(c->p, c->cond, start >= 0 ? start : 0);
		if (w < 0)
			return util_fail(c->cause, w, "%s:%u: cannot open another window: %s",
					 c->name, l->no, strerror(-w));
		if (!c->cur_secs_set)
			profile_window_end(c->p, c->cur_win, 1.0);
		c->cur_win = (unsigned)w;
		c->cur_added = 0;
		c->cur_secs_set = 0;
		if (c->info)
			c->info->windows++;
	} else if (start >= 0) {
		c->p->wins[c->cur_win].start_s = start;
	}
	if (secs > 0) {
		profile_window_end(c->p, c->cur_win, secs);
		c->cur_secs_set = 1;
		if (c->info && c->cur_win == c->first_win) {
			c->info->secs_known = 1;
			c->info->secs = secs;
		}
	}
	return 0;
bad:
	quote(l->s, l->len, q, sizeof(q));
	return util_fail(c->cause, -EINVAL,
			 "%s:%u: expected '# argus-window secs=S cond=ref|load', got '%s'",
			 c->name, l->no, q);
}

/* ---- folded ------------------------------------------------------------------ */

static int folded_line(struct import_ctx *c, const struct line *l, struct frames *f)
{
	char q[80];
	const char *s = l->s;
	size_t n = l->len, i;
	uint64_t count;
	int err;

	/* the count: the last blank-separated token */
	for (i = n; i > 0 && !is_blank(s[i - 1]); i--)
		;
	if (i == 0)
		goto bad;
	err = parse_u64(s + i, n - i, &count);
	if (err == -ERANGE) {
		quote(s + i, n - i, q, sizeof(q));
		return util_fail(c->cause, -EINVAL, "%s:%u: count '%s' is too large",
				 c->name, l->no, q);
	}
	if (err)
		goto bad;
	size_t sn = i;
	while (sn && is_blank(s[sn - 1]))
		sn--;
	if (!sn)
		goto bad;

	/* frames; with "_[k]" annotations keep the kernel ones only */
	int annotated = 0;
	for (size_t a = 0; a + 4 <= sn; a++)
		if (!memcmp(s + a, "_[k]", 4) && (a + 4 == sn || s[a + 4] == ';')) {
			annotated = 1;
			break;
		}
	frames_reset(f);
	size_t b = 0;
	while (b <= sn) {
		const char *semi = memchr(s + b, ';', sn - b);
		size_t e = semi ? (size_t)(semi - s) : sn;
		size_t fb = b, fe = e;
		while (fb < fe && is_blank(s[fb]))
			fb++;
		while (fe > fb && is_blank(s[fe - 1]))
			fe--;
		if (fe == fb)
			return util_fail(c->cause, -EINVAL,
					 "%s:%u: empty frame in the stack (';' at an end or ';;')",
					 c->name, l->no);
		if (!annotated || (fe - fb > 4 && !memcmp(s + fe - 4, "_[k]", 4))) {
			size_t len = annotated ? fe - fb - 4 : fe - fb;
			err = frames_push(f, s + fb, len);
			if (err == -E2BIG)
				return util_fail(c->cause, -EINVAL, "%s:%u: more than %d frames in one stack",
						 c->name, l->no, IMPORT_MAX_FRAMES);
			if (err)
				return util_fail(c->cause, err, "%s:%u: %s", c->name, l->no, strerror(-err));
		}
		b = e + 1;
	}
	if (c->info)
		c->info->stacks++;
	if (!count || !f->n)
		return 0;
	const char **fp = frames_ptrs(f, 0);
	if (!fp)
		return util_fail(c->cause, -ENOMEM, "%s:%u: out of memory", c->name, l->no);
	err = profile_add(c->p, c->cur_win, fp, f->n, 0, NULL, count);
	if (err)
		return util_fail(c->cause, err, "%s:%u: cannot add the stack: %s",
				 c->name, l->no, strerror(-err));
	c->cur_added++;
	if (c->info)
		c->info->samples += count;
	return 0;
bad:
	quote(s, l->raw_len, q, sizeof(q));
	return util_fail(c->cause, -EINVAL, "%s:%u: expected 'frames COUNT', got '%s'",
			 c->name, l->no, q);
}

static int import_folded(struct import_ctx *c, struct reader *r)
{
	struct frames f = { 0 };
	struct line l;
	int err = 0;

	while (reader_next(r, &l)) {
		if (c->info)
			c->info->lines++;
		if (!l.len)
			continue;
		if (l.s[0] == '#') {
			if (l.len >= 14 && !memcmp(l.s, "# argus-window", 14) &&
			    (l.len == 14 || is_blank(l.s[14]))) {
				err = window_header(c, &l);
				if (err)
					goto out;
			}
			continue;
		}
		err = folded_line(c, &l, &f);
		if (err)
			goto out;
	}
out:
	frames_fini(&f);
	return err;
}

/* ---- perf script --------------------------------------------------------------- */

struct perf_sample {
	int open;
	unsigned line;        /* of the header */
	uint32_t tgid;
	char comm[64];
	unsigned nframes;     /* all frames seen */
	struct frames kf;     /* kernel frames, leaf first */
};

struct perf_state {
	double t_min, t_max;
	int have_t;
	double period_s;      /* cpu-clock period in seconds, 0 unknown */
};

static int perf_flush(struct import_ctx *c, struct perf_sample *smp)
{
	int err;

	if (!smp->open)
		return 0;
	smp->open = 0;
	if (c->info)
		c->info->stacks++;
	if (!smp->kf.n) {
		if (c->info)
			c->info->user_only++;
		return 0;
	}
	const char **fp = frames_ptrs(&smp->kf, 1);
	if (!fp)
		return util_fail(c->cause, -ENOMEM, "%s:%u: out of memory", c->name, smp->line);
	err = profile_add(c->p, c->cur_win, fp, smp->kf.n, smp->tgid, smp->comm, 1);
	if (err)
		return util_fail(c->cause, err, "%s:%u: cannot add the sample: %s",
				 c->name, smp->line, strerror(-err));
	c->cur_added++;
	if (c->info)
		c->info->samples++;
	return 0;
}

/* Header: "comm pid[/tid] [cpu] time: [period] event: [rest]" — the fields
 * are those perf script -F chose; comm may hold spaces. */
static int perf_header(struct import_ctx *c, const struct line *l,
		       struct perf_sample *smp, struct perf_state *st)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	const char *tok[64];
	size_t tlen[64];
	unsigned nt = 0;

	while (s < end && nt < 64) {
		while (s < end && is_blank(*s))
			s++;
		if (s >= end)
			break;
		tok[nt] = s;
		while (s < end && !is_blank(*s))
			s++;
		tlen[nt] = (size_t)(s - tok[nt]);
		nt++;
	}
	int pid_i = -1, colon_i = -1;
	for (unsigned i = 0; i < nt; i++)
		if (tlen[i] > 1 && tok[i][tlen[i] - 1] == ':') {
			colon_i = (int)i;
			break;
		}
	if (colon_i < 0)
		goto bad;
	/* the pid: the last "N" or "N/M" token before the first of perf's own
	 * fields ("[cpu]", "time:", "event:"); the comm before it may hold
	 * spaces and even numbers ("Web 2 Content  812/815 [001] ...") */
	int limit = colon_i;
	for (int i = 0; i < colon_i; i++)
		if (tlen[i] > 2 && tok[i][0] == '[' && tok[i][tlen[i] - 1] == ']' &&
		    all_digits(tok[i] + 1, tlen[i] - 2)) {
			limit = i;
			break;
		}
	for (int i = limit - 1; i >= 0 && pid_i < 0; i--) {
		const char *slash = memchr(tok[i], '/', tlen[i]);
		size_t a = slash ? (size_t)(slash - tok[i]) : tlen[i];
		if (all_digits(tok[i], a) && (!slash || all_digits(slash + 1, tlen[i] - a - 1)))
			pid_i = i;
	}
	smp->tgid = 0;
	smp->comm[0] = 0;
	if (pid_i >= 0) {
		uint64_t v;
		const char *slash = memchr(tok[pid_i], '/', tlen[pid_i]);
		size_t a = slash ? (size_t)(slash - tok[pid_i]) : tlen[pid_i];
		if (parse_u64(tok[pid_i], a, &v) || v > UINT32_MAX)
			goto bad;
		smp->tgid = (uint32_t)v;
		size_t cn = (size_t)(tok[pid_i] - l->s);
		while (cn && is_blank(l->s[cn - 1]))
			cn--;
		if (cn >= sizeof(smp->comm))
			cn = sizeof(smp->comm) - 1;
		memcpy(smp->comm, l->s, cn);
		smp->comm[cn] = 0;
	} else {
		/* no pid: everything before the first field that is clearly
		 * perf's (a [cpu] or the time) is the comm */
		size_t cn = (size_t)(tok[colon_i] - l->s);
		for (int i = 0; i < colon_i; i++)
			if (tok[i][0] == '[') {
				cn = (size_t)(tok[i] - l->s);
				break;
			}
		while (cn && is_blank(l->s[cn - 1]))
			cn--;
		if (cn >= sizeof(smp->comm))
			cn = sizeof(smp->comm) - 1;
		memcpy(smp->comm, l->s, cn);
		smp->comm[cn] = 0;
	}
	/* time stamp "123.456789:" and, for cpu-clock, the period in ns */
	for (unsigned i = (unsigned)colon_i; i < nt; i++) {
		const char *t = tok[i];
		size_t n = tlen[i];
		if (n < 3 || t[n - 1] != ':')
			continue;
		const char *dot = memchr(t, '.', n);
		if (dot && all_digits(t, (size_t)(dot - t)) &&
		    all_digits(dot + 1, n - (size_t)(dot - t) - 2)) {
			char b[40];
			if (n - 1 < sizeof(b)) {
				memcpy(b, t, n - 1);
				b[n - 1] = 0;
				double ts = strtod(b, NULL);
				if (!st->have_t || ts < st->t_min)
					st->t_min = ts;
				if (!st->have_t || ts > st->t_max)
					st->t_max = ts;
				st->have_t = 1;
			}
			if (i + 2 < nt && all_digits(tok[i + 1], tlen[i + 1]) &&
			    ((tlen[i + 2] >= 10 && !memcmp(tok[i + 2], "cpu-clock:", 10)) ||
			     (tlen[i + 2] >= 11 && !memcmp(tok[i + 2], "task-clock:", 11)))) {
				uint64_t ns;
				if (!parse_u64(tok[i + 1], tlen[i + 1], &ns) && ns < 10000000000ull)
					st->period_s = (double)ns / 1e9;
			}
			break;
		}
	}
	smp->open = 1;
	smp->line = l->no;
	smp->nframes = 0;
	frames_reset(&smp->kf);
	return 0;
bad:
	quote(l->s, l->raw_len, q, sizeof(q));
	return util_fail(c->cause, -EINVAL,
			 "%s:%u: expected a perf script sample header 'comm pid [cpu] time: event:', got '%s'",
			 c->name, l->no, q);
}

static int user_dso(const char *d, size_t n)
{
	static const char *const names[] = {
		"[unknown]", "[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]", "[heap]",
		"[stack]", "[uprobes]", "[vectors]", "[sigpage]", "[jit]",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !memcmp(d, names[i], n))
			return 1;
	return n >= 5 && !memcmp(d, "[anon", 5);
}

/* Module name of a dso that is a kernel module: "[nf_tables]" or
 * ".../nf_tables.ko[.xz|.gz|.zst]"; writes it to mod, returns its length or
 * 0 when the dso is no module. */
static size_t module_dso(const char *d, size_t n, char *mod, size_t modlen)
{
	size_t a, b;
	if (n > 2 && d[0] == '[' && d[n - 1] == ']') {
		a = 1;
		b = n - 1;
	} else {
		const char *ko = NULL;
		for (size_t i = 0; i + 3 <= n; i++)
			if (!memcmp(d + i, ".ko", 3) && (i + 3 == n || d[i + 3] == '.'))
				ko = d + i;
		if (!ko)
			return 0;
		b = (size_t)(ko - d);
		a = b;
		while (a && d[a - 1] != '/')
			a--;
	}
	if (b <= a || b - a >= modlen)
		return 0;
	memcpy(mod, d + a, b - a);
	mod[b - a] = 0;
	return b - a;
}

/* One call-chain line: "addr sym+off (dso)", any part but sym optional. */
static int perf_frame(struct import_ctx *c, const struct line *l, struct perf_sample *smp)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	int err;

	if (!smp->open) {
		quote(l->s, l->raw_len, q, sizeof(q));
		return util_fail(c->cause, -EINVAL,
				 "%s:%u: call-chain line outside a sample (no 'comm pid ... event:' header above it): '%s'",
				 c->name, l->no, q);
	}
	while (s < end && is_blank(*s))
		s++;
	/* address */
	const char *a = s;
	while (s < end && !is_blank(*s))
		s++;
	const char *addr = NULL;
	size_t addr_n = 0;
	if (all_hex(a, (size_t)(s - a)) && s < end) {
		addr = a;
		addr_n = (size_t)(s - a);
		while (s < end && is_blank(*s))
			s++;
	} else {
		s = a;
	}
	/* dso, in parentheses at the end */
	const char *dso = NULL, *sym_end = end;
	size_t dso_n = 0;
	if (end > s && end[-1] == ')') {
		for (const char *p = end - 1; p > s; p--)
			if (*p == '(' && is_blank(p[-1])) {
				dso = p + 1;
				dso_n = (size_t)(end - 1 - dso);
				sym_end = p;
				break;
			}
		if (!dso && *s == '(') { /* only a dso, no symbol */
			dso = s + 1;
			dso_n = (size_t)(end - 1 - dso);
			sym_end = s;
		}
	}
	while (sym_end > s && is_blank(sym_end[-1]))
		sym_end--;
	size_t sym_n = (size_t)(sym_end - s);
	if (!addr && !sym_n) {
		quote(l->s, l->raw_len, q, sizeof(q));
		return util_fail(c->cause, -EINVAL,
				 "%s:%u: expected a call-chain frame 'address symbol (dso)', got '%s'",
				 c->name, l->no, q);
	}
	smp->nframes++;

	/* kernel or user? */
	int kernel = 0;
	char mod[64];
	size_t mod_n = 0;
	uint64_t av = 0;
	if (addr && addr_n <= 16) {
		for (size_t i = 0; i < addr_n; i++)
			av = av << 4 | (uint64_t)(isdigit((unsigned char)addr[i]) ? addr[i] - '0' :
						  (tolower((unsigned char)addr[i]) - 'a' + 10));
	}
	/* x86_64 and arm64 kernels live at 0xffff8... and above; user stacks
	 * walked by frame pointers yield junk like 0xdfdfdfdf00000000 */
	int high = addr && addr_n == 16 && av >= 0xffff800000000000ull;
	if (dso) {
		if (dso_n >= 17 && !memcmp(dso, "[kernel.kallsyms]", 17))
			kernel = 1;
		else if (dso_n >= 23 && !memcmp(dso, "[guest.kernel.kallsyms]", 23))
			kernel = 1;
		else if (user_dso(dso, dso_n))
			kernel = high;
		else if ((mod_n = module_dso(dso, dso_n, mod, sizeof(mod))))
			kernel = 1;
	} else {
		kernel = addr ? high : 1;
	}
	if (!kernel)
		return 0;

	char name[512];
	size_t nn;
	sym_n = strip_offset(s, sym_n);
	if (!sym_n || (sym_n == 9 && !memcmp(s, "[unknown]", 9))) {
		if (!addr)
			return 0;
		nn = (size_t)snprintf(name, sizeof(name), "0x%016llx", (unsigned long long)av);
	} else {
		if (sym_n > 400)
			sym_n = 400;
		memcpy(name, s, sym_n);
		nn = sym_n;
		if (mod_n)
			nn += (size_t)snprintf(name + nn, sizeof(name) - nn, " [%s]", mod);
	}
	err = frames_push(&smp->kf, name, nn);
	if (err == -E2BIG)
		return util_fail(c->cause, -EINVAL, "%s:%u: more than %d frames in one sample",
				 c->name, l->no, IMPORT_MAX_FRAMES);
	if (err)
		return util_fail(c->cause, err, "%s:%u: %s", c->name, l->no, strerror(-err));
	return 0;
}

static int import_perf(struct import_ctx *c, struct reader *r)
{
	struct perf_sample smp = { 0 };
	struct perf_state st = { 0 };
	struct line l;
	int err = 0;

	while (reader_next(r, &l)) {
		if (c->info)
			c->info->lines++;
		if (!l.len) {
			err = perf_flush(c, &smp);
		} else if (l.s[0] == '#') {
			continue;
		} else if (is_blank(l.s[0])) {
			err = perf_frame(c, &l, &smp);
		} else {
			err = perf_flush(c, &smp);
			if (!err)
				err = perf_header(c, &l, &smp, &st);
		}
		if (err)
			goto out;
	}
	err = perf_flush(c, &smp);
	if (err)
		goto out;
	if (st.have_t && st.t_max > st.t_min && !c->cur_secs_set) {
		double secs = st.t_max - st.t_min + st.period_s;
		profile_window_end(c->p, c->cur_win, secs);
		c->cur_secs_set = 1;
		if (c->info) {
			c->info->secs_known = 1;
			c->info->secs = secs;
		}
	}
out:
	frames_fini(&smp.kf);
	return err;
}

/* ---- entry points ---------------------------------------------------------------- */

enum import_format import_detect(const char *buf, size_t len)
{
	struct reader r = { .buf = buf, .len = len };
	struct line l, first = { 0 };
	int seen = 0, second_indented = 0;

	while (reader_next(&r, &l)) {
		if (!l.len || l.s[0] == '#')
			continue;
		if (!seen && is_blank(l.s[0]))
			return IMPORT_PERF_SCRIPT;
		if (seen++) {
			second_indented = is_blank(l.s[0]);
			break;
		}
		first = l;
	}
	if (!seen)
		return IMPORT_UNKNOWN;
	size_t i = first.len;
	while (i && !is_blank(first.s[i - 1]))
		i--;
	int counted = i && all_digits(first.s + i, first.len - i);
	if (counted && (memchr(first.s, ';', first.len) || !second_indented))
		return IMPORT_FOLDED;
	for (size_t k = 1; k < first.len; k++)
		if (first.s[k] == ':' && (k + 1 == first.len || is_blank(first.s[k + 1])))
			return IMPORT_PERF_SCRIPT;
	return second_indented ? IMPORT_PERF_SCRIPT : IMPORT_UNKNOWN;
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
	struct reader r = { .buf = buf, .len = len };
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
	const char *nul = len ? memchr(buf, 0, len) : NULL;
	if (nul)
		return util_fail(cause, -EINVAL,
				 "%s: binary data (a NUL byte at offset %zu); expected folded stacks or perf script text",
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
		struct line l = { 0 };
		int any = 0;
		while (reader_next(&r, &l))
			if (l.len && l.s[0] != '#') {
				any = 1;
				break;
			}
		if (!any)
			return util_fail(cause, -EINVAL, "%s: no stacks in the file (it is empty or only comments)",
					 c.name);
		quote(l.s, l.raw_len, q, sizeof(q));
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
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return util_fail(cause, -errno, "cannot open %s: %s", path, strerror(errno));
	for (;;) {
		if (len == cap) {
			if (cap >= IMPORT_MAX_FILE) {
				err = util_fail(cause, -EFBIG, "%s: larger than %llu bytes; not a stack file",
						path, IMPORT_MAX_FILE);
				goto out;
			}
			cap = cap ? cap * 2 : 65536;
			char *b = realloc(buf, cap);
			if (!b) {
				err = util_fail(cause, -ENOMEM, "%s: out of memory", path);
				goto out;
			}
			buf = b;
		}
		ssize_t n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = util_fail(cause, -errno, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		len += (size_t)n;
	}
	err = import_buf(path, buf ? buf : "", len, p, win, info, cause);
out:
	close(fd);
	free(buf);
	return err;
}

int import_file(const char *path, struct profile *p, unsigned win, char **cause)
{
	return import_file_info(path, p, win, NULL, cause);
}
