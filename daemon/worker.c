/*
 * worker.c -- supervise one MCP server: its state machine, spawn and
 * stop, the restart policy with backoff (restart.h decides), the admin
 * actions, reconfiguration, and what the router writes to the server.
 * The process and its pipes are the transport's (transport.h), its
 * stderr log is logs.c's; the session on the transport, on-demand
 * starts, instances, a re-exec and the status are rooms of their own
 * (worker_int.h names them).
 *
 * Invariants:
 * - A transport exists exactly in the states starting, initializing,
 *   ready, frozen and stopping (worker_running): the state, never the
 *   transport, says whether the server runs.
 * - The transport's `ended' (the process exited) is the only way out of
 *   those states, apart from a spawn that fails.
 * - One state timer: init timeout, backoff delay or stop escalation,
 *   depending on the state.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "backoff.h"
#include "child.h"
#include "clock.h"
#include "envelope.h"
#include "log.h"
#include "logs_ring.h"
#include "mcpd.h"
#include "proto.h"
#include "restart.h"
#include "rlink.h"
#include "roots.h"
#include "router.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

static const char *worker_state_names[] = MCPD_STATE_NAMES;
_Static_assert(nitems(worker_state_names) == WORKER_NSTATES,
    "MCPD_STATE_NAMES names every worker state");

/* mcpd-remote's exit status when only a sign-in can help (EX_NOPERM). */
#define WORKER_EXIT_NEEDS_LOGIN	77

/* The settings a start's time runs out on, as messages name them. */
#define WORKER_INIT_SETTING	"init_timeout_ms"
#define WORKER_FIRST_SETTING	"first_start_timeout_ms"

static void	worker_failed(struct worker *, int clean);

/* Every start but the first is a restart. */
uint64_t
worker_restarts(const struct worker *w)
{
	return (w->spawns > 0 ? w->spawns - 1 : 0);
}

const char *
worker_state_name(enum worker_state state)
{
	return (worker_state_names[state]);
}

const char *
worker_name(const struct worker *w)
{
	return (w->name);
}

enum worker_state
worker_state(const struct worker *w)
{
	return (w->state);
}

/* A process (a transport) exists in exactly these states. */
int
worker_running(const struct worker *w)
{
	switch (w->state) {
	case WORKER_STARTING:
	case WORKER_INITIALIZING:
	case WORKER_READY:
	case WORKER_FROZEN:
	case WORKER_STOPPING:
		return (1);
	case WORKER_BACKOFF:
	case WORKER_STOPPED:
	case WORKER_FAILED:
	case WORKER_NEEDS_LOGIN:
	case WORKER_IDLE:
		break;
	}
	return (0);
}

struct worker *
worker_first(struct mcpd *mcpd)
{
	return (TAILQ_FIRST(&mcpd->workers));
}

struct worker *
worker_next(struct worker *w)
{
	return (TAILQ_NEXT(w, entry));
}

const struct transport *
worker_transport(const struct worker *w)
{
	return (w->tp);
}

struct worker *
worker_find(struct mcpd *mcpd, const char *name)
{
	struct worker	*w;

	for (w = worker_first(mcpd); w != NULL; w = worker_next(w)) {
		if (!w->removing && strcmp(w->name, name) == 0)
			return (w);
	}
	return (NULL);
}

/* mcpd's hook: a shutdown ends once every worker has stopped. */
static void
worker_changed(struct mcpd *mcpd)
{
	if (mcpd->worker_changed != NULL)
		mcpd->worker_changed(mcpd);
}

/*
 * Health (SPEC 4.2): a ready server that has said nothing for
 * health_interval_ms gets a ping, unless a request is in flight (a server
 * deep in a long synchronous call cannot answer).  Anything it writes,
 * even an error, proves it alive.  No word within health_timeout_ms, or
 * health_max_timeouts request timeouts in a row, and it is ended and
 * restarted as hung.
 */
/*
 * How long the next start may take to answer initialize (worker_int.h:
 * first_start), and the setting that says so.  An instance's first start
 * is its template's: the first instance may be downloading the server.
 */
static uint32_t
worker_next_start_limit(const struct worker *w, const char **name)
{
	const struct conf_server *cs = w->conf;
	int			  first;

	first = w->parent != NULL ? w->parent->first_start : w->first_start;
	if (first && cs->first_start_timeout_ms > cs->init_timeout_ms) {
		*name = WORKER_FIRST_SETTING;
		return (cs->first_start_timeout_ms);
	}
	*name = WORKER_INIT_SETTING;
	return (cs->init_timeout_ms);
}

/* The start under way's limit, or the next one's (a request held for it). */
uint32_t
worker_start_limit(const struct worker *w, const char **name)
{
	if ((w->state == WORKER_STARTING || w->state == WORKER_INITIALIZING) &&
	    w->start_limit_name != NULL) {
		*name = w->start_limit_name;
		return (w->start_limit_ms);
	}
	return (worker_next_start_limit(w, name));
}

/* A start got ready, or ran out of its first start's time: no more. */
static void
worker_first_start_spent(struct worker *w)
{
	if (w->parent != NULL)
		w->parent->first_start = 0;
	w->first_start = 0;
}

void
worker_set_state(struct worker *w, enum worker_state next,
    const char *reason)
{
	enum worker_state	 prev = w->state;
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_STATE, worker_state_names[next] },
		{ MCPD_FIELD_PREV_STATE, worker_state_names[prev] },
		{ MCPD_FIELD_REASON, reason },
	};

	if (prev == next)
		return;
	/* Thawed before anything else is done with it. */
	if (prev == WORKER_FROZEN)
		worker_freeze_left(w, next);
	w->state = next;
	w->state_since_ms = clock_now_ms();
	/* Wanted only while idle, or stopping to be idle. */
	if (next != WORKER_IDLE && next != WORKER_STOPPING)
		w->wake_reason = NULL;
	log_event(next == WORKER_FAILED ? LOG_ERR : LOG_INFO, MCPD_MID_STATE,
	    f, nitems(f), "%s: %s -> %s%s%s", w->name,
	    worker_state_names[prev], worker_state_names[next],
	    reason != NULL ? ": " : "", reason != NULL ? reason : "");
	if (next == WORKER_READY && prev == WORKER_FROZEN) {
		/* The same session: health and idle checks start over. */
		worker_health_start(w);
		worker_idle_start(w);
	} else if (next == WORKER_READY) {
		worker_first_start_spent(w);
		router_session_ready(w->router, !w->was_ready);
		w->was_ready = 1;
		worker_health_start(w);
		worker_idle_start(w);
	} else if (worker_availability(w) == WORKER_AVAIL_REFUSE)
		router_session_unavailable(w->router);
	if (w->removing && !worker_running(w) && w->ninstances == 0)
		event_active(w->ev_free, EV_TIMEOUT, 0);
	worker_changed(w->mcpd);
}

void
worker_thaw(struct worker *w, const char *why)
{
	/* worker_freeze_left thaws it; ready again restarts its timers. */
	if (w->state == WORKER_FROZEN)
		worker_set_state(w, WORKER_READY, why);
}

void
worker_set_reason(char **slot, const char *reason)
{
	free(*slot);
	*slot = reason != NULL ? xstrdup(reason) : NULL;
}

static void
worker_arm_timer(struct worker *w, uint64_t ms)
{
	worker_evtimer_add_ms(w->ev_timer, ms);
}

/* Remote servers have an rlink; a reload may make one local or remote. */
static void
worker_set_rlink(struct worker *w)
{
	if (w->conf->url != NULL && w->rlink == NULL)
		w->rlink = rlink_new(w->name);
	else if (w->conf->url == NULL && w->rlink != NULL) {
		rlink_free(w->rlink);
		w->rlink = NULL;
	}
}

struct logs *
worker_logs(const struct worker *w)
{
	return (w->logs);
}

static void
worker_spawn_failed(struct worker *w, const char *cause)
{
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_REASON, cause },
	};

	log_event(LOG_ERR, MCPD_MID_SPAWN_FAILED, f, nitems(f),
	    "%s: %s", w->name, cause);
	worker_set_reason(&w->last_exit, cause);
	worker_stderr_ended(w, 0);
	worker_failed(w, 0);
}

void
worker_spawn(struct worker *w)
{
	char			*cause, pidtext[32];
	struct worker_sb	*sb;
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_PID, pidtext },
	};

	evtimer_del(w->ev_timer);
	/* A start again after the probe ended the last is the same start. */
	if (!w->probe_retry)
		w->spawns++;
	w->after = WORKER_AFTER_FAILURE;
	if (w->rlink != NULL)
		rlink_started(w->rlink);
	w->stop_phase = 0;
	worker_set_reason(&w->fail_reason, NULL);
	w->version_refused = 0;
	w->next_restart_at_ms = 0;
	worker_stderr_forget(w);
	w->start_limit_ms = worker_next_start_limit(w, &w->start_limit_name);
	worker_set_state(w, WORKER_STARTING, NULL);

	if (worker_sandbox_prepare(w, &sb, &cause) == -1) {
		worker_spawn_failed(w, cause);
		free(cause);
		return;
	}
	w->tp = transport_start(w->mcpd, w->conf, w->name,
	    worker_sandbox_child(sb), &worker_transport_cb, w, &cause);
	worker_sandbox_free(sb);
	if (w->tp == NULL) {
		worker_spawn_failed(w, cause);
		free(cause);
		return;
	}
	w->containment = transport_containment(w->tp);
	worker_sandbox_started(w);
	w->spawned_ms = clock_now_ms();
	snprintf(pidtext, sizeof pidtext, "%ld", (long)transport_pid(w->tp));
	log_event(LOG_INFO, MCPD_MID_SPAWN, f, nitems(f),
	    "%s: started %s (pid %ld)", w->name, w->conf->argv_display[0],
	    (long)transport_pid(w->tp));

	worker_send_initialize(w);
	worker_set_state(w, WORKER_INITIALIZING, NULL);
	worker_arm_timer(w, w->start_limit_ms);
}

/* The process is gone: so are its transport and its session. */
static void
worker_session_end(struct worker *w)
{
	transport_free(w->tp);
	w->tp = NULL;
	evtimer_del(w->ev_health);
	evtimer_del(w->ev_idle);
	event_del(w->ev_broken);
	free(w->broken_reason);
	w->broken_reason = NULL;
	cJSON_Delete(w->init_result);
	w->init_result = NULL;
	free(w->init_text);
	w->init_text = NULL;
	worker_modern_end(w);
}

/*
 * The server failed: end its process, then the restart policy.  With
 * signal, SIGTERM at once (it misbehaved); without, it is ending by
 * itself and gets the graceful stop's time first (its exit says why).
 */
void
worker_fail_stop(struct worker *w, const char *reason, int signal)
{
	if (!worker_running(w) || w->state == WORKER_STOPPING)
		return;
	worker_set_reason(&w->fail_reason, reason);
	w->after = WORKER_AFTER_FAILURE;
	worker_set_state(w, WORKER_STOPPING, reason);
	/* Nothing more will be answered: callers learn it now, not at exit. */
	router_session_down(w->router, reason);
	transport_close_input(w->tp);
	if (signal)
		transport_signal(w->tp, SIGTERM);
	w->stop_phase = signal ? 2 : 1;
	worker_arm_timer(w, w->conf->stop_timeout_ms / 2);
}

void
worker_kill(struct worker *w, const char *reason)
{
	worker_fail_stop(w, reason, 1);
}

/*
 * Graceful stop: close stdin, then SIGTERM the group after half the stop
 * timeout, then SIGKILL it when the stop timeout is up.
 */
void
worker_begin_stop(struct worker *w, enum worker_after after)
{
	w->after = after;
	if (w->state == WORKER_STOPPING)
		return;
	worker_set_state(w, WORKER_STOPPING,
	    after == WORKER_AFTER_RESTART ? "restart requested" :
	    after == WORKER_AFTER_IDLE ? "idle stop" :
	    w->mcpd->shutting_down ? "mcpd is shutting down" :
	    w->removing && w->parent != NULL ? "no client uses the instance" :
	    "stop requested");
	evtimer_del(w->ev_timer);
	transport_close_input(w->tp);
	w->stop_phase = 1;
	worker_arm_timer(w, w->conf->stop_timeout_ms / 2);
}

static void
worker_stop_escalate(struct worker *w)
{
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_STATE, worker_state_names[w->state] },
		{ MCPD_FIELD_REASON, "stop timeout: SIGKILL" },
	};

	switch (w->stop_phase) {
	case 1:
		log_info("%s: still running %u ms after stdin was closed (half "
		    "of stop_timeout_ms); sending SIGTERM", w->name,
		    w->conf->stop_timeout_ms / 2);
		transport_signal(w->tp, SIGTERM);
		w->stop_phase = 2;
		worker_arm_timer(w, w->conf->stop_timeout_ms -
		    w->conf->stop_timeout_ms / 2);
		break;
	default:
		log_event(LOG_WARNING, MCPD_MID_STATE, f, nitems(f),
		    "%s: did not exit after SIGTERM (stop_timeout_ms); "
		    "sending SIGKILL to process group %ld", w->name,
		    (long)transport_pid(w->tp));
		transport_kill(w->tp);
		w->stop_phase = 3;
		break;
	}
}

static void
worker_timer_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	char		*reason, limit[32];

	switch (w->state) {
	case WORKER_INITIALIZING:
		worker_ms_text(limit, sizeof limit, w->start_limit_ms);
		xasprintf(&reason, "initialize timed out after %s (%s)", limit,
		    w->start_limit_name);
		/* The download, if it was one, had its time: not again. */
		if (strcmp(w->start_limit_name, WORKER_FIRST_SETTING) == 0)
			worker_first_start_spent(w);
		worker_kill(w, reason);
		free(reason);
		break;
	case WORKER_BACKOFF:
		if (worker_unwanted(w))
			worker_set_state(w, WORKER_IDLE, "on demand, and no "
			    "client is attached: not restarted");
		else
			worker_spawn(w);
		break;
	case WORKER_STOPPING:
		worker_stop_escalate(w);
		break;
	default:
		break;
	}
}

static void
worker_failed(struct worker *w, int clean)
{
	const struct conf_server *cs = w->conf;
	uint64_t		 now = clock_now_ms();
	int64_t			 delay;
	char			 delaytext[32], restarts[32], *reason;
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_DELAY_MS, delaytext },
		{ MCPD_FIELD_RESTARTS, restarts },
		{ MCPD_FIELD_REASON, w->last_exit },
	};
	struct restart_facts	 facts = {
		.policy = cs->restart,
		.clean = clean,
		.shutting_down = w->mcpd->shutting_down,
		.unwanted = worker_unwanted(w),
	};

	switch (restart_decide(&facts, &w->backoff, &cs->backoff, now,
	    (double)random() / ((double)RAND_MAX + 1.0), &delay)) {
	case RESTART_STOP:
		worker_set_state(w, WORKER_STOPPED, w->last_exit);
		return;
	case RESTART_IDLE:
		xasprintf(&reason, "%s; on demand, and no client is attached: "
		    "not restarted", w->last_exit != NULL ? w->last_exit :
		    "it failed");
		worker_set_state(w, WORKER_IDLE, reason);
		free(reason);
		return;
	case RESTART_GIVE_UP:
		xasprintf(&reason, "gave up: %u restarts within %u s (last: "
		    "%s)", cs->backoff.max_restarts,
		    cs->backoff.restart_window_s,
		    w->last_exit != NULL ? w->last_exit : "unknown");
		snprintf(restarts, sizeof restarts, "%llu",
		    (unsigned long long)worker_restarts(w));
		f[1].value = NULL;
		f[3].value = reason;
		log_event(LOG_ERR, MCPD_MID_GIVE_UP, f, nitems(f),
		    "%s: %s", w->name, reason);
		worker_set_state(w, WORKER_FAILED, reason);
		free(reason);
		return;
	case RESTART_DELAY:
		break;
	}

	w->next_restart_at_ms = now + (uint64_t)delay;
	snprintf(delaytext, sizeof delaytext, "%lld", (long long)delay);
	snprintf(restarts, sizeof restarts, "%llu",
	    (unsigned long long)worker_restarts(w) + 1);
	worker_set_state(w, WORKER_BACKOFF, w->last_exit);
	log_event(LOG_INFO, MCPD_MID_RESTART, f, nitems(f),
	    "%s: restarting in %lld ms (restart %llu)", w->name,
	    (long long)delay, (unsigned long long)worker_restarts(w) + 1);
	worker_arm_timer(w, (uint64_t)delay);
}

/* The transport's last word: the process exited and all of it is gone. */
void
worker_tp_ended(void *arg, int wstatus)
{
	struct worker	*w = arg;
	char		*status, pidtext[32], code[16], *reason, *r;
	const char	*denial;
	int		 clean, intolerant;
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_PID, pidtext },
		{ WIFEXITED(wstatus) ? MCPD_FIELD_EXIT_STATUS :
		    MCPD_FIELD_EXIT_SIGNAL, code },
		{ MCPD_FIELD_REASON, NULL },
		{ MCPD_FIELD_LAST_STDERR, NULL },
	};

	status = child_describe_status(wstatus);
	snprintf(pidtext, sizeof pidtext, "%ld", (long)transport_pid(w->tp));
	snprintf(code, sizeof code, "%d", WIFEXITED(wstatus) ?
	    WEXITSTATUS(wstatus) : WTERMSIG(wstatus));
	if (w->fail_reason != NULL)
		xasprintf(&reason, "%s (%s)", w->fail_reason, status);
	else
		reason = xstrdup(status);
	f[3].value = reason;
	clean = w->fail_reason == NULL && WIFEXITED(wstatus) &&
	    WEXITSTATUS(wstatus) == 0;
	/* It ended on server/discover: a 2025 server, not a failure. */
	intolerant = worker_probe_ended(w);
	/* Why it failed (as the restart policy counts), in its own words. */
	worker_stderr_ended(w, w->after == WORKER_AFTER_FAILURE && !clean &&
	    !intolerant);
	if (w->after == WORKER_AFTER_FAILURE && !clean && !intolerant &&
	    (denial = worker_sandbox_denial(w, clock_now_ms())) != NULL) {
		xasprintf(&r, "%s; %s", reason, denial);
		free(reason);
		f[3].value = reason = r;
	}
	f[4].value = w->last_stderr;
	log_event(intolerant ? LOG_NOTICE : w->after == WORKER_AFTER_FAILURE ?
	    LOG_WARNING : LOG_INFO, MCPD_MID_EXIT, f, nitems(f),
	    "%s: process %ld %s%s%s%s", w->name, (long)transport_pid(w->tp),
	    reason, intolerant ? " on server/discover: a server of MCP 2025 "
	    "that does not take it (probe-intolerant), started again with "
	    "initialize first" : "", w->last_stderr != NULL ?
	    "; its last stderr line: " : "", w->last_stderr != NULL ?
	    w->last_stderr : "");

	if (!intolerant)
		worker_set_reason(&w->last_exit, reason);
	worker_set_reason(&w->fail_reason, NULL);
	free(reason);
	free(status);
	evtimer_del(w->ev_timer);
	if (w->rlink != NULL)
		rlink_ended(w->rlink);
	worker_session_end(w);
	router_session_down(w->router, intolerant ? "it ended on "
	    "server/discover, and is started again" : w->last_exit);

	switch (w->after) {
	case WORKER_AFTER_STOP:
		worker_set_state(w, WORKER_STOPPED, w->last_exit);
		break;
	case WORKER_AFTER_RESTART:
		worker_spawn(w);
		break;
	case WORKER_AFTER_IDLE:
		worker_set_state(w, WORKER_IDLE, "idle stop; it starts again "
		    "with the next request");
		/* A request came while it stopped. */
		if (w->wake_reason != NULL)
			event_active(w->ev_wake, EV_TIMEOUT, 0);
		break;
	case WORKER_AFTER_FAILURE:
		/* Started once more, initialize first, not as a restart. */
		if (intolerant) {
			w->probe_retry = 1;
			worker_spawn(w);
			break;
		}
		/*
		 * A remote server that said only a sign-in can help (and
		 * exited 77): no restart loop, it waits for mcpctl login.
		 */
		if (w->rlink != NULL && rlink_needs_login(w->rlink) != NULL &&
		    conf_remote_signs_in(w->conf) &&
		    WIFEXITED(wstatus) && WEXITSTATUS(wstatus) ==
		    WORKER_EXIT_NEEDS_LOGIN && !w->mcpd->shutting_down) {
			worker_set_reason(&w->last_exit,
			    rlink_needs_login(w->rlink));
			worker_set_state(w, WORKER_NEEDS_LOGIN, w->last_exit);
			break;
		}
		/* No version in common: another start would end the same. */
		if (w->version_refused && !w->mcpd->shutting_down) {
			worker_set_state(w, WORKER_FAILED, w->fail_reason);
			break;
		}
		worker_failed(w, clean);
		break;
	}
}

/*
 * Admin actions.
 */

void
worker_start(struct worker *w)
{
	if (worker_is_template(w)) {
		if (w->state != WORKER_IDLE)
			worker_template_enable(w);
		worker_template_each(w, worker_start);
		return;
	}
	switch (w->state) {
	case WORKER_STOPPING:
		if (w->after == WORKER_AFTER_STOP ||
		    w->after == WORKER_AFTER_IDLE)
			w->after = WORKER_AFTER_RESTART;
		break;
	case WORKER_BACKOFF:
	case WORKER_STOPPED:
	case WORKER_FAILED:
	case WORKER_NEEDS_LOGIN:
	case WORKER_IDLE:
		backoff_reset(&w->backoff);
		worker_spawn(w);
		break;
	case WORKER_FROZEN:
		worker_thaw(w, "start requested");
		break;
	default:
		break;			/* already running */
	}
}

void
worker_stop(struct worker *w)
{
	if (worker_is_template(w)) {
		worker_template_each(w, worker_stop);
		worker_set_state(w, WORKER_STOPPED, w->mcpd->shutting_down ?
		    "mcpd is shutting down" : "stop requested");
		return;
	}
	switch (w->state) {
	case WORKER_STARTING:
	case WORKER_INITIALIZING:
	case WORKER_READY:
	case WORKER_FROZEN:
	case WORKER_STOPPING:
		worker_begin_stop(w, WORKER_AFTER_STOP);
		break;
	case WORKER_BACKOFF:
		evtimer_del(w->ev_timer);
		w->next_restart_at_ms = 0;
		worker_set_state(w, WORKER_STOPPED, w->mcpd->shutting_down ?
		    "mcpd is shutting down" : "stop requested");
		break;
	case WORKER_NEEDS_LOGIN:
	case WORKER_IDLE:
		worker_set_state(w, WORKER_STOPPED, w->mcpd->shutting_down ?
		    "mcpd is shutting down" : "stop requested");
		break;
	case WORKER_STOPPED:
	case WORKER_FAILED:
		break;
	}
}

void
worker_restart(struct worker *w)
{
	if (worker_is_template(w)) {
		if (w->state != WORKER_IDLE)
			worker_template_enable(w);
		worker_template_each(w, worker_restart);
		return;
	}
	if (worker_running(w)) {
		backoff_reset(&w->backoff);
		worker_begin_stop(w, WORKER_AFTER_RESTART);
	} else
		worker_start(w);
}

/* Not started yet: an on-demand server waits, idle, for a client. */
enum worker_reconf
worker_enable(struct worker *w)
{
	if (worker_is_template(w)) {
		worker_template_enable(w);
		return (WORKER_RECONF_IDLE);
	}
	if (w->conf->start == CONF_START_ON_DEMAND) {
		worker_set_state(w, WORKER_IDLE, "on demand: it starts with "
		    "its first client");
		return (WORKER_RECONF_IDLE);
	}
	worker_start(w);
	return (WORKER_RECONF_STARTED);
}

/*
 * Reload changed only when the server runs (start, idle_stop_s): nothing
 * restarts.  An idle server now started always starts; a ready one is
 * checked against its new idle limit at once.
 */
static enum worker_reconf
worker_reconfigure_when(struct worker *w)
{
	if (w->state == WORKER_IDLE &&
	    w->conf->start == CONF_START_ALWAYS) {
		worker_start(w);
		return (WORKER_RECONF_STARTED);
	}
	if (w->state == WORKER_FROZEN && (w->conf->idle_stop_s == 0 ||
	    !worker_freezes(w)))
		worker_thaw(w, "reload: it is no longer frozen when idle");
	if (w->state == WORKER_READY) {
		if (w->conf->idle_stop_s == 0)
			evtimer_del(w->ev_idle);
		else
			worker_evtimer_add_ms(w->ev_idle, 0);
	}
	return (WORKER_RECONF_UPDATED);
}

/*
 * Reload: the server's configuration changed.  A running server (or one
 * waiting to restart, or given up on) restarts with the new one, its
 * clients staying attached; a server now disabled stops; one stopped by
 * an admin stays stopped, unless it was disabled and no longer is; an
 * idle one stays idle unless it is no longer on demand.  A change of
 * start or idle_stop_s alone restarts nothing.
 */
enum worker_reconf
worker_reconfigure(struct worker *w, const struct conf_server *cs)
{
	int	 was_disabled = w->conf->disabled;
	int	 when_only = conf_server_runs_same(w->conf, cs);
	struct conf_server *old = w->conf;

	/* cs may be a template's own copy, w's when w is that template. */
	w->conf = conf_server_dup(cs);
	conf_server_release(old);
	worker_set_rlink(w);
	worker_set_conf_roots(w);
	/* It runs another way: its first start may download it again. */
	if (!when_only)
		w->first_start = 1;
	if (worker_is_template(w))
		return (worker_template_reconfigure(w, was_disabled,
		    when_only));
	if (when_only)
		return (worker_reconfigure_when(w));
	if (cs->disabled) {
		if (w->state == WORKER_STOPPED || w->state == WORKER_FAILED)
			return (WORKER_RECONF_KEPT);
		if (w->state == WORKER_NEEDS_LOGIN) {
			worker_stop(w);
			return (WORKER_RECONF_STOPPED);
		}
		worker_stop(w);
		return (WORKER_RECONF_STOPPED);
	}
	switch (w->state) {
	case WORKER_STOPPED:
		if (!was_disabled)
			return (WORKER_RECONF_KEPT);
		return (worker_enable(w));
	case WORKER_IDLE:
		if (cs->start == CONF_START_ON_DEMAND)
			return (WORKER_RECONF_IDLE);
		worker_start(w);
		return (WORKER_RECONF_STARTED);
	case WORKER_FAILED:
	case WORKER_BACKOFF:
	case WORKER_NEEDS_LOGIN:
		worker_start(w);
		return (WORKER_RECONF_RESTARTED);
	default:
		worker_restart(w);
		return (WORKER_RECONF_RESTARTED);
	}
}

/* Reload: the server is gone from the config; free it once stopped. */
void
worker_remove(struct worker *w)
{
	w->removing = 1;
	if (worker_is_template(w))
		worker_template_each(w, worker_remove);
	worker_stop(w);
	if (!worker_running(w) && w->ninstances == 0)
		event_active(w->ev_free, EV_TIMEOUT, 0);
}

int
worker_removing(const struct worker *w)
{
	return (w->removing);
}

static void
worker_free_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	struct mcpd	*mcpd = w->mcpd;
	struct worker	*parent = w->parent;

	if (w->ninstances > 0 || worker_running(w))
		return;		/* a template outlives its instances */
	log_info("%s: removed", w->name);
	worker_free(w);
	/* The last instance of a template being removed: now it can go. */
	if (parent != NULL && parent->removing && parent->ninstances == 0)
		event_active(parent->ev_free, EV_TIMEOUT, 0);
	worker_changed(mcpd);
}

void
worker_kill_now(struct worker *w)
{
	if (w->tp != NULL)
		transport_kill(w->tp);
}

/*
 * What the router calls of its server (router.h): the worker is its
 * upstream, given to router_new, so the router never calls up.
 */
static const struct router_upstream worker_router_upstream = {
	.name = worker_name,
	.conf = worker_conf,
	.availability = worker_availability,
	.unavailable_reason = worker_unavailable_reason,
	.unavailable_code = worker_unavailable_code,
	.start_limit = worker_start_limit,
	.init_result_text = worker_init_result_text,
	.has_init = worker_has_init,
	.is_template = worker_is_template,
	.roots = worker_roots,
	.next_upstream_id = worker_next_upstream_id,
	.write = worker_write,
	.write_edit = worker_write_edit,
	.stdin_queued = worker_stdin_queued,
	.steal_line = worker_steal_line,
	.dropped_line = worker_dropped_line,
	.request_timed_out = worker_request_timed_out,
	.broken = worker_broken,
	.violation = worker_violation,
	.wanted = worker_wanted,
	.unused = worker_unused,
	.client_roots = worker_client_roots,
};

struct worker *
worker_make(struct mcpd *mcpd, const struct conf_server *cs,
    const char *name, struct worker *after)
{
	struct worker	*w;

	w = xcalloc(1, sizeof *w);
	w->mcpd = mcpd;
	w->name = xstrdup(name);
	w->conf = conf_server_dup(cs);
	w->state = WORKER_STOPPED;
	w->state_since_ms = clock_now_ms();
	w->first_start = 1;
	w->containment = child_containment_default();
	w->ev_timer = evtimer_new(mcpd->base, worker_timer_cb, w);
	w->ev_free = event_new(mcpd->base, -1, 0, worker_free_cb, w);
	worker_session_events(w);
	worker_demand_events(w);
	worker_freeze_init(w);
	worker_instance_events(w);
	w->logs = logs_new(mcpd, w->name, ++mcpd->workers_total);
	w->next_upstream_id = 1;
	backoff_init(&w->backoff);
	w->router = router_new(mcpd, &worker_router_upstream, w);
	worker_set_rlink(w);
	if (after != NULL)
		TAILQ_INSERT_AFTER(&mcpd->workers, after, w, entry);
	else
		TAILQ_INSERT_TAIL(&mcpd->workers, w, entry);
	return (w);
}

struct worker *
worker_new_stopped(struct mcpd *mcpd, const struct conf_server *cs)
{
	struct worker	*w;

	w = worker_make(mcpd, cs, cs->name, NULL);
	worker_set_conf_roots(w);
	return (w);
}

struct worker *
worker_new(struct mcpd *mcpd, const struct conf_server *cs)
{
	struct worker	*w;

	w = worker_new_stopped(mcpd, cs);
	if (!cs->disabled)
		(void)worker_enable(w);
	return (w);
}

/* Only for workers without a process (at exit, or removed on reload). */
void
worker_free(struct worker *w)
{
	struct worker	*i;

	if (w->tp != NULL)
		worker_session_end(w);
	child_forget(w->name);
	router_free(w->router);
	logs_free(w->logs, "server removed");
	rlink_free(w->rlink);
	TAILQ_REMOVE(&w->mcpd->workers, w, entry);
	event_free(w->ev_timer);
	event_free(w->ev_health);
	event_free(w->ev_broken);
	event_free(w->ev_probe);
	free(w->broken_reason);
	event_free(w->ev_free);
	event_free(w->ev_wake);
	event_free(w->ev_idle);
	worker_freeze_free(w);
	event_free(w->ev_unused);
	roots_free(&w->roots);
	/* A template's copy of its instances' initialize result. */
	cJSON_Delete(w->init_result);
	free(w->init_text);
	if (w->parent != NULL)
		w->parent->ninstances--;
	for (i = TAILQ_FIRST(&w->mcpd->workers); i != NULL;
	    i = TAILQ_NEXT(i, entry))
		if (i->parent == w)
			i->parent = NULL;	/* at exit: in any order */
	backoff_free(&w->backoff);
	free(w->fail_reason);
	free(w->last_exit);
	free(w->last_stderr);
	worker_stderr_forget(w);
	free(w->name);
	conf_server_release(w->conf);
	free(w);
}

/*
 * For the router.
 */

const struct conf_server *
worker_conf(const struct worker *w)
{
	return (w->conf);
}

struct router *
worker_router(const struct worker *w)
{
	return (w->router);
}

int64_t
worker_next_upstream_id(struct worker *w)
{
	return (w->next_upstream_id++);
}

int
worker_has_init(const struct worker *w)
{
	return (w->init_text != NULL);
}

const char *
worker_init_result_text(const struct worker *w)
{
	return (w->init_text != NULL ? w->init_text : "{}");
}

enum worker_avail
worker_availability(const struct worker *w)
{
	switch (w->state) {
	case WORKER_READY:
	case WORKER_FROZEN:		/* worker_write thaws it */
		/* While its end is handled the session is down already. */
		return (w->tp != NULL ? WORKER_AVAIL_READY :
		    WORKER_AVAIL_WAIT);
	case WORKER_STARTING:
	case WORKER_INITIALIZING:
	case WORKER_IDLE:		/* held: worker_wanted starts it */
		return (WORKER_AVAIL_WAIT);
	case WORKER_STOPPING:
		return (w->after == WORKER_AFTER_RESTART ||
		    w->after == WORKER_AFTER_IDLE ?
		    WORKER_AVAIL_WAIT : WORKER_AVAIL_REFUSE);
	default:
		return (WORKER_AVAIL_REFUSE);
	}
}

/* A message to a server of 2026-07-28 passes worker_modern.c, whole. */
static __attribute__((noinline)) int
worker_write_modern(struct worker *w, const struct iovec *iov, int iovcnt)
{
	char	*text;
	size_t	 len;
	int	 rc;

	if (iovcnt == 1)
		return (worker_modern_write(w, iov[0].iov_base,
		    iov[0].iov_len));
	text = xiovdup(iov, iovcnt, &len);
	rc = worker_modern_write(w, text, len);
	free(text);
	return (rc);
}

int
worker_write(struct worker *w, const struct iovec *iov, int iovcnt)
{
	if (w->tp == NULL)
		return (-1);
	if (w->state == WORKER_FROZEN)
		worker_thaw(w, "a message for it");
	if (w->modern_up)
		return (worker_write_modern(w, iov, iovcnt));
	return (transport_write(w->tp, iov, iovcnt));
}

int
worker_write_edit(struct worker *w, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	char	*text;
	size_t	 n;
	int	 rc;

	if (w->tp == NULL)
		return (-1);
	if (w->state == WORKER_FROZEN)
		worker_thaw(w, "a message for it");
	if (w->modern_up) {
		if ((text = envelope_splice_dup(line, len, edit, 1,
		    &n)) == NULL)
			return (-1);
		rc = worker_modern_write(w, text, n);
		free(text);
		return (rc);
	}
	return (transport_write_edit(w->tp, line, len, edit));
}

size_t
worker_stdin_queued(const struct worker *w)
{
	return (w->tp != NULL ? transport_queued(w->tp) : 0);
}

/*
 * While the router handles a stdout line: take the buffer holding it, so
 * a large reply reaches its client without a copy.  NULL if the line is
 * not the one the transport is delivering.
 */

char *
worker_steal_line(struct worker *w, const char *line, size_t *size)
{
	return (w->tp != NULL ? transport_steal_line(w->tp, line, size) :
	    NULL);
}
