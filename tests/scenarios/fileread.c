/* fileread — a load that reads a page-cached file on a disk filesystem, for
 * the displacement scenarios (tests/scenarios/README): beside a background
 * that keeps every CPU busy reading /dev/zero (noisy), the load takes CPU
 * from it under the same kernel parent.
 *   --mode pread  (default) pread(2) 64 KiB at a time: __x64_sys_pread64 >
 *                 ksys_pread64 > vfs_read > ext4_file_read_iter > filemap_read,
 *                 a sibling of the background's read(2) under do_syscall_64
 *   --mode read   read(2), rewinding at the end: __x64_sys_read > ksys_read >
 *                 vfs_read shared with the background, filemap_read below it
 *                 where the background has read_iter_zero
 * The file (--file PATH, default /var/tmp/argus-fileread.UID, --mib M, 16 by
 * default) is written once and read twice before the timing starts, so every
 * read is a page-cache hit: CPU time in the kernel, no I/O.
 *
 *   fileread [--seconds N] [--mode pread|read] [--file PATH] [--mib M]
 *
 * ops = reads of 64 KiB.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scen.h"

#define CHUNK (64 << 10)

static int prepare(const char *path, size_t bytes)
{
	static char buf[CHUNK];
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT, 0600);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0 && (size_t)st.st_size != bytes) {
		memset(buf, 'a', sizeof(buf));
		if (ftruncate(fd, 0) < 0)
			goto fail;
		for (size_t off = 0; off < bytes; off += CHUNK)
			if (write(fd, buf, CHUNK) != CHUNK)
				goto fail;
	}
	/* twice through: every page in the cache */
	for (int pass = 0; pass < 2; pass++)
		for (off_t off = 0; (size_t)off < bytes; off += CHUNK)
			if (pread(fd, buf, CHUNK, off) < 0)
				goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'M' },
		{ "file", required_argument, NULL, 'f' },
		{ "mib", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	static char buf[CHUNK];
	char defpath[128];
	const char *path = NULL;
	double seconds = 0, end, t0;
	unsigned long long ops = 0;
	size_t bytes = 16u << 20;
	off_t off = 0;
	int c, use_read = 0, fd;

	while ((c = getopt_long(argc, argv, "s:M:f:m:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'M': use_read = !strcmp(optarg, "read"); break;
		case 'f': path = optarg; break;
		case 'm': bytes = (size_t)atoi(optarg) << 20; break;
		default:
			fprintf(stderr, "usage: fileread [--seconds N] [--mode pread|read] "
				"[--file PATH] [--mib M]\n");
			return 2;
		}
	}
	if (bytes < CHUNK)
		bytes = CHUNK;
	if (!path) {
		snprintf(defpath, sizeof(defpath), "/var/tmp/argus-fileread.%u", (unsigned)getuid());
		path = defpath;
	}
	fd = prepare(path, bytes);
	if (fd < 0) {
		fprintf(stderr, "fileread: cannot prepare %s: %s\n", path, strerror(errno));
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		ssize_t n;

		if (use_read) {
			n = read(fd, buf, CHUNK);
			if (n == 0 && lseek(fd, 0, SEEK_SET) == 0)
				continue;
		} else {
			n = pread(fd, buf, CHUNK, off);
			off = (off + CHUNK) % (off_t)bytes;
		}
		if (n < 0)
			break;
		ops++;
	}
	close(fd);
	scen_report("fileread", ops, t0);
	return 0;
}
