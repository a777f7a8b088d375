/* cmd_replay — `argus replay FILE [--batch [--json]]`: the interactive tree
 * over a recorded session, stepped through event by event (n / b), with no
 * privileges.  --batch prints the events and the verdict instead. */
#include <errno.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "cmd.h"
#include "cmd_common.h"
#include "measure/source_session.h"
#include "output/export.h"
#include "measure/session.h"
#include "measure/source_replay.h"
#include "theme.h"

enum replay_opt_id { RO_BATCH, RO_JSON, RO_AT, RO_THEME, RO_ASCII, RO_HELP };

static const struct opt replay_table[] = {
	{ RO_BATCH, "--batch", NULL, NULL, "no terminal interface: one line per event, then the verdict" },
	{ RO_JSON, "--json", NULL, NULL,
	  "with --batch: {\"events\":[...],\"verdict\":{...},\"notes\":[...]}" },
	{ RO_AT, "--at", NULL, "N|end", "start after event N (default 0: before the first; end: all)" },
	{ RO_THEME, "--theme", NULL, "NAME", "color theme (default, light, high-contrast, mono)" },
	{ RO_ASCII, "--ascii", NULL, NULL, "ASCII line drawing even in a UTF-8 locale" },
	{ RO_HELP, "--help", "-h", NULL, "this help" },
};

static const struct opt_group replay_group = OPT_GROUP("options", replay_table);
static const struct opt_group *const replay_groups[] = { &replay_group };

static void replay_head(FILE *out)
{
	fprintf(out,
		"usage: argus replay FILE [--batch [--json]] [--at N|end] [--theme NAME] [--ascii]\n\n"
		"Shows a recorded session (argus diagnose, argus, argus diff --session) again,\n"
		"event by event: the tree as it was after each measurement window, the\n"
		"descent's decisions and the verdict.  Needs no privileges.\n");
}

static void replay_tail(FILE *out)
{
	fprintf(out, "\nkeys: n next event, b back one, { start, } end, p by process, x explain\n"
		"the node, w write a markdown report; '?' lists them all.  A session cut short replays\n"
		"up to its last complete event, with a note.\n"
		"exit status: 0 ok, 1 error (not a session, damaged line), 2 usage\n");
}

const struct cmd_opts cmd_replay_opts = CMD_OPTS("replay", replay_head, replay_groups, replay_tail);

static int replay_batch_text(const struct session_log *l)
{
	const struct verdict *v = NULL;
	char text[1024];

	for (unsigned i = 0; i < l->nnotes; i++)
		printf("note: %s\n", l->notes[i]);
	for (size_t i = 0; i < l->nev; i++) {
		const struct session_event *e = &l->ev[i];

		printf("%zu %8.3f %-11s %s\n", i + 1, e->t, session_event_name(e->type),
		       source_replay_event_text(e, text, sizeof(text)));
	}
	/* the diagnosis: explorations after it are findings of their own */
	if (session_log_diagnosis(l, l->nev))
		v = &session_log_diagnosis(l, l->nev)->verdict;
	if (v) {
		printf("%s: %s\n", v->found ? "verdict" : "no bottleneck found",
		       v->summary ? v->summary : "");
		if (v->npath) {
			printf("path:");
			for (unsigned i = 0; i < v->npath; i++)
				printf("%s%s", i ? " > " : " ", v->path[i]);
			printf("\n");
		}
	} else {
		printf("no verdict in the session\n");
	}
	for (size_t i = 0; i < l->nev; i++)
		if (l->ev[i].type == SESSION_EV_VERDICT && l->ev[i].focus)
			printf("%s\n", source_replay_event_text(&l->ev[i], text, sizeof(text)));
	return fflush(stdout) ? -errno : 0;
}

int cmd_replay(int argc, char **argv)
{
	const char *file = NULL, *theme = NULL, *at = NULL;
	struct session_log *log = NULL;
	int batch = 0, json = 0, ascii = 0, rc = EXIT_ERROR, err;
	size_t start = 0;
	char *cause = NULL;

	const struct opt_parser parser = cmd_opt_parser(&cmd_replay_opts);
	struct opt_hit h;

	for (int i = 1, r; (r = opt_next(&parser, argc, argv, &i, &h)) != OPT_END;) {
		if (r < 0)
			return EXIT_USAGE;
		if (r == OPT_DASHDASH) {
			fprintf(stderr, "argus: replay: '--' has nothing to end: replay takes a session file\n");
			return EXIT_USAGE;
		}
		if (r == OPT_OPERAND) {
			if (file) {
				fprintf(stderr, "argus: replay: one session at a time ('%s' and '%s')\n",
					file, h.val);
				return EXIT_USAGE;
			}
			file = h.val;
			continue;
		}
		switch ((enum replay_opt_id)h.o->id) {
		case RO_HELP:
			cmd_help(&cmd_replay_opts, stdout);
			return EXIT_OK;
		case RO_BATCH:
			batch = 1;
			break;
		case RO_JSON:
			json = batch = 1;
			break;
		case RO_ASCII:
			ascii = 1;
			break;
		case RO_THEME:
			theme = h.val;
			break;
		case RO_AT:
			at = h.val;
			break;
		}
	}
	if (!file) {
		fprintf(stderr, "argus: replay: which session? give its file\nusage: argus replay FILE\n");
		return EXIT_USAGE;
	}
	if (at) {
		char *end;
		unsigned long long n;

		if (!strcmp(at, "end")) {
			start = SIZE_MAX;
		} else {
			errno = 0;
			n = strtoull(at, &end, 10);
			if (errno || *end || at[0] == '-') {
				fprintf(stderr, "argus: replay: --at takes an event number or 'end', not '%s'\n", at);
				return EXIT_USAGE;
			}
			start = (size_t)n;
		}
	}
	log = calloc(1, sizeof(*log));
	if (!log) {
		fprintf(stderr, "argus: replay: out of memory\n");
		return EXIT_ERROR;
	}
	err = session_read(file, log, &cause);
	if (err) {
		fprintf(stderr, "argus: replay: %s\n", cause ? cause : strerror(-err));
		free(log);
		free(cause);
		return EXIT_ERROR;
	}
	if (batch) {
		err = json ? export_replay_json(log, file, stdout) : replay_batch_text(log);
		if (err)
			fprintf(stderr, "argus: replay: cannot write: %s\n", strerror(-err));
		else
			rc = EXIT_OK;
		session_log_clear(log);
		free(log);
		free(cause);
		return rc;
	}

	{
		struct tui_opts to;
		struct theme th;
		struct source *src;
		char title[256];
		int seq = session_options_sequential(log->options_json); /* before src owns log */

		setlocale(LC_ALL, "");
		if (theme_load(&th, theme, &cause) < 0) {
			fprintf(stderr, "argus: replay: %s\n", cause ? cause : "cannot load the theme");
			session_log_clear(log);
			free(log);
			free(cause);
			return EXIT_USAGE;
		}
		for (unsigned i = 0; i < log->nnotes; i++)
			fprintf(stderr, "argus: replay: note: %s\n", log->notes[i]);
		src = source_replay_new(log, start); /* owns log, also on failure */
		if (!src) {
			fprintf(stderr, "argus: replay: %s\n", strerror(errno));
			free(cause);
			return EXIT_ERROR;
		}
		tui_opts_default(&to);
		to.sequential = seq;
		to.theme = theme;
		to.ascii = ascii;
		snprintf(title, sizeof(title), "argus replay %s", file);
		to.title = title;
		to.session_path = file;
		err = tui_run(src, &to, &cause);
		source_free(src);
		if (err) {
			fprintf(stderr, "argus: replay: %s\n", cause ? cause : strerror(-err));
			free(cause);
			return EXIT_ERROR;
		}
	}
	free(cause);
	return EXIT_OK;
}
