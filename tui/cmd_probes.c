/* cmd_probes — what this kernel supports, kind by kind, and the tracepoint
 * and function names steps may use (also for shell completion). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/caps.h"
#include "cmd.h"
#include "cmd_common.h"

static void probes_usage(FILE *out)
{
	fprintf(out,
		"usage: argus probes [--json]\n"
		"       argus probes --list-tracepoints [PATTERN]\n"
		"       argus probes --list-functions PATTERN\n"
		"  --json                  one JSON object: kinds, mechanisms, tracepoints, functions\n"
		"  --list-tracepoints [P]  tracepoints as category:name; P is a glob ('kmem:*',\n"
		"                          '*fault*') or a prefix; without ':' it matches the name\n"
		"  --list-functions P      kernel functions (kallsyms, BTF) matching glob or prefix P\n"
		"run as root to probe BPF; as another user only the name lists are complete\n");
}

static void probes_print(const struct caps *c, FILE *out)
{
	fprintf(out, "%-20s %-9s %s\n", "KIND", "AVAILABLE", "REASON");
	for (int k = 0; k < STEP_KIND_N; k++)
		fprintf(out, "%-20s %-9s %s\n", step_kind_name(k),
			c->kinds[k].available ? "yes" : "no", c->kinds[k].reason);
	fprintf(out, "\n%-20s %-9s %s\n", "MECHANISM", "WORKS", "DETAIL");
	for (int m = 0; m < CAPS_MECH_N; m++)
		fprintf(out, "%-20s %-9s %s\n", caps_mech_name(m),
			!c->mech[m].probed ? "-" : c->mech[m].err ? "no" : "yes", c->mech[m].detail);
	fprintf(out, "\ntracepoints  %zu (%zu attachable by name) from %s\n", c->ntps,
		caps_count_raw(c), c->tp_source);
	fprintf(out, "functions    %zu from %s\n", c->nfns, c->fn_source);
	fprintf(out, "tracefs      %s\n", c->tracefs);
	fprintf(out, "btf          %s\n", c->btf);
	for (unsigned i = 0; i < c->nnotes; i++)
		fprintf(out, "note: %s\n", c->notes[i]);
}

int cmd_probes(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "list-tracepoints", no_argument, NULL, 't' },
		{ "list-functions", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, list_tp = 0, list_fn = 0, opt, rc = EXIT_OK;
	const char *pattern = NULL;
	struct caps *c = NULL;

	optind = 1;
	opterr = 0;   /* cmd_getopt_error says it, with the nearest option */
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j': json = 1; break;
		case 't': list_tp = 1; break;
		case 'f': list_fn = 1; break;
		case 'h': probes_usage(stdout); return EXIT_OK;
		default: return cmd_getopt_error("probes", argv, "h", opts);
		}
	}
	if (optind < argc)
		pattern = argv[optind++];
	if (optind < argc || (pattern && !list_tp && !list_fn) || (list_tp && list_fn) ||
	    (list_fn && !pattern) || (json && (list_tp || list_fn))) {
		fprintf(stderr, "argus probes: %s\n", list_fn && !pattern ?
			"--list-functions needs a PATTERN (a glob or a prefix)" :
			"bad arguments; see 'argus probes --help'");
		return EXIT_USAGE;
	}
	c = caps_probe(list_tp || list_fn ? CAPS_PROBE_NO_BPF : 0);
	if (!c) {
		fprintf(stderr, "argus probes: out of memory\n");
		return EXIT_ERROR;
	}
	if (list_tp || list_fn) {
		size_t n = list_tp ? caps_list_tracepoints(c, pattern, stdout)
				   : caps_list_functions(c, pattern, stdout);
		if (!n) {
			fprintf(stderr, "argus probes: no %s matches '%s'\n",
				list_tp ? "tracepoint" : "function", pattern ? pattern : "*");
			rc = EXIT_ERROR;
		}
		goto out;
	}
	if (json) {
		char *txt = caps_to_json(c);
		if (!txt) {
			fprintf(stderr, "argus probes: out of memory\n");
			rc = EXIT_ERROR;
			goto out;
		}
		printf("%s\n", txt);
		free(txt);
	} else {
		probes_print(c, stdout);
	}
	if (!c->is_root && !c->kinds[STEP_TRACEPOINT_STACKS].available)
		fprintf(stderr, "argus probes: not root, so BPF loading could not be probed and "
			"every kind reads as unavailable; run 'sudo argus probes' for this kernel's answer\n");
out:
	caps_free(c);
	return rc;
}
