/* model_write — the model as LQNS input (lqn), LQN XML (lqnx), Graphviz
 * (dot), JSON and a text summary.
 *
 * lqn follows the SRVN input grammar LQNS reads: G (comment, convergence,
 * iteration limit, print interval, under-relaxation), P (p NAME f|s [m N|i]),
 * T (t NAME r|n ENTRY -1 PROC [z THINK] [m N|i]), E (s ENTRY demand -1,
 * y FROM TO calls -1), each section closed by -1.  One entry per task, named
 * after it with "_e".  The lock is written as what LQN calls a critical
 * section: a task of multiplicity 1 whose entry holds it for the holding
 * time (a semaphore task proper needs separate wait and signal calls, which
 * a kernel trace does not separate).  The disk is a processor of its own
 * hosting an infinite task whose entry is one visit.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "model/model_write.h"
#include "model/model_view.h"

/* An identifier for LQN and dot ids: [A-Za-z0-9_], starting with a letter. */
static void model_ident(const char *s, char *out, size_t len)
{
	size_t o = 0;

	if (len < 3)
		return;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		out[o++] = 't';
	for (; *s && o + 1 < len; s++)
		out[o++] = ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
			    (*s >= '0' && *s <= '9')) ? *s : '_';
	out[o] = 0;
}

/* Text for people and quoted strings: control characters, quotes and
 * backslashes escaped. */
static void model_escape(const char *s, char *out, size_t len)
{
	size_t o = 0;

	for (; *s && o + 5 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, len - o, "\\x%02x", c);
		else if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
		} else
			out[o++] = (char)c;
	}
	out[o] = 0;
}

static const char *model_kind_name(enum model_task_kind k)
{
	return k == MODEL_TASK_SEMAPHORE ? "semaphore" : k == MODEL_TASK_DISK ? "disk" : "task";
}

/* Which probe correction the demands carry, in one line (no newline). */
static void model_probe_line(const struct model *m, char *buf, size_t len)
{
	const struct model_probe *pr = &m->probe;

	if (pr->source == MODEL_PROBE_NONE) {
		snprintf(buf, len, "demands as measured under the scheduler-time probe (no probe correction)");
		return;
	}
	if (pr->source == MODEL_PROBE_STATS && !pr->floored)
		snprintf(buf, len, "demands without the scheduler-time probe: %.3f%% of one CPU removed "
			 "(%.0f switch-ins and wakeups/s at %.0f ns each, from BPF run-time statistics)%s",
			 pr->cpus * 100, pr->events_per_s, pr->switch_ns,
			 pr->clamped ? "; clamped to a task's CPU" : "");
	else if (pr->source == MODEL_PROBE_STATS)
		snprintf(buf, len, "demands without the scheduler-time probe: %.3f%% of one CPU removed "
			 "(%.0f switch-ins and wakeups/s at %.0f ns a switch-in and %.0f ns a wakeup: "
			 "the BPF run-time statistics' mean, %.0f ns a run, is below what a load's "
			 "event costs)%s", pr->cpus * 100, pr->events_per_s, pr->switch_ns, pr->wake_ns,
			 pr->mean_ns, pr->clamped ? "; clamped to a task's CPU" : "");
	else
		snprintf(buf, len, "demands without the scheduler-time probe: %.3f%% of one CPU removed "
			 "(%.0f switch-ins and wakeups/s, estimated at %.0f ns a switch-in and %.0f ns a "
			 "wakeup: no BPF run-time statistics)%s", pr->cpus * 100, pr->events_per_s,
			 pr->switch_ns, pr->wake_ns, pr->clamped ? "; clamped to a task's CPU" : "");
}

static int model_done(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

int model_write_lqn(const struct model *m, FILE *out)
{
	char id[80], id2[80];
	unsigned nent = 0;

	fprintf(out, "# argus model: %u task(s) from %.1f s of windows; measured %.2f cycles/s, "
		"response %.3f ms\n", m->ntask, m->secs, m->x, m->r * 1e3);
	if (m->note[0]) {
		char esc[300];

		model_escape(m->note, esc, sizeof(esc));
		fprintf(out, "# %s\n", esc);
	}
	{
		char line[320];

		model_probe_line(m, line, sizeof(line));
		fprintf(out, "# %s\n", line);
	}
	fprintf(out, "\nG \"argus model\" 1e-05 100 1 0.9 -1\n\n");
	{
		int disk = 0;

		for (unsigned i = 0; i < m->ntask; i++)
			disk |= m->task[i].kind == MODEL_TASK_DISK;
		/* FIFO: the one discipline every LQN solver takes */
		fprintf(out, "P %d\n  p host f m %u\n%s-1\n\n", 1 + disk, m->cpus,
			disk ? "  p disk f\n" : "");
	}
	fprintf(out, "T %u\n", m->ntask);
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];

		model_ident(t->name, id, sizeof(id));
		if (t->ref)
			fprintf(out, "  t %s r %s_e -1 host z %.9g m %u\n", id, id, t->sleep_s,
				t->threads);
		else if (t->kind == MODEL_TASK_DISK)
			fprintf(out, "  t %s n %s_e -1 disk i\n", id, id);
		else if (t->kind == MODEL_TASK_SEMAPHORE)
			fprintf(out, "  t %s n %s_e -1 host m 1  # lock: %s\n", id, id, "critical section");
		else if (t->per_caller)
			fprintf(out, "  t %s n %s_e -1 host i  # one thread per caller (%u seen)\n",
				id, id, t->threads);
		else
			fprintf(out, "  t %s n %s_e -1 host m %u\n", id, id, t->threads);
		nent++;
	}
	fprintf(out, "-1\n\nE %u\n", nent);
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];
		double d = t->cpu_s + (t->ref ? 0 : t->sleep_s) + t->net_s + t->other_s;

		model_ident(t->name, id, sizeof(id));
		fprintf(out, "# ---------- %s ----------\n", id);
		fprintf(out, "  s %s_e %.9g -1\n", id, d);
		for (unsigned c = 0; c < t->ncalls; c++) {
			model_ident(m->task[t->calls[c].to].name, id2, sizeof(id2));
			fprintf(out, "  y %s_e %s_e %.6g -1\n", id, id2, t->calls[c].mean);
		}
	}
	fprintf(out, "-1\n");
	return model_done(out);
}

int model_write_lqnx(const struct model *m, FILE *out)
{
	static const char *const procs[] = { "host", "disk" };
	char id[80], id2[80];

	fprintf(out, "<?xml version=\"1.0\"?>\n"
		"<lqn-model name=\"argus\" description=\"argus model: %.2f cycles/s measured\" "
		"xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
		"xsi:noNamespaceSchemaLocation=\"/usr/local/share/lqns/lqn.xsd\">\n"
		"   <solver-params comment=\"argus model\" conv_val=\"1e-05\" it_limit=\"100\" "
		"print_int=\"1\" underrelax_coeff=\"0.9\"/>\n", m->x);
	{
		char line[320];

		model_probe_line(m, line, sizeof(line)); /* no "--" in it */
		fprintf(out, "   <!-- %s -->\n", line);
	}
	for (int p = 0; p < 2; p++) {
		int any = 0;

		for (unsigned i = 0; i < m->ntask; i++)
			any |= (m->task[i].kind == MODEL_TASK_DISK) == (p == 1);
		if (!any)
			continue;
		if (p == 0)
			fprintf(out, "   <processor name=\"host\" scheduling=\"fcfs\" "
				"multiplicity=\"%u\">\n", m->cpus);
		else
			fprintf(out, "   <processor name=\"%s\" scheduling=\"fcfs\">\n", procs[p]);
		for (unsigned i = 0; i < m->ntask; i++) {
			const struct model_task *t = &m->task[i];
			double d = t->cpu_s + (t->ref ? 0 : t->sleep_s) + t->net_s + t->other_s;

			if ((t->kind == MODEL_TASK_DISK) != (p == 1))
				continue;
			model_ident(t->name, id, sizeof(id));
			if (t->ref)
				fprintf(out, "      <task name=\"%s\" scheduling=\"ref\" think-time=\"%.9g\" "
					"multiplicity=\"%u\">\n", id, t->sleep_s, t->threads);
			else if (t->per_caller || t->kind == MODEL_TASK_DISK)
				fprintf(out, "      <task name=\"%s\" scheduling=\"inf\">\n", id);
			else
				fprintf(out, "      <task name=\"%s\" scheduling=\"fcfs\" multiplicity=\"%u\">\n",
					id, t->kind == MODEL_TASK_SEMAPHORE ? 1 : t->threads);
			fprintf(out, "         <entry name=\"%s_e\" type=\"PH1PH2\">\n"
				"            <entry-phase-activities>\n"
				"               <activity name=\"%s_ph1\" phase=\"1\" host-demand-mean=\"%.9g\"%s>\n",
				id, id, d, t->ncalls ? "" : "/");
			for (unsigned c = 0; c < t->ncalls; c++) {
				model_ident(m->task[t->calls[c].to].name, id2, sizeof(id2));
				fprintf(out, "                  <synch-call dest=\"%s_e\" calls-mean=\"%.6g\"/>\n",
					id2, t->calls[c].mean);
			}
			if (t->ncalls)
				fprintf(out, "               </activity>\n");
			fprintf(out, "            </entry-phase-activities>\n         </entry>\n      </task>\n");
		}
		fprintf(out, "   </processor>\n");
	}
	fprintf(out, "</lqn-model>\n");
	return model_done(out);
}

int model_write_dot(const struct model *m, FILE *out)
{
	char id[80], id2[80], esc[200];

	fprintf(out, "digraph argus_model {\n  rankdir=TB;\n  node [fontname=\"Helvetica\" fontsize=10];\n"
		"  edge [fontname=\"Helvetica\" fontsize=9];\n");
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];

		model_ident(t->name, id, sizeof(id));
		model_escape(t->name, esc, sizeof(esc));
		if (t->kind == MODEL_TASK_DISK)
			fprintf(out, "  %s [shape=cylinder label=\"%s\\n%.3f ms/visit\"];\n", id, esc,
				t->visit_s * 1e3);
		else if (t->kind == MODEL_TASK_SEMAPHORE)
			fprintf(out, "  %s [shape=octagon style=dashed label=\"%s (lock)\\nhold %.3f ms\\n"
				"wait %.3f ms x %llu\"];\n", id, esc, t->hold_s * 1e3, t->wait_s * 1e3,
				(unsigned long long)t->waits);
		else
			fprintf(out, "  %s [shape=box%s label=\"%s%s\\n%s%u thread%s\\nCPU %.3f ms%s\"];\n",
				id, t->ref ? " style=bold" : "", esc, t->ref ? " (reference)" : "",
				t->per_caller ? "1 per caller, " : "", t->threads, t->threads == 1 ? "" : "s",
				t->cpu_s * 1e3, t->ref ? "" : "/call");
		if (t->ref && t->sleep_s > 0)
			fprintf(out, "  %s_think [shape=plaintext label=\"think %.3f ms\"];\n"
				"  %s_think -> %s [style=dotted arrowhead=none];\n", id, t->sleep_s * 1e3, id, id);
	}
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];

		model_ident(t->name, id, sizeof(id));
		for (unsigned c = 0; c < t->ncalls; c++) {
			model_ident(m->task[t->calls[c].to].name, id2, sizeof(id2));
			fprintf(out, "  %s -> %s [label=\"%.2f (%s)\"];\n", id, id2, t->calls[c].mean,
				t->calls[c].channel ? t->calls[c].channel : "");
		}
	}
	if (m->other_tasks)
		fprintf(out, "  other [shape=note label=\"other: %u task%s, %.1f%% of CPU\"];\n",
			m->other_tasks, m->other_tasks == 1 ? "" : "s", m->other_cpu_share * 100);
	fprintf(out, "}\n");
	return model_done(out);
}

int model_write_json(const struct model *m, const struct model_prediction *p, FILE *out)
{
	cJSON *root = cJSON_CreateObject(), *tasks, *pred;
	char *s = NULL;
	int err = -ENOMEM;

	if (!root)
		return -ENOMEM;
	cJSON_AddNumberToObject(root, "seconds", m->secs);
	cJSON_AddNumberToObject(root, "cpus", m->cpus);
	cJSON_AddNumberToObject(root, "throughput", m->x);
	cJSON_AddNumberToObject(root, "response_s", m->r);
	cJSON_AddNumberToObject(root, "background_competitors", m->beta);
	cJSON_AddStringToObject(root, "reference", m->ref >= 0 ? m->task[m->ref].name : "");
	if (m->note[0])
		cJSON_AddStringToObject(root, "note", m->note);
	if (m->check.done) {
		/* the model's check of itself (model.h): "valid" at the top, the
		 * numbers and the reasons beside it */
		cJSON *ck = cJSON_AddObjectToObject(root, "check");
		char line[1024];

		cJSON_AddBoolToObject(root, "valid", m->check.valid);
		if (!ck)
			goto out;
		cJSON_AddBoolToObject(ck, "valid", m->check.valid);
		cJSON_AddNumberToObject(ck, "throughput_measured", m->check.x_meas);
		cJSON_AddNumberToObject(ck, "throughput_model", m->check.x_model);
		cJSON_AddNumberToObject(ck, "throughput_error", m->check.x_err);
		cJSON_AddNumberToObject(ck, "response_measured_s", m->check.r_meas);
		cJSON_AddNumberToObject(ck, "response_model_s", m->check.r_model);
		cJSON_AddNumberToObject(ck, "response_error", m->check.r_err);
		cJSON_AddNumberToObject(ck, "throughput_tolerance", MODEL_CHECK_X_TOL);
		cJSON_AddNumberToObject(ck, "response_tolerance", MODEL_CHECK_R_TOL);
		cJSON_AddNumberToObject(ck, "unexplained_s", m->check.unexplained_s);
		cJSON_AddNumberToObject(ck, "unattributed_s", m->check.unattributed_s);
		if (m->check.why[0])
			cJSON_AddStringToObject(ck, "why", m->check.why);
		cJSON_AddStringToObject(ck, "text", model_check_text(m, line, sizeof(line)));
	}
	if (m->probe_budget_pct > 0) {
		cJSON *pr = cJSON_AddObjectToObject(root, "probe");

		if (!pr)
			goto out;
		cJSON_AddNumberToObject(pr, "start_seconds", m->start_s);
		cJSON_AddNumberToObject(pr, "wall_seconds", m->wall_s);
		cJSON_AddNumberToObject(pr, "attached_fraction", m->probe_attached);
		cJSON_AddNumberToObject(pr, "cost_pct", m->probe_cost_pct);
		cJSON_AddNumberToObject(pr, "cost_attached_pct", m->probe_cost_on_pct);
		cJSON_AddNumberToObject(pr, "budget_pct", m->probe_budget_pct);
		cJSON_AddBoolToObject(pr, "duty_cycle", m->probe_duty);
		if (m->pace_on > 0 && m->pace_off > 0) {
			cJSON_AddNumberToObject(pr, "pace_attached_per_s", m->pace_on);
			cJSON_AddNumberToObject(pr, "pace_detached_per_s", m->pace_off);
			cJSON_AddStringToObject(pr, "pace_unit", m->pace_unit);
			/* the measured throughput at the detached pace */
			cJSON_AddNumberToObject(pr, "throughput_detached", m->x * m->pace_off / m->pace_on);
		}
	}
	tasks = cJSON_AddArrayToObject(root, "tasks");
	for (unsigned i = 0; tasks && i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];
		cJSON *o = cJSON_CreateObject(), *calls;

		if (!o)
			goto out;
		cJSON_AddItemToArray(tasks, o);
		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "kind", model_kind_name(t->kind));
		if (t->kind != MODEL_TASK_DISK) {
			cJSON_AddNumberToObject(o, "tgid", t->tgid);
			cJSON_AddStringToObject(o, "comm", t->comm);
			cJSON_AddStringToObject(o, "cmdline", t->cmdline);
			cJSON_AddStringToObject(o, "unit", t->unit);
			cJSON_AddStringToObject(o, "container", t->container);
		}
		cJSON_AddNumberToObject(o, "threads", t->threads);
		cJSON_AddBoolToObject(o, "reference", t->ref);
		cJSON_AddBoolToObject(o, "per_caller", t->per_caller);
		cJSON_AddNumberToObject(o, "invocations", t->invocations);
		cJSON_AddNumberToObject(o, "cpu_s", t->cpu_s);
		if (t->kind != MODEL_TASK_DISK) {
			cJSON_AddNumberToObject(o, "cpu_measured_s", t->cpu_s + t->probe_s);
			cJSON_AddNumberToObject(o, "probe_s", t->probe_s);
			cJSON_AddNumberToObject(o, "probe_switches", t->probe_switches);
			cJSON_AddNumberToObject(o, "probe_wakeups", t->probe_wakes);
		}
		cJSON_AddNumberToObject(o, t->ref ? "think_s" : "sleep_s", t->sleep_s);
		cJSON_AddNumberToObject(o, "network_s", t->net_s);
		cJSON_AddNumberToObject(o, "other_wait_s", t->other_s);
		cJSON_AddNumberToObject(o, "cpu_used", t->util_cpus);
		cJSON_AddNumberToObject(o, "runnable_s", t->runq_s);
		if (t->kind == MODEL_TASK_SEMAPHORE) {
			cJSON_AddStringToObject(o, "stack", t->stack);
			cJSON_AddNumberToObject(o, "waits", (double)t->waits);
			cJSON_AddNumberToObject(o, "wait_s", t->wait_s);
			cJSON_AddNumberToObject(o, "hold_s", t->hold_s);
		}
		if (t->kind == MODEL_TASK_DISK)
			cJSON_AddNumberToObject(o, "visit_s", t->visit_s);
		calls = cJSON_AddArrayToObject(o, "calls");
		for (unsigned c = 0; calls && c < t->ncalls; c++) {
			cJSON *co = cJSON_CreateObject();

			if (!co)
				goto out;
			cJSON_AddItemToArray(calls, co);
			cJSON_AddStringToObject(co, "to", m->task[t->calls[c].to].name);
			cJSON_AddNumberToObject(co, "mean", t->calls[c].mean);
			cJSON_AddNumberToObject(co, "wakeups", (double)t->calls[c].wakes);
			cJSON_AddStringToObject(co, "channel", t->calls[c].channel ? t->calls[c].channel : "");
			cJSON_AddNumberToObject(co, "wait_s", t->calls[c].wait_s);
			cJSON_AddNumberToObject(co, "via_softirq", t->calls[c].via_softirq);
		}
	}
	{
		cJSON *o = cJSON_AddObjectToObject(root, "probe_correction");
		char line[320];

		if (o) {
			cJSON_AddStringToObject(o, "source", model_probe_source_name(m->probe.source));
			if (m->probe.source == MODEL_PROBE_STATS) {
				cJSON_AddNumberToObject(o, "mean_run_ns", m->probe.mean_ns);
				cJSON_AddBoolToObject(o, "floored", m->probe.floored);
			}
			cJSON_AddNumberToObject(o, "switch_ns", m->probe.switch_ns);
			cJSON_AddNumberToObject(o, "wakeup_ns", m->probe.wake_ns);
			cJSON_AddNumberToObject(o, "events_per_s", m->probe.events_per_s);
			cJSON_AddNumberToObject(o, "cpus_removed", m->probe.cpus);
			cJSON_AddBoolToObject(o, "clamped", m->probe.clamped);
			model_probe_line(m, line, sizeof(line));
			cJSON_AddStringToObject(o, "note", line);
		}
	}
	if (m->probe.solved && m->ref >= 0) {
		cJSON *o = cJSON_AddObjectToObject(root, "unprobed");

		if (o) {
			cJSON_AddNumberToObject(o, "clients", m->task[m->ref].threads);
			cJSON_AddNumberToObject(o, "throughput", m->probe.x);
			cJSON_AddNumberToObject(o, "response_s", m->probe.r);
			if (m->check.done)
				cJSON_AddBoolToObject(o, "trustworthy", m->check.valid);
		}
	}
	{
		cJSON *o = cJSON_AddObjectToObject(root, "other");

		if (o) {
			cJSON_AddNumberToObject(o, "tasks", m->other_tasks);
			cJSON_AddNumberToObject(o, "cpu_share", m->other_cpu_share);
		}
	}
	{
		cJSON *kt = cJSON_AddArrayToObject(root, "kernel_wakers");

		for (unsigned i = 0; kt && i < m->nkthreads; i++) {
			cJSON *o = cJSON_CreateObject();

			if (!o)
				goto out;
			cJSON_AddItemToArray(kt, o);
			cJSON_AddNumberToObject(o, "pid", m->kthreads[i].pid);
			cJSON_AddStringToObject(o, "comm", m->kthreads[i].comm);
			cJSON_AddStringToObject(o, "role", m->kthreads[i].role);
			cJSON_AddStringToObject(o, "work", m->kthreads[i].work);
			cJSON_AddNumberToObject(o, "wakeups", (double)m->kthreads[i].wakes);
		}
	}
	if (p) {
		pred = cJSON_AddObjectToObject(root, "prediction");
		if (pred) {
			cJSON *u;

			cJSON_AddNumberToObject(pred, "clients", p->clients);
			cJSON_AddNumberToObject(pred, "cpus", p->cpus);
			cJSON_AddNumberToObject(pred, "throughput", p->x);
			if (p->x_probed > 0)
				cJSON_AddNumberToObject(pred, "throughput_probed", p->x_probed);
			cJSON_AddNumberToObject(pred, "response_s", p->r);
			cJSON_AddNumberToObject(pred, "cpu_util", p->cpu_util);
			cJSON_AddNumberToObject(pred, "disk_util", p->disk_util);
			cJSON_AddBoolToObject(pred, "converged", p->converged);
			/* a model that does not reproduce the load predicts nothing
			 * to rely on (older models: not checked, not said) */
			if (m->check.done)
				cJSON_AddBoolToObject(pred, "trustworthy", m->check.valid);
			u = cJSON_AddObjectToObject(pred, "task_util");
			for (unsigned i = 0; u && i < m->ntask; i++)
				cJSON_AddNumberToObject(u, m->task[i].name, p->task_util[i]);
			u = cJSON_AddObjectToObject(pred, "task_wait_s");
			for (unsigned i = 0; u && i < m->ntask; i++)
				cJSON_AddNumberToObject(u, m->task[i].name, p->task_wait[i]);
			u = cJSON_AddObjectToObject(pred, "task_cpu_wait_s");
			for (unsigned i = 0; u && i < m->ntask; i++)
				cJSON_AddNumberToObject(u, m->task[i].name, p->task_cpu_wait[i]);
		}
	}
	s = cJSON_Print(root);
	if (!s)
		goto out;
	fputs(s, out);
	fputc('\n', out);
	err = model_done(out);
out:
	cJSON_free(s);
	cJSON_Delete(root);
	return err;
}

int model_write_text(const struct model *m, const struct model_prediction *p, FILE *out)
{
	char esc[200], esc2[200];

	fprintf(out, "model: %u task%s from %.1f s; measured %.2f cycles/s, response %.3f ms; %u CPU%s\n",
		m->ntask, m->ntask == 1 ? "" : "s", m->secs, m->x, m->r * 1e3, m->cpus,
		m->cpus == 1 ? "" : "s");
	if (m->note[0]) {
		model_escape(m->note, esc, sizeof(esc));
		fprintf(out, "note: %s\n", esc);
	}
	if (m->check.done) {
		char line[1024];

		fprintf(out, "check: %s\n", model_check_text(m, line, sizeof(line)));
	}
	{
		char line[320];

		model_probe_line(m, line, sizeof(line));
		fprintf(out, "probe: %s\n", line);
		if (m->probe.solved)
			fprintf(out, "without the probe at the measured load: %.2f cycles/s, response %.3f ms\n",
				m->probe.x, m->probe.r * 1e3);
	}
	for (unsigned i = 0; i < m->ntask; i++) {
		const struct model_task *t = &m->task[i];

		model_escape(t->name, esc, sizeof(esc));
		if (t->kind == MODEL_TASK_DISK) {
			fprintf(out, "  %-20s disk      %.3f ms per visit", esc, t->visit_s * 1e3);
		} else if (t->kind == MODEL_TASK_SEMAPHORE) {
			model_escape(t->stack, esc2, sizeof(esc2));
			fprintf(out, "  %-20s lock      hold %.3f ms, %llu waits of %.3f ms (%s)", esc,
				t->hold_s * 1e3, (unsigned long long)t->waits, t->wait_s * 1e3, esc2);
		} else {
			fprintf(out, "  %-20s %-9s %u thread%s%s, CPU %.3f ms", esc,
				t->ref ? "reference" : "task", t->threads, t->threads == 1 ? "" : "s",
				t->per_caller ? " (1 per caller)" : "", t->cpu_s * 1e3);
			if (t->probe_s > 0)
				fprintf(out, " (%.3f ms probe removed)", t->probe_s * 1e3);
			if (t->ref)
				fprintf(out, ", think %.3f ms", t->sleep_s * 1e3);
			else if (t->sleep_s > 0)
				fprintf(out, ", sleep %.3f ms", t->sleep_s * 1e3);
			if (t->net_s > 0)
				fprintf(out, ", network %.3f ms (woken by a softirq, no sender found)",
					t->net_s * 1e3);
		}
		if (p)
			fprintf(out, "; predicted util %.0f%%", p->task_util[i] * 100);
		fputc('\n', out);
		for (unsigned c = 0; c < t->ncalls; c++) {
			model_escape(m->task[t->calls[c].to].name, esc2, sizeof(esc2));
			fprintf(out, "      -> %s x %.2f (%s", esc2, t->calls[c].mean,
				t->calls[c].channel ? t->calls[c].channel : "");
			/* the wakeups the probe tied to a packet's sender */
			if (t->calls[c].via_softirq > 0)
				fprintf(out, "; %.0f%% of its wakeups in a softirq, charged to the "
					"packet's sender", t->calls[c].via_softirq * 100);
			fputs(")\n", out);
		}
	}
	if (m->other_tasks)
		fprintf(out, "  other: %u task%s, %.1f%% of the CPU time\n", m->other_tasks,
			m->other_tasks == 1 ? "" : "s", m->other_cpu_share * 100);
	for (unsigned i = 0; i < m->nkthreads; i++) {
		model_escape(m->kthreads[i].comm, esc, sizeof(esc));
		model_escape(m->kthreads[i].work, esc2, sizeof(esc2));
		fprintf(out, "  woken by kernel thread %s (%s%s%s)\n", esc, m->kthreads[i].role,
			esc2[0] ? ": " : "", esc2);
	}
	{
		struct model_chain ch;
		char line[640];

		/* where the reference's response time goes (core/model/model_view.h) */
		if (!model_wait_chain(m, &ch))
			fprintf(out, "wait chain: %s\n", model_chain_text(m, &ch, 0, line, sizeof(line)));
	}
	if (p)
		fprintf(out, "predicted at %u client%s, %u CPU%s: %.2f cycles/s, response %.3f ms, "
			"CPU %.0f%%, disk %.0f%%%s\n", p->clients, p->clients == 1 ? "" : "s", p->cpus,
			p->cpus == 1 ? "" : "s", p->x, p->r * 1e3, p->cpu_util * 100, p->disk_util * 100,
			p->converged ? "" : " (not converged)");
	if (p && m->check.done && !m->check.valid)
		fprintf(out, "the prediction is UNTRUSTWORTHY: the model does not reproduce the "
			"measured load (check above)\n");
	return model_done(out);
}
