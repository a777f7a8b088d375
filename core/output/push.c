/* push — pprof profiles to Pyroscope or Parca over libcurl multi (see
 * push.h).  One transfer at a time, in queue order: a fleet server wants
 * profiles in time order, and one connection is all an agent needs. */
#include <curl/curl.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "base/curl_watch.h"
#include "output/push.h"
#include "base/util.h"

#define PUSH_BOUNDARY "argus-pprof-7f3a9c0e51d2"
#define PUSH_REPLY_KEEP 200        /* bytes of a reply kept for messages */

struct push_item {
	uint8_t *data;
	size_t len;
	int64_t from, until;
	uint64_t samples;
	unsigned attempts;
};

enum push_state { PS_IDLE, PS_RUNNING, PS_BACKOFF };

struct push {
	enum push_target target;
	char *endpoint;              /* without the query */
	char *series;                /* Pyroscope: APP{k=v,...}; Parca: the labels JSON */
	char *tenant_hdr;
	unsigned freq_hz;
	unsigned queue_max;
	size_t queue_bytes;
	unsigned timeout_ms, connect_timeout_ms, backoff_ms;
	void (*log)(void *arg, const char *msg);
	void *log_arg;

	struct push_item *q;         /* ring of queue_max */
	unsigned head, n;
	size_t bytes;

	CURLM *multi;
	CURL *easy;
	struct curl_slist *hdrs;
	char *url;                   /* of the running transfer */
	char *body;
	size_t body_len;
	char reply[PUSH_REPLY_KEEP + 1];
	size_t reply_len;
	char errbuf[CURL_ERROR_SIZE];
	enum push_state state;
	int64_t retry_at;            /* ms, monotonic; -1 none */
	unsigned delay_ms;
	struct curl_watch watch;     /* the sockets and timer curl asks for */

	struct push_stats st;
};

/* Escapes control characters of a server's reply in place (cutting it). */
static void push_printable(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = ' ';
}

__attribute__((format(printf, 2, 3)))
static void push_log(struct push *ps, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ps->st.last_error, sizeof(ps->st.last_error), fmt, ap);
	va_end(ap);
	push_printable(ps->st.last_error);
	if (ps->log)
		ps->log(ps->log_arg, ps->st.last_error);
}

/* ---- labels ------------------------------------------------------------------ */

static int push_key_ok(const char *k, size_t n)
{
	if (!n || n > 64 || !((k[0] >= 'a' && k[0] <= 'z') || (k[0] >= 'A' && k[0] <= 'Z') || k[0] == '_'))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
		      (k[i] >= '0' && k[i] <= '9') || k[i] == '_' || k[i] == '.'))
			return 0;
	return 1;
}

static int push_value_ok(const char *v, size_t n)
{
	if (!n || n > 256)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];
		if (c < 0x21 || c >= 0x7f || strchr(",{}=\"\\", c))
			return 0;
	}
	return 1;
}

int push_labels_check(const char *labels, char **cause)
{
	const char *s = labels;
	unsigned n = 0;

	if (!s || !*s)
		return 0;
	while (*s) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
		const char *eq = memchr(s, '=', (size_t)(end - s));
		if (!eq || !push_key_ok(s, (size_t)(eq - s)) || !push_value_ok(eq + 1, (size_t)(end - eq - 1))) {
			util_cause(cause, "bad label '%.*s' in '%s': give k=v,k=v with keys [A-Za-z_][A-Za-z0-9_.]* "
				   "and values without spaces, quotes or ,{}=",
				   (int)(end - s) > 80 ? 80 : (int)(end - s), s, labels);
			return -EINVAL;
		}
		if (++n > PUSH_MAX_LABELS) {
			util_cause(cause, "more than %u labels in '%s'", PUSH_MAX_LABELS, labels);
			return -EINVAL;
		}
		s = comma ? comma + 1 : end;
		if (comma && !*s) {
			util_cause(cause, "empty label at the end of '%s'", labels);
			return -EINVAL;
		}
	}
	return 0;
}

/* Pyroscope's APP{k=v,...} or Parca's label list JSON from app and the
 * labels (service_name=APP and host added unless given: service_name is
 * what Pyroscope groups a service's profiles by, and Parca's queries
 * select on; the profiles' samples carry it too). */
static char *push_series(enum push_target t, const char *app, const char *labels)
{
	char host[128] = "unknown", *out = NULL;
	struct utsname u;
	size_t cap = strlen(app) + (labels ? strlen(labels) : 0) * 4 + 512, len = 0;
	int has_host = 0, has_svc = 0;

	if (labels)
		for (const char *s = labels; s && *s; s = strchr(s, ',') ? strchr(s, ',') + 1 : NULL) {
			if (!strncmp(s, "host=", 5))
				has_host = 1;
			if (!strncmp(s, "service_name=", 13))
				has_svc = 1;
		}
	if (!uname(&u)) {
		snprintf(host, sizeof(host), "%s", u.nodename);
		if (!push_value_ok(host, strlen(host)))
			snprintf(host, sizeof(host), "unknown");
	}
	out = malloc(cap);
	if (!out)
		return NULL;
	if (t == PUSH_PYROSCOPE)
		len += (size_t)snprintf(out + len, cap - len, "%s{", app);
	else
		len += (size_t)snprintf(out + len, cap - len, "{\"name\":\"__name__\",\"value\":\"%s\"}", app);
	int first = t == PUSH_PYROSCOPE;
	if (!has_svc) {
		len += (size_t)snprintf(out + len, cap - len, t == PUSH_PYROSCOPE ? "service_name=%s" :
					",{\"name\":\"service_name\",\"value\":\"%s\"}", app);
		first = 0;
	}
	if (!has_host) {
		if (t == PUSH_PYROSCOPE)
			len += (size_t)snprintf(out + len, cap - len, "%shost=%s", first ? "" : ",", host);
		else
			len += (size_t)snprintf(out + len, cap - len, ",{\"name\":\"host\",\"value\":\"%s\"}",
						host);
		first = 0;
	}
	for (const char *s = labels; s && *s;) {
		const char *comma = strchr(s, ','), *end = comma ? comma : s + strlen(s);
		const char *eq = memchr(s, '=', (size_t)(end - s));
		int kn = (int)(eq - s), vn = (int)(end - eq - 1);
		if (t == PUSH_PYROSCOPE)
			len += (size_t)snprintf(out + len, cap - len, "%s%.*s=%.*s", first ? "" : ",",
						kn, s, vn, eq + 1);
		else
			len += (size_t)snprintf(out + len, cap - len, ",{\"name\":\"%.*s\",\"value\":\"%.*s\"}",
						kn, s, vn, eq + 1);
		first = 0;
		s = comma ? comma + 1 : end;
	}
	if (t == PUSH_PYROSCOPE)
		snprintf(out + len, cap - len, "}");
	return out;
}

char *push_base64(const uint8_t *d, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) |
			     (i + 2 < n ? d[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = 0;
	return out;
}

/* ---- curl callbacks ------------------------------------------------------------- */

static size_t push_on_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct push *ps = arg;
	size_t n = size * nmemb, room = PUSH_REPLY_KEEP - ps->reply_len;

	if (room) {
		size_t k = n < room ? n : room;
		memcpy(ps->reply + ps->reply_len, data, k);
		ps->reply_len += k;
		ps->reply[ps->reply_len] = 0;
	}
	return n;
}

/* ---- the queue --------------------------------------------------------------------- */

static struct push_item *push_head(struct push *ps)
{
	return ps->n ? &ps->q[ps->head] : NULL;
}

static void push_pop(struct push *ps)
{
	struct push_item *it = push_head(ps);

	if (!it)
		return;
	ps->bytes -= it->len;
	free(it->data);
	memset(it, 0, sizeof(*it));
	ps->head = (ps->head + 1) % ps->queue_max;
	ps->n--;
}

/* Drops the waiting item after the head (or the head when nothing runs). */
static void push_drop_oldest_waiting(struct push *ps)
{
	unsigned k = ps->state == PS_RUNNING ? 1 : 0;

	if (ps->n <= k)
		return;
	unsigned i = (ps->head + k) % ps->queue_max;
	struct push_item drop = ps->q[i];
	for (unsigned j = k; j + 1 < ps->n; j++) {
		unsigned a = (ps->head + j) % ps->queue_max, b = (ps->head + j + 1) % ps->queue_max;
		ps->q[a] = ps->q[b];
	}
	ps->n--;
	ps->bytes -= drop.len;
	ps->st.dropped++;
	ps->st.samples_dropped += drop.samples;
	free(drop.data);
	if (k == 0)
		ps->state = PS_IDLE;
}

int push_enqueue(struct push *ps, uint8_t *data, size_t len, int64_t from_s, int64_t until_s,
		 uint64_t samples)
{
	unsigned k = ps->state == PS_RUNNING ? 1 : 0;

	while (ps->n > k && (ps->n == ps->queue_max || ps->bytes + len > ps->queue_bytes)) {
		push_drop_oldest_waiting(ps);
		push_log(ps, "push queue full (%u profiles, %zu bytes held at most): dropped the oldest waiting profile",
			 ps->queue_max, ps->queue_bytes);
	}
	if (ps->n == ps->queue_max || len > ps->queue_bytes) {
		ps->st.dropped++;
		ps->st.samples_dropped += samples;
		free(data);
		push_log(ps, "push queue full: dropped the new profile (%zu bytes)", len);
		return 0;
	}
	struct push_item *it = &ps->q[(ps->head + ps->n) % ps->queue_max];
	it->data = data;
	it->len = len;
	it->from = from_s;
	it->until = until_s;
	it->samples = samples;
	it->attempts = 0;
	ps->n++;
	ps->bytes += len;
	ps->st.queued++;
	ps->st.samples_queued += samples;
	return 0;
}

/* ---- transfers ----------------------------------------------------------------- */

static void push_easy_drop(struct push *ps)
{
	if (ps->easy) {
		curl_multi_remove_handle(ps->multi, ps->easy);
		curl_easy_cleanup(ps->easy);
		ps->easy = NULL;
	}
	curl_slist_free_all(ps->hdrs);
	ps->hdrs = NULL;
	free(ps->url);
	ps->url = NULL;
	free(ps->body);
	ps->body = NULL;
	ps->body_len = 0;
}

static int push_build(struct push *ps, const struct push_item *it)
{
	char *q = NULL;

	if (ps->target == PUSH_PYROSCOPE) {
		CURL *e = ps->easy;
		char *name = curl_easy_escape(e, ps->series, 0);
		char rate[32] = "";
		static const char pre[] = "--" PUSH_BOUNDARY "\r\n"
			"Content-Disposition: form-data; name=\"profile\"; filename=\"profile.pprof\"\r\n"
			"Content-Type: application/octet-stream\r\n\r\n";
		static const char post[] = "\r\n--" PUSH_BOUNDARY "--\r\n";

		if (!name)
			return -ENOMEM;
		if (ps->freq_hz)
			snprintf(rate, sizeof(rate), "&sampleRate=%u", ps->freq_hz);
		if (asprintf(&q, "%s?name=%s&from=%lld&until=%lld&format=pprof%s&spyName=argus",
			     ps->endpoint, name, (long long)it->from, (long long)it->until, rate) < 0)
			q = NULL;
		curl_free(name);
		if (!q)
			return -ENOMEM;
		ps->url = q;
		ps->body_len = sizeof(pre) - 1 + it->len + sizeof(post) - 1;
		ps->body = malloc(ps->body_len);
		if (!ps->body)
			return -ENOMEM;
		memcpy(ps->body, pre, sizeof(pre) - 1);
		memcpy(ps->body + sizeof(pre) - 1, it->data, it->len);
		memcpy(ps->body + sizeof(pre) - 1 + it->len, post, sizeof(post) - 1);
		ps->hdrs = curl_slist_append(ps->hdrs,
					     "Content-Type: multipart/form-data; boundary=" PUSH_BOUNDARY);
	} else {
		char *b64 = push_base64(it->data, it->len);
		int n;

		if (!b64)
			return -ENOMEM;
		n = asprintf(&ps->body, "{\"series\":[{\"labels\":{\"labels\":[%s]},"
			     "\"samples\":[{\"raw_profile\":\"%s\"}]}],\"normalized\":true}",
			     ps->series, b64);
		free(b64);
		if (n < 0) {
			ps->body = NULL;
			return -ENOMEM;
		}
		ps->body_len = (size_t)n;
		ps->url = strdup(ps->endpoint);
		if (!ps->url)
			return -ENOMEM;
		ps->hdrs = curl_slist_append(ps->hdrs, "Content-Type: application/json");
	}
	if (ps->tenant_hdr)
		ps->hdrs = curl_slist_append(ps->hdrs, ps->tenant_hdr);
	ps->hdrs = curl_slist_append(ps->hdrs, "Expect:");
	return ps->hdrs ? 0 : -ENOMEM;
}

static int push_start(struct push *ps)
{
	struct push_item *it = push_head(ps);
	CURL *e;
	int err;

	if (!it)
		return 0;
	e = ps->easy = curl_easy_init();
	if (!e)
		return -ENOMEM;
	err = push_build(ps, it);
	if (err) {
		push_easy_drop(ps);
		return err;
	}
	ps->reply_len = 0;
	ps->reply[0] = 0;
	ps->errbuf[0] = 0;
	curl_easy_setopt(e, CURLOPT_URL, ps->url);
	curl_easy_setopt(e, CURLOPT_POST, 1L);
	curl_easy_setopt(e, CURLOPT_POSTFIELDS, ps->body);
	curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)ps->body_len);
	curl_easy_setopt(e, CURLOPT_HTTPHEADER, ps->hdrs);
	curl_easy_setopt(e, CURLOPT_USERAGENT, "argus/" ARGUS_VERSION);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)ps->connect_timeout_ms);
	curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)ps->timeout_ms);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, ps->errbuf);
	curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, push_on_write);
	curl_easy_setopt(e, CURLOPT_WRITEDATA, ps);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(e, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (curl_multi_add_handle(ps->multi, e) != CURLM_OK) {
		push_easy_drop(ps);
		return -ENOMEM;
	}
	it->attempts++;
	if (it->attempts > 1)
		ps->st.retries++;
	ps->state = PS_RUNNING;
	return 0;
}

static void push_backoff(struct push *ps, const char *why)
{
	ps->delay_ms = ps->delay_ms ? ps->delay_ms * 2 : ps->backoff_ms;
	if (ps->delay_ms > PUSH_MAX_BACKOFF_MS)
		ps->delay_ms = PUSH_MAX_BACKOFF_MS;
	ps->retry_at = util_mono_ms() + ps->delay_ms;
	ps->state = PS_BACKOFF;
	push_log(ps, "push to %s failed: %s; retrying in %.1f s (%u profile%s waiting)", ps->endpoint,
		 why, ps->delay_ms / 1000.0, ps->n, ps->n == 1 ? "" : "s");
}

static void push_done(struct push *ps, CURLcode res)
{
	struct push_item *it = push_head(ps);
	long status = 0;
	curl_off_t up = 0;
	char why[CURL_ERROR_SIZE + 64];

	curl_easy_getinfo(ps->easy, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(ps->easy, CURLINFO_SIZE_UPLOAD_T, &up);
	size_t body_len = ps->body_len;
	snprintf(why, sizeof(why), "%s", ps->errbuf[0] ? ps->errbuf : curl_easy_strerror(res));
	push_easy_drop(ps);
	ps->state = PS_IDLE;
	if (res == CURLE_OK && status >= 200 && status < 300) {
		ps->st.sent++;
		ps->st.samples_sent += it->samples;
		ps->delay_ms = 0;
		push_pop(ps);
		return;
	}
	if (res == CURLE_OK && (status == 429 || status == 408 || status >= 500)) {
		char b[64 + PUSH_REPLY_KEEP];
		snprintf(b, sizeof(b), "the server answered %ld%s%s", status, ps->reply_len ? ": " : "",
			 ps->reply);
		push_backoff(ps, b);
		return;
	}
	if (res == CURLE_OK) {
		ps->st.rejected++;
		ps->st.samples_rejected += it->samples;
		push_log(ps, "push to %s rejected: the server answered %ld%s%s; dropped that profile "
			 "(%llu samples); check the URL, the labels and the tenant", ps->endpoint, status,
			 ps->reply_len ? ": " : "", ps->reply, (unsigned long long)it->samples);
		ps->delay_ms = 0;
		push_pop(ps);
		return;
	}
	/* (a reused connection reports no connect time: the bytes sent say it) */
	if (up >= (curl_off_t)body_len && body_len) {
		/* the server has the whole profile and said nothing: it may have
		 * stored it, so sending it again could count samples twice */
		ps->st.unconfirmed++;
		ps->st.samples_unconfirmed += it->samples;
		push_log(ps, "push to %s unconfirmed: %s after the whole profile was sent; not sent again "
			 "(%llu samples may or may not be stored)", ps->endpoint, why,
			 (unsigned long long)it->samples);
		ps->delay_ms = 0;
		push_pop(ps);
		return;
	}
	push_backoff(ps, why);
}

static void push_check_done(struct push *ps)
{
	CURLMsg *m;
	int left;

	while ((m = curl_multi_info_read(ps->multi, &left)))
		if (m->msg == CURLMSG_DONE && m->easy_handle == ps->easy)
			push_done(ps, m->data.result);
}

/* ---- public ----------------------------------------------------------------------- */

struct push *push_new(const struct push_opts *o, char **cause)
{
	static int curl_done;
	struct push *ps = NULL;
	const char *url = o->url, *app = o->app ? o->app : "argus";
	enum push_target t = PUSH_PYROSCOPE;
	int err = -EINVAL;

	if (!url || !*url) {
		util_cause(cause, "no push URL given");
		goto fail;
	}
	if (!strncmp(url, "pyroscope+", 10)) {
		url += 10;
	} else if (!strncmp(url, "parca+", 6)) {
		url += 6;
		t = PUSH_PARCA;
	}
	if (strncmp(url, "http://", 7) && strncmp(url, "https://", 8)) {
		util_cause(cause, "push URL '%.200s' is not http:// or https://", o->url);
		goto fail;
	}
	if (strpbrk(url, "?# \t\r\n")) {
		util_cause(cause, "push URL '%.200s' has a query, fragment or space; give the server's base URL",
			   o->url);
		goto fail;
	}
	size_t ul = strlen(url);
	while (ul > 8 && url[ul - 1] == '/')
		ul--;
	if (ul >= 18 && !memcmp(url + ul - 18, "/profiles/writeraw", 18))
		t = PUSH_PARCA;
	if (!push_key_ok(app, strlen(app))) {
		util_cause(cause, "bad application name '%.80s': use [A-Za-z_][A-Za-z0-9_.]*", app);
		goto fail;
	}
	if (push_labels_check(o->labels, cause))
		goto fail;
	if (o->tenant && (!*o->tenant || strpbrk(o->tenant, "\r\n") || strlen(o->tenant) > 256)) {
		util_cause(cause, "bad tenant '%.80s'", o->tenant);
		goto fail;
	}
	if (!curl_done) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			util_cause(cause, "cannot initialise libcurl");
			err = -ENOMEM;
			goto fail;
		}
		curl_done = 1;
	}
	err = -ENOMEM;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		goto nomem;
	ps->target = t;
	ps->queue_max = o->queue_max ? o->queue_max : PUSH_DEF_QUEUE_MAX;
	ps->queue_bytes = o->queue_bytes ? o->queue_bytes : PUSH_DEF_QUEUE_BYTES;
	ps->timeout_ms = o->timeout_ms ? o->timeout_ms : PUSH_DEF_TIMEOUT_MS;
	ps->connect_timeout_ms = o->connect_timeout_ms ? o->connect_timeout_ms : PUSH_DEF_CONNECT_TIMEOUT_MS;
	ps->backoff_ms = o->backoff_ms ? o->backoff_ms : PUSH_DEF_BACKOFF_MS;
	ps->freq_hz = o->freq_hz;
	ps->log = o->log;
	ps->log_arg = o->log_arg;
	ps->retry_at = -1;
	ps->q = calloc(ps->queue_max, sizeof(*ps->q));
	if (t == PUSH_PYROSCOPE && (ul < 7 || memcmp(url + ul - 7, "/ingest", 7)))
		err = asprintf(&ps->endpoint, "%.*s/ingest", (int)ul, url) < 0 ? -ENOMEM : 0;
	else if (t == PUSH_PARCA && (ul < 18 || memcmp(url + ul - 18, "/profiles/writeraw", 18)))
		err = asprintf(&ps->endpoint, "%.*s/profiles/writeraw", (int)ul, url) < 0 ? -ENOMEM : 0;
	else
		err = (ps->endpoint = strndup(url, ul)) ? 0 : -ENOMEM;
	if (err) {
		ps->endpoint = NULL;
		goto nomem;
	}
	ps->series = push_series(t, app, o->labels);
	if (o->tenant && asprintf(&ps->tenant_hdr, "X-Scope-OrgID: %s", o->tenant) < 0)
		ps->tenant_hdr = NULL;
	ps->multi = curl_multi_init();
	if (!ps->q || !ps->series || (o->tenant && !ps->tenant_hdr) || !ps->multi)
		goto nomem;
	curl_watch_attach(&ps->watch, ps->multi);
	return ps;
nomem:
	util_cause(cause, "out of memory");
	err = -ENOMEM;
fail:
	push_free(ps);
	errno = -err;
	return NULL;
}

void push_free(struct push *ps)
{
	if (!ps)
		return;
	push_easy_drop(ps);
	while (ps->n)
		push_pop(ps);
	if (ps->multi)
		curl_multi_cleanup(ps->multi);
	free(ps->q);
	free(ps->endpoint);
	free(ps->series);
	free(ps->tenant_hdr);
	free(ps);
}

enum push_target push_target_of(const struct push *ps)
{
	return ps->target;
}

const char *push_endpoint(const struct push *ps)
{
	return ps->endpoint;
}

int push_pollfds(struct push *ps, struct pollfd *fds, int max)
{
	return curl_watch_pollfds(&ps->watch, fds, max);
}

int push_timeout_ms(const struct push *ps)
{
	int64_t at = -1, now = util_mono_ms();

	if (ps->state == PS_RUNNING)
		at = ps->watch.timer_at;
	else if (ps->state == PS_BACKOFF)
		at = ps->retry_at;
	else if (ps->n)
		return 0;
	if (at < 0)
		return -1;
	return at <= now ? 0 : at - now > INT_MAX ? INT_MAX : (int)(at - now);
}

void push_perform(struct push *ps)
{
	struct pollfd fds[CURL_WATCH_MAX_SOCKS];
	int n, running = 0, err;

	if (ps->state == PS_BACKOFF && util_mono_ms() >= ps->retry_at)
		ps->state = PS_IDLE;
	if (ps->state == PS_IDLE && ps->n) {
		err = push_start(ps);
		if (err) {
			push_backoff(ps, strerror(-err));
			return;
		}
		/* let curl begin (connect) at once */
		curl_multi_socket_action(ps->multi, CURL_SOCKET_TIMEOUT, 0, &running);
		push_check_done(ps);
	}
	if (ps->state != PS_RUNNING)
		return;
	n = push_pollfds(ps, fds, CURL_WATCH_MAX_SOCKS);
	if (n && poll(fds, (nfds_t)n, 0) > 0) {
		for (int i = 0; i < n && ps->state == PS_RUNNING; i++) {
			if (!fds[i].revents)
				continue;
			curl_multi_socket_action(ps->multi, fds[i].fd,
						 curl_watch_events(fds[i].revents), &running);
			push_check_done(ps);
		}
	}
	if (ps->state == PS_RUNNING && curl_watch_timer_due(&ps->watch))
		curl_multi_socket_action(ps->multi, CURL_SOCKET_TIMEOUT, 0, &running);
	push_check_done(ps);
}

int push_idle(const struct push *ps)
{
	return !ps->n && ps->state != PS_RUNNING;
}

int push_drain(struct push *ps, int max_ms)
{
	int64_t end = util_mono_ms() + (max_ms < 0 ? 0 : max_ms);
	struct pollfd fds[CURL_WATCH_MAX_SOCKS];

	for (;;) {
		push_perform(ps);
		if (push_idle(ps))
			return 0;
		int64_t left = end - util_mono_ms();
		if (left <= 0)
			break;
		int n = push_pollfds(ps, fds, CURL_WATCH_MAX_SOCKS), t = push_timeout_ms(ps);
		if (t < 0 || t > left)
			t = (int)left;
		if (t > 200)
			t = 200;
		if (poll(fds, (nfds_t)n, t) < 0 && errno != EINTR)
			break;
	}
	/* out of time: what is left is dropped, said and counted */
	const char *inflight = "";
	if (ps->state == PS_RUNNING) {
		struct push_item *it = push_head(ps);
		curl_off_t up = 0;
		curl_easy_getinfo(ps->easy, CURLINFO_SIZE_UPLOAD_T, &up);
		if (up >= (curl_off_t)ps->body_len) {
			ps->st.unconfirmed++;
			ps->st.samples_unconfirmed += it->samples;
			inflight = "the profile in flight (sent, no answer) counted unconfirmed; ";
		} else {
			ps->st.dropped++;
			ps->st.samples_dropped += it->samples;
			inflight = "the profile in flight dropped; ";
		}
		push_easy_drop(ps);
		ps->state = PS_IDLE;
		push_pop(ps);
	}
	unsigned left_n = ps->n;
	while (ps->n) {
		ps->st.dropped++;
		ps->st.samples_dropped += push_head(ps)->samples;
		push_pop(ps);
	}
	push_log(ps, "push to %s: gave up waiting after %d ms; %s%u queued profile%s dropped", ps->endpoint,
		 max_ms, inflight, left_n, left_n == 1 ? "" : "s");
	return -ETIMEDOUT;
}

void push_get_stats(const struct push *ps, struct push_stats *st)
{
	*st = ps->st;
	st->waiting = ps->n;
	st->waiting_bytes = ps->bytes;
}
