/* model_check — the model checks itself before it predicts (model.h,
 * struct model_check): solved at the measured load, does it give what was
 * measured, and if not, what may be why. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "model/model_priv.h"
#include "base/sanitize.h"

/* A share of the response worth naming as a cause. */
#define MODEL_CHECK_SHARE 0.10

__attribute__((format(printf, 2, 3)))
static void mc_why(struct model_check *c, const char *fmt, ...)
{
	size_t o = strlen(c->why);
	va_list ap;

	if (o + 3 >= sizeof(c->why))
		return;
	if (o) {
		memcpy(c->why + o, "; ", 3);
		o += 2;
	}
	va_start(ap, fmt);
	vsnprintf(c->why + o, sizeof(c->why) - o, fmt, ap);
	va_end(ap);
}

static double mc_err(double model, double meas)
{
	return meas > 0 ? (model - meas) / meas : 0;
}

void model_check_run(struct model *m, double r_meas, double unexplained_s, double unattributed_s)
{
	struct model_check *c = &m->check;
	struct model_prediction p;
	const char *why;
	double cycle;
	int r_ok, trivial;

	memset(c, 0, sizeof(*c));
	if (m->ref < 0 || m->x <= 0 || model_solve(m, NULL, &p, &why))
		return;
	c->done = 1;
	c->x_model = p.x;
	c->x_meas = m->x;
	c->r_model = p.r;
	c->r_meas = r_meas;
	c->x_err = mc_err(p.x, m->x);
	c->r_err = mc_err(p.r, r_meas);
	c->unexplained_s = unexplained_s;
	c->unattributed_s = unattributed_s;
	/* the cycle as measured: the reference's threads over its throughput */
	cycle = m->task[m->ref].threads / m->x;
	r_ok = fabs(c->r_err) <= MODEL_CHECK_R_TOL ||
	       fabs(p.r - r_meas) <= MODEL_CHECK_CYCLE_TOL * cycle;
	/* a trivial model (no calls) fits its one task to what was measured
	 * whatever the load's structure: nothing is checked by the fit */
	trivial = !strncmp(m->note, "trivial", 7);
	c->valid = fabs(c->x_err) <= MODEL_CHECK_X_TOL && r_ok && !trivial;
	if (c->valid)
		return;
	/* why it may be, most telling first */
	if (c->x_err < -MODEL_CHECK_X_TOL && m->beta == 0)
		mc_why(c, "its demands alone give %.0f%% less throughput than measured, without any "
		       "other work on the host: a demand or the calls per request counted too high, "
		       "or work the load overlaps done one after the other", -c->x_err * 100);
	else if (c->x_err > MODEL_CHECK_X_TOL)
		mc_why(c, "it is %.0f%% faster than measured whatever other work is assumed: a wait it "
		       "does not model", c->x_err * 100);
	if (!r_ok && c->r_err > 0)
		mc_why(c, "the reference's threads spend %.3f ms a cycle outside their think time, the "
		       "model %.3f ms: threads counted as clients that do not cycle (a main thread "
		       "that only waits), or a think time not seen as one", r_meas * 1e3, p.r * 1e3);
	else if (!r_ok)
		mc_why(c, "the reference's threads spend %.3f ms a cycle outside their think time, the "
		       "model only %.3f ms: waits it does not model", r_meas * 1e3, p.r * 1e3);
	if (r_meas > 0 && unexplained_s > MODEL_CHECK_SHARE * r_meas)
		mc_why(c, "%.0f%% of the reference's response (%.3f ms a cycle) is waits no task of "
		       "the model ended (woken by itself, a timeout or an unknown task)",
		       unexplained_s / r_meas * 100, unexplained_s * 1e3);
	if (r_meas > 0 && unattributed_s > MODEL_CHECK_SHARE * r_meas)
		mc_why(c, "%.3f ms a cycle of waits were ended by a softirq or an interrupt, not by a "
		       "sending task (over TCP loopback the NET_RX softirq wakes the receiver): "
		       "edges it could not attribute, modelled as delays (%.0f%% of the response)",
		       unattributed_s * 1e3, unattributed_s / r_meas * 100);
	if (trivial)
		mc_why(c, "a trivial model: no synchronous calls between tasks were found, so its fit "
		       "to the measured load says nothing about the load's structure");
	if (!c->why[0])
		mc_why(c, "no cause found in what was measured");
}

char *model_check_text(const struct model *m, char *buf, size_t len)
{
	const struct model_check *c = &m->check;
	char why[sizeof(c->why)];

	if (!len)
		return buf;
	buf[0] = 0;
	if (!c->done)
		return buf;
	if (c->valid) {
		snprintf(buf, len, "the model reproduces the measured load: %.2f cycles/s (model %.2f, "
			 "%+.1f%%), response %.3f ms (model %.3f, %+.1f%%)", c->x_meas, c->x_model,
			 c->x_err * 100, c->r_meas * 1e3, c->r_model * 1e3, c->r_err * 100);
		return buf;
	}
	sanitize_into(why, sizeof(why), c->why, SANITIZE_DEFAULT);
	snprintf(buf, len, "the model does NOT reproduce the measured load: %.2f cycles/s (model "
		 "%.2f, %+.1f%%; within %.0f%% needed), response %.3f ms (model %.3f, %+.1f%%; within "
		 "%.0f%%, or %.0f%% of the cycle, needed); why it may be: %s; its predictions are untrustworthy", c->x_meas,
		 c->x_model, c->x_err * 100, MODEL_CHECK_X_TOL * 100, c->r_meas * 1e3,
		 c->r_model * 1e3, c->r_err * 100, MODEL_CHECK_R_TOL * 100,
		 MODEL_CHECK_CYCLE_TOL * 100, why);
	return buf;
}
