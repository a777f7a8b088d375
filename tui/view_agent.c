/* view_agent — the agent pane on screen. */
#include <stdlib.h>
#include <string.h>

#include "fmt_stream.h"
#include "pane.h"
#include "view_agent.h"

#define ENTRY_MAX_LINES 64
#define STREAM_LINES 8            /* the streamed reply's last lines shown */

/* transcript entry e, the live ones (a turn in flight) after the kept ones */
static struct fmt_agent_entry entry_at(const struct pane *p, unsigned e,
				       const struct fmt_agent_entry *live)
{
	if (e >= p->ntr)
		return live[e - p->ntr];
	return (struct fmt_agent_entry){ p->tr[e].kind, p->tr[e].text };
}

void view_agent_scroll(struct pane *p, int delta)
{
	p->scroll += delta;
	if (p->scroll < 0)
		p->scroll = 0;
	p->version++;
}

/* Fills out[0..rows) with the transcript's last rows lines, p->scroll lines
 * back from the end (clamped); returns how many lines there are in all up
 * to what was needed. */
static void transcript_lines(struct pane *p, struct fmt_line *out, int rows, int width,
			     const struct glyphs *gl, struct fmt_line *tmp)
{
	int from_end = 0, need, total = 0;
	struct fmt_agent_entry live[3];
	char status[160], think[400];
	unsigned nent = p->ntr, nlive = 0;

	/* a turn in flight: what it streamed so far, then how long it thinks */
	if (p->in_flight && p->stream && p->stream->active) {
		const char *tail = fmt_stream_tail(p->stream, STREAM_LINES);

		if (*fmt_stream_think(p->stream, think, sizeof(think)))
			live[nlive++] = (struct fmt_agent_entry){ FMT_AGENT_INFO, think };
		if (*tail)
			live[nlive++] = (struct fmt_agent_entry){ FMT_AGENT_TEXT, tail };
		fmt_stream_status(p->stream, p->o.utf8, status, sizeof(status));
		live[nlive++] = (struct fmt_agent_entry){ FMT_AGENT_INFO, status };
		nent += nlive;
	}

	for (int i = 0; i < rows; i++) {
		fmt_line_reset(&out[i]);
		fmt_line_pad(&out[i], THEME_NORMAL, width);
	}
	/* how many lines in all (to clamp the scroll), counted from the end */
	for (unsigned e = nent; e-- > 0;) {
		struct fmt_agent_entry en = entry_at(p, e, live);

		total += (int)fmt_agent_entry_lines(tmp, 0, &en, width, gl);
		if (total > rows + p->scroll)
			break;
	}
	if (p->scroll > total - rows)
		p->scroll = total - rows > 0 ? total - rows : 0;
	need = rows + p->scroll;
	for (unsigned e = nent; e-- > 0 && from_end < need;) {
		struct fmt_agent_entry en = entry_at(p, e, live);
		unsigned n = fmt_agent_entry_lines(tmp, ENTRY_MAX_LINES, &en, width, gl);

		if (n > ENTRY_MAX_LINES)
			n = ENTRY_MAX_LINES;
		for (unsigned k = n; k-- > 0 && from_end < need; from_end++) {
			int idx = from_end - p->scroll;   /* 0 = the last row */

			if (idx >= 0 && idx < rows)
				out[rows - 1 - idx] = tmp[k];
		}
	}
	/* fewer lines than rows: show them from the top */
	if (from_end < rows) {
		int shift = rows - from_end;

		memmove(out, out + shift, (size_t)from_end * sizeof(*out));
		for (int i = from_end; i < rows; i++) {
			fmt_line_reset(&out[i]);
			fmt_line_pad(&out[i], THEME_NORMAL, width);
		}
	}
}

void view_agent_draw(struct screen *s, struct pane *p, const char *agent_name, int focused,
		     const struct fmt_line *verdict, const struct glyphs *gl)
{
	int h, w, content, card = 0, tr_rows, top = 1;
	struct fmt_line *lines, *tmp, *cardl = NULL;
	const struct step *shown;
	char scope[256];
	unsigned pinned = 0;

	if (!p || !screen_agent_shown(s))
		return;
	h = s->agent.h;
	w = s->agent.w;
	lines = calloc((size_t)h, sizeof(*lines));
	tmp = calloc(ENTRY_MAX_LINES, sizeof(*tmp));
	if (!lines || !tmp)
		goto out;
	fmt_agent_title(&lines[0], w, agent_name, p->mode, focused, gl);
	content = h - 2;
	/* the verdict stays in view, a proposal's card or not (three rows at
	 * least are left for the card's heading and first fields) */
	if (verdict && content >= 4) {
		lines[1] = *verdict;
		top = 2;
		content--;
	}
	shown = p->edit ? p->edit : pane_proposal(p);
	if (content > 0 && shown &&
	    (p->mode == FMT_AGENT_MODE_PROPOSAL || p->mode == FMT_AGENT_MODE_EDIT)) {
		struct fmt_agent_prop fp = {
			.step = shown,
			.index = p->ctl ? ctl_next_step_no(p->ctl) : pane_nrun(p) + 1,
			.run = p->ctl && !p->replay ? pane_nrun(p) + 1 : 0,
			.max = p->o.steps,
			.over_confirm = p->over_confirm,
			.not_accepted = p->not_accepted,
			.err = p->has_err ? &p->err : NULL,
			.editing = p->mode == FMT_AGENT_MODE_EDIT,
			.cursor = p->cursor,
			.edited = p->edit != NULL,
			.auto_accept = p->o.auto_accept,
			.estimate = p->estimate[0] ? p->estimate : NULL,
			.scope = step_scope_describe(shown, &p->o.scope, scope, sizeof(scope)),
			.replay = p->replay,
		};
		int maxcard = p->mode == FMT_AGENT_MODE_EDIT ? content - 1 : content * 3 / 4;

		fp.over_budget = !p->replay && pane_over_budget(p, &fp.est_pct, &fp.budget_pct);
		unsigned n;

		if (maxcard < 1)
			maxcard = 1;
		cardl = calloc(64, sizeof(*cardl));
		if (!cardl)
			goto out;
		fp.pinned = &pinned;
		n = fmt_agent_proposal(cardl, 64, &fp, w, gl);
		card = (int)(n < 64 ? n : 64);
		if (card > maxcard) {
			/* the heading and the pinned lines stay (the budget, a
			 * refusal); in edit mode the cursor's field and the error
			 * under it (up to 2 lines) too */
			int keep = 1 + (int)pinned, first = 0, sel = -1;

			if (keep > maxcard - 1)
				keep = maxcard > 1 ? maxcard - 1 : maxcard;
			for (int i = 0; i < card; i++)
				if (cardl[i].selected)
					sel = i;
			if (fp.editing && sel >= 0 && sel + 3 > maxcard)
				first = sel + 3 - maxcard;
			if (first > card - maxcard)
				first = card - maxcard;
			if (first > 0) {
				memmove(cardl + keep, cardl + keep + first,
					(size_t)(maxcard - keep) * sizeof(*cardl));
			}
			card = maxcard;
		}
	}
	tr_rows = content - card;
	if (tr_rows > 0)
		transcript_lines(p, lines + top, tr_rows, w, gl, tmp);
	for (int i = 0; i < card; i++)
		lines[top + tr_rows + i] = cardl[i];
	if (h >= 2)
		fmt_agent_hints(&lines[h - 1], w, p->replay ? FMT_AGENT_MODE_REPLAY : p->mode);
	for (int y = 0; y < h; y++)
		screen_put_line(s, s->wagent, &s->cagent, y, &lines[y]);
out:
	free(cardl);
	free(tmp);
	free(lines);
}
