/* cmd_record — `argus record`: sample kernel stacks for a while (system-wide,
 * one process tree, or a command argus launches) and print the tree as JSON
 * or folded stacks, or the profile as pprof; --push sends it to Pyroscope or
 * Parca, --every S each S seconds while sampling goes on (core/push, in this
 * one poll loop).  Headless: no curses; a summary line goes to stderr. */
#include <errno.h>
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
#include "cmd_common.h"
#include "host/load.h"
#include "opts_push.h"
#include "data/pprof.h"
#include "base/num.h"
#include "probe/probe.h"
#include "probe/probe_profile.h"
#include "output/push.h"
#include "data/push_delta.h"
#include "measure/source_live.h"
#include "data/tree.h"
#include "base/util.h"

#define RECORD_MAX_PIDS 64
#define RECORD_PUSH_DRAIN_MS 15000  /* at the end: how long queued pushes may take */
#define RECORD_FORGET_S 60          /* a continuous recorder forgets what stopped
                                     * this long ago (--forget) */

enum record_opt_id {
	RC_DURATION, RC_FREQ, RC_PID, RC_DASHDASH, RC_JSON, RC_FOLDED, RC_FORMAT, RC_STACKS,
	RC_KEYS, RC_FORGET, RC_NO_FOLLOW, RC_KERNEL_ONLY, RC_VERBOSE, RC_HELP,
};

static const struct opt record_table[] = {
	{ RC_DURATION, "--duration", "-d", "S",
	  "stop after S seconds (default: when the command or the process exits, or on "
	  "Ctrl-C / SIGTERM)" },
	{ RC_FREQ, "--freq", "-F", "HZ",
	  "samples per second per CPU (default " OPT_STR(PROBE_PROFILE_DEFAULT_HZ) ")" },
	{ RC_PID, "--pid", "-p", "PID",
	  "only this process and its children (repeatable); with one -p, the recording stops "
	  "when the process exits" },
	/* opt_next returns "--" itself (OPT_DASHDASH): listed for --help */
	{ RC_DASHDASH, "--", NULL, "CMD ARGS",
	  "run CMD, sampling only it and its children; it is killed when the recording stops; "
	  "its stdout goes to stderr" },
	{ RC_JSON, "--json", "-j", NULL,
	  "JSON tree {\"name\",\"total\",\"self\",\"children\"}, root \"all\" (the default)" },
	{ RC_FOLDED, "--folded", "-f", NULL, "folded stacks \"a;b;c N\", root first" },
	{ RC_FORMAT, "--format", NULL, "F",
	  "json, folded or pprof (gzipped profile.proto; stdout must not be a terminal)" },
	{ RC_STACKS, "--stacks", NULL, "N",
	  "stack map entries (default " OPT_STR(PROBE_PROFILE_DEFAULT_STACKS) "; raise when "
	  "stacks collide)" },
	{ RC_KEYS, "--keys", NULL, "N",
	  "distinct {stack, process} entries (default " OPT_STR(PROBE_PROFILE_DEFAULT_COUNTS) ")" },
	{ RC_FORGET, "--forget", NULL, "S",
	  "with --push and no output format: forget the stacks not sampled for S seconds "
	  "(default " OPT_STR(RECORD_FORGET_S) "; 0: never), so a recorder left running holds "
	  "what is active" },
	{ RC_NO_FOLLOW, "--no-follow", NULL, NULL, "do not add children of filtered processes" },
	{ RC_KERNEL_ONLY, "--kernel-only", NULL, NULL,
	  "no user-space stacks (their call sites; pprof carries them)" },
	{ RC_VERBOSE, "--verbose", "-v", NULL, "libbpf's messages on stderr" },
	{ RC_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group record_group = OPT_GROUP("options", record_table);
static const struct opt_group *const record_groups[] = {
	&record_group, &opts_push_group, &opts_push_every_group,
};

static void record_head(FILE *out)
{
	fprintf(out,
		"usage: argus record [--duration S] [--freq HZ] [-p PID]... [--json | --folded |\n"
		"                    --format json|folded|pprof] [--push URL [--every S]\n"
		"                    [--labels K=V,...] [--app NAME] [--tenant ID]\n"
		"                    [--push-timeout S] [--push-wait S]]\n"
		"                    [--stacks N] [--keys N] [--forget S] [--no-follow] [-v]\n"
		"                    [-- CMD ARGS]\n"
		"\n"
		"Samples kernel stacks on every CPU (cpu-clock) and prints the calling-context\n"
		"tree on stdout; a summary line (samples, rate, dropped stacks) goes to stderr.\n");
}

static void record_tail(FILE *out)
{
	fprintf(out,
		"\nPush to Pyroscope at http://host:4040, to Parca at .../profiles/writeraw.\n"
		"With --push and no output format, nothing goes to stdout.  The retry queue\n"
		"holds %u profiles / %u MiB; what does not fit is dropped, counted and said.\n"
		"\n"
		"Needs root, or CAP_BPF and CAP_PERFMON.  Exit status: 0 ok, 1 error, 2 usage,\n"
		"3 privileges, 4 kernel cannot do it, 127 CMD could not be run.\n",
		PUSH_DEF_QUEUE_MAX, PUSH_DEF_QUEUE_BYTES >> 20);
}

const struct cmd_opts cmd_record_opts = CMD_OPTS("record", record_head, record_groups, record_tail);

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

/* A whole number of unit in [min, max] (core/base/num.c); prints why not. */
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
	struct probe_profile_prune pr;

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
	source_live_prune_stats(src, &pr);
	if (pr.keys)
		fprintf(stderr, "argus: forgot %llu idle keys, %llu stacks and %llu user stacks "
			"(--forget)\n", (unsigned long long)pr.keys,
			(unsigned long long)pr.stacks, (unsigned long long)pr.ustacks);
}

static int64_t record_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The service the recording is of (issue 27 item 4): the program of
 * `-- CMD`, else the name of the first -p process, else "argus" (the
 * whole system), as pprof_service_name makes it; into buf. */
static void record_service(char **cmdv, const uint32_t *tgids, size_t ntgids, char *buf,
			   size_t len)
{
	char path[48], *comm = NULL;
	size_t n = 0;

	buf[0] = 0;
	if (cmdv && cmdv[0]) {
		pprof_service_name(cmdv[0], buf, len);
	} else if (ntgids) {
		snprintf(path, sizeof(path), "/proc/%u/comm", tgids[0]);
		if (util_read_file(path, 64, &comm, &n) == 0) {
			/* a name may hold spaces ("Web Content"): one word */
			for (char *c = comm; *c; c++)
				if (*c == ' ' || *c == '\n')
					*c = *c == ' ' ? '_' : 0;
			pprof_service_name(comm, buf, len);
		}
		free(comm);
	}
	if (!buf[0])
		snprintf(buf, len, "argus");
}

/* Queues the samples gained since the last push, covering monotonic
 * [from, until] (wall0 is the wall clock at t0); says why not on stderr. */
static void record_push(struct push *ps, struct push_delta *pd, struct source *src,
			const struct probe_profile_opts *po, const char *service, int64_t wall0,
			double t0, double from, double until)
{
	const struct profile *p = src->ops->profile(src);
	struct pprof_write_opts wo = {
		.freq_hz = po->freq_hz ? po->freq_hz : PROBE_PROFILE_DEFAULT_HZ,
		.time_nanos = wall0, .cond = COND_N, .plain = 1, .service_name = service,
	};
	struct profile *d;
	uint64_t n = 0;
	uint8_t *buf = NULL;
	size_t len = 0;
	char *cause = NULL;

	if (!p->nwin)
		return;
	d = push_delta_take(pd, p, 0, COND_LOAD, from - t0, until - from, &n);
	if (!d) {
		fprintf(stderr, "argus: push: cannot take the interval's samples: %s\n", strerror(errno));
		return;
	}
	if (n && pprof_write(d, &wo, &buf, &len, NULL, &cause) == 0) {
		int64_t f = (wall0 / 1000000000) + (int64_t)(from - t0);
		int64_t u = (wall0 / 1000000000) + (int64_t)(until - t0 + 0.999);

		push_enqueue(ps, buf, len, f, u > f ? u : f + 1, n);
	} else if (n) {
		fprintf(stderr, "argus: push: %s\n", cause ? cause : "cannot encode the profile");
	}
	free(cause);
	profile_free(d);
}
/* The signals that end a recording (the loop stops and writes what it has). */
static const int record_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };

int cmd_record(int argc, char **argv)
{
	const struct opt_parser parser = cmd_opt_parser(&cmd_record_opts);
	struct opt_hit h;
	const char *val;
	struct probe_profile_opts po = { .follow_forks = 1 };
	struct load *load = NULL;
	uint32_t tgids[RECORD_MAX_PIDS];
	size_t ntgids = 0;
	double duration = 0, t0, deadline, secs;
	int folded = 0, json = 0, pprof = 0, c, ret = EXIT_ERROR, sfd = -1, pidfd = -1, err;
	struct opts_push op;
	struct push *ps = NULL;
	struct push_delta *pd = NULL;
	double next_push = 0, last_push = 0;
	int64_t wall0 = 0;
	char **cmdv = NULL, *cause = NULL;
	const char *why = NULL;
	char state[64], whybuf[96], service[64];
	struct source *src = NULL;
	struct tree *t = NULL;
	sigset_t oldsigs;
	unsigned long v;
	unsigned forget_s = RECORD_FORGET_S;
	pid_t watch = -1;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	cmd_signals_block(record_sigs, &oldsigs);

	opts_push_init(&op);
	for (int i = 1; (c = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		if (c < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (c != OPT_OPTION) {   /* the command: after "--", or its first word */
			cmdv = argv + (c == OPT_OPERAND ? i - 1 : i);
			if (!*cmdv) {
				fprintf(stderr, "argus: record: '--' must be followed by a command\n");
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		if (h.group != &record_group) {
			if (opts_push_apply(&op, &h, stderr) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		val = h.val;
		switch ((enum record_opt_id)h.o->id) {
		case RC_DURATION: {
			char *bad = NULL;

			if (num_parse_double(val, 0.01, 86400, "seconds", &duration, &bad) < 0) {
				fprintf(stderr, "argus: --duration: %s\n", bad ? bad : "bad number");
				free(bad);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		case RC_FREQ:
			if (record_uint("--freq", val, 1, 100000, "Hz", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			po.freq_hz = (unsigned)v;
			break;
		case RC_PID: {
			long tg;

			if (record_uint("-p", val, 1, 4194304, "a process ID", &v)) {
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
		case RC_JSON: json = 1; break;
		case RC_FOLDED: folded = 1; break;
		case RC_STACKS:
		case RC_KEYS:
			if (record_uint(h.o->name, val, 1, 1u << 24, "entries", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			if (h.o->id == RC_STACKS)
				po.stack_entries = (unsigned)v;
			else
				po.count_entries = (unsigned)v;
			break;
		case RC_FORGET:
			if (record_uint("--forget", val, 0, 86400, "seconds", &v)) {
				ret = EXIT_USAGE;
				goto out;
			}
			forget_s = (unsigned)v;
			break;
		case RC_NO_FOLLOW: po.follow_forks = 0; break;
		case RC_KERNEL_ONLY: po.no_user_stacks = 1; break;
		case RC_FORMAT:
			if (!strcmp(val, "json"))
				json = 1;
			else if (!strcmp(val, "folded"))
				folded = 1;
			else if (!strcmp(val, "pprof"))
				pprof = 1;
			else {
				fprintf(stderr, "argus: bad --format '%s': give json, folded or pprof\n", val);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case RC_VERBOSE:
			probe_set_log(log_stderr, NULL);
			break;
		case RC_HELP:
			cmd_help(&cmd_record_opts, stdout);
			ret = EXIT_OK;
			goto out;
		case RC_DASHDASH:
			break;
		}
	}
	if (json + folded + pprof > 1) {
		fprintf(stderr, "argus: give one output format (--json, --folded or --format), not several\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (op.every_s && !op.url) {
		fprintf(stderr, "argus: --every goes with --push URL\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (!op.url && (op.labels || op.app)) {
		fprintf(stderr, "argus: --labels and --app go with --push URL\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (pprof && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "argus: --format pprof is binary; redirect stdout to a file\n");
		ret = EXIT_USAGE;
		goto out;
	}
	record_service(cmdv, tgids, ntgids, service, sizeof(service));
	if (!op.app)
		op.app = service; /* Pyroscope's name, Parca's __name__ */
	if (op.url) {
		ps = opts_push_new(&op, po.freq_hz ? po.freq_hz : PROBE_PROFILE_DEFAULT_HZ, stderr);
		pd = push_delta_new();
		if (!ps || !pd) {
			ret = ps ? EXIT_ERROR : EXIT_USAGE;
			goto out;
		}
	}
	if (cmdv && ntgids) {
		fprintf(stderr, "argus: give -p PID or a command after --, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}

	if (cmd_check_probe_access(&ret))
		goto out;
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
	/* a recorder that pushes and drops what it pushed runs for days: its
	 * sampler keeps what is active, not every stack since it started */
	if (op.every_s && !json && !folded && !pprof)
		source_live_prune_idle(src, forget_s);
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
	sfd = cmd_signalfd(record_sigs, NULL);
	if (sfd < 0) {
		fprintf(stderr, "argus: cannot watch signals: %s\n", strerror(-sfd));
		goto out;
	}

	t0 = util_mono_s();
	wall0 = record_wall_ns();
	last_push = t0;
	next_push = op.every_s ? t0 + op.every_s : 0;
	deadline = duration > 0 ? t0 + duration : 0;
	for (;;) {
		struct pollfd fds[2 + PUSH_MAX_SOCKS] = { { .fd = sfd, .events = POLLIN },
							  { .fd = pidfd, .events = POLLIN } };
		double now = util_mono_s();
		int to = src->ops->timeout_ms(src, now), r, nfd = pidfd >= 0 ? 2 : 1;

		if (deadline && now >= deadline)
			break;
		if (next_push && now >= next_push) {
			record_push(ps, pd, src, &po, op.app, wall0, t0, last_push, now);
			/* a whole-run output needs the whole run; without one, what
			 * was pushed is dropped, so that a recorder left running
			 * holds one interval's stacks, not the day's */
			if (!json && !folded && !pprof && source_live_rotate(src) == 0)
				push_delta_reset(pd);
			last_push = now;
			next_push += op.every_s;
			if (next_push <= now)
				next_push = now + op.every_s;
		}
		if (ps) {
			int pt = push_timeout_ms(ps);

			if (next_push) {
				int left = (int)((next_push - now) * 1000) + 1;

				if (pt < 0 || left < pt)
					pt = left;
			}
			if (pt >= 0 && (to < 0 || pt < to))
				to = pt;
			if (pidfd < 0) /* keep the push sockets after the fixed slots */
				fds[1].fd = -1, nfd = 2;
			nfd += push_pollfds(ps, fds + nfd, PUSH_MAX_SOCKS);
		}
		if (deadline) {
			int left = (int)((deadline - now) * 1000) + 1;

			if (to < 0 || left < to)
				to = left;
		}
		if (pidfd < 0 && watch > 0 && (to < 0 || to > 200))
			to = 200; /* no pidfd (old kernel): poll for the exit */
		r = poll(fds, (nfds_t)nfd, to);
		if (ps)
			push_perform(ps);
		if (r < 0 && errno != EINTR) {
			fprintf(stderr, "argus: poll: %s\n", strerror(errno));
			goto out;
		}
		if (r > 0 && (fds[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
				snprintf(whybuf, sizeof(whybuf), "stopped by SIG%s",
					 sigabbrev_np((int)si.ssi_signo) ? sigabbrev_np((int)si.ssi_signo)
									 : "?");
				why = whybuf;
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
		err = src->ops->tick(src, util_mono_s(), &cause);
		if (err < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
	}
	src->ops->stop(src); /* last collect, then detach */
	secs = util_mono_s() - t0;
	load_free(load); /* ends the command if it still runs */
	load = NULL;

	if (ps) {
		struct push_stats st;

		/* the samples since the last push (all of them without --every) */
		record_push(ps, pd, src, &po, op.app, wall0, t0, last_push, util_mono_s());
		push_drain(ps, op.wait_s ? (int)(op.wait_s * 1000) : RECORD_PUSH_DRAIN_MS);
		push_get_stats(ps, &st);
		if (!json && !folded && !pprof) {
			record_summary(src, secs, why, &po);
			opts_push_report(ps, stderr);
			ret = st.sent ? EXIT_OK : EXIT_ERROR;
			goto out;
		}
	}
	if (pprof) {
		struct pprof_write_opts wo = {
			.freq_hz = po.freq_hz ? po.freq_hz : PROBE_PROFILE_DEFAULT_HZ,
			.time_nanos = wall0, .cond = COND_N, .plain = 1, .service_name = op.app,
		};
		const struct profile *p = src->ops->profile(src);

		err = pprof_write_stream(p, &wo, stdout, NULL, &cause);
		if (err) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
	} else {
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
	}
	record_summary(src, secs, why, &po);
	ret = EXIT_OK;
	if (ps) {
		struct push_stats st;

		opts_push_report(ps, stderr);
		push_get_stats(ps, &st);
		if (!st.sent)
			ret = EXIT_ERROR;
	}
out:
	push_free(ps);
	push_delta_free(pd);
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
