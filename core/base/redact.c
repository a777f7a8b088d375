/* redact — placeholders for process names, command lines and paths. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "base/redact.h"

struct redact_entry {
	char *orig;
	char *ph;                   /* "proc-1" */
	enum redact_class cls;
};

struct redact {
	struct redact_entry *e;
	size_t n, cap;
	unsigned next[REDACT_CLASS_N];
};

static const char *const redact_prefix[REDACT_CLASS_N] = { "proc", "cmd", "path" };

struct redact *redact_new(void)
{
	return calloc(1, sizeof(struct redact));
}

void redact_free(struct redact *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->e[i].orig);
		free(r->e[i].ph);
	}
	free(r->e);
	free(r);
}

size_t redact_count(const struct redact *r)
{
	return r ? r->n : 0;
}

const char *redact_name(struct redact *r, enum redact_class c, const char *s)
{
	struct redact_entry *e;

	if (!r || !s || !*s || c < 0 || c >= REDACT_CLASS_N) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->e[i].orig, s))
			return r->e[i].ph;
	/* a placeholder is not redacted again */
	if (redact_reverse(r, s))
		return s;
	if (vec_grow(&r->e, &r->cap, r->n + 1, sizeof(*r->e)))
		return NULL;
	e = &r->e[r->n];
	e->cls = c;
	e->orig = strdup(s);
	if (!e->orig || asprintf(&e->ph, "%s-%u", redact_prefix[c], ++r->next[c]) < 0) {
		free(e->orig);
		errno = ENOMEM;
		return NULL;
	}
	r->n++;
	return e->ph;
}

const char *redact_reverse(const struct redact *r, const char *s)
{
	if (!r || !s)
		return NULL;
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->e[i].ph, s))
			return r->e[i].orig;
	return NULL;
}

static int path_start(const char *text, const char *p)
{
	char b;

	if (*p != '/' || !p[1] || isspace((unsigned char)p[1]))
		return 0;
	if (p == text)
		return 1;
	b = p[-1];
	return isspace((unsigned char)b) || b == '"' || b == '\'' || b == '=' || b == '(' ||
	       b == ':' || b == ',' || b == '[';
}

static size_t path_len(const char *p)
{
	size_t n = 0;

	while (p[n] && !isspace((unsigned char)p[n]) && !strchr("\"'),]", p[n]))
		n++;
	/* a sentence's full stop or colon is not part of the path */
	while (n > 1 && strchr(".:;", p[n - 1]))
		n--;
	return n;
}

int redact_add_command(struct redact *r, const char *cmdline)
{
	const char *p = cmdline, *w, *base;
	char comm[16];
	size_t n;

	if (!r || !cmdline || !*cmdline)
		return 0;
	if (!redact_name(r, REDACT_CMD, cmdline))
		return -errno;
	while (isspace((unsigned char)*p))
		p++;
	n = strcspn(p, " \t\n");
	for (base = p + n; base > p && base[-1] != '/'; base--)
		;
	if (p + n > base) {
		snprintf(comm, sizeof(comm), "%.*s", (int)(p + n - base), base);
		if (!redact_name(r, REDACT_PROC, comm))
			return -errno;
	}
	for (w = p; *w;) {
		n = strcspn(w, " \t\n");
		if (*w == '/' && n > 1) {
			char *path = strndup(w, n);
			const char *ph = path ? redact_name(r, REDACT_PATH, path) : NULL;

			free(path);
			if (!ph)
				return -ENOMEM;
		}
		w += n;
		while (isspace((unsigned char)*w))
			w++;
	}
	return 0;
}

static int is_word(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* The longest registered string standing as a word at p, or NULL. */
static const struct redact_entry *match_at(const struct redact *r, const char *text, const char *p)
{
	const struct redact_entry *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < r->n; i++) {
		size_t n = strlen(r->e[i].orig);

		if (n <= best_len || strncmp(p, r->e[i].orig, n))
			continue;
		if (p > text && is_word(p[-1]) && is_word(*p))
			continue;
		if (is_word(p[n]) && is_word(p[n - 1]))
			continue;
		best = &r->e[i];
		best_len = n;
	}
	return best;
}

char *redact_text(struct redact *r, const char *text)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	if (!text)
		text = "";
	if (!r)
		return strdup(text);
	f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (const char *p = text; *p;) {
		const struct redact_entry *e = match_at(r, text, p);

		if (e) {
			fputs(e->ph, f);
			p += strlen(e->orig);
		} else if (path_start(text, p)) {
			size_t n = path_len(p);
			char *path = strndup(p, n);
			const char *ph = path ? redact_name(r, REDACT_PATH, path) : NULL;

			free(path);
			if (!ph) {
				fclose(f);
				free(out);
				errno = ENOMEM;
				return NULL;
			}
			fputs(ph, f);
			p += n;
		} else {
			fputc(*p++, f);
		}
	}
	if (fclose(f)) {
		free(out);
		errno = ENOMEM;
		return NULL;
	}
	return out;
}
