/* opts_session — the session options of the measuring commands. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "opts_session.h"

enum { OS_SESSION, OS_NO_SESSION };

static const struct opt opts_session_table[] = {
	{ OS_SESSION, "--session", NULL, "FILE",
	  "record the run in FILE (default: $XDG_STATE_HOME/argus/sessions/)" },
	{ OS_NO_SESSION, "--no-session", NULL, NULL, "do not record a session" },
};

const struct opt_group opts_session_group = OPT_GROUP(NULL, opts_session_table);

int opts_session_apply(struct opts_session *os, const struct opt_hit *h, FILE *err)
{
	if (h->o->id == OS_NO_SESSION) {
		os->off = 1;
		return 0;
	}
	if (!h->val[0]) {
		fprintf(err, "argus: --session needs a file name (or --no-session)\n");
		return -1;
	}
	os->path = h->val;
	return 0;
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
