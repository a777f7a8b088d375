/* core/agent_select: the agent asked for; without an LLM configured, one
 * line and the heuristic; a misconfigured LLM refused with the reason; an
 * unknown name refused.  (Fallback turns over HTTP: tests/live/llm_failures.sh.) */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/agent_select.h"

static char dir[64];

static int setup(void **state)
{
	char path[128];

	strcpy(dir, "/tmp/argus-test-select.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/xdg", dir);
	setenv("XDG_CONFIG_HOME", path, 1);
	unsetenv("ARGUS_LLM_PROVIDER");
	unsetenv("ARGUS_LLM_URL");
	unsetenv("ARGUS_LLM_MODEL");
	unsetenv("ARGUS_LLM_API_KEY");
	unsetenv("ARGUS_LLM_API_KEY_FILE");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_heuristic(void **state)
{
	char *note = (char *)"x";
	struct agent *a = agent_select(NULL, NULL, &note);
	const struct agent_hyp *h;
	struct agent_llm_stats st;

	assert_non_null(a);
	assert_null(note);
	assert_string_equal(agent_name(a), "heuristic");
	assert_int_equal(agent_hypotheses(a, &h), 0);
	assert_int_equal(agent_llm_stats_of(a, &st), -ENOENT);
	assert_int_equal(agent_pollfds(a, NULL, 0), 0);
	assert_int_equal(agent_timeout_ms(a), -1);
	agent_free(a);
	a = agent_select("heuristic", NULL, NULL);
	assert_non_null(a);
	agent_free(a);
}

static void test_unknown(void **state)
{
	char *note = NULL;
	struct agent *a = agent_select("oracle", NULL, &note);

	assert_null(a);
	assert_int_equal(errno, EINVAL);
	assert_string_equal(note, "unknown agent 'oracle'; the agents are heuristic and llm");
	free(note);
}

static void test_no_llm(void **state)
{
	char *note = NULL;
	struct agent *a = agent_select("llm", NULL, &note);

	assert_non_null(a);
	assert_string_equal(agent_name(a), "heuristic");
	assert_non_null(note);
	assert_non_null(strstr(note, "no LLM configured (set ARGUS_LLM_PROVIDER, ARGUS_LLM_URL, "
				     "ARGUS_LLM_MODEL or $XDG_CONFIG_HOME/argus/config); using the "
				     "heuristic agent"));
	assert_null(strchr(note, '\n'));
	free(note);
	agent_free(a);
}

static void test_bad_key_file(void **state)
{
	char path[128], *note = NULL;
	struct agent *a;
	FILE *f;

	snprintf(path, sizeof(path), "%s/key", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("sk-CANARY-0badc0ffee\n", f);
	fclose(f);
	chmod(path, 0644);
	setenv("ARGUS_LLM_URL", "http://127.0.0.1:9/v1", 1);
	setenv("ARGUS_LLM_MODEL", "m", 1);
	setenv("ARGUS_LLM_API_KEY_FILE", path, 1);
	a = agent_select("llm", NULL, &note);
	assert_null(a);
	assert_non_null(note);
	printf("# %s\n", note);
	assert_non_null(strstr(note, "cannot use the LLM agent: "));
	assert_null(strstr(note, "sk-CANARY"));
	free(note);
	unsetenv("ARGUS_LLM_URL");
	unsetenv("ARGUS_LLM_MODEL");
	unsetenv("ARGUS_LLM_API_KEY_FILE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_heuristic),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_no_llm),
		cmocka_unit_test(test_bad_key_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
