/*
 * main.c -- mcpd-http, mcpd's HTTP front (hfront.h): options, evhttp's
 * limits, the connection cap, the tick, signals.
 *
 *	mcpd-http -s SOCKET -t TOKENS -c HTTP-JSON [-f FD[,FD...]]
 *
 * SOCKET is mcpd's, TOKENS the store mcpctl token writes, HTTP-JSON the
 * "http" object of mcpd.json as mcpd read it (conf_http.h), or "{}" for
 * the defaults; FD the listening sockets systemd passed mcpd under the
 * name "http" (hlisten.c), which mcpd keeps open for every run of the
 * front.  mcpd starts it so, again after it exits (with a backoff), and
 * stops it when the object goes away and no socket was passed.
 */
#include "config.h"

#include <sys/prctl.h>

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>
#include <event2/http.h>
#include <event2/listener.h>

#include "conf.h"
#include "conf_http.h"
#include "hfront.h"
#include "htoken.h"
#include "util.h"
#include "xmalloc.h"

void
hlog(const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	fprintf(stderr, "mcpd-http: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
}

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr, "usage: mcpd-http -s SOCKET -t TOKENS -c HTTP-JSON "
	    "[-f FD[,FD...]]\n");
	exit(2);
}

static void
hfront_toggle(struct evhttp_bound_socket *bs, void *arg)
{
	int	 on = *(int *)arg;

	if (on)
		evconnlistener_enable(evhttp_bound_socket_get_listener(bs));
	else
		evconnlistener_disable(evhttp_bound_socket_get_listener(bs));
}

static void
hfront_cap(struct hfront *f)
{
	int	 on = f->nconns < f->conf->max_connections;

	if (f->listeners_off == !on)
		return;
	f->listeners_off = !on;
	if (!on)
		hlog("%zu connections (max_connections): not accepting more "
		    "for now", f->nconns);
	evhttp_foreach_bound_socket(f->http, hfront_toggle, &on);
}

static void
hfront_conn_closed(struct evhttp_connection *evcon, void *arg)
{
	struct hconn	*c = arg;
	struct hfront	*f = c->front;

	(void)evcon;
	hsess_conn_closed(f, c);
	hmodern_conn_closed(f, c);
	TAILQ_REMOVE(&f->conns, c, entry);
	f->nconns--;
	free(c);
	hfront_cap(f);
}

struct hconn *
hfront_conn(struct hfront *f, struct evhttp_request *req)
{
	struct evhttp_connection	*evcon;
	struct hconn			*c;

	evcon = evhttp_request_get_connection(req);
	TAILQ_FOREACH(c, &f->conns, entry)
		if (c->evcon == evcon)
			return (c);
	c = xcalloc(1, sizeof *c);
	c->evcon = evcon;
	c->front = f;
	TAILQ_INSERT_HEAD(&f->conns, c, entry);
	f->nconns++;
	evhttp_connection_set_closecb(evcon, hfront_conn_closed, c);
	hfront_cap(f);
	return (c);
}

static void
hfront_tick_cb(evutil_socket_t fd, short events, void *arg)
{
	struct hfront	*f = arg;

	(void)fd;
	(void)events;
	if (hauth_load(f))
		hsess_revoked(f);
	hsess_tick(f);
	hmodern_tick(f);
}

static void
hfront_signal_cb(evutil_socket_t sig, short events, void *arg)
{
	struct hfront	*f = arg;

	(void)events;
	hlog("%s: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	event_base_loopexit(f->base, NULL);
}

int
main(int argc, char *argv[])
{
	struct hfront		 f;
	struct conf_diags	 diags;
	struct event		*ev_term, *ev_int;
	struct timeval		 tick = { HFRONT_KEEPALIVE_S, 0 };
	const char		*json = NULL;
	int			 fds[HFRONT_MAX_PASSED];
	size_t			 i, nfds = 0;
	int			 ch, n;

	memset(&f, 0, sizeof f);
	TAILQ_INIT(&f.conns);
	TAILQ_INIT(&f.sessions);
	TAILQ_INIT(&f.moderns);
	while ((ch = getopt(argc, argv, "s:t:c:f:")) != -1) {
		switch (ch) {
		case 's':
			f.socket_path = optarg;
			break;
		case 't':
			f.token_path = optarg;
			break;
		case 'c':
			json = optarg;
			break;
		case 'f':
			n = hlisten_parse_fds(optarg, fds, nitems(fds));
			if (n <= 0)
				usage();
			nfds = (size_t)n;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || f.socket_path == NULL || f.token_path == NULL ||
	    json == NULL)
		usage();
	/* mcpd's child: gone with it. */
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
	signal(SIGPIPE, SIG_IGN);

	memset(&diags, 0, sizeof diags);
	if ((f.conf = conf_http_from_text(json, nfds > 0, &diags)) == NULL) {
		for (i = 0; i < diags.n; i++)
			hlog("%s", diags.v[i].text);
		return (1);
	}
	conf_diags_free(&diags);

	f.base = event_base_new();
	f.http = evhttp_new(f.base);
	evhttp_set_max_headers_size(f.http, f.conf->max_header_bytes);
	evhttp_set_max_body_size(f.http, f.conf->max_body_bytes);
	evhttp_set_timeout(f.http, f.conf->timeout_s);
	evhttp_set_allowed_methods(f.http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_DELETE | EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PUT |
	    EVHTTP_REQ_HEAD | EVHTTP_REQ_PATCH);
	evhttp_set_default_content_type(f.http, "application/json");
	evhttp_set_gencb(f.http, hserve_request, &f);
	(void)hauth_load(&f);
	if (hlisten_passed(&f, fds, nfds) != 0 || hlisten_bind(&f) != 0)
		return (1);

	ev_term = evsignal_new(f.base, SIGTERM, hfront_signal_cb, &f);
	ev_int = evsignal_new(f.base, SIGINT, hfront_signal_cb, &f);
	evsignal_add(ev_term, NULL);
	evsignal_add(ev_int, NULL);
	f.ev_tick = event_new(f.base, -1, EV_PERSIST, hfront_tick_cb, &f);
	evtimer_add(f.ev_tick, &tick);

	event_base_dispatch(f.base);

	while (!TAILQ_EMPTY(&f.sessions))
		hsess_close(TAILQ_FIRST(&f.sessions), "mcpd-http stopping");
	hlisten_unlink(&f);
	evhttp_free(f.http);
	event_free(ev_term);
	event_free(ev_int);
	event_free(f.ev_tick);
	event_base_free(f.base);
	conf_http_free(f.conf);
	return (0);
}
