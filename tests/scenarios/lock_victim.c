/* lock_victim — an application appending small records to a log file on
 * tmpfs (4 KiB pwrite at a rolling offset in the first --mib MiB).  Alone,
 * each write is a short copy into the page cache.  Beside `lock_holder`
 * (same --file), which rewrites and punches the same file in large writes
 * and fallocate(PUNCH_HOLE) calls that hold the inode's i_rwsem, its
 * writes wait for that lock: blocked under shmem_file_write_iter > down_write
 * > rwsem_down_write_slowpath, woken by the lock holder.
 *
 *   lock_victim [--seconds N] [--mib M] [--file PATH]
 *
 * The file defaults to /dev/shm/argus-lock.UID.  ops = 4 KiB writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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
	size_t bytes = 4ul << 20, off = 0;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	char path[4096] = "", buf[4096];
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: lock_victim [--seconds N] [--mib M] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/argus-lock.%d", (int)getuid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		fprintf(stderr, "lock_victim: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	memset(buf, 'v', sizeof(buf));
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "lock_victim: write: %s\n", strerror(errno));
			return 1;
		}
		off = (off + sizeof(buf)) % bytes;
		ops++;
	}
	scen_report("lock_victim", ops, t0);
	close(fd);
	return 0;
}
