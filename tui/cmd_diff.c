/* cmd_diff — `argus diff REF LOAD [--batch [--json]]`: a reference and a
 * loaded profile recorded elsewhere (folded stacks, perf script text or
 * pprof, recognised by content) through the same calibration and descent as
 * `argus diagnose`.  Needs no privileges. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "cmd.h"
#include "cmd_common.h"
#include "output/diagnose.h"
#include "data/import.h"
#include "base/num.h"
#include "opts_agent.h"
#include "data/profile.h"
#include "measure/session.h"
#include "measure/source_static.h"
#include "theme.h"
#include "base/util.h"

enum diff_opt_id { DF_BATCH, DF_JSON, DF_SESSION, DF_FREQ, DF_THEME, DF_ASCII, DF_HELP };

static const struct opt diff_table[] = {
	{ DF_BATCH, "--batch", NULL, NULL, "no terminal interface: print the verdict and the decisions" },
	{ DF_JSON, "--json", NULL, NULL, "with --batch: one JSON object, as 'argus diagnose --json' prints" },
	{ DF_SESSION, "--session", NULL, "FILE",
	  "also record the comparison as a session file (argus replay)" },
	{ DF_FREQ, "--freq", NULL, "HZ", "the sampling frequency the files were recorded at (CPU-ms/s)" },
	{ DF_THEME, "--theme", NULL, "NAME", "color theme of the interactive view (default, light, ...)" },
	{ DF_ASCII, "--ascii", NULL, NULL, "ASCII line drawing even in a UTF-8 locale" },
	{ DF_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group diff_group = OPT_GROUP("options", diff_table);
static const struct opt_group *const diff_groups[] = { &diff_group, &opts_agent_group };

static void diff_head(FILE *out)
{
	fprintf(out,
		"usage: argus diff REF LOAD [--batch [--json]] [--session FILE] [--freq HZ]\n"
		"                  [--agent heuristic|llm [--redact]]\n"
		"                  [--theme NAME] [--ascii]\n\n"
		"Compares a reference profile (idle, or the load paused) with a loaded one, both\n"
		"recorded elsewhere: folded stacks ('a;b;c COUNT', root first), 'perf script'\n"
		"text from 'perf record -g', or pprof (gzipped or not: go tool pprof -proto,\n"
		"Pyroscope, Parca, argus export --format pprof), recognised by their content.\n"
		"Calibrates every kernel path and descends to the one that explains the\n"
		"difference.\n\n"
		"Without --batch: the interactive tree (ref/s, load/s, delta, the verdict path).\n");
}

static void diff_tail(FILE *out)
{
	fprintf(out,
		"\nA folded file may start with '# argus-window secs=S cond=ref|load' to give its\n"
		"length; perf script files give theirs by their time stamps, pprof its\n"
		"duration_nanos (argus's own pprof: each window); a file of unknown\n"
		"length counts as one window of 1 s.  No privileges are needed.\n"
		"exit status: 0 verdict printed (found or not), 1 error (a file that is not\n"
		"what it claims is named with its line), 2 usage\n");
}

const struct cmd_opts cmd_diff_opts = CMD_OPTS("diff", diff_head, diff_groups, diff_tail);

/* Reads one file into a new window of condition c; prints why not. */
static int diff_import(struct profile *p, const char *path, enum cond c,
		       struct import_info *info)
{
	char *cause = NULL;
	int w = profile_window_begin(p, c, 0);

	if (w < 0) {
		fprintf(stderr, "argus: diff: %s\n", strerror(-w));
		return w;
	}
	int err = import_file_info(path, p, (unsigned)w, info, &cause);
	if (err) {
		fprintf(stderr, "argus: diff: %s\n", cause ? cause : strerror(-err));
		free(cause);
		return err;
	}
	if (info->note[0])
		fprintf(stderr, "argus: diff: %s: %s\n", path, info->note);
	if (!info->secs_known && info->format == IMPORT_FOLDED)
		/* rates per second need a length: said, not assumed silently */
		fprintf(stderr, "argus: diff: %s: no '# argus-window secs=S' line: counted as one "
			"window of 1 s, so its rates are its counts\n", path);
	return 0;
}

/* Opens the session file and records the two files' windows. */
static int diff_session(struct session **out, const char *path, const char *const files[2],
			const struct profile *p)
{
	char *q0 = session_json_quote(files[0]), *q1 = session_json_quote(files[1]);
	char *opts = NULL, *cause = NULL;
	struct session_header h = { 0 };
	int err = -ENOMEM;

	if (!q0 || !q1 || asprintf(&opts, "{\"command\":\"diff\",\"ref\":%s,\"load\":%s}", q0, q1) < 0) {
		opts = NULL;
		fprintf(stderr, "argus: diff: out of memory\n");
		goto out;
	}
	h.options_json = opts;
	*out = session_open(path, &h, &cause);
	if (!*out) {
		err = -errno;
		fprintf(stderr, "argus: diff: %s\n", cause ? cause : strerror(errno));
		goto out;
	}
	for (unsigned w = 0; w < p->nwin; w++) {
		err = session_write_window(*out, p, w, 0);
		if (err) {
			fprintf(stderr, "argus: diff: cannot write the session %s: %s\n", path, strerror(-err));
			goto out;
		}
	}
	err = 0;
out:
	free(q0);
	free(q1);
	free(opts);
	free(cause);
	return err;
}

int cmd_diff(int argc, char **argv)
{
	const char *files[2] = { NULL, NULL }, *theme = NULL, *session_file = NULL;
	struct session *ses = NULL;
	struct import_info info[2];
	struct diagnose_result res = { 0 };
	struct profile *p = NULL;
	unsigned freq = 0, nfiles = 0;
	int batch = 0, json = 0, ascii = 0, rc = EXIT_ERROR, err;
	double t0 = util_mono_s(), t_read;
	char *cause = NULL;
	struct opts_agent oa;
	struct agent *agent = NULL;
	const struct opt_parser parser = cmd_opt_parser(&cmd_diff_opts);
	struct opt_hit h;

	opts_agent_init(&oa);
	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		char *why = NULL;

		if (r < 0)
			return EXIT_USAGE;
		if (r == OPT_OPERAND || r == OPT_DASHDASH) {
			/* after "--" every word is a file (one that starts with '-') */
			for (int k = r == OPT_OPERAND ? i - 1 : i; k < (r == OPT_OPERAND ? i : argc); k++) {
				if (nfiles == 2) {
					fprintf(stderr, "argus: diff: too many files ('%s'); give REF and "
						"LOAD\n", argv[k]);
					return EXIT_USAGE;
				}
				files[nfiles++] = argv[k];
			}
			if (r == OPT_DASHDASH)
				break;
			continue;
		}
		if (h.group == &opts_agent_group) {
			if (opts_agent_apply(&oa, &h, stderr) < 0)
				return EXIT_USAGE;
			continue;
		}
		switch ((enum diff_opt_id)h.o->id) {
		case DF_HELP:
			cmd_help(&cmd_diff_opts, stdout);
			return EXIT_OK;
		case DF_BATCH:
			batch = 1;
			break;
		case DF_JSON:
			json = 1;
			break;
		case DF_ASCII:
			ascii = 1;
			break;
		case DF_THEME:
			theme = h.val;
			break;
		case DF_SESSION:
			session_file = h.val;
			break;
		case DF_FREQ:
			if (num_parse_uint(h.val, 1, 100000, "Hz", &freq, &why) < 0) {
				fprintf(stderr, "argus: diff: --freq: %s\n", why ? why : "bad number");
				free(why);
				return EXIT_USAGE;
			}
			break;
		}
	}
	if (nfiles != 2) {
		fprintf(stderr, "argus: diff: needs two files, the reference and the loaded profile\n"
			"usage: argus diff REF LOAD [--batch [--json]]\n");
		return EXIT_USAGE;
	}
	if (json)
		batch = 1;

	p = profile_new();
	if (!p) {
		fprintf(stderr, "argus: diff: %s\n", strerror(errno));
		goto out;
	}
	if (diff_import(p, files[0], COND_REF, &info[0]) ||
	    diff_import(p, files[1], COND_LOAD, &info[1]))
		goto out;
	t_read = util_mono_s();
	if (info[0].secs_known != info[1].secs_known)
		fprintf(stderr, "argus: diff: %s gives no length, so it counts as %u window%s of 1 s while %s "
			"lasted %.2f s; rates may be off (add '# argus-window secs=S' to the folded file)\n",
			files[info[0].secs_known ? 1 : 0], info[info[0].secs_known ? 1 : 0].windows,
			info[info[0].secs_known ? 1 : 0].windows == 1 ? "" : "s",
			files[info[0].secs_known ? 0 : 1], info[info[0].secs_known ? 0 : 1].secs);

	if (session_file && diff_session(&ses, session_file, files, p))
		goto out;

	if (!batch) {
		struct tui_opts to;
		struct theme th;
		struct source *src;
		char title[256];

		/* glyphs and widths follow the locale (UTF-8 or ASCII) */
		setlocale(LC_ALL, "");
		/* a bad theme is refused before the terminal is taken */
		if (theme_load(&th, theme, &cause) < 0) {
			fprintf(stderr, "argus: diff: %s\n", cause ? cause : "cannot load the theme");
			rc = EXIT_USAGE;
			goto out;
		}
		tui_opts_default(&to);
		to.theme = theme;
		to.ascii = ascii;
		snprintf(title, sizeof(title), "argus diff %s %s", files[0], files[1]);
		to.title = title;
		src = source_static_new(p, title);
		p = NULL; /* the source owns it, also on failure */
		if (!src) {
			fprintf(stderr, "argus: diff: %s\n", strerror(errno));
			goto out;
		}
		source_static_set_freq(src, freq); /* the tree's %CPU needs it */
		err = tui_run(src, &to, &cause);
		source_free(src);
		if (err) {
			fprintf(stderr, "argus: diff: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
		rc = EXIT_OK;
		goto out;
	}

	if (oa.agent) {
		oa.ses = ses;
		oa.log = stderr;
		agent = opts_agent_new(&oa, NULL, NULL, NULL, stderr);
		if (!agent)
			goto out;
	}
	err = diagnose_run_agent(p, NULL, freq, 0, agent, -1, &res, &cause);
	if (err) {
		fprintf(stderr, "argus: diff: %s\n", cause ? cause : strerror(-err));
		goto out;
	}
	if (ses) {
		for (unsigned i = 0; i < res.ndecisions; i++)
			session_write_transcript(ses, "agent", res.decisions[i]);
		if (session_write_verdict(ses, &res.verdict, res.decisions, res.ndecisions)) {
			fprintf(stderr, "argus: diff: cannot write the session %s\n", session_file);
			goto out;
		}
	}
	if (json) {
		struct diagnose_run_info ri = {
			.elapsed_s = util_mono_s() - t0,
			.measuring_s = t_read - t0,
			.pairs = profile_cond_windows(p, COND_REF) < profile_cond_windows(p, COND_LOAD) ?
				profile_cond_windows(p, COND_REF) : profile_cond_windows(p, COND_LOAD),
			.freq_hz = freq,
		};
		err = diagnose_write_json(&res, p, &ri, stdout);
		if (err) {
			fprintf(stderr, "argus: diff: cannot write the JSON: %s\n", strerror(-err));
			goto out;
		}
	} else {
		const struct verdict *v = &res.verdict;
		printf("%s: %s\n", v->found ? "verdict" : "no bottleneck found",
		       v->summary ? v->summary : "");
		if (v->found) {
			printf("path:");
			for (unsigned i = 0; i < v->npath; i++)
				printf("%s%s", i ? " > " : " ", v->path[i]);
			printf("\n");
		}
		for (unsigned i = 0; i < v->nnotes; i++)
			printf("note: %s\n", v->notes[i]);
		for (unsigned i = 0; i < res.ndecisions; i++)
			printf("  %s\n", res.decisions[i]);
		if (fflush(stdout)) {
			fprintf(stderr, "argus: diff: cannot write: %s\n", strerror(errno));
			goto out;
		}
	}
	rc = EXIT_OK;
out:
	if (ses && session_close(ses) && rc == EXIT_OK) {
		fprintf(stderr, "argus: diff: cannot write the session %s\n", session_file);
		rc = EXIT_ERROR;
	}
	free(cause);
	diagnose_result_clear(&res);
	profile_free(p);
	agent_free(agent);
	opts_agent_free(&oa);
	return rc;
}
