/* libFuzzer target: `perf script` text through core/import. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_import(data, size, IMPORT_PERF_SCRIPT);
}
