/* controller_exec — the real executor behind the controller's seam: one
 * step through core/step/step_exec.h, its pre-flight through
 * core/step/step_preflight.h (see controller.h, ctl_exec_real). */
#include <errno.h>
#include <string.h>

#include "step/controller.h"
#include "host/load.h"
#include "step/step_exec.h"
#include "step/step_preflight.h"

/* arg: a struct step_exec_opts template, or NULL for the defaults */
static void *cx_start(void *arg, const struct step *s, char **cause)
{
	struct step_exec_opts o;

	if (arg)
		o = *(const struct step_exec_opts *)arg;
	else
		step_exec_opts_default(&o);
	return step_exec_new(s, &o, cause);
}

static int cx_tick(void *x, double now, char **cause)
{
	return step_exec_tick(x, now, cause);
}

static int cx_timeout_ms(void *x, double now)
{
	return step_exec_timeout_ms(x, now);
}

static int cx_finished(const void *x)
{
	return step_exec_finished(x);
}

static void cx_status(void *x, struct source_status *st)
{
	step_exec_status(x, st);
}

static void cx_info(const void *x, struct step_exec_info *info)
{
	step_exec_info(x, info);
}

static struct step_data *cx_take(void *x)
{
	struct step_data *d = step_exec_take_data(x);

	if (!d && !errno)
		errno = ENODATA;
	return d;
}

static void cx_stop(void *x)
{
	step_exec_stop(x);
}

static void cx_free(void *x)
{
	step_exec_free(x);
}

static int cx_preflight(void *arg, struct step *s, const struct caps *c,
			struct step_preflight *pf)
{
	(void)arg;
	memset(pf, 0, sizeof(*pf));
	return step_preflight(s, c, NULL, 0, NULL, pf);
}

static int cx_load_gone(void *arg, char *buf, size_t len)
{
	struct load *l = arg ? ((const struct step_exec_opts *)arg)->load : NULL;

	if (!l || !load_started(l) || load_alive(l))
		return 0;
	load_state(l, buf, len);
	return 1;
}

const struct ctl_exec_ops ctl_exec_real = {
	.start = cx_start,
	.tick = cx_tick,
	.timeout_ms = cx_timeout_ms,
	.finished = cx_finished,
	.status = cx_status,
	.info = cx_info,
	.take = cx_take,
	.stop = cx_stop,
	.free = cx_free,
	.preflight = cx_preflight,
	.load_gone = cx_load_gone,
};
