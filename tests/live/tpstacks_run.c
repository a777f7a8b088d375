/* tpstacks_run — driver for tests/live/tpstacks.sh: runs the
 * tracepoint_stacks probe on exceptions:page_fault_user and kmem:mm_page_alloc
 * filtered to a child that faults in PAGES anonymous pages, and prints what
 * it counted, one "key value" per line, plus the hottest stack per
 * tracepoint, root first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

#include "probe/kind_util.h"
#include "probe/probe_tpstacks.h"

/* Prints "prog_id N" for every BPF program this process holds, so the test
 * can check that exactly these are gone after exit (other runs may hold
 * programs of the same name meanwhile). */
static void print_held_progs(void)
{
	DIR *d = opendir("/proc/self/fdinfo");
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char path[300], line[256];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "prog_id:", 8))
				printf("prog_id %ld\n", strtol(line + 8, NULL, 10));
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
}

struct sym { uint64_t addr; char *name; };
static struct sym *syms;
static size_t nsyms;

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static void load_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], type;
	unsigned long long addr;
	size_t cap = 0;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 || !strchr("tTwW", type))
			continue;
		if (nsyms == cap)
			syms = realloc(syms, (cap = cap ? cap * 2 : 65536) * sizeof(*syms));
		syms[nsyms].addr = addr;
		syms[nsyms++].name = strdup(name);
	}
	if (f)
		fclose(f);
	qsort(syms, nsyms, sizeof(*syms), sym_cmp);
}

static const char *sym_name(uint64_t a)
{
	size_t lo = 0, hi = nsyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? syms[lo - 1].name : "?";
}

/* Counts per kernel stack id: a key is {kernel stack, user stack, tp,
 * tgid, comm}, so one kernel stack's firings can be spread over several
 * keys (one per user stack under it); "top" is the kernel stack with the
 * most, summed over them. */
#define TOP_IDS 512
struct top {
	uint64_t total[2];
	unsigned nstacks[2];
	uint32_t id[2][TOP_IDS];
	uint64_t sum[2][TOP_IDS];
	uint64_t ips[2][TOP_IDS][127];
	unsigned nips[2][TOP_IDS];
	unsigned nids[2];
};

static int on_stack(void *arg, const struct probe_tpstacks_stack *s)
{
	struct top *t = arg;
	unsigned tp = s->tp, i;

	if (tp > 1)
		return -1;
	t->total[tp] += s->count;
	t->nstacks[tp]++;
	for (i = 0; i < t->nids[tp] && t->id[tp][i] != s->stack_id; i++)
		;
	if (i == t->nids[tp]) {
		if (i == TOP_IDS)
			return 0; /* counted in total, not a candidate for top */
		t->nids[tp]++;
		t->id[tp][i] = s->stack_id;
		t->nips[tp][i] = s->nips;
		memcpy(t->ips[tp][i], s->ips, s->nips * sizeof(uint64_t));
	}
	t->sum[tp][i] += s->count;
	return 0;
}

/* The index of tp's hottest kernel stack. */
static unsigned top_best(const struct top *t, unsigned tp)
{
	unsigned best = 0;

	for (unsigned i = 1; i < t->nids[tp]; i++)
		if (t->sum[tp][i] > t->sum[tp][best])
			best = i;
	return best;
}

int main(int argc, char **argv)
{
	const char *tps[] = { "exceptions:page_fault_user", "kmem:mm_page_alloc" };
	unsigned every = argc > 1 ? (unsigned)atoi(argv[1]) : 1;
	long pages = argc > 2 ? atol(argv[2]) : 20000;
	struct probe_tpstacks_opts o = { .tracepoints = tps, .ntps = 2, .sample_every = every };
	struct probe_tpstacks *t;
	static struct top top; /* large: not on the stack */
	char *cause = NULL, go;
	int pfd[2];
	pid_t child;

	if (pipe(pfd) < 0)
		return 2;
	child = fork();
	if (child == 0) {
		char *p;
		close(pfd[1]);
		if (read(pfd[0], &go, 1) != 1)
			_exit(1);
		p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(1);
		madvise(p, pages * 4096, MADV_NOHUGEPAGE);
		for (long i = 0; i < pages; i++)
			p[i * 4096] = 1;
		_exit(0);
	}
	close(pfd[0]);
	o.tgid = child;
	t = probe_tpstacks_open(&o, &cause);
	if (!t) {
		fprintf(stderr, "probe_tpstacks_open: %s\n", cause ? cause : "?");
		kill(child, SIGKILL);
		return 1;
	}
	if (write(pfd[1], "g", 1) != 1)
		return 1;
	waitpid(child, NULL, 0);
	load_kallsyms();
	if (probe_tpstacks_read(t, on_stack, &top))
		return 1;
	for (unsigned tp = 0; tp < 2; tp++) {
		struct probe_tpstacks_totals tt;
		unsigned b = top_best(&top, tp);

		if (probe_tpstacks_totals(t, tp, &tt))
			return 1;
		printf("tp%u.name %s\n", tp, tps[tp]);
		printf("tp%u.fired %llu\n", tp, (unsigned long long)tt.fired);
		printf("tp%u.recorded %llu\n", tp, (unsigned long long)tt.recorded);
		printf("tp%u.counted %llu\n", tp, (unsigned long long)top.total[tp]);
		printf("tp%u.scaled %llu\n", tp,
		       (unsigned long long)top.total[tp] * probe_tpstacks_sample_every(t));
		printf("tp%u.lost %llu\n", tp, (unsigned long long)tt.count_map_full);
		printf("tp%u.stacks %u\n", tp, top.nstacks[tp]);
		printf("tp%u.top ", tp);
		for (unsigned i = top.nips[tp][b], first = 1; i-- > 0;) {
			const char *n = sym_name(top.ips[tp][b][i]);
			/* the BPF machinery at the leaf is not the kernel's path;
			 * nor is __traceiter_*, there when another tracer (this
			 * machine is shared) holds the tracepoint too: the kind's
			 * own list */
			if (kind_frame_is_machinery(n))
				continue;
			printf("%s%s", first ? "" : ";", n);
			first = 0;
		}
		printf("\n");
	}
	printf("ncpus %ld\n", sysconf(_SC_NPROCESSORS_CONF));
	print_held_progs();
	probe_tpstacks_free(t);
	return 0;
}
