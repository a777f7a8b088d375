/* llm_sse — an incremental parser of server-sent events (the WHATWG
 * "text/event-stream" format) as both LLM APIs stream them.  Bytes arrive in
 * arbitrary pieces; lines end in LF, CRLF or CR, and a CRLF may straddle two
 * reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/llm.h"
#include "base/vec.h"

#define SSE_DEFAULT_MAX (8u << 20)

void llm_sse_init(struct llm_sse *p)
{
	memset(p, 0, sizeof(*p));
	p->max = SSE_DEFAULT_MAX;
}

void llm_sse_clear(struct llm_sse *p)
{
	if (!p)
		return;
	free(p->line);
	free(p->data);
	llm_sse_init(p);
}

static int sse_grow(char **buf, size_t *cap, size_t need, size_t max)
{
	if (need > max + 1)
		return -E2BIG;
	return vec_grow(buf, cap, need, 1);
}

static int sse_dispatch(struct llm_sse *p, llm_sse_cb cb, void *arg)
{
	int rc = 0;

	if (p->has_data) {
		size_t len = p->data_len;

		if (len && p->data[len - 1] == '\n')
			len--; /* the last data line's newline is not data */
		p->data[len] = '\0';
		rc = cb(p->event[0] ? p->event : "message", p->data, len, arg);
	}
	p->data_len = 0;
	p->has_data = 0;
	p->event[0] = '\0';
	return rc;
}

/* One complete line (without its terminator), NUL-terminated at line[len]. */
static int sse_line(struct llm_sse *p, const char *line, size_t len, llm_sse_cb cb, void *arg)
{
	const char *colon, *val;
	size_t flen, vlen;
	int err;

	if (len == 0)
		return sse_dispatch(p, cb, arg);
	if (line[0] == ':')
		return 0; /* comment (keep-alive) */
	colon = memchr(line, ':', len);
	flen = colon ? (size_t)(colon - line) : len;
	val = colon ? colon + 1 : line + len;
	vlen = colon ? len - flen - 1 : 0;
	if (vlen && *val == ' ') {
		val++;
		vlen--;
	}
	if (flen == 4 && !memcmp(line, "data", 4)) {
		err = sse_grow(&p->data, &p->data_cap, p->data_len + vlen + 2, p->max);
		if (err)
			return err;
		memcpy(p->data + p->data_len, val, vlen);
		p->data_len += vlen;
		p->data[p->data_len++] = '\n';
		p->data[p->data_len] = '\0';
		p->has_data = 1;
	} else if (flen == 5 && !memcmp(line, "event", 5)) {
		if (vlen >= sizeof(p->event))
			vlen = sizeof(p->event) - 1;
		memcpy(p->event, val, vlen);
		p->event[vlen] = '\0';
	}
	/* id, retry and unknown fields: nothing we need */
	return 0;
}

int llm_sse_feed(struct llm_sse *p, const char *buf, size_t n, llm_sse_cb cb, void *arg)
{
	size_t i = 0, run;
	char term;
	int err;

	if (!p->max)
		p->max = SSE_DEFAULT_MAX;
	while (i < n) {
		if (p->last_cr) {
			p->last_cr = 0;
			if (buf[i] == '\n') { /* the LF of a CRLF split across reads */
				i++;
				continue;
			}
		}
		run = 0;
		while (i + run < n && buf[i + run] != '\n' && buf[i + run] != '\r')
			run++;
		err = sse_grow(&p->line, &p->line_cap, p->line_len + run + 1, p->max);
		if (err)
			return err;
		memcpy(p->line + p->line_len, buf + i, run);
		p->line_len += run;
		if (i + run == n)
			return 0; /* no terminator yet: keep the piece */
		term = buf[i + run];
		i += run + 1;
		if (term == '\r') {
			if (i < n) {
				if (buf[i] == '\n')
					i++;
			} else {
				p->last_cr = 1;
			}
		}
		p->line[p->line_len] = '\0';
		run = p->line_len;
		p->line_len = 0;
		err = sse_line(p, p->line, run, cb, arg);
		if (err)
			return err;
	}
	return 0;
}
