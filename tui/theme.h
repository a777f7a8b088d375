/* theme — semantic roles mapped to styles, loaded from a small text format.
 *
 * A theme gives each role (delta-up, selected, ...) three styles: one for
 * 256-color terminals, one for 8-color terminals and a monochrome attribute
 * set (used for NO_COLOR and terminals without color).  The format is
 * documented at the top of themes/default.theme; the same text is built into
 * the binary (theme_default) so argus runs with nothing installed.
 *
 * This file knows nothing of curses: theme_curses.c maps resolved styles to
 * curses attributes.
 */
#ifndef ARGUS_THEME_H
#define ARGUS_THEME_H

enum theme_role {
	THEME_NORMAL,
	THEME_HEADER,
	THEME_STATUS,
	THEME_STATUS_WARN,
	THEME_SELECTED,
	THEME_DELTA_UP,
	THEME_DELTA_DOWN,
	THEME_INSIGNIFICANT,
	THEME_NEW,
	THEME_VANISHED,
	THEME_VERDICT,
	THEME_SEARCH_MATCH,
	THEME_DIM,
	THEME_DROPPED,
	THEME_FOCUS,          /* the node a proposal concerns; the focused pane's title */
	THEME_KEY,            /* key names in hints */
	THEME_AGENT,          /* the agent's words in the transcript */
	THEME_HUMAN,          /* the person's words and decisions */
	THEME_ROLE_N
};

/* Attribute bits (mapped to A_* by theme_curses.c). */
#define THEME_A_BOLD      0x01u
#define THEME_A_UNDERLINE 0x02u
#define THEME_A_REVERSE   0x04u
#define THEME_A_DIM       0x08u
#define THEME_A_ITALIC    0x10u
#define THEME_A_STANDOUT  0x20u

#define THEME_COLOR_DEFAULT (-1)  /* the terminal's own foreground/background */

struct theme_style {
	short fg, bg;             /* -1 = default, else 0..255 (0..7 for 8-color) */
	unsigned attrs;           /* THEME_A_* */
};

struct theme_role_def {
	struct theme_style c256;
	struct theme_style c8;
	unsigned mono;            /* THEME_A_* */
};

struct theme {
	char name[64];
	struct theme_role_def role[THEME_ROLE_N];
};

enum theme_depth {
	THEME_DEPTH_MONO,
	THEME_DEPTH_8,
	THEME_DEPTH_256,
};

/* "normal", "delta-up", ...; NULL when out of range. */
const char *theme_role_name(enum theme_role r);
/* Inverse of theme_role_name; THEME_ROLE_N when unknown. */
enum theme_role theme_role_from_name(const char *name);

/* The built-in default (dark) theme. */
void theme_default(struct theme *t);
/* The text of the built-in theme (same as themes/default.theme). */
const char *theme_default_text(void);

/* Parses theme text over t (roles the text omits keep their value in t;
 * start from theme_default).  origin names the text in messages
 * ("dark.theme").  Returns 0, or -EINVAL with *cause = "origin:LINE: what"
 * (caller frees). */
int theme_parse(struct theme *t, const char *text, const char *origin, char **cause);

/* Loads name_or_path: a path (contains '/' or ends in .theme) is read as is;
 * a name is looked up as NAME.theme in $XDG_CONFIG_HOME/argus/themes
 * (~/.config when unset) and ARGUS_DATADIR/themes, then among the themes
 * built into the binary (default, light, high-contrast, mono: a file of
 * the same name overrides them).  NULL means "default".  Returns 0 or
 * -errno with *cause set (caller frees). */
int theme_load(struct theme *t, const char *name_or_path, char **cause);

/* Which style set to use: NO_COLOR set and non-empty, or fewer than 8
 * colors, gives mono; 8..255 colors give 8; 256 or more give 256. */
enum theme_depth theme_depth_for(int ncolors, const char *no_color);

/* The style of role r at depth d (mono: default colors, mono attrs). */
struct theme_style theme_resolve(const struct theme *t, enum theme_role r,
				 enum theme_depth d);

#endif
