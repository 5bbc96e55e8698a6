/*
 * main.c -- mcpd-http, mcpd's HTTP front (hfront.h): options, the loop,
 * the tick, signals; the front itself is made in hfront.c.
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

#include "conf.h"
#include "conf_http.h"
#include "hfront.h"
#include "htoken.h"
#include "util.h"

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
	f.passed = fds;
	f.npassed = nfds;
	if (hfront_open(&f) != 0)
		return (1);

	ev_term = evsignal_new(f.base, SIGTERM, hfront_signal_cb, &f);
	ev_int = evsignal_new(f.base, SIGINT, hfront_signal_cb, &f);
	evsignal_add(ev_term, NULL);
	evsignal_add(ev_int, NULL);
	f.ev_tick = event_new(f.base, -1, EV_PERSIST, hfront_tick_cb, &f);
	evtimer_add(f.ev_tick, &tick);

	event_base_dispatch(f.base);

	hfront_close(&f);
	if (f.tokens != NULL) {
		htokens_free(f.tokens);
		free(f.tokens);
	}
	event_free(ev_term);
	event_free(ev_int);
	event_free(f.ev_tick);
	event_base_free(f.base);
	conf_http_free(f.conf);
	return (0);
}
