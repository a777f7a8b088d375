/* ksym — /proc/kallsyms read once into one buffer, parsed by hand in place,
 * text symbols sorted by address (binary search) and by name. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/ksym.h"
#include "base/vec.h"
#include "base/strpool.h"
#include "base/util.h"

/* A symbol with no later neighbour vouches for at most this much text. */
#define KSYM_MAX_SIZE (1u << 20)

struct ksym_table {
	char *buf;              /* the file, NULs written in */
	struct ksym *syms;      /* text symbols by address */
	uint64_t *end;          /* end[i]: first address past syms[i] */
	size_t n;
	uint32_t *by_name;      /* hash of names: index + 1, 0 empty */
	size_t name_cap;        /* power of two */
	int hidden;
};

struct ksym_raw {
	uint64_t addr;
	const char *name;
	const char *module;
	uint32_t order;         /* position in the file */
	int text;
};

/* By address; aliases (one address, several names) in the order perf
 * ends up naming them, so a stack names a function as perf does and a
 * ground truth taken with perf compares by name.  perf gives a kallsyms
 * symbol the size up to the next address (symbols__fixup_end), so of
 * several names at one address only the last listed has a size, and
 * symbols__fixup_duplicate keeps the one with a size: the last listed
 * (__x64_sys_sched_yield, after __do_sys_sched_yield and
 * __ia32_sys_sched_yield at the same address).  Text before data. */
static int ksym_raw_cmp(const void *a, const void *b)
{
	const struct ksym_raw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->text != y->text)
		return y->text - x->text;
	return (x->order < y->order) - (x->order > y->order);
}

static int ksym_is_text(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Markers that end a text section rather than start a function. */
static int ksym_is_marker(const char *name)
{
	return strcmp(name, "_etext") == 0 || strcmp(name, "_einittext") == 0;
}

static int ksym_hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

struct ksym_table *ksym_load(const char *path)
{
	struct ksym_table *t = NULL;
	struct ksym_raw *raw = NULL;
	size_t len = 0, nraw = 0, cap = 0, ntext = 0;
	char *p, *end;
	int err, any_nonzero = 0;

	t = calloc(1, sizeof(*t));
	if (!t) {
		err = -ENOMEM;
		goto fail;
	}
	err = util_read_file(path ? path : "/proc/kallsyms", 0, &t->buf, &len);
	if (err)
		goto fail;
	p = t->buf;
	end = t->buf + len;
	while (p < end) {
		char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
		char *name, *module = NULL;
		uint64_t addr = 0;
		char type;
		int v, digits = 0;

		if (!nl)
			nl = end;
		*nl = '\0';
		p = nl + 1;
		while ((v = ksym_hexval((unsigned char)*line)) >= 0) {
			addr = addr << 4 | (unsigned)v;
			line++;
			digits++;
		}
		if (!digits || *line != ' ')
			continue;
		type = line[1];
		if (!type || line[2] != ' ')
			continue;
		name = line + 3;
		for (char *q = name; *q; q++) {
			if (*q == '\t' || *q == ' ') {
				*q++ = '\0';
				while (*q == '\t' || *q == ' ')
					q++;
				if (*q == '[') {
					char *close = strchr(q + 1, ']');

					if (close)
						*close = '\0';
					module = q + 1;
				}
				break;
			}
		}
		if (!*name)
			continue;
		if (addr)
			any_nonzero = 1;
		err = vec_grow(&raw, &cap, nraw + 1, sizeof(*raw));
		if (err)
			goto fail;
		raw[nraw].addr = addr;
		raw[nraw].name = name;
		raw[nraw].module = module;
		raw[nraw].order = (uint32_t)nraw;
		raw[nraw].text = ksym_is_text(type) && !ksym_is_marker(name);
		ntext += raw[nraw].text;
		nraw++;
	}
	t->hidden = nraw > 0 && !any_nonzero;
	/* modules may be out of order, and aliases go in perf's preference */
	qsort(raw, nraw, sizeof(*raw), ksym_raw_cmp);
	t->syms = malloc((ntext ? ntext : 1) * sizeof(*t->syms));
	t->end = malloc((ntext ? ntext : 1) * sizeof(*t->end));
	for (t->name_cap = 1024; t->name_cap < ntext * 2; t->name_cap *= 2)
		;
	t->by_name = calloc(t->name_cap, sizeof(*t->by_name));
	if (!t->syms || !t->end || !t->by_name) {
		err = -ENOMEM;
		goto fail;
	}
	/* end of each text symbol: the next greater address of any symbol */
	for (size_t i = 0, next = 0; i < nraw; i++) {
		uint64_t e;

		if (!raw[i].text)
			continue;
		if (next <= i)
			next = i + 1;
		while (next < nraw && raw[next].addr <= raw[i].addr)
			next++;
		e = raw[i].addr + KSYM_MAX_SIZE < raw[i].addr ? UINT64_MAX
							       : raw[i].addr + KSYM_MAX_SIZE;
		if (next < nraw && raw[next].addr < e)
			e = raw[next].addr;
		t->syms[t->n].addr = raw[i].addr;
		t->syms[t->n].name = raw[i].name;
		t->syms[t->n].module = raw[i].module;
		t->end[t->n] = e;
		t->n++;
	}
	/* names: the lowest address wins among duplicates (static functions) */
	for (size_t i = 0; i < t->n; i++) {
		const char *nm = t->syms[i].name;
		size_t nl = strlen(nm), mask = t->name_cap - 1, j;

		for (j = strpool_hash(nm, nl) & mask; t->by_name[j]; j = (j + 1) & mask)
			if (strcmp(t->syms[t->by_name[j] - 1].name, nm) == 0)
				break;
		if (!t->by_name[j])
			t->by_name[j] = (uint32_t)i + 1;
	}
	free(raw);
	return t;
fail:
	free(raw);
	ksym_free(t);
	errno = -err;
	return NULL;
}

void ksym_free(struct ksym_table *t)
{
	if (!t)
		return;
	free(t->buf);
	free(t->syms);
	free(t->end);
	free(t->by_name);
	free(t);
}

int ksym_hidden(const struct ksym_table *t)
{
	return t ? t->hidden : 1;
}

size_t ksym_count(const struct ksym_table *t)
{
	return t ? t->n : 0;
}

const struct ksym *ksym_lookup(const struct ksym_table *t, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!t || t->hidden || !t->n)
		return NULL;
	hi = t->n;
	/* first index whose address is > addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	lo--;
	if (addr >= t->end[lo])
		return NULL;
	while (lo > 0 && t->syms[lo - 1].addr == t->syms[lo].addr)
		lo--;   /* aliases: the preferred one (ksym_raw_cmp) */
	return &t->syms[lo];
}

char *ksym_format(const struct ksym_table *t, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s = ksym_lookup(t, addr);

	if (!buf || !len)
		return buf;
	if (!s)
		snprintf(buf, len, "0x%016" PRIx64, addr);
	else if (s->module)
		snprintf(buf, len, "%s [%s]", s->name, s->module);
	else
		snprintf(buf, len, "%s", s->name);
	return buf;
}

const struct ksym *ksym_by_name(const struct ksym_table *t, const char *name)
{
	size_t mask;

	if (!t || !name || !t->name_cap)
		return NULL;
	mask = t->name_cap - 1;
	for (size_t j = strpool_hash(name, strlen(name)) & mask; t->by_name[j]; j = (j + 1) & mask)
		if (strcmp(t->syms[t->by_name[j] - 1].name, name) == 0)
			return &t->syms[t->by_name[j] - 1];
	return NULL;
}
