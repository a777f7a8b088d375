/* cmd_probes — what this kernel supports, kind by kind, and the tracepoint
 * and function names steps may use (also for shell completion). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/caps.h"
#include "cmd.h"
#include "cmd_common.h"

enum probes_opt_id { PR_JSON, PR_LIST_TP, PR_LIST_FN, PR_HELP };

static const struct opt probes_table[] = {
	{ PR_JSON, "--json", NULL, NULL, "one JSON object: kinds, mechanisms, tracepoints, functions" },
	{ PR_LIST_TP, "--list-tracepoints", NULL, NULL,
	  "tracepoints as category:name; PATTERN is a glob ('kmem:*', '*fault*') or a prefix; "
	  "without ':' it matches the name" },
	{ PR_LIST_FN, "--list-functions", NULL, NULL,
	  "kernel functions (kallsyms, BTF) matching the glob or prefix PATTERN" },
	{ PR_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group probes_group = OPT_GROUP("options", probes_table);
static const struct opt_group *const probes_groups[] = { &probes_group };

static void probes_head(FILE *out)
{
	fprintf(out,
		"usage: argus probes [--json]\n"
		"       argus probes --list-tracepoints [PATTERN]\n"
		"       argus probes --list-functions PATTERN\n");
}

static void probes_tail(FILE *out)
{
	fprintf(out, "\nrun as root to probe BPF; as another user only the name lists are complete\n");
}

const struct cmd_opts cmd_probes_opts = CMD_OPTS("probes", probes_head, probes_groups, probes_tail);

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
	const struct opt_parser parser = cmd_opt_parser(&cmd_probes_opts);
	struct opt_hit h;
	int json = 0, list_tp = 0, list_fn = 0, r, rc = EXIT_OK, extra = 0;
	const char *pattern = NULL;
	struct caps *c = NULL;

	for (int i = 1; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		if (r < 0)
			return EXIT_USAGE;
		if (r == OPT_DASHDASH) {   /* a pattern that starts with '-' */
			extra += argc - i - (pattern || i >= argc ? 0 : 1);
			if (!pattern && i < argc)
				pattern = argv[i];
			break;
		}
		if (r == OPT_OPERAND) {
			extra += pattern != NULL;
			pattern = pattern ? pattern : h.val;
			continue;
		}
		switch ((enum probes_opt_id)h.o->id) {
		case PR_JSON: json = 1; break;
		case PR_LIST_TP: list_tp = 1; break;
		case PR_LIST_FN: list_fn = 1; break;
		case PR_HELP: cmd_help(&cmd_probes_opts, stdout); return EXIT_OK;
		}
	}
	if (extra || (pattern && !list_tp && !list_fn) || (list_tp && list_fn) ||
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
