/*
 * worker_freeze.c -- "idle": "freeze": a ready server with nothing to do
 * for idle_stop_s (worker_demand.c decides) is frozen instead of
 * stopped: its process, and all it started, stay where they are, with
 * their state, and the next message for it thaws it, in milliseconds
 * where a new start of an npx server takes seconds.
 *
 * - Frozen is a state (worker.h): the process runs on in the kernel's
 *   eyes, so worker_running holds; requests are forwarded as to a ready
 *   server (worker_availability) and the write that carries the first
 *   one thaws it before it goes into the pipe, where it waits for the
 *   server to read it.
 * - The freeze is asked for (freeze.h) and then looked at from a timer
 *   until the kernel says it is done; one that does not finish within
 *   WORKER_FREEZE_LIMIT_MS is given up: the server is thawed and
 *   stopped as idle, as without "freeze".  The state changes are
 *   worker_demand.c's (the freeze, a freeze given up) and worker.c's
 *   (the thaw): this file keeps the process's side and calls neither.
 * - While frozen: no health pings (worker_session.c pings only a ready
 *   server; a thaw starts them over, the frozen time not counted as
 *   silence), no idle check, no request timers (a server with a request
 *   in flight is not idle).  Its memory is offered back to the kernel
 *   in steps (memory.reclaim) where there is swap to take it.
 * - Leaving frozen for anything but ready (stop, restart, a reload, mcpd
 *   exiting) thaws it first: a stopped process does not act on SIGTERM
 *   or on the end of its input.
 * - Only local servers freeze: a remote server's session would expire
 *   (mcpd-remote's), so an idle one is stopped.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <event2/event.h>

#include "clock.h"
#include "freeze.h"
#include "log.h"
#include "proto.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

#define WORKER_FREEZE_LIMIT_MS	5000	/* for the kernel to freeze it */
#define WORKER_FREEZE_POLL_MS	50	/* its checks, at most this apart */
#define WORKER_THAW_CHECKS	100	/* after a thaw: looked at 100 times, */
#define WORKER_THAW_CHECK_MS	25	/* this apart (2.5 s in all) */
#define WORKER_RECLAIM_BYTES	(16ULL * 1024 * 1024)	/* a step */
#define WORKER_RECLAIM_STEPS	1024	/* at most, each freeze */

int
worker_freezes(const struct worker *w)
{
	return (w->conf->idle == CONF_IDLE_FREEZE && w->conf->url == NULL &&
	    w->rlink == NULL && w->tp != NULL);
}

static void
worker_freeze_arm(struct worker *w, uint64_t ms)
{
	worker_evtimer_add_ms(w->ev_freeze, ms);
}

static void
worker_freeze_logged(struct worker *w)
{
	char			 ms[32], *mem;
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_FREEZE_MS, ms },
		{ MCPD_FIELD_MEMORY, NULL },
	};

	snprintf(ms, sizeof ms, "%lld", (long long)w->frozen_in_ms);
	if (w->memory_note != NULL)
		xasprintf(&mem, "not offered back: %s", w->memory_note);
	else
		mem = xstrdup("offered back to the kernel (memory.reclaim)");
	f[2].value = mem;
	log_event(LOG_INFO, MCPD_MID_FREEZE, f, nitems(f),
	    "%s: frozen in %lld ms (pid %ld, %s); its memory: %s", w->name,
	    (long long)w->frozen_in_ms, (long)transport_pid(w->tp),
	    w->containment, mem);
	free(mem);
}

/* One step of memory.reclaim; the next from the timer, until no more. */
static void
worker_reclaim(struct worker *w)
{
	int64_t	 freed;

	freed = freeze_reclaim_step(transport_proc(w->tp),
	    WORKER_RECLAIM_BYTES);
	if (freed < 0 || ++w->reclaim_steps >= WORKER_RECLAIM_STEPS) {
		w->reclaim_steps = WORKER_RECLAIM_STEPS;
		return;
	}
	w->reclaimed += (uint64_t)freed;
	worker_freeze_arm(w, 1);
}

/*
 * After a thaw below a reaper: one still walking the tree of the freeze
 * before (it takes signals only between walks) can stop the server again
 * after mcpd's SIGCONT.  Looked at for WORKER_THAW_CHECKS x
 * WORKER_THAW_CHECK_MS, and thawed again whenever it is found stopped.
 * A cgroup's thaw is final: nothing to look at.
 */
static void
worker_thaw_check(struct worker *w)
{
	if (w->tp == NULL) {
		w->thaw_checks = 0;
		return;
	}
	if (freeze_done(transport_proc(w->tp)))
		(void)freeze_thaw(transport_proc(w->tp));
	if (--w->thaw_checks > 0)
		worker_freeze_arm(w, WORKER_THAW_CHECK_MS);
}

/*
 * ev_freeze (worker_demand.c owns its callback): 0 while all is well,
 * -1 when the kernel did not freeze it in time (*why).
 */
int
worker_freeze_check(struct worker *w, const char **why)
{
	uint64_t	 now = clock_now_ms(), waited;

	if (w->thaw_checks > 0 && w->state != WORKER_FROZEN) {
		worker_thaw_check(w);
		return (0);
	}
	if (w->state != WORKER_FROZEN || w->tp == NULL)
		return (0);
	if (w->freeze_asked_ms == 0) {
		worker_reclaim(w);
		return (0);
	}
	waited = now - w->freeze_asked_ms;
	if (!freeze_done(transport_proc(w->tp))) {
		if (waited >= WORKER_FREEZE_LIMIT_MS) {
			*why = "the kernel did not say it was frozen within "
			    "5 s";
			return (-1);
		}
		/* Soon at first, then no more often than the poll. */
		worker_freeze_arm(w, waited < WORKER_FREEZE_POLL_MS ?
		    waited + 1 : WORKER_FREEZE_POLL_MS);
		return (0);
	}
	w->frozen_in_ms = (int64_t)waited;
	w->freeze_asked_ms = 0;
	w->memory_note = freeze_reclaim_why_not(transport_proc(w->tp));
	worker_freeze_logged(w);
	if (w->memory_note == NULL)
		worker_freeze_arm(w, 0);
	return (0);
}

/* Ask for the freeze; the caller makes it frozen.  -1: *cause. */
int
worker_freeze_begin(struct worker *w, char **cause)
{
	if (freeze_begin(transport_proc(w->tp), cause) != 0)
		return (-1);
	w->freezes++;
	w->thaw_checks = 0;
	w->freeze_asked_ms = clock_now_ms();
	w->frozen_in_ms = -1;
	w->reclaimed = 0;
	w->reclaim_steps = 0;
	w->memory_note = NULL;
	evtimer_del(w->ev_health);
	evtimer_del(w->ev_idle);
	worker_freeze_arm(w, 0);
	return (0);
}

void
worker_freeze_left(struct worker *w, enum worker_state next)
{
	uint64_t	 now = clock_now_ms();

	evtimer_del(w->ev_freeze);
	w->freeze_asked_ms = 0;
	if (w->tp == NULL)
		return;		/* it ended while frozen */
	w->thaws++;
	if (freeze_thaw(transport_proc(w->tp))) {
		w->thaw_checks = WORKER_THAW_CHECKS;
		worker_freeze_arm(w, WORKER_THAW_CHECK_MS);
	}
	if (next != WORKER_READY)
		return;
	w->thaw_ms = now;
	w->thaw_frozen_ms = now - w->state_since_ms;
	w->thaw_answer_ms = -1;
}

/* The first word after a thaw: how long thaw and answer took. */
void
worker_freeze_heard(struct worker *w)
{
	char			 ms[32];
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_THAW_MS, ms },
	};

	if (w->thaw_ms == 0)
		return;
	w->thaw_answer_ms = (int64_t)(clock_now_ms() - w->thaw_ms);
	w->thaw_ms = 0;
	snprintf(ms, sizeof ms, "%lld", (long long)w->thaw_answer_ms);
	log_event(LOG_INFO, MCPD_MID_THAW, f, nitems(f),
	    "%s: thawed after %.1f s frozen; it answered %lld ms after the "
	    "thaw", w->name, (double)w->thaw_frozen_ms / 1000.0,
	    (long long)w->thaw_answer_ms);
}

void
worker_freeze_json(const struct worker *w, cJSON *o, cJSON *stats)
{
	cJSON	*fr;

	cJSON_AddStringToObject(o, "idle", conf_idle_name(w->conf->idle));
	cJSON_AddNumberToObject(stats, "freezes", (double)w->freezes);
	cJSON_AddNumberToObject(stats, "thaws", (double)w->thaws);
	if (w->thaw_answer_ms >= 0)
		cJSON_AddNumberToObject(stats, "last_thaw_answer_ms",
		    (double)w->thaw_answer_ms);
	if (w->state != WORKER_FROZEN)
		return;
	fr = cJSON_AddObjectToObject(o, "frozen");
	cJSON_AddNumberToObject(fr, "since_ms", (double)(clock_now_ms() -
	    w->state_since_ms));
	if (w->frozen_in_ms >= 0)
		cJSON_AddNumberToObject(fr, "frozen_in_ms",
		    (double)w->frozen_in_ms);
	else
		cJSON_AddNullToObject(fr, "frozen_in_ms");	/* not yet */
	if (w->freeze_asked_ms != 0)
		cJSON_AddStringToObject(fr, "memory", "not yet frozen");
	else if (w->memory_note != NULL) {
		cJSON_AddStringToObject(fr, "memory", "not offered back");
		cJSON_AddStringToObject(fr, "memory_reason", w->memory_note);
	} else {
		cJSON_AddStringToObject(fr, "memory", "offered back");
		cJSON_AddNumberToObject(fr, "reclaimed_bytes",
		    (double)w->reclaimed);
	}
}

void
worker_freeze_init(struct worker *w)
{
	w->frozen_in_ms = -1;
	w->thaw_answer_ms = -1;
}

void
worker_freeze_free(struct worker *w)
{
	event_free(w->ev_freeze);
}
