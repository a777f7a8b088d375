/* pprof_read — profile.proto (gzipped or not) into profile windows (see
 * pprof.h).  core/pprof_dec does the decoding; here: which frames are the
 * kernel's, their names, argus's windows, and the samples. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/pb.h"
#include "data/pprof.h"
#include "data/pprof_dec.h"
#include "base/util.h"
#include "base/vec.h"

#define PR_MAX_WINDOWS 4096   /* argus-window comments honoured */

/* ---- kernel marks ----------------------------------------------------------------- */

static int pr_user_pseudo(const uint8_t *d, size_t n)
{
	static const char *const names[] = {
		"[unknown]", "[vdso]", "[vdso32]", "[vdsox32]", "[vsyscall]", "[heap]",
		"[stack]", "[uprobes]", "[vectors]", "[sigpage]", "[jit]", "[vvar]",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !memcmp(d, names[i], n))
			return 1;
	return n >= 5 && !memcmp(d, "[anon", 5);
}

/* 1 core kernel, 2 module (name in mod), 0 other */
static int pr_map_kind(const struct pd_slice *f, char *mod, size_t modlen)
{
	const uint8_t *d = f->p;
	size_t n = f->n;

	mod[0] = 0;
	if ((n >= 7 && !memcmp(d, "[kernel", 7)) || (n >= 23 && !memcmp(d, "[guest.kernel.kallsyms]", 23)) ||
	    (n == 8 && !memcmp(d, "vmlinux", 7)) || (n > 8 && !memcmp(d + n - 8, "/vmlinux", 8)))
		return 1;
	if (n > 2 && d[0] == '[' && d[n - 1] == ']') {
		if (pr_user_pseudo(d, n) || n - 2 >= modlen)
			return 0;
		for (size_t i = 1; i + 1 < n; i++)
			if (!((d[i] >= 'a' && d[i] <= 'z') || (d[i] >= 'A' && d[i] <= 'Z') ||
			      (d[i] >= '0' && d[i] <= '9') || d[i] == '_' || d[i] == '-'))
				return 0;
		memcpy(mod, d + 1, n - 2);
		mod[n - 2] = 0;
		return 2;
	}
	/* .../name.ko, .ko.xz, .ko.gz, .ko.zst */
	for (size_t i = 0; i + 3 <= n; i++)
		if (!memcmp(d + i, ".ko", 3) && (i + 3 == n || d[i + 3] == '.')) {
			size_t a = i;
			while (a && d[a - 1] != '/')
				a--;
			if (i > a && i - a < modlen) {
				for (size_t k = a; k < i; k++)
					mod[k - a] = d[k] == '-' ? '_' : (char)d[k];
				mod[i - a] = 0;
				return 2;
			}
		}
	return 0;
}

static int pr_name_marked(const struct pd_slice *s)
{
	return s->n > 4 && !memcmp(s->p + s->n - 4, "_[k]", 4);
}

/* Marks locations kernel; returns how many are. */
static size_t pr_marks(struct pd *r)
{
	size_t marked = 0;
	char mod[64];

	for (size_t i = 0; i < r->nmaps; i++)
		r->maps[i].kernel = pr_map_kind(&r->strs.a[r->maps[i].file], mod, sizeof(mod));
	for (size_t i = 0; i < r->nlocs; i++) {
		struct pd_loc *l = &r->locs[i];
		struct pd_map *m = l->mapping ? pprof_dec_find(r->maps, r->nmaps, sizeof(*m), l->mapping) : NULL;

		if (m && m->kernel) {
			l->kernel = 1;
			if (m->kernel == 2)
				l->module = (int)(m - r->maps) + 1;
		} else if ((!m || !r->strs.a[m->file].n) && l->address >= 0xffff800000000000ull) {
			l->kernel = 1;
		} else {
			for (size_t k = 0; k < l->nlines && !l->kernel; k++) {
				struct pd_func *fn = pprof_dec_find(r->funcs, r->nfuncs, sizeof(*fn), r->lines[l->line0 + k]);
				if (fn && pr_name_marked(&r->strs.a[fn->name]))
					l->kernel = 1;
			}
			l->user = !l->kernel && m && r->strs.a[m->file].n;
		}
		marked += l->kernel;
	}
	return marked;
}

/* The user-space files' mappings with a full path into p's module table
 * (issue 27), keyed by the base name the user frames use, with their
 * build-ids: what argus wrote comes back.  0 or -ENOMEM. */
static int pr_modules(const struct pd *r, struct profile *p)
{
	for (size_t i = 0; i < r->nmaps; i++) {
		const struct pd_map *m = &r->maps[i];
		const struct pd_slice *f = &r->strs.a[m->file];
		const struct pd_slice *b = &r->strs.a[m->build_id];
		char path[PPROF_MAX_NAME], bid[PPROF_MAX_NAME], mod[64];
		const char *base;
		int err;

		/* a path, not a pseudo-mapping or a kernel module's file */
		if (pr_map_kind(f, mod, sizeof(mod)) || f->n < 2 || f->p[0] != '/' || f->n >= sizeof(path) ||
		    b->n >= sizeof(bid) || memchr(f->p, 0, f->n) || memchr(b->p, 0, b->n))
			continue;
		memcpy(path, f->p, f->n);
		path[f->n] = 0;
		memcpy(bid, b->p, b->n);
		bid[b->n] = 0;
		base = strrchr(path, '/') + 1;
		if (!*base)
			continue;
		err = profile_module_set(p, base, path, bid);
		if (err)
			return err;
	}
	return 0;
}

/* ---- names ------------------------------------------------------------------------ */

/* A printable frame name from s (cut, control characters escaped, the
 * "_[k]" mark dropped, " [module]" added); returns its length. */
static size_t pr_name(char *out, size_t outlen, const struct pd_slice *s, const char *mod)
{
	size_t n = s->n, o = 0;

	if (pr_name_marked(s))
		n -= 4;
	if (n > PPROF_MAX_NAME)
		n = PPROF_MAX_NAME;
	for (size_t i = 0; i < n && o + 5 < outlen; i++) {
		unsigned char c = s->p[i];
		if (c < 0x20 || c == 0x7f || c == '\\') {
			o += (size_t)snprintf(out + o, outlen - o, c == '\\' ? "\\\\" : "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = 0;
	if (mod && *mod && !(o && out[o - 1] == ']'))
		o += (size_t)snprintf(out + o, outlen - o, " [%s]", mod);
	return o < outlen ? o : outlen - 1;
}

/* ---- windows from argus's comments -------------------------------------------------- */

struct pr_win {
	long index;            /* the writer's window index */
	enum cond cond;
	double secs, start;
	uint64_t lost;
	uint64_t ustack_errors; /* samples without their user stack */
	int pw;                /* profile window it fills, -1 none yet */
};

static int pr_comment_window(const struct pd_slice *s, struct pr_win *w)
{
	char b[200], *save = NULL;

	if (s->n < 13 || s->n >= sizeof(b) || memcmp(s->p, "argus-window ", 13))
		return 0;
	memcpy(b, s->p, s->n);
	b[s->n] = 0;
	memset(w, 0, sizeof(*w));
	w->index = -1;
	w->cond = COND_N;
	w->pw = -1;
	for (char *t = strtok_r(b + 13, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *e;
		if (!strncmp(t, "index=", 6)) {
			w->index = strtol(t + 6, &e, 10);
			if (*e || w->index < 0)
				return 0;
		} else if (!strncmp(t, "cond=", 5)) {
			w->cond = !strcmp(t + 5, "ref") ? COND_REF : !strcmp(t + 5, "load") ? COND_LOAD : COND_N;
		} else if (!strncmp(t, "secs=", 5)) {
			w->secs = strtod(t + 5, &e);
			if (*e || !(w->secs > 0) || w->secs > 1e9)
				return 0;
		} else if (!strncmp(t, "start=", 6)) {
			w->start = strtod(t + 6, &e);
			if (*e || !(w->start >= 0) || w->start > 1e12)
				w->start = 0;
		} else if (!strncmp(t, "lost=", 5)) {
			w->lost = strtoull(t + 5, &e, 10);
		} else if (!strncmp(t, "ustack_errors=", 14)) {
			w->ustack_errors = strtoull(t + 14, &e, 10);
		}
	}
	return w->index >= 0 && w->cond != COND_N && w->secs > 0;
}

/* ---- samples --------------------------------------------------------------------- */

struct pr_sample_ctx {
	struct pd *r;
	uint64_t *ids;
	size_t nids, cap;
};

static int pr_collect_id(void *arg, uint64_t v)
{
	struct pr_sample_ctx *c = arg;
	int err;

	if (c->nids >= 65536)
		return -E2BIG;
	err = vec_grow(&c->ids, &c->cap, c->nids + 1, sizeof(*c->ids));
	if (err)
		return err;
	c->ids[c->nids++] = v;
	return 0;
}

struct pr_values {
	uint64_t v[16];
	unsigned n;
	int neg;
};

static int pr_collect_value(void *arg, uint64_t v)
{
	struct pr_values *pv = arg;

	if ((int64_t)v < 0)
		pv->neg = 1;
	if (pv->n < 16)
		pv->v[pv->n] = v;
	pv->n++;
	return 0;
}

/* The sample types of argus's time accounting and the frames they stand
 * for (core/model/timeacct.h; pprof.h says how they are written). */
static const char *const pr_kind_type[3] = { "cpu", "blocked", "runnable" };
static const char *const pr_kind_frame[3] = { "[on-cpu]", "[blocked]", "[runnable]" };

/* The marker frames a waker (blocked) or ran_instead label w stands for,
 * leaf first, into names / frames (room for 3); returns how many.  The
 * inverse of pprof_write's pw_who: "X" -> [woken by X] ("no wakeup seen",
 * "still ..." -> [...]); "cgroup /x, COMM (tgid T)" -> [tgid T],
 * [ran instead: COMM], [ran instead: cgroup /x]. */
static unsigned pr_who_frames(int blocked, const struct pd_slice *w,
			      char (*names)[PPROF_MAX_NAME + 80], const char **frames)
{
	char v[PPROF_MAX_NAME];
	size_t n = w->n < sizeof(v) - 1 ? w->n : sizeof(v) - 1;
	unsigned k = 0;
	char *t, *c;

	memcpy(v, w->p, n);
	v[n] = 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
			v[i] = '?';
	if (blocked || !strcmp(v, "idle") || !strncmp(v, "still ", 6)) {
		if (!strcmp(v, "no wakeup seen") || !strncmp(v, "still ", 6))
			snprintf(names[0], sizeof(names[0]), "[%s]", v);
		else
			snprintf(names[0], sizeof(names[0]), blocked ? "[woken by %s]" : "[ran instead: %s]", v);
		frames[0] = names[0];
		return 1;
	}
	t = strstr(v, " (tgid ");
	if (t && t[strlen(t) - 1] == ')') {
		snprintf(names[k], sizeof(names[k]), "[tgid %.*s]", (int)(strlen(t) - 8), t + 7);
		frames[k] = names[k];
		k++;
		*t = 0;
	}
	c = !strncmp(v, "cgroup ", 7) ? strstr(v, ", ") : NULL;
	snprintf(names[k], sizeof(names[k]), "[ran instead: %s]", c ? c + 2 : v);
	frames[k] = names[k];
	k++;
	if (c) {
		snprintf(names[k], sizeof(names[k]), "[ran instead: %.*s]", (int)(c - v), v);
		frames[k] = names[k];
		k++;
	}
	return k;
}

int pprof_read(const char *name, const void *data, size_t len, struct profile *p,
	       unsigned win, struct pprof_read_info *info, char **cause)
{
	struct pprof_read_info local;
	struct pd r = { .name = name ? name : "-", .cause = cause };
	struct pr_sample_ctx sc = { .r = &r };
	struct pr_win *wins = NULL;
	size_t nwins = 0;
	uint8_t *raw = NULL;
	const uint8_t *buf = data;
	size_t n = len;
	const char **frames = NULL;
	char (*names)[PPROF_MAX_NAME + 80] = NULL;
	enum cond cond;
	int count_i = -1, ns_i = -1, err;
	int kind_i[3] = { -1, -1, -1 }; /* cpu, blocked, runnable nanoseconds:
	                                 * argus's time accounting (pprof.h) */
	size_t marked;

	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	if (!p || win >= p->nwin)
		return util_fail(cause, -EINVAL, "%s: no such profile window %u", r.name, win);
	cond = p->wins[win].cond;
	if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
		info->gzipped = 1;
		err = pprof_dec_gunzip(r.name, buf, len, &raw, &n, cause);
		if (err)
			return err;
		buf = raw;
	}
	err = pprof_dec_top(&r, buf, n);
	if (err)
		goto out;
	err = pprof_dec_tables(&r);
	if (err)
		goto out;
	err = pr_modules(&r, p);
	if (err) {
		util_cause(cause, "%s: %s", r.name, strerror(-err));
		goto out;
	}

	/* which value counts samples */
	for (unsigned i = 0; i < r.ntypes && i < 16; i++) {
		if (count_i < 0 && pprof_dec_streq(&r, r.sample_types[i][1], "count"))
			count_i = (int)i;
		if (ns_i < 0 && pprof_dec_streq(&r, r.sample_types[i][1], "nanoseconds"))
			ns_i = (int)i;
		for (int k = 0; k < 3; k++)
			if (kind_i[k] < 0 && pprof_dec_streq(&r, r.sample_types[i][1], "nanoseconds") &&
			    pprof_dec_streq(&r, r.sample_types[i][0], pr_kind_type[k]))
				kind_i[k] = (int)i;
	}
	/* both off-CPU kinds: the frames they stand for are put back */
	if (kind_i[1] < 0 || kind_i[2] < 0)
		kind_i[0] = kind_i[1] = kind_i[2] = -1;
	if (count_i < 0 && (ns_i < 0 || !r.period) && r.ntypes) {
		if (!r.period) {
			err = util_fail(cause, -EINVAL,
				 "%s: the profile has no samples/count value and no period to derive counts from",
				 r.name);
			goto out;
		}
		ns_i = 0;
	}
	if (count_i < 0 && ns_i >= 0)
		snprintf(info->note, sizeof(info->note),
			 "counts derived from the %s value / period %llu", "nanoseconds",
			 (unsigned long long)r.period);

	/* argus's windows */
	for (size_t i = 0; i < r.comments_v.n; i++) {
		struct pd_slice s;
		struct pr_win w;
		if (r.comments_v.a[i].p) /* a packed array of indices */
			continue;
		if (pprof_dec_str(&r, r.comments_v.a[i].n, &s)) {
			err = -EINVAL;
			goto out;
		}
		if (!pr_comment_window(&s, &w) || nwins >= PR_MAX_WINDOWS)
			continue;
		if (vec_resize(&wins, nwins + 1, sizeof(*wins))) {
			err = util_fail(cause, -ENOMEM, "%s: out of memory", r.name);
			goto out;
		}
		wins[nwins++] = w;
	}
	for (size_t i = 0; i < r.comments_v.n; i++) {
		/* packed comment indices (written by some encoders) */
		struct pb_reader pr;
		uint64_t v;
		if (!r.comments_v.a[i].p)
			continue;
		pb_reader_init(&pr, r.comments_v.a[i].p, r.comments_v.a[i].n);
		while (pr.p < pr.end && !pb_get_varint(&pr, &v)) {
			struct pd_slice s;
			struct pr_win w;
			if (v >= r.strs.n)
				break;
			s = r.strs.a[v];
			if (!pr_comment_window(&s, &w) || nwins >= PR_MAX_WINDOWS)
				continue;
			if (vec_resize(&wins, nwins + 1, sizeof(*wins))) {
				err = util_fail(cause, -ENOMEM, "%s: out of memory", r.name);
				goto out;
			}
			wins[nwins++] = w;
		}
	}
	int first_used = 0;
	for (size_t i = 0; i < nwins; i++) {
		if (wins[i].cond != cond)
			continue;
		if (!first_used) {
			wins[i].pw = (int)win;
			first_used = 1;
		} else {
			int w = profile_window_begin(p, cond, wins[i].start);
			if (w < 0) {
				err = util_fail(cause, w, "%s: cannot open another window: %s", r.name, strerror(-w));
				goto out;
			}
			wins[i].pw = w;
		}
		profile_window_end(p, (unsigned)wins[i].pw, wins[i].secs);
		p->wins[wins[i].pw].lost = wins[i].lost;
		p->wins[wins[i].pw].ustack_errors = wins[i].ustack_errors;
		p->wins[wins[i].pw].start_s = wins[i].start;
		info->windows++;
	}
	if (first_used) {
		info->secs_known = 1;
		info->secs = p->wins[win].secs;
	} else {
		info->windows = 1;
		info->secs_known = r.duration > 0;
		info->secs = r.duration > 0 ? (double)r.duration / 1e9 : 1.0;
		profile_window_end(p, win, info->secs);
	}

	marked = pr_marks(&r);
	info->kernel_marked = marked > 0;
	frames = calloc(PPROF_MAX_FRAMES, sizeof(*frames));
	names = malloc(PPROF_MAX_FRAMES * sizeof(*names));
	if (!frames || !names) {
		err = util_fail(cause, -ENOMEM, "%s: out of memory", r.name);
		goto out;
	}
	for (size_t si = 0; si < r.samples.n; si++) {
		struct pb_reader s;
		struct pb_field g;
		struct pr_values pv = { .n = 0 };
		uint64_t pid = 0, count;
		struct pd_slice comm = { 0 }, who = { 0 };
		char commbuf[64];
		long wlabel = -1;
		int other = 0, rc;
		unsigned nf = 0;

		sc.nids = 0;
		pb_reader_init(&s, r.samples.a[si].p, r.samples.a[si].n);
		while ((rc = pb_next(&s, &g)) == 1) {
			if (g.field == 1) {
				rc = pb_varints(&g, pr_collect_id, &sc);
				if (rc == -E2BIG) {
					err = util_fail(cause, -EINVAL, "%s: sample %zu has more than 65536 locations",
						 r.name, si + 1);
					goto out;
				}
				if (rc)
					break;
			} else if (g.field == 2) {
				if ((rc = pb_varints(&g, pr_collect_value, &pv)))
					break;
			} else if (g.field == 3 && g.wt == PB_LEN) {
				struct pb_reader ls;
				struct pb_field h;
				uint64_t key = 0, str = 0, num = 0;
				int lrc, has_num = 0;
				pb_reader_init(&ls, g.data, g.len);
				while ((lrc = pb_next(&ls, &h)) == 1) {
					if (h.wt != PB_VARINT)
						continue;
					if (h.field == 1)
						key = h.v;
					else if (h.field == 2)
						str = h.v;
					else if (h.field == 3) {
						num = h.v;
						has_num = 1;
					}
				}
				if (lrc < 0) {
					rc = -EINVAL;
					break;
				}
				if (key >= r.strs.n || str >= r.strs.n) {
					err = pprof_dec_str(&r, key >= r.strs.n ? key : str, &(struct pd_slice){ 0 });
					goto out;
				}
				if (pprof_dec_streq(&r, key, "condition")) {
					if ((pprof_dec_streq(&r, str, "ref") && cond != COND_REF) ||
					    (pprof_dec_streq(&r, str, "load") && cond != COND_LOAD))
						other = 1;
				} else if (pprof_dec_streq(&r, key, "window") && has_num && num < PR_MAX_WINDOWS * 16) {
					wlabel = (long)num;
				} else if (pprof_dec_streq(&r, key, "pid") && has_num && num <= UINT32_MAX) {
					pid = num;
				} else if ((pprof_dec_streq(&r, key, "comm") || pprof_dec_streq(&r, key, "thread_name")) && str) {
					comm = r.strs.a[str];
				} else if ((pprof_dec_streq(&r, key, "waker") || pprof_dec_streq(&r, key, "ran_instead")) &&
					   str) {
					who = r.strs.a[str];
				}
			}
		}
		if (rc < 0) {
			err = pprof_dec_malformed(&r, "Sample");
			goto out;
		}
		info->records++;
		if (pv.neg) {
			err = util_fail(cause, -EINVAL, "%s: sample %zu has a negative value", r.name, si + 1);
			goto out;
		}
		if (count_i >= 0 && (unsigned)count_i < pv.n)
			count = pv.v[count_i];
		else if (ns_i >= 0 && (unsigned)ns_i < pv.n && r.period)
			count = (pv.v[ns_i] + r.period / 2) / r.period;
		else
			count = 0;
		if (!count)
			continue;
		if (other) {
			info->other_cond += count;
			continue;
		}
		/* frames, leaf first: who woke it or ran instead first */
		int kind = -1;
		unsigned nmark = 0;
		if (kind_i[0] >= 0) {
			kind = 0;
			for (int k = 1; k < 3; k++)
				if ((unsigned)kind_i[k] < pv.n && pv.v[kind_i[k]])
					kind = k;
			if (kind && who.n)
				nf = nmark = pr_who_frames(kind == 1, &who, names, frames);
		}
		for (size_t k = 0; k < sc.nids; k++) {
			struct pd_loc *l = pprof_dec_find(r.locs, r.nlocs, sizeof(*l), sc.ids[k]);
			if (!l) {
				err = util_fail(cause, -EINVAL, "%s: sample %zu names location %llu, which the profile lacks",
					 r.name, si + 1, (unsigned long long)sc.ids[k]);
				goto out;
			}
			if (marked ? !l->kernel : l->user) {
				info->frames_dropped += l->nlines ? l->nlines : 1;
				continue;
			}
			const char *mod = NULL;
			char modbuf[64];
			if (l->module) {
				pr_map_kind(&r.strs.a[r.maps[l->module - 1].file], modbuf, sizeof(modbuf));
				mod = modbuf;
			}
			if (!l->nlines) {
				if (nf >= PPROF_MAX_FRAMES)
					goto too_deep;
				snprintf(names[nf], sizeof(names[nf]), "0x%016llx", (unsigned long long)l->address);
				frames[nf] = names[nf];
				nf++;
			}
			for (size_t q = 0; q < l->nlines; q++) {
				struct pd_func *fn = pprof_dec_find(r.funcs, r.nfuncs, sizeof(*fn), r.lines[l->line0 + q]);
				if (nf >= PPROF_MAX_FRAMES)
					goto too_deep;
				if (!fn || !r.strs.a[fn->name].n)
					snprintf(names[nf], sizeof(names[nf]), "0x%016llx",
						 (unsigned long long)l->address);
				else
					pr_name(names[nf], sizeof(names[nf]), &r.strs.a[fn->name], mod);
				frames[nf] = names[nf];
				nf++;
			}
		}
		/* (a wall-clock sample whose stack the scheduler could not
		 * take is its kind and waker alone: kept) */
		if (nf == nmark && (kind < 0 || !nmark)) {
			info->user_only += count;
			continue;
		}
		if (kind >= 0) {
			if (nf >= PPROF_MAX_FRAMES)
				goto too_deep;
			frames[nf++] = pr_kind_frame[kind];
		}
		/* root first */
		for (unsigned a = 0, b = nf - 1; a < b; a++, b--) {
			const char *t = frames[a];
			frames[a] = frames[b];
			frames[b] = t;
		}
		unsigned tw = win;
		if (wlabel >= 0)
			for (size_t i = 0; i < nwins; i++)
				if (wins[i].index == wlabel && wins[i].pw >= 0) {
					tw = (unsigned)wins[i].pw;
					break;
				}
		commbuf[0] = 0;
		if (comm.n)
			pr_name(commbuf, sizeof(commbuf), &comm, NULL);
		err = profile_add(p, tw, frames, nf, (uint32_t)pid, commbuf, count);
		if (err) {
			util_fail(cause, err, "%s: cannot add sample %zu: %s", r.name, si + 1, strerror(-err));
			goto out;
		}
		info->samples += count;
		continue;
too_deep:
		err = util_fail(cause, -EINVAL, "%s: sample %zu has more than %d frames", r.name, si + 1,
			 PPROF_MAX_FRAMES);
		goto out;
	}
	if (!info->samples) {
		if (info->other_cond)
			err = util_fail(cause, -EINVAL,
				 "%s: all %llu samples are labelled condition=%s, but the file is read as the %s profile",
				 r.name, (unsigned long long)info->other_cond,
				 cond == COND_REF ? "load" : "ref", cond_name(cond));
		else if (info->user_only)
			err = util_fail(cause, -EINVAL,
				 "%s: no kernel frames in %llu samples (only user-space locations); profile kernel stacks (perf record -g, or an agent with kernel stacks on)",
				 r.name, (unsigned long long)info->user_only);
		else
			err = util_fail(cause, -EINVAL, "%s: no samples in the profile (%u sample records, none with a count)",
				 r.name, info->records);
		goto out;
	}
	size_t nl = strlen(info->note);
	const char *sep = nl ? "; " : "";
	if (!marked)
		snprintf(info->note + nl, sizeof(info->note) - nl,
			 "%sno location is marked kernel (mapping [kernel.kallsyms], a module, or _[k]); the frames without a mapping file kept as kernel frames%s",
			 sep, info->frames_dropped ? ", user-space files' frames left out" : "");
	else if (info->frames_dropped)
		snprintf(info->note + nl, sizeof(info->note) - nl,
			 "%skept the kernel-marked frames; left out %llu user frames and %llu samples with no kernel frame",
			 sep, (unsigned long long)info->frames_dropped, (unsigned long long)info->user_only);
	err = 0;
out:
	free(raw);
	pprof_dec_free(&r);
	free(sc.ids);
	free(wins);
	free(frames);
	free(names);
	return err;
}

/* ---- detection ------------------------------------------------------------------ */

int pprof_detect(const void *data, size_t len)
{
	const uint8_t *b = data;
	struct pb_reader r;
	struct pb_field f;
	unsigned seen = 0;
	int rc;

	if (len >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return 1;
	if (!len)
		return 0;
	/* a Profile: fields 1..15 with their wire types; text never starts
	 * with the tag byte of field 1..6 as LEN (0x0a..0x32) followed by a
	 * sane length, but check a few fields to be sure */
	pb_reader_init(&r, data, len);
	while (seen < 8 && (rc = pb_next(&r, &f)) == 1) {
		if (f.field < 1 || f.field > 15)
			return 0;
		int want_len = f.field <= 6 || f.field == 11 || f.field == 15;
		if (f.field == 13 && (f.wt == PB_LEN || f.wt == PB_VARINT)) {
			seen++;
			continue;
		}
		if (want_len != (f.wt == PB_LEN) || (!want_len && f.wt != PB_VARINT))
			return 0;
		if (f.field == 6 && seen == 0 && f.len != 0)
			return 0; /* the string table's first entry must be "" */
		seen++;
	}
	if (rc < 0 && seen < 2)
		return 0;
	return seen > 0;
}
