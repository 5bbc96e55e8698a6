/*
 * sdnotify.c -- sd_notify for Type=notify services.
 *
 * STATUS= is a one-line summary ("5 servers, 4 ready, 2 clients"), sent
 * when a server changes state and otherwise checked every
 * SDNOTIFY_STATUS_MS, only when its text changed.  When the manager asks for
 * a watchdog (WatchdogSec=, seen as $WATCHDOG_USEC), mcpd pings at half
 * the interval from its event loop, so a wedged loop stops the pings.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <systemd/sd-daemon.h>

#include "clock.h"
#include "mcpd.h"
#include "sdnotify.h"
#include "worker.h"
#include "xmalloc.h"

#define SDNOTIFY_STATUS_MS	1000

struct sdnotify {
	struct event	*ev_status;
	struct event	*ev_watchdog;
	char		 last[128];
};


static void
sdnotify_summary(struct mcpd *mcpd, char *buf, size_t size)
{
	struct worker	*w;
	size_t		 servers = 0, ready = 0, clients = 0;

	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		servers++;
		if (worker_state(w) == WORKER_READY ||
		    worker_state(w) == WORKER_FROZEN)
			ready++;
		clients += worker_clients(w);
	}
	snprintf(buf, size, "%zu server%s, %zu ready, %zu client%s", servers,
	    servers == 1 ? "" : "s", ready, clients, clients == 1 ? "" : "s");
}

void
sdnotify_status(struct mcpd *mcpd)
{
	struct sdnotify	*n = mcpd->sdnotify;
	char		 text[sizeof n->last];

	if (n == NULL)
		return;		/* not ready yet */
	sdnotify_summary(mcpd, text, sizeof text);
	if (strcmp(text, n->last) == 0)
		return;
	memcpy(n->last, text, sizeof text);
	sd_notifyf(0, "STATUS=%s", text);
}

static void
sdnotify_status_cb(evutil_socket_t fd, short events, void *arg)
{
	sdnotify_status(arg);
}

static void
sdnotify_watchdog_cb(evutil_socket_t fd, short events, void *arg)
{
	sd_notify(0, "WATCHDOG=1");
}

void
sdnotify_start(struct mcpd *mcpd)
{
	struct sdnotify	*n;
	struct timeval	 tv;
	uint64_t	 usec;

	n = mcpd->sdnotify = xcalloc(1, sizeof *n);
	sdnotify_summary(mcpd, n->last, sizeof n->last);
	sd_notifyf(0, "READY=1\nSTATUS=%s", n->last);

	n->ev_status = event_new(mcpd->base, -1, EV_PERSIST,
	    sdnotify_status_cb, mcpd);
	tv.tv_sec = SDNOTIFY_STATUS_MS / 1000;
	tv.tv_usec = (SDNOTIFY_STATUS_MS % 1000) * 1000;
	event_add(n->ev_status, &tv);

	if (sd_watchdog_enabled(0, &usec) > 0 && usec > 0) {
		n->ev_watchdog = event_new(mcpd->base, -1, EV_PERSIST,
		    sdnotify_watchdog_cb, mcpd);
		usec /= 2;
		tv.tv_sec = usec / 1000000;
		tv.tv_usec = usec % 1000000;
		event_add(n->ev_watchdog, &tv);
		sd_notify(0, "WATCHDOG=1");
	}
}

void
sdnotify_reloading(struct mcpd *mcpd)
{
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Reloading "
	    "the configuration", (unsigned long long)clock_now_us());
}

void
sdnotify_reexecuting(struct mcpd *mcpd, const char *binary)
{
	sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu\nSTATUS=Re-executing "
	    "%s", (unsigned long long)clock_now_us(), binary);
}

void
sdnotify_reloaded(struct mcpd *mcpd)
{
	char	 text[128];

	sdnotify_summary(mcpd, text, sizeof text);
	if (mcpd->sdnotify != NULL)
		snprintf(mcpd->sdnotify->last, sizeof mcpd->sdnotify->last, "%s",
		    text);
	sd_notifyf(0, "READY=1\nSTATUS=%s", text);
}

void
sdnotify_stopping(struct mcpd *mcpd)
{
	sd_notify(0, "STOPPING=1\nSTATUS=Stopping servers");
}

void
sdnotify_free(struct mcpd *mcpd)
{
	struct sdnotify	*n = mcpd->sdnotify;

	if (n == NULL)
		return;
	if (n->ev_status != NULL)
		event_free(n->ev_status);
	if (n->ev_watchdog != NULL)
		event_free(n->ev_watchdog);
	free(n);
	mcpd->sdnotify = NULL;
}
