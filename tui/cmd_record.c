/* cmd_record — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'record' is not available in this build yet\n");
	return EXIT_ERROR;
}
