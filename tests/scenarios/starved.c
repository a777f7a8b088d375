/* starved — a CPU-bound application pinned to one CPU (--cpu, default 0)
 * that computes in user space and makes a getppid(2) call every 1000
 * rounds.  Alone it runs all the time; beside `spinner` on the same CPU it
 * waits for the CPU: its on-CPU time falls and its runnable time (preempted
 * by the timer tick, "ran instead: spinner") rises.
 *
 *   starved [--seconds N] [--cpu C]
 *
 * ops = rounds of 1000 multiply-adds.
 */
#include <getopt.h>
#include <sched.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "cpu", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, t0, end;
	unsigned long long ops = 0;
	volatile unsigned long acc = 1;
	cpu_set_t set;
	int c, cpu = 0;

	while ((c = getopt_long(argc, argv, "s:c:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'c': cpu = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: starved [--seconds N] [--cpu C]\n");
			return 2;
		}
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("starved: sched_setaffinity");
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		for (int k = 0; k < 1000; k++, ops++)
			for (int i = 0; i < 1000; i++)
				acc = acc * 6364136223846793005ul + 1442695040888963407ul;
		getppid();
	}
	scen_report("starved", ops, t0);
	return 0;
}
