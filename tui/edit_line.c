/* edit_line — libedit on the bottom row while curses is set aside. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <curses.h>
#include <histedit.h>

#include "probe/caps.h"
#include "edit_line.h"
#include "fmt_agent.h"

struct edit_line {
	EditLine *el;
	History *hist;
	char *hist_path;
	char prompt[256];
	enum edit_complete what;
	char *initial;
	FILE *devnull;
};

char *edit_line_history_path(void)
{
	const char *st = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *p = NULL;

	if (st && *st) {
		if (asprintf(&p, "%s/argus/history", st) < 0)
			p = NULL;
	} else if (home && *home) {
		if (asprintf(&p, "%s/.local/state/argus/history", home) < 0)
			p = NULL;
	}
	return p;
}

/* mkdir -p of the directory of path, 0700 for what it makes */
static void make_dirs(const char *path)
{
	char *d = strdup(path);

	if (!d)
		return;
	for (char *s = d + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		mkdir(d, 0700);
		*s = '/';
	}
	free(d);
}

static char *el_prompt(EditLine *el)
{
	struct edit_line *e = NULL;

	el_get(el, EL_CLIENTDATA, &e);
	return e ? e->prompt : "";
}

char *edit_line_complete(const char *word, const char *names, unsigned *ncand)
{
	size_t wl = strlen(word), common = 0;
	const char *first = NULL, *s = names;
	unsigned n = 0;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (len >= wl && !strncmp(s, word, wl)) {
			if (!first) {
				first = s;
				common = len;
			} else {
				size_t k = 0;

				while (k < common && k < len && first[k] == s[k])
					k++;
				common = k;
			}
			n++;
		}
		s = nl ? nl + 1 : NULL;
	}
	if (ncand)
		*ncand = n;
	if (!first || common <= wl)
		return strdup("");
	return strndup(first + wl, common - wl);
}

/* the candidates for word, '\n'-separated; caller frees */
static char *candidates(enum edit_complete what, const char *word)
{
	char *buf = NULL, pat[300];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	if (what == EDIT_COMPLETE_FIELDS) {
		for (int i = 0; fmt_agent_fields[i]; i++)
			fprintf(f, "%s\n", fmt_agent_fields[i]);
	} else if (what == EDIT_COMPLETE_NAMES) {
		const struct caps *c = caps_cached();

		snprintf(pat, sizeof(pat), "%s*", word);
		if (c) {
			caps_list_tracepoints(c, pat, f);
			if (!strchr(word, ':'))
				caps_list_functions(c, pat, f);
		}
	}
	fclose(f);
	return buf;
}

static unsigned char el_complete(EditLine *el, int ch)
{
	struct edit_line *e = NULL;
	const LineInfo *li = el_line(el);
	const char *start;
	char word[256], *names, *add;
	unsigned n = 0;
	unsigned char rc = CC_REFRESH_BEEP;

	(void)ch;
	el_get(el, EL_CLIENTDATA, &e);
	if (!e || e->what == EDIT_COMPLETE_NONE)
		return CC_REFRESH_BEEP;
	start = li->cursor;
	while (start > li->buffer && !strchr(" ,=", start[-1]))
		start--;
	snprintf(word, sizeof(word), "%.*s", (int)(li->cursor - start), start);
	names = candidates(e->what, word);
	if (!names)
		return CC_ERROR;
	add = edit_line_complete(word, names, &n);
	if (add && *add) {
		el_insertstr(el, add);
		rc = n == 1 ? CC_REFRESH : CC_REFRESH_BEEP;
	}
	free(add);
	free(names);
	return rc;
}

static unsigned char el_abandon(EditLine *el, int ch)
{
	(void)el;
	(void)ch;
	return CC_EOF;
}

struct edit_line *edit_line_new(const char *hist_path)
{
	struct edit_line *e = calloc(1, sizeof(*e));
	HistEvent ev;

	if (!e)
		return NULL;
	e->hist = history_init();
	if (!e->hist)
		goto fail;
	history(e->hist, &ev, H_SETSIZE, 500);
	history(e->hist, &ev, H_SETUNIQUE, 1);
	if (hist_path) {
		e->hist_path = strdup(hist_path);
		if (!e->hist_path)
			goto fail;
		history(e->hist, &ev, H_LOAD, hist_path);
	}
	return e;
fail:
	edit_line_free(e);
	errno = ENOMEM;
	return NULL;
}

static void hist_save(struct edit_line *e)
{
	HistEvent ev;
	int fd;

	if (!e->hist_path)
		return;
	make_dirs(e->hist_path);
	/* created private: what a person typed may name processes */
	fd = open(e->hist_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		fchmod(fd, 0600);
		close(fd);
	}
	history(e->hist, &ev, H_SAVE, e->hist_path);
}

void edit_line_free(struct edit_line *e)
{
	if (!e)
		return;
	if (e->el)
		el_end(e->el);
	if (e->hist)
		history_end(e->hist);
	if (e->devnull)
		fclose(e->devnull);
	free(e->hist_path);
	free(e);
}

/* libedit is made per prompt: it reads the terminal's size when made */
static int el_make(struct edit_line *e)
{
	if (!e->devnull)
		e->devnull = fopen("/dev/null", "we");
	e->el = el_init("argus", stdin, stdout, e->devnull ? e->devnull : stdout);
	if (!e->el)
		return -ENOMEM;
	el_set(e->el, EL_CLIENTDATA, e);
	el_set(e->el, EL_EDITOR, "emacs");
	el_set(e->el, EL_SIGNAL, 0);
	el_set(e->el, EL_PROMPT, el_prompt);
	el_set(e->el, EL_HIST, history, e->hist);
	el_set(e->el, EL_SETTY, "-d", "-isig", NULL);
	el_set(e->el, EL_ADDFN, "argus-complete", "complete a name", el_complete);
	el_set(e->el, EL_ADDFN, "argus-abandon", "abandon the line", el_abandon);
	el_set(e->el, EL_BIND, "^I", "argus-complete", NULL);
	el_set(e->el, EL_BIND, "^C", "argus-abandon", NULL);
	el_set(e->el, EL_BIND, "^G", "argus-abandon", NULL);
	return 0;
}

char *edit_line_read(struct edit_line *e, const char *prompt, const char *initial, int row,
		     enum edit_complete what)
{
	const char *line;
	char *out = NULL;
	int n = 0;

	snprintf(e->prompt, sizeof(e->prompt), "%s", prompt);
	e->what = what;
	/* the bottom row, emptied, with the terminal's cursor on it */
	move(row, 0);
	clrtoeol();
	curs_set(1);
	refresh();
	def_prog_mode();
	reset_shell_mode();
	if (el_make(e) == 0) {
		if (initial && *initial)
			el_push(e->el, initial);
		line = el_gets(e->el, &n);
		if (line && n >= 0) {
			out = strdup(line);
			if (out)
				out[strcspn(out, "\r\n")] = 0;
		}
		el_end(e->el);
		e->el = NULL;
	}
	reset_prog_mode();
	curs_set(0);
	clearok(curscr, TRUE);
	if (out && *out) {
		HistEvent ev;

		history(e->hist, &ev, H_ENTER, out);
		hist_save(e);
	}
	return out;
}
