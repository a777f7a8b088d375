/* cmd_step — validate (and, once the executor lands, run) one step spec. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "cmd.h"
#include "step.h"

static void step_usage(FILE *out)
{
	fprintf(out,
		"usage: argus step --check FILE|-\n"
		"  --check   parse and validate the spec against this kernel; print it with its\n"
		"            targets resolved (globs expanded), or the first error by field\n");
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap), *nb;

	while (buf) {
		size_t r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
		if (r == 0)
			break;
		if (n + 1 >= cap) {
			if (cap >= (1u << 24)) /* a spec is small; refuse a flood */
				break;
			nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
	}
	if (buf)
		buf[n] = 0;
	*len = n;
	return buf;
}

int cmd_step(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int check = 0, opt, rc = EXIT_ERROR;
	const char *path;
	struct step *s = NULL;
	struct step_error e;
	char *text = NULL, *json = NULL;
	size_t len = 0;
	FILE *f;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': check = 1; break;
		case 'h': step_usage(stdout); return EXIT_OK;
		default: step_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		step_usage(stderr);
		return EXIT_USAGE;
	}
	if (!check) {
		fprintf(stderr, "argus step: running steps is not built yet; 'argus step --check FILE' validates one\n");
		return EXIT_ERROR;
	}
	path = argv[optind];
	f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "argus step: cannot open %s: %s\n", path, strerror(errno));
		return EXIT_ERROR;
	}
	text = read_all(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		fprintf(stderr, "argus step: cannot read %s: out of memory\n", path);
		return EXIT_ERROR;
	}
	if (step_parse_json(text, len, &s, &e)) {
		if (e.line)
			fprintf(stderr, "argus step: %s:%d:%d: %s\n", path, e.line, e.col, e.msg);
		else
			fprintf(stderr, "argus step: %s: %s%s%s\n", path, e.field, *e.field ? ": " : "", e.msg);
		goto out;
	}
	if (step_validate(s, caps_cached(), NULL, &e)) {
		fprintf(stderr, "argus step: %s: %s: %s\n", path, e.field, e.msg);
		rc = strstr(e.msg, "not available on this kernel") ? EXIT_KERNEL : EXIT_ERROR;
		goto out;
	}
	json = step_to_json(s);
	if (!json)
		goto out;
	printf("%s\n", json);
	for (unsigned i = 0; i < s->nresolved; i++)
		printf("resolved: %s\n", s->resolved[i]);
	rc = EXIT_OK;
out:
	free(json);
	free(text);
	step_free(s);
	caps_cached_free();
	return rc;
}
