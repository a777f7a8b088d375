/* cmd_diagnose — `argus diagnose --batch --json [load options]`: measure
 * alternating reference/loaded windows, calibrate, descend, print one JSON
 * object on stdout.  Progress goes to stderr.  Signals arrive through a
 * signalfd: on SIGINT/SIGTERM/SIGHUP/SIGQUIT the loads are resumed, then the
 * ones argus started are ended, and argus exits 128+signal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "output/diagnose.h"
#include "host/load.h"
#include "measure/measure.h"
#include "step/step_scope.h"
#include "base/num.h"
#include "base/sanitize.h"
#include "opts_agent.h"
#include "opts_load.h"
#include "opts_session.h"
#include "probe/probe.h"
#include "step/step_exec.h"
#include "base/util.h"

enum diag_opt_id { DO_REF_FILE, DO_LOAD_FILE, DO_BATCH, DO_JSON, DO_AUTO, DO_STEPS, DO_BUDGET,
	DO_HELP };

/* diagnose's own options */
static const struct opt diag_opts[] = {
	{ DO_REF_FILE, "--ref-file", NULL, "FILE", "the reference profile from a file instead of measuring" },
	{ DO_LOAD_FILE, "--load-file", NULL, "FILE", "the loaded profile from a file (both or neither)" },
	{ DO_BATCH, "--batch", NULL, NULL, "no terminal interface (the only mode of diagnose)" },
	{ DO_JSON, "--json", NULL, NULL, "the verdict as JSON on stdout (the only format)" },
	{ DO_AUTO, "--auto", NULL, NULL,
	  "accept and run the agent's instrumentation steps (logged as \"auto\")" },
	{ DO_STEPS, "--steps", NULL, "N", "at most N steps with --auto (0 to 100, default 3)" },
	{ DO_BUDGET, "--budget", NULL, "PCT",
	  "a step's overhead budget, % of one CPU (0.01 to 1000; default 2 for sample, 5 for the others)" },
	{ DO_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group diag_group = OPT_GROUP("options", diag_opts);
static const struct opt_group *const diag_groups[] = {
	&diag_group, &opts_load_group, &opts_session_group, &opts_agent_group,
};

static void diagnose_head(FILE *out)
{
	fprintf(out,
		"usage: argus diagnose --batch --json [--load CMD | -- CMD ARGS] [--victim CMD | --victim-pid PID]\n"
		"                      [--background CMD] [-p PID [--pause] | --reference FILE]\n"
		"                      [--pairs K] [--min-pairs K] [--fixed] [--window S] [--settle S]\n"
		"                      [--warmup S] [--freq HZ]\n"
		"                      [--session FILE | --no-session] [--auto [--steps N] [--budget PCT]]\n"
		"                      [--agent heuristic|llm [--redact]]\n"
		"       argus diagnose --batch --json --ref-file FILE --load-file FILE [--freq HZ]\n"
		"                      [--session FILE] [--agent heuristic|llm [--redact]]\n\n"
		"Measures pairs of reference (load paused) and loaded windows until the verdict is\n"
		"settled (at most --pairs; --fixed: exactly --pairs), calibrates the kernel\n"
		"calling-context tree and prints the verdict as one JSON object.\n"
		"With --ref-file and --load-file: the two recorded profiles instead (folded,\n"
		"perf script or pprof, recognised by content; as 'argus diff --batch --json'),\n"
		"no privileges needed.\n");
}

static void diagnose_tail(FILE *out)
{
	fprintf(out, "\nexit status: 0 verdict printed (found or not), 1 error, 2 usage, 3 privileges,\n"
		"4 kernel, 5 the load ended too soon, 6 the load failed (exited non-zero or by a signal\n"
		"of its own; the verdict is still printed), 127 the load could not be run,\n"
		"128+N killed by signal N (loads ended)\n");
}

const struct cmd_opts cmd_diagnose_opts =
	CMD_OPTS("diagnose", diagnose_head, diag_groups, diagnose_tail);

/* `argus diagnose --ref-file F --load-file F`: the files (folded, perf
 * script or pprof) through `argus diff --batch --json`, so both commands
 * read files the one way.  Only the options diff shares pass (--agent,
 * --redact, --session, --freq); load options have nothing to act on.
 * Returns -1 when argv names neither file (and says nothing: the caller
 * parses it again, and says what is wrong). */
static int diagnose_files(int argc, char **argv)
{
	const struct opt_parser parser = cmd_opt_parser(&cmd_diagnose_opts);
	struct opt_parser quiet = parser;
	const char *ref = NULL, *load = NULL;
	char **dv = NULL;
	int dn = 0, rc = EXIT_USAGE, any = 0, r;
	struct opt_hit h;

	quiet.err = fopen("/dev/null", "w");
	for (int i = 1; quiet.err && (r = opt_next(&quiet, argc, argv, &i, &h)) > 0 &&
			r != OPT_DASHDASH;)
		if (r == OPT_OPTION && h.group == &diag_group &&
		    (h.o->id == DO_REF_FILE || h.o->id == DO_LOAD_FILE))
			any = 1;
	if (quiet.err)
		fclose(quiet.err);
	if (!any)
		return -1;
	/* diff REF LOAD --json, and per option its name and value: 2 each */
	dv = calloc((size_t)argc * 2 + 4, sizeof(*dv));
	if (!dv) {
		fprintf(stderr, "argus: diagnose: out of memory\n");
		return EXIT_ERROR;
	}
	dv[dn++] = "diff";
	dv[dn++] = NULL; /* REF, LOAD filled below */
	dv[dn++] = NULL;
	dv[dn++] = "--json";
	for (int i = 1; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		int pass = h.group == &opts_agent_group || (h.group == &opts_session_group &&
							   h.o->arg) ||
			   (h.group == &opts_load_group && !strcmp(h.o->name, "--freq"));

		if (r < 0)
			goto out;
		if (r != OPT_OPTION) {
			fprintf(stderr, "argus: diagnose: '%s' does not go with --ref-file/--load-file "
				"(recorded files: no load to run)\n", r == OPT_DASHDASH ? "--" : h.val);
			goto out;
		}
		if (h.group == &diag_group && h.o->id == DO_REF_FILE) {
			ref = h.val;
		} else if (h.group == &diag_group && h.o->id == DO_LOAD_FILE) {
			load = h.val;
		} else if (h.group == &diag_group && (h.o->id == DO_BATCH || h.o->id == DO_JSON)) {
			continue;
		} else if (h.group == &opts_session_group) {
			if (pass) {   /* --session FILE; diff records none unless asked */
				dv[dn++] = (char *)h.o->name;
				dv[dn++] = (char *)h.val;
			}
		} else if (pass) {
			dv[dn++] = (char *)h.o->name;
			if (h.val)
				dv[dn++] = (char *)h.val;
		} else {
			fprintf(stderr, "argus: diagnose: %s does not go with --ref-file/--load-file (recorded "
				"files: no load to run or pause; --agent, --redact, --session and --freq apply)\n",
				h.o->name);
			goto out;
		}
	}
	if (!ref || !load) {
		fprintf(stderr, "argus: diagnose: give both --ref-file and --load-file\n");
		goto out;
	}
	dv[1] = (char *)ref;
	dv[2] = (char *)load;
	rc = cmd_diff(dn, dv);
out:
	free(dv);
	return rc;
}

/* Blocks the signals that end argus and returns a signalfd for them. */
static int diag_signalfd(sigset_t *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };
	int fd = cmd_signalfd(sigs, old);

	if (fd >= 0)
		signal(SIGPIPE, SIG_IGN);
	return fd;
}

int cmd_diagnose(int argc, char **argv)
{
	struct diagnose_result res = { 0 };
	struct diagnose_run_info info = { 0 };
	struct source_status st;
	struct source *src = NULL, *msrc;
	struct session *ses = NULL;
	struct opts_session os = { 0 };
	struct opts_load ol;
	struct opts_agent oa;
	struct agent *agent = NULL;
	char *cause = NULL;
	double t0 = util_mono_s();
	int ret = EXIT_ERROR, sfd = -1, noexec = 0, sig = 0, err, autorun = 0;
	unsigned max_steps = 3;
	double budget = 0;
	char *steps_json = NULL;
	sigset_t oldmask;
	char lstate[48] = "", fstate[48] = "", scope_ref[160], scope_load[160];
	struct calib_opts co;
	const struct opt_parser parser = cmd_opt_parser(&cmd_diagnose_opts);
	struct opt_hit h;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	ret = diagnose_files(argc, argv);
	if (ret >= 0)
		return ret;
	ret = EXIT_ERROR;
	opts_load_init(&ol);
	opts_agent_init(&oa);
	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		char *why = NULL;

		if (r < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (r == OPT_DASHDASH) {
			if (opts_load_dashdash(&ol, argc, argv, i, stderr) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		}
		if (r == OPT_OPERAND) {
			sanitize_fprintf(stderr, 0, "argus: diagnose: '%s' is not an option; the load "
					 "goes after --load or --", h.val);
			fputc('\n', stderr);
			ret = EXIT_USAGE;
			goto out;
		}
		if (h.group != &diag_group) {
			if (cmd_apply_measure_opt(&h, &ol, &os, &oa) < 0) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		switch ((enum diag_opt_id)h.o->id) {
		case DO_REF_FILE:
		case DO_LOAD_FILE:   /* diagnose_files took them */
		case DO_BATCH:
		case DO_JSON:
			break;
		case DO_AUTO:
			autorun = 1;
			break;
		case DO_STEPS:
			err = num_parse_uint(h.val, 0, 100, "steps", &max_steps, &why);
			break;
		case DO_BUDGET:
			err = num_parse_double(h.val, 0.01, 1000, "percent of one CPU", &budget, &why);
			break;
		case DO_HELP:
			cmd_help(&cmd_diagnose_opts, stdout);
			ret = EXIT_OK;
			goto out;
		}
		if (why) {
			fprintf(stderr, "argus: diagnose: %s: %s\n", h.o->name, why);
			free(why);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (opts_load_finish(&ol, 1, stderr) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (cmd_check_probe_access(&ret))
		goto out;
	if (oa.agent) {
		/* before measuring: a misconfigured LLM is said at once */
		oa.log = stderr;
		agent = opts_agent_new(&oa, ol.load_cmd, NULL, NULL, stderr);
		if (!agent)
			goto out;
	}
	sfd = diag_signalfd(&oldmask);
	if (sfd < 0) {
		fprintf(stderr, "argus: cannot watch signals: %s\n", strerror(-sfd));
		goto out;
	}
	load_set_log(stderr);
	ol.m.log = stderr;
	/* the load's stdout and stderr are piped and their lines go to
	 * stderr ("load: ..."; stdout keeps the JSON), so a load that fails is
	 * reported with its last line, on either (issue 24).  (Its stdout was
	 * once left out: the stale-load sweep test, tests/live/sigkill_stale.sh,
	 * lost the SIGKILLed argus's frozen load in about one run of three with
	 * both piped; 12 of 12 runs passed with both on 83ae397.) */
	ol.m.load_flags |= LOAD_F_STDOUT_STDERR | LOAD_F_PIPE_STDERR | LOAD_F_PIPE_STDOUT;
	ol.m.load_out = stderr;
	ol.m.collect_s = -1; /* read the maps at window ends only: argus's own
	                      * work then falls in the discarded settle time */
	ses = opts_session_open(&os, "diagnose", &ol, (uint32_t)getpid(), &cause);
	if (!ses && cause) {
		fprintf(stderr, "argus: %s\n", cause);
		goto out;
	}
	if (ses)
		fprintf(stderr, "argus: session %s\n", session_path(ses));
	oa.ses = ses; /* each LLM turn recorded (llm_turn events) */
	src = msrc = measure_new(&ol.m, &noexec, &cause);
	if (!src) {
		int e = errno;

		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(e));
		if (ses)
			session_write_note(ses, cause ? cause : strerror(e));
		ret = noexec ? EXIT_NOEXEC : e == EPERM ? EXIT_PRIV : EXIT_ERROR;
		goto out;
	}
	if (ses) {
		struct source_session_opts so = { .exclude_tgid = (uint32_t)getpid(), .log = stderr };

		src = source_session_new(msrc, ses, &so);
		if (!src) {
			fprintf(stderr, "argus: %s\n", strerror(errno));
			goto out;
		}
	}
	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };
		double now = util_mono_s();
		int to;

		err = src->ops->tick(src, now, &cause);
		if (err < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			if (ses)
				session_write_note(ses, cause ? cause : strerror(-err));
			/* a load that ended too soon (5), or failed on its own
			 * before a pair (6: as after one, whatever the phase) */
			ret = measure_noexec(msrc) ? EXIT_NOEXEC :
			      err != -ECHILD ? EXIT_ERROR :
			      load_failed(measure_load(msrc), NULL, 0) ? EXIT_LOAD_FAILED :
			      EXIT_LOAD_ENDED;
			goto out;
		}
		src->ops->status(src, &st);
		if (st.phase == SOURCE_DONE)
			break;
		to = src->ops->timeout_ms(src, util_mono_s());
		if (poll(&pfd, 1, to) > 0) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				sig = (int)si.ssi_signo;
				fprintf(stderr, "argus: %s: resuming and ending the loads\n",
					strsignal(sig));
				if (ses) {
					char line[96];

					snprintf(line, sizeof(line), "stopped by %s", strsignal(sig));
					session_write_note(ses, line);
				}
				ret = 128 + sig;
				goto out;
			}
		}
	}
	if (!ses && (ol.m.model_steady || ol.m.model_mark)) {
		/* no session to hold the model: its windows said all the same
		 * (with a session, the session source says it as it saves it) */
		struct measure_windows mw;

		if (measure_model_windows(msrc, &mw) == 0)
			fprintf(stderr, "argus: the model of the load would use %s (no session saves "
				"it)\n", mw.used);
		else
			fprintf(stderr, "argus: no model of the load: %s\n", mw.why);
	}
	info.measuring_s = measure_elapsed(msrc);
	calib_opts_default(&co);
	co.sequential = ol.m.sequential; /* the verdict's q as valid as the stop was */
	info.sequential = ol.m.sequential;
	info.min_pairs = ol.m.min_pairs;
	if (measure_stopping(msrc, &info.stop_reason, &info.stop_pairs, &info.stop_settled,
			     &info.stop_windows) == 0) {
		/* the session's note comes from the session source */
		fprintf(stderr, "argus: measuring stopped: %s\n", info.stop_reason);
	}
	if (measure_load(msrc))
		info.load_state = load_state(measure_load(msrc), lstate, sizeof(lstate));
	if (autorun && !measure_load(msrc)) {
		fprintf(stderr, "argus: steps compare the load paused and running, and there is no "
			"load argus may pause (-p without --pause): running none\n");
		autorun = 0;
	}
	if (autorun && max_steps) {
		struct diagnose_steps_opts so = { 0 };
		struct step_exec_opts xo;
		struct step_scope scope;

		/* the loads stay for the steps; the calibration's sampler goes */
		measure_close_sampler(msrc);
		step_exec_opts_default(&xo);
		xo.load = measure_load(msrc);
		xo.log = stderr;
		xo.settle_s = ol.m.settle_s;
		xo.sequential = ol.m.sequential; /* a step stops when settled too */
		xo.min_pairs = ol.m.min_pairs;
		if (budget > 0)
			xo.budget_pct = budget;
		so.agent = agent;
		so.max_steps = max_steps;
		so.auto_accept = 1;
		so.exec = &xo;
		step_scope_of_run(&scope, measure_load(msrc), measure_victim(msrc), ol.m.pid);
		so.scope = &scope;
		so.stop_fd = sfd;
		so.log = stderr;
		so.ses = ses;
		so.running = src;
		err = diagnose_run_steps(src->ops->profile(src), &co, ol.m.freq_hz,
					 (uint32_t)getpid(), &so, &res, &steps_json, &cause);
		if (err != -EINTR)
			src->ops->stop(src);
	} else if (agent) {
		/* End the loads before thinking: the verdict does not need them. */
		src->ops->stop(src);
		err = diagnose_run_agent(src->ops->profile(src), &co, ol.m.freq_hz,
					 (uint32_t)getpid(), agent, sfd, &res, &cause);
	} else {
		struct diagnose_steps_opts so = { 0 };

		/* End the loads before thinking: the verdict does not need them. */
		src->ops->stop(src);
		so.max_steps = max_steps;
		so.stop_fd = -1;
		so.log = stderr;
		so.ses = ses;
		err = diagnose_run_steps(src->ops->profile(src), &co, ol.m.freq_hz,
					 (uint32_t)getpid(), &so, &res, &steps_json, &cause);
	}
	if (err == -EINTR) {
		struct signalfd_siginfo si;

		if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			sig = (int)si.ssi_signo;
			fprintf(stderr, "argus: %s: the step or the agent's turn stopped; resuming and "
				"ending the loads\n", strsignal(sig));
			ret = 128 + sig;
		}
		goto out;
	}
	if (err < 0) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		goto out;
	}
	info.measuring_s += res.steps_s; /* measuring = windows + steps */
	if (ses) {
		char line[160];

		if (info.load_state) {
			snprintf(line, sizeof(line), "load %s after %.1f s of measuring", info.load_state,
				 info.measuring_s);
			session_write_note(ses, line);
		}
		err = session_write_diagnosis(ses, &res);
		if (err)
			fprintf(stderr, "argus: cannot write the session %s: %s\n",
				session_path(ses), strerror(-err));
	}
	info.elapsed_s = util_mono_s() - t0;
	info.load_cmd = ol.load_cmd;
	measure_scopes(msrc, scope_ref, sizeof(scope_ref), scope_load, sizeof(scope_load));
	info.scope_ref = scope_ref;
	info.scope_load = scope_load;
	info.steps_json = steps_json;
	info.pairs = ol.m.pairs;
	info.window_s = ol.m.window_s;
	info.settle_s = ol.m.settle_s;
	info.freq_hz = ol.m.freq_hz;
	for (unsigned w = 0; w < src->ops->profile(src)->nwin; w++)
		if (ol.m.pid && !ol.m.pause && src->ops->profile(src)->wins[w].cond == COND_REF)
			info.saved_ref_windows++;
	fprintf(stderr, "argus: verdict in %.1f s: %s\n", info.elapsed_s,
		res.verdict.summary ? res.verdict.summary :
		res.verdict.found ? "found" : "no bottleneck found");
	err = diagnose_write_json(&res, src->ops->profile(src), &info, stdout);
	if (err < 0) {
		fprintf(stderr, "argus: cannot write the verdict: %s\n", strerror(-err));
		goto out;
	}
	ret = EXIT_OK;
	if (load_failed(measure_load(msrc), fstate, sizeof(fstate))) {
		/* its output (stderr, above) says why; a verdict on a run
		 * that failed is no verdict on the workload */
		const char *last = measure_load_last_line(msrc);

		fprintf(stderr, "argus: the load failed: %s%s%s%s; the verdict describes the failed "
			"run, not the workload (exit status 6)\n", fstate,
			last ? "; its last line: \"" : "", last ? last : "", last ? "\"" : "");
		if (ses) {
			char line[96];

			snprintf(line, sizeof(line), "the load failed: %s", fstate);
			session_write_note(ses, line);
		}
		ret = EXIT_LOAD_FAILED;
	}
out:
	diagnose_result_clear(&res);
	free(steps_json);
	source_free(src);            /* resumes, then ends the loads it owns */
	if (ses && session_close(ses) && ret == EXIT_OK)
		fprintf(stderr, "argus: the session file may be incomplete (a write failed)\n");
	load_registry_cleanup();     /* anything else still registered */
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	}
	free(cause);
	agent_free(agent);
	opts_agent_free(&oa);
	opts_load_free(&ol);
	return ret;
}
