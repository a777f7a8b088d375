/* Unit tests of core/session: write -> read round trip, files cut at every
 * byte, versions, unknown events, damaged lines, the default path. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "data/import.h"
#include "data/pprof.h"
#include "measure/session.h"

static char tmpdir[] = "/tmp/argus-test-session.XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *const stack_a[] = { "asm_exc_page_fault", "exc_page_fault", "handle_mm_fault",
				       "do_anonymous_page" };
static const char *const stack_b[] = { "common_startup_64", "do_idle", "default_idle" };
static const char *const stack_c[] = { "entry_SYSCALL_64", "do_syscall_64", "x [mod with \"quotes\"]" };

static struct profile *sample_profile(void)
{
	struct profile *p = profile_new();
	assert_non_null(p);
	assert_int_equal(profile_window_begin(p, COND_REF, 0.5), 0);
	assert_int_equal(profile_add(p, 0, stack_b, 3, 0, "swapper", 900), 0);
	assert_int_equal(profile_add(p, 0, stack_a, 4, 4242, "pf", 3), 0);
	profile_window_end(p, 0, 2.0);
	p->wins[0].lost = 7;
	assert_int_equal(profile_window_begin(p, COND_LOAD, 2.5), 1);
	assert_int_equal(profile_add(p, 1, stack_b, 3, 0, "swapper", 400), 0);
	assert_int_equal(profile_add(p, 1, stack_a, 4, 4242, "pf", 1500), 0);
	assert_int_equal(profile_add(p, 1, stack_c, 3, 17, "tab\there", 2), 0);
	profile_window_end(p, 1, 2.0);
	return p;
}

static void fill_verdict(struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->found = 1;
	snprintf(v->subsystem, sizeof(v->subsystem), "mm");
	for (unsigned i = 0; i < 4; i++)
		v->path[i] = strdup(stack_a[i]);
	v->npath = 4;
	v->leaf = strdup("do_anonymous_page");
	v->confidence = 0.875;
	v->rate_ref = 1.5;
	v->rate_load = 750;
	v->delta = 748.5;
	v->ratio = 500;
	v->q = 1e-30;
	v->pairs = 1;
	v->pairs_agree = 1;
	v->share_of_root = 0.9;
	v->summary = strdup("mm: do_anonymous_page +748.5/s");
	assert_int_equal(verdict_add_note(v, "exc_page_fault self time is skid"), 0);
}

/* Writes the sample session to path; returns the number of event lines. */
static unsigned write_sample(const char *path)
{
	struct session_header h = {
		.host = "testhost", .kernel = "6.18.0-test",
		.caps_json = "{\"sample\":true,\"function_latency\":\"fentry refused (EPERM)\"}",
		.options_json = "{\"pairs\":1,\"window_s\":2}",
	};
	char *cause = NULL;
	struct session *s = session_open(path, &h, &cause);
	if (!s)
		fail_msg("session_open: %s", cause);
	struct profile *p = sample_profile();
	char *lines[] = { "mm rose most", "page faults dominate" };
	struct verdict v;
	struct session_llm_turn lt = {
		.provider = "openai", .model = "m1", .latency_s = 2.5, .tokens_in = 1200,
		.tokens_out = 80, .status = "ok",
	};
	fill_verdict(&v);
	assert_int_equal(session_write_window(s, p, 0, 0), 0);
	assert_int_equal(session_write_window(s, p, 1, 0), 0);
	assert_int_equal(session_write_transcript(s, "agent", "mm +41%, descending"), 0);
	assert_int_equal(session_write_proposal(s, 1, "heuristic",
		"{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault_user\",\"duration_s\":5}",
		lines, 2, "do_anonymous_page"), 0);
	assert_int_equal(session_write_decision(s, 1, SESSION_EDIT, "human", "shorter",
		"{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault_user\",\"duration_s\":5}",
		"{\"kind\":\"tracepoint_stacks\",\"target\":\"exceptions:page_fault_user\",\"duration_s\":2}"), 0);
	assert_int_equal(session_write_window(s, p, 0, 1), 0);
	assert_int_equal(session_write_step_result(s, 1, "ok", "page_fault_user 750/s under do_anonymous_page",
						   "{\"events_per_s\":[1.5,750]}"), 0);
	assert_int_equal(session_write_llm_turn(s, &lt), 0);
	assert_int_equal(session_write_verdict(s, &v, lines, 2), 0);
	assert_int_equal(session_write_note(s, "load exited (0)"), 0);
	/* bad JSON is refused and writes nothing */
	assert_int_equal(session_write_proposal(s, 2, "llm", "{not json", NULL, 0, NULL), -EINVAL);
	assert_int_equal(session_close(s), 0);
	verdict_clear(&v);
	profile_free(p);
	return 10;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void test_round_trip(void **state)
{
	char path[256];
	struct session_log l;
	char *cause = NULL;

	snprintf(path, sizeof(path), "%s/rt.jsonl", tmpdir);
	unsigned nev = write_sample(path);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	if (session_read(path, &l, &cause))
		fail_msg("session_read: %s", cause);
	assert_int_equal(l.version, SESSION_VERSION);
	assert_string_equal(l.host, "testhost");
	assert_string_equal(l.kernel, "6.18.0-test");
	assert_non_null(strstr(l.caps_json, "fentry refused (EPERM)"));
	assert_non_null(strstr(l.options_json, "\"pairs\":1"));
	assert_int_equal(l.nnotes, 0);
	assert_int_equal(l.truncated, 0);
	assert_int_equal(l.nev, nev);

	/* the calibration profile is rebuilt exactly */
	struct profile *want = sample_profile();
	const struct profile *got = session_log_profile(&l, 0);
	assert_non_null(got);
	assert_int_equal(got->nwin, 2);
	assert_int_equal(got->nstacks, want->nstacks);
	for (unsigned w = 0; w < 2; w++) {
		assert_int_equal(got->wins[w].cond, want->wins[w].cond);
		assert_true(got->wins[w].secs == want->wins[w].secs);
		assert_true(got->wins[w].start_s == want->wins[w].start_s);
		assert_int_equal(got->wins[w].lost, want->wins[w].lost);
	}
	for (size_t i = 0; i < want->nstacks; i++) {
		const struct profile_stack *a = &want->stacks[i], *b = NULL;
		for (size_t k = 0; k < got->nstacks && !b; k++)
			if (got->stacks[k].tgid == a->tgid && got->stacks[k].nframes == a->nframes &&
			    !strcmp(got->stacks[k].frames[a->nframes - 1], a->frames[a->nframes - 1]))
				b = &got->stacks[k];
		assert_non_null(b);
		for (uint32_t f = 0; f < a->nframes; f++)
			assert_string_equal(a->frames[f], b->frames[f]);
		assert_string_equal(a->comm, b->comm);
		assert_int_equal(a->win[0], b->win[0]);
		assert_int_equal(a->win[1], b->win[1]);
	}
	profile_free(want);
	/* step 1's window went to its own profile */
	const struct profile *p1 = session_log_profile(&l, 1);
	assert_non_null(p1);
	assert_int_equal(p1->nwin, 1);
	assert_null(session_log_profile(&l, 2));

	const struct session_event *e = l.ev;
	assert_int_equal(e[0].type, SESSION_EV_WINDOW);
	assert_int_equal(e[0].window, 0);
	assert_int_equal(e[0].samples, 903);
	assert_int_equal(e[0].line, 2);
	assert_int_equal(e[1].cond, COND_LOAD);
	assert_int_equal(e[1].samples, 1902);
	assert_int_equal(e[2].type, SESSION_EV_TRANSCRIPT);
	assert_string_equal(e[2].who, "agent");
	assert_string_equal(e[2].text, "mm +41%, descending");
	assert_int_equal(e[3].type, SESSION_EV_PROPOSAL);
	assert_int_equal(e[3].step, 1);
	assert_string_equal(e[3].agent, "heuristic");
	assert_non_null(strstr(e[3].spec_json, "\"duration_s\":5"));
	assert_int_equal(e[3].nlines, 2);
	assert_string_equal(e[3].lines[1], "page faults dominate");
	assert_string_equal(e[3].focus, "do_anonymous_page");
	assert_int_equal(e[4].type, SESSION_EV_DECISION);
	assert_int_equal(e[4].decision, SESSION_EDIT);
	assert_string_equal(e[4].by, "human");
	assert_string_equal(e[4].text, "shorter");
	assert_non_null(strstr(e[4].spec_json, "\"duration_s\":5"));
	assert_non_null(strstr(e[4].edited_json, "\"duration_s\":2"));
	assert_int_equal(e[5].type, SESSION_EV_WINDOW);
	assert_int_equal(e[5].step, 1);
	assert_int_equal(e[6].type, SESSION_EV_STEP_RESULT);
	assert_string_equal(e[6].status, "ok");
	assert_non_null(strstr(e[6].result_json, "750"));
	assert_int_equal(e[7].type, SESSION_EV_LLM_TURN);
	assert_string_equal(e[7].provider, "openai");
	assert_true(e[7].latency_s == 2.5);
	assert_int_equal(e[7].tokens_in, 1200);
	assert_int_equal(e[7].tokens_out, 80);
	assert_int_equal(e[8].type, SESSION_EV_VERDICT);
	const struct verdict *v = &e[8].verdict;
	assert_int_equal(v->found, 1);
	assert_string_equal(v->subsystem, "mm");
	assert_int_equal(v->npath, 4);
	assert_string_equal(v->path[3], "do_anonymous_page");
	assert_string_equal(v->leaf, "do_anonymous_page");
	assert_true(v->confidence == 0.875);
	assert_true(v->delta == 748.5);
	assert_true(v->q == 1e-30);
	assert_int_equal(v->nnotes, 1);
	assert_int_equal(e[8].nlines, 2);
	assert_int_equal(e[9].type, SESSION_EV_NOTE);
	assert_string_equal(e[9].text, "load exited (0)");
	for (size_t i = 1; i < l.nev; i++)
		assert_true(e[i].t >= e[i - 1].t);

	/* the profile as it was before the load window */
	struct profile *up = session_log_profile_upto(&l, 1, 0);
	assert_non_null(up);
	assert_int_equal(up->nwin, 1);
	profile_free(up);
	session_log_clear(&l);
	session_log_clear(&l); /* idempotent */
}

/* Every prefix of a session: no crash; a prefix with the header reads its
 * complete lines and says when it ends mid-event. */
static void test_cut_everywhere(void **state)
{
	char path[256];
	size_t len;

	snprintf(path, sizeof(path), "%s/cut.jsonl", tmpdir);
	unsigned nev = write_sample(path);
	char *buf = slurp(path, &len);
	size_t header_end = (size_t)((char *)memchr(buf, '\n', len) - buf) + 1;
	unsigned ok = 0, cut_notes = 0;

	for (size_t cut = 0; cut <= len; cut++) {
		struct session_log l;
		char *cause = NULL;
		char *copy = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
		memcpy(copy, buf, cut);
		int err = session_read_buf("cut.jsonl", copy, cut, &l, &cause);
		if (cut < header_end) {
			assert_int_not_equal(err, 0);
			assert_non_null(cause);
		} else {
			if (err)
				fail_msg("cut at %zu: %s", cut, cause);
			unsigned complete = 0;
			for (size_t i = header_end; i < cut; i++)
				complete += buf[i] == '\n';
			assert_int_equal(l.nev, complete);
			int mid = buf[cut - 1] != '\n';
			assert_int_equal(l.truncated, mid);
			if (mid) {
				char want[96];
				snprintf(want, sizeof(want), "session ends mid-event at byte %zu", l.bytes);
				assert_int_equal(l.nnotes, 1);
				assert_non_null(strstr(l.notes[0], want));
				assert_non_null(strstr(l.notes[0], "replaying up to there"));
				cut_notes++;
			}
			ok++;
		}
		free(cause);
		session_log_clear(&l);
		free(copy);
	}
	assert_true(ok > 0);
	assert_true(cut_notes > 0);
	struct session_log l;
	char *cause = NULL;
	assert_int_equal(session_read_buf("cut.jsonl", buf, len, &l, &cause), 0);
	assert_int_equal(l.nev, nev);
	session_log_clear(&l);
	free(buf);
}

static void expect_refused(const char *text, const char *needle)
{
	struct session_log l;
	char *cause = NULL;
	int err = session_read_buf("s.jsonl", text, strlen(text), &l, &cause);
	assert_int_not_equal(err, 0);
	assert_non_null(cause);
	if (!strstr(cause, needle))
		fail_msg("cause '%s' lacks '%s'", cause, needle);
	free(cause);
	assert_int_equal(l.nev, 0);
}

#define HDR(v) "{\"type\":\"header\",\"format\":\"argus-session\",\"version\":" #v \
	",\"argus\":\"9.9.9\",\"host\":\"h\",\"kernel\":\"k\",\"created\":\"c\",\"caps\":{},\"options\":{}}\n"

static void test_versions_and_damage(void **state)
{
	expect_refused(HDR(2) "{\"type\":\"note\",\"t\":0,\"text\":\"x\"}\n",
		       "session format version 2 (written by argus 9.9.9) is newer");
	expect_refused("", "empty file");
	expect_refused("{\"type\":\"window\"}\n", "not an argus session");
	expect_refused("hello\n", "not an argus session");
	expect_refused(HDR(0), "no valid 'version'");
	expect_refused(HDR(1) "{\"type\":\"note\",\"t\":0,\"text\":\"x\"}\n{\"type\":\"note\",\"t\":1,\"te\n"
		       "{\"type\":\"note\",\"t\":2,\"text\":\"y\"}\n", "s.jsonl:3: not a JSON object");
	expect_refused(HDR(1) "{\"type\":\"window\",\"t\":0,\"index\":1,\"cond\":\"ref\",\"secs\":1,\"stacks\":[]}\n",
		       "s.jsonl:2: window: index 1 out of order (expected 0)");
	expect_refused(HDR(1) "{\"type\":\"window\",\"t\":0,\"index\":0,\"cond\":\"ref\",\"secs\":1,"
		       "\"stacks\":[[[\"a\"],1,\"c\"]]}\n", "s.jsonl:2: window: stacks[0]: expected");
	expect_refused(HDR(1) "{\"type\":\"decision\",\"t\":0,\"step\":1,\"action\":\"maybe\"}\n",
		       "s.jsonl:2: decision: 'action' must be");
	expect_refused(HDR(1) "{\"type\":\"verdict\",\"t\":0,\"verdict\":{\"path\":\"x\"}}\n",
		       "s.jsonl:2: verdict: 'path' is not an array");
	expect_refused(HDR(1) "{\"type\":\"note\",\"text\":\"no time\"}\n", "s.jsonl:2: note event without a valid \"t\"");

	/* unknown event types are skipped, with one note per type */
	static const char text[] = HDR(1)
		"{\"type\":\"hypothesis\",\"t\":0,\"x\":1}\n"
		"{\"type\":\"note\",\"t\":0.5,\"text\":\"kept\"}\n"
		"{\"type\":\"hypothesis\",\"t\":1,\"x\":2}\n";
	struct session_log l;
	char *cause = NULL;
	assert_int_equal(session_read_buf("s.jsonl", text, strlen(text), &l, &cause), 0);
	assert_int_equal(l.nev, 1);
	assert_string_equal(l.ev[0].text, "kept");
	assert_int_equal(l.nnotes, 1);
	assert_non_null(strstr(l.notes[0], "s.jsonl:2: skipped 2 events of unknown type 'hypothesis'"));
	assert_string_equal(l.argus_version, "9.9.9");
	session_log_clear(&l);
}

static void test_default_path(void **state)
{
	char xdg[256], *cause = NULL;
	snprintf(xdg, sizeof(xdg), "%s/state", tmpdir);
	setenv("XDG_STATE_HOME", xdg, 1);
	struct session *a = session_open(NULL, NULL, &cause);
	if (!a)
		fail_msg("session_open: %s", cause);
	struct session *b = session_open(NULL, NULL, &cause);
	if (!b)
		fail_msg("session_open: %s", cause);
	assert_string_not_equal(session_path(a), session_path(b));
	assert_non_null(strstr(session_path(a), "/state/argus/sessions/argus-"));
	assert_non_null(strstr(session_path(a), ".jsonl"));
	char dir[300];
	snprintf(dir, sizeof(dir), "%s/argus/sessions", xdg);
	struct stat st;
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	char *pa = strdup(session_path(a));
	assert_int_equal(session_close(a), 0);
	assert_int_equal(session_close(b), 0);
	assert_int_equal(session_close(NULL), 0);
	struct session_log l;
	assert_int_equal(session_read(pa, &l, &cause), 0);
	assert_int_equal(l.nev, 0);
	assert_non_null(l.host);
	session_log_clear(&l);
	free(pa);
	unsetenv("XDG_STATE_HOME");

	assert_null(session_open("/nonexistent-dir/x.jsonl", NULL, &cause));
	assert_non_null(strstr(cause, "/nonexistent-dir/x.jsonl"));
	free(cause);
}

/* Real fixtures: imported, written as windows, read back: every stack's
 * count per window, tgid, comm and the window lengths come back the same. */
static void test_fixture_round_trip(void **state)
{
	static const char *const files[] = {
		"tests/data/ref.perfscript", "tests/data/load.perfscript",
	};
	char path[256], *cause = NULL;
	struct profile *p = profile_new();
	assert_non_null(p);
	for (int i = 0; i < 2; i++) {
		int w = profile_window_begin(p, i ? COND_LOAD : COND_REF, 0);
		assert_int_equal(w, i);
		if (import_file(files[i], p, (unsigned)w, &cause))
			fail_msg("%s", cause);
	}
	snprintf(path, sizeof(path), "%s/fixtures.jsonl", tmpdir);
	struct session *s = session_open(path, NULL, &cause);
	assert_non_null(s);
	assert_int_equal(session_write_window(s, p, 0, 0), 0);
	assert_int_equal(session_write_window(s, p, 1, 0), 0);
	assert_int_equal(session_close(s), 0);

	struct session_log l;
	if (session_read(path, &l, &cause))
		fail_msg("%s", cause);
	const struct profile *q = session_log_profile(&l, 0);
	assert_non_null(q);
	assert_int_equal(q->nwin, 2);
	assert_int_equal(q->nstacks, p->nstacks);
	for (unsigned w = 0; w < 2; w++) {
		assert_true(q->wins[w].secs == p->wins[w].secs);
		assert_int_equal(profile_cond_samples(q, q->wins[w].cond),
				 profile_cond_samples(p, p->wins[w].cond));
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *a = &p->stacks[i];
		int found = 0;
		for (size_t k = 0; k < q->nstacks && !found; k++) {
			const struct profile_stack *b = &q->stacks[k];
			if (b->tgid != a->tgid || b->nframes != a->nframes)
				continue;
			uint32_t f;
			for (f = 0; f < a->nframes; f++)
				if (strcmp(a->frames[f], b->frames[f]))
					break;
			if (f < a->nframes)
				continue;
			found = 1;
			assert_string_equal(a->comm, b->comm);
			assert_int_equal(a->win[0], b->win[0]);
			assert_int_equal(a->win[1], b->win[1]);
		}
		assert_true(found);
	}
	session_log_clear(&l);
	profile_free(p);
}

/* Six pairs: the load (pid 500) faults far more when loaded; a background
 * job (pid 600, not diagnosed) reads a third less (displaced); with the
 * identities of both (600's command line holds an escape sequence) and the
 * diagnosed set when diag is set. */
static struct profile *displaced_profile(int diag)
{
	static const char *const rd[] = { "entry_SYSCALL_64", "do_syscall_64", "ksys_read",
					  "vfs_read", "filemap_read" };
	struct profile_ident a = { .tgid = 500, .comm = "pf", .cmdline = "./pf --mib 64",
				   .exe = "/tmp/pf", .cgroup = "/argus-load-1", .threads = "pf" };
	struct profile_ident b = { .tgid = 600, .comm = "bg", .cmdline = "bg \x1b[2J --scan",
				   .exe = "/opt/bg", .unit = "bg.service", .threads = "bg x4" };
	struct profile *p = profile_new();

	assert_non_null(p);
	for (int w = 0; w < 12; w++) {
		int load = w % 2;

		assert_int_equal(profile_window_begin(p, load ? COND_LOAD : COND_REF, w), w);
		profile_window_end(p, w, 1.0);
		assert_int_equal(profile_add(p, w, stack_a, 4, 500, "pf", load ? 600 + w : 4), 0);
		assert_int_equal(profile_add(p, w, rd, 5, 600, "bg", load ? 300 + w : 450 + w), 0);
		assert_int_equal(profile_add(p, w, stack_b, 3, 0, "swapper", load ? 200 : 700), 0);
	}
	{
		char cl[32];

		snprintf(cl, sizeof(cl), "bg %c[2J --scan", 0x1b);
		b.cmdline = cl;
		assert_int_equal(profile_ident_set(p, &a), 0);
		assert_int_equal(profile_ident_set(p, &b), 0);
	}
	if (diag)
		profile_diag_add(&p->diag, 500);
	return p;
}

static void run_analysis(const struct profile *p, struct analysis *an)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .explain = 0.5, .sort = 1 };
	char *cause = NULL;

	if (analysis_run(p, NULL, 0, &ao, an, &cause))
		fail_msg("analysis_run: %s", cause);
	assert_true(an->descended);
}

/* The header's fields of an analysis: the subsystems are calib_summary's,
 * the displaced processes the verdict's with their fall, and the joined
 * summary is the one from the other ("subsystems · displaced: ..."). */
static void header_fields_check(const struct analysis *an, int displaced)
{
	char subs[512], dt[512], joined[1100];

	calib_summary(an->t, 0, subs, sizeof(subs));
	assert_true(subs[0] != '\0');
	assert_string_equal(an->subsystems, subs);
	assert_null(strstr(an->subsystems, "displaced"));
	analysis_displaced_text(an->displaced, an->ndisplaced, 0, dt, sizeof(dt));
	if (!displaced) {
		assert_int_equal(an->ndisplaced, 0);
		assert_string_equal(dt, "");
		assert_string_equal(an->summary, subs);
		return;
	}
	assert_true(an->ndisplaced >= 1);
	assert_string_equal(an->displaced[0].process, "bg [600]");
	assert_true(an->displaced[0].fall > 100 && an->displaced[0].fall < 200); /* ~450 -> ~300/s */
	assert_true(!strncmp(dt, "displaced: bg [600] -", 21));
	snprintf(joined, sizeof(joined), "%s | %s", subs, dt);
	assert_string_equal(an->summary, joined);
}

/* Sessions keep who each process is (once per process, escaped) and the
 * diagnosed set, so the replay's analysis reports the displaced work the
 * live one did; a session without them (older ones) still reads, with the
 * set unknown and nothing called displaced, as before. */
static void test_idents_and_diag(void **state)
{
	for (int diag = 1; diag >= 0; diag--) {
		struct profile *p = displaced_profile(diag);
		struct analysis live, rep, cut;
		struct session_log l;
		const struct profile *q;
		struct profile *u;
		const struct profile_ident *id;
		char path[256], *cause = NULL, line[65536];
		struct session *s;
		unsigned nprocs = 0;
		FILE *f;

		(void)state;
		snprintf(path, sizeof(path), "%s/ident%d.jsonl", tmpdir, diag);
		s = session_open(path, NULL, &cause);
		assert_non_null(s);
		for (unsigned w = 0; w < p->nwin; w++)
			assert_int_equal(session_write_window(s, p, w, 0), 0);
		assert_int_equal(session_close(s), 0);
		f = fopen(path, "r");
		assert_non_null(f);
		while (fgets(line, sizeof(line), f))
			if (strstr(line, "\"procs\""))
				nprocs++;
		fclose(f);
		assert_int_equal(nprocs, 1);    /* named once, in the first window */
		if (session_read(path, &l, &cause))
			fail_msg("session_read: %s", cause);
		q = session_log_profile(&l, 0);
		assert_non_null(q);
		assert_int_equal(q->nidents, 2);
		id = profile_ident_find(q, 500);
		assert_non_null(id);
		assert_string_equal(id->cmdline, "./pf --mib 64");
		assert_string_equal(id->exe, "/tmp/pf");
		assert_string_equal(id->cgroup, "/argus-load-1");
		id = profile_ident_find(q, 600);
		assert_non_null(id);
		assert_string_equal(id->unit, "bg.service");
		assert_string_equal(id->threads, "bg x4");
		assert_null(strchr(id->cmdline, 0x1b));   /* escaped when it was read */
		assert_non_null(strstr(id->cmdline, "\\x1b[2J"));
		assert_int_equal(q->diag.known, diag);
		assert_int_equal(q->diag.ntgids, diag ? 1 : 0);
		if (diag)
			assert_int_equal(q->diag.tgids[0], 500);
		/* the replay (the windows up to the end) gives the live displaced list */
		u = session_log_profile_upto(&l, l.nev, 0);
		assert_non_null(u);
		assert_int_equal(u->diag.known, diag);
		run_analysis(p, &live);
		run_analysis(q, &rep);
		run_analysis(u, &cut);
		assert_int_equal(rep.verdict.ndisplaced, live.verdict.ndisplaced);
		assert_int_equal(cut.verdict.ndisplaced, live.verdict.ndisplaced);
		if (diag) {
			assert_true(live.verdict.ndisplaced >= 1);
			for (unsigned i = 0; i < live.verdict.ndisplaced; i++) {
				assert_string_equal(rep.verdict.displaced[i].process,
						    live.verdict.displaced[i].process);
				assert_true(fabs(rep.verdict.displaced[i].delta -
						 live.verdict.displaced[i].delta) < 1e-9);
			}
			assert_string_equal(live.verdict.displaced[0].process, "bg [600]");
		} else {
			assert_int_equal(live.verdict.ndisplaced, 0);
		}
		/* the header's fields: the replay derives them from the windows
		 * as the live run did (sessions do not store them) */
		assert_int_equal(live.ndisplaced, live.verdict.ndisplaced);
		assert_int_equal(rep.ndisplaced, live.ndisplaced);
		assert_string_equal(rep.subsystems, live.subsystems);
		assert_string_equal(rep.summary, live.summary);
		for (unsigned i = 0; i < live.ndisplaced; i++) {
			assert_string_equal(live.displaced[i].process, live.verdict.displaced[i].process);
			assert_true(live.displaced[i].fall == live.verdict.displaced[i].mass);
			assert_true(live.displaced[i].fall > 0);
			assert_string_equal(rep.displaced[i].process, live.displaced[i].process);
			assert_true(fabs(rep.displaced[i].fall - live.displaced[i].fall) < 1e-9);
		}
		header_fields_check(&live, diag);
		analysis_clear(&live);
		analysis_clear(&rep);
		analysis_clear(&cut);
		profile_free(u);
		session_log_clear(&l);
		profile_free(p);
	}
}

/* Issue 27 item 3: a session keeps the module table (each module once, in
 * the first window that has it), so an export without root writes the
 * mappings with paths and build-ids the live run would; an older session
 * without it reads with an empty table. */
static void test_modules(void **state)
{
	static const char *const k[] = { "entry_SYSCALL_64", "ksys_read" };
	static const char *const u[] = { "main (callsite)", "read (libc.so.6)" };
	struct pprof_write_opts o = { .freq_hz = 1000, .cond = COND_N, .raw = 1 };
	struct profile *p = profile_new();
	const struct profile *q;
	struct session_log l;
	struct session *s;
	char path[256], *cause = NULL, line[65536];
	uint8_t *a = NULL, *b = NULL;
	size_t alen = 0, blen = 0;
	unsigned nmods = 0;
	FILE *f;

	(void)state;
	assert_non_null(p);
	for (int w = 0; w < 4; w++) {
		assert_int_equal(profile_window_begin(p, w % 2 ? COND_LOAD : COND_REF, w), w);
		profile_window_end(p, w, 1.0);
		assert_int_equal(profile_add_user(p, w, k, 2, u, 2, 42, "callsite", 3 + w), 0);
		if (w == 0)
			assert_int_equal(profile_module_set(p, "callsite", "/opt/x/callsite",
							    "0123abcd"), 0);
	}
	snprintf(path, sizeof(path), "%s/modules.jsonl", tmpdir);
	s = session_open(path, NULL, &cause);
	assert_non_null(s);
	assert_int_equal(session_write_window(s, p, 0, 0), 0);
	/* a module found later is written with the window that follows */
	assert_int_equal(profile_module_set(p, "libc.so.6", "/usr/lib/libc.so.6", ""), 0);
	for (unsigned w = 1; w < p->nwin; w++)
		assert_int_equal(session_write_window(s, p, w, 0), 0);
	/* a step's windows are read into a profile of their own: named again */
	assert_int_equal(session_write_window(s, p, 0, 1), 0);
	assert_int_equal(session_close(s), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "\"modules\""))
			nmods++;
	fclose(f);
	assert_int_equal(nmods, 3);
	if (session_read(path, &l, &cause))
		fail_msg("session_read: %s", cause);
	q = session_log_profile(&l, 0);
	assert_non_null(q);
	assert_int_equal(q->nmodules, 2);
	assert_string_equal(profile_module_find(q, "callsite")->path, "/opt/x/callsite");
	assert_string_equal(profile_module_find(q, "callsite")->build_id, "0123abcd");
	assert_string_equal(profile_module_find(q, "libc.so.6")->path, "/usr/lib/libc.so.6");
	assert_string_equal(profile_module_find(q, "libc.so.6")->build_id, "");
	q = session_log_profile(&l, 1);
	assert_non_null(q);
	assert_int_equal(q->nmodules, 2);
	q = session_log_profile(&l, 0);
	/* the export from the session is the live profile's, byte for byte */
	assert_int_equal(pprof_write(p, &o, &a, &alen, NULL, &cause), 0);
	assert_int_equal(pprof_write(q, &o, &b, &blen, NULL, &cause), 0);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	assert_non_null(memmem(a, alen, "/opt/x/callsite", 15));
	free(a);
	free(b);
	session_log_clear(&l);
	profile_free(p);
}

/* A window whose "procs" or "diag" has the wrong shape is refused with a
 * reason, not half-read. */
static void test_idents_damaged(void **state)
{
	static const char *const bad[] = {
		"\"procs\":{}", "\"procs\":[{\"tgid\":\"x\"}]", "\"procs\":[{\"tgid\":5,\"cmdline\":7}]",
		"\"diag\":[]", "\"diag\":{\"tgids\":[-1]}", "\"diag\":{\"all\":3}",
		"\"modules\":{}", "\"modules\":[{\"path\":\"/x\"}]",
		"\"modules\":[{\"name\":\"x\",\"build_id\":5}]",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char buf[1024], *cause = NULL;
		struct session_log l;
		int n = snprintf(buf, sizeof(buf),
				 "{\"type\":\"header\",\"format\":\"argus-session\",\"version\":1}\n"
				 "{\"type\":\"window\",\"t\":1,\"step\":0,\"index\":0,\"cond\":\"ref\","
				 "\"start\":0,\"secs\":1,\"stacks\":[[[\"a\"],5,\"x\",1]],%s}\n", bad[i]);

		assert_true(session_read_buf("bad", buf, (size_t)n, &l, &cause) < 0);
		assert_non_null(cause);
		assert_true(strstr(cause, "procs") || strstr(cause, "diag") || strstr(cause, "modules"));
		free(cause);
		session_log_clear(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_cut_everywhere),
		cmocka_unit_test(test_versions_and_damage),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_fixture_round_trip),
		cmocka_unit_test(test_idents_and_diag),
		cmocka_unit_test(test_idents_damaged),
		cmocka_unit_test(test_modules),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
