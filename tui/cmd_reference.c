/* cmd_reference — `argus reference save [--duration S] [--window S]
 * [--freq HZ] [--output FILE]`: records the idle system as a saved reference
 * (core/host/reference.h) for loads argus may not pause (-p PID without --pause).
 * Keyed by host, kernel release and probe set ("sample@999Hz"). */
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
#include "host/idle.h"
#include "host/load.h"
#include "measure/measure.h"
#include "base/num.h"
#include "probe/probe.h"
#include "host/reference.h"
#include "base/sanitize.h"
#include "base/util.h"

enum ref_opt_id { RF_DURATION, RF_WINDOW, RF_FREQ, RF_OUTPUT, RF_STRICT, RF_HELP };

static const struct opt ref_table[] = {
	{ RF_DURATION, "--duration", NULL, "S", "seconds to record (default 10)" },
	{ RF_WINDOW, "--window", NULL, "S",
	  "seconds per window (default " OPT_STR(MEASURE_DEFAULT_WINDOW_S) "; windows give the pairs)" },
	{ RF_FREQ, "--freq", NULL, "HZ",
	  "sampling frequency; must match the runs using it (default " OPT_STR(MEASURE_DEFAULT_FREQ_HZ) ")" },
	{ RF_OUTPUT, "--output", "-o", "FILE",
	  "where to write (default $XDG_STATE_HOME/argus/reference-HOST-KERNEL-PROBESET.jsonl, "
	  "$XDG_STATE_HOME defaulting to ~/.local/state)" },
	{ RF_STRICT, "--strict", NULL, NULL,
	  "save nothing when the system was not idle while recording (more than 10% of the CPU "
	  "time busy, or a load average above 0.5 per CPU); without it that is a warning" },
	{ RF_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group ref_group = OPT_GROUP("options", ref_table);
static const struct opt_group *const ref_groups[] = { &ref_group };

static void reference_head(FILE *out)
{
	fprintf(out,
		"usage: argus reference save [--duration S] [--window S] [--freq HZ] [--output FILE] [--strict]\n\n"
		"Samples the idle system (nothing of yours should run) and saves it as the\n"
		"reference for 'argus -p PID' and 'argus diagnose -p PID' without --pause.\n");
}

static void reference_tail(FILE *out)
{
	fprintf(out, "\nA reference older than 24 h, or from another host, kernel or probe set, is refused.\n");
}

const struct cmd_opts cmd_reference_opts =
	CMD_OPTS("reference", reference_head, ref_groups, reference_tail);

static int ref_num(const char *opt, const char *val, double min, double max, const char *unit,
		   double *out)
{
	char *cause = NULL;

	if (num_parse_double(val, min, max, unit, out, &cause) < 0) {
		fprintf(stderr, "argus: reference: %s: %s\n", opt, cause ? cause : "bad number");
		free(cause);
		return -1;
	}
	return 0;
}

/* The signals that end a reference recording (the loop stops and saves). */
static const int ref_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };

int cmd_reference(int argc, char **argv)
{
	struct measure_opts mo;
	struct reference_meta meta;
	struct source *src = NULL;
	struct source_status st;
	const char *output = NULL;
	char *path = NULL, *cause = NULL, ps[64];
	double duration = 10;
	int ret = EXIT_ERROR, sfd = -1, err, strict = 0, busy;
	struct idle_snap before, after;
	char *why = NULL, *cut;
	sigset_t old;
	const struct opt_parser parser = cmd_opt_parser(&cmd_reference_opts);
	struct opt_hit h;
	int save = 0;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	measure_opts_default(&mo);
	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		char *bad = NULL;

		if (r < 0)
			return EXIT_USAGE;
		if (r != OPT_OPTION) {
			if (r == OPT_OPERAND && !strcmp(h.val, "save") && !save) {
				save = 1;
				continue;
			}
			sanitize_fprintf(stderr, 0, "argus: reference: '%s': the one action is 'save'",
					 r == OPT_DASHDASH ? "--" : h.val);
			fputc('\n', stderr);
			cmd_help(&cmd_reference_opts, stderr);
			return EXIT_USAGE;
		}
		switch ((enum ref_opt_id)h.o->id) {
		case RF_HELP:
			cmd_help(&cmd_reference_opts, stdout);
			return EXIT_OK;
		case RF_DURATION:
			if (ref_num(h.o->name, h.val, 0.1, 86400, "seconds", &duration) < 0)
				return EXIT_USAGE;
			break;
		case RF_WINDOW:
			if (ref_num(h.o->name, h.val, MEASURE_WINDOW_MIN_S, MEASURE_WINDOW_MAX_S,
				    "seconds", &mo.window_s) < 0)
				return EXIT_USAGE;
			break;
		case RF_FREQ:
			if (num_parse_uint(h.val, 1, MEASURE_FREQ_MAX_HZ, "Hz", &mo.freq_hz, &bad) < 0) {
				fprintf(stderr, "argus: reference: --freq: %s\n", bad ? bad : "bad number");
				free(bad);
				return EXIT_USAGE;
			}
			break;
		case RF_OUTPUT:
			output = h.val;
			break;
		case RF_STRICT:
			strict = 1;
			break;
		}
	}
	if (!save) {
		fprintf(stderr, "argus: reference: which action? the one is 'save'\n");
		cmd_help(&cmd_reference_opts, stderr);
		return EXIT_USAGE;
	}
	reference_meta_here(&meta, measure_probe_set(mo.freq_hz, ps, sizeof(ps)), mo.freq_hz);
	if (!output) {
		path = reference_default_path(&meta);
		if (!path) {
			fprintf(stderr, "argus: reference: neither $XDG_STATE_HOME nor $HOME is set; "
				"give --output FILE\n");
			return EXIT_USAGE;
		}
		output = path;
	}
	if (probe_check_privileges(&cause) < 0) {
		fprintf(stderr, "argus: %s\n", cause);
		ret = EXIT_PRIV;
		goto out;
	}
	sfd = cmd_signalfd(ref_sigs, &old);
	mo.reference_only = 1;
	mo.reference_windows = (unsigned)(duration / mo.window_s + 0.5);
	if (!mo.reference_windows)
		mo.reference_windows = 1;
	mo.collect_s = -1;
	mo.log = stderr;
	if (idle_snapshot(&before) < 0)
		before.busy = before.total = 0;
	src = measure_new(&mo, NULL, &cause);
	if (!src) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
		ret = errno == EPERM ? EXIT_PRIV : EXIT_ERROR;
		goto out;
	}
	for (;;) {
		struct pollfd pfd = { .fd = sfd, .events = POLLIN };

		err = src->ops->tick(src, util_mono_s(), &cause);
		if (err < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
		src->ops->status(src, &st);
		if (st.phase == SOURCE_DONE)
			break;
		if (poll(&pfd, 1, src->ops->timeout_ms(src, util_mono_s())) > 0) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
				fprintf(stderr, "argus: %s: nothing saved\n", strsignal((int)si.ssi_signo));
				ret = 128 + (int)si.ssi_signo;
				goto out;
			}
		}
	}
	src->ops->stop(src);
	busy = before.total && idle_snapshot(&after) == 0 ? idle_judge(&before, &after, &why) : -EIO;
	if (busy < 0)
		fprintf(stderr, "argus: warning: cannot tell whether the system was idle "
			"(/proc/stat or the load average unreadable)\n");
	else if (busy > 0 && strict) {
		fprintf(stderr, "argus: %s; --strict: nothing saved\n", why ? why : "the system was not idle");
		goto out;
	} else if (busy > 0) {
		fprintf(stderr, "argus: warning: %s (--strict refuses such a reference)\n",
			why ? why : "the system was not idle");
		/* kept in the file: every run that uses it says so again */
		/* the numbers, not the advice (said on every use, and the
		 * whole sentence would be cut to the key's size) */
		cut = why ? strstr(why, "; a reference stands") : NULL;
		snprintf(meta.busy, sizeof(meta.busy), "%.*s",
			 cut ? (int)(cut - why) : (int)sizeof(meta.busy),
			 why ? why : "the system was not idle");
	}
	err = reference_save(src->ops->profile(src), &meta, output, &cause);
	if (err < 0) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		goto out;
	}
	fprintf(stderr, "argus: saved a reference of %u windows (%s, %s, %s) to %s\n",
		mo.reference_windows, meta.host, meta.kernel, meta.probe_set, output);
	printf("%s\n", output);
	ret = EXIT_OK;
out:
	source_free(src);
	load_registry_cleanup();
	if (sfd >= 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	free(cause);
	free(why);
	free(path);
	return ret;
}
