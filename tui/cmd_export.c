/* cmd_export — `argus export SESSION --format folded|json|markdown|pprof
 * [--cond ref|load] [-o FILE] [--push URL]`: a recorded session as folded
 * stacks (for flame graph tools and `argus diff`), JSON, a markdown report,
 * or pprof (for go tool pprof, Pyroscope, Parca; --push sends it).  Needs
 * no privileges. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_common.h"
#include "output/export.h"
#include "opts_push.h"
#include "data/pprof.h"
#include "output/push.h"
#include "measure/session.h"
#include <time.h>
#include <unistd.h>

#define EXPORT_PUSH_WAIT_MS 30000 /* export --push: how long to try */

enum export_opt_id { XO_FORMAT, XO_COND, XO_KERNEL_ONLY, XO_OUTPUT, XO_HELP };

static const struct opt export_table[] = {
	{ XO_FORMAT, "--format", NULL, "F", "folded, json, markdown (md) or pprof" },
	{ XO_COND, "--cond", NULL, "C", "folded: ref or load (default load); pprof: only that one" },
	{ XO_KERNEL_ONLY, "--kernel-only", NULL, NULL,
	  "folded, pprof: kernel frames only (no user-space call sites)" },
	{ XO_OUTPUT, "--output", "-o", "FILE", "write to FILE instead of stdout" },
	{ XO_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group export_group = OPT_GROUP("options", export_table);
static const struct opt_group *const export_groups[] = { &export_group, &opts_push_group };

static void export_head(FILE *out)
{
	fprintf(out,
		"usage: argus export SESSION --format folded|json|markdown|pprof [--cond ref|load]\n"
		"                    [-o FILE] [--push URL [--labels K=V,...] [--app NAME] [--tenant ID]\n"
		"                    [--push-timeout S] [--push-wait S]]\n\n"
		"Turns a recorded session into:\n"
		"  folded    folded stacks 'a;b;c COUNT' of one condition's windows summed\n"
		"            (user-space frames first where recorded, then the kernel's)\n"
		"            (--cond, default load), after a '# argus-window secs=S cond=C'\n"
		"            line; for flame graph tools and 'argus diff REF LOAD'\n"
		"  json      the calibrated tree with both conditions' numbers, the verdict,\n"
		"            the steps and the transcript, as one JSON object\n"
		"  markdown  a report: verdict and evidence, the tree around the verdict path,\n"
		"            the descent's decisions, each step with its decision\n"
		"  pprof     gzipped profile.proto (go tool pprof, Pyroscope, Parca) of the\n"
		"            windows of both conditions (--cond: one), each sample labelled\n"
		"            condition, window, comm, pid, subsystem, service_name (and unit,\n"
		"            container, cgroup where known); wall-clock sessions with blocked\n"
		"            and runnable types and waker labels; 'argus diff' reads it\n");
}

static void export_tail(FILE *out)
{
	fprintf(out, "\nA session cut short exports what it holds, with the reader's note.\n"
		"exit status: 0 written, 1 error (unreadable session, write failure), 2 usage\n");
}

const struct cmd_opts cmd_export_opts = CMD_OPTS("export", export_head, export_groups, export_tail);

int cmd_export(int argc, char **argv)
{
	const char *file = NULL, *fmt = NULL, *cond = NULL, *outpath = NULL;
	struct session_log log;
	struct export_view xv;
	enum export_format f;
	enum cond c = COND_LOAD;
	char *cause = NULL;
	FILE *out = stdout;
	int rc = EXIT_ERROR, err, have_log = 0, have_view = 0, kernel_only = 0;
	struct opts_push op;
	struct push *ps = NULL;
	uint8_t *pb = NULL;
	size_t pblen = 0;
	char service[64];
	const struct opt_parser parser = cmd_opt_parser(&cmd_export_opts);
	struct opt_hit h;

	memset(&xv, 0, sizeof(xv));
	opts_push_init(&op);
	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		if (r < 0)
			return EXIT_USAGE;
		if (r == OPT_DASHDASH) {
			fprintf(stderr, "argus: export: '--' has nothing to end: export takes a session file\n");
			return EXIT_USAGE;
		}
		if (r == OPT_OPERAND) {
			if (file) {
				fprintf(stderr, "argus: export: one session at a time ('%s' and '%s')\n",
					file, h.val);
				return EXIT_USAGE;
			}
			file = h.val;
			continue;
		}
		if (h.group == &opts_push_group) {
			if (opts_push_apply(&op, &h, stderr) < 0)
				return EXIT_USAGE;
			continue;
		}
		switch ((enum export_opt_id)h.o->id) {
		case XO_HELP:
			cmd_help(&cmd_export_opts, stdout);
			return EXIT_OK;
		case XO_FORMAT:
			fmt = h.val;
			break;
		case XO_COND:
			cond = h.val;
			break;
		case XO_OUTPUT:
			outpath = h.val;
			break;
		case XO_KERNEL_ONLY:
			kernel_only = 1;
			break;
		}
	}
	if (op.url && !fmt)
		fmt = "pprof";
	if (!file || !fmt) {
		fprintf(stderr, "argus: export: %s\nusage: argus export SESSION --format folded|json|markdown|pprof\n",
			!file ? "which session? give its file" : "which format? give --format folded, json or markdown");
		return EXIT_USAGE;
	}
	f = export_format_from_name(fmt);
	if (f == EXPORT_FORMAT_N) {
		fprintf(stderr, "argus: export: unknown format '%s'; use folded, json, markdown or pprof\n", fmt);
		return EXIT_USAGE;
	}
	if (op.url && f != EXPORT_PPROF) {
		fprintf(stderr, "argus: export: --push sends pprof; drop --format %s or give --format pprof\n", fmt);
		return EXIT_USAGE;
	}
	if (f == EXPORT_PPROF && !op.url && !outpath && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "argus: export: pprof is binary; give -o FILE or redirect stdout\n");
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
		if (f != EXPORT_FOLDED && f != EXPORT_PPROF) {
			fprintf(stderr, "argus: export: --cond goes with --format folded or pprof (json and markdown carry both conditions)\n");
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
	if (f == EXPORT_PPROF) {
		const struct profile *p = session_log_profile(&log, 0);
		struct pprof_write_opts po;
		struct pprof_write_info pi;

		export_pprof_opts(&log, cond ? (int)c : COND_N, &po);
		po.kernel_only = kernel_only;
		export_service_name(&log, service, sizeof(service));
		if (!op.app)
			op.app = service; /* Pyroscope's name, Parca's __name__ */
		po.service_name = op.app;
		if (!po.freq_hz)
			fprintf(stderr, "argus: export: note: %s gives no sampling frequency; the pprof's period "
				"and cpu/nanoseconds are 0\n", file);
		if (!p) {
			fprintf(stderr, "argus: export: %s has no windows to export\n", file);
			goto out;
		}
		err = pprof_write(p, &po, &pb, &pblen, &pi, &cause);
		if (err) {
			fprintf(stderr, "argus: export: %s: %s\n", file, cause ? cause : strerror(-err));
			goto out;
		}
		if (op.url) {
			int64_t from = po.time_nanos / 1000000000, until = from + (int64_t)(pi.secs + 1);

			if (!from) {
				until = (int64_t)time(NULL);
				from = until - (int64_t)(pi.secs + 1);
			}
			ps = opts_push_new(&op, po.freq_hz, stderr);
			if (!ps)
				goto out;
			/* the queue takes the bytes; -o still gets them below */
			uint8_t *copy = malloc(pblen);
			if (!copy || push_enqueue(ps, copy, pblen, from, until, pi.samples)) {
				fprintf(stderr, "argus: export: out of memory\n");
				goto out;
			}
			memcpy(copy, pb, pblen);
			push_drain(ps, op.wait_s ? (int)(op.wait_s * 1000) : EXPORT_PUSH_WAIT_MS);
			opts_push_report(ps, stderr);
			struct push_stats st;
			push_get_stats(ps, &st);
			if (st.sent != 1)
				goto out;
			if (!outpath) {
				rc = EXIT_OK;
				goto out;
			}
		}
	}
	if (outpath) {
		out = fopen(outpath, "w");
		if (!out) {
			fprintf(stderr, "argus: export: cannot create %s: %s\n", outpath, strerror(errno));
			out = stdout;
			goto out;
		}
	}
	if (f == EXPORT_PPROF) {
		err = fwrite(pb, 1, pblen, out) == pblen && !fflush(out) ? 0 : -EIO;
	} else if (f == EXPORT_FOLDED) {
		const struct profile *p = session_log_profile(&log, 0);

		if (!p || !profile_cond_windows(p, c)) {
			fprintf(stderr, "argus: export: %s has no %s windows to export\n", file,
				c == COND_REF ? "reference" : "loaded");
			goto out;
		}
		err = export_folded(p, c, kernel_only ? EXPORT_FOLDED_KERNEL_ONLY : 0, out);
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
	push_free(ps);
	free(pb);
	if (have_log)
		session_log_clear(&log);
	free(cause);
	return rc;
}
