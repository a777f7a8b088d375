/* json_safe — escape and bound the strings of a cJSON tree in place. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_safe.h"
#include "base/sanitize.h"

#define JSON_SAFE_DEPTH 64

/* Replaces *sp (allocated by cJSON) by its escaped copy when needed. */
static int json_safe_str(char **sp, unsigned flags)
{
	char *t, *c;
	size_t n;

	if (!*sp || sanitize_is_clean(*sp, flags))
		return 0;
	t = sanitize_str(*sp, flags);
	if (!t)
		return -ENOMEM;
	n = strlen(t) + 1;
	c = cJSON_malloc(n);
	if (!c) {
		free(t);
		return -ENOMEM;
	}
	memcpy(c, t, n);
	free(t);
	cJSON_free(*sp);
	*sp = c;
	return 0;
}

/* Keys whose values are prose that may run over several lines. */
static int json_safe_multiline(const char *key)
{
	static const char *const keys[] = { "text", "rationale", "expect", NULL };

	for (unsigned i = 0; key && keys[i]; i++)
		if (!strcmp(key, keys[i]))
			return 1;
	return 0;
}

static int json_safe_walk(cJSON *o, size_t max_str, unsigned all, const char **what,
			  unsigned depth)
{
	int err;

	if (depth > JSON_SAFE_DEPTH) {
		if (what)
			*what = o->string ? o->string : "(nesting)";
		return -E2BIG;
	}
	for (; o; o = o->next) {
		unsigned flags = all ? all : json_safe_multiline(o->string) ? SANITIZE_TEXT : 0;

		if (o->string && !(o->type & cJSON_StringIsConst) &&
		    (err = json_safe_str(&o->string, 0)))
			return err;
		if (cJSON_IsString(o) && o->valuestring) {
			if (max_str && strlen(o->valuestring) > max_str) {
				if (what)
					*what = o->string ? o->string : "(a string)";
				return -E2BIG;
			}
			if ((err = json_safe_str(&o->valuestring, flags)))
				return err;
		}
		if (o->child && (err = json_safe_walk(o->child, max_str, all, what, depth + 1)))
			return err;
	}
	return 0;
}

int json_safe_tree(cJSON *o, size_t max_str, unsigned flags, const char **what)
{
	return o ? json_safe_walk(o, max_str, flags, what, 0) : 0;
}
