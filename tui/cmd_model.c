/* cmd_model — `argus model`: run a load under the scheduler-time probe,
 * derive a layered queueing model of it (core/model) and print it as
 * text, LQNS input, LQN XML, Graphviz or JSON; --what-if solves it for
 * other client counts or CPUs.  Headless. */
#include <errno.h>
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

/* the ids are the letters the switch in cmd_model goes by */
static const struct opt model_table[] = {
	{ 'd', "--duration", "-d", "S", "watch for S seconds (default 10; less when the load exits)" },
	{ 'w', "--window", "-w", "S", "window length (default 1)" },
	{ 'S', "--steady", NULL, NULL,
	  "keep the longest run of windows whose rates agree (steady state); fail, with the "
	  "rates, when there is none" },
	{ 'T', "--tolerance", NULL, "F", "relative spread --steady allows (default 0.2)" },
	{ 'M', "--mark", NULL, "RE",
	  "keep the windows between the first and the next line of the load's output matching "
	  "the extended regex RE" },
	{ 'W', "--what-if", NULL, "SPEC",
	  "predict with a change: clients=2x, clients=N, cpus=N (comma-separated); prints "
	  "throughput, response, utilisations" },
	{ 'f', "--format", "-f", "F", "text (default), lqn (LQNS input), lqnx (LQN XML), json, dot" },
	{ 'C', "--cpus", NULL, "N", "cores of the model's host (default: this machine's)" },
	{ 'P', "--probe-correction", NULL, "M",
	  "take the probe's own CPU out of the demands, so the model predicts the load without "
	  "it: stats (default: its cost per event from BPF run-time statistics), estimate "
	  "(fixed costs, no statistics), none (the model of the probed load)" },
	{ 'B', "--budget", NULL, "PCT",
	  "the probe's CPU budget, % of one CPU (default 5): when watching all the time costs "
	  "more, it is attached only part of the time (a duty cycle), rates per attached second" },
	{ 'D', "--no-duty", NULL, NULL, "keep the probe attached all the time, whatever it costs" },
	{ 'L', "--load", NULL, "CMD",
	  "the load, as one string (as for argus and argus diagnose: plain words run directly, "
	  "shell syntax through /bin/sh -c)" },
	{ 'p', "--pid", "-p", "PID", "an already running process (and its children)" },
	/* opt_next returns "--" itself (OPT_DASHDASH): listed for --help */
	{ '-', "--", NULL, "CMD ARGS", "the load, as argv (instead of --load)" },
	{ 'v', "--verbose", "-v", NULL, "windows and libbpf's messages on stderr" },
	{ 'h', "--help", "-h", NULL, "this help" },
};

static const struct opt_group model_group = OPT_GROUP("options", model_table);
static const struct opt_group *const model_groups[] = { &model_group };

static void model_head(FILE *out)
{
	fprintf(out,
		"usage: argus model [--duration S] [--window S] [--steady [--tolerance F] | --mark RE]\n"
		"                   [--what-if SPEC] [--format text|lqn|lqnx|json|dot]\n"
		"                   [--cpus N] [--probe-correction stats|estimate|none]\n"
		"                   [--budget PCT | --no-duty] [-v]\n"
		"                   (--load CMD | -p PID | -- CMD ARGS)\n"
		"\n"
		"Runs the load under the scheduler-time probe (who wakes whom, blocked time by\n"
		"kernel stack, on-CPU time) and derives a layered queueing model: tasks with\n"
		"their threads, synchronous calls, think time, CPU and disk demand per request,\n"
		"locks as semaphore tasks.  The load's output goes to stderr.\n");
}

static void model_tail(FILE *out)
{
	fprintf(out,
		"\nNeeds root, or CAP_BPF and CAP_PERFMON.  Exit status: 0 ok, 1 error (no steady\n"
		"state, a --mark that never matched), 2 usage, 3 privileges, 4 kernel, 127 CMD\n"
		"could not be run.\n");
}

const struct cmd_opts cmd_model_opts = CMD_OPTS("model", model_head, model_groups, model_tail);

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

/* The load's pace with the probe attached and detached (model.h), kept
 * and said when the windows had enough of both: what the probe slowed the
 * load by, measured, beside what the probe correction (from the probe's
 * run time) predicts without it.  In read/write calls where the load made
 * enough of them (a fixed number per request), else in switch-ins (per
 * request they move with timing: core/host/load_pace.h). */
#define MODEL_PACE_MIN_S 0.2
#define MODEL_PACE_MIN_COUNT 20
static void model_note_pace(struct model *m, const struct waitgraph *g)
{
	const struct wg_pace *on = &g->pace_on, *off = &g->pace_off;
	uint64_t non = on->switches, noff = off->switches;
	char corr[96] = "";

	if (on->secs < MODEL_PACE_MIN_S || off->secs < MODEL_PACE_MIN_S)
		return;
	m->pace_unit = "switch-ins";
	if (on->rw_calls >= MODEL_PACE_MIN_COUNT && off->rw_calls >= MODEL_PACE_MIN_COUNT) {
		m->pace_unit = "read/write calls";
		non = on->rw_calls;
		noff = off->rw_calls;
	}
	if (non < MODEL_PACE_MIN_COUNT || noff < MODEL_PACE_MIN_COUNT)
		return;
	m->pace_on = (double)non / on->secs;
	m->pace_off = (double)noff / off->secs;
	if (m->probe.solved)
		snprintf(corr, sizeof(corr), "; the probe correction, from its run time, says %.2f",
			 m->probe.x);
	fprintf(stderr, "argus: the load's pace (its %s, from /proc): %.0f/s while "
		"the probe was attached, %.0f/s while detached (%+.0f%% under the probe); the "
		"measured rates are the attached time's: at the detached pace %.2f cycles/s%s\n",
		m->pace_unit, m->pace_on, m->pace_off, (m->pace_on / m->pace_off - 1) * 100,
		m->x * m->pace_off / m->pace_on, corr);
}

int cmd_model(int argc, char **argv)
{
	const struct opt_parser parser = cmd_opt_parser(&cmd_model_opts);
	struct opt_hit h;
	const char *val;
	char **cmd_argv = NULL;
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
	for (int i = 1; (c = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		if (c < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (c != OPT_OPTION) {   /* the load: after "--", or its first word */
			cmd_argv = argv + (c == OPT_OPERAND ? i - 1 : i);
			if (!*cmd_argv) {
				fprintf(stderr, "argus: model: '--' must be followed by a command\n");
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		c = h.o->id;
		val = h.val;
		switch (c) {
		case 'd':
		case 'w':
		case 'T':
			v = strtod(val, &end);
			if (end == val || *end || !(v > 0) || !isfinite(v) || (c == 'T' && v >= 10)) {
				fprintf(stderr, "argus: bad --%s '%s': give a number > 0\n",
					c == 'd' ? "duration" : c == 'w' ? "window" : "tolerance", val);
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
			v = strtod(val, &end);
			if (end == val || *end || !(v > 0) || !(v <= 100)) {
				fprintf(stderr, "argus: bad --budget '%s': give a %% of one CPU, 0 < PCT <= 100\n",
					val);
				ret = EXIT_USAGE;
				goto out;
			}
			co.budget_pct = v;
			break;
		case 'M': co.mark_re = val; break;
		case 'W':
			if (model_whatif_parse(val, &wi)) {
				fprintf(stderr, "argus: bad --what-if '%s': give clients=2x, clients=N or "
					"cpus=N, comma-separated\n", val);
				ret = EXIT_USAGE;
				goto out;
			}
			whatif = val;
			break;
		case 'f':
			if (strcmp(val, "text") && strcmp(val, "lqn") && strcmp(val, "lqnx") &&
			    strcmp(val, "json") && strcmp(val, "dot")) {
				fprintf(stderr, "argus: bad --format '%s': give text, lqn, lqnx, json or dot\n",
					val);
				ret = EXIT_USAGE;
				goto out;
			}
			format = val;
			break;
		case 'C':
			v = strtod(val, &end);
			if (end == val || *end || !(v >= 1) || v != floor(v) || v > 4096) {
				fprintf(stderr, "argus: bad --cpus '%s': give 1..4096\n", val);
				ret = EXIT_USAGE;
				goto out;
			}
			mo.cpus = (unsigned)v;
			break;
		case 'P':
			if (!strcmp(val, "stats"))
				corr = MODEL_PROBE_STATS;
			else if (!strcmp(val, "estimate"))
				corr = MODEL_PROBE_ESTIMATE;
			else if (!strcmp(val, "none"))
				corr = MODEL_PROBE_NONE;
			else {
				fprintf(stderr, "argus: bad --probe-correction '%s': give stats, estimate or "
					"none\n", val);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'p':
			v = strtod(val, &end);
			if (end == val || *end || !(v >= 1) || v != floor(v) || v > 0x7fffffff) {
				fprintf(stderr, "argus: bad -p '%s': give a process id\n", val);
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
			load_argv = opts_load_split(val);
			if (!load_argv) {
				fprintf(stderr, "argus: bad --load '%s': give the command to run\n", val);
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case 'v':
			verbose = 1;
			probe_set_log(model_log, NULL);
			break;
		case 'h':
			cmd_help(&cmd_model_opts, stdout);
			ret = EXIT_OK;
			goto out;
		default:
			break;
		}
	}
	if (cmd_argv && load_argv) {
		fprintf(stderr, "argus: model: give the load once: --load CMD or -- CMD ARGS, not both\n");
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd_argv)
		co.argv = cmd_argv;
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
	m->start_s = cap->kept->start_s;
	m->wall_s = cap->kept->wall_s;
	m->probe_attached = cap->attached;
	m->probe_cost_pct = cap->cost_pct;
	m->probe_cost_on_pct = cap->cost_on_pct;
	m->probe_budget_pct = cap->budget_pct;
	m->probe_duty = cap->phases > 0;
	model_note_pace(m, cap->kept);
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
