/* opts_load — load and window options in one table (see opts_load.h). */
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/num.h"
#include "opts_load.h"
#include "analysis/seqstop.h"

enum opts_load_id {
	OL_DASHDASH,
	OL_LOAD, OL_VICTIM, OL_VICTIM_PID, OL_BACKGROUND, OL_PID, OL_PAUSE, OL_REFERENCE,
	OL_STRICT,
	OL_PAIRS, OL_MIN_PAIRS, OL_FIXED, OL_WINDOW, OL_SETTLE, OL_WARMUP, OL_FREQ, OL_TIME, OL_TIME_BUDGET,
	OL_KERNEL_ONLY, OL_STEADY, OL_TOLERANCE, OL_MARK,
};

static const struct opt opts_load_table[] = {
	{ OL_LOAD, "--load", NULL, "CMD",
	  "start CMD as the load; paused in the reference windows (also: -- CMD ARGS)" },
	{ OL_VICTIM, "--victim", NULL, "CMD",
	  "start CMD as the victim: sampling is filtered to it, it runs in both conditions" },
	{ OL_VICTIM_PID, "--victim-pid", NULL, "PID",
	  "a running process as the victim" },
	{ OL_BACKGROUND, "--background", NULL, "CMD",
	  "start CMD as a background load that runs in both conditions" },
	{ OL_PID, "--pid", "-p", "PID",
	  "a running load; compared with a saved reference unless --pause" },
	{ OL_PAUSE, "--pause", NULL, NULL,
	  "with -p: pause PID (SIGSTOP/SIGCONT) for the reference windows" },
	{ OL_REFERENCE, "--reference", NULL, "FILE",
	  "saved reference for -p (default: the one 'argus reference save' wrote)" },
	{ OL_STRICT, "--strict", NULL, NULL,
	  "with -p and a saved reference: refuse one whose scope is not the loaded windows' "
	  "(system-wide); without it a warning" },
	{ OL_PAIRS, "--pairs", NULL, "K",
	  "at most K reference/loaded window pairs: measuring stops earlier when the "
	  "verdict is settled (default 12, and no more than 8.5 s of measuring unless K is "
	  "given); with --fixed exactly K (default 6)" },
	{ OL_MIN_PAIRS, "--min-pairs", NULL, "K",
	  "at least K pairs before measuring may stop (default 2)" },
	{ OL_FIXED, "--fixed", NULL, NULL,
	  "measure exactly --pairs pairs with the fixed-sample test (no sequential stopping, "
	  "no adaptive windows)" },
	{ OL_WINDOW, "--window", NULL, "S",
	  "seconds per window (default 0.5; after the first pair adapted to the event rate "
	  "unless given)" },
	{ OL_SETTLE, "--settle", NULL, "S",
	  "seconds discarded after each switch (default 0.1; after the first pair adapted to "
	  "how fast the load resumes unless given)" },
	{ OL_WARMUP, "--warmup", NULL, "S",
	  "at most S seconds a started load runs unmeasured before the first window, until "
	  "no new program starts in it (default 2; 0: none)" },
	{ OL_FREQ, "--freq", NULL, "HZ",
	  "sampling frequency (default 999)" },
	{ OL_TIME, "--time", NULL, "KIND",
	  "wall: on-CPU + blocked + runnable time of the victim (default with --victim), "
	  "or of the load / -p; cpu: on-CPU samples only" },
	{ OL_TIME_BUDGET, "--time-budget", NULL, "PCT",
	  "with --time wall: the scheduler-time programs' budget, % of one CPU (default 5); "
	  "over it they watch only the end of each window, the rest scaled from it "
	  "(0: watch all the time)" },
	{ OL_KERNEL_ONLY, "--kernel-only", NULL, NULL,
	  "kernel stacks only: the measurement takes no user-space stacks, so has no call "
	  "sites of its own (a step still takes them)" },
	{ OL_STEADY, "--steady", NULL, NULL,
	  "the model of the load (m) from the steady state only: the longest run of loaded "
	  "windows whose rates agree (needs --time wall; the tree keeps every window)" },
	{ OL_TOLERANCE, "--tolerance", NULL, "F",
	  "with --steady: the relative spread of the rates allowed (default 0.2)" },
	{ OL_MARK, "--mark", NULL, "RE",
	  "the model of the load (m) from the loaded windows between the first and the next "
	  "line of the load's output matching the extended regex RE (needs --time wall)" },
	/* opt_next returns "--" itself (OPT_DASHDASH): listed for --help */
	{ OL_DASHDASH, "--", NULL, "CMD ARGS", "the load, as argv (instead of --load)" },
};

const struct opt_group opts_load_group = OPT_GROUP("load options", opts_load_table);

void opts_load_init(struct opts_load *ol)
{
	memset(ol, 0, sizeof(*ol));
	measure_opts_default(&ol->m);
	ol->m.sequential = 1; /* --fixed turns it off */
}

void opts_load_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

char **opts_load_split(const char *cmd)
{
	static const char shell_chars[] = "|&;<>()$`\\\"'*?[#~={}%!";
	size_t n = 0, cap = 8;
	char **argv;
	const char *p = cmd;

	if (!cmd || !*cmd)
		return NULL;
	if (strpbrk(cmd, shell_chars)) {
		argv = calloc(4, sizeof(*argv));
		if (!argv)
			return NULL;
		argv[0] = strdup("/bin/sh");
		argv[1] = strdup("-c");
		argv[2] = strdup(cmd);
		if (!argv[0] || !argv[1] || !argv[2]) {
			opts_load_argv_free(argv);
			return NULL;
		}
		return argv;
	}
	argv = calloc(cap, sizeof(*argv));
	if (!argv)
		return NULL;
	while (*p) {
		size_t len;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		for (len = 0; p[len] && !isspace((unsigned char)p[len]); len++)
			;
		if (n + 2 > cap) {
			char **a = realloc(argv, 2 * cap * sizeof(*a));

			if (!a) {
				opts_load_argv_free(argv);
				return NULL;
			}
			argv = a;
			cap *= 2;
		}
		argv[n] = strndup(p, len);
		if (!argv[n]) {
			opts_load_argv_free(argv);
			return NULL;
		}
		argv[++n] = NULL;
		p += len;
	}
	if (!n) {
		free(argv);
		return NULL;
	}
	return argv;
}

/* Every number goes through core/base/num.c: finite, in range, the unit said. */
static int opts_load_num(const char *name, const char *val, double min, double max,
			 const char *unit, double *out, FILE *err)
{
	char *cause = NULL;

	if (num_parse_double(val, min, max, unit, out, &cause) < 0) {
		fprintf(err, "argus: %s: %s\n", name, cause ? cause : "bad number");
		free(cause);
		return -1;
	}
	return 0;
}

static int opts_load_uint(const char *name, const char *val, unsigned min, unsigned max,
			  const char *unit, unsigned *out, FILE *err)
{
	char *cause = NULL;

	if (num_parse_uint(val, min, max, unit, out, &cause) < 0) {
		fprintf(err, "argus: %s: %s\n", name, cause ? cause : "bad number");
		free(cause);
		return -1;
	}
	return 0;
}

static int opts_load_pid(const char *name, const char *val, pid_t *out, FILE *err)
{
	unsigned v;

	if (opts_load_uint(name, val, 1, 4194304, "a process ID", &v, err) < 0)
		return -1;
	/* said first: a dead PID is not a missing reference or a BPF error */
	if (kill((pid_t)v, 0) < 0 && errno == ESRCH) {
		fprintf(err, "argus: %s %u: no such process (it has exited, or the PID is "
			"wrong); check with ps\n", name, v);
		return -1;
	}
	*out = (pid_t)v;
	return 0;
}

/* Stores the argv of a CMD option; one slot per role. */
static int opts_load_cmd(struct opts_load *ol, int slot, const char *name, const char *val,
			 char ***dst, FILE *err)
{
	char **argv = opts_load_split(val);

	if (!argv) {
		fprintf(err, "argus: %s: empty command\n", name);
		return -1;
	}
	if (*dst) {
		opts_load_argv_free(argv);
		fprintf(err, "argus: %s given twice\n", name);
		return -1;
	}
	opts_load_argv_free(ol->own[slot]);
	ol->own[slot] = argv;
	*dst = argv;
	return 0;
}

int opts_load_dashdash(struct opts_load *ol, int argc, char **argv, int i, FILE *err)
{
	if (i >= argc) {
		fprintf(err, "argus: '--' must be followed by a command\n");
		return -1;
	}
	if (ol->m.load_argv) {
		fprintf(err, "argus: a load is given twice (--load and -- CMD)\n");
		return -1;
	}
	ol->m.load_argv = argv + i;
	free(ol->load_cmd);
	ol->load_cmd = strdup(argv[i]);
	return 0;
}

int opts_load_apply(struct opts_load *ol, const struct opt_hit *h, FILE *err)
{
	const char *typed = h->as, *val = h->val;
	double d;

	switch ((enum opts_load_id)h->o->id) {
	case OL_LOAD:
		if (opts_load_cmd(ol, 0, typed, val, &ol->m.load_argv, err) < 0)
			return -1;
		free(ol->load_cmd);
		ol->load_cmd = strdup(val);
		return 0;
	case OL_VICTIM:
		if (opts_load_cmd(ol, 1, typed, val, &ol->m.victim_argv, err) < 0)
			return -1;
		free(ol->victim_cmd);
		ol->victim_cmd = strdup(val);
		return 0;
	case OL_BACKGROUND:
		return opts_load_cmd(ol, 2, typed, val, &ol->m.background_argv, err) < 0 ? -1 : 0;
	case OL_VICTIM_PID:
		return opts_load_pid(typed, val, &ol->m.victim_pid, err) < 0 ? -1 : 0;
	case OL_PID:
		return opts_load_pid(typed, val, &ol->m.pid, err) < 0 ? -1 : 0;
	case OL_PAUSE:
		ol->m.pause = 1;
		return 0;
	case OL_REFERENCE:
		ol->m.reference_path = val;
		return 0;
	case OL_STRICT:
		ol->m.strict = 1;
		return 0;
	case OL_PAIRS:
		if (opts_load_uint(typed, val, 1, MEASURE_PAIRS_MAX, "pairs", &ol->m.pairs, err) < 0)
			return -1;
		ol->pairs_given = 1;
		return 0;
	case OL_MIN_PAIRS:
		if (opts_load_uint(typed, val, 1, MEASURE_PAIRS_MAX, "pairs", &ol->m.min_pairs,
				   err) < 0)
			return -1;
		ol->min_pairs_given = 1;
		return 0;
	case OL_FIXED:
		ol->m.sequential = 0;
		return 0;
	case OL_WINDOW:
		if (opts_load_num(typed, val, MEASURE_WINDOW_MIN_S, MEASURE_WINDOW_MAX_S, "seconds",
				  &d, err) < 0)
			return -1;
		ol->m.window_s = d;
		ol->window_given = 1;
		return 0;
	case OL_SETTLE:
		if (opts_load_num(typed, val, 0, MEASURE_SETTLE_MAX_S, "seconds", &d, err) < 0)
			return -1;
		ol->m.settle_s = d;
		ol->settle_given = 1;
		return 0;
	case OL_WARMUP:
		if (opts_load_num(typed, val, 0, MEASURE_WARMUP_MAX_S, "seconds", &d, err) < 0)
			return -1;
		ol->m.warmup_s = d;
		return 0;
	case OL_FREQ:
		return opts_load_uint(typed, val, 1, MEASURE_FREQ_MAX_HZ, "Hz", &ol->m.freq_hz,
				      err) < 0 ? -1 : 0;
	case OL_TIME:
		if (!strcmp(val, "wall")) {
			ol->m.time = MEASURE_TIME_WALL;
		} else if (!strcmp(val, "cpu")) {
			ol->m.time = MEASURE_TIME_CPU;
		} else {
			fprintf(err, "argus: --time: '%s' is neither wall nor cpu\n", val);
			return -1;
		}
		return 0;
	case OL_TIME_BUDGET:
		if (opts_load_num(typed, val, 0, 1000, "percent of one CPU", &d, err) < 0)
			return -1;
		ol->m.time_budget_pct = d > 0 ? d : -1;
		return 0;
	case OL_KERNEL_ONLY:
		ol->m.kernel_only = 1;
		return 0;
	case OL_STEADY:
		ol->m.model_steady = 1;
		return 0;
	case OL_TOLERANCE:
		if (opts_load_num(typed, val, 0.001, 9.99, "a fraction", &d, err) < 0)
			return -1;
		ol->m.model_tol = d;
		return 0;
	case OL_MARK:
		ol->m.model_mark = val;
		return 0;
	case OL_DASHDASH:
		break;
	}
	return 0;
}

int opts_load_finish(struct opts_load *ol, int need_load, FILE *err)
{
	struct measure_opts *m = &ol->m;

	if (!m->sequential) {
		if (ol->min_pairs_given) {
			fprintf(err, "argus: --min-pairs is for sequential measuring; with --fixed "
				"give the count with --pairs\n");
			return -1;
		}
		if (!ol->pairs_given)
			m->pairs = MEASURE_DEFAULT_PAIRS;
		m->adapt_window = m->adapt_settle = 0;
	} else {
		if (!ol->pairs_given) {
			m->pairs = SEQSTOP_DEFAULT_MAX_PAIRS;
			/* no verdict later than ~10 s; --pairs asks for more */
			m->deadline_s = SEQSTOP_DEFAULT_DEADLINE_S;
		}
		if (!ol->min_pairs_given && m->min_pairs > m->pairs)
			m->min_pairs = m->pairs; /* --pairs 1: one pair, as asked */
		m->adapt_window = !ol->window_given;
		m->adapt_settle = !ol->settle_given;
		if (m->min_pairs > m->pairs) {
			fprintf(err, "argus: --min-pairs %u is more than --pairs %u (the maximum); "
				"lower it or raise --pairs\n", m->min_pairs, m->pairs);
			return -1;
		}
	}

	if (m->load_argv && m->pid) {
		fprintf(err, "argus: --load (or -- CMD) and -p are two loads; give one\n");
		return -1;
	}
	if (m->victim_argv && m->victim_pid) {
		fprintf(err, "argus: --victim and --victim-pid both name a victim; give one\n");
		return -1;
	}
	if (m->pause && !m->pid) {
		fprintf(err, "argus: --pause goes with -p PID\n");
		return -1;
	}
	if (m->reference_path && !m->pid) {
		fprintf(err, "argus: --reference is for -p PID without --pause "
			"(other loads are paused for the reference)\n");
		return -1;
	}
	if (m->reference_path && m->pause) {
		fprintf(err, "argus: --reference and --pause: give one way to get the reference\n");
		return -1;
	}
	if ((m->victim_argv || m->victim_pid) && !m->load_argv && !(m->pid && m->pause)) {
		fprintf(err, "argus: a victim needs a load to pause: add --load CMD, or -p PID --pause\n");
		return -1;
	}
	if (m->time == MEASURE_TIME_WALL && m->pid && !m->pause && !m->victim_argv &&
	    !m->victim_pid) {
		fprintf(err, "argus: --time wall with -p needs --pause (a saved reference has no "
			"blocked or runnable time)\n");
		return -1;
	}
	if (need_load && !m->load_argv && !m->pid) {
		fprintf(err, "argus: nothing to compare: give the load with --load CMD, -- CMD or -p PID\n");
		return -1;
	}
	if (m->model_tol > 0 && !m->model_steady) {
		fprintf(err, "argus: --tolerance goes with --steady\n");
		return -1;
	}
	{
		char *cause = NULL;

		if (measure_opts_check_model(m, &cause) < 0) {
			fprintf(err, "argus: %s\n", cause ? cause : "bad --steady/--mark");
			free(cause);
			return -1;
		}
	}
	return 0;
}

void opts_load_free(struct opts_load *ol)
{
	if (!ol)
		return;
	for (int i = 0; i < 3; i++)
		opts_load_argv_free(ol->own[i]);
	free(ol->load_cmd);
	free(ol->victim_cmd);
	memset(ol, 0, sizeof(*ol));
}

/* cmd without the directory of its program: "/opt/x/bin/app -v" -> "app -v";
 * a shell line whose first word has no '/' as it is. */
static const char *opts_load_short(const char *cmd)
{
	const char *end, *slash = NULL;

	if (!cmd)
		return "?";
	end = cmd + strcspn(cmd, " \t");
	for (const char *c = cmd; c < end; c++)
		if (*c == '/')
			slash = c;
	return slash && slash + 1 < end ? slash + 1 : cmd;
}

char *opts_load_title(const struct opts_load *ol, char *buf, size_t len)
{
	const struct measure_opts *m = &ol->m;
	char victim[64], load[64];

	if (!len)
		return buf;
	if (m->victim_argv || m->victim_pid) {
		if (m->victim_argv)
			snprintf(victim, sizeof(victim), "%s", opts_load_short(ol->victim_cmd));
		else
			snprintf(victim, sizeof(victim), "PID %d", (int)m->victim_pid);
		if (ol->load_cmd)
			snprintf(load, sizeof(load), "%s", opts_load_short(ol->load_cmd));
		else if (m->pid)
			snprintf(load, sizeof(load), "PID %d", (int)m->pid);
		else
			snprintf(load, sizeof(load), "none");
		/* what is diagnosed first: the load is what argus pauses */
		snprintf(buf, len, "victim: %s  (load paused in ref: %s)", victim, load);
		return buf;
	}
	snprintf(buf, len, "argus %s%s", ol->load_cmd ? "--load " : "",
		 ol->load_cmd ? ol->load_cmd : m->pid ? "-p --pause" : "");
	return buf;
}
