/* file_fault — file-backed read faults: a file is dropped from the page cache
 * (posix_fadvise DONTNEED), mapped read-only, and one byte per page is read
 * (MADV_RANDOM: no readahead), so every fault goes through filemap_fault and
 * brings its page back into the page cache.
 *
 * By default the file is sparse: ext4 fills a hole's page with zeroes
 * without any disk I/O, so the whole cost is on the CPU, in the fault path
 * (filemap_fault > page_cache_sync_ra > read_pages > ext4_mpage_readpages).
 * With --data the file holds data and every fault waits for the disk: most
 * of the time is then off-CPU, and the on-CPU cost is dominated by the I/O
 * completion interrupts (handle_softirqs) and the virtio doorbell.
 *
 *   file_fault [--seconds N] [--mib M] [--file PATH] [--data]
 *              [--advice random|normal|sequential]
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
		{ "advice", required_argument, NULL, 'a' },
		{ "data", no_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	size_t bytes = 32ul << 20;
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	char path[4096] = "";
	long page = sysconf(_SC_PAGESIZE);
	int c, fd, own = 0, data = 0, advice = MADV_RANDOM; /* one page per fault */
	char *buf;
	volatile char sink = 0;

	while ((c = getopt_long(argc, argv, "s:m:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'm': bytes = (size_t)atol(optarg) << 20; break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		case 'd': data = 1; break;
		case 'a':
			advice = !strcmp(optarg, "random") ? MADV_RANDOM :
				 !strcmp(optarg, "sequential") ? MADV_SEQUENTIAL : MADV_NORMAL;
			break;
		default:
			fprintf(stderr, "usage: file_fault [--seconds N] [--mib M] [--file PATH] [--data] [--advice random|normal|sequential]\n");
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
	if (ftruncate(fd, 0) < 0 || ftruncate(fd, (off_t)bytes) < 0) {
		fprintf(stderr, "file_fault: cannot size %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (size_t off = 0; data && off < bytes; off += 1 << 20)
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
		madvise(p, bytes, advice);
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
