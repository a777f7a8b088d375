/* victim — an application that keeps a shared-memory working set resident
 * and writes to it: with nobody interfering its page writes never enter the
 * kernel.  Beside `aggressor` (same --file), its pages keep being taken away
 * and every write refaults through shmem_fault (see README).
 *
 *   victim [--seconds N] [--mib M] [--file PATH]
 *
 * The file defaults to /dev/shm/argus-shared.UID (tmpfs: shmem); whichever
 * of victim and aggressor created it removes it when it ends.  ops = page
 * writes; ops_per_sec drops when the aggressor runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	struct scen_file_args a;
	double t0, end;
	unsigned long long ops = 0;
	long page = sysconf(_SC_PAGESIZE);
	char *p;
	int fd, created = 0;

	if (scen_file_args(argc, argv, "victim", 64, "/dev/shm/argus-shared", &a))
		return 2;
	fd = scen_shared_open(a.path, &created);
	if (fd < 0 || ftruncate(fd, (off_t)a.bytes) < 0) {
		fprintf(stderr, "victim: cannot open %s: %s\n", a.path, strerror(errno));
		scen_shared_done(a.path, fd, created);
		return 1;
	}
	p = mmap(NULL, a.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		fprintf(stderr, "victim: mmap: %s\n", strerror(errno));
		scen_shared_done(a.path, fd, created);
		return 1;
	}
	end = scen_begin(a.seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		for (size_t off = 0; off < a.bytes; off += page, ops++)
			p[off]++;
	}
	scen_report("victim", ops, t0);
	munmap(p, a.bytes);
	scen_shared_done(a.path, fd, created);
	return 0;
}
