/* keychurn — a process whose sampled keys keep changing, as a host's
 * process churn looks to a recorder left running: it takes a new name
 * (prctl PR_SET_NAME, so a new {stack, process, name} key for the
 * sampler) every --period-ms milliseconds (default 10) and reads
 * /dev/zero in between (kernel stacks to be sampled).  The names it left
 * are never seen again: idle keys, what `record --forget` forgets.
 *
 *   keychurn [--seconds N] [--period-ms MS]
 *
 * ops = names taken.
 */
#include <sys/prctl.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "period-ms", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, period = 0.01, t0, end, next;
	unsigned long long ops = 0;
	char buf[4096], name[16];
	int c, fd;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'p': period = atof(optarg) / 1000; break;
		default:
			fprintf(stderr, "usage: keychurn [--seconds N] [--period-ms MS]\n");
			return 2;
		}
	}
	if (!(period > 0)) {
		fprintf(stderr, "keychurn: --period-ms must be above 0\n");
		return 2;
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "keychurn: cannot open /dev/zero: %s\n", strerror(errno));
		return 1;
	}
	end = scen_begin(seconds);
	t0 = next = scen_now();
	while (scen_running(end)) {
		if (scen_now() >= next) {
			snprintf(name, sizeof(name), "kc%llu", ops++);
			prctl(PR_SET_NAME, name, 0, 0, 0);
			next += period;
		}
		if (read(fd, buf, sizeof(buf)) < 0) {
			fprintf(stderr, "keychurn: read: %s\n", strerror(errno));
			close(fd);
			return 1;
		}
	}
	close(fd);
	scen_report("keychurn", ops, t0);
	return 0;
}
