/* model_priv — shared by core/model.c and core/model_probe.c only. */
#ifndef ARGUS_MODEL_PRIV_H
#define ARGUS_MODEL_PRIV_H

#include "model.h"

/* The task that calls semaphore si (its pool), or -1. */
int model_pool_of(const struct model *m, int si);

/* Takes the probe's run time out of each task's CPU demand as o says
 * (o->probe_source) and solves m again at the measured load into m->probe;
 * model_build calls it after the calibration. */
void model_probe_correct(struct model *m, const struct model_opts *o);

#endif
