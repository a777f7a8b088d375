/* opts_push — push options (see opts_push.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opts_push.h"

static const struct {
	const char *name, *arg, *help;
	int every_only;
} opts_push_table[] = {
	{ "--push", "URL", "send the profile (pprof) to a Pyroscope or Parca server", 0 },
	{ "--every", "S", "with --push: keep sampling, push each S seconds' samples", 1 },
	{ "--labels", "K=V,...", "series labels for --push (host=<nodename> is added)", 0 },
	{ "--app", "NAME", "application and service_name (Pyroscope) / __name__ (Parca);\n"
	  "                     default the program's name (the load, -p, -- CMD), else argus", 0 },
	{ "--tenant", "ID", "X-Scope-OrgID header (default $ARGUS_PUSH_TENANT)", 0 },
	{ "--push-timeout", "S", "one push request's time limit (default 10)", 0 },
	{ "--push-wait", "S", "at the end, how long queued pushes may take (default 30, record 15)", 0 },
};
#define OPTS_PUSH_N (sizeof(opts_push_table) / sizeof(opts_push_table[0]))

void opts_push_init(struct opts_push *op)
{
	memset(op, 0, sizeof(*op));
	op->tenant = getenv("ARGUS_PUSH_TENANT");
	if (op->tenant && !*op->tenant)
		op->tenant = NULL;
}

size_t opts_push_names(const char **out, size_t max, int with_every)
{
	size_t n = 0;

	for (size_t k = 0; k < OPTS_PUSH_N; k++) {
		if (opts_push_table[k].every_only && !with_every)
			continue;
		if (n < max)
			out[n] = opts_push_table[k].name;
		n++;
	}
	return n;
}

void opts_push_help(FILE *out, int with_every)
{
	for (size_t k = 0; k < OPTS_PUSH_N; k++) {
		char left[32];

		if (opts_push_table[k].every_only && !with_every)
			continue;
		snprintf(left, sizeof(left), "%s %s", opts_push_table[k].name, opts_push_table[k].arg);
		fprintf(out, "  %-18s %s\n", left, opts_push_table[k].help);
	}
}

int opts_push_parse(struct opts_push *op, int argc, char **argv, int *i, int with_every,
		    FILE *err)
{
	const char *a = argv[*i], *val = NULL;
	size_t k;

	for (k = 0; k < OPTS_PUSH_N; k++) {
		size_t n = strlen(opts_push_table[k].name);

		if (!strcmp(a, opts_push_table[k].name))
			break;
		if (!strncmp(a, opts_push_table[k].name, n) && a[n] == '=') {
			val = a + n + 1;
			break;
		}
	}
	if (k == OPTS_PUSH_N)
		return 0;
	if (opts_push_table[k].every_only && !with_every)
		return 0;
	if (!val) {
		if (*i + 1 >= argc) {
			fprintf(err, "argus: %s needs a value (%s)\n", a, opts_push_table[k].arg);
			return -1;
		}
		val = argv[++*i];
	}
	++*i;
	return opts_push_set(op, opts_push_table[k].name + 2, val, err) ? -1 : 1;
}

int opts_push_set(struct opts_push *op, const char *name, const char *val, FILE *err)
{
	if (!strcmp(name, "push")) {
		op->url = val;
	} else if (!strcmp(name, "every")) {
		char *end;
		double s = strtod(val, &end);

		if (end == val || *end || !(s >= 1) || !isfinite(s) || s > 86400) {
			fprintf(err, "argus: bad --every '%s': give seconds, 1 to 86400\n", val);
			return -1;
		}
		op->every_s = s;
	} else if (!strcmp(name, "labels")) {
		op->labels = val;
	} else if (!strcmp(name, "app")) {
		op->app = val;
	} else if (!strcmp(name, "tenant")) {
		op->tenant = val;
	} else if (!strcmp(name, "push-timeout") || !strcmp(name, "push-wait")) {
		char *end;
		double s = strtod(val, &end);

		if (end == val || *end || !(s > 0) || !isfinite(s) || s > 3600) {
			fprintf(err, "argus: bad --%s '%s': give seconds, up to 3600\n", name, val);
			return -1;
		}
		if (name[5] == 't')
			op->timeout_s = s;
		else
			op->wait_s = s;
	} else {
		fprintf(err, "argus: --%s is no push option\n", name);
		return -1;
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
