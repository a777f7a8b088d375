/* forkexec — a load whose kernel cost spreads over several branches: a
 * process loop (fork, exec a tiny program, wait), as
 * `sh -c 'while :; do /bin/true; done'` does.  Its increase lies in
 * execve (bprm_execve, the ELF loader, the old mm torn down), exit
 * (do_exit > exit_mmap), clone (copy_process > dup_mm) and the page faults
 * of every new image: no single path explains half of it.
 *
 *   forkexec [--seconds N] [--prog PATH]   (default /bin/true)
 *
 * ops = programs run to their exit.
 */
#include <getopt.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scen.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "prog", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "/bin/true";
	double seconds = 0, end, t0;
	unsigned long long ops = 0;
	int c;

	while ((c = getopt_long(argc, argv, "s:p:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'p': prog = optarg; break;
		default:
			fprintf(stderr, "usage: forkexec [--seconds N] [--prog PATH]\n");
			return 2;
		}
	}
	if (access(prog, X_OK) < 0) {
		fprintf(stderr, "forkexec: cannot run %s\n", prog);
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	while (scen_running(end)) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0)
			break;
		ops++;
	}
	scen_report("forkexec", ops, t0);
	return 0;
}
