/* cmd_tui — `argus [options] [-- CMD ARGS]`: the interactive tree over live
 * sampling (system-wide, one process, or a command argus starts).
 *
 * Options live in one table (tui_options) that the parser, --help and the
 * man page text come from; the load options of a calibrated measurement are
 * to be added beside it (opts_load). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <locale.h>

#include "app.h"
#include "data/import.h"
#include "host/load.h"
#include "measure/measure.h"
#include "base/num.h"
#include "opts_load.h"
#include "opts_session.h"
#include "host/reference.h"
#include "cmd.h"
#include "cmd_common.h"
#include "opts_agent.h"
#include "probe/probe.h"
#include "probe/probe_profile.h"
#include "data/procinfo.h"
#include "base/sanitize.h"
#include "measure/source_live.h"
#include "measure/source_static.h"
#include "theme.h"
#include "view_keys.h"

enum tui_opt_id {
	OPT_THEME,
	OPT_ASCII,
	OPT_THRESHOLD,
	OPT_LOG,
	OPT_KEYS,
	OPT_HELP,
	OPT_STATIC,
	OPT_STEPS,
	OPT_AUTO,
	OPT_BUDGET,
	OPT_DECAY,
};

static const struct opt tui_options[] = {
	{ OPT_THEME, "--theme", NULL, "NAME|PATH",
	  "color theme: default, light, high-contrast, mono, or a file" },
	{ OPT_ASCII, "--ascii", NULL, NULL, "ASCII line drawing even in a UTF-8 locale" },
	{ OPT_THRESHOLD, "--threshold", NULL, "PCT",
	  "hide nodes below PCT% of all samples (default 0.1)" },
	{ OPT_LOG, "--log", "-v", "FILE", "write log messages (libbpf's included) to FILE" },
	{ OPT_STEPS, "--steps", NULL, "N",
	  "the agent proposes at most N instrumentation steps (default 5)" },
	{ OPT_BUDGET, "--budget", NULL, "PCT",
	  "a step's overhead budget, % of one CPU (0.01 to 1000; default 2 for sample, 5 for "
	  "the others): a card over it says so and asks twice" },
	{ OPT_AUTO, "--auto", NULL, NULL,
	  "accept every proposed step without asking (the status bar says so)" },
	{ OPT_DECAY, "--decay", NULL, "SECONDS",
	  "live tree: counts fade, halved every SECONDS (0.1 to 86400; the session keeps "
	  "them all; key 0 resets)" },
	{ OPT_KEYS, "--keys", NULL, NULL, "print the key bindings and exit" },
	{ OPT_HELP, "--help", "-h", NULL, "this help" },
	/* not in --help: the screen tests' fixtures (folded stacks: one file, or
	 * ref,load,... alternating; no privileges) */
	{ OPT_STATIC, "--static", NULL, "FILE[,FILE...]", NULL },
};

static const struct opt_group tui_group = OPT_GROUP("options", tui_options);
static const struct opt_group *const tui_groups[] = {
	&tui_group, &opts_load_group, &opts_session_group, &opts_agent_group,
};

#define TUI_MAX_PIDS 64

static void tui_head(FILE *out)
{
	fprintf(out, "usage: argus [options] [--load CMD | -- CMD ARGS | -p PID] [--victim CMD] ...\n\n"
		"The interactive calling-context tree of the kernel.  With a load, argus\n"
		"alternates reference windows (the load paused) and loaded windows, and\n"
		"marks the deltas that are real; without one, the tree is live and\n"
		"system-wide (-p PID: that process, compared with a saved reference when\n"
		"there is one).\n");
}

static void tui_tail(FILE *out)
{
	fprintf(out, "\nkeys ('?' in the tree shows them too):\n");
	key_print(out);
	fprintf(out, "\nNeeds root, or CAP_BPF and CAP_PERFMON.  NO_COLOR=1 for no colors.\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 privileges, 4 kernel, 127 CMD not run.\n");
}

const struct cmd_opts cmd_tui_opts = CMD_OPTS(NULL, tui_head, tui_groups, tui_tail);

/* Profiles from files (folded or perf script, through core/import): one
 * file is a loaded window; several alternate reference, loaded, ... (the
 * screen tests browse fixtures this way, without privileges). */
static struct source *static_source(const char *list, char **cause)
{
	struct profile *p = profile_new();
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned nfiles = 0;
	int err = 0;

	if (!p || !copy) {
		err = -ENOMEM;
		goto fail;
	}
	for (const char *c = list; *c; c++)
		nfiles += *c == ',';
	nfiles++;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum cond c = nfiles == 1 ? COND_LOAD : (p->nwin % 2 ? COND_LOAD : COND_REF);
		int w = profile_window_begin(p, c, p->nwin);

		if (w < 0) {
			err = w;
			goto fail;
		}
		err = import_file(tok, p, (unsigned)w, cause);
		if (err)
			goto fail;
		if (p->wins[w].secs <= 0)
			profile_window_end(p, (unsigned)w, 1.0);
	}
	free(copy);
	return source_static_new(p, list);
fail:
	if (err == -ENOMEM && !*cause && asprintf(cause, "out of memory") < 0)
		*cause = NULL;
	free(copy);
	profile_free(p);
	errno = -err;
	return NULL;
}

/* -p PID alone compares with a saved reference when there is one; without,
 * the tree is live and uncalibrated (pausing a process is the user's call:
 * --pause). */
static int have_saved_reference(unsigned freq_hz)
{
	struct reference_meta meta;
	char set[64], *path;
	int ok;

	reference_meta_here(&meta, measure_probe_set(freq_hz, set, sizeof(set)), freq_hz);
	path = reference_default_path(&meta);
	ok = path && access(path, R_OK) == 0;
	free(path);
	return ok;
}

static void log_stderr(void *arg, enum probe_log_level level, const char *msg)
{
	(void)arg;
	if (level == PROBE_LOG_WARN)
		fputs(msg, stderr);
}

#define TUI_MAX_KIDS 1024

/* pid and the descendants it has now (the sampler follows forks from its
 * start only: -p of timeout's PID showed nothing of its running command),
 * into out; *n gets how many.  0 or -errno. */
static int tui_pid_tree(uint32_t pid, uint32_t *out, size_t max, size_t *n)
{
	struct load *l = load_attach_pid((pid_t)pid, NULL);
	int k;

	if (!l)
		return -errno;
	k = load_tgids(l, out, max);
	load_free(l);                 /* attached, never paused: nothing done to it */
	if (k <= 0)
		return k < 0 ? k : -ESRCH;
	*n = (size_t)k < max ? (size_t)k : max;
	return 0;
}

static int exit_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EXIT_PRIV;
	case ENOMEM:
	case ENOTTY:
	case EINVAL:
	case ENOENT:
		return EXIT_ERROR;
	case ECHILD:     /* measure: the load ended before one pair */
		return EXIT_LOAD_ENDED;
	default:
		return EXIT_KERNEL;
	}
}

int cmd_tui(int argc, char **argv)
{
	struct tui_opts to;
	struct probe_profile_opts po;
	struct opts_load ol;
	struct opts_agent oa;
	uint32_t pid, kids[TUI_MAX_KIDS];
	char *cause = NULL, title[512], comm[64], busy[700];
	const char *static_files = NULL;
	struct source *src = NULL;
	struct session *ses = NULL;
	struct opts_session os = { 0 };
	int i = 1, r, rc = EXIT_OK, err, noexec = 0, calibrated = 0;
	const struct opt_parser parser = cmd_opt_parser(&cmd_tui_opts);
	struct opt_hit h;

	cmd_signals_hold(); /* before any load: see cmd_common.h */
	setlocale(LC_ALL, "");
	tui_opts_default(&to);
	opts_load_init(&ol);
	opts_agent_init(&oa);
	to.agent = &oa;
	memset(&po, 0, sizeof(po));
	while ((r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END) {
		const char *val = h.val;

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
		if (r == OPT_OPERAND) {
			fprintf(stderr, "argus: unexpected '%s'; a command to run goes after '--' "
				"or in --load 'CMD'\n", h.val);
			rc = EXIT_USAGE;
			goto out;
		}
		if (h.group != &tui_group) {
			if (cmd_apply_measure_opt(&h, &ol, &os, &oa) < 0) {
				rc = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		switch ((enum tui_opt_id)h.o->id) {
		case OPT_THEME:
			to.theme = val;
			break;
		case OPT_ASCII:
			to.ascii = 1;
			break;
		case OPT_THRESHOLD: {
			char *why = NULL;
			double t;

			if (num_parse_double(val, 0, 100, "percent", &t, &why) < 0) {
				fprintf(stderr, "argus: --threshold: %s\n", why ? why : "bad number");
				free(why);
				rc = EXIT_USAGE;
				goto out;
			}
			to.threshold = t / 100;
			break;
		}
		case OPT_LOG:
			to.log_path = val;
			break;
		case OPT_KEYS:
			key_print(stdout);
			goto out;
		case OPT_HELP:
			cmd_help(&cmd_tui_opts, stdout);
			goto out;
		case OPT_STATIC:
			static_files = val;
			break;
		case OPT_STEPS: {
			char *why = NULL;

			if (num_parse_uint(val, 1, 64, "steps", &to.steps, &why) < 0) {
				fprintf(stderr, "argus: --steps: %s\n", why ? why : "bad number");
				free(why);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		}
		case OPT_AUTO:
			to.auto_accept = 1;
			break;
		case OPT_DECAY: {
			char *why = NULL;

			/* 0 would be no tree at all: refused, not read as "off" */
			if (num_parse_double(val, 0.1, 86400, "seconds", &to.decay_s, &why) < 0) {
				fprintf(stderr, "argus: --decay: %s\n", why ? why : "bad number");
				fprintf(stderr, "usage: argus --decay SECONDS (the live tree's half-life, "
					"e.g. --decay 5)\n");
				free(why);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		}
		case OPT_BUDGET: {
			char *why = NULL;

			if (num_parse_double(val, 0.01, 1000, "percent of one CPU", &to.budget_pct,
					     &why) < 0) {
				fprintf(stderr, "argus: --budget: %s\n", why ? why : "bad number");
				free(why);
				rc = EXIT_USAGE;
				goto out;
			}
			break;
		}
		}
	}
	if (opts_load_finish(&ol, 0, stderr) < 0) {
		rc = EXIT_USAGE;
		goto out;
	}
	pid = (uint32_t)ol.m.pid;
	if (pid && kill((pid_t)pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, "argus: no process with PID %u\n", pid);
		rc = EXIT_ERROR;
		goto out;
	}

	{
		/* a bad theme is refused before any probe is loaded */
		struct theme th;

		if (theme_load(&th, to.theme, &cause) < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : "cannot load the theme");
			rc = EXIT_USAGE;
			goto out;
		}
	}
	if (to.decay_s > 0 && static_files) {
		fprintf(stderr, "argus: --decay fades the live tree; recorded files keep their "
			"counts\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (static_files) {
		src = static_source(static_files, &cause);
		if (!src) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
			rc = EXIT_ERROR;
			goto out;
		}
		snprintf(title, sizeof(title), "argus %s", static_files);
		to.title = title;
		goto run;
	}

	/* argus's own work (reading maps, drawing) grows when loaded: leave it
	 * out of the tree, the descent and the session, as diagnose does */
	to.exclude_tgid = (uint32_t)getpid();
	err = probe_check_privileges(&cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause ? cause : "needs root");
		fprintf(stderr, "argus: without privileges: 'argus diff' and 'argus replay' browse "
			"recorded data\n");
		rc = EXIT_PRIV;
		goto out;
	}
	probe_set_log(log_stderr, NULL);

	/* A load (or a victim, or a paused / referenced PID) means a calibrated
	 * measurement; otherwise the live tree, system-wide or of one PID. */
	calibrated = ol.m.load_argv || ol.m.victim_argv || ol.m.victim_pid ||
		     ol.m.background_argv || ol.m.pause || ol.m.reference_path ||
		     (pid && have_saved_reference(ol.m.freq_hz));
	if (calibrated && to.decay_s > 0) {
		/* a measurement's windows are what its verdict rests on */
		fprintf(stderr, "argus: --decay is for the live tree (no load, no reference); "
			"a measurement keeps its windows as measured\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (calibrated) {
		/* the loads' output must not reach the terminal curses draws on:
		 * piped, read by measure (--mark), its lines go to stderr, which
		 * the screen keeps in its log (--log FILE) */
		ol.m.load_flags |= LOAD_F_PIPE_STDOUT | LOAD_F_PIPE_STDERR;
		ol.m.load_out = stderr;
		src = measure_new(&ol.m, &noexec, &cause);
		if (!src) {
			err = -errno;
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
			rc = noexec ? EXIT_NOEXEC : exit_for(err ? err : -EIO);
			goto out;
		}
		if (pid && !ol.m.pause) {
			/* whose samples each side holds: like with like (issue 13);
			 * the header names the process itself */
			char sr[160], sl[160], *paren;

			measure_scopes(src, sr, sizeof(sr), sl, sizeof(sl));
			paren = strstr(sl, " (");   /* "(PID N runs)": the header names it */
			if (paren)
				*paren = 0;
			snprintf(title, sizeof(title), "argus -p; ref: %s; load: %s", sr, sl);
			if (measure_ref_busy_warning(src, busy, sizeof(busy)))
				to.warning = busy;
		} else {
			opts_load_title(&ol, title, sizeof(title));
		}
		to.title = title;
		to.agent_pane = 1;
		to.sequential = ol.m.sequential;
		to.load = measure_load(src);
		step_scope_of_run(&to.scope, measure_load(src), measure_victim(src), (int)pid);
	} else {
		po.freq_hz = ol.m.freq_hz;
		po.tgids = pid ? &pid : NULL;
		po.ntgids = pid ? 1 : 0;
		if (pid && tui_pid_tree(pid, kids, TUI_MAX_KIDS, &po.ntgids) == 0)
			po.tgids = kids; /* its children now too: forks only follow from here */
		po.filter = pid != 0;
		po.follow_forks = 1;
		src = source_live_new(&po, &cause);
		if (!src) {
			err = -errno;
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
			rc = exit_for(err ? err : -EIO);
			goto out;
		}
		if (pid) {
			snprintf(title, sizeof(title), "argus -p");
			to.title = title;
			to.note = "no reference: --pause, or reference save";
		}
	}

	if (pid) {
		/* the header names the process (its comm as the kernel has it,
		 * escaped: a process names itself) */
		struct procinfo pi;

		to.pid = pid;
		if (procinfo_read(pid, &pi) == 0) {
			sanitize_into(comm, sizeof(comm), pi.comm, 0);
			to.pid_comm = comm;
		}
		procinfo_clear(&pi);
	}

	/* every run is a session (--no-session: none) */
	ses = opts_session_open(&os, "argus", &ol, 0, &cause);
	if (!ses && cause) {
		fprintf(stderr, "argus: %s\n", cause);
		rc = EXIT_ERROR;
		goto out;
	}
	if (ses) {
		struct source_session_opts so = { .verdict_at_done = 1, .freq_hz = ol.m.freq_hz,
						  .sequential = calibrated && ol.m.sequential,
						  .exclude_tgid = to.exclude_tgid };

		src = source_session_new(src, ses, &so);
		if (!src) {
			fprintf(stderr, "argus: %s\n", strerror(errno));
			rc = EXIT_ERROR;
			goto out;
		}
		to.session_path = session_path(ses);
		to.session = ses;
		oa.ses = ses;     /* each LLM turn recorded (llm_turn events) */
	}

run:
	err = tui_run(src, &to, &cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		rc = calibrated && measure_noexec(source_session_inner(src)) ? EXIT_NOEXEC :
		     exit_for(err);
		/* a load that failed on its own before a pair: 6, as after one */
		if (calibrated && err == -ECHILD &&
		    load_failed(measure_load(source_session_inner(src)), NULL, 0))
			rc = EXIT_LOAD_FAILED;
	} else if (calibrated) {
		char st[48];

		if (load_failed(measure_load(source_session_inner(src)), st, sizeof(st))) {
			/* its output is printed above (app's tail) */
			const char *last = measure_load_last_line(source_session_inner(src));

			fprintf(stderr, "argus: the load failed: %s%s%s%s; the verdict describes the "
				"failed run, not the workload (exit status 6)\n", st,
				last ? "; its last line: \"" : "", last ? last : "",
				last ? "\"" : "");
			rc = EXIT_LOAD_FAILED;
		}
	}
out:
	free(cause);
	probe_set_log(NULL, NULL);
	source_free(src);
	if (ses) {
		char *path = strdup(session_path(ses));

		if (session_close(ses))
			fprintf(stderr, "argus: the session file %s may be incomplete (a write failed)\n",
				path ? path : "");
		else
			fprintf(stderr, "argus: session %s (argus replay shows it again)\n",
				path ? path : "");
		free(path);
	}
	opts_load_free(&ol);
	opts_agent_free(&oa);
	return rc;
}
