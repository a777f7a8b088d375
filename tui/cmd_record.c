/* cmd_record — `argus record`: sample kernel stacks for a while (system-wide,
 * one process tree, or a command argus launches) and print the tree as JSON
 * or folded stacks.  Headless: no curses; a summary line goes to stderr. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "load.h"
#include "num.h"
#include "probe.h"
#include "probe_profile.h"
#include "source_live.h"
#include "tree.h"

#define RECORD_MAX_PIDS 64

static const char record_usage[] =
	"usage: argus record [--duration S] [--freq HZ] [-p PID]... [--json | --folded]\n"
	"                    [--stacks N] [--keys N] [--no-follow] [-v] [-- CMD ARGS]\n"
	"\n"
	"Samples kernel stacks on every CPU (cpu-clock) and prints the calling-context\n"
	"tree on stdout; a summary line (samples, rate, dropped stacks) goes to stderr.\n"
	"\n"
	"  -d, --duration S   stop after S seconds (default: when the command or the\n"
	"                     process exits, or on Ctrl-C / SIGTERM)\n"
	"  -F, --freq HZ      samples per second per CPU (default %u)\n"
	"  -p, --pid PID      only this process and its children (repeatable); with\n"
	"                     one -p, the recording stops when the process exits\n"
	"  -- CMD ARGS        run CMD, sampling only it and its children; it is killed\n"
	"                     when the recording stops; its stdout goes to stderr\n"
	"  -j, --json         JSON tree {\"name\",\"total\",\"self\",\"children\"}, root \"all\"\n"
	"                     (the default)\n"
	"  -f, --folded       folded stacks \"a;b;c N\", root first\n"
	"      --stacks N     stack map entries (default %u; raise when stacks collide)\n"
	"      --keys N       distinct {stack, process} entries (default %u)\n"
	"      --no-follow    do not add children of filtered processes\n"
	"  -v, --verbose      libbpf's messages on stderr\n"
	"  -h, --help         this help\n"
	"\n"
	"Needs root, or CAP_BPF and CAP_PERFMON.  Exit status: 0 ok, 1 error, 2 usage,\n"
	"3 privileges, 4 kernel cannot do it, 127 CMD could not be run.\n";

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void log_stderr(void *arg, enum probe_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	fputs(msg, stderr);
}

/* The tgid of pid (a thread id is accepted), or -errno. */
static long record_tgid(long pid)
{
	char path[64], line[256];
	long tgid = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Tgid:", 5)) {
			tgid = strtol(line + 5, NULL, 10);
			break;
		}
	fclose(f);
	return tgid;
}

/* A whole number of unit in [min, max] (core/num.c); prints why not. */
static int record_uint(const char *opt, const char *s, unsigned long min, unsigned long max,
		       const char *unit, unsigned long *out)
{
	char *cause = NULL;
	int64_t v;

	if (num_parse_int64(s, (int64_t)min, (int64_t)max, unit, &v, &cause) < 0) {
		fprintf(stderr, "argus: %s: %s\n", opt, cause ? cause : "bad number");
		free(cause);
		return -EINVAL;
	}
	*out = (unsigned long)v;
	return 0;
}

static int record_exit_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EXIT_PRIV;
	case ENOMEM:
		return EXIT_ERROR;
	default:
		return EXIT_KERNEL;
	}
}

static void record_summary(struct source *src, double secs, const char *why,
			   const struct probe_profile_opts *po)
{
	struct probe_profile_stats st;

	if (source_live_stats(src, &st))
		return;
	fprintf(stderr,
		"argus: %llu kernel samples in %.1f s (%.0f/s, %u CPU%s at %u Hz)%s%s; "
		"user %llu, other processes %llu; dropped %llu (colliding stacks %llu, "
		"map full %llu, errors %llu); %zu distinct stacks\n",
		(unsigned long long)st.kernel, secs, secs > 0 ? st.kernel / secs : 0.0,
		st.cpus, st.cpus == 1 ? "" : "s", st.freq_hz, why ? "; " : "", why ? why : "",
		(unsigned long long)st.user_mode, (unsigned long long)st.filtered_out,
		(unsigned long long)st.dropped, (unsigned long long)st.stack_collision,
		(unsigned long long)st.count_map_full, (unsigned long long)st.stack_error,
		st.stacks);
	if (st.bpf_run_cnt && secs >= 1)
		fprintf(stderr, "argus: sampler cost %.3f%% of one CPU (%.2f us per sample)\n",
			st.bpf_run_ns / (secs * 1e9) * 100, st.bpf_run_ns / 1e3 / st.bpf_run_cnt);
	if (st.stack_collision > st.kernel / 100)
		fprintf(stderr, "argus: more than 1%% of the stacks collided in the stack map; "
			"raise --stacks (now %u)\n",
			po->stack_entries ? po->stack_entries : PROBE_PROFILE_DEFAULT_STACKS);
	if (st.count_map_full)
		fprintf(stderr, "argus: the counts map was full; raise --keys\n");
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "freq", required_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, 'f' },
		{ "stacks", required_argument, NULL, 'S' },
		{ "keys", required_argument, NULL, 'K' },
		{ "no-follow", no_argument, NULL, 'N' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe_profile_opts po = { .follow_forks = 1 };
	struct load *load = NULL;
	uint32_t tgids[RECORD_MAX_PIDS];
	size_t ntgids = 0;
	double duration = 0, t0, deadline, secs;
	int folded = 0, json = 0, c, ret = EXIT_ERROR, sfd = -1, pidfd = -1, err;
	char **cmdv = NULL, *cause = NULL;
	const char *why = NULL;
	char state[64], whybuf[96];
	struct source *src = NULL;
	struct tree *t = NULL;
	sigset_t sigs, oldsigs;
	unsigned long v;
	pid_t watch = -1;

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, &oldsigs);

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:F:p:jfvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': {
			char *bad = NULL;

			if (num_parse_double(optarg, 0.01, 86400, "seconds", &duration, &bad) < 0) {
				fprintf(stderr, "argus: --duration: %s\n", bad ? bad : "bad number");
				free(bad);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		case 'F':
			if (record_uint("--freq", optarg, 1, 100000, "Hz", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			po.freq_hz = (unsigned)v;
			break;
		case 'p': {
			long tg;

			if (record_uint("-p", optarg, 1, 4194304, "a process ID", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			if (ntgids == RECORD_MAX_PIDS) {
				fprintf(stderr, "argus: too many -p (at most %d)\n", RECORD_MAX_PIDS);
				ret = EXIT_USAGE;
				goto out;
			}
			tg = record_tgid((long)v);
			if (tg < 0) {
				if (tg == -ESRCH)
					fprintf(stderr, "argus: no process with PID %lu\n", v);
				else
					fprintf(stderr, "argus: cannot read process %lu: %s\n", v,
						strerror((int)-tg));
				ret = EXIT_ERROR;
				goto out;
			}
			tgids[ntgids++] = (uint32_t)tg;
			break;
		}
		case 'j': json = 1; break;
		case 'f': folded = 1; break;
		case 'S':
		case 'K':
			if (record_uint(c == 'S' ? "--stacks" : "--keys", optarg, 1, 1u << 24,
					"entries", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			if (c == 'S')
				po.stack_entries = (unsigned)v;
			else
				po.count_entries = (unsigned)v;
			break;
		case 'N': po.follow_forks = 0; break;
		case 'v': probe_set_log(log_stderr, NULL); break;
		case 'h':
			printf(record_usage, PROBE_PROFILE_DEFAULT_HZ, PROBE_PROFILE_DEFAULT_STACKS,
			       PROBE_PROFILE_DEFAULT_COUNTS);
			ret = EXIT_OK;
			goto out;
		default:
			fprintf(stderr, "argus: record: %s '%s'; 'argus record --help' lists the options\n",
				optopt && strchr("dFpSK", optopt) ? "missing value for" : "unknown option",
				argv[optind - 1]);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (json && folded) {
		fprintf(stderr, "argus: give --json or --folded, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (optind < argc)
		cmdv = argv + optind;
	if (cmdv && ntgids) {
		fprintf(stderr, "argus: give -p PID or a command after --, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}

	err = probe_check_privileges(&cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause);
		ret = EXIT_PRIV;
		goto out;
	}
	err = probe_check_btf(&cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause);
		ret = EXIT_KERNEL;
		goto out;
	}
	if (cmdv) {
		/* held before exec until the filter holds its PID */
		load = load_spawn(cmdv, LOAD_F_STDOUT_STDERR, &cause);
		if (!load) {
			err = errno;
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(err));
			ret = err == ENOENT || err == EACCES || err == ENOEXEC ? EXIT_NOEXEC : EXIT_ERROR;
			goto out;
		}
		tgids[ntgids++] = (uint32_t)load_pid(load);
	}
	po.tgids = ntgids ? tgids : NULL;
	po.ntgids = ntgids;
	src = source_live_new(&po, &cause);
	if (!src) {
		err = -errno;
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		ret = record_exit_for(err);
		goto out;
	}
	if (load) {
		err = load_start(load, &cause);
		if (err) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			ret = EXIT_NOEXEC;
			goto out;
		}
		watch = load_pid(load);
	} else if (ntgids == 1) {
		watch = (pid_t)tgids[0]; /* stop early when it exits */
	}
	if (watch > 0)
		pidfd = (int)syscall(SYS_pidfd_open, watch, 0);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "argus: cannot watch signals: %s\n", strerror(errno));
		goto out;
	}

	t0 = mono_now();
	deadline = duration > 0 ? t0 + duration : 0;
	for (;;) {
		struct pollfd fds[2] = { { .fd = sfd, .events = POLLIN },
					 { .fd = pidfd, .events = POLLIN } };
		double now = mono_now();
		int to = src->ops->timeout_ms(src, now), r;

		if (deadline && now >= deadline)
			break;
		if (deadline) {
			int left = (int)((deadline - now) * 1000) + 1;

			if (to < 0 || left < to)
				to = left;
		}
		if (pidfd < 0 && watch > 0 && (to < 0 || to > 200))
			to = 200; /* no pidfd (old kernel): poll for the exit */
		r = poll(fds, pidfd >= 0 ? 2 : 1, to);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "argus: poll: %s\n", strerror(errno));
			goto out;
		}
		if (r > 0 && (fds[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				why = si.ssi_signo == SIGINT ? "stopped by SIGINT"
				    : si.ssi_signo == SIGTERM ? "stopped by SIGTERM" : "stopped by SIGHUP";
				break;
			}
		}
		if ((r > 0 && pidfd >= 0 && (fds[1].revents & POLLIN)) ||
		    (pidfd < 0 && watch > 0 && kill(watch, 0) && errno == ESRCH)) {
			why = cmdv ? "the command exited" : "the process exited";
			if (load && load_alive(load) == 0) {
				load_state(load, state, sizeof(state));
				snprintf(whybuf, sizeof(whybuf), "the command ended: %s", state);
				why = whybuf;
			}
			break;
		}
		err = src->ops->tick(src, mono_now(), &cause);
		if (err < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
	}
	src->ops->stop(src); /* last collect, then detach */
	secs = mono_now() - t0;
	load_free(load); /* ends the command if it still runs */
	load = NULL;

	t = tree_build(src->ops->profile(src), NULL);
	if (!t) {
		fprintf(stderr, "argus: cannot build the tree: %s\n", strerror(errno));
		goto out;
	}
	tree_sort(t, TREE_SORT_TOTAL);
	err = folded ? tree_write_folded(t, COND_N, stdout) : tree_write_json(t, COND_N, stdout);
	if (!err && fflush(stdout))
		err = -errno;
	if (err) {
		fprintf(stderr, "argus: cannot write the tree: %s\n", strerror(-err));
		goto out;
	}
	record_summary(src, secs, why, &po);
	ret = EXIT_OK;
out:
	tree_free(t);
	source_free(src);
	load_free(load);
	if (sfd >= 0)
		close(sfd);
	if (pidfd >= 0)
		close(pidfd);
	free(cause);
	sigprocmask(SIG_SETMASK, &oldsigs, NULL);
	return ret;
}
