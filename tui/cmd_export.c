/* cmd_export — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'export' is not available in this build yet\n");
	return EXIT_ERROR;
}
