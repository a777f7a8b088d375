/* opts_push — push options (see opts_push.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opts_push.h"

enum opts_push_id { OP_PUSH, OP_EVERY, OP_LABELS, OP_APP, OP_TENANT, OP_TIMEOUT, OP_WAIT };

static const struct opt opts_push_table[] = {
	{ OP_PUSH, "--push", NULL, "URL", "send the profile (pprof) to a Pyroscope or Parca server" },
	{ OP_LABELS, "--labels", NULL, "K=V,...", "series labels for --push (host=<nodename> is added)" },
	{ OP_APP, "--app", NULL, "NAME", "application and service_name (Pyroscope) / __name__ "
	  "(Parca); default the program's name (the load, -p, -- CMD), else argus" },
	{ OP_TENANT, "--tenant", NULL, "ID", "X-Scope-OrgID header (default $ARGUS_PUSH_TENANT)" },
	{ OP_TIMEOUT, "--push-timeout", NULL, "S", "one push request's time limit (default 10)" },
	{ OP_WAIT, "--push-wait", NULL, "S",
	  "at the end, how long queued pushes may take (default 30, record 15)" },
};

static const struct opt opts_push_every_table[] = {
	{ OP_EVERY, "--every", NULL, "S", "with --push: keep sampling, push each S seconds' samples" },
};

const struct opt_group opts_push_group = OPT_GROUP("push options", opts_push_table);
const struct opt_group opts_push_every_group = OPT_GROUP(NULL, opts_push_every_table);

void opts_push_init(struct opts_push *op)
{
	memset(op, 0, sizeof(*op));
	op->tenant = getenv("ARGUS_PUSH_TENANT");
	if (op->tenant && !*op->tenant)
		op->tenant = NULL;
}

int opts_push_apply(struct opts_push *op, const struct opt_hit *h, FILE *err)
{
	const char *val = h->val;
	double sec;
	char *end;

	switch ((enum opts_push_id)h->o->id) {
	case OP_PUSH:
		op->url = val;
		return 0;
	case OP_LABELS:
		op->labels = val;
		return 0;
	case OP_APP:
		op->app = val;
		return 0;
	case OP_TENANT:
		op->tenant = val;
		return 0;
	case OP_EVERY:
		sec = strtod(val, &end);
		if (end == val || *end || !(sec >= 1) || !isfinite(sec) || sec > 86400) {
			fprintf(err, "argus: bad --every '%s': give seconds, 1 to 86400\n", val);
			return -1;
		}
		op->every_s = sec;
		return 0;
	case OP_TIMEOUT:
	case OP_WAIT:
		sec = strtod(val, &end);
		if (end == val || *end || !(sec > 0) || !isfinite(sec) || sec > 3600) {
			fprintf(err, "argus: bad %s '%s': give seconds, up to 3600\n", h->o->name, val);
			return -1;
		}
		if (h->o->id == OP_TIMEOUT)
			op->timeout_s = sec;
		else
			op->wait_s = sec;
		return 0;
	}
	return 0;
}

static void opts_push_log(void *arg, const char *msg)
{
	fprintf((FILE *)arg, "argus: push: %s\n", msg);
}

struct push *opts_push_new(const struct opts_push *op, unsigned freq_hz, FILE *log)
{
	struct push_opts po = {
		.url = op->url, .app = op->app, .labels = op->labels, .tenant = op->tenant,
		.freq_hz = freq_hz, .log = opts_push_log, .log_arg = log,
		.timeout_ms = (unsigned)(op->timeout_s * 1000),
	};
	char *cause = NULL;
	struct push *ps = push_new(&po, &cause);

	if (!ps)
		fprintf(log, "argus: push: %s\n", cause ? cause : strerror(errno));
	free(cause);
	return ps;
}

void opts_push_report(const struct push *ps, FILE *out)
{
	struct push_stats st;

	push_get_stats(ps, &st);
	fprintf(out, "argus: push to %s (%s): %llu profile%s sent (%llu samples), %llu retr%s; "
		"dropped %llu (%llu samples), rejected %llu (%llu samples), unconfirmed %llu (%llu samples)\n",
		push_endpoint(ps), push_target_of(ps) == PUSH_PARCA ? "parca" : "pyroscope",
		(unsigned long long)st.sent, st.sent == 1 ? "" : "s",
		(unsigned long long)st.samples_sent, (unsigned long long)st.retries,
		st.retries == 1 ? "y" : "ies", (unsigned long long)st.dropped,
		(unsigned long long)st.samples_dropped, (unsigned long long)st.rejected,
		(unsigned long long)st.samples_rejected, (unsigned long long)st.unconfirmed,
		(unsigned long long)st.samples_unconfirmed);
}
