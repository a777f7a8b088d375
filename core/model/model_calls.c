/* model_calls — the calls of the model from the wait graph's wakeups:
 * which wakeups delivered a message, and which task starts the cycles
 * (the reference).  Used by core/model/model.c (model_build). */
#include <string.h>

#include "model/model_priv.h"

/* Wakeups that delivered a message.  A stream socket or pipe also wakes
 * the thread blocked on its other end when the peer reads (write-space
 * wakeups: unix_write_space, sk_stream_write_space); that thread finds no
 * data and blocks again.  Such a block lasts from the thread's block to
 * the peer's read: the peer's wakeup latency, a few microseconds.
 *
 * The short blocks, under MODEL_SPURIOUS_BUCKET (2^15 ns, 33 us), are
 * those wakeups and are not counted as messages (their time still is); a
 * peer that answers faster than that is undercounted.
 *
 * A message ping-pong without work or think time breaks that: most blocks
 * both ways are shorter (the answers too come within microseconds), and
 * the two kinds of block overlap in length.  Such a pair (fewer than half
 * of either side's blocks longer) is counted from both sides at once.
 * Per call, each side blocks at most twice on the other (once until the
 * other reads what it sent, the write-space wakeup; once until the
 * message) and often only once (the message finds it awake: the first
 * wakeup covered both) or, for a request, not at all (the callee had not
 * blocked yet).  So the calls are at least half the blocks of either side
 * (and at least its longer blocks); the side that waits through all of the
 * other's work (the client of a chain, the last callee) blocks twice a
 * call and makes the bound tight.  The pair's calls are the largest of
 * the four, one request and one reply each: both directions get that
 * count.  Where the longer blocks are the rule on one side at least, they
 * alone are counted (the smaller of the two directions for both where
 * they are the rule both ways; else each direction on its own): there
 * a write-space block can be longer than 33 us too (a slow wakeup on a busy
 * machine, or from an idle CPU's sleep state on a quiet one), and taking
 * the larger side would count it. */
#define MODEL_SPURIOUS_BUCKET 15

static int model_stream(enum wg_channel c)
{
	return c == WG_CH_UNIX || c == WG_CH_TCP || c == WG_CH_PIPE || c == WG_CH_UDP;
}

/* Blocks of a histogram, all and those of MODEL_SPURIOUS_BUCKET or
 * longer. */
static void model_hist_blocks(const uint64_t *h, uint64_t *all, uint64_t *longer)
{
	*all = *longer = 0;
	for (int b = 0; b < WG_BUCKETS; b++) {
		*all += h[b];
		if (b >= MODEL_SPURIOUS_BUCKET)
			*longer += h[b];
	}
}

void model_calls_add(struct model_work *w, unsigned a, unsigned b, const struct wg_edge *e)
{
	size_t k = (size_t)a * w->ng + b;
	uint64_t hs = 0;

	for (int i = 0; i < WG_BUCKETS; i++)
		hs += e->hist[i];
	/* the channel most of the blocks were on */
	if (e->count > w->wake_all[k] / 2 + 1 || !w->wake_all[k])
		w->wake_ch[k] = e->channel;
	w->wake_all[k] += e->count;
	w->wake_ns[k] += e->total_ns;
	if (model_stream(e->channel) && hs) {
		for (int i = 0; i < WG_BUCKETS; i++)
			w->wake_hist[k * WG_BUCKETS + (size_t)i] += e->hist[i];
	} else {
		w->wake[k] += e->count; /* no histogram, or not a stream: every wakeup */
	}
}

void model_calls_finish(struct model_work *w)
{
	unsigned ng = w->ng;

	for (unsigned a = 0; a < ng; a++)
		for (unsigned b = a + 1; b < ng; b++) {
			size_t ab = (size_t)a * ng + b, ba = (size_t)b * ng + a;
			uint64_t all1, long1, all2, long2;

			model_hist_blocks(&w->wake_hist[ab * WG_BUCKETS], &all1, &long1);
			model_hist_blocks(&w->wake_hist[ba * WG_BUCKETS], &all2, &long2);
			if (all1 && all2 && 2 * long1 < all1 && 2 * long2 < all2) {
				uint64_t calls = long1 > long2 ? long1 : long2;

				if ((all1 + 1) / 2 > calls)
					calls = (all1 + 1) / 2;
				if ((all2 + 1) / 2 > calls)
					calls = (all2 + 1) / 2;
				w->wake[ab] += calls;
				w->wake[ba] += calls;
				continue;
			}
			if (all1 && all2 && 2 * long1 >= all1 && 2 * long2 >= all2) {
				/* A call is a request and its reply, one long block each
				 * way: more long blocks one way than the other answers are
				 * write-space wakeups that outlasted 33 us (the peer slow
				 * to read: woken from an idle CPU's sleep state, common on
				 * a quiet machine), not calls.  Seen on tier3 at 1 client,
				 * quiet: the front woken 481 times by the client for 431
				 * replies, so 1.12 calls a request, and the back 0.90 a
				 * front's invocation.  Only where the long blocks are the
				 * rule both ways: a side whose blocks are mostly short (a
				 * think time of microseconds) has too few long ones to
				 * bound the other. */
				uint64_t calls = long1 < long2 ? long1 : long2;

				w->wake[ab] += calls;
				w->wake[ba] += calls;
				continue;
			}
			w->wake[ab] += long1;
			w->wake[ba] += long2;
		}
}

void model_pair_waits(const struct model_work *w, unsigned a, uint64_t *wakes, uint64_t *most,
		      uint64_t *ns, unsigned *partners)
{
	unsigned ng = w->ng;

	*wakes = *most = *ns = 0;
	*partners = 0;
	for (unsigned b = 0; b < ng; b++)
		if (b != a && w->wake[a * ng + b] && w->wake[b * ng + a]) {
			*wakes += w->wake[a * ng + b];
			if (w->wake[a * ng + b] > *most)
				*most = w->wake[a * ng + b];
			*ns += w->wake_ns[a * ng + b];
			(*partners)++;
		}
}

/* The reference task of the closed model: the root of the call graph, the
 * task that starts each cycle itself (nobody calls it; the others reply
 * to it).  Only a task in a request/reply pair qualifies (else -1).
 *   1. A task that thinks: a timer sleep about once a cycle (at least one
 *      per two replies it got) ends its cycles, not a message; the one
 *      with the most timer sleep (then the most threads).
 *   2. Without think time (a message ping-pong) the messages alone do not
 *      say who started a cycle: every hop is "woken by a message, send
 *      one".  A task called by one and calling another (two partners or
 *      more) is in the middle, not the root: the candidates are the pair
 *      graph's leaves (all paired tasks when there is none, a ring).  Of
 *      those, the process argus started for the load (root_tgid: its
 *      command is what drives it), then the one whose threads spend the
 *      largest share of their time blocked on their partners (a root waits
 *      through the whole of each call, nested calls included).
 * A stray timer sleep (a task that sleeps now and then) is not a think
 * time: the old rule "the most timer sleep" picked the middle tier of a
 * ping-pong for a few timer wakeups. */
int model_pick_ref(const struct model_work *w, uint32_t root_tgid, int *thinks)
{
	unsigned ng = w->ng, leaves = 0;
	uint64_t rep, most, ns;
	unsigned np;
	int ref = -1;
	double best = -1;

	*thinks = 0;
	for (unsigned a = 0; a < ng; a++) {
		model_pair_waits(w, a, &rep, &most, &ns, &np);
		if (!np || !w->g[a].sleep_cnt || 2 * w->g[a].sleep_cnt < most)
			continue;
		if (ref < 0 || w->g[a].sleep_ns > w->g[ref].sleep_ns ||
		    (w->g[a].sleep_ns == w->g[ref].sleep_ns && w->g[a].npids > w->g[ref].npids))
			ref = (int)a;
	}
	if (ref >= 0) {
		*thinks = 1;
		return ref;
	}
	for (unsigned a = 0; a < ng; a++) {
		model_pair_waits(w, a, &rep, &most, &ns, &np);
		leaves += np == 1;
	}
	for (unsigned a = 0; a < ng; a++) {
		double share;

		model_pair_waits(w, a, &rep, &most, &ns, &np);
		if (!np || (leaves && np != 1))
			continue;
		share = (double)ns / (w->g[a].npids ? w->g[a].npids : 1);
		if (root_tgid && w->g[a].tgid == root_tgid)
			share += 1e30; /* the load's own process first */
		if (share > best) {
			best = share;
			ref = (int)a;
		}
	}
	return ref;
}
