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

static void replay_usage(FILE *out)
{
	fprintf(out,
		"usage: argus replay FILE [--batch [--json]] [--at N|end] [--theme NAME] [--ascii]\n\n"
		"Shows a recorded session (argus diagnose, argus, argus diff --session) again,\n"
		"event by event: the tree as it was after each measurement window, the\n"
		"descent's decisions and the verdict.  Needs no privileges.\n\n"
		"options:\n"
		"  %-14s %s\n  %-14s %s\n  %-14s %s\n  %-14s %s\n  %-14s %s\n",
		"--batch", "no terminal interface: one line per event, then the verdict",
		"--json", "with --batch: {\"events\":[...],\"verdict\":{...},\"notes\":[...]}",
		"--at N|end", "start after event N (default 0: before the first; end: all)",
		"--theme NAME", "color theme (default, light, high-contrast, mono)",
		"--ascii", "ASCII line drawing even in a UTF-8 locale");
	fprintf(out, "\nkeys: n next event, b back one, { start, } end, p by process, x explain\n"
		"the node, w write a markdown report; '?' lists them all.  A session cut short replays\n"
		"up to its last complete event, with a note.\n"
		"exit status: 0 ok, 1 error (not a session, damaged line), 2 usage\n");
}

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

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			replay_usage(stdout);
			return EXIT_OK;
		} else if (!strcmp(a, "--batch")) {
			batch = 1;
		} else if (!strcmp(a, "--json")) {
			json = batch = 1;
		} else if (!strcmp(a, "--ascii")) {
			ascii = 1;
		} else if (!strcmp(a, "--theme") || !strcmp(a, "--at")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "argus: replay: %s needs a value\n", a);
				return EXIT_USAGE;
			}
			if (!strcmp(a, "--theme"))
				theme = argv[++i];
			else
				at = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			static const char *const names[] = { "--batch", "--json", "--at", "--theme",
							     "--ascii", "--help" };

			cmd_unknown_option("replay", a, names, sizeof(names) / sizeof(names[0]));
			return EXIT_USAGE;
		} else if (file) {
			fprintf(stderr, "argus: replay: one session at a time ('%s' and '%s')\n", file, a);
			return EXIT_USAGE;
		} else {
			file = a;
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
