/* model_window — the windows of the model: steady state and marks (see
 * model_window.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model_window.h"
#include "base/sanitize.h"
#include "base/util.h"

int model_mark_init(struct model_mark *mk, const char *expr, char **cause)
{
	memset(mk, 0, sizeof(*mk));
	mk->open_s = mk->close_s = -1;
	if (regcomp(&mk->re, expr, REG_EXTENDED | REG_NOSUB)) {
		char e[120];

		sanitize_into(e, sizeof(e), expr, 0);
		return util_fail(cause, -EINVAL, "bad --mark regular expression '%s'", e);
	}
	mk->expr = strdup(expr);
	if (!mk->expr) {
		regfree(&mk->re);
		return util_fail(cause, -ENOMEM, "out of memory");
	}
	return 0;
}

void model_mark_fini(struct model_mark *mk)
{
	if (!mk || !mk->expr)
		return;
	regfree(&mk->re);
	free(mk->expr);
	mk->expr = NULL;
}

int model_mark_line(struct model_mark *mk, const char *line, double t)
{
	mk->lines++;
	if (regexec(&mk->re, line, 0, NULL, 0))
		return 0;
	if (mk->open_s < 0)
		mk->open_s = t;
	else if (mk->close_s < 0)
		mk->close_s = t;
	return 1;
}

static void ml_one(char *line, double t, struct model_mark *mk,
		   void (*each)(void *arg, const char *line), void *arg)
{
	if (mk)
		model_mark_line(mk, line, t);
	if (each)
		each(arg, line);
}

int model_lines_read(struct model_lines *lb, int fd, double t, struct model_mark *mk,
		     void (*each)(void *arg, const char *line), void *arg)
{
	const size_t cap = sizeof(lb->buf);

	for (;;) {
		ssize_t n = read(fd, lb->buf + lb->used, cap - 1 - lb->used);
		char *p, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? 1 : -errno;
		if (n == 0) {
			if (lb->used) {
				lb->buf[lb->used] = 0;
				lb->used = 0;
				ml_one(lb->buf, t, mk, each, arg);
			}
			return 0;
		}
		lb->used += (size_t)n;
		lb->buf[lb->used] = 0;
		p = lb->buf;
		while ((nl = strchr(p, '\n')) || lb->used == cap - 1) {
			if (!nl)
				nl = lb->buf + lb->used - 1; /* an overlong line: cut */
			*nl = 0;
			ml_one(p, t, mk, each, arg);
			lb->used -= (size_t)(nl + 1 - lb->buf);
			memmove(lb->buf, nl + 1, lb->used + 1);
			p = lb->buf;
		}
	}
}

/* Rate of a window counting only the tracked load (argus left out). */
static void mw_rates(const struct waitgraph *g, uint32_t self, double *blocks, double *cpu)
{
	uint64_t n = 0, ns = 0;

	for (size_t i = 0; i < g->nedges; i++)
		if (g->edges[i].tgid != self)
			n += g->edges[i].count;
	for (size_t i = 0; i < g->nthreads; i++)
		if (g->threads[i].tgid != self)
			ns += g->threads[i].cpu_ns;
	*blocks = g->secs > 0 ? n / g->secs : 0;
	*cpu = g->secs > 0 ? ns / 1e9 / g->secs : 0;
}

int model_window_steady(struct waitgraph *const *win, unsigned n, uint32_t self, double tol,
			unsigned min, unsigned *first, unsigned *last, char **cause)
{
	double *b = NULL, *u = NULL;
	unsigned best_len = 0, best_first = 0;
	int err = 0;

	if (!n)
		return util_fail(cause, -ERANGE, "no window was measured");
	b = calloc(n, sizeof(*b));
	u = calloc(n, sizeof(*u));
	if (!b || !u) {
		err = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < n; i++)
		mw_rates(win[i], self, &b[i], &u[i]);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i; j < n; j++) {
			double mb = 0, mu = 0;
			unsigned seen = 0;
			int ok = 1;

			/* a window the probe was never attached in (a duty cycle's
			 * gap) says nothing either way */
			for (unsigned k = i; k <= j; k++) {
				if (!(win[k]->secs > 0))
					continue;
				mb += b[k];
				mu += u[k];
				seen++;
			}
			if (!seen)
				continue;
			mb /= seen;
			mu /= seen;
			for (unsigned k = i; k <= j && ok; k++)
				ok = !(win[k]->secs > 0) ||
				     (fabs(b[k] - mb) <= tol * mb && fabs(u[k] - mu) <= tol * mu + 1e-4);
			if (ok && mb > 0 && j - i + 1 > best_len) {
				best_len = j - i + 1;
				best_first = i;
			}
		}
	if (best_len < min) {
		size_t o = 0, cap = 320 + 32 * (size_t)n;
		char *s = malloc(cap);

		if (s) {
			o += (size_t)snprintf(s + o, cap - o,
					      "the load never reached a steady state: no %u consecutive "
					      "windows with rates within %.0f%% of their mean; "
					      "blocks/s and CPUs per window:", min, tol * 100);
			for (unsigned i = 0; i < n && o < cap; i++)
				o += (size_t)snprintf(s + o, cap - o, " %.0f/%.2f", b[i], u[i]);
		}
		if (cause) {
			free(*cause);
			*cause = s;
		} else {
			free(s);
		}
		err = -ERANGE;
		goto out;
	}
	*first = best_first;
	*last = best_first + best_len - 1;
out:
	free(b);
	free(u);
	return err;
}

int model_window_marked(struct waitgraph *const *win, unsigned n, const struct model_mark *mk,
			double window_s, unsigned *first, unsigned *last, char **cause)
{
	double open = mk->open_s, close = mk->close_s >= 0 ? mk->close_s : INFINITY;
	char e[120];
	int any = 0;

	sanitize_into(e, sizeof(e), mk->expr ? mk->expr : "", 0);
	if (open < 0)
		return util_fail(cause, -ERANGE, "--mark '%s' never matched the load's output (%u "
				 "line%s read); check the expression against what the load prints",
				 e, mk->lines, mk->lines == 1 ? "" : "s");
	for (unsigned i = 0; i < n; i++) {
		const struct waitgraph *g = win[i];

		double len = wg_wall_s(g); /* secs: attached */

		if (g->start_s + 0.05 >= open && g->start_s + len <= close + 0.05) {
			if (!any)
				*first = i;
			*last = i;
			any = 1;
		}
	}
	if (!any)
		return util_fail(cause, -ERANGE, "--mark '%s' matched at %.1f s%s, but no whole "
				 "window of %.1f s lies inside the phase; run longer or use a shorter "
				 "--window", e, open, mk->close_s >= 0 ? " and closed soon after" : "",
				 window_s);
	return 0;
}

char *model_window_text(int by, unsigned first, unsigned last, unsigned n, double tol,
			const struct model_mark *mk, const char *all_what, char *out,
			size_t len)
{
	char e[120], span[48];

	if (first == last)
		snprintf(span, sizeof(span), "window %u of %u", first + 1, n);
	else
		snprintf(span, sizeof(span), "windows %u-%u of %u", first + 1, last + 1, n);
	if (by == 's') {
		snprintf(out, len, "steady state: %s (rates within %.0f%%)", span, tol * 100);
	} else if (by == 'm' && mk) {
		char close[32] = "end";

		if (mk->close_s >= 0)
			snprintf(close, sizeof(close), "%.1f s", mk->close_s);
		sanitize_into(e, sizeof(e), mk->expr ? mk->expr : "", 0);
		snprintf(out, len, "marked: '%s' at %.1f s .. %s: %s", e, mk->open_s, close, span);
	} else {
		snprintf(out, len, "all %u %s (no --steady/--mark)", n,
			 all_what ? all_what : "windows");
	}
	return out;
}
