/* Shared body of the folded and perf script fuzz targets: import the input
 * into a reference window, check what the importer promises. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/import.h"

static int fuzz_import(const uint8_t *data, size_t size, enum import_format fmt)
{
	struct profile *p = profile_new();
	struct import_info info;
	char *cause = NULL;

	if (!p || profile_window_begin(p, COND_REF, 0) != 0)
		abort();
	int err = import_buf_as("fuzz", (const char *)data, size, fmt, p, 0, &info, &cause);
	if (err) {
		/* every refusal says why, naming the input */
		if (!cause || strncmp(cause, "fuzz", 4))
			abort();
	} else {
		uint64_t n = 0;
		for (size_t i = 0; i < p->nstacks; i++)
			for (unsigned w = 0; w < p->nwin; w++)
				n += p->stacks[i].win[w];
		if (n != info.samples || !n || cause)
			abort();
		for (unsigned w = 0; w < p->nwin; w++)
			if (!(p->wins[w].secs > 0) || p->wins[w].cond != COND_REF)
				abort();
	}
	free(cause);
	profile_free(p);
	return 0;
}
