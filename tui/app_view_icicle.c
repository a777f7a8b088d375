/* app_view_icicle — the icicle view (i) in the tree area: the selected
 * subtree as stacked bars (tui/view_icicle.h lays them out and writes the
 * lines), its keys, and back to the tree where the icicle went. */
#include "app_priv.h"

void app_icicle_open(struct app *a)
{
	if (!a->t || !view_tree_selected(a->v)) {
		app_msg(a, "nothing to show: the tree is empty");
		return;
	}
	icicle_open(&a->ic, view_tree_selected(a->v));
	app_view_open(a, &app_view_icicle);
}

static void icicle_view_draw(struct app *a, const struct app_frame *f)
{
	struct screen *s = &a->scr;
	int h = s->tree.h, levels = h > 3 ? h - 3 : 1;

	(void)f;
	if (!screen_tree_shown(s))
		return;
	if (app_icicle_layout(a) < 0) {
		app_msg(a, "out of memory laying out the icicle");
		app_view_close(a, &app_view_icicle);
		return;
	}
	icicle_head(&s->scratch, &a->ic, a->gl);
	screen_put_line(s, s->wtree, &s->ctree, 0, &s->scratch);
	for (int i = 0; i < levels && 1 + i < h - 2; i++) {
		icicle_row(&s->scratch, &a->ic, (unsigned)i, a->gl);
		screen_put_line(s, s->wtree, &s->ctree, 1 + i, &s->scratch);
	}
	icicle_detail(&s->scratch, &a->ic, a->gl);
	screen_put_line(s, s->wtree, &s->ctree, h - 2, &s->scratch);
	if (a->msg[0]) {
		fmt_line_reset(&s->scratch);
		fmt_line_add(&s->scratch, THEME_STATUS_WARN, " ", -1);
		fmt_line_add(&s->scratch, THEME_STATUS_WARN, a->msg, s->tree.w - 1);
		fmt_line_pad(&s->scratch, THEME_STATUS_WARN, s->tree.w);
	} else {
		icicle_path(&s->scratch, &a->ic, a->gl);
	}
	screen_put_line(s, s->wtree, &s->ctree, h - 1, &s->scratch);
}

/* Arrows move, Enter zooms, Backspace zooms out, Esc / q / i go back to
 * the tree with its selection on the icicle's.  Every key is the icicle's. */
static int icicle_view_key(struct app *a, const struct app_key *k, char **cause)
{
	struct icicle *ic = &a->ic;

	(void)cause;
	/* the tree may have been rebuilt since the last draw: nodes again */
	if (app_icicle_layout(a) < 0) {
		app_msg(a, "out of memory laying out the icicle");
		app_view_close(a, &app_view_icicle);
		return APP_DRAW_TREE;
	}
	if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		if (!icicle_unzoom(ic))
			app_msg(a, "at the root already");
		return APP_DRAW_TREE;
	}
	switch (key_lookup(k->code)) {
	case KEY_ACT_UP:
		icicle_move(ic, ICICLE_UP);
		break;
	case KEY_ACT_DOWN:
		icicle_move(ic, ICICLE_DOWN);
		break;
	case KEY_ACT_COLLAPSE:
		icicle_move(ic, ICICLE_LEFT);
		break;
	case KEY_ACT_EXPAND:
		icicle_move(ic, ICICLE_RIGHT);
		break;
	case KEY_ACT_TOGGLE:
		if (!icicle_zoom(ic))
			app_msg(a, "the view starts there already");
		break;
	case KEY_ACT_CANCEL:
	case KEY_ACT_QUIT:
	case KEY_ACT_ICICLE:
		if (ic->sel) /* the tree follows where the icicle went */
			view_tree_select_node(a->v, (struct tree_node *)ic->sel);
		app_view_close(a, &app_view_icicle);
		break;
	case KEY_ACT_REDRAW:
		screen_invalidate(&a->scr);
		break;
	default:
		app_msg(a, "icicle: arrows move, Enter zooms, Backspace zooms out, Esc back");
		break;
	}
	return APP_DRAW_TREE;
}

static void icicle_view_free(struct app *a)
{
	icicle_fini(&a->ic);
}

const struct app_view_ops app_view_icicle = {
	.name = "icicle",
	.area = APP_AREA_TREE,
	.draw = icicle_view_draw,
	.key = icicle_view_key,
	.free = icicle_view_free,
};
