/* cmd_tui — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_tui(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'tui' is not available in this build yet\n");
	return EXIT_ERROR;
}
