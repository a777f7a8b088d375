/* thp_fault — transparent huge page faults: 2 MiB-aligned anonymous regions
 * marked MADV_HUGEPAGE, one write per 2 MiB, so each fault allocates and
 * clears a huge page (do_huge_pmd_anonymous_page -> folio_zero_user, called
 * clear_huge_page before 6.9).  Needs THP "always" or "madvise".
 *
 *   thp_fault [--seconds N] [--mib M]
 *
 * ops = huge pages faulted.  Prints how many of them the kernel really made
 * huge (thp_fault_alloc from /proc/vmstat) so a fallback is visible.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scen.h"

#define HPAGE (2ul << 20)

static unsigned long long vmstat(const char *key)
{
	char name[64];
	unsigned long long v, ret = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		if (!strcmp(name, key))
			ret = v;
	fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 64ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0, thp0;
	int c;

	while ((c = getopt_long(argc, argv, "s:m:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		default:
			fprintf(stderr, "usage: thp_fault [--seconds N] [--mib M]\n");
			return 2;
		}
	}
	bytes = (bytes + HPAGE - 1) & ~(HPAGE - 1);
	thp0 = vmstat("thp_fault_alloc");
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		/* Over-allocate by 2 MiB and align by hand. */
		char *raw = mmap(NULL, bytes + HPAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *p;

		if (raw == MAP_FAILED) {
			fprintf(stderr, "thp_fault: mmap: %s\n", strerror(errno));
			return 1;
		}
		p = (char *)(((uintptr_t)raw + HPAGE - 1) & ~(HPAGE - 1));
		if (madvise(p, bytes, MADV_HUGEPAGE) < 0) {
			fprintf(stderr, "thp_fault: madvise(MADV_HUGEPAGE): %s\n", strerror(errno));
			return 1;
		}
		for (size_t off = 0; off < bytes && !scen_stop; off += HPAGE, ops++)
			p[off] = 1;
		munmap(raw, bytes + HPAGE);
	}
	printf("thp_fault: huge_pages_allocated=%llu\n", vmstat("thp_fault_alloc") - thp0);
	scen_report("thp_fault", ops, t0);
	return 0;
}
