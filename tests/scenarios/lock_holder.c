/* lock_holder — rewrites a file on tmpfs in one large write(2) and then
 * punches it out (fallocate(FALLOC_FL_PUNCH_HOLE)), in a loop: both hold the
 * inode's i_rwsem for milliseconds, so every other writer of the file
 * waits (see lock_victim).
 *
 *   lock_holder [--seconds N] [--mib M] [--file PATH]
 *
 * The file defaults to lock_victim's (/dev/shm/argus-lock.UID); --mib is
 * the size of each rewrite (default 32).  ops = rewrite + punch rounds.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/falloc.h>
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
	size_t bytes = 32ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	char path[4096] = "", *buf;
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: lock_holder [--seconds N] [--mib M] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/argus-lock.%d", (int)getuid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || buf == MAP_FAILED) {
		fprintf(stderr, "lock_holder: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(buf, 'h', bytes);
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		if (pwrite(fd, buf, bytes, 0) < 0 ||
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)bytes) < 0) {
			fprintf(stderr, "lock_holder: %s\n", strerror(errno));
			return 1;
		}
		ops++;
	}
	scen_report("lock_holder", ops, t0);
	close(fd);
	return 0;
}
