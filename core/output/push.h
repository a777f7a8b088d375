/* push — sends pprof profiles to a continuous-profiling server over HTTP
 * (libcurl multi, no threads), with a retry queue bounded in memory.
 *
 * Targets, chosen by the URL:
 *   Pyroscope  http://host:4040 (or .../ingest; "pyroscope+http://..." to
 *              force): POST {base}/ingest?name=APP{k=v,...}&from=S&until=S
 *              &format=pprof&sampleRate=HZ&spyName=argus, the gzipped
 *              profile as the multipart/form-data part "profile".
 *   Parca      a URL ending in /profiles/writeraw ("parca+http://host:7070"
 *              appends it): POST of the JSON mapping of
 *              parca.profilestore.v1alpha1.WriteRawRequest,
 *              {"series":[{"labels":{"labels":[{"name":"__name__","value":APP},
 *              ...]},"samples":[{"raw_profile":"<base64>"}]}],"normalized":true}.
 * The labels: service_name=APP (what Pyroscope groups by; the profile's
 * samples carry it too, pprof_write_opts.service_name) and host=<nodename>
 * unless given, then the caller's.  A tenant, when given, goes in the
 * X-Scope-OrgID header (both).
 *
 * Delivery is at most once: a profile is retried only when the server
 * surely did not take it (no connection, the request not fully sent, 429
 * or 5xx); a transfer that timed out after the whole body was sent is
 * counted "unconfirmed" and not sent again, so no sample reaches the
 * server twice.  Other 4xx answers drop the profile ("rejected").  Retries
 * back off from backoff_ms doubling to PUSH_MAX_BACKOFF_MS.
 *
 * The queue holds at most queue_max profiles and queue_bytes bytes; when a
 * new profile does not fit, the oldest waiting ones are dropped and counted
 * (profiles and samples), never the one being sent.
 *
 * Poll loop (as core/agent/llm.h):
 *	n = push_pollfds(ps, fds + k, max - k);
 *	t = min(own, push_timeout_ms(ps));
 *	poll(fds, k + n, t);
 *	push_perform(ps);
 */
#ifndef ARGUS_PUSH_H
#define ARGUS_PUSH_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#define PUSH_DEF_QUEUE_MAX          64u
#define PUSH_DEF_QUEUE_BYTES        (16u << 20)   /* 16 MiB */
#define PUSH_DEF_TIMEOUT_MS         10000u
#define PUSH_DEF_CONNECT_TIMEOUT_MS 5000u
#define PUSH_DEF_BACKOFF_MS         500u
#define PUSH_MAX_BACKOFF_MS         30000u
#define PUSH_MAX_LABELS             16u
#define PUSH_MAX_SOCKS              16   /* = CURL_WATCH_MAX_SOCKS: all the sockets curl may ask for */

enum push_target {
	PUSH_PYROSCOPE,
	PUSH_PARCA,
};

struct push_opts {
	const char *url;
	const char *app;            /* NULL: "argus"; also the service_name label */
	const char *labels;         /* "k=v,k=v" or NULL; host=<nodename> is added
	                             * unless a host label is given */
	const char *tenant;         /* NULL: none */
	unsigned freq_hz;           /* Pyroscope's sampleRate; 0: left out */
	unsigned queue_max;         /* 0: PUSH_DEF_QUEUE_MAX */
	size_t queue_bytes;         /* 0: PUSH_DEF_QUEUE_BYTES */
	unsigned timeout_ms;        /* 0: defaults above */
	unsigned connect_timeout_ms;
	unsigned backoff_ms;
	/* each failure, retry and drop as one line for people (no newline);
	 * NULL: silent */
	void (*log)(void *arg, const char *msg);
	void *log_arg;
};

struct push_stats {
	uint64_t queued, sent, retries, dropped, rejected, unconfirmed;
	uint64_t samples_queued, samples_sent, samples_dropped, samples_rejected,
		 samples_unconfirmed;
	unsigned waiting;           /* profiles in the queue (in flight included) */
	size_t waiting_bytes;
	char last_error[256];       /* the last failure, "" when none */
};

struct push;

/* Checks the URL, labels and app name; NULL with errno and *cause (caller
 * frees) when they are unusable.  Free with push_free. */
struct push *push_new(const struct push_opts *o, char **cause);
void push_free(struct push *ps); /* drops what is queued; NULL-safe */

enum push_target push_target_of(const struct push *ps);
/* The endpoint the requests go to (no query string). */
const char *push_endpoint(const struct push *ps);

/* Queues one gzipped pprof (takes ownership of data, free()d later) that
 * covers wall-clock seconds [from_s, until_s] and holds samples samples.
 * 0, or -ENOMEM (data freed). */
int push_enqueue(struct push *ps, uint8_t *data, size_t len, int64_t from_s, int64_t until_s,
		 uint64_t samples);

int push_pollfds(struct push *ps, struct pollfd *fds, int max);
int push_timeout_ms(const struct push *ps);   /* -1: nothing to wait for */
/* Does what is ready: socket work, timeouts, the next transfer. */
void push_perform(struct push *ps);

/* 1 when nothing is queued or in flight. */
int push_idle(const struct push *ps);

/* Runs the transfers until the queue is empty or max_ms passed (then what
 * is left is dropped and counted).  0, or -ETIMEDOUT. */
int push_drain(struct push *ps, int max_ms);

void push_get_stats(const struct push *ps, struct push_stats *st);

/* Validates "k=v,k=v" label text; 0 or -EINVAL with *cause. */
int push_labels_check(const char *labels, char **cause);

/* Base64 of data into a new NUL-terminated string (caller frees); NULL on
 * ENOMEM.  Exported for the tests. */
char *push_base64(const uint8_t *data, size_t len);

#endif
