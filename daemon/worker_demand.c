/*
 * worker_demand.c -- on-demand servers and idle stops.
 *
 * On demand (SPEC 4.2): an on-demand server waits in idle, without a
 * process, until a client attaches or a request is held for it
 * (worker_wanted); a ready server with idle_stop_s set that has had no
 * client request begin or end, no request of its own at a client and
 * no subscription for that long is stopped the graceful way and is
 * idle again (or, with "idle": "freeze", frozen: worker_freeze.c).  Its
 * clients stay attached: the next session is
 * initialized with mcpd's own initialize, as after a crash.  Attached
 * clients alone do not keep a server running; mcpd's health pings
 * neither.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include <event2/event.h>

#include "backoff.h"
#include "clock.h"
#include "log.h"
#include "mcpd.h"
#include "proto.h"
#include "router.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

/*
 * Idle stops: the check runs idle_stop_s after the session got ready and
 * then no sooner than the limit could be reached.  The router tells
 * whether its session has work and when a client request last began or
 * ended; a check that finds work counts as such a moment too (a
 * subscription that ends with its client, a request of the server's
 * answered by a client).
 */
uint64_t
worker_idle_stop_ms(const struct worker *w)
{
	return ((uint64_t)w->conf->idle_stop_s * 1000);
}

void
worker_idle_start(struct worker *w)
{
	w->busy_seen_ms = 0;
	/* An instance's idle_stop_s is how long it outlives its clients. */
	if (w->conf->idle_stop_s > 0 && (w->parent == NULL ||
	    w->conf->start == CONF_START_ON_DEMAND))
		worker_evtimer_add_ms(w->ev_idle, worker_idle_stop_ms(w));
	else
		evtimer_del(w->ev_idle);
}

static void
worker_idle_stop(struct worker *w, uint64_t idle_ms)
{
	char			*reason;
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_REASON, NULL },
	};

	xasprintf(&reason, "no request for %.1f s (idle_stop_s %u)",
	    (double)idle_ms / 1000.0, w->conf->idle_stop_s);
	f[1].value = reason;
	log_event(LOG_INFO, MCPD_MID_IDLE_STOP, f, nitems(f),
	    "%s: idle, stopping it until it is needed: %s", w->name, reason);
	free(reason);
	w->idle_stops++;
	worker_begin_stop(w, WORKER_AFTER_IDLE);
}

/* Stopped as idle after all: its freeze could not be done. */
static void
worker_freeze_failed(struct worker *w, const char *why)
{
	log_warnx("%s: could not freeze it (%s); stopping it as idle "
	    "instead", w->name, why);
	worker_set_state(w, WORKER_READY, "the freeze did not finish");
	w->idle_stops++;
	worker_begin_stop(w, WORKER_AFTER_IDLE);
}

/* Frozen instead (worker_freeze.c): its process kept, thawed when needed. */
static void
worker_idle_freeze(struct worker *w, uint64_t idle_ms)
{
	char	*cause, *reason;

	if (worker_freeze_begin(w, &cause) != 0) {
		worker_freeze_failed(w, cause);
		free(cause);
		return;
	}
	xasprintf(&reason, "idle: no request for %.1f s (idle_stop_s %u, "
	    "idle \"freeze\")", (double)idle_ms / 1000.0,
	    w->conf->idle_stop_s);
	worker_set_state(w, WORKER_FROZEN, reason);
	free(reason);
}

static void
worker_freeze_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	const char	*why;

	if (worker_freeze_check(w, &why) != 0)
		worker_freeze_failed(w, why);
}

static void
worker_idle_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	uint64_t	 now = clock_now_ms(), limit, since;

	if (w->state != WORKER_READY || w->conf->idle_stop_s == 0 ||
	    (w->parent != NULL && w->conf->start != CONF_START_ON_DEMAND))
		return;
	limit = worker_idle_stop_ms(w);
	/* Input it has yet to read is work too (and may pause clients). */
	if (router_busy(w->router) || worker_stdin_queued(w) > 0) {
		w->busy_seen_ms = now;
		worker_evtimer_add_ms(w->ev_idle, limit);
		return;
	}
	since = w->state_since_ms;
	if (router_active_ms(w->router) > since)
		since = router_active_ms(w->router);
	if (w->busy_seen_ms > since)
		since = w->busy_seen_ms;
	if (since > now)
		since = now;
	if (now - since < limit) {
		worker_evtimer_add_ms(w->ev_idle, limit - (now - since));
		return;
	}
	if (!worker_freezes(w))
		worker_idle_stop(w, now - since);
	else if (w->ping_sent_ms != 0)	/* its answer first */
		worker_evtimer_add_ms(w->ev_idle, w->conf->health_timeout_ms);
	else
		worker_idle_freeze(w, now - since);
}

/* An on-demand server nobody is attached to need not run, nor restart. */
int
worker_unwanted(const struct worker *w)
{
	return (w->conf->start == CONF_START_ON_DEMAND &&
	    router_clients(w->router) == 0 && !w->mcpd->shutting_down);
}

static void
worker_start_on_demand(struct worker *w)
{
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_REASON, w->wake_reason },
	};

	log_event(LOG_INFO, MCPD_MID_ON_DEMAND, f, nitems(f),
	    "%s: starting on demand: %s", w->name, w->wake_reason);
	w->on_demand_starts++;
	backoff_reset(&w->backoff);
	worker_spawn(w);
}

static void
worker_wake_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;

	if (w->state == WORKER_IDLE && w->wake_reason != NULL)
		worker_start_on_demand(w);
}

/*
 * A client needs the server: an idle one starts, from an event of the
 * worker's own (the caller may be deep in the router); one stopping for
 * being idle starts again once it has exited.
 */
void
worker_wanted(struct worker *w, const char *why)
{
	if (worker_is_template(w))
		return;
	switch (w->state) {
	case WORKER_IDLE:
		w->wake_reason = why;
		event_active(w->ev_wake, EV_TIMEOUT, 0);
		break;
	case WORKER_STOPPING:
		if (w->after == WORKER_AFTER_IDLE)
			w->wake_reason = why;
		break;
	default:
		break;
	}
}

/* Its events: an on-demand start, the idle stop's check, the freeze's. */
void
worker_demand_events(struct worker *w)
{
	w->ev_wake = event_new(w->mcpd->base, -1, 0, worker_wake_cb, w);
	w->ev_idle = evtimer_new(w->mcpd->base, worker_idle_cb, w);
	w->ev_freeze = evtimer_new(w->mcpd->base, worker_freeze_cb, w);
}
