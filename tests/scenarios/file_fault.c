/* file_fault — file-backed read faults: a file is dropped from the page cache
 * (posix_fadvise DONTNEED), mapped read-only, and one byte per page is read,
 * so every fault goes through filemap_fault and reads the page back in.
 *
 *   file_fault [--seconds N] [--mib M] [--file PATH]
 *
 * The file (default /var/tmp/argus-file-fault.PID, on a disk file system:
 * tmpfs would fault through shmem_fault) is created, written and fsync'ed
 * first, and removed at the end unless --file named it.  ops = pages read.
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
	size_t bytes = 32ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	char path[4096] = "";
	long page = sysconf(_SC_PAGESIZE);
	int c, fd, own = 0;
	char *buf;
	volatile char sink = 0;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: file_fault [--seconds N] [--mib M] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0]) {
		snprintf(path, sizeof(path), "/var/tmp/argus-file-fault.%d", (int)getpid());
		own = 1;
	}
	fd = open(path, O_RDWR | O_CREAT, 0600);
	if (fd < 0) {
		fprintf(stderr, "file_fault: cannot open %s: %s\n", path, strerror(errno));
		return 1;
	}
	buf = malloc(1 << 20);
	if (!buf)
		return 1;
	memset(buf, 0x5a, 1 << 20);
	for (size_t off = 0; off < bytes; off += 1 << 20)
		if (pwrite(fd, buf, 1 << 20, (off_t)off) != 1 << 20) {
			fprintf(stderr, "file_fault: cannot write %s: %s\n", path, strerror(errno));
			return 1;
		}
	free(buf);
	fsync(fd);
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		char *p;

		posix_fadvise(fd, 0, (off_t)bytes, POSIX_FADV_DONTNEED);
		p = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			fprintf(stderr, "file_fault: mmap: %s\n", strerror(errno));
			return 1;
		}
		/* No readahead help: each fault reads its own page. */
		madvise(p, bytes, MADV_RANDOM);
		for (size_t off = 0; off < bytes && !scen_stop; off += page, ops++)
			sink += p[off];
		munmap(p, bytes);
	}
	scen_report("file_fault", ops, t0);
	close(fd);
	if (own)
		unlink(path);
	(void)sink;
	return 0;
}
