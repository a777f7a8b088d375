/* cmd_step — `argus step FILE|-`: validate one step spec and run it against
 * a load in alternating reference/loaded windows; results as JSON on stdout.
 * `--check` only validates.  Progress goes to stderr.  Signals arrive
 * through a signalfd: on SIGINT/SIGTERM/SIGHUP/SIGQUIT the probe is
 * detached, the loads are resumed and ended, and argus exits 128+signal. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "probe/caps.h"
#include "cmd.h"
#include "cmd_common.h"
#include "host/load.h"
#include "measure/measure.h"
#include "base/num.h"
#include "opts_load.h"
#include "probe/probe.h"
#include "data/step.h"
#include "step/step_exec.h"
#include "step/step_json.h"
#include "step/step_preflight.h"
#include "step/step_scope.h"
#include "base/util.h"

enum step_opt_id { SO_CHECK, SO_JSON, SO_ONLY_LOAD, SO_BUDGET, SO_PAIRS, SO_HELP };

/* step's own options */
static const struct opt step_opts[] = {
	{ SO_CHECK, "--check", NULL, NULL,
	  "parse and validate only; print the spec with its targets resolved" },
	{ SO_JSON, "--json", NULL, NULL, "results as JSON on stdout (the only format)" },
	{ SO_ONLY_LOAD, "--only-load", NULL, NULL,
	  "count only the load's own processes (its cgroup, else its PID)" },
	{ SO_BUDGET, "--budget", NULL, "PCT",
	  "overhead budget, % of one CPU (0.01 to 1000; default 2 for sample, 5 for the others); over it the step is detached" },
	{ SO_PAIRS, "--step-pairs", NULL, "K",
	  "reference/loaded window pairs for the step (1 to 100, default 3)" },
	{ SO_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group step_group = OPT_GROUP("options", step_opts);
static const struct opt_group *const step_groups[] = { &step_group, &opts_load_group };

static void step_head(FILE *out)
{
	fprintf(out,
		"usage: argus step --check FILE|-\n"
		"       argus step [--budget PCT] [--step-pairs K] [load options] FILE|- [-- CMD ARGS]\n\n"
		"Validates an instrumentation step spec (JSON, see argus(1) STEP SPEC) and, without\n"
		"--check, runs it against the load in alternating reference (load paused) and\n"
		"loaded windows, printing its results as one JSON object on stdout.\n");
}

static void step_tail(FILE *out)
{
	fprintf(out, "\nexit status: 0 results printed (also when stopped over budget), 1 error or\n"
		"invalid spec, 2 usage, 3 privileges, 4 kernel (kind unavailable), 127 the load\n"
		"could not be run, 128+N killed by signal N (probe detached, loads ended)\n");
}

const struct cmd_opts cmd_step_opts = CMD_OPTS("step", step_head, step_groups, step_tail);

/* Reads, parses and validates the spec at path; prints the error. */
static int step_load_spec(const char *path, struct step **out)
{
	struct step_error e;
	struct step *s = NULL;
	size_t len = 0;
	char *text;
	FILE *f;
	int rc = EXIT_ERROR, err;

	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "argus step: cannot open %s: %s\n", path, strerror(errno));
		return EXIT_ERROR;
	}
	err = util_read_stream(f, 1u << 24, &text, &len); /* a spec is small; refuse a flood */
	if (f != stdin)
		fclose(f);
	if (err) {
		fprintf(stderr, "argus step: cannot read %s: %s\n", path,
			err == -ENOMEM ? "out of memory" : err == -EFBIG ?
			"larger than 16 MiB, which no step spec is" : strerror(-err));
		return EXIT_ERROR;
	}
	if (step_parse_json(text, len, &s, &e)) {
		if (e.line)
			fprintf(stderr, "argus step: %s:%d:%d: %s\n", path, e.line, e.col, e.msg);
		else
			fprintf(stderr, "argus step: %s: %s%s%s\n", path, e.field, *e.field ? ": " : "", e.msg);
		goto out;
	}
	if (step_validate(s, caps_cached(), NULL, &e)) {
		fprintf(stderr, "argus step: %s: %s: %s\n", path, e.field, e.msg);
		rc = strstr(e.msg, "not available on this kernel") ? EXIT_KERNEL : EXIT_ERROR;
		goto out;
	}
	*out = s;
	s = NULL;
	rc = EXIT_OK;
out:
	free(text);
	step_free(s);
	return rc;
}

static int step_check(const char *path)
{
	struct step *s = NULL;
	char *json;
	int rc = step_load_spec(path, &s);

	if (rc != EXIT_OK)
		return rc;
	json = step_to_json(s);
	if (json) {
		printf("%s\n", json);
		for (unsigned i = 0; i < s->nresolved; i++)
			printf("resolved: %s\n", s->resolved[i]);
	} else {
		rc = EXIT_ERROR;
	}
	free(json);
	step_free(s);
	return rc;
}

/* The loads come from a measure source that never measures: one place
 * (measure_new) starts loads, victims and backgrounds the same way for
 * every command. */
static int64_t inert_collect(void *ctx, struct profile *p, unsigned win)
{
	return 0;
}

static void inert_close(void *ctx)
{
}

static const struct measure_sampler inert_sampler = {
	.collect = inert_collect,
	.close = inert_close,
};

static int step_signalfd(sigset_t *old)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };
	int fd = cmd_signalfd(sigs, old);

	if (fd >= 0)
		signal(SIGPIPE, SIG_IGN);
	return fd;
}

int cmd_step(int argc, char **argv)
{
	struct opts_load ol;
	struct step *s = NULL;
	struct step_exec *x = NULL;
	struct step_exec_opts xo;
	struct step_exec_info info;
	struct step_preflight pf = { 0 };
	struct step_data *d = NULL;
	struct step_report rep = { 0 };
	struct source *src = NULL;
	const char *path = NULL;
	char *cause = NULL, *json = NULL, line[512];
	int check = 0, only_load = 0, rc = EXIT_ERROR, sfd = -1, noexec = 0, err;
	unsigned pairs = 0;
	double budget = 0;
	sigset_t oldmask;
	const struct opt_parser parser = cmd_opt_parser(&cmd_step_opts);
	struct opt_hit h;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	opts_load_init(&ol);
	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		char *why = NULL;

		if (r < 0) {
			rc = EXIT_USAGE;
			goto out;
		}
		if (r == OPT_DASHDASH) {
			if (opts_load_dashdash(&ol, argc, argv, i, stderr) < 0) {
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		}
		if (r == OPT_OPERAND) {   /* the spec: a file, or "-" for stdin */
			if (path) {
				fprintf(stderr, "argus step: one spec at a time ('%s' and '%s')\n", path,
					h.val);
				rc = EXIT_USAGE;
				goto out;
			}
			path = h.val;
			continue;
		}
		if (h.group == &opts_load_group) {
			if (opts_load_apply(&ol, &h, stderr) < 0) {
				rc = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		switch ((enum step_opt_id)h.o->id) {
		case SO_CHECK:
			check = 1;
			break;
		case SO_JSON:
			break;
		case SO_ONLY_LOAD:
			only_load = 1;
			break;
		case SO_BUDGET:
			num_parse_double(h.val, 0.01, 1000, "percent of one CPU", &budget, &why);
			break;
		case SO_PAIRS:
			num_parse_uint(h.val, 1, 100, "pairs", &pairs, &why);
			break;
		case SO_HELP:
			cmd_help(&cmd_step_opts, stdout);
			rc = EXIT_OK;
			goto out;
		}
		if (why) {
			fprintf(stderr, "argus step: %s: %s\n", h.o->name, why);
			free(why);
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (!path) {
		cmd_help(&cmd_step_opts, stderr);
		rc = EXIT_USAGE;
		goto out;
	}
	if (check) {
		rc = step_check(path);
		goto out;
	}
	if (opts_load_finish(&ol, 1, stderr) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	if (ol.m.model_steady || ol.m.model_mark) {
		fprintf(stderr, "argus step: --steady and --mark choose the windows of the model of "
			"the load, which a step does not build; give them to argus or argus diagnose\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (ol.m.pid && !ol.m.pause) {
		fprintf(stderr, "argus step: a step pauses the load for its reference windows: add "
			"--pause to -p %d, or start the load with --load CMD\n", (int)ol.m.pid);
		rc = EXIT_USAGE;
		goto out;
	}
	if (cmd_check_probe_access(&rc))
		goto out;
	rc = step_load_spec(path, &s);
	if (rc != EXIT_OK)
		goto out;
	rc = EXIT_ERROR;
	sfd = step_signalfd(&oldmask);
	if (sfd < 0) {
		fprintf(stderr, "argus: cannot watch signals: %s\n", strerror(-sfd));
		goto out;
	}
	load_set_log(stderr);
	ol.m.log = NULL;
	ol.m.load_flags |= LOAD_F_STDOUT_STDERR;
	ol.m.sampler = &inert_sampler;
	src = measure_new(&ol.m, &noexec, &cause);
	if (!src) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
		rc = noexec ? EXIT_NOEXEC : EXIT_ERROR;
		goto out;
	}
	/* a spec runs as written: scoped to the load when asked (--only-load,
	 * or "scope": "load"), the same way the agent's proposals are */
	if ((only_load || s->scope == STEP_SCOPE_LOAD) && measure_load(src)) {
		struct step_scope sc;
		struct step_error e = { 0 };

		step_scope_of_run(&sc, measure_load(src), measure_victim(src), (int)ol.m.pid);
		if (step_scope_apply(&sc, s, &e) < 0 || step_validate(s, caps_cached(), NULL, &e)) {
			fprintf(stderr, "argus step: %s: %s: %s\n", path, e.field, e.msg);
			goto out;
		}
	}
	/* does it attach, how many events, what does it cost */
	err = step_preflight(s, NULL, NULL, 0, NULL, &pf);
	fprintf(stderr, "argus: step: pre-flight: %s\n", step_preflight_line(&pf, line, sizeof(line)));
	if (err < 0) {
		rc = err == -ENOSYS || err == -EPERM || err == -EOPNOTSUPP ? EXIT_KERNEL : EXIT_ERROR;
		goto out;
	}
	step_exec_opts_default(&xo);
	xo.load = measure_load(src);
	xo.log = stderr;
	xo.settle_s = ol.m.settle_s;
	if (pairs)
		xo.pairs = pairs;
	if (budget > 0)
		xo.budget_pct = budget;
	x = step_exec_new(s, &xo, &cause);
	if (!x) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
		rc = errno == ENOSYS ? EXIT_KERNEL : EXIT_ERROR;
		goto out;
	}
	err = step_exec_run(x, sfd, &cause);
	if (err == -EINTR) {
		struct signalfd_siginfo si;

		if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
			fprintf(stderr, "argus: %s: detaching the step, resuming and ending the loads\n",
				strsignal((int)si.ssi_signo));
			rc = 128 + (int)si.ssi_signo;
		}
		goto out;
	}
	if (err < 0) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		rc = measure_load(src) && !load_started(measure_load(src)) ? EXIT_NOEXEC : EXIT_ERROR;
		goto out;
	}
	step_exec_info(x, &info);
	d = step_exec_take_data(x);
	step_exec_free(x);
	x = NULL;
	if (info.state == STEP_EXEC_OVER_BUDGET)
		fprintf(stderr, "argus: step %s\n", info.reason);
	rep.s = s;
	rep.decision = "run";
	rep.pf = &pf;
	rep.d = d;
	rep.info = &info;
	json = step_report_json(&rep);
	if (!json) {
		fprintf(stderr, "argus: cannot write the results: %s\n", strerror(errno));
		goto out;
	}
	printf("%s\n", json);
	fflush(stdout);
	{
		const char *sum = strstr(json, "\"summary\":\"");

		if (sum) {
			char *e = strchr(sum + 11, '"');

			fprintf(stderr, "argus: step: %.*s\n", e ? (int)(e - sum - 11) : 80, sum + 11);
		}
	}
	rc = EXIT_OK;
out:
	step_exec_free(x);           /* detaches first */
	step_data_free(d);
	step_preflight_clear(&pf);
	source_free(src);            /* resumes, then ends the loads it owns */
	load_registry_cleanup();
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
	}
	free(json);
	free(cause);
	step_free(s);
	caps_cached_free();
	opts_load_free(&ol);
	return rc;
}
