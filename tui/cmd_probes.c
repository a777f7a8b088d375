/* cmd_probes — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_probes(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'probes' is not available in this build yet\n");
	return EXIT_ERROR;
}
