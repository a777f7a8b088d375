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

#include "opt.h"
#include "output/push.h"

struct opts_push {
	const char *url;          /* NULL: no push */
	double every_s;           /* 0: once, at the end */
	const char *labels, *app, *tenant;
	double timeout_s;         /* 0: PUSH_DEF_TIMEOUT_MS */
	double wait_s;            /* 0: the command's default */
};

void opts_push_init(struct opts_push *op);

/* The push options (tui/opt.h); --every, record's only, apart. */
extern const struct opt_group opts_push_group, opts_push_every_group;

/* A push option opt_next read into op: 0, or -1 after a message on err. */
int opts_push_apply(struct opts_push *op, const struct opt_hit *h, FILE *err);

/* The push client op asks for, its failures logged to log as
 * "argus: push: ..." lines; NULL with the reason on log. */
struct push *opts_push_new(const struct opts_push *op, unsigned freq_hz, FILE *log);

/* One summary line on out: sent, retried, dropped ... (exact counts). */
void opts_push_report(const struct push *ps, FILE *out);

#endif
