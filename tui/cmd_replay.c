/* cmd_replay — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_replay(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'replay' is not available in this build yet\n");
	return EXIT_ERROR;
}
