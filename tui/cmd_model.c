/* cmd_model — `argus model`: run a load under the scheduler-time probe,
 * derive a layered queueing model of it (core/model) and print it as
 * text, LQNS input, LQN XML, Graphviz or JSON; --what-if solves it for
 * other client counts or CPUs.  Headless. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "model/model.h"
#include "model/model_capture.h"
#include "opts_load.h"
#include "probe/probe.h"
#include "model/model_write.h"

static const char model_usage[] =
	"usage: argus model [--duration S] [--window S] [--steady [--tolerance F] | --mark RE]\n"
	"                   [--what-if SPEC] [--format text|lqn|lqnx|json|dot]\n"
	"                   [--cpus N] [--probe-correction stats|estimate|none]\n"
	"                   [--budget PCT | --no-duty] [-v]\n"
	"                   (--load CMD | -p PID | -- CMD ARGS)\n"
	"\n"
	"Runs the load under the scheduler-time probe (who wakes whom, blocked time by\n"
	"kernel stack, on-CPU time) and derives a layered queueing model: tasks with\n"
	"their threads, synchronous calls, think time, CPU and disk demand per request,\n"
	"locks as semaphore tasks.  The load's output goes to stderr.\n"
	"\n"
	"  -d, --duration S   watch for S seconds (default 10; less when the load exits)\n"
	"  -w, --window S     window length (default 1)\n"
	"      --steady       keep the longest run of windows whose rates agree (steady\n"
	"                     state); fail, with the rates, when there is none\n"
	"      --tolerance F  relative spread --steady allows (default 0.2)\n"
	"      --mark RE      keep the windows between the first and the next line of the\n"
	"                     load's output matching the extended regex RE\n"
	"      --what-if SPEC predict with a change: clients=2x, clients=N, cpus=N\n"
	"                     (comma-separated); prints throughput, response, utilisations\n"
	"  -f, --format F     text (default), lqn (LQNS input), lqnx (LQN XML), json, dot\n"
	"      --cpus N       cores of the model's host (default: this machine's)\n"
	"      --probe-correction M\n"
	"                     take the probe's own CPU out of the demands, so the model\n"
	"                     predicts the load without it: stats (default: its cost per\n"
	"                     event from BPF run-time statistics), estimate (fixed costs,\n"
	"                     no statistics), none (the model of the probed load)\n"
	"      --budget PCT   the probe's CPU budget, % of one CPU (default 5): when\n"
	"                     watching all the time costs more, it is attached only\n"
	"                     part of the time (a duty cycle), rates per attached second\n"
	"      --no-duty      keep the probe attached all the time, whatever it costs\n"
	"      --load CMD     the load, as one string (as for argus and argus diagnose:\n"
	"                     plain words run directly, shell syntax through /bin/sh -c)\n"
	"  -p, --pid PID      an already running process (and its children)\n"
	"  -v, --verbose      windows and libbpf's messages on stderr\n"
	"  -h, --help         this help\n"
	"\n"
	"Needs root, or CAP_BPF and CAP_PERFMON.  Exit status: 0 ok, 1 error (no steady\n"
	"state, a --mark that never matched), 2 usage, 3 privileges, 4 kernel, 127 CMD\n"
	"could not be run.\n";

static volatile int model_stop;

static void model_on_signal(int sig)
{
	(void)sig;
	model_stop = 1;
}

static void model_log(void *arg, enum probe_log_level level, const char *msg)
{
	(void)arg;
	(void)level;
	fputs(msg, stderr);
}

static int model_exit_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EXIT_PRIV;
	case ENOEXEC:
	case ENOENT:
		return EXIT_NOEXEC;
	case ENOMEM:
	case EINVAL:
	case ERANGE:
	case ESRCH:
		return EXIT_ERROR;
	default:
		return EXIT_KERNEL;
	}
}

/* Identity read during the capture, onto the model's tasks. */
static void model_name_tasks(struct model *m, const struct model_capture *c)
{
	for (unsigned k = 0; k < c->nkw && m->nkthreads < MODEL_MAX_KTHREADS; k++) {
		struct model_kthread *t = &m->kthreads[m->nkthreads++];

		t->pid = c->kw[k].pid;
		snprintf(t->comm, sizeof(t->comm), "%s", c->kw[k].comm);
		snprintf(t->role, sizeof(t->role), "%s", c->kw[k].role);
		snprintf(t->work, sizeof(t->work), "%s", c->kw[k].work);
		t->wakes = c->kw[k].wakes;
	}
	for (unsigned i = 0; i < m->ntask; i++) {
		struct model_task *t = &m->task[i];

		if (t->kind == MODEL_TASK_DISK)
			continue;
		for (unsigned k = 0; k < c->nids; k++)
			if (c->ids[k].tgid == t->tgid) {
				snprintf(t->cmdline, sizeof(t->cmdline), "%s", c->ids[k].cmdline);
				snprintf(t->unit, sizeof(t->unit), "%s", c->ids[k].unit);
				snprintf(t->container, sizeof(t->container), "%s", c->ids[k].container);
			}
	}
}

int cmd_model(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "duration", required_argument, NULL, 'd' },
		{ "window", required_argument, NULL, 'w' },
		{ "steady", no_argument, NULL, 'S' },
		{ "tolerance", required_argument, NULL, 'T' },
		{ "mark", required_argument, NULL, 'M' },
		{ "what-if", required_argument, NULL, 'W' },
		{ "format", required_argument, NULL, 'f' },
		{ "cpus", required_argument, NULL, 'C' },
		{ "probe-correction", required_argument, NULL, 'P' },
		{ "pid", required_argument, NULL, 'p' },
		{ "load", required_argument, NULL, 'L' },
		{ "no-duty", no_argument, NULL, 'D' },
		{ "budget", required_argument, NULL, 'B' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct model_capture_opts co = { 0 };
	struct model_capture *cap = NULL;
	struct model_whatif wi = { .clients_factor = 1 };
	struct model_prediction pred, now;
	struct model_opts mo = { 0 };
	struct model *m = NULL;
	const char *format = "text", *whatif = NULL, *why = NULL;
	enum model_probe_source corr = MODEL_PROBE_STATS;
	char *cause = NULL, *end, **load_argv = NULL;
	struct sigaction sa;
	sigset_t held;
	int c, err, ret = EXIT_ERROR, verbose = 0;
	double v;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	sigemptyset(&held);
	for (const int *s = cmd_end_sigs; *s; s++)
		sigaddset(&held, *s);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:w:f:p:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
		case 'w':
		case 'T':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v > 0) || !isfinite(v) || (c == 'T' && v >= 10)) {
				fprintf(stderr, "argus: bad --%s '%s': give a number > 0\n",
					c == 'd' ? "duration" : c == 'w' ? "window" : "tolerance", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			if (c == 'd')
				co.seconds = v;
			else if (c == 'w')
				co.window_s = v;
			else
				co.steady_tol = v;
			break;
		case 'S': co.steady = 1; break;
		case 'D': co.no_duty = 1; break;
		case 'B':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v > 0) || !(v <= 100)) {
				fprintf(stderr, "argus: bad --budget '%s': give a %% of one CPU, 0 < PCT <= 100\n",
					optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			co.budget_pct = v;
			break;
		case 'M': co.mark_re = optarg; break;
		case 'W':
			if (model_whatif_parse(optarg, &wi)) {
				fprintf(stderr, "argus: bad --what-if '%s': give clients=2x, clients=N or "
					"cpus=N, comma-separated\n", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			whatif = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "lqn") && strcmp(optarg, "lqnx") &&
			    strcmp(optarg, "json") && strcmp(optarg, "dot")) {
				fprintf(stderr, "argus: bad --format '%s': give text, lqn, lqnx, json or dot\n",
					optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			format = optarg;
			break;
		case 'C':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 1) || v != floor(v) || v > 4096) {
				fprintf(stderr, "argus: bad --cpus '%s': give 1..4096\n", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			mo.cpus = (unsigned)v;
			break;
		case 'P':
			if (!strcmp(optarg, "stats"))
				corr = MODEL_PROBE_STATS;
			else if (!strcmp(optarg, "estimate"))
				corr = MODEL_PROBE_ESTIMATE;
			else if (!strcmp(optarg, "none"))
				corr = MODEL_PROBE_NONE;
			else {
				fprintf(stderr, "argus: bad --probe-correction '%s': give stats, estimate or "
					"none\n", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'p':
			v = strtod(optarg, &end);
			if (end == optarg || *end || !(v >= 1) || v != floor(v) || v > 0x7fffffff) {
				fprintf(stderr, "argus: bad -p '%s': give a process id\n", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			co.pid = (pid_t)v;
			break;
		case 'L':
			if (load_argv) {
				fprintf(stderr, "argus: model: --load given twice: give one load\n");
				ret = EXIT_USAGE;
				goto out;
			}
			load_argv = opts_load_split(optarg);
			if (!load_argv) {
				fprintf(stderr, "argus: bad --load '%s': give the command to run\n", optarg);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'v':
			verbose = 1;
			probe_set_log(model_log, NULL);
			break;
		case 'h':
			fputs(model_usage, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			ret = cmd_getopt_error("model", argv, "+d:w:f:p:vh", longopts);
			goto out;
		}
	}
	if (optind < argc && load_argv) {
		fprintf(stderr, "argus: model: give the load once: --load CMD or -- CMD ARGS, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (optind < argc)
		co.argv = argv + optind;
	else if (load_argv)
		co.argv = load_argv;
	if (!co.argv == !co.pid) {
		fprintf(stderr, "argus: model: give the load: --load CMD, -- CMD ARGS, or -p PID (one "
			"of them)\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (co.steady && co.mark_re) {
		fprintf(stderr, "argus: model: give --steady or --mark, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd_check_probe_access(&ret))
		goto out;
	/* The capture polls a flag: the ending signals (held since the start,
	 * cmd_signals_hold) are let through to a handler that sets it only
	 * while it runs; it ends the load on every one of them (SIGHUP too:
	 * an SSH drop) before it returns. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = model_on_signal;
	for (const int *s = cmd_end_sigs; *s; s++)
		sigaction(*s, &sa, NULL);
	co.stop = &model_stop;
	co.log = stderr;        /* the load's output */
	co.verbose = verbose;   /* and the windows */
	co.stats = corr == MODEL_PROBE_STATS;
	sigprocmask(SIG_UNBLOCK, &held, NULL);
	err = model_capture_run(&co, &cap, &cause);
	sigprocmask(SIG_BLOCK, &held, NULL);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		ret = model_exit_for(err);
		goto out;
	}
	m = calloc(1, sizeof(*m));
	if (!m) {
		fprintf(stderr, "argus: out of memory\n");
		goto out;
	}
	mo.exclude_tgid = cap->self_tgid;
	mo.root_tgid = cap->load_tgid;
	mo.probe_source = corr;
	if (corr == MODEL_PROBE_STATS && cap->bpf_runs)
		mo.probe_event_ns = (double)cap->bpf_ns / (double)cap->bpf_runs;
	else if (corr == MODEL_PROBE_STATS) {
		/* bpf_enable_stats refused, or an old kernel */
		fprintf(stderr, "argus: the kernel kept no BPF run-time statistics for the probe: its "
			"cost is estimated (%.0f ns a switch-in, %.0f ns a wakeup)\n",
			MODEL_PROBE_SWITCH_NS, MODEL_PROBE_WAKE_NS);
		mo.probe_source = MODEL_PROBE_ESTIMATE;
	}
	err = model_build(cap->kept, &mo, m, &cause);
	if (err) {
		fprintf(stderr, "argus: cannot build the model: %s\n", cause ? cause : strerror(-err));
		goto out;
	}
	model_name_tasks(m, cap);
	for (unsigned i = cap->nwin - cap->ndead; i < cap->nwin; i++)
		fprintf(stderr, "argus: window %u left out: the load ended %.1f s into it\n", i + 1,
			cap->load_end_s > cap->win[i]->start_s ? cap->load_end_s - cap->win[i]->start_s
								: 0.0);
	fprintf(stderr, "argus: model from windows %u..%u of %u (%.1f s of %.1f s, probe attached "
		"%.1f s of them; %s)%s%s\n", cap->first + 1, cap->last + 1, cap->nwin,
		cap->kept->wall_s, cap->elapsed_s, cap->kept->secs, cap->mechanism,
		m->note[0] ? "; " : "", m->note);
	if (cap->bpf_runs && cap->elapsed_s > 0)
		fprintf(stderr, "argus: scheduler-time probe cost %.3f%% of one CPU (%.2f us per event)\n",
			cap->bpf_ns / (cap->elapsed_s * 1e9) * 100, cap->bpf_ns / 1e3 / cap->bpf_runs);
	if (co.no_duty)
		fprintf(stderr, "argus: probe attached 100%% of the time (--no-duty); cost %.3f%% of "
			"one CPU%s\n", cap->cost_pct, cap->stats ? "" : " (estimated from its switches)");
	else
		fprintf(stderr, "argus: probe attached %.1f%% of the time (%s %g%% budget); cost "
			"while attached %.3f%%, on average %.3f%% of one CPU%s\n", cap->attached * 100,
			cap->phases ? "a duty cycle to hold the" : "no duty cycle: within the",
			cap->budget_pct, cap->cost_on_pct, cap->cost_pct,
			cap->stats ? "" : " (estimated from its switches)");
	m->wall_s = cap->kept->wall_s;
	m->probe_attached = cap->attached;
	m->probe_cost_pct = cap->cost_pct;
	m->probe_cost_on_pct = cap->cost_on_pct;
	m->probe_budget_pct = cap->budget_pct;
	m->probe_duty = cap->phases > 0;
	if (m->probe.source == MODEL_PROBE_NONE)
		fprintf(stderr, "argus: no probe correction (--probe-correction none): the demands are "
			"those of the load under the probe\n");
	else if (m->probe.source == MODEL_PROBE_STATS && !m->probe.floored)
		fprintf(stderr, "argus: probe correction (stats): %.3f%% of one CPU taken out of the "
			"load's demand (%.0f switch-ins and wakeups/s at %.0f ns a run)%s\n",
			m->probe.cpus * 100, m->probe.events_per_s, m->probe.mean_ns,
			m->probe.clamped ? "; a task's share was clamped to its CPU" : "");
	else if (m->probe.source == MODEL_PROBE_STATS)
		fprintf(stderr, "argus: probe correction (stats): %.3f%% of one CPU taken out of the "
			"load's demand (%.0f switch-ins and wakeups/s; the mean run, %.0f ns, is below "
			"a load's event: %.0f ns a switch-in, %.0f ns a wakeup charged)%s\n",
			m->probe.cpus * 100, m->probe.events_per_s, m->probe.mean_ns, m->probe.switch_ns,
			m->probe.wake_ns, m->probe.clamped ? "; a task's share was clamped to its CPU" : "");
	else
		fprintf(stderr, "argus: probe correction (estimate: no BPF run-time statistics): %.3f%% "
			"of one CPU taken out of the load's demand (%.0f switch-ins and wakeups/s at "
			"%.0f ns a switch-in, %.0f ns a wakeup)%s\n", m->probe.cpus * 100,
			m->probe.events_per_s, m->probe.switch_ns, m->probe.wake_ns,
			m->probe.clamped ? "; a task's share was clamped to its CPU" : "");
	err = model_solve(m, NULL, &now, &why);
	if (!err && whatif)
		err = model_solve(m, &wi, &pred, &why);
	if (!err && whatif && m->probe.source != MODEL_PROBE_NONE) {
		struct model_prediction pp;
		const char *pwhy;

		/* beside it, the what-if of the uncorrected model */
		if (!model_solve_probed(m, &wi, &pp, &pwhy))
			pred.x_probed = pp.x;
	}
	if (err) {
		fprintf(stderr, "argus: cannot solve the model: %s\n", why ? why : strerror(-err));
		if (whatif)
			goto out;
	}
	if (!strcmp(format, "lqn"))
		err = model_write_lqn(m, stdout);
	else if (!strcmp(format, "lqnx"))
		err = model_write_lqnx(m, stdout);
	else if (!strcmp(format, "dot"))
		err = model_write_dot(m, stdout);
	else if (!strcmp(format, "json"))
		err = model_write_json(m, whatif ? &pred : NULL, stdout);
	else
		err = model_write_text(m, whatif ? &pred : NULL, stdout);
	if (!err && fflush(stdout))
		err = -errno;
	if (err) {
		fprintf(stderr, "argus: cannot write the model: %s\n", strerror(-err));
		goto out;
	}
	if (!why)
		fprintf(stderr, "argus: the model at the measured load%s: %.2f cycles/s, response %.3f ms "
			"(measured under the probe %.2f, %.3f ms)\n",
			m->probe.source != MODEL_PROBE_NONE ? " without the probe" : "", now.x,
			now.r * 1e3, m->x, m->r * 1e3);
	if (m->check.done) {
		char line[1024];

		fprintf(stderr, "argus: check: %s\n", model_check_text(m, line, sizeof(line)));
	}
	if (whatif)
		fprintf(stderr, "argus: what-if %s: %u clients, %u CPUs: throughput %.2f cycles/s, "
			"response %.3f ms, CPU %.0f%%, disk %.0f%%%s\n", whatif, pred.clients, pred.cpus,
			pred.x, pred.r * 1e3, pred.cpu_util * 100, pred.disk_util * 100,
			m->check.done && !m->check.valid ? " (UNTRUSTWORTHY: the model does not reproduce "
			"the measured load)" : "");
	if (whatif && pred.x_probed > 0)
		fprintf(stderr, "argus: what-if %s with the demands under the probe (no correction): "
			"%.2f cycles/s\n", whatif, pred.x_probed);
	if (whatif)
		for (unsigned i = 0; i < m->ntask; i++)
			fprintf(stderr, "argus:   %-20s utilisation %5.1f%%, %.2f calls/s, queueing %.3f ms\n",
				m->task[i].name, pred.task_util[i] * 100, pred.task_x[i],
				pred.task_wait[i] * 1e3);
	ret = EXIT_OK;
out:
	free(m);
	model_capture_free(cap);
	opts_load_argv_free(load_argv);
	free(cause);
	return ret;
}
