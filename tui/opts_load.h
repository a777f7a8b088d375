/* opts_load — the load and window options shared by the interactive argus
 * and `argus diagnose` / `argus reference save` (one table: parsing, --help
 * and the man page's LOAD OPTIONS come from it).
 *
 * Usage, in a command's option loop (tui/opt.h), opts_load_group among
 * its groups:
 *
 *	struct opts_load ol;
 *	opts_load_init(&ol);
 *	while ((r = opt_next(&p, argc, argv, &i, &h)) != OPT_END) {
 *		if (r == OPT_DASHDASH) { opts_load_dashdash(&ol, argc, argv, i, stderr); break; }
 *		if (h.group == &opts_load_group) opts_load_apply(&ol, &h, stderr);
 *		... the command's own options ...
 *	}
 *	if (opts_load_finish(&ol, stderr) < 0) usage error;
 *	measure_new(&ol.m, ...);            // ol.m is a filled measure_opts
 *	opts_load_free(&ol);                // after the source is freed
 */
#ifndef ARGUS_OPTS_LOAD_H
#define ARGUS_OPTS_LOAD_H

#include <stdio.h>

#include "measure/measure.h"
#include "opt.h"

struct opts_load {
	struct measure_opts m;   /* defaults from measure_opts_default */
	char *load_cmd;          /* the load as the user gave it, for messages */
	char *victim_cmd;        /* --victim CMD as given, for the title */
	int pairs_given, window_given, settle_given, min_pairs_given;
	/* private: argv arrays built from CMD strings, owned */
	char **own[3];
};

/* Defaults (measure_opts_default). */
void opts_load_init(struct opts_load *ol);

/* The load and window options (the table --help, the parser and the man
 * page's LOAD OPTIONS go by). */
extern const struct opt_group opts_load_group;

/* A load option opt_next read (h->group is opts_load_group) into ol: 0, or
 * -1 after writing a message to err (a bad value: a usage error). */
int opts_load_apply(struct opts_load *ol, const struct opt_hit *h, FILE *err);

/* After "--" (opt_next's OPT_DASHDASH): argv[i..] is the load's command.
 * 0, or -1 with a message on err (nothing after "--", a load given twice). */
int opts_load_dashdash(struct opts_load *ol, int argc, char **argv, int i, FILE *err);

/* Consistency checks after parsing (e.g. --pause without -p); 0 or -1 with a
 * message on err. need_load: a load (--load, -- CMD or -p) is required. */
int opts_load_finish(struct opts_load *ol, int need_load, FILE *err);


/* The interactive argus's title for a calibrated run that pauses its load
 * (not -p against a saved reference, whose title names the scopes).  With
 * a victim it names what is diagnosed, then the load, in an aside the
 * header drops first when short of room (fmt_header):
 * "victim: app --x  (load paused in ref: stress)"; otherwise "argus --load
 * CMD" or "argus -p --pause".  A program's directory is left out of both
 * commands (the header's room is for which program it is).  Returns buf. */
char *opts_load_title(const struct opts_load *ol, char *buf, size_t len);

/* Frees what ol owns; ol.m's argv pointers die with it. */
void opts_load_free(struct opts_load *ol);

/* Splits a CMD string: plain words are split on blanks and run directly; a
 * string with shell syntax runs as /bin/sh -c CMD.  NULL-terminated, caller
 * frees the array and its strings (opts_load_argv_free). */
char **opts_load_split(const char *cmd);
void opts_load_argv_free(char **argv);

#endif
