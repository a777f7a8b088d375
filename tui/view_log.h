/* view_log — a ring of log lines collected while curses owns the terminal
 * (libbpf messages, our own warnings, anything written to stderr), and
 * optionally copied to a file (-v FILE). */
#ifndef ARGUS_VIEW_LOG_H
#define ARGUS_VIEW_LOG_H

#include <stddef.h>
#include <stdio.h>

struct log_ring;

/* A ring of at most cap lines; file (may be NULL, not owned) gets every
 * line too.  Returns NULL with errno set. */
struct log_ring *log_ring_new(unsigned cap, FILE *file);
void log_ring_free(struct log_ring *r); /* NULL-safe */

/* Feeds raw bytes; complete lines are added, a partial line is kept. */
void log_ring_feed(struct log_ring *r, const char *buf, size_t n);
/* Adds one line (a trailing newline is dropped). */
void log_ring_add(struct log_ring *r, const char *line);
/* Adds whatever partial line is pending. */
void log_ring_flush(struct log_ring *r);

unsigned log_ring_count(const struct log_ring *r);
/* Line i, 0 = oldest kept; valid until the next add. */
const char *log_ring_line(const struct log_ring *r, unsigned i);
/* Lines added over the ring's life (to notice new ones). */
unsigned long log_ring_total(const struct log_ring *r);

#endif
