/* callsite — reads /dev/zero in 256 KiB blocks through a chain of its own
 * functions (main > callsite_run > callsite_fill > callsite_read_zero), so
 * that nearly all its time is on-CPU in the kernel's read_zero path with a
 * known user-space call site (issue 27).
 *
 *   callsite [--seconds N] [--libc]
 *
 * The read is a raw syscall in callsite_read_zero (the whole user stack is
 * this program's: main > callsite_run > callsite_fill > callsite_read_zero >
 * callsite_read_raw), or with --libc glibc's read(), whose wrapper keeps no
 * frame pointer.  The Makefile builds it twice: build/scenarios/callsite
 * with -fomit-frame-pointer and callsite_fp with -fno-omit-frame-pointer.
 *
 * ops = blocks read.
 */
#include <sys/syscall.h>

#include "scen.h"

#define CALLSITE_BLOCK (256u << 10)

static int callsite_libc;

/* The syscall itself, so that the leaf of the user stack is ours (a leaf
 * function: callsite_fp is built with -mno-omit-leaf-frame-pointer too). */
__attribute__((noipa)) static long callsite_read_raw(int fd, void *buf, size_t len)
{
	volatile char mark[16]; /* a stack frame: gcc sets up none in a leaf
	                         * that uses no stack, frame pointers or not */
	long ret;

	mark[0] = 1;
	(void)mark[0];
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Through glibc's read(), or not (callsite_fp is built with
 * -fno-optimize-sibling-calls: a tail call leaves no frame). */
__attribute__((noipa)) static long callsite_read_zero(int fd, void *buf, size_t len)
{
	long n = callsite_libc ? read(fd, buf, len) : callsite_read_raw(fd, buf, len);

	return n;
}

/* Not a tail call (the result is used): its frame stays on the stack. */
__attribute__((noipa)) static int callsite_fill(int fd, unsigned char *buf)
{
	long n = callsite_read_zero(fd, buf, CALLSITE_BLOCK);

	return n == (long)CALLSITE_BLOCK ? buf[n - 1] : -1;
}

__attribute__((noipa)) static unsigned long long callsite_run(int fd, double end)
{
	static unsigned char buf[CALLSITE_BLOCK];
	unsigned long long ops = 0;

	/* -EINTR (argus pauses and resumes the load with signals): read again */
	while (scen_running(end))
		if (callsite_fill(fd, buf) == 0)
			ops++;
	return ops;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "libc", no_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	double seconds = 0, end, t0;
	unsigned long long ops;
	int c, fd;

	while ((c = getopt_long(argc, argv, "s:l", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'l': callsite_libc = 1; break;
		default:
			fprintf(stderr, "usage: callsite [--seconds N] [--libc]\n");
			return 2;
		}
	}
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("callsite: /dev/zero");
		return 1;
	}
	end = scen_begin(seconds);
	t0 = scen_now();
	ops = callsite_run(fd, end);
	close(fd);
	{
		/* its own CPU time too: tests/bench/ustack.sh divides by it */
		struct timespec cpu;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
		printf("callsite: ops=%llu seconds=%.3f ops_per_sec=%.0f cpu_seconds=%.3f\n", ops,
		       scen_now() - t0, ops / (scen_now() - t0), cpu.tv_sec + cpu.tv_nsec / 1e9);
		fflush(stdout);
	}
	return 0;
}
