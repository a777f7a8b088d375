/* aggressor — hurts `victim` through the kernel without touching its
 * memory directly: it punches holes in the shared tmpfs file the victim has
 * mapped (fallocate PUNCH_HOLE, what a cache manager or a "free the shared
 * buffer" cleanup does).  The kernel unmaps the victim's pages (TLB
 * shootdowns) and frees them; the victim's next write to each page faults
 * through do_fault -> __do_fault -> shmem_fault and gets a fresh zeroed page.
 *
 *   aggressor [--seconds N] [--mib M] [--file PATH] [--interval-ms MS]
 *
 * Same --file and --mib as the victim (defaults match).  ops = punches.
 */

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mib", required_argument, NULL, 'm' },
		{ "file", required_argument, NULL, 'f' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 64ul << 20;
	double seconds = 0, t0, end, interval_ms = 1;
	unsigned long long ops = 0;
	int created = 0;
	char path[4096] = "";
	struct stat st;
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:m:f:i:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		case 'i': interval_ms = atof(optarg); break;
		default:
			fprintf(stderr, "usage: aggressor [--seconds N] [--mib M] [--file PATH] [--interval-ms MS]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/argus-shared.%d", (int)getuid());
	fd = scen_shared_open(path, &created);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "aggressor: cannot open %s: %s\n", path, strerror(errno));
		scen_shared_done(path, fd, created);
		return 1;
	}
	if ((size_t)st.st_size < bytes && ftruncate(fd, (off_t)bytes) < 0) {
		fprintf(stderr, "aggressor: cannot size %s: %s\n", path, strerror(errno));
		scen_shared_done(path, fd, created);
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) < 0) {
			fprintf(stderr, "aggressor: fallocate(PUNCH_HOLE) on %s: %s\n", path,
				strerror(errno));
			scen_shared_done(path, fd, created);
			return 1;
		}
		ops++;
		if (interval_ms > 0) {
			struct timespec ts = { (time_t)(interval_ms / 1000),
					       (long)((interval_ms - 1000 * (long)(interval_ms / 1000)) * 1e6) };

			nanosleep(&ts, NULL);
		}
	}
	scen_report("aggressor", ops, t0);
	scen_shared_done(path, fd, created);
	return 0;
}
