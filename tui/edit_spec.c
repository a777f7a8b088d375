/* edit_spec — $VISUAL / $EDITOR on a temporary JSON file. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curses.h>

#include "edit_spec.h"
#include "base/util.h"

int edit_spec_run(const char *json, char **out, char **cause)
{
	const char *ed = getenv("VISUAL");
	char path[] = "/tmp/argus-step-XXXXXX.json";
	int fd, err = 0, status = 0;
	FILE *f;
	pid_t pid;

	*out = NULL;
	if (!ed || !*ed)
		ed = getenv("EDITOR");
	if (!ed || !*ed)
		ed = "vi";
	fd = mkstemps(path, 5);
	if (fd < 0) {
		err = -errno;
		if (asprintf(cause, "cannot make a temporary file: %s", strerror(errno)) < 0)
			*cause = NULL;
		return err;
	}
	f = fdopen(fd, "w");
	if (!f || fputs(json, f) < 0 || fclose(f) != 0) {
		err = -EIO;
		if (asprintf(cause, "cannot write %s", path) < 0)
			*cause = NULL;
		if (!f)
			close(fd);
		goto cleanup;
	}
	def_prog_mode();
	endwin();
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", ed, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		err = pid < 0 ? -errno : -ECHILD;
		if (asprintf(cause, "the editor '%s' failed (%s); the proposal is unchanged", ed,
			     pid < 0 ? strerror(errno) : WIFEXITED(status) ?
			     "non-zero exit" : "killed") < 0)
			*cause = NULL;
		goto cleanup;
	}
	if (util_read_file(path, 0, out, NULL)) {
		err = -EIO;
		if (asprintf(cause, "cannot read %s back", path) < 0)
			*cause = NULL;
		goto cleanup;
	}
	if (!strcmp(*out, json)) {
		free(*out);
		*out = NULL;
		err = 1;
	}
cleanup:
	unlink(path);
	return err;
}
