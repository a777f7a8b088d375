/* cmd_step — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_step(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'step' is not available in this build yet\n");
	return EXIT_ERROR;
}
