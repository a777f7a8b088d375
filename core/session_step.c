/* session_step — steps into a session. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "session_step.h"
#include "step_exec.h"
#include "step_json.h"
#include "step_merge.h"

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
