/* pprof_dec — the decoding half of pprof_read (internal to core/pprof_*.c).
 *
 * pprof_dec_top keeps slices of the Profile's repeated messages and of its
 * string table (pointing into the decoded bytes, no copies);
 * pprof_dec_tables parses functions, mappings and locations into arrays
 * sorted by id for pprof_dec_find.  Every index and length is checked
 * against the bytes; failures set *cause naming the file.
 */
#ifndef ARGUS_PPROF_DEC_H
#define ARGUS_PPROF_DEC_H

#include <stddef.h>
#include <stdint.h>

#define PPROF_MAX_RAW     ((size_t)1 << 30)  /* decompressed bytes read */

struct pd_slice {
	const uint8_t *p;
	size_t n;
};

struct pd_vec {
	struct pd_slice *a;
	size_t n, cap;
};

struct pd_func {
	uint64_t id, name;
};

struct pd_map {
	uint64_t id, file;
	uint64_t build_id;     /* string index, 0: none */
	int kernel;            /* 1 core kernel, 2 module, 0 user / unknown */
};

struct pd_loc {
	uint64_t id, mapping, address;
	size_t line0, nlines;  /* function ids in pr.lines */
	int kernel;            /* the location is marked kernel */
	int module;            /* index into maps + 1 when a module mapping */
	int user;              /* in a mapping of a user-space file */
};

struct pd {
	const char *name;
	char **cause;
	struct pd_vec strs, samples, maps_raw, locs_raw, funcs_raw, comments_v;
	struct pd_func *funcs;
	size_t nfuncs;
	struct pd_map *maps;
	size_t nmaps;
	struct pd_loc *locs;
	size_t nlocs;
	uint64_t *lines;
	size_t nlines, lines_cap;
	uint64_t sample_types[16][2];
	unsigned ntypes;
	uint64_t period, duration, time;
	uint64_t period_type[2];
};

/* The element with id among n elements of size sz sorted by id (their
 * first member), or NULL. */
void *pprof_dec_find(void *base, size_t n, size_t sz, uint64_t id);

/* String i of the table; -EINVAL with *cause when out of range. */
int pprof_dec_str(const struct pd *r, uint64_t i, struct pd_slice *out);
/* 1 when string i is s. */
int pprof_dec_streq(const struct pd *r, uint64_t i, const char *s);

/* Decompresses gzip (or zlib) in[0..n) into *out (caller frees), at most
 * PPROF_MAX_RAW bytes; 0 or -errno with *cause. */
int pprof_dec_gunzip(const char *name, const uint8_t *in, size_t n, uint8_t **out,
		     size_t *outlen, char **cause);

/* First pass over a Profile message. */
int pprof_dec_top(struct pd *r, const uint8_t *buf, size_t len);
/* Functions, mappings, locations (after pprof_dec_top). */
int pprof_dec_tables(struct pd *r);
/* Frees what r holds (not r). */
void pprof_dec_free(struct pd *r);

int pprof_dec_malformed(struct pd *r, const char *what);

#endif
