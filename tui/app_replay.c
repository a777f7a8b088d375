/* app_replay — `argus replay` in the interactive tree (n/b through the
 * session's events, the steps recorded so far in the tree) and the
 * markdown report of the view (w). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


#include "app_priv.h"
#include "output/export.h"
#include "measure/source_replay.h"

/* The report's file name: after the session, in the current directory, or
 * in $TMPDIR (/tmp) when that is not writable. */
static void app_export_path(struct app *a, char *buf, size_t len)
{
	char base[256];
	const char *s = a->o.session_path, *dir = ".";
	size_t pos = source_replay_pos(a->src);

	if (s) {
		const char *slash = strrchr(s, '/');
		size_t bl;

		snprintf(base, sizeof(base), "%s", slash ? slash + 1 : s);
		bl = strlen(base);
		if (bl > 6 && !strcmp(base + bl - 6, ".jsonl"))
			base[bl - 6] = '\0';
	} else {
		time_t now = time(NULL);
		struct tm tm;

		localtime_r(&now, &tm);
		strftime(base, sizeof(base), "argus-%Y%m%d-%H%M%S", &tm);
	}
	if (access(".", W_OK) != 0) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	if (a->replay && pos < source_replay_count(a->src))
		snprintf(buf, len, "%s/%s-event%zu.md", dir, base, pos);
	else
		snprintf(buf, len, "%s/%s.md", dir, base);
}

void app_write_export(struct app *a)
{
	struct export_view xv;
	char path[PATH_MAX];
	FILE *f;
	int err;

	memset(&xv, 0, sizeof(xv));
	app_export_path(a, path, sizeof(path));
	xv.name = a->o.session_path ? a->o.session_path : (a->o.title ? a->o.title : "argus");
	xv.log = source_replay_log(a->src);
	xv.nev = source_replay_pos(a->src);
	xv.t = a->t;
	if (a->replay && source_replay_verdict(a->src)) {
		xv.v = source_replay_verdict(a->src);
		xv.v_recorded = 1;
	} else if (a->calibrated) {
		xv.v = &a->an.verdict;
	}
	xv.lines = a->an.lines;
	xv.nlines = a->an.nlines;
	f = fopen(path, "w");
	if (!f) {
		app_msg(a, "cannot write %s: %s", path, strerror(errno));
		return;
	}
	err = export_markdown(&xv, f);
	if (fclose(f) && !err)
		err = -errno;
	if (err)
		app_msg(a, "cannot write %s: %s", path, strerror(-err));
	else
		app_msg(a, "wrote %s", path);
}

/* 1 when the replayed session has transcript lines for the agent pane */
int app_replay_talks(struct source *src)
{
	const struct session_log *l = source_replay_log(src);

	for (size_t i = 0; l && i < l->nev; i++)
		if (l->ev[i].type == SESSION_EV_TRANSCRIPT)
			return 1;
	return 0;
}

int app_replay_move(struct app *a, enum key_action act, char **cause)
{
	size_t pos = source_replay_pos(a->src), n = source_replay_count(a->src);
	int r;

	switch (act) {
	case KEY_ACT_REPLAY_NEXT:
		if (pos >= n) {
			app_msg(a, "end of the session (%zu events); b steps back", n);
			return 0;
		}
		pos++;
		break;
	case KEY_ACT_REPLAY_PREV:
		if (pos == 0) {
			app_msg(a, "start of the session; n steps forward");
			return 0;
		}
		pos--;
		break;
	case KEY_ACT_REPLAY_START:
		pos = 0;
		break;
	default:
		pos = n;
		break;
	}
	r = source_replay_seek(a->src, pos);
	if (r < 0) {
		util_cause(cause, "cannot replay event %zu: %s", pos, strerror(-r));
		return r;
	}
	a->src->ops->status(a->src, &a->st);
	if (a->pane && pane_replay(a->pane, source_replay_log(a->src), pos) < 0) {
		util_cause(cause, "cannot replay the transcript: out of memory");
		return -ENOMEM;
	}
	if (r > 0) {
		/* the tree as it was at this event, now rather than at the next refresh */
		a->src->ops->tick(a->src, util_mono_s(), cause);
		r = app_rebuild(a, cause);
		if (r)
			return r;
		a->pending_change = 0;
	}
	return 0;
}

/* The footer line of a replay: the current event as a person reads it. */
void app_replay_footer(struct app *a, char *buf, size_t len)
{
	char text[300];
	const struct session_event *e = source_replay_current(a->src);

	source_replay_event_text(e, text, sizeof(text));
	if (!e && source_replay_log(a->src) && source_replay_log(a->src)->nnotes)
		snprintf(buf, len, " %.300s", source_replay_log(a->src)->notes[0]);
	else
		snprintf(buf, len, " %s", text);
}

