/* curl_watch.h — the sockets and the timer a curl multi handle asks its
 * caller to watch, for clients that run curl from their own poll loop
 * (the LLM client and the profile pusher): curl tells us, through the
 * multi socket API, which fds to poll for what and when to call it back;
 * we keep that here and turn it into pollfds and socket actions. */
#ifndef ARGUS_CURL_WATCH_H
#define ARGUS_CURL_WATCH_H

#include <poll.h>
#include <stdint.h>

#include <curl/curl.h>

#define CURL_WATCH_MAX_SOCKS 16

struct curl_watch {
	struct { curl_socket_t fd; int what; } socks[CURL_WATCH_MAX_SOCKS];
	int nsocks;
	int64_t timer_at;   /* ms, monotonic (util_mono_ms); -1: no curl timer */
};

/* Empties w and makes multi report its sockets and timer into it.  w must
 * outlive multi's transfers. */
void curl_watch_attach(struct curl_watch *w, CURLM *multi);

/* Fills up to max pollfds with the sockets curl waits on; returns how many. */
int curl_watch_pollfds(const struct curl_watch *w, struct pollfd *fds, int max);

/* The CURL_CSELECT_* mask for a socket's poll revents (0: nothing happened). */
int curl_watch_events(short revents);

/* 1 when curl's timer has expired (and clears it: the caller then calls
 * curl_multi_socket_action with CURL_SOCKET_TIMEOUT), else 0. */
int curl_watch_timer_due(struct curl_watch *w);

#endif
