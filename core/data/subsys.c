/* subsys — classify kernel frames and stacks by subsystem, from the table in
 * core/data/subsys_table.c: exact names by binary search, prefixes by a bucket on
 * their first two characters, longest first. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "data/subsys.h"
#include "data/subsys_table.h"

static const char *const subsys_names[SUBSYS_N] = {
	[SUBSYS_MM] = "mm",
	[SUBSYS_SCHED] = "sched",
	[SUBSYS_FS] = "fs",
	[SUBSYS_NET] = "net",
	[SUBSYS_BLOCK] = "block",
	[SUBSYS_IRQ] = "irq",
	[SUBSYS_LOCKING] = "locking",
	[SUBSYS_SYSCALL] = "syscall",
	[SUBSYS_IDLE] = "idle",
	[SUBSYS_OTHER] = "other",
	[SUBSYS_USER] = "user",
};

#define SUBSYS_NBUCKET 256

struct subsys_exact {
	const char *name;
	size_t len;
	enum subsys s;
};

static struct {
	struct subsys_exact *exact;
	size_t nexact;
	const struct subsys_rule **pfx;   /* grouped by bucket */
	size_t *pfx_len;
	size_t bucket_start[SUBSYS_NBUCKET + 1];
	int ok;
} subsys_index;

static pthread_once_t subsys_once = PTHREAD_ONCE_INIT;

const char *subsys_name(enum subsys s)
{
	return (unsigned)s < SUBSYS_N ? subsys_names[s] : "?";
}

enum subsys subsys_from_name(const char *name)
{
	for (int i = 0; name && i < SUBSYS_N; i++)
		if (strcmp(name, subsys_names[i]) == 0)
			return (enum subsys)i;
	return SUBSYS_N;
}

size_t subsys_base_len(const char *name)
{
	size_t i;

	if (!name)
		return 0;
	/* a C identifier holds no '.', so the first one starts a compiler
	 * suffix; " [module]" ends the name too */
	for (i = 1; name[0] && name[i]; i++)
		if (name[i] == '.' || name[i] == ' ' || name[i] == '\t')
			break;
	return name[0] ? i : 0;
}

static unsigned subsys_bucket(const char *s)
{
	return ((unsigned char)s[0] * 31u + (unsigned char)s[1]) & (SUBSYS_NBUCKET - 1);
}

static int subsys_exact_cmp(const void *a, const void *b)
{
	const struct subsys_exact *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	if (c)
		return c;
	return (x->len > y->len) - (x->len < y->len);
}

static int subsys_pfx_cmp(const void *a, const void *b)
{
	const struct subsys_rule *x = *(const struct subsys_rule *const *)a;
	const struct subsys_rule *y = *(const struct subsys_rule *const *)b;
	unsigned bx = subsys_bucket(x->name), by = subsys_bucket(y->name);
	size_t lx = strlen(x->name), ly = strlen(y->name);

	if (bx != by)
		return bx < by ? -1 : 1;
	if (lx != ly)
		return lx > ly ? -1 : 1;   /* longest first */
	return x < y ? -1 : x > y;
}

static void subsys_init(void)
{
	size_t ne = 0, np = 0;

	subsys_index.exact = calloc(subsys_nrules, sizeof(*subsys_index.exact));
	subsys_index.pfx = calloc(subsys_nrules, sizeof(*subsys_index.pfx));
	subsys_index.pfx_len = calloc(subsys_nrules, sizeof(*subsys_index.pfx_len));
	if (!subsys_index.exact || !subsys_index.pfx || !subsys_index.pfx_len)
		return;
	for (size_t i = 0; i < subsys_nrules; i++) {
		const struct subsys_rule *r = &subsys_rules[i];

		if (r->prefix && strlen(r->name) >= 2) {
			subsys_index.pfx[np++] = r;
		} else {
			subsys_index.exact[ne].name = r->name;
			subsys_index.exact[ne].len = strlen(r->name);
			subsys_index.exact[ne].s = (enum subsys)r->subsys;
			ne++;
		}
	}
	qsort(subsys_index.exact, ne, sizeof(*subsys_index.exact), subsys_exact_cmp);
	qsort(subsys_index.pfx, np, sizeof(*subsys_index.pfx), subsys_pfx_cmp);
	subsys_index.nexact = ne;
	for (size_t i = 0; i < np; i++)
		subsys_index.pfx_len[i] = strlen(subsys_index.pfx[i]->name);
	for (unsigned b = 0, i = 0; b <= SUBSYS_NBUCKET; b++) {
		while (i < np && subsys_bucket(subsys_index.pfx[i]->name) < b)
			i++;
		subsys_index.bucket_start[b] = b == SUBSYS_NBUCKET ? np : i;
	}
	subsys_index.ok = 1;
}

static enum subsys subsys_lookup(const char *name, size_t len)
{
	struct subsys_exact key = { .name = name, .len = len };
	const struct subsys_exact *e;
	unsigned b;

	pthread_once(&subsys_once, subsys_init);
	if (!subsys_index.ok || len == 0)
		return SUBSYS_N;
	e = bsearch(&key, subsys_index.exact, subsys_index.nexact,
		    sizeof(*subsys_index.exact), subsys_exact_cmp);
	if (e)
		return e->s;
	if (len < 2)
		return SUBSYS_N;
	b = subsys_bucket(name);
	for (size_t i = subsys_index.bucket_start[b]; i < subsys_index.bucket_start[b + 1]; i++) {
		const struct subsys_rule *r = subsys_index.pfx[i];
		size_t pl = subsys_index.pfx_len[i];

		if (pl <= len && memcmp(r->name, name, pl) == 0)
			return (enum subsys)r->subsys;
	}
	return SUBSYS_N;
}

enum subsys subsys_of_function(const char *name)
{
	if (!name)
		return SUBSYS_N;
	/* a marker, not a function: "other" would call it kernel code the
	 * table does not place (issue 24 item 9) */
	if (!strcmp(name, SUBSYS_USER_FRAME))
		return SUBSYS_USER;
	return subsys_lookup(name, subsys_base_len(name));
}

enum subsys subsys_classify(const char *const *frames, size_t nframes)
{
	enum subsys first = SUBSYS_N;
	int entry = 0;

	for (size_t i = 0; i < nframes; i++) {
		enum subsys s = subsys_of_function(frames[i]);

		if (s == SUBSYS_IRQ)
			return SUBSYS_IRQ;
		if (s == SUBSYS_SYSCALL)
			entry = 1;
		else if (s != SUBSYS_N && first == SUBSYS_N)
			first = s;
	}
	if (first != SUBSYS_N)
		return first;
	return entry ? SUBSYS_SYSCALL : SUBSYS_OTHER;
}
