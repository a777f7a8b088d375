/* measure_model — loaded windows' waits, the model's windows and the loads'
 * output (see measure_model.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/vec.h"
#include "host/load.h"
#include "measure/measure_model.h"
#include "model/model_window.h"
#include "base/sanitize.h"
#include "base/util.h"
#include "data/waitgraph.h"

#define MM_MAX_PIPES 6

struct mm_pipe {
	int fd;
	int mark;                    /* the load's stdout: lines go to the mark */
	const char *who;
	struct model_lines lb;
};

struct measure_model {
	int waits;
	int steady;
	double tol;
	int have_mark;
	struct model_mark mark;
	double window_s;
	uint32_t self;
	FILE *out;
	struct waitgraph **lw;       /* one per loaded window */
	int *lw_win;                 /* its profile window */
	unsigned nlw;
	unsigned gen;                /* bumped by every collect */
	struct waitgraph *sel;       /* the chosen windows merged */
	unsigned sel_gen;
	double sel_open, sel_close;
	int sel_final, sel_err;
	struct measure_windows last;
	struct mm_pipe pipe[MM_MAX_PIPES];
	unsigned npipe;
	char last_line[160];         /* the load's last non-blank output line,
	                              * sanitized: a failure is reported with it
	                              * (issue 24) */
};

struct measure_model *measure_model_new(const struct measure_opts *o, int waits, char **cause)
{
	struct measure_model *mm = calloc(1, sizeof(*mm));
	int err;

	if (!mm) {
		errno = ENOMEM;
		return NULL;
	}
	mm->waits = waits;
	mm->steady = o->model_steady;
	mm->tol = o->model_tol > 0 ? o->model_tol : MODEL_WINDOW_TOL;
	mm->window_s = o->window_s;
	mm->self = (uint32_t)getpid();
	mm->out = o->load_out;
	mm->sel_gen = (unsigned)-1;
	if (o->model_mark) {
		err = model_mark_init(&mm->mark, o->model_mark, cause);
		if (err) {
			free(mm);
			errno = -err;
			return NULL;
		}
		mm->have_mark = 1;
	}
	return mm;
}

void measure_model_free(struct measure_model *mm)
{
	if (!mm)
		return;
	for (unsigned i = 0; i < mm->npipe; i++)
		if (mm->pipe[i].fd >= 0)
			close(mm->pipe[i].fd);
	for (unsigned i = 0; i < mm->nlw; i++)
		wg_free(mm->lw[i]);
	free(mm->lw);
	free(mm->lw_win);
	wg_free(mm->sel);
	if (mm->have_mark)
		model_mark_fini(&mm->mark);
	free(mm);
}

int measure_model_collect(struct measure_model *mm, const struct waitgraph *g, unsigned win,
			  double start_s, double dt)
{
	struct waitgraph *w;
	int err;

	if (!mm || !g)
		return 0;
	if (!mm->nlw || mm->lw_win[mm->nlw - 1] != (int)win) {
		if (vec_resize(&mm->lw, (size_t)mm->nlw + 1, sizeof(*mm->lw)) ||
		    vec_resize(&mm->lw_win, (size_t)mm->nlw + 1, sizeof(*mm->lw_win)))
			return -ENOMEM;
		w = wg_new();
		if (!w)
			return -ENOMEM;
		w->start_s = start_s;
		mm->lw[mm->nlw] = w;
		mm->lw_win[mm->nlw++] = (int)win;
	}
	w = mm->lw[mm->nlw - 1];
	err = wg_merge(w, g);
	if (err)
		return err;
	w->start_s = start_s;         /* wg_merge keeps the destination's */
	if (dt > 0)
		w->secs += dt;
	mm->gen++;
	return 0;
}

void measure_model_watch(struct measure_model *mm, struct load *l, const char *who)
{
	for (int which = 1; mm && l && which <= 2; which++) {
		int fd = load_output_take(l, which);

		if (fd < 0)
			continue;
		if (mm->npipe == MM_MAX_PIPES) {
			close(fd);
			continue;
		}
		mm->pipe[mm->npipe] = (struct mm_pipe){
			.fd = fd, .mark = which == 1 && !strcmp(who, "load"), .who = who,
		};
		mm->npipe++;
	}
}

int measure_model_pollfds(struct measure_model *mm, struct pollfd *fds, int max)
{
	int n = 0;

	for (unsigned i = 0; mm && i < mm->npipe && n < max; i++)
		if (mm->pipe[i].fd >= 0)
			fds[n++] = (struct pollfd){ .fd = mm->pipe[i].fd, .events = POLLIN };
	return n;
}

struct mm_line_ctx {
	struct measure_model *mm;
	FILE *out;
	const char *who;
};

static void mm_line(void *arg, const char *line)
{
	const struct mm_line_ctx *c = arg;
	const char *p = line;

	while (*p == ' ' || *p == '\t' || *p == '\r')
		p++;
	/* the load's, not a victim's: "the load failed" quotes it */
	if (*p && !strcmp(c->who, "load"))
		sanitize_into(c->mm->last_line, sizeof(c->mm->last_line), line, 0);
	if (!c->out)
		return;
	fprintf(c->out, "%s: ", c->who);
	sanitize_fputs(line, c->out, 0);
	fputc('\n', c->out);
}

void measure_model_read(struct measure_model *mm, double t)
{
	for (unsigned i = 0; mm && i < mm->npipe; i++) {
		struct mm_pipe *p = &mm->pipe[i];
		struct mm_line_ctx c = { .mm = mm, .out = mm->out, .who = p->who };

		if (p->fd < 0)
			continue;
		if (model_lines_read(&p->lb, p->fd, t, p->mark && mm->have_mark ? &mm->mark : NULL,
				     mm_line, &c) <= 0) {
			close(p->fd);    /* its end (every writer closed it) */
			p->fd = -1;
		}
	}
	if (mm && mm->out)
		fflush(mm->out);
}

const char *measure_model_last_line(const struct measure_model *mm)
{
	return mm && mm->last_line[0] ? mm->last_line : NULL;
}

/* The chosen windows (when the inputs changed since the last look). */
static int mm_select(struct measure_model *mm, int final, struct measure_windows *o)
{
	char *cause = NULL, e[120];
	unsigned first = 0, last = 0, n = mm->nlw;
	int err = 0, by = mm->have_mark ? 'm' : mm->steady ? 's' : 'a';

	memset(o, 0, sizeof(*o));
	o->n = n;
	if (!n) {
		snprintf(o->why, sizeof(o->why), "waiting for the first loaded window: the model "
			 "is built from the loaded windows' blocked time and wakeups");
		return final ? -ERANGE : -EAGAIN;
	}
	if (by == 'm') {
		sanitize_into(e, sizeof(e), mm->mark.expr, 0);
		err = model_window_marked(mm->lw, n, &mm->mark, mm->window_s, &first, &last, &cause);
		if (err && !final) {
			if (mm->mark.open_s < 0)
				snprintf(o->why, sizeof(o->why), "waiting for --mark '%s' in the load's "
					 "output (%u line%s read so far): the model is built from the "
					 "loaded windows after it", e, mm->mark.lines,
					 mm->mark.lines == 1 ? "" : "s");
			else
				snprintf(o->why, sizeof(o->why), "--mark '%s' matched at %.1f s: waiting "
					 "for a whole loaded window after it", e, mm->mark.open_s);
			free(cause);
			return -EAGAIN;
		}
	} else if (by == 's') {
		if (n < MODEL_WINDOW_MIN && !final) {
			snprintf(o->why, sizeof(o->why), "--steady: %u loaded window%s so far; a "
				 "steady state needs at least %u whose rates agree within %.0f%%", n,
				 n == 1 ? "" : "s", MODEL_WINDOW_MIN, mm->tol * 100);
			return -EAGAIN;
		}
		err = model_window_steady(mm->lw, n, mm->self, mm->tol, MODEL_WINDOW_MIN, &first,
					  &last, &cause);
		if (err == -ERANGE) {
			snprintf(o->why, sizeof(o->why), "%s%s; %s",
				 final ? "" : "no steady state yet: ", cause ? cause : "",
				 final ? "measure more pairs (--pairs) or widen --tolerance" :
				 "the model waits for more loaded windows");
			free(cause);
			return final ? -ERANGE : -EAGAIN;
		}
	} else {
		last = n - 1;
	}
	if (err) {
		snprintf(o->why, sizeof(o->why), "%s", cause ? cause : strerror(-err));
		free(cause);
		return err;
	}
	wg_free(mm->sel);
	mm->sel = wg_new();
	if (!mm->sel)
		return -ENOMEM;
	for (unsigned i = first; i <= last; i++) {
		err = wg_merge(mm->sel, mm->lw[i]);
		if (err)
			return err;
	}
	mm->sel->start_s = mm->lw[first]->start_s;
	o->g = mm->sel;
	o->first = first;
	o->last = last;
	model_window_text(by, first, last, n, mm->tol, &mm->mark, "loaded windows", o->used,
			  sizeof(o->used));
	return 0;
}

int measure_model_windows_get(struct measure_model *mm, int final, struct measure_windows *out)
{
	if (!mm || !mm->waits) {
		memset(out, 0, sizeof(*out));
		snprintf(out->why, sizeof(out->why), "no wait graph: this run samples on-CPU time "
			 "only");
		return -ENOENT;
	}
	if (mm->sel_gen != mm->gen || mm->sel_final != final ||
	    (mm->have_mark && (mm->sel_open != mm->mark.open_s ||
			       mm->sel_close != mm->mark.close_s))) {
		mm->sel_err = mm_select(mm, final, &mm->last);
		mm->sel_gen = mm->gen;
		mm->sel_final = final;
		mm->sel_open = mm->mark.open_s;
		mm->sel_close = mm->mark.close_s;
		if (mm->sel_err == -ENOMEM) {
			mm->sel_gen = (unsigned)-1; /* try again next time */
			snprintf(mm->last.why, sizeof(mm->last.why), "out of memory");
			mm->last.g = NULL;
		}
	}
	*out = mm->last;
	return mm->sel_err;
}
