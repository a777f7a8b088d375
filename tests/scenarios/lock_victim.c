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
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	size_t off = 0;
	struct scen_file_args a;
	double t0, end;
	unsigned long long ops = 0;
	char buf[4096];
	int fd, created = 0;

	if (scen_file_args(argc, argv, "lock_victim", 4, "/dev/shm/argus-lock", &a))
		return 2;
	fd = scen_shared_open(a.path, &created);
	if (fd < 0) {
		fprintf(stderr, "lock_victim: cannot open %s: %s\n", a.path, strerror(errno));
		scen_shared_done(a.path, fd, created);
		return 1;
	}
	memset(buf, 'v', sizeof(buf));
	end = scen_begin(a.seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf)) {
			fprintf(stderr, "lock_victim: write: %s\n", strerror(errno));
			scen_shared_done(a.path, fd, created);
		return 1;
		}
		off = (off + sizeof(buf)) % a.bytes;
		ops++;
	}
	scen_report("lock_victim", ops, t0);
	scen_shared_done(a.path, fd, created);
	return 0;
}
