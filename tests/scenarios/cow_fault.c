/* cow_fault — copy-on-write faults after fork: the parent fills a region,
 * forks, and the child writes one byte per page, so every write faults into
 * do_wp_page and copies the page (wp_page_copy, inlined on some builds).
 *
 *   cow_fault [--seconds N] [--mib M]
 *
 * ops = pages copied.
 */
#include <errno.h>
#include <getopt.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 64ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *p;
	int c;

	while ((c = getopt_long(argc, argv, "s:m:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		default:
			fprintf(stderr, "usage: cow_fault [--seconds N] [--mib M]\n");
			return 2;
		}
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "cow_fault: mmap: %s\n", strerror(errno));
		return 1;
	}
	/* Small pages only: a THP would be copied by do_huge_pmd_wp_page. */
	madvise(p, bytes, MADV_NOHUGEPAGE);
	memset(p, 1, bytes);
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		pid_t pid = fork();
		int st;

		if (pid < 0) {
			fprintf(stderr, "cow_fault: fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid == 0) {
			for (size_t off = 0; off < bytes; off += page)
				p[off] = 2;
			_exit(0);
		}
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		ops += bytes / page;
	}
	scen_report("cow_fault", ops, t0);
	return 0;
}
