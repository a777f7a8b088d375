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
#include <linux/falloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	struct scen_file_args a;
	double t0, end;
	unsigned long long ops = 0;
	char *buf;
	int fd, created = 0;

	if (scen_file_args(argc, argv, "lock_holder", 32, "/dev/shm/argus-lock", &a))
		return 2;
	fd = scen_shared_open(a.path, &created);
	buf = mmap(NULL, a.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || buf == MAP_FAILED) {
		fprintf(stderr, "lock_holder: cannot open %s: %s\n", a.path, strerror(errno));
		scen_shared_done(a.path, fd, created);
		return 1;
	}
	memset(buf, 'h', a.bytes);
	end = scen_begin(a.seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		if (pwrite(fd, buf, a.bytes, 0) < 0 ||
		    fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)a.bytes) < 0) {
			fprintf(stderr, "lock_holder: %s\n", strerror(errno));
			scen_shared_done(a.path, fd, created);
		return 1;
		}
		ops++;
	}
	scen_report("lock_holder", ops, t0);
	scen_shared_done(a.path, fd, created);
	return 0;
}
