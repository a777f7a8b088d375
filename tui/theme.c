/* theme — parse theme files, find them, resolve a role for a terminal. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sanitize.h"
#include "theme.h"
#include "base/util.h"

#ifndef ARGUS_DATADIR
#define ARGUS_DATADIR "/usr/local/share/argus"
#endif

static const char *const role_names[THEME_ROLE_N] = {
	[THEME_NORMAL] = "normal",
	[THEME_HEADER] = "header",
	[THEME_STATUS] = "status",
	[THEME_STATUS_WARN] = "status-warn",
	[THEME_SELECTED] = "selected",
	[THEME_DELTA_UP] = "delta-up",
	[THEME_DELTA_DOWN] = "delta-down",
	[THEME_INSIGNIFICANT] = "insignificant",
	[THEME_NEW] = "new",
	[THEME_VANISHED] = "vanished",
	[THEME_VERDICT] = "verdict",
	[THEME_SEARCH_MATCH] = "search-match",
	[THEME_DIM] = "dim",
	[THEME_DROPPED] = "dropped",
	[THEME_FOCUS] = "focus",
	[THEME_KEY] = "key",
	[THEME_AGENT] = "agent",
	[THEME_HUMAN] = "human",
};

/* The four shipped themes, generated from themes/NAME.theme by the Makefile
 * (theme_builtin_table: {name, text}), so `--theme light` works from any
 * directory with nothing installed; a file of the same name overrides. */
#include "theme_builtin.h"

static const char *builtin_text(const char *name)
{
	for (size_t i = 0; i < sizeof(theme_builtin_table) / sizeof(theme_builtin_table[0]); i++)
		if (!strcmp(theme_builtin_table[i].name, name))
			return theme_builtin_table[i].text;
	return NULL;
}

static const char *const color_names[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{ "bold", THEME_A_BOLD },
	{ "underline", THEME_A_UNDERLINE },
	{ "reverse", THEME_A_REVERSE },
	{ "dim", THEME_A_DIM },
	{ "italic", THEME_A_ITALIC },
	{ "standout", THEME_A_STANDOUT },
};

const char *theme_role_name(enum theme_role r)
{
	return (unsigned)r < THEME_ROLE_N ? role_names[r] : NULL;
}

enum theme_role theme_role_from_name(const char *name)
{
	for (unsigned i = 0; i < THEME_ROLE_N; i++)
		if (!strcmp(role_names[i], name))
			return (enum theme_role)i;
	return THEME_ROLE_N;
}

const char *theme_default_text(void)
{
	return builtin_text("default");
}

void theme_default(struct theme *t)
{
	char *cause = NULL;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < THEME_ROLE_N; i++) {
		t->role[i].c256.fg = t->role[i].c256.bg = THEME_COLOR_DEFAULT;
		t->role[i].c8.fg = t->role[i].c8.bg = THEME_COLOR_DEFAULT;
	}
	/* The built-in text is known good; a failure here is a bug the unit
	 * test catches. */
	theme_parse(t, theme_default_text(), "built-in", &cause);
	free(cause);
	snprintf(t->name, sizeof(t->name), "default");
}

static int set_cause(char **cause, const char *origin, unsigned line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_cause(char **cause, const char *origin, unsigned line, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	util_cause(cause, "%s:%u: %s", origin, line, msg);
	/* the message quotes the file: no raw bytes of it reach stderr */
	if (cause && sanitize_inplace(cause, 0) < 0) {
		free(*cause);
		*cause = NULL;
	}
	return -EINVAL;
}

/* Splits s in place at whitespace; returns the number of words (at most max). */
static int split_words(char *s, char **w, int max)
{
	int n = 0;

	while (*s) {
		while (isspace((unsigned char)*s))
			*s++ = '\0';
		if (!*s)
			break;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
	}
	return n;
}

static int parse_color(const char *s, int max, short *out)
{
	char *end;
	long v;

	if (!strcmp(s, "default") || !strcmp(s, "-")) {
		*out = THEME_COLOR_DEFAULT;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		if (!strcmp(s, color_names[i])) {
			*out = (short)i;
			return 0;
		}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > max)
		return -EINVAL;
	*out = (short)v;
	return 0;
}

static int parse_attrs(const char *s, unsigned *out, char *bad, size_t badlen)
{
	char buf[128], *save = NULL, *tok;

	*out = 0;
	if (!strcmp(s, "none") || !strcmp(s, "-"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",+", &save); tok; tok = strtok_r(NULL, ",+", &save)) {
		unsigned i;

		for (i = 0; i < sizeof(attr_names) / sizeof(attr_names[0]); i++)
			if (!strcmp(tok, attr_names[i].name))
				break;
		if (i == sizeof(attr_names) / sizeof(attr_names[0])) {
			snprintf(bad, badlen, "%s", tok);
			return -EINVAL;
		}
		*out |= attr_names[i].bit;
	}
	return 0;
}

/* "FG BG [ATTRS]" with colors up to max. */
static int parse_style(char *part, int max, struct theme_style *st, const char *origin,
		       unsigned line, const char *what, char **cause)
{
	char *w[4], bad[64];
	int n = split_words(part, w, 3);

	if (n < 2 || n > 3)
		return set_cause(cause, origin, line,
				 "%s part needs 'FG BG [ATTRS]', got %d word%s",
				 what, n > 3 ? 4 : n, n == 1 ? "" : "s");
	for (int i = 0; i < 2; i++)
		if (parse_color(w[i], max, i ? &st->bg : &st->fg) < 0)
			return set_cause(cause, origin, line,
					 "%s color '%s' is not 0..%d, a color name, or default",
					 what, w[i], max);
	st->attrs = 0;
	if (n == 3 && parse_attrs(w[2], &st->attrs, bad, sizeof(bad)) < 0)
		return set_cause(cause, origin, line,
				 "unknown attribute '%s' (bold underline reverse dim italic standout none)",
				 bad);
	return 0;
}

static int parse_line(struct theme *t, char *s, const char *origin, unsigned line, char **cause)
{
	char *eq, *key, *parts[3], *p, *w[2], bad[64];
	struct theme_role_def def;
	enum theme_role r;
	int np = 0, err;

	eq = strchr(s, '=');
	if (!eq)
		return set_cause(cause, origin, line,
				 "expected 'role = FG BG [ATTRS] | FG8 BG8 [ATTRS] | MONO'");
	*eq = '\0';
	key = s;
	while (isspace((unsigned char)*key))
		key++;
	for (p = key + strlen(key); p > key && isspace((unsigned char)p[-1]); p--)
		p[-1] = '\0';
	if (!*key || key[strcspn(key, " \t")])
		return set_cause(cause, origin, line, "expected one role name before '='");
	if (!strcmp(key, "name")) {
		char *v = eq + 1;

		while (isspace((unsigned char)*v))
			v++;
		v[strcspn(v, "\r\n")] = '\0';
		sanitize_into(t->name, sizeof(t->name), v, 0); /* shown in the status line */
		return 0;
	}
	r = theme_role_from_name(key);
	if (r == THEME_ROLE_N)
		return set_cause(cause, origin, line, "unknown role '%s'", key);
	p = eq + 1;
	parts[np++] = p;
	while ((p = strchr(p, '|'))) {
		*p++ = '\0';
		if (np == 3)
			return set_cause(cause, origin, line,
					 "too many '|' parts (256-color | 8-color | mono)");
		parts[np++] = p;
	}
	def = t->role[r];
	err = parse_style(parts[0], 255, &def.c256, origin, line, "256-color", cause);
	if (err)
		return err;
	if (np >= 2) {
		err = parse_style(parts[1], 7, &def.c8, origin, line, "8-color", cause);
		if (err)
			return err;
	} else {
		def.c8.fg = def.c8.bg = THEME_COLOR_DEFAULT;
		def.c8.attrs = def.c256.attrs;
	}
	if (np == 3) {
		int n = split_words(parts[2], w, 1);

		if (n != 1)
			return set_cause(cause, origin, line,
					 "mono part needs one attribute list, got %d words", n);
		if (parse_attrs(w[0], &def.mono, bad, sizeof(bad)) < 0)
			return set_cause(cause, origin, line,
					 "unknown attribute '%s' (bold underline reverse dim italic standout none)",
					 bad);
	}
	t->role[r] = def;
	return 0;
}

int theme_parse(struct theme *t, const char *text, const char *origin, char **cause)
{
	unsigned line = 0;
	const char *s = text;
	int err = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char buf[512], *hash, *p;

		line++;
		if (len >= sizeof(buf)) {
			err = set_cause(cause, origin, line, "line longer than %zu bytes",
					sizeof(buf) - 1);
			goto out;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (nl ? 1 : 0);
		hash = strchr(buf, '#');
		if (hash)
			*hash = '\0';
		for (p = buf; isspace((unsigned char)*p); p++)
			;
		if (!*p)
			continue;
		err = parse_line(t, p, origin, line, cause);
		if (err)
			goto out;
	}
out:
	return err;
}

static int load_path(struct theme *t, const char *path, char **cause)
{
	const char *base = strrchr(path, '/');
	char *text = NULL;
	int err;

	err = util_read_file(path, 1u << 20, &text, NULL);
	if (err) {
		util_cause(cause, "cannot read theme %s: %s", path, strerror(-err));
		return err;
	}
	theme_default(t);
	base = base ? base + 1 : path;
	snprintf(t->name, sizeof(t->name), "%.*s", (int)strcspn(base, "."), base);
	err = theme_parse(t, text, path, cause);
	free(text);
	return err;
}

int theme_load(struct theme *t, const char *name_or_path, char **cause)
{
	const char *dirs[2], *text;
	char xdg[4096], path[4096];
	const char *x = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	size_t nl;
	int err;

	if (!name_or_path || !*name_or_path)
		name_or_path = "default";
	nl = strlen(name_or_path);
	if (strchr(name_or_path, '/') || (nl > 6 && !strcmp(name_or_path + nl - 6, ".theme")))
		return load_path(t, name_or_path, cause);
	if (x && *x)
		snprintf(xdg, sizeof(xdg), "%s/argus/themes", x);
	else if (home && *home)
		snprintf(xdg, sizeof(xdg), "%s/.config/argus/themes", home);
	else
		xdg[0] = '\0';
	dirs[0] = xdg;
	dirs[1] = ARGUS_DATADIR "/themes";
	for (int i = 0; i < 2; i++) {
		if (!dirs[i][0])
			continue;
		snprintf(path, sizeof(path), "%s/%s.theme", dirs[i], name_or_path);
		if (access(path, R_OK) == 0)
			return load_path(t, path, cause);
	}
	text = builtin_text(name_or_path);
	if (text) {
		theme_default(t);
		err = theme_parse(t, text, name_or_path, cause);
		snprintf(t->name, sizeof(t->name), "%s", name_or_path);
		return err;
	}
	if (cause) {
		free(*cause);
		if (asprintf(cause, "no theme '%s' in %s%s%s/themes or built in; "
			     "give a path or one of default, light, high-contrast, mono",
			     name_or_path, xdg, xdg[0] ? ", " : "", ARGUS_DATADIR) < 0)
			*cause = NULL;
	}
	return -ENOENT;
}

enum theme_depth theme_depth_for(int ncolors, const char *no_color)
{
	if (no_color && *no_color)
		return THEME_DEPTH_MONO;
	if (ncolors >= 256)
		return THEME_DEPTH_256;
	if (ncolors >= 8)
		return THEME_DEPTH_8;
	return THEME_DEPTH_MONO;
}

struct theme_style theme_resolve(const struct theme *t, enum theme_role r, enum theme_depth d)
{
	struct theme_style st = { THEME_COLOR_DEFAULT, THEME_COLOR_DEFAULT, 0 };

	if ((unsigned)r >= THEME_ROLE_N)
		return st;
	switch (d) {
	case THEME_DEPTH_256:
		return t->role[r].c256;
	case THEME_DEPTH_8:
		return t->role[r].c8;
	case THEME_DEPTH_MONO:
		break;
	}
	st.attrs = t->role[r].mono;
	return st;
}
