/* cmd_diagnose — not built yet. */
#include <stdio.h>

#include "cmd.h"

int cmd_diagnose(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "argus: 'diagnose' is not available in this build yet\n");
	return EXIT_ERROR;
}
