/* import_perf — perf script text (sample headers, then indented frames)
 * into a profile window (the format: import.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/import_int.h"
#include "base/sanitize.h"
#include "base/util.h"

struct perf_sample {
	int open;
	unsigned line;        /* of the header */
	uint32_t tgid;
	char comm[64];
	unsigned nframes;     /* all frames seen */
	struct import_frames kf;     /* kernel frames, leaf first */
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
	const char **fp = import_frames_ptrs(&smp->kf, 1);
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
static int perf_header(struct import_ctx *c, const struct import_line *l,
		       struct perf_sample *smp, struct perf_state *st)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	const char *tok[64];
	size_t tlen[64];
	unsigned nt = 0;

	while (s < end && nt < 64) {
		while (s < end && import_is_blank(*s))
			s++;
		if (s >= end)
			break;
		tok[nt] = s;
		while (s < end && !import_is_blank(*s))
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
		    import_all_digits(tok[i] + 1, tlen[i] - 2)) {
			limit = i;
			break;
		}
	for (int i = limit - 1; i >= 0 && pid_i < 0; i--) {
		const char *slash = memchr(tok[i], '/', tlen[i]);
		size_t a = slash ? (size_t)(slash - tok[i]) : tlen[i];
		if (import_all_digits(tok[i], a) && (!slash || import_all_digits(slash + 1, tlen[i] - a - 1)))
			pid_i = i;
	}
	smp->tgid = 0;
	smp->comm[0] = 0;
	if (pid_i >= 0) {
		uint64_t v;
		const char *slash = memchr(tok[pid_i], '/', tlen[pid_i]);
		size_t a = slash ? (size_t)(slash - tok[pid_i]) : tlen[pid_i];
		if (import_parse_u64(tok[pid_i], a, &v) || v > UINT32_MAX)
			goto bad;
		smp->tgid = (uint32_t)v;
		size_t cn = (size_t)(tok[pid_i] - l->s);
		while (cn && import_is_blank(l->s[cn - 1]))
			cn--;
		if (cn >= sizeof(smp->comm))
			cn = sizeof(smp->comm) - 1;
		memcpy(smp->comm, l->s, cn);
		smp->comm[cn] = 0;
		if (!sanitize_is_clean(smp->comm, 0)) {
			char raw[sizeof(smp->comm)];

			memcpy(raw, smp->comm, sizeof(raw));
			sanitize_into(smp->comm, sizeof(smp->comm), raw, 0);
		}
	} else {
		/* no pid: everything before the first field that is clearly
		 * perf's (a [cpu] or the time) is the comm */
		size_t cn = (size_t)(tok[colon_i] - l->s);
		for (int i = 0; i < colon_i; i++)
			if (tok[i][0] == '[') {
				cn = (size_t)(tok[i] - l->s);
				break;
			}
		while (cn && import_is_blank(l->s[cn - 1]))
			cn--;
		if (cn >= sizeof(smp->comm))
			cn = sizeof(smp->comm) - 1;
		memcpy(smp->comm, l->s, cn);
		smp->comm[cn] = 0;
		if (!sanitize_is_clean(smp->comm, 0)) {
			char raw[sizeof(smp->comm)];

			memcpy(raw, smp->comm, sizeof(raw));
			sanitize_into(smp->comm, sizeof(smp->comm), raw, 0);
		}
	}
	/* time stamp "123.456789:" and, for cpu-clock, the period in ns */
	for (unsigned i = (unsigned)colon_i; i < nt; i++) {
		const char *t = tok[i];
		size_t n = tlen[i];
		if (n < 3 || t[n - 1] != ':')
			continue;
		const char *dot = memchr(t, '.', n);
		if (dot && import_all_digits(t, (size_t)(dot - t)) &&
		    import_all_digits(dot + 1, n - (size_t)(dot - t) - 2)) {
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
			if (i + 2 < nt && import_all_digits(tok[i + 1], tlen[i + 1]) &&
			    ((tlen[i + 2] >= 10 && !memcmp(tok[i + 2], "cpu-clock:", 10)) ||
			     (tlen[i + 2] >= 11 && !memcmp(tok[i + 2], "task-clock:", 11)))) {
				uint64_t ns;
				if (!import_parse_u64(tok[i + 1], tlen[i + 1], &ns) && ns < 10000000000ull)
					st->period_s = (double)ns / 1e9;
			}
			break;
		}
	}
	smp->open = 1;
	smp->line = l->no;
	smp->nframes = 0;
	import_frames_reset(&smp->kf);
	return 0;
bad:
	import_quote(l->s, l->raw_len, q, sizeof(q));
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
static int perf_frame(struct import_ctx *c, const struct import_line *l, struct perf_sample *smp)
{
	char q[80];
	const char *s = l->s, *end = l->s + l->len;
	int err;

	if (!smp->open) {
		import_quote(l->s, l->raw_len, q, sizeof(q));
		return util_fail(c->cause, -EINVAL,
				 "%s:%u: call-chain line outside a sample (no 'comm pid ... event:' header above it): '%s'",
				 c->name, l->no, q);
	}
	while (s < end && import_is_blank(*s))
		s++;
	/* address */
	const char *a = s;
	while (s < end && !import_is_blank(*s))
		s++;
	const char *addr = NULL;
	size_t addr_n = 0;
	if (import_all_hex(a, (size_t)(s - a)) && s < end) {
		addr = a;
		addr_n = (size_t)(s - a);
		while (s < end && import_is_blank(*s))
			s++;
	} else {
		s = a;
	}
	/* dso, in parentheses at the end */
	const char *dso = NULL, *sym_end = end;
	size_t dso_n = 0;
	if (end > s && end[-1] == ')') {
		for (const char *p = end - 1; p > s; p--)
			if (*p == '(' && import_is_blank(p[-1])) {
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
	while (sym_end > s && import_is_blank(sym_end[-1]))
		sym_end--;
	size_t sym_n = (size_t)(sym_end - s);
	if (!addr && !sym_n) {
		import_quote(l->s, l->raw_len, q, sizeof(q));
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
	sym_n = import_strip_offset(s, sym_n);
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
	err = import_frames_push(&smp->kf, name, nn);
	if (err == -E2BIG)
		return util_fail(c->cause, -EINVAL, "%s:%u: more than %d frames in one sample",
				 c->name, l->no, IMPORT_MAX_FRAMES);
	if (err)
		return util_fail(c->cause, err, "%s:%u: %s", c->name, l->no, strerror(-err));
	return 0;
}

int import_perf(struct import_ctx *c, struct import_reader *r)
{
	struct perf_sample smp = { 0 };
	struct perf_state st = { 0 };
	struct import_line l;
	int err = 0;

	while (import_reader_next(r, &l)) {
		if (c->info)
			c->info->lines++;
		if (!l.len) {
			err = perf_flush(c, &smp);
		} else if (l.s[0] == '#') {
			continue;
		} else if (import_is_blank(l.s[0])) {
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
	import_frames_fini(&smp.kf);
	return err;
}
