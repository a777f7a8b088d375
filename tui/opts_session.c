/* opts_session — the session options of the measuring commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts_session.h"

int opts_session_parse(struct opts_session *os, int argc, char **argv, int *i, FILE *err)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--no-session")) {
		os->off = 1;
		(*i)++;
		return 1;
	}
	if (!strncmp(a, "--session=", 10)) {
		os->path = a + 10;
		(*i)++;
	} else if (!strcmp(a, "--session")) {
		if (*i + 1 >= argc) {
			fprintf(err, "argus: --session needs a file name (or --no-session)\n");
			return -1;
		}
		os->path = argv[*i + 1];
		*i += 2;
	} else {
		return 0;
	}
	if (!os->path[0]) {
		fprintf(err, "argus: --session needs a file name (or --no-session)\n");
		return -1;
	}
	return 1;
}

void opts_session_help(FILE *out)
{
	fprintf(out, "  %-22s %s\n  %-22s %s\n", "--session FILE",
		"record the run in FILE (default: $XDG_STATE_HOME/argus/sessions/)",
		"--no-session", "do not record a session");
}

struct session *opts_session_open(const struct opts_session *os, const char *command,
				  const struct opts_load *ol, uint32_t exclude_tgid,
				  char **cause)
{
	struct session_header h = { 0 };
	struct session *s;
	char *opts = NULL, *caps = NULL;

	if (os->off)
		return NULL;
	if (ol) {
		opts = session_options_measure(command, &ol->m, ol->load_cmd, exclude_tgid);
	} else {
		char *q = session_json_quote(command);

		if (q && asprintf(&opts, "{\"command\":%s}", q) < 0)
			opts = NULL;
		free(q);
	}
	caps = session_caps_json();
	h.options_json = opts;
	h.caps_json = caps;
	s = session_open(os->path, &h, cause);
	free(opts);
	free(caps);
	return s;
}
