/* verdict — what a diagnosis concludes, with its evidence. */
#ifndef ARGUS_VERDICT_H
#define ARGUS_VERDICT_H

#include <stdint.h>
#include <stdio.h>

#define VERDICT_MAX_PATH 128

struct verdict {
	int found;                 /* 0: "no bottleneck found" (honest) */
	char subsystem[16];
	char *path[VERDICT_MAX_PATH]; /* root-first kernel function names, owned */
	unsigned npath;
	char *leaf;                /* owned; last element of the path */
	double confidence;         /* 0..1 */
	/* evidence, from the node the descent stopped at */
	double rate_ref, rate_load, delta, ratio, q;
	unsigned pairs, pairs_agree;
	double share_of_root;      /* node delta / the sum of the increases of
	                            * the root's children (not the net root
	                            * delta: idle falls as work rises) */
	char *summary;             /* one line for people, owned */
	char **notes;              /* extra evidence lines (step results), owned */
	unsigned nnotes;
};

void verdict_clear(struct verdict *v); /* frees owned strings, zeroes */
int verdict_add_note(struct verdict *v, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
