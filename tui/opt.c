/* opt — one option grammar for every command (see opt.h). */
#include <stdio.h>
#include <string.h>

#include "base/sanitize.h"
#include "base/util.h"
#include "opt.h"

#define OPT_MAX_NAMES 256      /* names offered for "did you mean" */
#define OPT_HELP_WIDTH 79      /* --help wraps its lines to an 80-column terminal */
#define OPT_HELP_LEFT 24       /* "  -x, --name ARG" column */

/* "argus: CMD: " and "'argus CMD --help'" (cmd NULL: the interactive argus) */
static void opt_names(const char *cmd, char *pre, size_t plen, char *help, size_t hlen)
{
	snprintf(pre, plen, "argus: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	snprintf(help, hlen, "'argus %s%s--help'", cmd ? cmd : "", cmd ? " " : "");
}

static void opt_unknown(const struct opt_parser *p, const char *arg)
{
	const struct opt_group *const *groups = p->groups;
	size_t ngroups = p->ngroups;
	const char *names[OPT_MAX_NAMES], *near = NULL;
	char word[128], pre[64], help[64];
	size_t n = 0;

	for (size_t g = 0; g < ngroups; g++)
		for (size_t k = 0; k < groups[g]->n && n < OPT_MAX_NAMES; k++)
			if (strlen(groups[g]->opts[k].name) > 2)   /* not "--" */
				names[n++] = groups[g]->opts[k].name;
	/* --duratoin=5 is a typo of --duration, not of --duration=5 */
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
	if (word[0] == '-' && word[1] == '-')
		near = util_nearest(word, names, n);
	opt_names(p->cmd, pre, sizeof(pre), help, sizeof(help));
	/* the argument is echoed escaped; the line ends outside (escaped too) */
	if (near)
		sanitize_fprintf(p->err, 0, "%sunknown option '%s'; did you mean '%s'? (%s lists "
				 "them)", pre, arg, near, help);
	else
		sanitize_fprintf(p->err, 0, "%sunknown option '%s'; %s lists them", pre, arg, help);
	fputc('\n', p->err);
}

/* The option whose name is the len bytes at name ("--dur" of "--dur=5"):
 * an exact name, else the one option it abbreviates.  NULL with *nhit 0
 * (none) or more than 1 (ambiguous). */
static const struct opt *opt_long(const struct opt_group *const *groups, size_t ngroups,
				  const char *name, size_t len, const struct opt_group **gp,
				  unsigned *nhit)
{
	const struct opt *hit = NULL;

	*nhit = 0;
	for (size_t g = 0; g < ngroups; g++)
		for (size_t k = 0; k < groups[g]->n; k++) {
			const struct opt *o = &groups[g]->opts[k];

			if (strncmp(o->name, name, len))
				continue;
			if (strlen(o->name) == len) {   /* exact: no abbreviation then */
				*gp = groups[g];
				*nhit = 1;
				return o;
			}
			/* the same option twice (a group listed twice) is one */
			if (hit != o) {
				hit = o;
				*gp = groups[g];
				(*nhit)++;
			}
		}
	return *nhit == 1 ? hit : NULL;
}

static const struct opt *opt_short(const struct opt_group *const *groups, size_t ngroups,
				   char c, const struct opt_group **gp)
{
	for (size_t g = 0; g < ngroups; g++)
		for (size_t k = 0; k < groups[g]->n; k++) {
			const struct opt *o = &groups[g]->opts[k];

			if (o->alias && o->alias[0] == '-' && o->alias[1] == c && !o->alias[2]) {
				*gp = groups[g];
				return o;
			}
		}
	return NULL;
}

int opt_next(const struct opt_parser *p, int argc, char **argv, int *i, struct opt_hit *h)
{
	const struct opt_group *const *groups = p->groups;
	size_t ngroups = p->ngroups;
	FILE *err = p->err;
	const char *a, *eq;
	char pre[64], help[64];
	unsigned nhit;

	memset(h, 0, sizeof(*h));
	if (*i >= argc)
		return OPT_END;
	a = argv[(*i)++];
	if (strcmp(a, "--") == 0)
		return OPT_DASHDASH;
	if (a[0] != '-' || !a[1]) {
		h->val = a;
		return OPT_OPERAND;
	}
	opt_names(p->cmd, pre, sizeof(pre), help, sizeof(help));
	if (a[1] == '-') {
		size_t len = strcspn(a, "=");

		eq = a[len] == '=' ? a + len + 1 : NULL;
		h->o = opt_long(groups, ngroups, a, len, &h->group, &nhit);
		if (!h->o && nhit > 1) {
			sanitize_fprintf(err, 0, "%sambiguous option '%.*s': it begins", pre,
					 (int)len, a);
			for (size_t g = 0; g < ngroups; g++)
				for (size_t k = 0; k < groups[g]->n; k++)
					if (!strncmp(groups[g]->opts[k].name, a, len))
						fprintf(err, " %s", groups[g]->opts[k].name);
			fputc('\n', err);
			return -1;
		}
		if (!h->o) {
			opt_unknown(p, a);
			return -1;
		}
		if (eq && !h->o->arg) {
			fprintf(err, "%s'%s' takes no value; %s lists the options\n", pre,
				h->o->name, help);
			return -1;
		}
		h->val = eq;
		h->as = h->o->name;
	} else {
		h->o = opt_short(groups, ngroups, a[1], &h->group);
		if (!h->o || (a[2] && !h->o->arg)) {
			opt_unknown(p, a);
			return -1;
		}
		h->val = a[2] ? a + 2 : NULL;   /* -p123 */
		h->as = h->o->alias;
	}
	if (h->o->arg && !h->val) {
		if (*i >= argc) {
			fprintf(err, "%smissing value for '%s'; %s lists the options\n", pre,
				h->as, help);
			return -1;
		}
		h->val = argv[(*i)++];
	}
	return OPT_OPTION;
}

/* text from column col on, wrapped at OPT_HELP_WIDTH with later lines at
 * OPT_HELP_LEFT + 3 */
static void opt_help_text(FILE *out, const char *text, int col)
{
	const char *p = text;
	int indent = OPT_HELP_LEFT + 3;

	while (*p) {
		int room = OPT_HELP_WIDTH - col, n = (int)strlen(p);

		if (n > room) {   /* the last blank that fits; a longer word goes whole */
			int cut = room;

			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = (int)strcspn(p, " ");
			n = cut;
		}
		fprintf(out, "%.*s\n", n, p);
		p += n;
		while (*p == ' ')
			p++;
		if (*p)
			col = fprintf(out, "%*s", indent, "");
	}
}

void opt_help(FILE *out, const struct opt_group *const *groups, size_t ngroups)
{
	for (size_t g = 0; g < ngroups; g++) {
		const struct opt_group *gr = groups[g];

		if (gr->title)
			fprintf(out, "\n%s:\n", gr->title);
		for (size_t k = 0; k < gr->n; k++) {
			const struct opt *o = &gr->opts[k];
			char head[96];
			int col;

			if (!o->help)
				continue;
			snprintf(head, sizeof(head), "%s%s%s%s%s", o->alias ? o->alias : "    ",
				 o->alias ? ", " : "", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
			col = fprintf(out, "  %-*s ", OPT_HELP_LEFT, head);
			if (col > OPT_HELP_LEFT + 3) {   /* a long head: the text below it */
				fputc('\n', out);
				col = fprintf(out, "%*s", OPT_HELP_LEFT + 3, "");
			}
			opt_help_text(out, o->help, col);
		}
	}
}
