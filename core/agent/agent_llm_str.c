/* agent_llm_str — string helpers of the LLM agent (see agent_llm_int.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "agent/agent_llm_int.h"

int al_strv_push(char ***v, unsigned *n, char *s)
{
	if (!s)
		return -ENOMEM;
	if (vec_resize(v, (size_t)*n + 1, sizeof(**v))) {
		free(s);
		return -ENOMEM;
	}
	(*v)[(*n)++] = s;
	return 0;
}

void al_strv_free(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *al_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

int al_reply_line(struct agent_reply *r, const char *s, size_t len)
{
	char *l;

	if (len > AL_REASON_WIDTH)
		len = AL_REASON_WIDTH;
	l = strndup(s, len);
	if (!l)
		return -ENOMEM;
	for (char *p = l; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = ' ';
	return al_strv_push(&r->lines, &r->nlines, l);
}

void al_sb_addf(struct al_sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = 1;
			return;
		}
		if ((size_t)n < room) {
			b->len += n;
			return;
		}
		if (vec_grow(&b->p, &b->cap, b->len + (size_t)n + 1, 1)) {
			b->oom = 1;
			return;
		}
	}
}

char *al_sb_take(struct al_sbuf *b)
{
	if (b->oom) {
		free(b->p);
		errno = ENOMEM;
		return NULL;
	}
	if (!b->p)
		return strdup("");
	return b->p;
}

char *al_strv_join(char **v, unsigned n, unsigned from, const char *none)
{
	struct al_sbuf b = { 0 };

	if (from >= n)
		al_sb_addf(&b, "%s\n", none);
	for (unsigned i = from; i < n; i++)
		al_sb_addf(&b, "%s\n", v[i]);
	return al_sb_take(&b);
}
