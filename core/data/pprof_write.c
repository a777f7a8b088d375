/* pprof_write — a profile's windows as gzip-compressed profile.proto
 * (see pprof.h).  A small writer of our own over core/pb: profile.proto
 * needs varints and length-delimited fields only, and zlib is linked
 * already. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/hash.h"
#include "base/pb.h"
#include "data/pprof.h"
#include "data/subsys.h"
#include "base/util.h"
#include "base/vec.h"

/* profile.proto field numbers */
enum {
	P_SAMPLE_TYPE = 1, P_SAMPLE = 2, P_MAPPING = 3, P_LOCATION = 4, P_FUNCTION = 5,
	P_STRING_TABLE = 6, P_TIME_NANOS = 9, P_DURATION_NANOS = 10, P_PERIOD_TYPE = 11,
	P_PERIOD = 12, P_COMMENT = 13, P_DEFAULT_SAMPLE_TYPE = 14,
	VT_TYPE = 1, VT_UNIT = 2,
	S_LOCATION_ID = 1, S_VALUE = 2, S_LABEL = 3,
	L_KEY = 1, L_STR = 2, L_NUM = 3, L_NUM_UNIT = 4,
	M_ID = 1, M_FILENAME = 5, M_BUILD_ID = 6, M_HAS_FUNCTIONS = 7,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	F_ID = 1, F_NAME = 2, F_SYSTEM_NAME = 3,
};

/* ---- a string -> index table (content hashed) ------------------------------ */

struct pw_strtab {
	char **s;               /* owned copies, s[0] = "" */
	size_t n, cap;
	uint32_t *slot;         /* open addressing: index + 1, 0 empty */
	size_t nslot;
};

static uint64_t pw_hash(const char *s, size_t n)
{
	return hash_bytes(HASH_SEED, s, n);
}

static int pw_rehash(struct pw_strtab *t)
{
	size_t ns = t->nslot ? t->nslot * 2 : 1024;
	uint32_t *sl = calloc(ns, sizeof(*sl));

	if (!sl)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)pw_hash(t->s[i], strlen(t->s[i])) & (ns - 1);
		while (sl[h])
			h = (h + 1) & (ns - 1);
		sl[h] = (uint32_t)i + 1;
	}
	free(t->slot);
	t->slot = sl;
	t->nslot = ns;
	return 0;
}

/* Index of s[0..n) in the table, added when new; -errno. */
static int64_t pw_str(struct pw_strtab *t, const char *s, size_t n)
{
	if ((t->n + 1) * 2 > t->nslot && pw_rehash(t))
		return -ENOMEM;
	size_t h = (size_t)pw_hash(s, n) & (t->nslot - 1);
	while (t->slot[h]) {
		const char *o = t->s[t->slot[h] - 1];
		if (!strncmp(o, s, n) && o[n] == 0)
			return t->slot[h] - 1;
		h = (h + 1) & (t->nslot - 1);
	}
	if (vec_grow(&t->s, &t->cap, t->n + 1, sizeof(*t->s)))
		return -ENOMEM;
	char *c = strndup(s, n);
	if (!c)
		return -ENOMEM;
	t->s[t->n] = c;
	t->slot[h] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static int64_t pw_cstr(struct pw_strtab *t, const char *s)
{
	return pw_str(t, s, strlen(s));
}

static void pw_strtab_free(struct pw_strtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->slot);
}

/* ---- frames -> locations ---------------------------------------------------- */

/* Splits "sym [module]" into the symbol's length and the module; returns
 * the module's length (0: no module suffix). */
static size_t pw_split_module(const char *f, size_t n, size_t *symlen, const char **mod)
{
	if (n < 4 || f[n - 1] != ']')
		return 0;
	size_t i = n - 1;
	while (i > 0 && f[i - 1] != '[') {
		char c = f[i - 1];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return 0;
		i--;
	}
	/* "[" at i - 1, preceded by a space, with a non-empty symbol before */
	if (i < 3 || i == n - 1 || f[i - 2] != ' ')
		return 0;
	*symlen = i - 2;
	*mod = f + i;
	return n - 1 - i;
}

static int pw_hexaddr(const char *f, uint64_t *addr)
{
	if (strncmp(f, "0x", 2) || !f[2] || strlen(f) > 18)
		return 0;
	uint64_t v = 0;
	for (const char *c = f + 2; *c; c++) {
		int d = *c >= '0' && *c <= '9' ? *c - '0' : *c >= 'a' && *c <= 'f' ? *c - 'a' + 10 :
			*c >= 'A' && *c <= 'F' ? *c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		v = v << 4 | (uint64_t)d;
	}
	*addr = v;
	return 1;
}

struct pw {
	const struct profile *prof; /* its module table names the files */
	struct pw_strtab st;
	struct pw_strtab frames;    /* frame name -> location id - 1 */
	struct pw_strtab mods;      /* mapping file name -> mapping id - 1 */
	struct pb_buf out, msg, sub;
	uint64_t *locs;
	size_t locs_cap;
};

/* Location id (1-based) of the frame keyed key (its name name[0..namelen),
 * in the mapping file mname), writing its function, location and, when
 * new, mapping to w->out.  0 on error (w->out.err or -ENOMEM). */
static uint64_t pw_loc(struct pw *w, const char *key, size_t keylen, const char *name,
		       size_t namelen, const char *mname, int hexaddr)
{
	size_t before = w->frames.n;
	int64_t li = pw_str(&w->frames, key, keylen);

	if (li < 0)
		return 0;
	if ((size_t)li < before)
		return (uint64_t)li + 1;
	uint64_t id = (uint64_t)li + 1, addr = 0;
	size_t mb = w->mods.n;
	int64_t mi = pw_cstr(&w->mods, mname);
	int64_t fname = pw_str(&w->st, name, namelen);
	if (mi < 0 || fname < 0)
		return 0;
	if ((size_t)mi >= mb) {
		/* a user module the profile knows (issue 27): its full path and
		 * build-id, what pprof tools look its symbols up by; else the
		 * name alone, as before */
		const struct profile_module *m = mname[0] != '[' ?
			profile_module_find(w->prof, mname) : NULL;
		int64_t file = pw_cstr(&w->st, m && *m->path ? m->path : mname);
		int64_t bid = m && *m->build_id ? pw_cstr(&w->st, m->build_id) : 0;

		if (file < 0 || bid < 0)
			return 0;
		pb_buf_reset(&w->msg);
		pb_put_uint(&w->msg, M_ID, (uint64_t)mi + 1);
		pb_put_uint(&w->msg, M_FILENAME, (uint64_t)file);
		if (bid > 0)
			pb_put_uint(&w->msg, M_BUILD_ID, (uint64_t)bid);
		pb_put_uint(&w->msg, M_HAS_FUNCTIONS, 1);
		if (w->msg.err)
			return 0;
		pb_put_bytes(&w->out, P_MAPPING, w->msg.p, w->msg.len);
	}
	pb_buf_reset(&w->msg);
	pb_put_uint(&w->msg, F_ID, id);
	pb_put_uint(&w->msg, F_NAME, (uint64_t)fname);
	pb_put_uint(&w->msg, F_SYSTEM_NAME, (uint64_t)fname);
	if (w->msg.err)
		return 0;
	pb_put_bytes(&w->out, P_FUNCTION, w->msg.p, w->msg.len);
	pb_buf_reset(&w->msg);
	pb_buf_reset(&w->sub);
	pb_put_uint(&w->sub, LINE_FUNCTION_ID, id);
	pb_put_uint(&w->msg, LOC_ID, id);
	pb_put_uint(&w->msg, LOC_MAPPING_ID, (uint64_t)mi + 1);
	if (hexaddr && pw_hexaddr(name, &addr))
		pb_put_uint(&w->msg, LOC_ADDRESS, addr);
	if (w->sub.err)
		return 0;
	pb_put_bytes(&w->msg, LOC_LINE, w->sub.p, w->sub.len);
	if (w->msg.err)
		return 0;
	pb_put_bytes(&w->out, P_LOCATION, w->msg.p, w->msg.len);
	return w->out.err ? 0 : id;
}

/* A kernel frame "sym" or "sym [module]": mapping [kernel.kallsyms] or
 * [module]. */
static uint64_t pw_location(struct pw *w, const char *f)
{
	size_t n = strlen(f), symlen = n;
	const char *mod = NULL;
	size_t modlen = pw_split_module(f, n, &symlen, &mod);
	char mname[80];

	if (modlen && modlen < sizeof(mname) - 2)
		snprintf(mname, sizeof(mname), "[%.*s]", (int)modlen, mod);
	else
		snprintf(mname, sizeof(mname), "[kernel.kallsyms]");
	return pw_loc(w, f, n, f, modlen ? symlen : n, mname, 1);
}

/* A user frame (core/probe/usym.h): "function (module)" in the mapping
 * module, "module+0xOFF", or a "[ends in module: ...]" cut; the mapping's
 * file is the module's base name (never bracketed: readers, ours
 * included, take it for user space), "[unknown]" when none is named.
 * Keyed apart from kernel frames of the same text. */
static uint64_t pw_ulocation(struct pw *w, const char *f)
{
	size_t n = strlen(f), namelen = n;
	char key[600], mname[256];
	const char *p;

	snprintf(mname, sizeof(mname), "[unknown]");
	if (n > 3 && f[n - 1] == ')' && (p = strstr(f, " (")) && p > f) {
		namelen = (size_t)(p - f);
		snprintf(mname, sizeof(mname), "%.*s", (int)(n - namelen - 3), p + 2);
	} else if (!strncmp(f, "[ends in ", 9) && (p = strchr(f + 9, ':'))) {
		snprintf(mname, sizeof(mname), "%.*s", (int)(p - f - 9), f + 9);
	} else if (f[0] != '[' && (p = strstr(f, "+0x")) && p > f) {
		snprintf(mname, sizeof(mname), "%.*s", (int)(p - f), f);
	}
	if (!mname[0] || mname[0] == '[')
		snprintf(mname, sizeof(mname), "[unknown]");
	snprintf(key, sizeof(key), "\001u%s", f);
	return pw_loc(w, key, strlen(key), f, namelen, mname, 0);
}

static void pw_label_str(struct pb_buf *msg, struct pb_buf *sub, int64_t key, int64_t val)
{
	pb_buf_reset(sub);
	pb_put_uint(sub, L_KEY, (uint64_t)key);
	pb_put_uint(sub, L_STR, (uint64_t)val);
	if (!sub->err)
		pb_put_bytes(msg, S_LABEL, sub->p, sub->len);
	else
		msg->err = sub->err;
}

static void pw_label_num(struct pb_buf *msg, struct pb_buf *sub, int64_t key, uint64_t v)
{
	pb_buf_reset(sub);
	pb_put_uint(sub, L_KEY, (uint64_t)key);
	pb_put_uint(sub, L_NUM, v);
	if (!sub->err)
		pb_put_bytes(msg, S_LABEL, sub->p, sub->len);
	else
		msg->err = sub->err;
}

static void pw_value_type(struct pb_buf *out, struct pb_buf *sub, uint32_t field,
			  int64_t type, int64_t unit)
{
	pb_buf_reset(sub);
	pb_put_uint(sub, VT_TYPE, (uint64_t)type);
	pb_put_uint(sub, VT_UNIT, (uint64_t)unit);
	if (!sub->err)
		pb_put_bytes(out, field, sub->p, sub->len);
	else
		out->err = sub->err;
}

/* ---- time accounting (issue 27 item 5) ------------------------------------ */

/* The kinds of time core/model/timeacct.c puts first in a stack. */
enum pw_kind { PW_CPU, PW_BLOCKED, PW_RUNNABLE, PW_NKIND };

static const char *const pw_kind_frame[PW_NKIND] = { "[on-cpu]", "[blocked]", "[runnable]" };

/* The kind of s (its first frame), or -1 when it names none. */
static int pw_kind_of(const struct profile_stack *s)
{
	for (int k = 0; k < PW_NKIND; k++)
		if (s->nframes && !strcmp(s->frames[0], pw_kind_frame[k]))
			return k;
	return -1;
}

/* The text of a marker frame "[prefix...]" after prefix, without the
 * closing bracket, into buf; 0 when f is no such frame. */
static int pw_marker(const char *f, const char *prefix, char *buf, size_t len)
{
	size_t n = strlen(f), pl = strlen(prefix);

	if (n < pl + 1 || strncmp(f, prefix, pl) || f[n - 1] != ']')
		return 0;
	snprintf(buf, len, "%.*s", (int)(n - pl - 1), f + pl);
	return 1;
}

/* How many of s's trailing frames name who woke it or ran instead of it
 * (timeacct.h), their text as the waker or ran_instead label in buf. */
static uint32_t pw_who(const struct profile_stack *s, int kind, char *buf, size_t len)
{
	uint32_t n = 0;
	size_t at = 0;
	char t[200];

	buf[0] = 0;
	if (kind == PW_BLOCKED) {
		const char *f = s->frames[s->nframes - 1];

		if (s->nframes < 2 || f[0] != '[')
			return 0;
		if (!pw_marker(f, "[woken by ", buf, len))
			pw_marker(f, "[", buf, len); /* no wakeup seen, still blocked */
		return 1;
	}
	if (kind != PW_RUNNABLE)
		return 0;
	/* [ran instead: cgroup /x] ; [ran instead: COMM] ; [tgid T], or one of
	 * [ran instead: idle] | [still runnable at a read] */
	for (uint32_t i = s->nframes; i > 1; i--) {
		const char *f = s->frames[i - 1];

		if (!(pw_marker(f, "[ran instead: ", t, sizeof(t)) || pw_marker(f, "[tgid ", t, sizeof(t)) ||
		      (i == s->nframes && !strncmp(f, "[still ", 7) && pw_marker(f, "[", t, sizeof(t)))))
			break;
		n++;
	}
	for (uint32_t i = s->nframes - n; i < s->nframes && at < len; i++) {
		const char *f = s->frames[i];
		int w;

		if (pw_marker(f, "[tgid ", t, sizeof(t)))
			w = snprintf(buf + at, len - at, " (tgid %s)", t);
		else if (pw_marker(f, "[ran instead: ", t, sizeof(t)))
			w = snprintf(buf + at, len - at, "%s%s", at ? ", " : "", t);
		else
			w = pw_marker(f, "[", t, sizeof(t)) ? snprintf(buf + at, len - at, "%s", t) : 0;
		if (w < 0)
			break;
		at += (size_t)w;
	}
	return n;
}

static int pw_selected(const struct profile *p, const struct pprof_write_opts *o, unsigned w)
{
	unsigned to = o->win_to && o->win_to < p->nwin ? o->win_to : p->nwin;

	return w >= o->win_from && w < to && (o->cond == COND_N || p->wins[w].cond == (enum cond)o->cond);
}

/* gzip of in[0..n) into a new buffer. */
static int pw_gzip(const uint8_t *in, size_t n, uint8_t **out, size_t *outlen)
{
	z_stream z = { 0 };
	uint8_t *buf = NULL;
	int err = -ENOMEM;

	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	buf = malloc(cap);
	if (!buf)
		goto out;
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		err = -EIO;
		goto out;
	}
	*out = buf;
	*outlen = z.total_out;
	buf = NULL;
	err = 0;
out:
	deflateEnd(&z);
	free(buf);
	return err;
}

int pprof_write(const struct profile *p, const struct pprof_write_opts *o, uint8_t **out,
		size_t *outlen, struct pprof_write_info *info, char **cause)
{
	struct pprof_write_info local;
	struct pw w = { 0 };
	int64_t k_samples, k_count, k_cpu, k_ns, k_cond, k_win, k_comm, k_pid, k_subsys;
	int64_t k_service = -1, service = -1, k_unit = -1, k_container = -1, k_cgroup = -1;
	int64_t k_waker = -1, k_ran = -1, k_kind[PW_NKIND] = { -1, -1, -1 };
	int64_t cond_s[COND_N];
	int timed = 0;          /* the profile has time accounting: one sample
	                         * type per kind of time (item 5) */
	uint64_t period = o->freq_hz ? 1000000000ull / o->freq_hz : 0;
	double secs = 0, start = -1;
	int err = -ENOMEM;

	w.prof = p;
	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	*out = NULL;
	*outlen = 0;
	for (unsigned i = 0; i < p->nwin; i++)
		if (pw_selected(p, o, i)) {
			info->windows++;
			secs += p->wins[i].secs;
			if (start < 0)
				start = p->wins[i].start_s;
		}
	if (!info->windows) {
		util_cause(cause, "no %s window to write", o->cond == COND_N ? "measurement" :
			 o->cond == COND_REF ? "reference" : "loaded");
		return -ENODATA;
	}
	if (pw_cstr(&w.st, "") < 0 ||
	    (k_samples = pw_cstr(&w.st, "samples")) < 0 || (k_count = pw_cstr(&w.st, "count")) < 0 ||
	    (k_cpu = pw_cstr(&w.st, "cpu")) < 0 || (k_ns = pw_cstr(&w.st, "nanoseconds")) < 0 ||
	    (k_cond = pw_cstr(&w.st, "condition")) < 0 || (k_win = pw_cstr(&w.st, "window")) < 0 ||
	    (k_comm = pw_cstr(&w.st, "comm")) < 0 || (k_pid = pw_cstr(&w.st, "pid")) < 0 ||
	    (k_subsys = pw_cstr(&w.st, "subsystem")) < 0 ||
	    (cond_s[COND_REF] = pw_cstr(&w.st, cond_name(COND_REF))) < 0 ||
	    (cond_s[COND_LOAD] = pw_cstr(&w.st, cond_name(COND_LOAD))) < 0)
		goto fail_mem;
	/* strings added only when used, so that a profile without them is
	 * the same bytes as before they existed */
	if (o->service_name && *o->service_name &&
	    ((k_service = pw_cstr(&w.st, "service_name")) < 0 ||
	     (service = pw_cstr(&w.st, o->service_name)) < 0))
		goto fail_mem;
	for (size_t si = 0; si < p->nstacks && !timed; si++)
		for (unsigned wi = 0; wi < p->nwin && !timed; wi++)
			timed = p->stacks[si].win[wi] && pw_selected(p, o, wi) &&
				pw_kind_of(&p->stacks[si]) >= 0;
	if (timed && ((k_kind[PW_BLOCKED] = pw_cstr(&w.st, "blocked")) < 0 ||
		      (k_kind[PW_RUNNABLE] = pw_cstr(&w.st, "runnable")) < 0 ||
		      (k_waker = pw_cstr(&w.st, "waker")) < 0 ||
		      (k_ran = pw_cstr(&w.st, "ran_instead")) < 0))
		goto fail_mem;

	pw_value_type(&w.out, &w.sub, P_SAMPLE_TYPE, k_samples, k_count);
	pw_value_type(&w.out, &w.sub, P_SAMPLE_TYPE, k_cpu, k_ns);
	if (timed) {
		pw_value_type(&w.out, &w.sub, P_SAMPLE_TYPE, k_kind[PW_BLOCKED], k_ns);
		pw_value_type(&w.out, &w.sub, P_SAMPLE_TYPE, k_kind[PW_RUNNABLE], k_ns);
	}
	for (size_t si = 0; si < p->nstacks; si++) {
		const struct profile_stack *s = &p->stacks[si];
		int64_t subsys = -1, comm = -1, who = -1, ident[3] = { -1, -1, -1 };
		const struct profile_ident *id = s->tgid ? profile_ident_find(p, s->tgid) : NULL;
		int any = 0, kind = timed ? pw_kind_of(s) : -1;
		uint32_t kf = 0, kl = s->nframes; /* the kernel frames written: [kf, kl) */
		char whobuf[256];

		for (unsigned wi = 0; wi < p->nwin && !any; wi++)
			any = pw_selected(p, o, wi) && s->win[wi];
		if (!any || !s->nframes)
			continue;
		if (kind >= 0) {
			/* the kind is the sample's type, who woke it or ran instead
			 * a label: neither is a frame of its own */
			kf = 1;
			kl -= pw_who(s, kind, whobuf, sizeof(whobuf));
			if (whobuf[0] && (who = pw_cstr(&w.st, whobuf)) < 0)
				goto fail_mem;
		}
		if (kl < kf)
			kl = kf;
		uint32_t nk = kl - kf, nl = nk + (o->kernel_only ? 0 : s->nuframes);
		if (nl > w.locs_cap) {
			if (vec_resize(&w.locs, nl, sizeof(*w.locs)))
				goto fail_mem;
			w.locs_cap = nl;
		}
		for (uint32_t k = 0; k < nk; k++) {
			/* leaf first */
			w.locs[k] = pw_location(&w, s->frames[kl - 1 - k]);
			if (!w.locs[k])
				goto fail_mem;
		}
		/* then the user-space frames that called into the kernel (issue 27) */
		for (uint32_t k = nk; k < nl; k++) {
			w.locs[k] = pw_ulocation(&w, s->uframes[nl - 1 - k]);
			if (!w.locs[k])
				goto fail_mem;
		}
		subsys = pw_cstr(&w.st, subsys_name(subsys_classify(s->frames, s->nframes)));
		if (subsys < 0 || (s->comm && *s->comm && (comm = pw_cstr(&w.st, s->comm)) < 0))
			goto fail_mem;
		/* who the process is, where /proc said (item 4): what a fleet
		 * engine groups a service's instances by */
		if (id && ((id->unit && *id->unit &&
			    ((k_unit < 0 && (k_unit = pw_cstr(&w.st, "unit")) < 0) ||
			     (ident[0] = pw_cstr(&w.st, id->unit)) < 0)) ||
			   (id->container && *id->container &&
			    ((k_container < 0 && (k_container = pw_cstr(&w.st, "container")) < 0) ||
			     (ident[1] = pw_cstr(&w.st, id->container)) < 0)) ||
			   (id->cgroup && *id->cgroup &&
			    ((k_cgroup < 0 && (k_cgroup = pw_cstr(&w.st, "cgroup")) < 0) ||
			     (ident[2] = pw_cstr(&w.st, id->cgroup)) < 0))))
			goto fail_mem;
		for (unsigned wi = 0; wi < p->nwin; wi++) {
			uint64_t v[2 + PW_NKIND - 1] = { 0 };

			if (!pw_selected(p, o, wi) || !s->win[wi])
				continue;
			/* counts are sample-equivalents at freq_hz (timeacct.h):
			 * each kind's nanoseconds are count * period, in the
			 * value of its type, 0 in the others */
			v[0] = s->win[wi];
			v[1 + (kind > 0 ? kind : PW_CPU)] = s->win[wi] * period;
			pb_buf_reset(&w.msg);
			pb_put_packed(&w.msg, S_LOCATION_ID, w.locs, nl);
			pb_put_packed(&w.msg, S_VALUE, v, timed ? 2 + PW_NKIND - 1 : 2);
			if (!o->plain)
				pw_label_str(&w.msg, &w.sub, k_cond, cond_s[p->wins[wi].cond]);
			pw_label_num(&w.msg, &w.sub, k_win, wi);
			if (comm > 0)
				pw_label_str(&w.msg, &w.sub, k_comm, comm);
			if (s->tgid)
				pw_label_num(&w.msg, &w.sub, k_pid, s->tgid);
			pw_label_str(&w.msg, &w.sub, k_subsys, subsys);
			if (service > 0)
				pw_label_str(&w.msg, &w.sub, k_service, service);
			if (ident[0] > 0)
				pw_label_str(&w.msg, &w.sub, k_unit, ident[0]);
			if (ident[1] > 0)
				pw_label_str(&w.msg, &w.sub, k_container, ident[1]);
			if (ident[2] > 0)
				pw_label_str(&w.msg, &w.sub, k_cgroup, ident[2]);
			if (who > 0)
				pw_label_str(&w.msg, &w.sub, kind == PW_BLOCKED ? k_waker : k_ran, who);
			if (w.msg.err)
				goto fail_mem;
			pb_put_bytes(&w.out, P_SAMPLE, w.msg.p, w.msg.len);
			info->records++;
			info->samples += s->win[wi];
		}
	}
	for (unsigned wi = 0; wi < p->nwin; wi++) {
		char c[200];
		int64_t ci;

		if (!pw_selected(p, o, wi) || o->plain)
			continue;
		/* ustack_errors: the window's samples taken without their user
		 * stack (the walk failed), so that a reader of the file still
		 * tells "no call site" from "not taken" (issue 27) */
		snprintf(c, sizeof(c), "argus-window index=%u cond=%s secs=%.9g start=%.9g lost=%llu "
			 "ustack_errors=%llu", wi, cond_name(p->wins[wi].cond), p->wins[wi].secs,
			 p->wins[wi].start_s, (unsigned long long)p->wins[wi].lost,
			 (unsigned long long)p->wins[wi].ustack_errors);
		if ((ci = pw_cstr(&w.st, c)) < 0)
			goto fail_mem;
		pb_put_uint(&w.out, P_COMMENT, (uint64_t)ci);
	}
	for (size_t i = 0; i < w.st.n; i++)
		pb_put_str(&w.out, P_STRING_TABLE, w.st.s[i]);
	if (o->time_nanos)
		pb_put_uint(&w.out, P_TIME_NANOS,
			    (uint64_t)(o->time_nanos + (int64_t)(start > 0 ? start * 1e9 : 0)));
	pb_put_uint(&w.out, P_DURATION_NANOS, (uint64_t)(secs * 1e9 + 0.5));
	pw_value_type(&w.out, &w.sub, P_PERIOD_TYPE, k_cpu, k_ns);
	pb_put_uint(&w.out, P_PERIOD, period);
	pb_put_uint(&w.out, P_DEFAULT_SAMPLE_TYPE, (uint64_t)k_cpu);
	if (w.out.err) {
		err = w.out.err;
		util_cause(cause, "cannot encode the profile: %s", strerror(-err));
		goto out;
	}
	info->locations = (unsigned)w.frames.n;
	info->mappings = (unsigned)w.mods.n;
	info->secs = secs;
	if (o->raw) {
		*out = w.out.p;
		*outlen = w.out.len;
		w.out.p = NULL;
		err = 0;
	} else {
		err = pw_gzip(w.out.p, w.out.len, out, outlen);
		if (err)
			util_cause(cause, "cannot compress the profile: %s", strerror(-err));
	}
	goto out;
fail_mem:
	err = w.out.err ? w.out.err : -ENOMEM;
	util_cause(cause, "cannot encode the profile: %s", strerror(-err));
out:
	pw_strtab_free(&w.st);
	pw_strtab_free(&w.frames);
	pw_strtab_free(&w.mods);
	pb_buf_free(&w.out);
	pb_buf_free(&w.msg);
	pb_buf_free(&w.sub);
	free(w.locs);
	return err;
}

char *pprof_service_name(const char *cmd, char *buf, size_t len)
{
	const char *b = cmd ? cmd : "", *e;
	size_t n = 0;

	if (!len)
		return buf;
	while (*b == ' ' || *b == '\t')
		b++;
	for (e = b; *e && *e != ' ' && *e != '\t'; e++)
		if (*e == '/' && e[1] && e[1] != ' ' && e[1] != '\t')
			b = e + 1;
	if (e > b && e[-1] == '/')
		e--;
	if (e > b && ((*b >= '0' && *b <= '9') || *b == '.') && len > 1)
		buf[n++] = '_';
	for (; b < e && n + 1 < len; b++) {
		char c = *b;

		buf[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			   c == '_' || c == '.' ? c : '_';
	}
	buf[n] = 0;
	return buf;
}

int pprof_write_stream(const struct profile *p, const struct pprof_write_opts *o, FILE *f,
		       struct pprof_write_info *info, char **cause)
{
	uint8_t *buf = NULL;
	size_t n = 0;
	int err = pprof_write(p, o, &buf, &n, info, cause);

	if (err)
		return err;
	if (fwrite(buf, 1, n, f) != n || fflush(f)) {
		err = -EIO;
		util_cause(cause, "cannot write the profile: %s", strerror(errno ? errno : EIO));
	}
	free(buf);
	return err;
}
