/* fuzz_step — libFuzzer target for step_parse_json (step specs come from an
 * LLM, files and people: untrusted text).  Properties checked beyond "no
 * crash, no leak": a spec that parses serialises, the serialisation parses
 * again to the same serialisation, and a failed parse always explains itself.
 * Needs core/data/step.c and cJSON only:
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Icore \
 *         tests/fuzz/fuzz_step.c core/data/step.c -lcjson -o fuzz_step */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data/step.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct step *s = NULL, *t = NULL, *c = NULL;
	struct step_error e;
	char *j1 = NULL, *j2 = NULL, desc[128];

	if (step_parse_json((const char *)data, size, &s, &e)) {
		if (s || !e.msg[0])
			abort();
		return 0;
	}
	step_describe(s, desc, sizeof(desc));
	j1 = step_to_json(s);
	if (!j1)
		abort();
	if (step_parse_json(j1, strlen(j1), &t, &e))
		abort(); /* what we wrote, we must read back */
	j2 = step_to_json(t);
	if (!j2 || strcmp(j1, j2))
		abort();
	c = step_clone(s);
	if (!c)
		abort();
	step_set_field(c, "target", "kmem:mm_page_alloc,kmem:*", &e);
	step_check_required(c, &e);
	free(j1);
	free(j2);
	step_free(s);
	step_free(t);
	step_free(c);
	return 0;
}
