/* model_view — the wait chain, the rows of the model view and the model
 * read back from JSON (see model_view.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "base/vec.h"
#include "model/model_view.h"
#include "base/sanitize.h"
#include "base/util.h"

/* Invocations of task i per cycle of the reference. */
static double mv_visits(const struct model *m, int i)
{
	double ref = m->ref >= 0 ? m->task[m->ref].invocations : 0;

	if (i == m->ref)
		return 1;
	return ref > 0 ? m->task[i].invocations / ref : 0;
}

static double mv_own_s(const struct model_task *t)
{
	return t->cpu_s + t->runq_s + (t->ref ? 0 : t->sleep_s) + t->net_s + t->other_s;
}

static double mv_residence(const struct model *m, int i, unsigned depth);

/* The wait per call of call c of task i (see model_view.h). */
static double mv_call_wait(const struct model *m, int i, const struct model_call *c,
			   unsigned depth)
{
	const struct model_task *to = &m->task[c->to];

	if (to->kind == MODEL_TASK_DISK)
		return to->visit_s;
	if (to->kind == MODEL_TASK_SEMAPHORE)
		return to->invocations > 0 ? to->waits * to->wait_s / to->invocations : 0;
	if (c->wait_s > 0)
		return c->wait_s;
	(void)i;
	return mv_residence(m, c->to, depth + 1);
}

/* A task's time per invocation estimated from its demands and calls (for
 * calls whose wait was not measured). */
static double mv_residence(const struct model *m, int i, unsigned depth)
{
	const struct model_task *t = &m->task[i];
	double r;

	if (depth > MODEL_MAX_TASKS)
		return 0;       /* a cycle: calls are acyclic when derived */
	if (t->kind == MODEL_TASK_DISK)
		return t->visit_s;
	r = mv_own_s(t);
	if (t->kind == MODEL_TASK_SEMAPHORE)
		return t->hold_s;
	for (unsigned c = 0; c < t->ncalls; c++)
		r += t->calls[c].mean * mv_call_wait(m, i, &t->calls[c], depth);
	return r;
}

double model_call_time(const struct model *m, int from, unsigned call)
{
	const struct model_task *t;

	if (from < 0 || (unsigned)from >= m->ntask || call >= m->task[from].ncalls)
		return 0;
	t = &m->task[from];
	if (t->calls[call].to < 0 || (unsigned)t->calls[call].to >= m->ntask)
		return 0;
	return mv_visits(m, from) * t->calls[call].mean * mv_call_wait(m, from, &t->calls[call], 0);
}

int model_wait_chain(const struct model *m, struct model_chain *c)
{
	unsigned char seen[MODEL_MAX_TASKS] = { 0 };
	int cur;

	memset(c, 0, sizeof(*c));
	if (m->ref < 0 || (unsigned)m->ref >= m->ntask || !(m->r > 0))
		return -ENOENT;
	c->r = m->r;
	cur = m->ref;
	while (c->n < MODEL_CHAIN_MAX) {
		const struct model_task *t = &m->task[cur];
		struct model_link *l = &c->link[c->n];
		double best = -1;
		int bi = -1;

		seen[cur] = 1;
		for (unsigned k = 0; k < t->ncalls; k++) {
			double v = model_call_time(m, cur, k);

			if (t->calls[k].to >= 0 && (unsigned)t->calls[k].to < m->ntask && v > best) {
				best = v;
				bi = (int)k;
			}
		}
		if (bi < 0 || best <= 0) {
			/* the end: the task's own time */
			l->kind = MODEL_LINK_CPU;
			l->from = cur;
			l->to = -1;
			l->time_s = mv_visits(m, cur) * (t->cpu_s + t->runq_s);
			l->share = l->time_s / m->r;
			c->n++;
			break;
		}
		l->from = cur;
		l->to = t->calls[bi].to;
		l->time_s = best;
		l->share = best / m->r;
		l->kind = m->task[l->to].kind == MODEL_TASK_DISK ? MODEL_LINK_DISK :
			  m->task[l->to].kind == MODEL_TASK_SEMAPHORE ? MODEL_LINK_LOCK : MODEL_LINK_CALL;
		c->n++;
		if (l->kind != MODEL_LINK_CALL || seen[l->to])
			break;
		cur = l->to;
	}
	return 0;
}

/* printf onto buf at *o, cutting at len */
__attribute__((format(printf, 4, 5)))
static void mv_cat(char *buf, size_t len, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*o + 1 >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(buf + *o, len - *o, fmt, ap);
	va_end(ap);
	if (w > 0)
		*o += (size_t)w < len - *o ? (size_t)w : len - *o - 1;
}

char *model_chain_text(const struct model *m, const struct model_chain *c, int utf8,
		       char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	for (unsigned i = 0; i < c->n; i++) {
		const struct model_link *l = &c->link[i];
		char from[96], to[96] = "";

		sanitize_into(from, sizeof(from), m->task[l->from].name, SANITIZE_DEFAULT);
		if (l->to >= 0)
			sanitize_into(to, sizeof(to), m->task[l->to].name, SANITIZE_DEFAULT);
		if (i)
			mv_cat(buf, len, &o, "%s", utf8 ? " \u2192 " : " -> ");
		switch (l->kind) {
		case MODEL_LINK_CALL:
			mv_cat(buf, len, &o, "%s waits on %s %.0f%%", from, to, l->share * 100);
			break;
		case MODEL_LINK_LOCK:
			mv_cat(buf, len, &o, "%s waits on lock %s %.0f%%", from, to, l->share * 100);
			break;
		case MODEL_LINK_DISK:
			mv_cat(buf, len, &o, "%s waits on the disk %.0f%%", from, l->share * 100);
			break;
		default:
			mv_cat(buf, len, &o, "%s on CPU %.0f%%", from, l->share * 100);
			break;
		}
	}
	return buf;
}

char *model_chain_rest(const struct model *m, char *buf, size_t len)
{
	const struct model_task *t;
	double calls = 0, other, rest;
	char name[96];
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (m->ref < 0 || (unsigned)m->ref >= m->ntask || !(m->r > 0))
		return buf;
	t = &m->task[m->ref];
	for (unsigned k = 0; k < t->ncalls; k++)
		calls += model_call_time(m, m->ref, k);
	other = t->net_s + t->other_s;
	rest = m->r - calls - t->cpu_s - t->runq_s - other;
	sanitize_into(name, sizeof(name), t->name, SANITIZE_DEFAULT);
	mv_cat(buf, len, &o, "%s itself: on CPU %.0f%%, waiting for a CPU %.0f%%", name,
	       t->cpu_s / m->r * 100, t->runq_s / m->r * 100);
	if (other > 0)
		mv_cat(buf, len, &o, ", network and other waits %.0f%%", other / m->r * 100);
	mv_cat(buf, len, &o, "; calls %.0f%%; not explained %.0f%%", calls / m->r * 100,
	       rest > 0 ? rest / m->r * 100 : 0);
	return buf;
}

/* ---- rows -------------------------------------------------------------------------- */

struct mv_rows {
	struct model_row *r;
	unsigned n, cap;
};

static struct model_row *mv_row(struct mv_rows *rs, enum model_row_kind k)
{
	if (vec_grow_u(&rs->r, &rs->cap, (size_t)rs->n + 1, sizeof(*rs->r)))
		return NULL;
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	rs->r[rs->n].kind = k;
	rs->r[rs->n].task = rs->r[rs->n].to = -1;
	rs->r[rs->n].util = rs->r[rs->n].share = -1;
	return &rs->r[rs->n++];
}

static int mv_task_rows(const struct model *m, const struct model_prediction *p, int i,
			unsigned depth, unsigned char *done, struct mv_rows *rs)
{
	const struct model_task *t = &m->task[i];
	struct model_row *r = mv_row(rs, MODEL_ROW_TASK);
	char name[96], extra[160], util[32] = "";
	int err;

	if (!r)
		return -ENOMEM;
	done[i] = 1;
	sanitize_into(name, sizeof(name), t->name, SANITIZE_DEFAULT);
	r->task = i;
	r->depth = depth;
	r->threads = t->threads;
	r->cpu_used = t->util_cpus;
	r->util = p ? p->task_util[i] : -1;
	if (p)
		snprintf(util, sizeof(util), ", util %.0f%%", p->task_util[i] * 100);
	if (t->kind == MODEL_TASK_DISK) {
		r->demand_s = t->visit_s;
		snprintf(r->text, sizeof(r->text), "%-14s disk      %.3f ms per visit, %.0f visits%s",
			 name, t->visit_s * 1e3, t->invocations, util);
	} else if (t->kind == MODEL_TASK_SEMAPHORE) {
		r->demand_s = t->hold_s;
		sanitize_into(extra, sizeof(extra), t->stack, SANITIZE_DEFAULT);
		snprintf(r->text, sizeof(r->text), "%-14s lock      hold %.3f ms, %llu waits of %.3f ms%s"
			 " (%s)", name, t->hold_s * 1e3, (unsigned long long)t->waits, t->wait_s * 1e3,
			 util, extra);
	} else {
		r->demand_s = t->cpu_s;
		extra[0] = 0;
		if (t->ref)
			snprintf(extra, sizeof(extra), ", think %.3f ms", t->sleep_s * 1e3);
		else if (t->sleep_s > 0)
			snprintf(extra, sizeof(extra), ", sleep %.3f ms", t->sleep_s * 1e3);
		snprintf(r->text, sizeof(r->text), "%-14s %-9s %u thr%s, CPU %.3f ms/%s%s%s, %.2f CPUs",
			 name, t->ref ? "reference" : "task", t->threads, t->per_caller ? " (1/caller)" : "",
			 t->cpu_s * 1e3, t->ref ? "cycle" : "call", extra, util, t->util_cpus);
	}
	for (unsigned c = 0; c < t->ncalls; c++) {
		const struct model_call *k = &t->calls[c];
		struct model_row *cr;
		char to[96];

		if (k->to < 0 || (unsigned)k->to >= m->ntask)
			continue;
		cr = mv_row(rs, MODEL_ROW_CALL);
		if (!cr)
			return -ENOMEM;
		sanitize_into(to, sizeof(to), m->task[k->to].name, SANITIZE_DEFAULT);
		cr->task = i;
		cr->to = k->to;
		cr->depth = depth;
		cr->calls = k->mean;
		cr->share = m->r > 0 ? model_call_time(m, i, c) / m->r : -1;
		if (cr->share >= 0)
			snprintf(cr->text, sizeof(cr->text), "  -> %-14s %.2f/%s %s, wait %.3f ms = %.0f%% of "
				 "response", to, k->mean, t->ref ? "cycle" : "call",
				 k->channel ? k->channel : "", mv_call_wait(m, i, k, 0) * 1e3, cr->share * 100);
		else
			snprintf(cr->text, sizeof(cr->text), "  -> %-14s %.2f/%s %s", to, k->mean,
				 t->ref ? "cycle" : "call", k->channel ? k->channel : "");
		if (k->via_softirq > 0) {
			/* the waker found through the packet the softirq delivered */
			size_t n = strlen(cr->text);

			snprintf(cr->text + n, sizeof(cr->text) - n, " (%.0f%% via softirq, the sender's)",
				 k->via_softirq * 100);
		}
	}
	for (unsigned c = 0; c < t->ncalls; c++) {
		int to = t->calls[c].to;

		if (to >= 0 && (unsigned)to < m->ntask && !done[to] &&
		    (err = mv_task_rows(m, p, to, depth + 1, done, rs)))
			return err;
	}
	return 0;
}

int model_rows(const struct model *m, const struct model_prediction *p,
	       struct model_row **out)
{
	unsigned char done[MODEL_MAX_TASKS] = { 0 };
	struct mv_rows rs = { 0 };
	struct model_row *r;
	int err = -ENOMEM;

	*out = NULL;
	r = mv_row(&rs, MODEL_ROW_HEAD);
	if (!r)
		goto fail;
	snprintf(r->text, sizeof(r->text), "%u task%s from %.1f s: %.2f cycles/s, response %.3f ms "
		 "per cycle; %u CPU%s", m->ntask, m->ntask == 1 ? "" : "s", m->secs, m->x, m->r * 1e3,
		 m->cpus, m->cpus == 1 ? "" : "s");
	if (m->note[0]) {
		r = mv_row(&rs, MODEL_ROW_NOTE);
		if (!r)
			goto fail;
		sanitize_into(r->text, sizeof(r->text), m->note, SANITIZE_DEFAULT);
	}
	if (m->check.done) {
		char line[1024];

		r = mv_row(&rs, MODEL_ROW_CHECK);
		if (!r)
			goto fail;
		snprintf(r->text, sizeof(r->text), "%s", model_check_text(m, line, sizeof(line)));
	}
	if (m->ref >= 0 && (unsigned)m->ref < m->ntask && (err = mv_task_rows(m, p, m->ref, 0, done, &rs)))
		goto fail;
	for (unsigned i = 0; i < m->ntask; i++)
		if (!done[i] && (err = mv_task_rows(m, p, (int)i, 1, done, &rs)))
			goto fail;
	err = -ENOMEM;
	if (m->other_tasks) {
		r = mv_row(&rs, MODEL_ROW_OTHER);
		if (!r)
			goto fail;
		snprintf(r->text, sizeof(r->text), "other: %u task%s outside the calls, %.1f%% of the "
			 "CPU time", m->other_tasks, m->other_tasks == 1 ? "" : "s",
			 m->other_cpu_share * 100);
	}
	for (unsigned i = 0; i < m->nkthreads && i < MODEL_MAX_KTHREADS; i++) {
		char comm[64], work[96];

		r = mv_row(&rs, MODEL_ROW_KTHREAD);
		if (!r)
			goto fail;
		sanitize_into(comm, sizeof(comm), m->kthreads[i].comm, SANITIZE_DEFAULT);
		sanitize_into(work, sizeof(work), m->kthreads[i].work, SANITIZE_DEFAULT);
		snprintf(r->text, sizeof(r->text), "woken by kernel thread %s (%s%s%s)", comm,
			 m->kthreads[i].role, work[0] ? ": " : "", work);
	}
	*out = rs.r;
	return (int)rs.n;
fail:
	free(rs.r);
	return err;
}

/* ---- JSON back into a model ---------------------------------------------------------- */

static double mv_num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static void mv_str(const cJSON *o, const char *k, char *out, size_t len)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	snprintf(out, len, "%s", cJSON_IsString(v) && v->valuestring ? v->valuestring : "");
}

static const char *mv_channel(const char *s)
{
	for (int c = 0; c < WG_CH_N; c++)
		if (!strcmp(s, wg_channel_name((enum wg_channel)c)))
			return wg_channel_name((enum wg_channel)c);
	return wg_channel_name(WG_CH_OTHER);
}

int model_read_json(const char *json, struct model *m, char **cause)
{
	cJSON *root = cJSON_Parse(json);
	const cJSON *tasks, *t, *kw;
	char ref[64];
	unsigned i = 0;
	int err = -EINVAL;

	memset(m, 0, sizeof(*m));
	m->ref = -1;
	tasks = root ? cJSON_GetObjectItemCaseSensitive(root, "tasks") : NULL;
	if (!cJSON_IsObject(root) || !cJSON_IsArray(tasks)) {
		util_cause(cause, "the saved model is not a model (no \"tasks\" array)");
		goto out;
	}
	m->secs = mv_num(root, "seconds");
	m->cpus = (unsigned)mv_num(root, "cpus");
	m->x = mv_num(root, "throughput");
	m->r = mv_num(root, "response_s");
	m->beta = mv_num(root, "background_competitors");
	mv_str(root, "note", m->note, sizeof(m->note));
	mv_str(root, "reference", ref, sizeof(ref));
	cJSON_ArrayForEach(t, tasks) {
		struct model_task *k;
		char kind[16];

		if (i == MODEL_MAX_TASKS)
			break;
		if (!cJSON_IsObject(t)) {
			util_cause(cause, "the saved model has a task that is not an object");
			goto out;
		}
		k = &m->task[i];
		mv_str(t, "name", k->name, sizeof(k->name));
		mv_str(t, "kind", kind, sizeof(kind));
		k->kind = !strcmp(kind, "semaphore") ? MODEL_TASK_SEMAPHORE :
			  !strcmp(kind, "disk") ? MODEL_TASK_DISK : MODEL_TASK_APP;
		k->tgid = (uint32_t)mv_num(t, "tgid");
		mv_str(t, "comm", k->comm, sizeof(k->comm));
		mv_str(t, "cmdline", k->cmdline, sizeof(k->cmdline));
		mv_str(t, "unit", k->unit, sizeof(k->unit));
		mv_str(t, "container", k->container, sizeof(k->container));
		k->threads = (unsigned)mv_num(t, "threads");
		k->ref = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "reference"));
		k->per_caller = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(t, "per_caller"));
		k->invocations = mv_num(t, "invocations");
		k->cpu_s = mv_num(t, "cpu_s");
		k->sleep_s = mv_num(t, k->ref ? "think_s" : "sleep_s");
		k->net_s = mv_num(t, "network_s");
		k->other_s = mv_num(t, "other_wait_s");
		k->util_cpus = mv_num(t, "cpu_used");
		k->runq_s = mv_num(t, "runnable_s");
		mv_str(t, "stack", k->stack, sizeof(k->stack));
		k->waits = (uint64_t)mv_num(t, "waits");
		k->wait_s = mv_num(t, "wait_s");
		k->hold_s = mv_num(t, "hold_s");
		k->visit_s = mv_num(t, "visit_s");
		k->probe_s = mv_num(t, "probe_s");
		k->probe_switches = mv_num(t, "probe_switches");
		k->probe_wakes = mv_num(t, "probe_wakeups");
		if (k->ref && m->ref < 0)
			m->ref = (int)i;
		i++;
	}
	m->ntask = i;
	if (m->ref < 0)
		for (unsigned j = 0; j < m->ntask; j++)
			if (!strcmp(m->task[j].name, ref))
				m->ref = (int)j;
	/* the calls, by callee name, once every task is known */
	i = 0;
	cJSON_ArrayForEach(t, tasks) {
		const cJSON *calls = cJSON_GetObjectItemCaseSensitive(t, "calls"), *c;
		struct model_task *k;

		if (i == m->ntask)
			break;
		k = &m->task[i++];
		cJSON_ArrayForEach(c, calls) {
			struct model_call *mc;
			char to[64], ch[16];
			int ti = -1;

			if (k->ncalls == MODEL_MAX_CALLS)
				break;
			mv_str(c, "to", to, sizeof(to));
			for (unsigned j = 0; j < m->ntask; j++)
				if (!strcmp(m->task[j].name, to))
					ti = (int)j;
			if (ti < 0) {
				util_cause(cause, "the saved model calls a task it does not have");
				goto out;
			}
			mc = &k->calls[k->ncalls++];
			mc->to = ti;
			mc->mean = mv_num(c, "mean");
			mc->wakes = (uint64_t)mv_num(c, "wakeups");
			mc->wait_s = mv_num(c, "wait_s");
			mc->via_softirq = mv_num(c, "via_softirq");
			mv_str(c, "channel", ch, sizeof(ch));
			mc->channel = mv_channel(ch);
		}
	}
	{
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "other");

		m->other_tasks = (unsigned)mv_num(o, "tasks");
		m->other_cpu_share = mv_num(o, "cpu_share");
	}
	{
		/* the probe correction (absent in models saved before it: none) */
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "probe_correction");
		const cJSON *u = cJSON_GetObjectItemCaseSensitive(root, "unprobed");
		char src[16];

		mv_str(o, "source", src, sizeof(src));
		m->probe.source = !strcmp(src, "stats") ? MODEL_PROBE_STATS :
				  !strcmp(src, "estimate") ? MODEL_PROBE_ESTIMATE : MODEL_PROBE_NONE;
		m->probe.mean_ns = mv_num(o, "mean_run_ns");
		m->probe.floored = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "floored"));
		m->probe.switch_ns = mv_num(o, "switch_ns");
		m->probe.wake_ns = mv_num(o, "wakeup_ns");
		m->probe.events_per_s = mv_num(o, "events_per_s");
		m->probe.cpus = mv_num(o, "cpus_removed");
		m->probe.clamped = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "clamped"));
		m->probe.solved = cJSON_IsObject(u);
		m->probe.x = mv_num(u, "throughput");
		m->probe.r = mv_num(u, "response_s");
	}
	{
		/* the check (absent in models saved before it: not checked) */
		const cJSON *o = cJSON_GetObjectItemCaseSensitive(root, "check");

		if (cJSON_IsObject(o)) {
			struct model_check *c = &m->check;

			c->done = 1;
			c->valid = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "valid"));
			c->x_meas = mv_num(o, "throughput_measured");
			c->x_model = mv_num(o, "throughput_model");
			c->x_err = mv_num(o, "throughput_error");
			c->r_meas = mv_num(o, "response_measured_s");
			c->r_model = mv_num(o, "response_model_s");
			c->r_err = mv_num(o, "response_error");
			c->unexplained_s = mv_num(o, "unexplained_s");
			c->unattributed_s = mv_num(o, "unattributed_s");
			mv_str(o, "why", c->why, sizeof(c->why));
		}
	}
	kw = cJSON_GetObjectItemCaseSensitive(root, "kernel_wakers");
	cJSON_ArrayForEach(t, kw) {
		struct model_kthread *k;

		if (m->nkthreads == MODEL_MAX_KTHREADS)
			break;
		k = &m->kthreads[m->nkthreads++];
		k->pid = (uint32_t)mv_num(t, "pid");
		mv_str(t, "comm", k->comm, sizeof(k->comm));
		mv_str(t, "role", k->role, sizeof(k->role));
		mv_str(t, "work", k->work, sizeof(k->work));
		k->wakes = (uint64_t)mv_num(t, "wakeups");
	}
	err = 0;
out:
	cJSON_Delete(root);
	return err;
}
