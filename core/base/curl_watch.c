/* curl_watch.c — see curl_watch.h. */
#include "base/curl_watch.h"

#include "base/util.h"

static int curl_watch_on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *sockp)
{
	struct curl_watch *w = userp;
	int i;

	(void)easy;
	(void)sockp;
	for (i = 0; i < w->nsocks; i++)
		if (w->socks[i].fd == s)
			break;
	if (what == CURL_POLL_REMOVE) {
		if (i < w->nsocks)
			w->socks[i] = w->socks[--w->nsocks];
		return 0;
	}
	if (i == w->nsocks) {
		if (w->nsocks == CURL_WATCH_MAX_SOCKS)
			return -1; /* curl fails the transfer: better than a socket nobody polls */
		w->nsocks++;
	}
	w->socks[i].fd = s;
	w->socks[i].what = what;
	return 0;
}

static int curl_watch_on_timer(CURLM *multi, long timeout_ms, void *userp)
{
	struct curl_watch *w = userp;

	(void)multi;
	w->timer_at = timeout_ms < 0 ? -1 : util_mono_ms() + timeout_ms;
	return 0;
}

void curl_watch_attach(struct curl_watch *w, CURLM *multi)
{
	w->nsocks = 0;
	w->timer_at = -1;
	curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, curl_watch_on_socket);
	curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, w);
	curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, curl_watch_on_timer);
	curl_multi_setopt(multi, CURLMOPT_TIMERDATA, w);
}

int curl_watch_pollfds(const struct curl_watch *w, struct pollfd *fds, int max)
{
	int n = 0;

	for (int i = 0; i < w->nsocks && n < max; i++) {
		fds[n].fd = w->socks[i].fd;
		fds[n].events = (short)((w->socks[i].what & CURL_POLL_IN ? POLLIN : 0) |
					(w->socks[i].what & CURL_POLL_OUT ? POLLOUT : 0));
		fds[n].revents = 0;
		n++;
	}
	return n;
}

int curl_watch_events(short revents)
{
	int ev = 0;

	if (revents & (POLLIN | POLLHUP))
		ev |= CURL_CSELECT_IN;
	if (revents & POLLOUT)
		ev |= CURL_CSELECT_OUT;
	if (revents & (POLLERR | POLLNVAL))
		ev |= CURL_CSELECT_ERR;
	return ev;
}

int curl_watch_timer_due(struct curl_watch *w)
{
	if (w->timer_at < 0 || util_mono_ms() < w->timer_at)
		return 0;
	w->timer_at = -1;
	return 1;
}
