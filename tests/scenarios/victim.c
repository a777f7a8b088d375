/* victim — an application that keeps a shared-memory working set resident
 * and writes to it: with nobody interfering its page writes never enter the
 * kernel.  Beside `aggressor` (same --file), its pages keep being taken away
 * and every write refaults through shmem_fault (see README).
 *
 *   victim [--seconds N] [--mib M] [--file PATH]
 *
 * The file defaults to /dev/shm/argus-shared.UID (tmpfs: shmem).  ops = page
 * writes; ops_per_sec drops when the aggressor runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 64ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	long page = sysconf(_SC_PAGESIZE);
	char path[4096] = "";
	char *p;
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: victim [--seconds N] [--mib M] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/argus-shared.%d", (int)getuid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)bytes) < 0) {
		fprintf(stderr, "victim: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "victim: mmap: %s\n", strerror(errno));
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		for (size_t off = 0; off < bytes; off += page, ops++)
			p[off]++;
	}
	scen_report("victim", ops, t0);
	munmap(p, bytes);
	close(fd);
	return 0;
}
