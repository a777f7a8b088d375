/* import_int.h — what the parts of the importer share (not an API): the
 * line reader, the frame set, the window handling, and each reader's entry
 * point.  core/data/import.c detects the format and calls a reader. */
#ifndef ARGUS_IMPORT_INT_H
#define ARGUS_IMPORT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "data/import.h"

#define IMPORT_MAX_FRAMES 1024        /* perf's own limit is 127 by default */
#define IMPORT_MAX_NAME 1024          /* a kernel symbol is at most 512 (KSYM_NAME_LEN) */

struct import_line {
	const char *s;   /* not NUL-terminated */
	size_t len;      /* without the line end and trailing blanks */
	size_t raw_len;  /* without the line end only */
	unsigned no;     /* 1-based */
	size_t off;      /* byte offset of the line in the buffer */
};

struct import_reader {
	const char *buf;
	size_t len, pos;
	unsigned no;
};

/* A growing set of NUL-terminated strings: frames of one stack. */
struct import_frames {
	char *buf;
	size_t len, cap;
	size_t *off;
	unsigned n, cap_n;
	const char **ptr;
	unsigned ptr_cap;
};

struct import_ctx {
	const char *name;
	struct profile *p;
	unsigned first_win, cur_win;
	enum cond cond;
	unsigned cur_added;         /* stack lines added to cur_win */
	int cur_secs_set;
	struct import_info *info;
	char **cause;
};

/* ---- core/data/import_util.c ---- */

/* The next line of r into l: 1, or 0 at the end. */
int import_reader_next(struct import_reader *r, struct import_line *l);
int import_is_blank(char c);
/* s[0..n) printable for a message (tabs as spaces, other control bytes
 * '?'), cut with "..." to fit outlen. */
void import_quote(const char *s, size_t n, char *out, size_t outlen);
void import_frames_reset(struct import_frames *f);
/* Adds s[0..n) as a frame (escaped when it holds control bytes); -E2BIG
 * past IMPORT_MAX_FRAMES, -ENAMETOOLONG past IMPORT_MAX_NAME, -ENOMEM. */
int import_frames_push(struct import_frames *f, const char *s, size_t n);
/* The frames as strings (reversed when reverse); valid until the next push. */
const char **import_frames_ptrs(struct import_frames *f, int reverse);
void import_frames_fini(struct import_frames *f);
/* A decimal number of n digits; 0, or -EINVAL / -ERANGE. */
int import_parse_u64(const char *s, size_t n, uint64_t *out);
int import_all_digits(const char *s, size_t n);
int import_all_hex(const char *s, size_t n);
/* n without a trailing "+0x1f" offset. */
size_t import_strip_offset(const char *s, size_t n);
/* An "# argus-window" header line: opens the next window; 0 or -errno. */
int import_window_header(struct import_ctx *c, const struct import_line *l);

/* ---- the readers: all of r into c's windows; 0 or -errno with *c->cause ---- */

int import_folded(struct import_ctx *c, struct import_reader *r);  /* import_folded.c */
int import_perf(struct import_ctx *c, struct import_reader *r);    /* import_perf.c */

#endif
