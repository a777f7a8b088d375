/* evictor — drops a file from the page cache in a loop
 * (posix_fadvise(POSIX_FADV_DONTNEED) every --every-ms, default 5), as a
 * backup or a "drop caches" cron job would: the readers of that file then
 * wait for the disk (see io_victim).
 *
 *   evictor [--seconds N] [--every-ms MS] [--file PATH]
 *
 * The file defaults to io_victim's (/var/tmp/argus-io.UID).  ops = drops.
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
		{ "every-ms", required_argument, NULL, 'e' },
		{ "file", required_argument, NULL, 'f' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, t0, end, every = 5;
	unsigned long long ops = 0;
	char path[4096] = "";
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:e:f:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'e': every = atof(optarg); break;
		case 'f': snprintf(path, sizeof(path), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: evictor [--seconds N] [--every-ms MS] [--file PATH]\n");
			return 2;
		}
	}
	if (!path[0])
		snprintf(path, sizeof(path), "/var/tmp/argus-io.%d", (int)getuid());
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "evictor: cannot open %s: %s (start io_victim first)\n", path,
			strerror(errno));
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		ops++;
		usleep((useconds_t)(every * 1000));
	}
	scen_report("evictor", ops, t0);
	close(fd);
	return 0;
}
