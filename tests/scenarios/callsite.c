/* callsite — reads /dev/zero in 256 KiB blocks through a chain of its own
 * functions (main > callsite_run > callsite_fill > callsite_read_zero), so
 * that nearly all its time is on-CPU in the kernel's read_zero path with a
 * known user-space call site (issue 27).
 *
 *   callsite [--seconds N] [--libc] [--nap US | --pipe US]
 *
 * The read is a raw syscall in callsite_read_zero (the whole user stack is
 * this program's: main > callsite_run > callsite_fill > callsite_read_zero >
 * callsite_read_raw), or with --libc glibc's read(), whose wrapper keeps no
 * frame pointer.  The Makefile builds it twice: build/scenarios/callsite
 * with -fomit-frame-pointer and callsite_fp with -fno-omit-frame-pointer.
 *
 * --nap US: after each block, sleep US microseconds in a raw nanosleep
 * (main > callsite_run > callsite_fill > callsite_nap_raw): the program
 * blocks off-CPU with a known user stack too (an offcpu step, issue 27).
 *
 * --pipe US: the wait is on another process instead (a blocked path woken
 * by a task, issue 27): a child, "callsite_tick", writes a byte to each of
 * eight pipes every US microseconds, and eight threads, one a pipe, each
 * read one byte after each block in a raw read (... > callsite_fill >
 * callsite_pipe_raw), blocked in pipe_read until the child's write wakes
 * them.  A pipe each: readers of one pipe wake each other (pipe_read wakes
 * the next reader while bytes are left), and the waker would be a reader.
 * Eight: their wait is eight times the ticker's own sleep, most of it.
 *
 * ops = blocks read.
 */
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "scen.h"

#define CALLSITE_BLOCK (256u << 10)

static int callsite_libc;
static struct timespec callsite_nap; /* zero: no nap */

#define CALLSITE_READERS 8

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

/* The nanosleep syscall itself, as callsite_read_raw reads: the leaf of the
 * blocked task's user stack is ours. */
__attribute__((noipa)) static long callsite_nap_raw(const struct timespec *ts)
{
	volatile char mark[16]; /* a stack frame, as in callsite_read_raw */
	long ret;

	mark[0] = 1;
	(void)mark[0];
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_nanosleep), "D"(ts), "S"(0L)
			 : "rcx", "r11", "memory");
	return ret;
}

/* The one-byte read of --pipe: the raw syscall, as callsite_read_raw, so
 * the blocked task's user stack leaf is ours. */
__attribute__((noipa)) static long callsite_pipe_raw(int fd)
{
	volatile char mark[16]; /* a stack frame, as in callsite_read_raw */
	char b;
	long ret;

	mark[0] = 1;
	(void)mark[0];
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)SYS_read), "D"((long)fd), "S"(&b), "d"(1L)
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
__attribute__((noipa)) static int callsite_fill(int fd, int pipe_fd, unsigned char *buf)
{
	long n = callsite_read_zero(fd, buf, CALLSITE_BLOCK);

	/* the result is used: not a tail call, callsite_fill stays on the stack */
	if ((callsite_nap.tv_sec || callsite_nap.tv_nsec) && callsite_nap_raw(&callsite_nap) < 0)
		n = -1;
	if (pipe_fd >= 0 && callsite_pipe_raw(pipe_fd) == 0)
		n = -1; /* the ticker is gone */
	return n == (long)CALLSITE_BLOCK ? buf[n - 1] : -1;
}

__attribute__((noipa)) static unsigned long long callsite_run(int fd, int pipe_fd, double end)
{
	static unsigned char buf[CALLSITE_BLOCK];
	unsigned long long ops = 0;

	/* -EINTR (argus pauses and resumes the load with signals): read again */
	while (scen_running(end))
		if (callsite_fill(fd, pipe_fd, buf) == 0)
			ops++;
	return ops;
}

struct callsite_reader {
	pthread_t t;
	int fd, pipe_fd;
	double end;
	unsigned long long ops;
};

static void *callsite_reader(void *arg)
{
	struct callsite_reader *r = arg;

	r->ops = callsite_run(r->fd, r->pipe_fd, r->end);
	return NULL;
}

/* --pipe's child: a byte to each reader's pipe every period, until the
 * end or the readers are gone (EPIPE), or its parent. */
static void callsite_tick(const int *wfd, const struct timespec *period, double end)
{
	prctl(PR_SET_NAME, "callsite_tick");
	signal(SIGPIPE, SIG_IGN);
	while (scen_running(end) && getppid() != 1) {
		nanosleep(period, NULL);
		for (int i = 0; i < CALLSITE_READERS; i++)
			if (write(wfd[i], "x", 1) < 0 && errno == EPIPE)
				_exit(0);
	}
	_exit(0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, NULL, 's' },
		{ "libc", no_argument, NULL, 'l' },
		{ "nap", required_argument, NULL, 'n' },
		{ "pipe", required_argument, NULL, 'p' },
		{ NULL, 0, NULL, 0 },
	};
	struct callsite_reader rd[CALLSITE_READERS];
	struct timespec tick = { 0 };
	double seconds = 0, end, t0;
	unsigned long long ops;
	int c, fd, rfd[CALLSITE_READERS], wfd[CALLSITE_READERS];

	while ((c = getopt_long(argc, argv, "s:ln:p:", opts, NULL)) != -1) {
		switch (c) {
		case 's': seconds = atof(optarg); break;
		case 'l': callsite_libc = 1; break;
		case 'n': {
			long us = atol(optarg);

			callsite_nap.tv_sec = us / 1000000;
			callsite_nap.tv_nsec = us % 1000000 * 1000;
			break;
		}
		case 'p': {
			long us = atol(optarg);

			tick.tv_sec = us / 1000000;
			tick.tv_nsec = us % 1000000 * 1000;
			break;
		}
		default:
			fprintf(stderr, "usage: callsite [--seconds N] [--libc] [--nap US | --pipe US]\n");
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
	if (tick.tv_sec || tick.tv_nsec) {
		pid_t child;

		for (int i = 0; i < CALLSITE_READERS; i++) {
			int p[2];

			if (pipe(p) < 0) {
				perror("callsite: --pipe");
				return 1;
			}
			rfd[i] = p[0];
			wfd[i] = p[1];
		}
		if ((child = fork()) < 0) {
			perror("callsite: --pipe");
			return 1;
		}
		if (child == 0)
			callsite_tick(wfd, &tick, end);
		ops = 0;
		for (int i = 0; i < CALLSITE_READERS; i++) {
			close(wfd[i]);
			rd[i] = (struct callsite_reader){ .fd = fd, .pipe_fd = rfd[i], .end = end };
			if (pthread_create(&rd[i].t, NULL, callsite_reader, &rd[i])) {
				fprintf(stderr, "callsite: cannot start a reader thread\n");
				return 1;
			}
		}
		for (int i = 0; i < CALLSITE_READERS; i++) {
			pthread_join(rd[i].t, NULL);
			ops += rd[i].ops;
		}
	} else {
		ops = callsite_run(fd, -1, end);
	}
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
