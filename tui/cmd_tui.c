/* cmd_tui — `argus [options] [-- CMD ARGS]`: the interactive tree over live
 * sampling (system-wide, one process, or a command argus starts).
 *
 * Options live in one table (tui_options) that the parser, --help and the
 * man page text come from; the load options of a calibrated measurement are
 * to be added beside it (opts_load). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <locale.h>

#include "app.h"
#include "cmd.h"
#include "opts_agent.h"
#include "probe.h"
#include "probe_profile.h"
#include "source_live.h"
#include "source_static.h"
#include "theme.h"
#include "view_keys.h"

enum tui_opt_id {
	OPT_FREQ,
	OPT_PID,
	OPT_THEME,
	OPT_ASCII,
	OPT_THRESHOLD,
	OPT_LOG,
	OPT_KEYS,
	OPT_HELP,
	OPT_STATIC,
};

struct tui_option {
	enum tui_opt_id id;
	char shrt;                /* 0: none */
	const char *lng;
	const char *arg;          /* NULL: a flag */
	const char *help;
	int hidden;               /* not in --help (test fixtures) */
};

static const struct tui_option tui_options[] = {
	{ OPT_FREQ, 'F', "freq", "HZ", "samples per second per CPU (default 999)", 0 },
	{ OPT_PID, 'p', "pid", "PID", "only this process and its children (repeatable)", 0 },
	{ OPT_THEME, 0, "theme", "NAME|PATH",
	  "color theme: default, light, high-contrast, mono, or a file", 0 },
	{ OPT_ASCII, 0, "ascii", NULL, "ASCII line drawing even in a UTF-8 locale", 0 },
	{ OPT_THRESHOLD, 0, "threshold", "PCT",
	  "hide nodes below PCT% of all samples (default 0.1)", 0 },
	{ OPT_LOG, 'v', "log", "FILE", "write log messages (libbpf's included) to FILE", 0 },
	{ OPT_KEYS, 0, "keys", NULL, "print the key bindings and exit", 0 },
	{ OPT_HELP, 'h', "help", NULL, "this help", 0 },
	{ OPT_STATIC, 0, "static", "FILE[,FILE...]",
	  "browse folded stacks (one file; or ref,load,... alternating), no privileges", 1 },
};

#define NOPTS (sizeof(tui_options) / sizeof(tui_options[0]))
#define TUI_MAX_PIDS 64

static void tui_usage(FILE *out)
{
	fprintf(out, "usage: argus [options] [-- CMD ARGS]\n\n"
		"The interactive calling-context tree of the kernel, refreshed each second.\n"
		"System-wide by default; -p or -- CMD narrow it to processes.\n\n");
	for (size_t i = 0; i < NOPTS; i++) {
		const struct tui_option *o = &tui_options[i];
		char left[64];

		if (o->hidden)
			continue;
		snprintf(left, sizeof(left), "%s%c%s--%s%s%s", o->shrt ? "-" : " ",
			 o->shrt ? o->shrt : ' ', o->shrt ? ", " : "  ", o->lng,
			 o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
	opts_agent_help(out);
	fprintf(out, "  %-24s %s\n", "-- CMD ARGS",
		"run CMD and sample only it and its children; ended on quit");
	fprintf(out, "\nkeys ('?' in the tree shows them too):\n");
	key_print(out);
	fprintf(out, "\nNeeds root, or CAP_BPF and CAP_PERFMON.  NO_COLOR=1 for no colors.\n"
		"Exit status: 0 ok, 1 error, 2 usage, 3 privileges, 4 kernel, 127 CMD not run.\n");
}

/* Matches argv[*i] against the table; returns the option and sets *val
 * (consuming the next argument when needed), NULL with a message on error. */
static const struct tui_option *opt_match(int argc, char **argv, int *i, const char **val)
{
	const char *a = argv[*i], *eq = NULL;
	const struct tui_option *o = NULL;

	*val = NULL;
	if (a[0] == '-' && a[1] == '-') {
		size_t n;

		eq = strchr(a + 2, '=');
		n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
		for (size_t k = 0; k < NOPTS; k++)
			if (strlen(tui_options[k].lng) == n && !strncmp(a + 2, tui_options[k].lng, n))
				o = &tui_options[k];
	} else if (a[0] == '-' && a[1] && !a[2]) {
		for (size_t k = 0; k < NOPTS; k++)
			if (tui_options[k].shrt == a[1])
				o = &tui_options[k];
	} else if (a[0] == '-' && a[1]) {
		for (size_t k = 0; k < NOPTS; k++)
			if (tui_options[k].shrt == a[1] && tui_options[k].arg)
				o = &tui_options[k];
		if (o) {
			*val = a + 2;
			(*i)++;
			return o;
		}
	}
	if (!o) {
		fprintf(stderr, "argus: unknown option '%s'; 'argus --help' lists them\n", a);
		return NULL;
	}
	if (o->arg) {
		if (eq) {
			*val = eq + 1;
		} else if (*i + 1 < argc) {
			*val = argv[++*i];
		} else {
			fprintf(stderr, "argus: option '%s' needs a value (%s)\n", a, o->arg);
			return NULL;
		}
	} else if (eq) {
		fprintf(stderr, "argus: option '--%s' takes no value\n", o->lng);
		return NULL;
	}
	(*i)++;
	return o;
}

static int parse_ulong(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v > max || s[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

/* Folded stacks "a;b;c N" into window w of p (a test fixture reader; `argus
 * diff` reads folded and perf-script files through core/import). */
static int read_folded(const char *path, struct profile *p, unsigned w, char **cause)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, *frames[512];
	size_t cap = 0;
	unsigned lineno = 0;
	int err = 0;

	if (!f) {
		err = -errno;
		if (asprintf(cause, "cannot open %s: %s", path, strerror(errno)) < 0)
			*cause = NULL;
		return err;
	}
	while (getline(&line, &cap, f) > 0) {
		char *sp, *end, *save = NULL, *tok;
		unsigned long long n;
		unsigned nf = 0;

		lineno++;
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		sp = strrchr(line, ' ');
		if (!sp || (errno = 0, n = strtoull(sp + 1, &end, 10), errno || *end)) {
			err = -EINVAL;
			if (asprintf(cause, "%s:%u: expected 'frame;frame;... COUNT'", path, lineno) < 0)
				*cause = NULL;
			goto out;
		}
		*sp = '\0';
		for (tok = strtok_r(line, ";", &save); tok && nf < 512; tok = strtok_r(NULL, ";", &save))
			frames[nf++] = tok;
		err = profile_add(p, w, (const char *const *)frames, nf, 0, NULL, n);
		if (err) {
			if (asprintf(cause, "%s:%u: %s", path, lineno, strerror(-err)) < 0)
				*cause = NULL;
			goto out;
		}
	}
out:
	free(line);
	fclose(f);
	return err;
}

static struct source *static_source(const char *list, char **cause)
{
	struct profile *p = profile_new();
	char *copy = strdup(list), *save = NULL, *tok;
	unsigned nfiles = 0;
	int err = 0;

	if (!p || !copy) {
		err = -ENOMEM;
		goto fail;
	}
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		nfiles++;
	free(copy);
	copy = strdup(list);
	if (!copy) {
		err = -ENOMEM;
		goto fail;
	}
	save = NULL;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		enum cond c = nfiles == 1 ? COND_LOAD : (p->nwin % 2 ? COND_LOAD : COND_REF);
		int w = profile_window_begin(p, c, p->nwin);

		if (w < 0) {
			err = w;
			goto fail;
		}
		err = read_folded(tok, p, (unsigned)w, cause);
		if (err)
			goto fail;
		profile_window_end(p, (unsigned)w, 1.0);
	}
	free(copy);
	return source_static_new(p, list);
fail:
	if (err == -ENOMEM && !*cause && asprintf(cause, "out of memory") < 0)
		*cause = NULL;
	free(copy);
	profile_free(p);
	errno = -err;
	return NULL;
}

/* A command started before exec, held until released (so the sampler's
 * filter has its PID before it runs). */
struct tui_child {
	pid_t pid;
	int go_fd, err_fd;
};

static int child_spawn(char **argv, struct tui_child *c)
{
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 }, err;
	pid_t parent = getpid();

	c->pid = -1;
	c->go_fd = c->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	c->pid = fork();
	if (c->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (c->pid == 0) {
		sigset_t none;
		int devnull = open("/dev/null", O_RDWR), e;
		char b;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		/* the screen belongs to the tree: the command gets no terminal */
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			dup2(devnull, 2);
		}
		close(go[1]);
		close(ep[0]);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(ep[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(c->pid, c->pid);
	close(go[0]);
	close(ep[1]);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	return err;
}

static int child_release(struct tui_child *c)
{
	ssize_t n;
	int e = 0;

	if (write(c->go_fd, "g", 1) != 1)
		return -errno;
	close(c->go_fd);
	c->go_fd = -1;
	do
		n = read(c->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(c->err_fd);
	c->err_fd = -1;
	return n == sizeof(e) ? -e : 0;
}

static void child_end(struct tui_child *c)
{
	int status;

	if (c->pid <= 0)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	kill(-c->pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(c->pid, &status, WNOHANG) == c->pid) {
			c->pid = -1;
			break;
		}
		usleep(10000);
	}
	if (c->pid > 0) {
		kill(-c->pid, SIGKILL);
		waitpid(c->pid, &status, 0);
	}
	c->pid = -1;
}

static void log_stderr(void *arg, enum probe_log_level level, const char *msg)
{
	(void)arg;
	if (level == PROBE_LOG_WARN)
		fputs(msg, stderr);
}

static int exit_for(int err)
{
	switch (-err) {
	case EPERM:
	case EACCES:
		return EXIT_PRIV;
	case ENOMEM:
	case ENOTTY:
	case EINVAL:
	case ENOENT:
		return EXIT_ERROR;
	default:
		return EXIT_KERNEL;
	}
}

int cmd_tui(int argc, char **argv)
{
	struct tui_opts to;
	struct probe_profile_opts po;
	struct tui_child child = { -1, -1, -1 };
	uint32_t pids[TUI_MAX_PIDS];
	size_t npids = 0;
	char **cmd = NULL, *cause = NULL, title[256];
	const char *static_files = NULL;
	struct source *src = NULL;
	struct opts_agent oa;
	unsigned long v;
	int i = 1, rc = EXIT_OK, err;

	setlocale(LC_ALL, "");
	tui_opts_default(&to);
	opts_agent_init(&oa);
	to.agent = &oa;
	memset(&po, 0, sizeof(po));
	while (i < argc) {
		const struct tui_option *o;
		const char *val;
		int r = opts_agent_parse(&oa, argc, argv, &i, stderr);

		if (r < 0)
			return EXIT_USAGE;
		if (r > 0)
			continue;

		if (!strcmp(argv[i], "--")) {
			cmd = argv + i + 1;
			if (!*cmd) {
				fprintf(stderr, "argus: '--' needs a command after it\n");
				return EXIT_USAGE;
			}
			break;
		}
		if (argv[i][0] != '-') {
			fprintf(stderr, "argus: unexpected '%s'; a command to run goes after '--'\n",
				argv[i]);
			return EXIT_USAGE;
		}
		o = opt_match(argc, argv, &i, &val);
		if (!o)
			return EXIT_USAGE;
		switch (o->id) {
		case OPT_FREQ:
			if (parse_ulong(val, 100000, &v) || !v) {
				fprintf(stderr, "argus: --freq '%s' is not a frequency in Hz (1-100000)\n",
					val);
				return EXIT_USAGE;
			}
			po.freq_hz = (unsigned)v;
			break;
		case OPT_PID:
			if (parse_ulong(val, 0x7fffffff, &v) || !v) {
				fprintf(stderr, "argus: -p '%s' is not a process id\n", val);
				return EXIT_USAGE;
			}
			if (npids == TUI_MAX_PIDS) {
				fprintf(stderr, "argus: at most %d -p options\n", TUI_MAX_PIDS);
				return EXIT_USAGE;
			}
			if (kill((pid_t)v, 0) < 0 && errno == ESRCH) {
				fprintf(stderr, "argus: no process with PID %lu\n", v);
				return EXIT_USAGE;
			}
			pids[npids++] = (uint32_t)v;
			break;
		case OPT_THEME:
			to.theme = val;
			break;
		case OPT_ASCII:
			to.ascii = 1;
			break;
		case OPT_THRESHOLD: {
			char *end;
			double t = strtod(val, &end);

			if (end == val || *end || !(t >= 0 && t <= 100)) {
				fprintf(stderr, "argus: --threshold '%s' is not a percentage (0-100)\n",
					val);
				return EXIT_USAGE;
			}
			to.threshold = t / 100;
			break;
		}
		case OPT_LOG:
			to.log_path = val;
			break;
		case OPT_KEYS:
			key_print(stdout);
			return EXIT_OK;
		case OPT_HELP:
			tui_usage(stdout);
			return EXIT_OK;
		case OPT_STATIC:
			static_files = val;
			break;
		}
	}
	if (cmd && npids) {
		fprintf(stderr, "argus: give either -p PID or -- CMD, not both\n");
		return EXIT_USAGE;
	}

	{
		/* a bad theme is refused before any probe is loaded */
		struct theme th;

		if (theme_load(&th, to.theme, &cause) < 0) {
			fprintf(stderr, "argus: %s\n", cause ? cause : "cannot load the theme");
			free(cause);
			return EXIT_USAGE;
		}
	}
	if (static_files) {
		src = static_source(static_files, &cause);
		if (!src) {
			fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
			free(cause);
			return EXIT_ERROR;
		}
		snprintf(title, sizeof(title), "argus %s", static_files);
		to.title = title;
		goto run;
	}

	err = probe_check_privileges(&cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause ? cause : "needs root");
		fprintf(stderr, "argus: without privileges: 'argus diff' and 'argus replay' browse "
			"recorded data\n");
		free(cause);
		return EXIT_PRIV;
	}
	probe_set_log(log_stderr, NULL);
	if (cmd) {
		err = child_spawn(cmd, &child);
		if (err) {
			fprintf(stderr, "argus: cannot start '%s': %s\n", cmd[0], strerror(-err));
			return EXIT_ERROR;
		}
		pids[npids++] = (uint32_t)child.pid;
	}
	po.tgids = npids ? pids : NULL;
	po.ntgids = npids;
	po.filter = npids > 0;
	po.follow_forks = 1;
	src = source_live_new(&po, &cause);
	if (!src) {
		err = -errno;
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(errno));
		free(cause);
		child_end(&child);
		return exit_for(err ? err : -EIO);
	}
	if (cmd) {
		err = child_release(&child);
		if (err) {
			fprintf(stderr, "argus: cannot run '%s': %s\n", cmd[0], strerror(-err));
			source_free(src);
			child_end(&child);
			return EXIT_NOEXEC;
		}
		snprintf(title, sizeof(title), "argus -- %s", cmd[0]);
		to.title = title;
	} else if (npids) {
		snprintf(title, sizeof(title), "argus -p %u%s", pids[0], npids > 1 ? " ..." : "");
		to.title = title;
	}

run:
	err = tui_run(src, &to, &cause);
	if (err) {
		fprintf(stderr, "argus: %s\n", cause ? cause : strerror(-err));
		rc = exit_for(err);
	}
	free(cause);
	probe_set_log(NULL, NULL);
	source_free(src);
	child_end(&child);
	opts_agent_free(&oa);
	return rc;
}
