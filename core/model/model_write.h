/* model_write — the model in files: LQNS input, LQN XML, Graphviz, JSON and a
 * text summary (core/model/model_write.c).  Apart from model.h because the
 * text names the wait chain, which the model view (model_view.h) builds on
 * the model: the writers use both, neither uses them. */
#ifndef ARGUS_MODEL_WRITE_H
#define ARGUS_MODEL_WRITE_H

#include <stdio.h>

#include "model/model.h"

/* Return 0 or -errno. */
int model_write_lqn(const struct model *m, FILE *out);   /* LQNS input grammar */
int model_write_lqnx(const struct model *m, FILE *out);  /* LQN XML schema */
int model_write_dot(const struct model *m, FILE *out);   /* Graphviz */
/* JSON; p may be NULL (no prediction). */
int model_write_json(const struct model *m, const struct model_prediction *p, FILE *out);
/* A short text summary (tasks, demand, calls, the wait chain) for people;
 * p may be NULL.  Strings are escaped. */
int model_write_text(const struct model *m, const struct model_prediction *p, FILE *out);

#endif
