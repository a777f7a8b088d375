/* cmd_diff — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_diff(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'diff' is not available in this build yet\n");
	return EXIT_ERROR;
}
