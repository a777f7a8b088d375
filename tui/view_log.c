/* view_log — ring of log lines. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "view_log.h"

struct log_ring {
	char **line;
	unsigned cap, head, n;
	unsigned long total;
	FILE *file;
	char partial[512];
	size_t plen;
};

struct log_ring *log_ring_new(unsigned cap, FILE *file)
{
	struct log_ring *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->cap = cap ? cap : 1;
	r->line = calloc(r->cap, sizeof(*r->line));
	if (!r->line) {
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->file = file;
	return r;
}

void log_ring_free(struct log_ring *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->cap; i++)
		free(r->line[i]);
	free(r->line);
	free(r);
}

void log_ring_add(struct log_ring *r, const char *line)
{
	size_t n = strcspn(line, "\n");
	char *copy = strndup(line, n);
	unsigned slot;

	if (r->file) {
		fprintf(r->file, "%.*s\n", (int)n, line);
		fflush(r->file);
	}
	if (!copy)
		return;
	slot = (r->head + r->n) % r->cap;
	if (r->n == r->cap) {
		free(r->line[r->head]);
		slot = r->head;
		r->head = (r->head + 1) % r->cap;
	} else {
		r->n++;
	}
	r->line[slot] = copy;
	r->total++;
}

void log_ring_flush(struct log_ring *r)
{
	if (!r->plen)
		return;
	r->partial[r->plen] = '\0';
	log_ring_add(r, r->partial);
	r->plen = 0;
}

void log_ring_feed(struct log_ring *r, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			r->partial[r->plen] = '\0';
			log_ring_add(r, r->partial);
			r->plen = 0;
			continue;
		}
		if (r->plen == sizeof(r->partial) - 1)
			log_ring_flush(r);
		r->partial[r->plen++] = buf[i];
	}
}

unsigned log_ring_count(const struct log_ring *r)
{
	return r->n;
}

const char *log_ring_line(const struct log_ring *r, unsigned i)
{
	return i < r->n ? r->line[(r->head + i) % r->cap] : NULL;
}

unsigned long log_ring_total(const struct log_ring *r)
{
	return r->total;
}
