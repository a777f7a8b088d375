/* app — the interactive tree's event loop, its keys and drawing over the
 * view stack, and set-up and teardown: the top of its files (listed in
 * app_priv.h), which it calls and which never call it. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <termios.h>
#include <time.h>


#include "app_priv.h"
#include "opts_agent.h"
#include "edit_line.h"
#include "agent/agent_heuristic.h"
#include "probe/probe.h"
#include "measure/session.h"
#include "probe/kind.h"
#include "measure/source_replay.h"

void tui_opts_default(struct tui_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->threshold = 0.001;
	o->explain = 0.5;
	o->group = TREE_BY_SUBSYS;
	o->refresh_s = 1.0;
}

/* the node the pane's reply concerns, selected in the tree */
static void app_pane_sync_tree(struct app *a)
{
	struct tree_node *n;

	if (!a->pane || !a->pane->select_focus || !a->t)
		return;
	a->pane->select_focus = 0;
	n = a->pane->focus_id ? tree_find_id(a->t, a->pane->focus_id) : NULL;
	if (!n)
		return;
	/* TREE_F_FOCUS marks it; clear the mark elsewhere */
	for (size_t i = 0; i < a->v->nvn; i++)
		a->v->vn[i].n->flags &= ~TREE_F_FOCUS;
	n->flags |= TREE_F_FOCUS;
	view_tree_select_node(a->v, n);
}

/* ---- drawing ----------------------------------------------------------------------- */

/* What the tree is now ("calibrating", "calibration done", "live",
 * "replay"), how it is grouped, and with -p which process. */
static void app_header_state(struct app *a, char *buf, size_t len)
{
	int at = snprintf(buf, len, "%s%s", fmt_run_state(&a->st, a->replay),
			  a->group == TREE_BY_PROCESS ? ", by process" : "");

	/* the tree's counts are not the status bar's: say why */
	if (a->o.decay_s > 0 && !a->calibrated && a->st.phase == SOURCE_LIVE && at > 0 &&
	    (size_t)at < len)
		at += snprintf(buf + at, len - (size_t)at, ", decay %gs", a->o.decay_s);

	if (a->o.pid && at > 0 && (size_t)at < len)
		snprintf(buf + at, len - (size_t)at, " %s pid %u%s%s%s", a->gl->g[GLYPH_SEP],
			 a->o.pid, a->o.pid_comm ? " (" : "", a->o.pid_comm ? a->o.pid_comm : "",
			 a->o.pid_comm ? ")" : "");
}

/* The tree pane's footer: the search line, else the status message, a
 * replay's position or the filter (NULL: none). */
static const char *app_footer(struct app *a, char *buf, size_t len, enum theme_role *role)
{
	*role = THEME_NORMAL;
	if (app_view_is_open(a, &app_view_search)) {
		snprintf(buf, len, "/%s%s", a->query, a->search_found ? "" : "   (no match)");
		*role = a->search_found ? THEME_NORMAL : THEME_STATUS_WARN;
	} else if (a->msg[0]) {
		snprintf(buf, len, " %s", a->msg);
		*role = THEME_STATUS_WARN;
	} else if (a->replay) {
		app_replay_footer(a, buf, len);
	} else if (a->v->filter[0]) {
		snprintf(buf, len, " filter '%s': %zu match%s (& then Enter: all)", a->v->filter,
			 a->v->nmatch, a->v->nmatch == 1 ? "" : "es");
		*role = a->v->nmatch ? THEME_NORMAL : THEME_STATUS_WARN;
	} else {
		return NULL;
	}
	return buf;
}

/* The status bar: with a side pane (the agent's, or the model view over
 * the whole middle) the pane's phase and the hidden tree's message line;
 * else the source's status. */
static void app_draw_status(struct app *a, const struct app_frame *f)
{
	int model = app_view_is_open(a, &app_view_model);
	struct source_status st = a->st;
	char phase[128];
	const char *ph;

	if (!a->pane && !(model && !screen_tree_shown(&a->scr))) {
		screen_draw_status(&a->scr, &a->st, a->gl);
		return;
	}
	/* a replay's phase is the replay's position */
	ph = a->replay || !a->pane ? NULL : pane_status(a->pane, &st, phase, sizeof(phase));
	/* the message line of a hidden tree goes to the status bar */
	if (!screen_tree_shown(&a->scr) && f->footer) {
		fmt_line_reset(&a->scr.scratch);
		fmt_line_add(&a->scr.scratch, f->frole == THEME_NORMAL ? THEME_STATUS : f->frole,
			     f->footer, a->scr.status.w);
		fmt_line_pad(&a->scr.scratch, THEME_STATUS, a->scr.status.w);
	} else {
		fmt_status_ex(&a->scr.scratch, &st, a->scr.status.w, a->gl, ph,
			      a->o.auto_accept ? "AUTO: steps load without asking" : NULL);
	}
	screen_put_line(&a->scr, a->scr.wstatus, &a->scr.cstatus, 0, &a->scr.scratch);
}

static void render(struct app *a)
{
	struct fmt_header_sum hs;
	struct app_frame f;
	const struct app_view_ops *top = app_view_top(a, APP_AREA_N), *v;
	char state[128], footer[320];

	if (a->scr.too_small) {
		screen_draw_too_small(&a->scr);
		doupdate();
		return;
	}
	app_pane_sync_tree(a);
	for (int i = 0; i < a->nviews; i++)
		if (a->views[i]->fit)
			a->views[i]->fit(a);
	app_header_state(a, state, sizeof(state));
	/* the analysis's fields, not its text: the header lays them out */
	hs.text = a->calibrated ? a->an.subsystems : a->o.note;
	hs.displaced = a->calibrated ? a->an.displaced : NULL;
	hs.ndisplaced = a->calibrated ? a->an.ndisplaced : 0;
	screen_draw_header(&a->scr, a->o.title ? a->o.title : "argus", state, &hs, a->gl);
	f.footer = app_footer(a, footer, sizeof(footer), &f.frole);
	/* each area its topmost view; the one over both last, after the bar */
	for (int area = APP_AREA_TREE; area < APP_AREA_OVER; area++)
		if ((v = app_view_top(a, (enum app_area)area)) && v->draw)
			v->draw(a, &f);
	app_draw_status(a, &f);
	curs_set(top && (top->flags & APP_VIEW_F_TYPING) ? 1 : 0);
	if ((v = app_view_top(a, APP_AREA_OVER)) && v->draw)
		v->draw(a, &f);
	screen_flush(&a->scr);
}

/* every view, for the end (each frees what it owns, opened or not) */
static const struct app_view_ops *const app_views_all[] = {
	&app_view_overlay, &app_view_search, &app_view_icicle, &app_view_model,
	&app_view_agent, &app_view_tree,
};

/* Every key waiting on the terminal, each down the view stack from its top
 * until a view takes it; 0 or -errno with *cause. */
static int app_read_keys(struct app *a, char **cause)
{
	struct app_key k;
	int rc, draw = APP_DRAW_NONE;

	while ((rc = wget_wch(a->win_in, &k.ch)) != ERR) {
		const struct app_view_ops *top = app_view_top(a, APP_AREA_N);
		int r = APP_KEY_PASS;

		k.fn = rc == KEY_CODE_YES;
		k.code = k.fn ? KEY_FN((int)k.ch) : (int)k.ch;
		if (k.fn && k.ch == KEY_RESIZE)
			continue;
		if (!top || !(top->flags & APP_VIEW_F_TYPING))
			a->msg[0] = '\0';
		for (int i = a->nviews; i-- > 0 && r == APP_KEY_PASS;)
			r = a->views[i]->key(a, &k, cause);
		if (r < 0)
			return r;
		if (r != APP_KEY_PASS)
			draw |= r;
		if (a->quit)
			break;
	}
	if (draw & APP_DRAW_ALL)
		screen_invalidate(&a->scr);   /* every cell again at the next render */
	return 0;
}

/* Before endwin: a terminal without an alternate screen (vt100: no smcup)
 * keeps what curses drew, and the shell's prompt lands over the status
 * line; cleared, the terminal is left as it was found, blank. */
static void app_clear_if_no_altscreen(void)
{
	char *smcup = tigetstr("smcup");

	if (smcup && smcup != (char *)-1 && *smcup)
		return;
	wclear(stdscr);
	wrefresh(stdscr);
}

static int handle_resize(struct app *a)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		resizeterm(ws.ws_row, ws.ws_col);
	if (screen_resize(&a->scr, LINES, COLS) < 0)
		return -ENOMEM;
	screen_set_theme(&a->scr, &a->theme, app_term_depth());
	if (app_view_is_open(a, &app_view_overlay))
		screen_close_overlay(&a->scr); /* redrawn at its new size */
	return 0;
}

static void suspend(struct app *a)
{
	sigset_t ts;

	def_prog_mode();
	curs_set(1);
	endwin();
	signal(SIGTSTP, SIG_DFL);
	sigemptyset(&ts);
	sigaddset(&ts, SIGTSTP);
	sigprocmask(SIG_UNBLOCK, &ts, NULL);
	raise(SIGTSTP);           /* stops here until SIGCONT */
	sigprocmask(SIG_BLOCK, &ts, NULL);
	reset_prog_mode();
	handle_resize(a);
}

static void log_to_ring(void *arg, enum probe_log_level level, const char *msg)
{
	(void)level;
	log_ring_feed(arg, msg, strlen(msg));
}

/* ---- terminal setup and teardown ------------------------------------------------------- */

static int capture_stderr(struct app *a)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	a->saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	if (a->saved_err < 0 || dup2(p[1], STDERR_FILENO) < 0) {
		int err = -errno;

		close(p[0]);
		close(p[1]);
		if (a->saved_err >= 0)
			close(a->saved_err);
		a->saved_err = -1;
		return err;
	}
	close(p[1]);
	a->errpipe = p[0];
	return 0;
}

static void drain_stderr(struct app *a)
{
	char buf[4096];
	ssize_t n;

	if (a->errpipe < 0)
		return;
	while ((n = read(a->errpipe, buf, sizeof(buf))) > 0)
		log_ring_feed(a->log, buf, (size_t)n);
}

/* After endwin: the last lines the load wrote (measure's "load: " lines in
 * the log ring), which the screen never showed: its error, dd's summary. */
static void app_load_tail(const struct app *a)
{
	enum { TAIL = 10 };
	unsigned n = a->log ? log_ring_count(a->log) : 0, idx[TAIL], k = 0;

	for (unsigned i = n; i-- > 0 && k < TAIL;)
		if (!strncmp(log_ring_line(a->log, i), "load: ", 6))
			idx[k++] = i;
	if (!k)
		return;
	fprintf(stderr, "argus: the load's output (last %u line%s):\n", k, k == 1 ? "" : "s");
	while (k-- > 0)
		fprintf(stderr, "  %s\n", log_ring_line(a->log, idx[k]) + 6);
}

static void release_stderr(struct app *a)
{
	if (a->saved_err < 0)
		return;
	fflush(stderr);
	dup2(a->saved_err, STDERR_FILENO);
	close(a->saved_err);
	a->saved_err = -1;
	drain_stderr(a);
	log_ring_flush(a->log);
	close(a->errpipe);
	a->errpipe = -1;
}

static int handle_signals(struct app *a)
{
	struct signalfd_siginfo si;

	while (read(a->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGINT:
		case SIGTERM:
		case SIGHUP:
		case SIGQUIT:
			a->quit = 1;
			break;
		case SIGWINCH:
			if (handle_resize(a) < 0)
				return -ENOMEM;
			break;
		case SIGTSTP:
			suspend(a);
			break;
		default:
			break;
		}
	}
	return 0;
}

/* Whether the terminal is gone: asked only when poll said POLLIN, so a
 * live terminal has a byte waiting and curses reads it next. */
static int app_term_gone(void)
{
	struct termios t;

	return tcgetattr(STDIN_FILENO, &t) < 0 && (errno == EIO || errno == ENOTTY ||
						    errno == EBADF);
}

static void app_hangup(struct app *a)
{
	a->quit = 1;
	if (a->o.session)
		session_write_note(a->o.session, "the terminal hung up: argus ended the run");
}

static int loop(struct app *a, char **cause)
{
	double now = util_mono_s(), next_status = now;
	int err = 0;

	a->last_rebuild = -1e9;
	while (!a->quit) {
		struct pollfd fds[3 + APP_MAX_SRC_FDS + APP_MAX_AGENT_FDS];
		int nfds = 3, nsrc = 0, tmo = 1000, rc;

		fds[0] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		fds[1] = (struct pollfd){ .fd = a->sigfd, .events = POLLIN };
		fds[2] = (struct pollfd){ .fd = a->errpipe, .events = POLLIN };
		if (a->src->ops->pollfds) {
			nsrc = a->src->ops->pollfds(a->src, fds + 3, APP_MAX_SRC_FDS);
			if (nsrc > 0)
				nfds += nsrc;
		}
		if (a->pane && a->pane->in_flight) {   /* the LLM's sockets: its reply at once */
			int nag = agent_pollfds(a->pane->agent, fds + nfds, APP_MAX_AGENT_FDS);

			if (nag > 0)
				nfds += nag;
		}
		if (a->src->ops->timeout_ms) {
			int t = a->src->ops->timeout_ms(a->src, now);

			if (t >= 0 && t < tmo)
				tmo = t;
		}
		if (a->pane) {
			int t = pane_timeout_ms(a->pane, now);

			if (t >= 0 && t < tmo)
				tmo = t;
			if (a->pane->need_rebuild)
				tmo = 0;
		}
		if (a->pending_change) {
			double due = a->last_rebuild + a->o.refresh_s - now;
			int t = due > 0 ? (int)ceil(due * 1000) : 0;

			if (t < tmo)
				tmo = t;
		}
		{
			double due = next_status - now;
			int t = due > 0 ? (int)ceil(due * 1000) : 0;

			if (t < tmo)
				tmo = t;
		}
		rc = poll(fds, (nfds_t)nfds, tmo);
		if (rc < 0 && errno != EINTR) {
			err = -errno;
			util_cause(cause, "poll failed: %s", strerror(errno));
			break;
		}
		now = util_mono_s();
		if (rc > 0 && fds[1].revents) {
			err = handle_signals(a);
			if (err) {
				util_cause(cause, "out of memory after a resize");
				break;
			}
		}
		/* Hang-up (the pane killed, ssh dropped, and no SIGHUP because
		 * argus is in a session of its own): POLLHUP/POLLERR, or POLLIN
		 * while the terminal answers EIO.  Then end as on q: the caller
		 * resumes and ends the loads, detaches and closes the session.
		 * Never spin on a dead terminal. */
		if (rc > 0 && ((fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) ||
			       ((fds[0].revents & POLLIN) && app_term_gone()))) {
			app_hangup(a);
			break;
		}
		/* the log first: a key (O, the load's output) sees every line
		 * written before it, such as the load's last one (issue 24) */
		if (rc > 0 && fds[2].revents)
			drain_stderr(a);
		if (rc > 0 && (fds[0].revents & POLLIN)) {
			err = app_read_keys(a, cause);
			if (err)
				break;
		}
		if (a->quit)
			break;
		rc = a->src->ops->tick(a->src, now, cause);
		if (rc < 0) {
			err = rc;
			if (!*cause)
				util_cause(cause, "measurement failed: %s", strerror(-rc));
			break;
		}
		if (rc > 0)
			a->pending_change = 1;
		a->src->ops->status(a->src, &a->st);
		/* the last windows at once: the verdict is final from then on */
		if (a->pending_change && (now - a->last_rebuild >= a->o.refresh_s ||
					  a->st.phase == SOURCE_DONE)) {
			err = app_rebuild(a, cause);
			if (err)
				break;
			a->pending_change = 0;
			a->last_rebuild = now;
		}
		if (a->pane) {
			/* the first turn sees the tree of every window: not before
			 * the rebuild that follows the last one */
			pane_tick(a->pane, a->t, a->calibrated && !a->pending_change, &a->st, now);
			if (a->pane->need_rebuild) {
				err = app_rebuild(a, cause);
				if (err)
					break;
				a->pane->need_rebuild = 0;
				pane_tick(a->pane, a->t, a->calibrated, &a->st, now);
			}
		}
		if (now >= next_status)
			next_status = now + 1.0;
		render(a);
	}
	return err;
}

int tui_run(struct source *src, const struct tui_opts *o, char **cause)
{
	struct app a;
	int err = 0, curses_up = 0, masked = 0;

	memset(&a, 0, sizeof(a));
	a.src = src;
	a.sigfd = a.errpipe = a.saved_err = -1;
	if (o)
		a.o = *o;
	else
		tui_opts_default(&a.o);
	if (a.o.refresh_s <= 0)
		a.o.refresh_s = 1.0;
	a.group = a.o.group;
	a.replay = source_replay_is(src);
	err = theme_load(&a.theme, a.o.theme, cause);
	if (err)
		goto out;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		err = -ENOTTY;
		util_cause(cause, "the interactive tree needs a terminal on stdin and stdout; "
			  "use 'argus record' for output to a file or pipe");
		goto out;
	}
	for (unsigned i = 0; i < sizeof(app_themes) / sizeof(app_themes[0]); i++)
		if (!strcmp(a.theme.name, app_themes[i]))
			a.theme_idx = (int)i;
	if (a.o.log_path) {
		a.logf = fopen(a.o.log_path, "a");
		if (!a.logf) {
			err = -errno;
			util_cause(cause, "cannot open log file %s: %s", a.o.log_path, strerror(errno));
			goto out;
		}
	}
	a.log = log_ring_new(APP_LOG_LINES, a.logf);
	a.v = view_tree_new(a.o.threshold);
	view_decay_init(&a.decay, a.o.decay_s > 0 ? a.o.decay_s : 1);
	a.field = edit_line_new(NULL);    /* field edits, veto reasons, the filter */
	if (!a.log || !a.v || !a.field) {
		err = -ENOMEM;
		util_cause(cause, "out of memory");
		goto out;
	}
	a.utf8 = !a.o.ascii && glyphs_locale_utf8();
	a.gl = glyphs_get(a.utf8);
	if (a.o.agent_pane || (a.replay && app_replay_talks(src))) {
		struct pane_opts po = {
			.steps = a.o.steps,
			.budget_pct = a.o.budget_pct,
			.auto_accept = a.o.auto_accept,
			.utf8 = a.utf8,
			.load = a.o.load,
			.scope = a.o.scope,
			.preflight = !a.replay,   /* every live proposal is estimated */
			.sequential = a.o.sequential,
			.ses = a.o.session,
		};
		/* --agent (tui/opts_agent.h): the LLM, with the heuristic taking its failed
		 * turns; a replay has none (its pane shows the recorded transcript).  The
		 * LLM's reply streams into the pane as it arrives (tui/pane_stream.h) */
		struct pane_stream *ps = pane_stream_new();
		struct agent *ag = a.replay || !ps ? NULL :
				   a.o.agent ? opts_agent_new(a.o.agent, NULL, pane_stream_delta, ps, NULL)
					     : agent_heuristic_new();
		char *hp = edit_line_history_path();

		a.pane = ag || (a.replay && ps) ? pane_new(&po, ag) : NULL;
		if (a.pane)
			a.pane->stream = ps;
		else
			pane_stream_free(ps);
		if (a.pane && a.replay &&
		    pane_replay(a.pane, source_replay_log(src), source_replay_pos(src)) < 0) {
			pane_free(a.pane);
			a.pane = NULL;
		}
		a.talk = edit_line_new(hp);
		free(hp);
		if (!a.pane) {
			err = -ENOMEM;
			util_cause(cause, "cannot make the agent pane: out of memory");
			goto out;
		}
		/* in the transcript, wrapped to the pane and kept: the log alone
		 * is not on the screen, and the header has no room at 80 columns */
		if (a.o.warning && !a.replay)
			pane_say(a.pane, FMT_AGENT_ERROR, "warning: %s", a.o.warning);
		a.scr.want_agent = 1;
	}

	sigemptyset(&a.sigmask);
	sigaddset(&a.sigmask, SIGINT);
	sigaddset(&a.sigmask, SIGTERM);
	sigaddset(&a.sigmask, SIGHUP);
	sigaddset(&a.sigmask, SIGQUIT);
	sigaddset(&a.sigmask, SIGWINCH);
	sigaddset(&a.sigmask, SIGTSTP);
	if (sigprocmask(SIG_BLOCK, &a.sigmask, &a.oldmask) < 0) {
		err = -errno;
		util_cause(cause, "cannot block signals: %s", strerror(errno));
		goto out;
	}
	masked = 1;
	a.sigfd = signalfd(-1, &a.sigmask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (a.sigfd < 0) {
		err = -errno;
		util_cause(cause, "cannot create a signalfd: %s", strerror(errno));
		goto out;
	}

	a.term = newterm(NULL, stdout, stdin);
	if (!a.term) {
		const char *term = getenv("TERM");

		err = -ENOTTY;
		util_cause(cause, "cannot start the terminal (TERM=%s): unknown terminal type; "
			  "try TERM=xterm-256color or TERM=vt100", term ? term : "unset");
		goto out;
	}
	curses_up = 1;
	set_term(a.term);
	err = capture_stderr(&a);
	if (err) {
		util_cause(cause, "cannot redirect stderr: %s", strerror(-err));
		goto out;
	}
	probe_set_log(log_to_ring, a.log);
	cbreak();
	noecho();
	nonl();
	intrflush(stdscr, FALSE);
	set_escdelay(25);
	curs_set(0);
	if (has_colors() && !(getenv("NO_COLOR") && *getenv("NO_COLOR"))) {
		start_color();
		use_default_colors();
	}
	a.win_in = newwin(1, 1, 0, 0);
	if (!a.win_in || screen_init(&a.scr) < 0) {
		err = -ENOMEM;
		util_cause(cause, "cannot create the windows: out of memory");
		goto out;
	}
	/* the tree at the bottom of the view stack, the agent pane above it */
	app_view_open(&a, &app_view_tree);
	if (a.pane)
		app_view_open(&a, &app_view_agent);
	keypad(a.win_in, TRUE);
	nodelay(a.win_in, TRUE);
	screen_set_theme(&a.scr, &a.theme, app_term_depth());
	a.src->ops->status(a.src, &a.st);
	render(&a);

	err = loop(&a, cause);

out:
	if (curses_up) {
		screen_fini(&a.scr);
		if (a.win_in)
			delwin(a.win_in);
		curs_set(1);
		app_clear_if_no_altscreen();
		endwin();
		delscreen(a.term);
	}
	if (curses_up)
		probe_set_log(NULL, NULL);
	release_stderr(&a);
	/* what every view owns, open or not: the agent pane's stops a running
	 * step, before the loads end */
	for (size_t i = 0; i < sizeof(app_views_all) / sizeof(app_views_all[0]); i++)
		if (app_views_all[i]->free)
			app_views_all[i]->free(&a);
	edit_line_free(a.talk);
	edit_line_free(a.field);
	if (src && src->ops->stop)
		src->ops->stop(src);
	if (err && a.log) {
		unsigned n = log_ring_count(a.log), from = n > 5 ? n - 5 : 0;

		for (unsigned i = from; i < n; i++)
			fprintf(stderr, "argus: log: %s\n", log_ring_line(a.log, i));
	}
	else
		app_load_tail(&a);
	if (a.sigfd >= 0) {
		struct signalfd_siginfo si;

		/* consume what arrived during teardown so unblocking kills nobody */
		while (read(a.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(a.sigfd);
	}
	if (masked)
		sigprocmask(SIG_SETMASK, &a.oldmask, NULL);
	view_decay_free(&a.decay);
	analysis_clear(&a.an);
	log_ring_free(a.log);
	if (a.logf)
		fclose(a.logf);
	return err;
}

