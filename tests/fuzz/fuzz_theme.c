/* fuzz_theme — libFuzzer target for theme_parse (theme files are shared and
 * downloaded: untrusted text).  Properties beyond "no crash, no leak": a
 * refusal always says why and its message holds no control byte of the
 * input (it is printed on the terminal); a parsed theme's name is clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/sanitize.h"
#include "theme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct theme t;
	char *text = malloc(size + 1), *cause = NULL;
	int rc;

	if (!text)
		return 0;
	memset(&t, 0, sizeof(t)); /* theme_parse overlays the caller's theme */
	memcpy(text, data, size);
	text[size] = '\0';
	rc = theme_parse(&t, text, "fuzz", &cause);
	if (rc < 0) {
		if (!cause || !sanitize_is_clean(cause, 0))
			abort();
	} else if (!sanitize_is_clean(t.name, 0)) {
		abort();
	}
	free(cause);
	free(text);
	return 0;
}
