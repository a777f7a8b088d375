/* libFuzzer target: pprof (profile.proto, gzipped or not) through
 * core/pprof_read, directly and behind import's content detection.  What
 * the reader promises: a refusal says why and names the input; a success
 * adds exactly info.samples, to windows of the condition asked for, each
 * with a length > 0, with frame names free of control characters. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_import.h"
#include "data/pprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_pprof_read(const uint8_t *data, size_t size, enum cond c)
{
	struct profile *p = profile_new();
	struct pprof_read_info info;
	char *cause = NULL;

	if (!p || profile_window_begin(p, c, 0) != 0)
		abort();
	int err = pprof_read("fuzz", data, size, p, 0, &info, &cause);
	if (err) {
		if (!cause || strncmp(cause, "fuzz", 4))
			abort();
	} else {
		uint64_t n = 0;
		for (size_t i = 0; i < p->nstacks; i++) {
			for (unsigned w = 0; w < p->nwin; w++)
				n += p->stacks[i].win[w];
			for (uint32_t k = 0; k < p->stacks[i].nframes; k++)
				for (const char *s = p->stacks[i].frames[k]; *s; s++)
					if ((unsigned char)*s < 0x20 || *s == 0x7f)
						abort();
		}
		if (n != info.samples || !n || cause)
			abort();
		for (unsigned w = 0; w < p->nwin; w++)
			if (!(p->wins[w].secs > 0) || p->wins[w].cond != c)
				abort();
	}
	free(cause);
	profile_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_pprof_read(data, size, COND_REF);
	fuzz_pprof_read(data, size, COND_LOAD);
	(void)pprof_detect(data, size);
	return fuzz_import(data, size, IMPORT_PPROF);
}
