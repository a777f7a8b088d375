/* cmd_common — shared by the subcommands (see cmd_common.h). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>

#include "cmd.h"
#include "cmd_common.h"
#include "base/sanitize.h"
#include "base/util.h"
#include "probe/probe.h"

const int cmd_end_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, 0 };

int cmd_signals_hold(void)
{
	signal(SIGPIPE, SIG_IGN);
	return cmd_signals_block(cmd_end_sigs, NULL);
}

static void cmd_sigset(const int *sigs, sigset_t *set)
{
	sigemptyset(set);
	for (; *sigs; sigs++)
		sigaddset(set, *sigs);
}

int cmd_signals_block(const int *sigs, sigset_t *old)
{
	sigset_t set;

	cmd_sigset(sigs, &set);
	return sigprocmask(SIG_BLOCK, &set, old) < 0 ? -errno : 0;
}

int cmd_signalfd(const int *sigs, sigset_t *old)
{
	sigset_t set;
	int fd;

	cmd_sigset(sigs, &set);
	if (sigprocmask(SIG_BLOCK, &set, old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int cmd_check_probe_access(int *exit_status)
{
	char *cause = NULL;
	int err;

	err = probe_check_privileges(&cause);
	if (!err) {
		err = probe_check_btf(&cause);
		if (err)
			*exit_status = EXIT_KERNEL;
	} else {
		*exit_status = EXIT_PRIV;
	}
	if (err)
		fprintf(stderr, "argus: %s\n", cause ? cause : "cannot load BPF programs here");
	free(cause);
	return err;
}

/* "argus: CMD: " and "'argus CMD --help'" (cmd NULL: the interactive argus). */
static void cmd_names(const char *cmd, char *pre, size_t plen, char *help, size_t hlen)
{
	snprintf(pre, plen, "argus: %s%s", cmd ? cmd : "", cmd ? ": " : "");
	snprintf(help, hlen, "'argus %s%s--help'", cmd ? cmd : "", cmd ? " " : "");
}

void cmd_unknown_option(const char *cmd, const char *arg, const char *const *names, size_t n)
{
	char word[128], pre[64], help[64];
	const char *near;

	/* --duratoin=5 is a typo of --duration, not of --duration=5 */
	snprintf(word, sizeof(word), "%.*s", (int)strcspn(arg, "="), arg);
	near = word[0] == '-' && word[1] == '-' ? util_nearest(word, names, n) : NULL;
	cmd_names(cmd, pre, sizeof(pre), help, sizeof(help));
	/* the argument is echoed escaped; the line ends outside (escaped too) */
	if (near)
		sanitize_fprintf(stderr, 0, "%sunknown option '%s'; did you mean '%s'? (%s lists "
				 "them)", pre, arg, near, help);
	else
		sanitize_fprintf(stderr, 0, "%sunknown option '%s'; %s lists them", pre, arg, help);
	fputc('\n', stderr);
}

int cmd_getopt_error(const char *cmd, char **argv, const char *shortopts,
		     const struct option *longopts)
{
	const char *arg = optind > 0 ? argv[optind - 1] : NULL, *names[64];
	char longs[64][40], pre[64], help[64];
	size_t n = 0;

	cmd_names(cmd, pre, sizeof(pre), help, sizeof(help));
	for (const struct option *o = longopts; o && o->name && n < 64; o++, n++) {
		snprintf(longs[n], sizeof(longs[n]), "--%s", o->name);
		names[n] = longs[n];
	}
	if (arg && arg[0] == '-' && arg[1] == '-' && arg[2]) {
		const char *name = arg + 2;
		size_t len = strcspn(name, "=");
		const struct option *hit = NULL;
		unsigned nhit = 0;

		/* getopt_long takes a unique abbreviation: find what it matched */
		for (const struct option *o = longopts; o && o->name; o++) {
			if (strncmp(o->name, name, len))
				continue;
			if (strlen(o->name) == len) {
				hit = o;
				nhit = 1;
				break;
			}
			hit = o;
			nhit++;
		}
		if (nhit == 1 && name[len] == '=' && hit->has_arg == no_argument) {
			fprintf(stderr, "%s'--%s' takes no value; %s lists the options\n", pre,
				hit->name, help);
		} else if (nhit == 1) {
			fprintf(stderr, "%smissing value for '--%s'; %s lists the options\n", pre,
				hit->name, help);
		} else if (nhit > 1) {
			sanitize_fprintf(stderr, 0, "%sambiguous option '--%.*s': it begins", pre,
					 (int)len, name);
			for (const struct option *o = longopts; o && o->name; o++)
				if (!strncmp(o->name, name, len))
					fprintf(stderr, " --%s", o->name);
			fprintf(stderr, "\n");
		} else {
			cmd_unknown_option(cmd, arg, names, n);
		}
	} else if (optopt && optopt != ':' && optopt != '+') {
		const char *c = strchr(shortopts, optopt);
		char word[3] = { '-', (char)optopt, 0 };

		if (c && c[1] == ':')
			fprintf(stderr, "%smissing value for '-%c'; %s lists the options\n", pre,
				optopt, help);
		else
			cmd_unknown_option(cmd, word, names, n);
	} else {
		cmd_unknown_option(cmd, arg ? arg : "?", names, n);
	}
	return EXIT_USAGE;
}
