/* cmd_reference — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_reference(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'reference' is not available in this build yet\n");
	return EXIT_ERROR;
}
