/* opts_push — the push options of `argus record` and `argus export` (one
 * table: parsing, --help and the man page's PUSH OPTIONS):
 *
 *   --push URL        a Pyroscope or Parca server (core/output/push.h)
 *   --every S         record: push every S seconds while sampling
 *   --labels k=v,...  series labels (host=<nodename> added unless given)
 *   --app NAME        application / __name__ and service_name (default the
 *                     program's name, else argus)
 *   --tenant ID       X-Scope-OrgID header (default $ARGUS_PUSH_TENANT)
 *   --push-timeout S  one request's time limit (default 10 s)
 *   --push-wait S     at the end, how long the queue may take to empty
 */
#ifndef ARGUS_OPTS_PUSH_H
#define ARGUS_OPTS_PUSH_H

#include <stdio.h>

#include "output/push.h"

struct opts_push {
	const char *url;          /* NULL: no push */
	double every_s;           /* 0: once, at the end */
	const char *labels, *app, *tenant;
	double timeout_s;         /* 0: PUSH_DEF_TIMEOUT_MS */
	double wait_s;            /* 0: the command's default */
};

void opts_push_init(struct opts_push *op);

/* 1 consumed argv[*i] (and its value; *i advanced past them), 0 not a push
 * option, -1 usage error (message on err).  with_every: --every allowed. */
int opts_push_parse(struct opts_push *op, int argc, char **argv, int *i, int with_every,
		    FILE *err);

/* Sets option name (without the leading "--": "push", "every", ...) to
 * val, for getopt users.  0, or -1 with a message on err (also for a name
 * that is no push option). */
int opts_push_set(struct opts_push *op, const char *name, const char *val, FILE *err);

/* The long names of the push options into out (at most max; with_every:
 * --every too), for an unknown option's "did you mean"; returns how many
 * there are. */
size_t opts_push_names(const char **out, size_t max, int with_every);

/* The options' help lines (with_every: --every too). */
void opts_push_help(FILE *out, int with_every);

/* The push client op asks for, its failures logged to log as
 * "argus: push: ..." lines; NULL with the reason on log. */
struct push *opts_push_new(const struct opts_push *op, unsigned freq_hz, FILE *log);

/* One summary line on out: sent, retried, dropped ... (exact counts). */
void opts_push_report(const struct push *ps, FILE *out);

#endif
