/* measure_seq — the look after each pair (see measure_seq.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/calib.h"
#include "measure/measure_seq.h"
#include "data/tree.h"
#include "base/util.h"

#define MEASURE_SEQ_MAX_SLICES 256

struct measure_seq {
	struct measure_seq_opts o;
	struct seqstop_opts so;
	struct seqstop_look *looks;
	unsigned nlooks;
	struct seqstop_decision dec;
	double slice[MEASURE_SEQ_MAX_SLICES];
	unsigned nslice;
	double slice_s;
	int sliced;            /* the first look happened: no more slices */
	double t0;             /* the measurement's start (util_mono_s) */
	char why[200];
};

struct measure_seq *measure_seq_new(const struct measure_seq_opts *o)
{
	struct measure_seq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->o = *o;
	if (!q->o.max_pairs)
		q->o.max_pairs = SEQSTOP_DEFAULT_MAX_PAIRS;
	seqstop_opts_default(&q->so);
	q->so.max_pairs = q->o.max_pairs;
	if (q->o.min_pairs)
		q->so.min_pairs = q->o.min_pairs;
	q->so.deadline_s = q->o.deadline_s > 0 ? q->o.deadline_s : 0;
	q->t0 = util_mono_s();
	if (!(q->o.explain > 0 && q->o.explain <= 1))
		q->o.explain = 0.5;
	q->looks = calloc(q->o.max_pairs, sizeof(*q->looks));
	if (!q->looks) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	return q;
}

void measure_seq_free(struct measure_seq *q)
{
	if (!q)
		return;
	free(q->looks);
	free(q);
}

uint64_t measure_seq_busy(const struct profile *p, unsigned w, uint32_t self)
{
	uint64_t n = 0;

	if (!p || w >= p->nwin)
		return 0;
	for (size_t i = 0; i < p->nstacks; i++)
		if (p->stacks[i].tgid && p->stacks[i].tgid != self)
			n += p->stacks[i].win[w];
	return n;
}

void measure_seq_slice(struct measure_seq *q, double busy, double slice_s)
{
	if (!q || q->sliced || q->nslice == MEASURE_SEQ_MAX_SLICES)
		return;
	q->slice[q->nslice++] = busy;
	q->slice_s = slice_s;
}

int measure_seq_slicing(const struct measure_seq *q)
{
	return q && !q->sliced && q->o.adapt_settle;
}

uint64_t measure_seq_count_tgids(const struct profile *p, unsigned w, const uint32_t *tg,
				 unsigned ntg)
{
	uint64_t n = 0;

	if (!p || w >= p->nwin)
		return 0;
	for (size_t i = 0; i < p->nstacks; i++)
		for (unsigned k = 0; k < ntg; k++)
			if (p->stacks[i].tgid == tg[k]) {
				n += p->stacks[i].win[w];
				break;
			}
	return n;
}

static void adapt(struct measure_seq *q, double rises, double *window_s, double *settle_s,
		  FILE *log)
{
	struct seqstop_window_in in = { .window_s = *window_s, .settle_s = *settle_s };
	struct seqstop_window_out out;

	in.ref_rate = 0;
	in.load_rate = rises;
	in.slice = q->nslice ? q->slice : NULL;
	in.nslice = q->nslice;
	in.slice_s = q->slice_s;
	seqstop_windows(&in, NULL, &out);
	if (q->o.adapt_window)
		*window_s = out.window_s;
	if (q->o.adapt_settle)
		*settle_s = out.settle_s;
	snprintf(q->why, sizeof(q->why), "%s", out.why);
	if (log) {
		fprintf(log, "argus: after pair 1: %s%s%s\n", out.why,
			q->o.adapt_window ? "" : " (window kept: --window given)",
			q->o.adapt_settle ? "" : " (settle kept: --settle given)");
		fflush(log);
	}
}

int measure_seq_pair(struct measure_seq *q, const struct profile *p, unsigned pair,
		     double *window_s, double *settle_s, FILE *log)
{
	struct analysis_opts ao = { .group = TREE_BY_SUBSYS, .exclude_tgid = q->o.exclude_tgid,
				    .freq_hz = q->o.freq_hz, .explain = q->o.explain };
	struct seqstop_look *l;
	struct calib_opts co;
	char *cause = NULL;
	int err;

	if (q->nlooks == q->o.max_pairs || pair == 0)
		return q->dec.stop;
	l = &q->looks[q->nlooks];
	calib_opts_default(&co);
	co.freq_hz = q->o.freq_hz;
	co.sequential = 1;
	ao.calib = &co;
	/* the one analysis (core/analysis/analysis.h), as the verdict will be computed */
	err = seqstop_look_build(p, &ao, q->so.margin, pair, l, &cause);
	if (err < 0) {
		if (log)
			fprintf(log, "argus: pair %u: %s\n", pair, cause ? cause : strerror(-err));
		free(cause);
		return err;
	}
	free(cause);
	l->elapsed_s = util_mono_s() - q->t0;
	if (pair == 1 && (q->o.adapt_window || q->o.adapt_settle))
		adapt(q, l->rises, window_s, settle_s, log);
	q->sliced = 1;
	q->nlooks++;
	seqstop_decide(q->looks, q->nlooks, &q->so, &q->dec);
	if (log) {
		fprintf(log, "argus: pair %u: %s%s%s\n", pair, q->dec.reason,
			l->found && l->leaf[0] ? "; verdict so far: " : "", l->found ? l->leaf : "");
		fflush(log);
	}
	return q->dec.stop;
}

const struct seqstop_decision *measure_seq_decision(const struct measure_seq *q)
{
	return &q->dec;
}

const char *measure_seq_windows_why(const struct measure_seq *q)
{
	return q->why;
}
