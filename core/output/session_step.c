/* session_step — steps into a session. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probe/kind.h"
#include "output/session_step.h"
#include "step/step_exec.h"
#include "step/step_json.h"
#include "analysis/step_merge.h"

int session_step_proposal(struct session *s, unsigned step, const char *agent,
			  const struct step *st, char *const *lines, unsigned nlines,
			  const char *focus)
{
	char *spec;
	int err;

	if (!s)
		return 0;
	spec = st ? step_to_json(st) : NULL;
	if (st && !spec)
		return -errno;
	err = session_write_proposal(s, step, agent ? agent : "agent", spec ? spec : "null",
				     lines, nlines, focus);
	free(spec);
	return err;
}

int session_step_decision(struct session *s, unsigned step, enum session_decision d,
			  const char *by, const char *reason, const struct step *original,
			  const struct step *edited)
{
	char *o = NULL, *e = NULL;
	int err = -ENOMEM;

	if (!s)
		return 0;
	if (original && !(o = step_to_json(original)))
		goto out;
	if (edited && !(e = step_to_json(edited)))
		goto out;
	err = session_write_decision(s, step, d, by ? by : "human", reason, o ? o : "null", e);
out:
	free(o);
	free(e);
	return err;
}

static const char *result_status(const struct step_data *d, const struct step_exec_info *info)
{
	if (!d)
		return "error";
	if (!info)
		return "ok";
	switch (info->state) {
	case STEP_EXEC_OVER_BUDGET:
		return "detached";
	case STEP_EXEC_STOPPED:
		return "stopped";
	case STEP_EXEC_FAILED:
		return "error";
	default:
		return "ok";
	}
}

int session_step_result(struct session *s, unsigned step, const struct step *st,
			const struct step_data *d, const struct step_exec_info *info,
			const char *summary, uint32_t exclude_tgid)
{
	struct step_report rep = { 0 };
	char *own = NULL, *json = NULL;
	int err = 0, e;

	if (!s)
		return 0;
	if (!summary && st && d)
		summary = own = step_summary(st, d, 1);
	if (st) {
		rep.index = step ? step - 1 : 0;
		rep.decision = "run";
		rep.s = st;
		rep.d = d;
		rep.info = info;
		rep.summary = summary;
		json = step_report_json(&rep);
	}
	err = session_write_step_result(s, step, result_status(d, info),
					summary ? summary : (info && info->reason[0] ? info->reason :
							     "measured nothing"),
					json);
	if (err == -EINVAL && json)   /* the report did not parse: the line without it */
		err = session_write_step_result(s, step, result_status(d, info),
						summary ? summary : "", NULL);
	for (unsigned w = 0; d && d->prof && w < d->prof->nwin; w++) {
		e = session_write_window_without(s, d->prof, w, step, exclude_tgid);
		if (e && !err)
			err = e;
	}
	free(json);
	free(own);
	return err;
}

int session_log_step_data(const struct session_log *l, size_t nev, unsigned step,
			  struct step **s_out, struct step_data **d_out)
{
	const char *spec = NULL;
	struct profile *p = NULL;
	struct step *st = NULL;
	struct step_data *d = NULL;
	int has_result = 0, err;

	*s_out = NULL;
	*d_out = NULL;
	for (size_t i = 0; i < nev && i < l->nev; i++) {
		const struct session_event *e = &l->ev[i];

		if (e->step != step)
			continue;
		if (e->type == SESSION_EV_PROPOSAL && e->spec_json)
			spec = e->spec_json;
		else if (e->type == SESSION_EV_DECISION && (e->edited_json || e->spec_json))
			spec = e->edited_json ? e->edited_json : e->spec_json;
		else if (e->type == SESSION_EV_STEP_RESULT)
			has_result = 1;
	}
	if (!has_result || !spec)
		return -ENOENT;
	err = step_parse_json(spec, strlen(spec), &st, NULL);
	if (err)
		goto fail;
	if (!st->nresolved && st->ntargets) {
		/* not validated here (no kernel needed to replay): the targets as
		 * written are what the markers name */
		st->resolved = calloc(st->ntargets, sizeof(*st->resolved));
		if (!st->resolved) {
			err = -ENOMEM;
			goto fail;
		}
		for (unsigned i = 0; i < st->ntargets; i++)
			if (!(st->resolved[i] = strdup(st->targets[i]))) {
				err = -ENOMEM;
				goto fail;
			}
		st->nresolved = st->ntargets;
	}
	p = session_log_profile_upto(l, nev, step);
	if (!p) {
		err = -ENOENT;
		goto fail;
	}
	d = step_data_new(st->nresolved, kind_unit(st->kind));
	if (!d) {
		err = -ENOMEM;
		goto fail;
	}
	for (unsigned w = 0; w < p->nwin; w++) {
		int dw = step_data_window_begin(d, p->wins[w].cond, p->wins[w].start_s);

		if (dw < 0) {
			err = dw;
			goto fail;
		}
		step_data_window_end(d, (unsigned)dw, p->wins[w].secs);
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct profile_stack *ps = &p->stacks[i];
		unsigned ti = 0;

		for (uint32_t f = 0; f < ps->nframes; f++)
			if (!strncmp(ps->frames[f], "[tp] ", 5))
				for (unsigned k = 0; k < st->nresolved; k++)
					if (!strcmp(ps->frames[f] + 5, st->resolved[k]))
						ti = k;
		for (unsigned w = 0; w < p->nwin; w++) {
			struct step_target_win *tw;

			if (!ps->win[w])
				continue;
			err = profile_add_user(d->prof, w, ps->frames, ps->nframes, ps->uframes,
					       ps->nuframes, ps->tgid, ps->comm,
					  ps->win[w]);
			if (err)
				goto fail;
			tw = step_data_target(d, w, ti);
			tw->events += ps->win[w];
			tw->recorded += ps->win[w];
		}
	}
	profile_free(p);
	*s_out = st;
	*d_out = d;
	return 0;
fail:
	profile_free(p);
	step_data_free(d);
	step_free(st);
	return err;
}
