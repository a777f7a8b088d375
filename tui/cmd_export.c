/* cmd_export — `argus export SESSION --format folded|json|markdown
 * [--cond ref|load] [-o FILE]`: a recorded session as folded stacks (for
 * flame graph tools and `argus diff`), JSON, or a markdown report.  Needs
 * no privileges. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "export.h"
#include "session.h"

static void export_usage(FILE *out)
{
	fprintf(out,
		"usage: argus export SESSION --format folded|json|markdown [--cond ref|load]\n"
		"                    [-o FILE]\n\n"
		"Turns a recorded session into:\n"
		"  folded    folded stacks 'a;b;c COUNT' of one condition's windows summed\n"
		"            (--cond, default load), after a '# argus-window secs=S cond=C'\n"
		"            line; for flame graph tools and 'argus diff REF LOAD'\n"
		"  json      the calibrated tree with both conditions' numbers, the verdict,\n"
		"            the steps and the transcript, as one JSON object\n"
		"  markdown  a report: verdict and evidence, the tree around the verdict path,\n"
		"            the descent's decisions, each step with its decision\n\n"
		"options:\n"
		"  %-16s %s\n  %-16s %s\n  %-16s %s\n",
		"--format F", "folded, json or markdown (md)",
		"--cond C", "folded: ref or load (default load)",
		"-o FILE", "write to FILE instead of stdout");
	fprintf(out, "\nA session cut short exports what it holds, with the reader's note.\n"
		"exit status: 0 written, 1 error (unreadable session, write failure), 2 usage\n");
}

int cmd_export(int argc, char **argv)
{
	const char *file = NULL, *fmt = NULL, *cond = NULL, *outpath = NULL;
	struct session_log log;
	struct export_view xv;
	enum export_format f;
	enum cond c = COND_LOAD;
	char *cause = NULL;
	FILE *out = stdout;
	int rc = EXIT_ERROR, err, have_log = 0, have_view = 0;

	memset(&xv, 0, sizeof(xv));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			export_usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--format") || !strcmp(a, "--cond") || !strcmp(a, "-o") ||
			   !strcmp(a, "--output")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "argus: export: %s needs a value\n", a);
				return EXIT_USAGE;
			}
			if (!strcmp(a, "--format"))
				fmt = argv[++i];
			else if (!strcmp(a, "--cond"))
				cond = argv[++i];
			else
				outpath = argv[++i];
		} else if (!strncmp(a, "--format=", 9)) {
			fmt = a + 9;
		} else if (!strncmp(a, "--cond=", 7)) {
			cond = a + 7;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "argus: export: unknown option '%s'; 'argus export --help' lists them\n", a);
			return EXIT_USAGE;
		} else if (file) {
			fprintf(stderr, "argus: export: one session at a time ('%s' and '%s')\n", file, a);
			return EXIT_USAGE;
		} else {
			file = a;
		}
	}
	if (!file || !fmt) {
		fprintf(stderr, "argus: export: %s\nusage: argus export SESSION --format folded|json|markdown\n",
			!file ? "which session? give its file" : "which format? give --format folded, json or markdown");
		return EXIT_USAGE;
	}
	f = export_format_from_name(fmt);
	if (f == EXPORT_FORMAT_N) {
		fprintf(stderr, "argus: export: unknown format '%s'; use folded, json or markdown\n", fmt);
		return EXIT_USAGE;
	}
	if (cond) {
		if (!strcmp(cond, "ref") || !strcmp(cond, "reference"))
			c = COND_REF;
		else if (!strcmp(cond, "load") || !strcmp(cond, "loaded"))
			c = COND_LOAD;
		else {
			fprintf(stderr, "argus: export: --cond takes ref or load, not '%s'\n", cond);
			return EXIT_USAGE;
		}
		if (f != EXPORT_FOLDED) {
			fprintf(stderr, "argus: export: --cond goes with --format folded (json and markdown carry both conditions)\n");
			return EXIT_USAGE;
		}
	}
	err = session_read(file, &log, &cause);
	if (err) {
		fprintf(stderr, "argus: export: %s\n", cause ? cause : strerror(-err));
		goto out;
	}
	have_log = 1;
	for (unsigned i = 0; i < log.nnotes; i++)
		fprintf(stderr, "argus: export: note: %s\n", log.notes[i]);
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			fprintf(stderr, "argus: export: cannot create %s: %s\n", outpath, strerror(errno));
			out = stdout;
			goto out;
		}
	}
	if (f == EXPORT_FOLDED) {
		const struct profile *p = session_log_profile(&log, 0);

		if (!p || !profile_cond_windows(p, c)) {
			fprintf(stderr, "argus: export: %s has no %s windows to export\n", file,
				c == COND_REF ? "reference" : "loaded");
			goto out;
		}
		err = export_folded(p, c, out);
	} else {
		err = export_view_build(&xv, &log, SIZE_MAX, file, &cause);
		if (err) {
			fprintf(stderr, "argus: export: %s\n", cause ? cause : strerror(-err));
			goto out;
		}
		have_view = 1;
		err = f == EXPORT_JSON ? export_json(&xv, out) : export_markdown(&xv, out);
	}
	if (err) {
		fprintf(stderr, "argus: export: cannot write %s: %s\n", outpath ? outpath : "the output",
			strerror(-err));
		goto out;
	}
	rc = EXIT_OK;
out:
	if (out != stdout && fclose(out) && rc == EXIT_OK) {
		fprintf(stderr, "argus: export: cannot write %s: %s\n", outpath, strerror(errno));
		rc = EXIT_ERROR;
	}
	if (have_view)
		export_view_clear(&xv);
	if (have_log)
		session_log_clear(&log);
	free(cause);
	return rc;
}
