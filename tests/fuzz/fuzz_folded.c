/* libFuzzer target: folded stacks ("a;b;c N") through core/import. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_import(data, size, IMPORT_FOLDED);
	/* and the content detection in front of both parsers */
	return fuzz_import(data, size, IMPORT_UNKNOWN);
}
