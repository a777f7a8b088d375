/* spinner — --threads N threads (default 2) spinning in user space, all
 * pinned to --cpu C (default 0): the CPU starvation aggressor for `starved`.
 *
 *   spinner [--seconds N] [--threads N] [--cpu C]
 *
 * ops = spin rounds of all threads.
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "scen.h"

static double spin_end;
static int spin_cpu;
static unsigned long long spin_ops[64];

static void *spin(void *arg)
{
	unsigned long long *ops = arg;
	volatile unsigned long acc = 1;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(spin_cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (scen_running(spin_end)) {
		for (int i = 0; i < 100000; i++)
			acc = acc * 3 + 1;
		(*ops)++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, t0;
	unsigned long long ops = 0;
	pthread_t th[64];
	int c, n = 2;

	while ((c = getopt_long(argc, argv, "s:t:c:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 't': n = atoi(optarg); break;
		case 'c': spin_cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: spinner [--seconds N] [--threads N] [--cpu C]\n");
			return 2;
		}
	}
	if (n < 1 || n > 64) {
		fprintf(stderr, "spinner: --threads must be 1 to 64\n");
		return 2;
	}
	spin_end = scen_begin(seconds);
	t0 = scen_now();
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, spin, &spin_ops[i]);
	for (int i = 0; i < n; i++) {
		pthread_join(th[i], NULL);
		ops += spin_ops[i];
	}
	scen_report("spinner", ops, t0);
	return 0;
}
