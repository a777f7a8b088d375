/* main — argus's entry: dispatch to a subcommand, or the interactive TUI. */
#include <string.h>

#include <stdio.h>

#include "base/util.h"
#include "cmd.h"

const struct cmd cmd_table[] = {
	{ "record", cmd_record,
	  "record --duration S [--freq HZ] [-p PID | -- CMD ARGS] (--json | --folded)",
	  "sample kernel stacks and print the tree", 1, &cmd_record_opts },
	{ "diagnose", cmd_diagnose,
	  "diagnose --batch --json [--load CMD | -- CMD] [--victim CMD] [--background CMD] [--pairs K --window S]",
	  "reference-calibrated diagnosis, verdict as JSON", 1, &cmd_diagnose_opts },
	{ "step", cmd_step, "step FILE|- [load options]",
	  "validate and run one instrumentation step spec", 1, &cmd_step_opts },
	{ "probes", cmd_probes, "probes [--json]",
	  "what this kernel supports, kind by kind", 0, &cmd_probes_opts },
	{ "reference", cmd_reference, "reference save [--duration S]",
	  "record an idle-system reference", 1, &cmd_reference_opts },
	{ "replay", cmd_replay, "replay FILE",
	  "the TUI over a recorded session (no privileges)", 0, &cmd_replay_opts },
	{ "diff", cmd_diff, "diff REF LOAD [--batch --json]",
	  "calibrated tree from two folded / perf script files", 0, &cmd_diff_opts },
	{ "export", cmd_export, "export SESSION --format folded|json|markdown|pprof",
	  "export a recorded session", 0, &cmd_export_opts },
	{ "model", cmd_model,
	  "model [--steady | --mark RE] [--what-if clients=2x|cpus=N] [--format text|lqn|lqnx|json|dot] (-p PID | -- CMD ARGS)",
	  "layered queueing model of a load, and what-if predictions", 1, &cmd_model_opts },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

void cmd_usage(FILE *out)
{
	fprintf(out,
		"usage: argus [options] [--load CMD | -- CMD ARGS]   interactive tree (root)\n"
		"       argus COMMAND [options]\n\ncommands:\n");
	for (const struct cmd *c = cmd_table; c->name; c++)
		fprintf(out, "  %-10s %s%s\n", c->name, c->help,
			c->needs_root ? " (root)" : "");
	fprintf(out, "\n'argus COMMAND --help' for a command's options; man argus for all.\n"
		"exit status: 0 ok, 1 error, 2 usage, 3 privileges, 4 kernel, 127 command not run\n");
}

int main(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cmd_usage(stdout);
		fputs("\n", stdout);
		cmd_help(&cmd_tui_opts, stdout);
		return EXIT_OK;
	}
	if (argc > 1 && !strcmp(argv[1], "--version")) {
		printf("argus %s\n", ARGUS_VERSION);
		return EXIT_OK;
	}
	if (argc > 1 && argv[1][0] != '-') {
		for (const struct cmd *c = cmd_table; c->name; c++)
			if (!strcmp(argv[1], c->name))
				return c->run(argc - 1, argv + 1);
		{
			const char *names[64], *near;
			size_t n = 0;

			for (const struct cmd *c = cmd_table; c->name && n < 64; c++)
				names[n++] = c->name;
			near = util_nearest(argv[1], names, n);
			if (near)
				fprintf(stderr, "argus: unknown command '%s'; did you mean '%s'? "
					"('argus --help' lists them)\n", argv[1], near);
			else
				fprintf(stderr, "argus: unknown command '%s'; 'argus --help' lists "
					"them\n", argv[1]);
		}
		return EXIT_USAGE;
	}
	return cmd_tui(argc, argv);
}
