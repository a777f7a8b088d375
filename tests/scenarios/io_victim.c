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
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 8ul << 20, pages;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	unsigned long x = 88172645463325252ul;
	char path[4096] = "", buf[4096];
	struct stat sb;
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: io_victim [--seconds N] [--mib M] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/var/tmp/argus-io.%d", (int)getuid());
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "io_victim: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	if ((size_t)sb.st_size < bytes) {
		memset(buf, 'a', sizeof(buf));
		for (size_t off = 0; off < bytes; off += sizeof(buf))
			if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf)) {
				fprintf(stderr, "io_victim: cannot write %s: %s\n", path, strerror(errno));
				return 1;
			}
		fsync(fd);
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); /* no readahead: one page per miss */
	pages = bytes / sizeof(buf);
	end = scen_begin(seconds);
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
