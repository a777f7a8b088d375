/* io_victim — an application that reads its data file at random 4 KiB
 * offsets with pread(2).  Alone, the file stays in the page cache and every
 * read is a copy (filemap_read on-CPU).  Beside `evictor` (same --file),
 * its pages keep being dropped and each read waits for the disk: blocked
 * under filemap_read > filemap_get_pages > ... > folio_wait_bit_common,
 * woken by the block completion (softirq BLOCK or the virtio hardirq).
 *
 *   io_victim [--seconds N] [--mib M] [--file PATH]
 *
 * The file defaults to /var/tmp/argus-io.UID (a disk-backed file system,
 * not tmpfs); it is created with non-zero data (so ext4 really reads it)
 * when missing or short.  ops = 4 KiB reads.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	size_t pages;
	struct scen_file_args a;
	double t0, end;
	unsigned long long ops = 0;
	unsigned long x = 88172645463325252ul;
	char buf[4096];
	struct stat sb;
	int fd;

	if (scen_file_args(argc, argv, "io_victim", 8, "/var/tmp/argus-io", &a))
		return 2;
	fd = open(a.path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "io_victim: cannot open %s: %s\n", a.path, strerror(errno));
		return 1;
	}
	if ((size_t)sb.st_size < a.bytes) {
		memset(buf, 'a', sizeof(buf));
		for (size_t off = 0; off < a.bytes; off += sizeof(buf))
			if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf)) {
				fprintf(stderr, "io_victim: cannot write %s: %s\n", a.path, strerror(errno));
				return 1;
			}
		fsync(fd);
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* no readahead: one page per miss */
	pages = a.bytes / sizeof(buf);
	end = scen_begin(a.seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		for (int i = 0; i < 64; i++, ops++) {
			x ^= x << 13; x ^= x >> 7; x ^= x << 17;
			if (pread(fd, buf, sizeof(buf), (off_t)(x % pages) * (off_t)sizeof(buf)) < 0) {
				fprintf(stderr, "io_victim: read: %s\n", strerror(errno));
				return 1;
			}
		}
	}
	scen_report("io_victim", ops, t0);
	close(fd);
	return 0;
}
