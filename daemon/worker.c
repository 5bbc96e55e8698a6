/*
 * worker.c -- supervise one MCP server: its state machine, the initialize
 * handshake, health, the restart policy with backoff, the admin actions
 * and its status.  The process and its pipes are the transport's
 * (transport.h), its stderr log is logs.c's.
 *
 * Invariants:
 * - A transport exists exactly in the states starting, initializing,
 *   ready and stopping (worker_running): the state, never the transport,
 *   says whether the server runs.
 * - The transport's `ended' (the process exited) is the only way out of
 *   those states, apart from a spawn that fails.
 * - One state timer: init timeout, backoff delay or stop escalation,
 *   depending on the state.
 * - On demand (SPEC 4.2): an on-demand server waits in idle, without a
 *   process, until a client attaches or a request is held for it
 *   (worker_wanted); a ready server with idle_stop_s set that has had no
 *   client request begin or end, no request of its own at a client and
 *   no subscription for that long is stopped the graceful way and is
 *   idle again.  Its clients stay attached: the next session is
 *   initialized with mcpd's own initialize, as after a crash.  Attached
 *   clients alone do not keep a server running; mcpd's health pings
 *   neither.
 */
#include "config.h"

#include <sys/queue.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "backoff.h"
#include "child.h"
#include "clock.h"
#include "envelope.h"
#include "guard.h"
#include "handover.h"
#include "instance.h"
#include "log.h"
#include "logs.h"
#include "mcpd.h"
#include "proto.h"
#include "rlink.h"
#include "roots.h"
#include "router.h"
#include "rpc.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "xmalloc.h"

#define WORKER_LOG_HEAD_BYTES		80	/* of a bad line, in the log */

enum worker_after {
	WORKER_AFTER_FAILURE,	/* the restart policy decides */
	WORKER_AFTER_STOP,	/* admin stop or shutdown: stopped */
	WORKER_AFTER_RESTART,	/* admin restart: start again at once */
	WORKER_AFTER_IDLE,	/* nothing to do: idle until wanted */
};

struct worker {
	struct mcpd		*mcpd;
	char			*name;
	struct conf_server	*conf;		/* our own copy */
	enum worker_state	 state;
	uint64_t		 state_since_ms;

	struct transport	*tp;		/* while running */
	const char		*containment;	/* of the last start */
	uint64_t		 spawned_ms;
	struct event		*ev_timer;

	/* Health: is a ready server still answering? */
	struct event		*ev_health;
	uint64_t		 heard_ms;	/* last read from its stdout */
	uint64_t		 ping_sent_ms;	/* 0: no health ping out */
	uint32_t		 timeouts_in_row; /* requests, nothing heard */
	char			*broken_reason;	/* set: end it (deferred) */
	struct event		*ev_broken;

	/* On demand: started when wanted, stopped when idle. */
	struct event		*ev_wake;	/* an on-demand start */
	const char		*wake_reason;	/* a static string */
	struct event		*ev_idle;	/* the idle stop's check */
	uint64_t		 busy_seen_ms;	/* the router was busy */
	uint64_t		 on_demand_starts;
	uint64_t		 idle_stops;

	enum worker_after	 after;
	int			 stop_phase;
	char			*fail_reason;	/* why we are killing it */

	struct backoff		 backoff;
	uint64_t		 spawns;	/* restarts: all but the first */
	char			*last_exit;
	uint64_t		 next_restart_at_ms;

	int64_t			 next_upstream_id; /* never reset */
	int64_t			 init_id;
	cJSON			*init_result;
	char			*init_text;	/* init_result, printed */
	int			 was_ready;	/* some session got ready */
	struct router		*router;
	int			 removing;	/* gone from the config */
	struct event		*ev_free;

	struct logs		*logs;		/* its stderr */
	struct rlink		*rlink;		/* a remote server's; or NULL */

	/*
	 * A server not shared globally (instance.c) is a template: it never
	 * runs; its instances, workers of their own named NAME#N, do.  An
	 * instance's roots are its client's (per-client) or its set's
	 * (per-roots), unknown until its first client's are known; a
	 * global server's are the configured ones.
	 */
	struct worker		*parent;	/* an instance's template */
	uint32_t		 instance_no;
	uint32_t		 instances_made; /* a template's, numbers them */
	size_t			 ninstances;	/* a template's, alive now */
	pid_t			 owner_pid;	/* per-client: made for it */
	uid_t			 owner_uid;	/* and its user */
	struct roots		 roots;
	int			 roots_known;
	struct event		*ev_unused;	/* an instance nobody uses */
	uint64_t		 unused_ms;	/* for this long */

	uint64_t		 lines_in;
	uint64_t		 nonjson_lines;
	uint64_t		 oversize;
	uint64_t		 violations;

	TAILQ_ENTRY(worker)	 entry;
};

static const char *worker_state_names[] = MCPD_STATE_NAMES;

/* mcpd-remote's exit status when only a sign-in can help (EX_NOPERM). */
#define WORKER_EXIT_NEEDS_LOGIN	77

static void	worker_spawn(struct worker *);
static void	worker_failed(struct worker *, int clean);
static void	worker_kill(struct worker *, const char *reason);
static void	worker_fail_stop(struct worker *, const char *reason, int signal);
static void	worker_begin_stop(struct worker *, enum worker_after);
static void	worker_send_json(struct worker *, cJSON *);
static void	worker_health_start(struct worker *);
static void	worker_idle_start(struct worker *);
static struct worker *worker_new_stopped(struct mcpd *,
		    const struct conf_server *);
static enum worker_reconf worker_enable(struct worker *);

/* Every start but the first is a restart. */
static uint64_t
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

/*
 * Health (SPEC 4.2): a ready server that has said nothing for
 * health_interval_ms gets a ping, unless a request is in flight (a server
 * deep in a long synchronous call cannot answer).  Anything it writes,
 * even an error, proves it alive.  No word within health_timeout_ms, or
 * health_max_timeouts request timeouts in a row, and it is ended and
 * restarted as hung.
 */
static void
worker_evtimer_add_ms(struct event *ev, uint64_t ms)
{
	struct timeval	 tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(ev, &tv);
}

static void
worker_health_arm(struct worker *w, uint64_t ms)
{
	worker_evtimer_add_ms(w->ev_health, ms);
}

static void
worker_health_start(struct worker *w)
{
	w->heard_ms = clock_now_ms();
	w->ping_sent_ms = 0;
	w->timeouts_in_row = 0;
	if (w->conf->health_interval_ms > 0)
		worker_health_arm(w, w->conf->health_interval_ms);
}

static void
worker_health_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker		*w = arg;
	const struct conf_server *cs = w->conf;
	uint64_t		 now = clock_now_ms(), quiet;
	char			*reason;

	if (w->state != WORKER_READY || cs->health_interval_ms == 0)
		return;
	if (w->ping_sent_ms != 0) {
		if (now - w->ping_sent_ms >= cs->health_timeout_ms) {
			xasprintf(&reason, "hung: no answer to a health ping "
			    "within %u ms, nothing heard for %llu ms",
			    cs->health_timeout_ms,
			    (unsigned long long)(now - w->heard_ms));
			worker_kill(w, reason);
			free(reason);
			return;
		}
		worker_health_arm(w, cs->health_timeout_ms -
		    (now - w->ping_sent_ms));
		return;
	}
	quiet = now - w->heard_ms;
	if (quiet < cs->health_interval_ms) {
		worker_health_arm(w, cs->health_interval_ms - quiet);
		return;
	}
	if (router_inflight(w->router) > 0) {
		worker_health_arm(w, cs->health_interval_ms);
		return;
	}
	router_ping(w->router);
	w->ping_sent_ms = now;
	worker_health_arm(w, cs->health_timeout_ms);
}

/* The server wrote something: it is alive (transport callback). */
static void
worker_heard(void *arg)
{
	struct worker	*w = arg;

	w->heard_ms = clock_now_ms();
	w->ping_sent_ms = 0;
	w->timeouts_in_row = 0;
}

/*
 * Idle stops: the check runs idle_stop_s after the session got ready and
 * then no sooner than the limit could be reached.  The router tells
 * whether its session has work and when a client request last began or
 * ended; a check that finds work counts as such a moment too (a
 * subscription that ends with its client, a request of the server's
 * answered by a client).
 */
static uint64_t
worker_idle_stop_ms(const struct worker *w)
{
	return ((uint64_t)w->conf->idle_stop_s * 1000);
}

static void
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
	worker_idle_stop(w, now - since);
}

/* An on-demand server nobody is attached to need not run, nor restart. */
static int
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

static void
worker_broken_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	char		*reason = w->broken_reason;

	w->broken_reason = NULL;
	if (reason != NULL)
		worker_kill(w, reason);
	free(reason);
}

/*
 * The router found the server broken: end it and restart it, from an
 * event of the worker's own (never from inside the router's loops).
 */
void
worker_broken(struct worker *w, const char *fmt, ...)
{
	va_list	 ap;

	if (w->broken_reason != NULL || !worker_running(w) ||
	    w->state == WORKER_STOPPING)
		return;
	va_start(ap, fmt);
	xvasprintf(&w->broken_reason, fmt, ap);
	va_end(ap);
	event_active(w->ev_broken, EV_TIMEOUT, 0);
}

void
worker_request_timed_out(struct worker *w)
{
	if (w->conf->health_max_timeouts == 0 || w->state != WORKER_READY)
		return;
	if (++w->timeouts_in_row == w->conf->health_max_timeouts)
		worker_broken(w, "hung: %u requests in a row timed out without "
		    "a word from the server", w->timeouts_in_row);
}

static void
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
	w->state = next;
	w->state_since_ms = clock_now_ms();
	/* Wanted only while idle, or stopping to be idle. */
	if (next != WORKER_IDLE && next != WORKER_STOPPING)
		w->wake_reason = NULL;
	log_event(next == WORKER_FAILED ? LOG_ERR : LOG_INFO, MCPD_MID_STATE,
	    f, nitems(f), "%s: %s -> %s%s%s", w->name,
	    worker_state_names[prev], worker_state_names[next],
	    reason != NULL ? ": " : "", reason != NULL ? reason : "");
	if (next == WORKER_READY) {
		router_session_ready(w->router, !w->was_ready);
		w->was_ready = 1;
		worker_health_start(w);
		worker_idle_start(w);
	} else if (worker_availability(w) == WORKER_AVAIL_REFUSE)
		router_session_unavailable(w->router);
	if (w->removing && !worker_running(w) && w->ninstances == 0)
		event_active(w->ev_free, EV_TIMEOUT, 0);
	mcpd_worker_changed(w->mcpd);
}

static void
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

/* Count and log a protocol violation by the server. */
void
worker_violation(struct worker *w, const char *kind, const char *fmt, ...)
{
	va_list		 ap;
	char		*text;
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_VIOLATION, kind },
	};

	w->violations++;
	w->mcpd->protocol_violations++;
	/* Log the first few and then every 1000th, not a flood. */
	if (w->violations > 10 && w->violations % 1000 != 0)
		return;
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	log_event(LOG_WARNING, MCPD_MID_VIOLATION, f, nitems(f),
	    "%s: protocol violation (%s): %s", w->name, kind, text);
	free(text);
}

/* A printable, bounded copy of the start of a line for the log. */
static char *
worker_head(const char *line, size_t len)
{
	size_t	 n = len < WORKER_LOG_HEAD_BYTES ? len : WORKER_LOG_HEAD_BYTES;
	char	*s;
	size_t	 i;

	s = xmalloc(n + 4);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)line[i];
		s[i] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
	}
	if (n < len)
		memcpy(s + n, "...", 4);
	else
		s[n] = '\0';
	return (s);
}

/*
 * Session: the upstream initialize handshake.
 */

static void
worker_send_initialize(struct worker *w)
{
	cJSON	*params, *info, *id;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", MCPD_MCP_VERSION);
	cJSON_AddItemToObject(params, "capabilities",
	    router_client_capabilities(w->router));
	info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", PACKAGE_NAME);
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);

	w->init_id = w->next_upstream_id++;
	id = cJSON_CreateNumber((double)w->init_id);
	worker_send_json(w, rpc_make_request(id, "initialize", params));
	cJSON_Delete(id);
}

static int
worker_version_accepted(const char *version)
{
	static const char	*accepted[] = MCPD_MCP_VERSIONS_ACCEPTED;
	size_t			 i;

	for (i = 0; accepted[i] != NULL; i++) {
		if (strcmp(accepted[i], version) == 0)
			return (1);
	}
	return (0);
}

static void
worker_init_response(struct worker *w, cJSON *msg)
{
	cJSON		*result, *error, *version, *message, *info, *name, *code;
	char		*reason;

	evtimer_del(w->ev_timer);
	if ((error = cJSON_GetObjectItemCaseSensitive(msg, "error")) != NULL) {
		message = cJSON_GetObjectItemCaseSensitive(error, "message");
		code = cJSON_GetObjectItemCaseSensitive(error, "code");
		xasprintf(&reason, "initialize failed: %s",
		    cJSON_IsString(message) ? message->valuestring :
		    "(no message)");
		/*
		 * mcpd-remote refused for want of a sign-in and exits by
		 * itself (77): a signal now could hide why it ended.
		 */
		if (w->rlink != NULL && cJSON_IsNumber(code) &&
		    code->valueint == MCPD_ERR_REMOTE_AUTH)
			worker_fail_stop(w, reason, 0);
		else
			worker_kill(w, reason);
		free(reason);
		return;
	}
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (!cJSON_IsObject(result) || !cJSON_IsString(version)) {
		worker_kill(w, "protocol violation: initialize result "
		    "without protocolVersion");
		return;
	}
	if (!worker_version_accepted(version->valuestring)) {
		xasprintf(&reason, "initialize: unsupported protocol version "
		    "\"%.40s\"", version->valuestring);
		worker_kill(w, reason);
		free(reason);
		return;
	}

	cJSON_Delete(w->init_result);
	free(w->init_text);
	w->init_result = cJSON_DetachItemViaPointer(msg, result);
	w->init_text = rpc_print(w->init_result);
	/* What the template answers clients with before they have one. */
	if (w->parent != NULL) {
		cJSON_Delete(w->parent->init_result);
		free(w->parent->init_text);
		w->parent->init_result = cJSON_Duplicate(w->init_result, 1);
		w->parent->init_text = xstrdup(w->init_text);
	}
	worker_send_json(w, rpc_make_notification("notifications/initialized",
	    NULL));

	info = cJSON_GetObjectItemCaseSensitive(w->init_result, "serverInfo");
	name = cJSON_GetObjectItemCaseSensitive(info, "name");
	xasprintf(&reason, "initialized: %s, protocol %s",
	    cJSON_IsString(name) ? name->valuestring : "unnamed server",
	    version->valuestring);
	backoff_ready(&w->backoff, clock_now_ms());
	worker_set_state(w, WORKER_READY, reason);
	free(reason);
}

void
worker_dropped_line(struct worker *w, const char *line, size_t len,
    size_t error_off)
{
	char	*head;

	w->nonjson_lines++;
	head = worker_head(line, len);
	worker_violation(w, "not-json", "dropped a stdout line of %zu bytes "
	    "that is not one JSON object (error at byte %zu): %s", len,
	    error_off, head);
	free(head);
}

/*
 * A line from the server's stdout.  While the session initializes, mcpd
 * looks for its own initialize reply (a small message: cJSON is fine, up
 * to RPC_PARSE_MAX_BYTES); everything else goes to the router, which
 * never builds a tree.
 */
static void
worker_handle_line(void *arg, const char *line, size_t len,
    const struct envelope_span *plain)
{
	struct worker	*w = arg;
	cJSON		*msg, *id;
	struct envelope	 env;
	size_t		 erroff;
	int64_t		 n;
	char		*why;

	w->lines_in++;
	if (w->state == WORKER_INITIALIZING && len > RPC_PARSE_MAX_BYTES) {
		if (envelope_scan(line, len, &env, &erroff) == 0 &&
		    envelope_int64(line, &env.id, &n) == 0 && n == w->init_id) {
			xasprintf(&why, "protocol violation: initialize result "
			    "of %zu bytes (mcpd reads at most %d)", len,
			    RPC_PARSE_MAX_BYTES);
			worker_kill(w, why);
			free(why);
			return;
		}
	} else if (w->state == WORKER_INITIALIZING) {
		msg = cJSON_ParseWithLength(line, len);
		id = cJSON_GetObjectItemCaseSensitive(msg, "id");
		if (rpc_classify(msg) == RPC_KIND_RESPONSE &&
		    cJSON_IsNumber(id) &&
		    id->valuedouble == (double)w->init_id) {
			worker_init_response(w, msg);
			cJSON_Delete(msg);
			return;
		}
		cJSON_Delete(msg);
	}
	router_server_line(w->router, line, len, plain);
}

/*
 * What the transport reports.
 */

static void
worker_send_json(struct worker *w, cJSON *msg)
{
	struct iovec	 iov;
	char		*text;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	iov.iov_base = text;
	iov.iov_len = strlen(text);
	(void)transport_write(w->tp, &iov, 1);
	free(text);
}

static void
worker_tp_oversize(void *arg, size_t total, const char *id, size_t id_len,
    const char *head_bytes, size_t head_len)
{
	struct worker	*w = arg;
	char		*head;

	w->oversize++;
	router_server_oversize(w->router, total, id, id_len);
	head = worker_head(head_bytes, head_len);
	worker_violation(w, "oversize", "discarded a message of %zu bytes "
	    "(max_message_bytes is %zu, id %.*s): %s", total,
	    w->conf->max_message_bytes, id != NULL ? (int)id_len : 4,
	    id != NULL ? id : "none", head);
	free(head);
}

static void
worker_tp_garbage(void *arg, size_t total)
{
	struct worker	*w = arg;
	char		*reason;

	if (w->state == WORKER_STOPPING)
		return;
	xasprintf(&reason, "protocol violation: %zu bytes of stdout without "
	    "a newline (max_message_bytes is %zu)", total,
	    w->conf->max_message_bytes);
	worker_violation(w, "garbage", "%s", reason);
	worker_kill(w, reason);
	free(reason);
}

static void
worker_tp_err_line(void *arg, const char *line, size_t len, size_t total)
{
	struct worker	*w = arg;

	logs_line(w->logs, line, len, total);
}

static void
worker_tp_drained(void *arg)
{
	struct worker	*w = arg;

	router_stdin_drained(w->router);
}

static void
worker_tp_broke(void *arg, const char *reason)
{
	struct worker	*w = arg;

	if (w->state != WORKER_STOPPING)
		worker_kill(w, reason);
}

static void	worker_tp_ended(void *, int);

/* A remote server's worker (mcpd-remote) tells how its session goes. */
static void
worker_tp_status(void *arg, const char *line, size_t len)
{
	struct worker	*w = arg;

	if (w->rlink != NULL)
		rlink_line(w->rlink, line, len);
}

static const struct transport_cb worker_transport_cb = {
	.line = worker_handle_line,
	.oversize = worker_tp_oversize,
	.garbage = worker_tp_garbage,
	.heard = worker_heard,
	.err_line = worker_tp_err_line,
	.drained = worker_tp_drained,
	.broke = worker_tp_broke,
	.status = worker_tp_status,
	.ended = worker_tp_ended,
};

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
	worker_failed(w, 0);
}

static void
worker_spawn(struct worker *w)
{
	char			*cause, pidtext[32];
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_PID, pidtext },
	};

	evtimer_del(w->ev_timer);
	w->spawns++;
	w->after = WORKER_AFTER_FAILURE;
	if (w->rlink != NULL)
		rlink_started(w->rlink);
	w->stop_phase = 0;
	worker_set_reason(&w->fail_reason, NULL);
	w->next_restart_at_ms = 0;
	worker_set_state(w, WORKER_STARTING, NULL);

	if ((w->tp = transport_start(w->mcpd, w->conf, w->name,
	    &worker_transport_cb, w, &cause)) == NULL) {
		worker_spawn_failed(w, cause);
		free(cause);
		return;
	}
	w->containment = transport_containment(w->tp);
	w->spawned_ms = clock_now_ms();
	snprintf(pidtext, sizeof pidtext, "%ld", (long)transport_pid(w->tp));
	log_event(LOG_INFO, MCPD_MID_SPAWN, f, nitems(f),
	    "%s: started %s (pid %ld)", w->name, w->conf->argv_display[0],
	    (long)transport_pid(w->tp));

	worker_send_initialize(w);
	worker_set_state(w, WORKER_INITIALIZING, NULL);
	worker_arm_timer(w, w->conf->init_timeout_ms);
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
}

/*
 * The server failed: end its process, then the restart policy.  With
 * signal, SIGTERM at once (it misbehaved); without, it is ending by
 * itself and gets the graceful stop's time first (its exit says why).
 */
static void
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

static void
worker_kill(struct worker *w, const char *reason)
{
	worker_fail_stop(w, reason, 1);
}

/*
 * Graceful stop: close stdin, then SIGTERM the group after half the stop
 * timeout, then SIGKILL it when the stop timeout is up.
 */
static void
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
		log_info("%s: still running %u ms after stdin was closed; "
		    "sending SIGTERM", w->name, w->conf->stop_timeout_ms / 2);
		transport_signal(w->tp, SIGTERM);
		w->stop_phase = 2;
		worker_arm_timer(w, w->conf->stop_timeout_ms -
		    w->conf->stop_timeout_ms / 2);
		break;
	default:
		log_event(LOG_WARNING, MCPD_MID_STATE, f, nitems(f),
		    "%s: did not exit after SIGTERM; sending SIGKILL to "
		    "process group %ld", w->name, (long)transport_pid(w->tp));
		transport_kill(w->tp);
		w->stop_phase = 3;
		break;
	}
}

static void
worker_timer_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;
	char		*reason;

	switch (w->state) {
	case WORKER_INITIALIZING:
		xasprintf(&reason, "initialize timed out after %u ms",
		    w->conf->init_timeout_ms);
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

	if (w->mcpd->shutting_down || cs->restart == CONF_RESTART_NEVER ||
	    (cs->restart == CONF_RESTART_ON_FAILURE && clean)) {
		worker_set_state(w, WORKER_STOPPED, w->last_exit);
		return;
	}
	if (worker_unwanted(w)) {
		xasprintf(&reason, "%s; on demand, and no client is attached: "
		    "not restarted", w->last_exit != NULL ? w->last_exit :
		    "it failed");
		worker_set_state(w, WORKER_IDLE, reason);
		free(reason);
		return;
	}

	backoff_check_stable(&w->backoff, &cs->backoff, now);
	w->backoff.ready_since_ms = 0;
	delay = backoff_fail(&w->backoff, &cs->backoff, now,
	    (double)random() / ((double)RAND_MAX + 1.0));
	if (delay == BACKOFF_GIVE_UP) {
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
static void
worker_tp_ended(void *arg, int wstatus)
{
	struct worker	*w = arg;
	char		*status, pidtext[32], code[16], *reason;
	int		 clean;
	struct log_field f[] = {
		{ MCPD_FIELD_SERVER, w->name },
		{ MCPD_FIELD_PID, pidtext },
		{ WIFEXITED(wstatus) ? MCPD_FIELD_EXIT_STATUS :
		    MCPD_FIELD_EXIT_SIGNAL, code },
		{ MCPD_FIELD_REASON, NULL },
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
	log_event(w->after == WORKER_AFTER_FAILURE ? LOG_WARNING : LOG_INFO,
	    MCPD_MID_EXIT, f, nitems(f), "%s: process %ld %s", w->name,
	    (long)transport_pid(w->tp), reason);

	clean = w->fail_reason == NULL && WIFEXITED(wstatus) &&
	    WEXITSTATUS(wstatus) == 0;
	worker_set_reason(&w->last_exit, reason);
	worker_set_reason(&w->fail_reason, NULL);
	free(reason);
	free(status);
	evtimer_del(w->ev_timer);
	if (w->rlink != NULL)
		rlink_ended(w->rlink);
	worker_session_end(w);
	router_session_down(w->router, w->last_exit);

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
		worker_failed(w, clean);
		break;
	}
}

/*
 * Templates (instance.c): a server not shared globally never runs; its
 * state says whether clients may have instances (idle) or not (stopped),
 * and the admin actions apply to every instance.
 */
int
worker_is_template(const struct worker *w)
{
	return (w->parent == NULL && w->conf->share != CONF_SHARE_GLOBAL);
}

struct worker *
worker_parent(const struct worker *w)
{
	return (w->parent);
}

struct worker *
worker_instance_next(struct worker *tmpl, struct worker *prev)
{
	struct worker	*w;

	w = prev != NULL ? TAILQ_NEXT(prev, entry) : TAILQ_NEXT(tmpl, entry);
	for (; w != NULL; w = TAILQ_NEXT(w, entry)) {
		if (w->parent == tmpl)
			return (w);
	}
	return (NULL);
}

size_t
worker_instances(const struct worker *tmpl)
{
	return (tmpl->ninstances);
}

static void
worker_template_enable(struct worker *w)
{
	worker_set_state(w, WORKER_IDLE, w->conf->share ==
	    CONF_SHARE_PER_CLIENT ? "per-client: each client gets an "
	    "instance of its own" : "per-roots: each set of client roots "
	    "gets an instance of its own");
}

static void
worker_template_each(struct worker *w, void (*fn)(struct worker *))
{
	struct worker	*i, *next;

	for (i = worker_instance_next(w, NULL); i != NULL; i = next) {
		next = worker_instance_next(w, i);
		if (!i->removing)
			fn(i);
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
static enum worker_reconf
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
	if (w->state == WORKER_READY) {
		if (w->conf->idle_stop_s == 0)
			evtimer_del(w->ev_idle);
		else
			worker_evtimer_add_ms(w->ev_idle, 0);
	}
	return (WORKER_RECONF_UPDATED);
}

static enum worker_reconf
worker_template_reconfigure(struct worker *w, int was_disabled,
    int when_only)
{
	struct worker	*i, *next;

	if (!when_only) {
		/* Another server now: its instances' answers are stale. */
		cJSON_Delete(w->init_result);
		w->init_result = NULL;
		free(w->init_text);
		w->init_text = NULL;
	}
	for (i = worker_instance_next(w, NULL); i != NULL; i = next) {
		next = worker_instance_next(w, i);
		if (!i->removing)
			(void)worker_reconfigure(i, w->conf);
	}
	if (w->conf->disabled) {
		if (w->state == WORKER_STOPPED)
			return (WORKER_RECONF_KEPT);
		worker_stop(w);
		return (WORKER_RECONF_STOPPED);
	}
	if (w->state == WORKER_STOPPED) {
		if (!was_disabled)
			return (WORKER_RECONF_KEPT);
		return (worker_enable(w));
	}
	return (when_only ? WORKER_RECONF_UPDATED : WORKER_RECONF_RESTARTED);
}

/* A server that is not an instance is given the configured roots. */
static void
worker_set_conf_roots(struct worker *w)
{
	if (w->parent != NULL)
		return;
	roots_free(&w->roots);
	roots_from_uris(&w->roots, w->conf->roots, w->conf->nroots);
	w->roots_known = 1;
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
	mcpd_worker_changed(mcpd);
}

void
worker_kill_now(struct worker *w)
{
	if (w->tp != NULL)
		transport_kill(w->tp);
}

/*
 * Lifetime and status.
 */

static void
worker_unused_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;

	if (w->removing || router_clients(w->router) > 0)
		return;
	log_info("%s: no client for %.1f s: stopping the instance",
	    w->name, (double)w->unused_ms / 1000.0);
	worker_remove(w);
}

/*
 * The router: no client is attached any more.  An instance goes, at once
 * or after idle_stop_s (a reconnecting client finds it again); a client
 * that attaches meanwhile keeps it.
 */
void
worker_unused(struct worker *w)
{
	if (w->parent == NULL || w->removing)
		return;
	if (w->conf->idle_stop_s == 0 || w->mcpd->shutting_down) {
		log_info("%s: its last client left: stopping the instance",
		    w->name);
		worker_remove(w);
		return;
	}
	w->unused_ms = worker_idle_stop_ms(w);
	worker_evtimer_add_ms(w->ev_unused, w->unused_ms);
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
	.client_roots = instance_client_roots,
};

static struct worker *
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
	w->containment = child_containment_default();
	w->ev_timer = evtimer_new(mcpd->base, worker_timer_cb, w);
	w->ev_health = evtimer_new(mcpd->base, worker_health_cb, w);
	w->ev_broken = event_new(mcpd->base, -1, 0, worker_broken_cb, w);
	w->ev_free = event_new(mcpd->base, -1, 0, worker_free_cb, w);
	w->ev_wake = event_new(mcpd->base, -1, 0, worker_wake_cb, w);
	w->ev_idle = evtimer_new(mcpd->base, worker_idle_cb, w);
	w->ev_unused = evtimer_new(mcpd->base, worker_unused_cb, w);
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

static struct worker *
worker_new_stopped(struct mcpd *mcpd, const struct conf_server *cs)
{
	struct worker	*w;

	w = worker_make(mcpd, cs, cs->name, NULL);
	worker_set_conf_roots(w);
	return (w);
}

/*
 * A new instance of a template, listed after its last one, started at
 * once.  roots: known already (a per-roots set), or NULL: its first
 * client's, when they are known (worker_set_roots).
 */
/* Instance number no of tmpl, listed after its last instance; not started. */
static struct worker *
worker_make_instance(struct worker *tmpl, uint32_t no, pid_t owner,
    uid_t owner_uid)
{
	struct worker	*w, *after = tmpl, *i;
	char		*name;

	for (i = worker_instance_next(tmpl, NULL); i != NULL;
	    i = worker_instance_next(tmpl, i))
		after = i;
	xasprintf(&name, "%s#%u", tmpl->name, no);
	w = worker_make(tmpl->mcpd, tmpl->conf, name, after);
	free(name);
	w->parent = tmpl;
	w->instance_no = no;
	w->owner_pid = owner;
	w->owner_uid = owner_uid;
	tmpl->ninstances++;
	return (w);
}

struct worker *
worker_new_instance(struct worker *tmpl, const struct roots *roots,
    pid_t owner, uid_t owner_uid)
{
	struct worker	*w;

	w = worker_make_instance(tmpl, ++tmpl->instances_made, owner,
	    owner_uid);
	if (roots != NULL) {
		roots_copy(&w->roots, roots);
		w->roots_known = 1;
	}
	if (owner > 0)
		log_info("%s: a new instance of %s for the client of pid %ld",
		    w->name, tmpl->name, (long)owner);
	else
		log_info("%s: a new instance of %s", w->name, tmpl->name);
	worker_spawn(w);
	return (w);
}

pid_t
worker_owner_pid(const struct worker *w)
{
	return (w->owner_pid);
}

uid_t
worker_owner_uid(const struct worker *w)
{
	return (w->owner_uid);
}

const struct roots *
worker_roots(const struct worker *w)
{
	return (w->roots_known ? &w->roots : NULL);
}

/*
 * An instance's roots are known, or changed: the server's roots/list
 * waiting for them is answered, and a server that had them before is
 * told they changed.
 */
void
worker_set_roots(struct worker *w, const struct roots *roots)
{
	if (w->roots_known && strcmp(w->roots.result, roots->result) == 0)
		return;
	roots_free(&w->roots);
	roots_copy(&w->roots, roots);
	w->roots_known = 1;
	router_roots_known(w->router);
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

/*
 * A re-exec.
 */

void
worker_export(struct worker *w, struct handover_server *s)
{
	s->name = xstrdup(w->name);
	s->spawns = w->spawns;
	s->last_exit = w->last_exit != NULL ? xstrdup(w->last_exit) : NULL;
	logs_export(w->logs, s);
	s->lines_in = w->lines_in;
	s->nonjson_lines = w->nonjson_lines;
	s->oversize = w->oversize;
	s->violations = w->violations;
	s->instances_made = w->instances_made;
	if (w->parent != NULL) {
		s->instance_of = xstrdup(w->parent->name);
		s->instance_no = w->instance_no;
		s->owner_pid = w->owner_pid;
		s->owner_uid = w->owner_uid;
		if (w->roots_known)
			s->roots = xstrdup(w->roots.result);
	}
	if (w->rlink != NULL)
		s->remote = rlink_export(w->rlink);
	if (w->state == WORKER_READY && w->init_text != NULL &&
	    w->broken_reason == NULL && transport_export(w->tp, s) == 0) {
		s->running = 1;
		s->state = xstrdup(worker_state_names[w->state]);
		s->spawned_ms = w->spawned_ms;
		s->ready_ms = w->state_since_ms;
		s->next_upstream_id = w->next_upstream_id;
		s->init_result = xstrdup(w->init_text);
		router_export(w->router, s);
		return;
	}
	/* Kept as they are; the rest start again (after a kill, if running). */
	switch (w->state) {
	case WORKER_STOPPED:
	case WORKER_FAILED:
	case WORKER_NEEDS_LOGIN:
	case WORKER_IDLE:
		s->state = xstrdup(worker_state_names[w->state]);
		break;
	default:
		s->state = xstrdup("start");
		break;
	}
}

void
worker_kill_unexported(struct worker *w, const struct handover_server *s)
{
	if ((s == NULL || !s->running) && w->tp != NULL) {
		transport_kill(w->tp);
		guard_remove(w->mcpd, transport_pid(w->tp));
	}
}

/* What every adopted worker takes over: history, counters, stderr. */
static void
worker_adopt_history(struct worker *w, const struct handover_server *s)
{
	w->spawns = s->spawns;
	worker_set_reason(&w->last_exit, s->last_exit);
	logs_adopt(w->logs, s);
	w->lines_in = s->lines_in;
	w->nonjson_lines = s->nonjson_lines;
	w->oversize = s->oversize;
	w->violations = s->violations;
	if (w->rlink != NULL)
		rlink_adopt(w->rlink, s->remote);
}

/* A running server's process and session, ready without initialize. */
static void
worker_adopt_running(struct worker *w, const struct handover_server *s)
{
	char	*why;

	w->tp = transport_adopt(w->mcpd, w->conf, &worker_transport_cb, w, s);
	w->containment = transport_containment(w->tp);
	w->spawned_ms = s->spawned_ms;
	w->next_upstream_id = s->next_upstream_id;
	w->init_text = xstrdup(s->init_result);
	w->init_result = cJSON_Parse(s->init_result);
	w->heard_ms = clock_now_ms();
	/* Ready for the first time here: nothing to restore upstream. */
	xasprintf(&why, "taken over across a re-exec of mcpd (pid %ld)",
	    (long)s->pid);
	worker_set_state(w, WORKER_READY, why);
	free(why);
	/* Ready since the first mcpd saw it so (status: state_ms). */
	if (s->ready_ms > 0 && s->ready_ms <= w->state_since_ms)
		w->state_since_ms = s->ready_ms;
	router_adopt(w->router, s);
}

/*
 * A running instance of tmpl (s->instance_of), or NULL if it cannot be
 * taken over (the caller ends it).  Nobody is attached yet: it waits
 * ROUTER_HANDOVER_HOLD_MS for its clients to come back.
 */
struct worker *
worker_adopt_instance(struct worker *tmpl, const struct handover_server *s)
{
	struct worker	*w;
	char		*name, *err = NULL;
	int		 same;

	xasprintf(&name, "%s#%llu", tmpl->name,
	    (unsigned long long)s->instance_no);
	same = strcmp(name, s->name) == 0;
	free(name);
	if (!s->running || !worker_is_template(tmpl) || !same ||
	    s->instance_no > tmpl->instances_made)
		return (NULL);
	w = worker_make_instance(tmpl, (uint32_t)s->instance_no, s->owner_pid,
	    s->owner_uid);
	if (s->roots != NULL && roots_from_result(&w->roots, s->roots,
	    strlen(s->roots), &err) == 0)
		w->roots_known = 1;
	free(err);
	worker_adopt_history(w, s);
	worker_adopt_running(w, s);
	w->unused_ms = ROUTER_HANDOVER_HOLD_MS;
	worker_evtimer_add_ms(w->ev_unused, w->unused_ms);
	return (w);
}

struct worker *
worker_adopt(struct mcpd *mcpd, const struct conf_server *cs,
    const struct handover_server *s)
{
	struct worker	*w;
	size_t		 i;

	w = worker_new_stopped(mcpd, cs);
	w->instances_made = (uint32_t)s->instances_made;
	worker_adopt_history(w, s);
	if (s->running) {
		worker_adopt_running(w, s);
		return (w);
	}
	for (i = 0; i < nitems(worker_state_names); i++) {
		if (strcmp(s->state, worker_state_names[i]) == 0)
			break;
	}
	if (cs->disabled)
		;
	else if (i == WORKER_STOPPED || i == WORKER_FAILED ||
	    i == WORKER_NEEDS_LOGIN)
		worker_set_state(w, (enum worker_state)i, "as it was before "
		    "the re-exec of mcpd");
	else
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
	free(w->broken_reason);
	event_free(w->ev_free);
	event_free(w->ev_wake);
	event_free(w->ev_idle);
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
	free(w->name);
	conf_server_release(w->conf);
	free(w);
}

static void
worker_add_nullable_string(cJSON *o, const char *key, const char *value)
{
	if (value != NULL)
		cJSON_AddStringToObject(o, key, value);
	else
		cJSON_AddNullToObject(o, key);
}

/* What to run to sign in, while it is needed (or a call wanted more). */
static void
worker_login_json(const struct worker *w, cJSON *o)
{
	const char	*scope;
	cJSON		*login;
	char		*cmd;

	scope = w->rlink != NULL ? rlink_step_up(w->rlink) : NULL;
	if (w->state != WORKER_NEEDS_LOGIN && scope == NULL)
		return;
	login = cJSON_AddObjectToObject(o, "login");
	xasprintf(&cmd, "mcpctl login %s", w->name);
	cJSON_AddStringToObject(login, "command", cmd);
	free(cmd);
	if (w->state == WORKER_NEEDS_LOGIN)
		worker_add_nullable_string(login, "reason", w->last_exit);
	else
		cJSON_AddStringToObject(login, "reason", "a request needs "
		    "more scope");
	if (scope != NULL)
		cJSON_AddStringToObject(login, "scope", scope);
}

/* How it is shared: its roots, its instances or its template. */
static void
worker_share_json(const struct worker *w, cJSON *o)
{
	struct worker	*i;
	cJSON		*names;

	cJSON_AddStringToObject(o, "share", conf_share_name(w->conf->share));
	if (w->roots_known)
		cJSON_AddItemToObject(o, "roots", roots_uris_json(&w->roots));
	else
		cJSON_AddNullToObject(o, "roots");	/* asked for */
	if (worker_is_template(w)) {
		cJSON_AddNumberToObject(o, "max_instances",
		    (double)w->conf->max_instances);
		names = cJSON_AddArrayToObject(o, "instances");
		for (i = worker_instance_next((struct worker *)w, NULL);
		    i != NULL; i = worker_instance_next((struct worker *)w, i))
			cJSON_AddItemToArray(names,
			    cJSON_CreateString(i->name));
	}
	/* Who uses an instance is visible.c's to say. */
	if (w->parent != NULL)
		cJSON_AddStringToObject(o, "instance_of", w->parent->name);
}

cJSON *
worker_status_json(const struct worker *w)
{
	cJSON		*o, *stats, *info;
	uint64_t	 now = clock_now_ms();
	const cJSON	*version, *server_info;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", w->name);
	cJSON_AddStringToObject(o, "state", worker_state_names[w->state]);
	/* Not worker_running: the transport goes just before the state. */
	if (w->tp != NULL) {
		cJSON_AddNumberToObject(o, "pid", (double)transport_pid(w->tp));
		cJSON_AddNumberToObject(o, "uptime_ms",
		    (double)(now - w->spawned_ms));
	} else {
		cJSON_AddNullToObject(o, "pid");
		cJSON_AddNullToObject(o, "uptime_ms");
	}
	cJSON_AddStringToObject(o, "containment", w->containment);
	cJSON_AddNumberToObject(o, "restarts", (double)worker_restarts(w));
	worker_add_nullable_string(o, "last_exit", w->last_exit);
	if (w->state == WORKER_BACKOFF)
		cJSON_AddNumberToObject(o, "next_restart_ms",
		    (double)(w->next_restart_at_ms > now ?
		    w->next_restart_at_ms - now : 0));
	else
		cJSON_AddNullToObject(o, "next_restart_ms");
	cJSON_AddNumberToObject(o, "inflight",
	    (double)router_inflight(w->router));
	cJSON_AddNumberToObject(o, "clients",
	    (double)router_clients(w->router));
	cJSON_AddNumberToObject(o, "state_ms", (double)(now -
	    w->state_since_ms));
	cJSON_AddStringToObject(o, "command", w->conf->argv_display[0]);
	/* A remote server: its URL as written (no expanded secrets). */
	if (w->conf->url != NULL) {
		cJSON_AddStringToObject(o, "url", w->conf->url_display);
		if (w->rlink != NULL)
			rlink_json(w->rlink, o);
		worker_login_json(w, o);
	}
	cJSON_AddStringToObject(o, "restart_policy",
	    conf_restart_name(w->conf->restart));
	cJSON_AddStringToObject(o, "start", conf_start_name(w->conf->start));
	cJSON_AddNumberToObject(o, "idle_stop_s",
	    (double)w->conf->idle_stop_s);
	worker_share_json(w, o);

	version = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "protocolVersion");
	server_info = cJSON_GetObjectItemCaseSensitive(w->init_result,
	    "serverInfo");
	worker_add_nullable_string(o, "protocol_version",
	    cJSON_IsString(version) ? version->valuestring : NULL);
	if (cJSON_IsObject(server_info)) {
		info = cJSON_Duplicate(server_info, 1);
		cJSON_AddItemToObject(o, "server_info", info);
	} else
		cJSON_AddNullToObject(o, "server_info");

	stats = cJSON_AddObjectToObject(o, "stats");
	cJSON_AddNumberToObject(stats, "stdout_lines", (double)w->lines_in);
	cJSON_AddNumberToObject(stats, "dropped_lines",
	    (double)w->nonjson_lines);
	cJSON_AddNumberToObject(stats, "oversize_messages",
	    (double)w->oversize);
	cJSON_AddNumberToObject(stats, "protocol_violations",
	    (double)w->violations);
	cJSON_AddNumberToObject(stats, "stderr_lines",
	    (double)logs_count(w->logs));
	cJSON_AddNumberToObject(stats, "on_demand_starts",
	    (double)w->on_demand_starts);
	cJSON_AddNumberToObject(stats, "idle_stops", (double)w->idle_stops);
	router_add_stats(w->router, stats);
	return (o);
}

size_t
worker_clients(const struct worker *w)
{
	return (router_clients(w->router));
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

char *
worker_unavailable_reason(const struct worker *w)
{
	char		*s;
	uint64_t	 now = clock_now_ms(), left;

	switch (w->state) {
	case WORKER_BACKOFF:
		left = w->next_restart_at_ms > now ?
		    w->next_restart_at_ms - now : 0;
		xasprintf(&s, "server %s is not running (%s); next attempt "
		    "in %.1f s", w->name, w->last_exit != NULL ?
		    w->last_exit : "it failed", (double)left / 1000.0);
		break;
	case WORKER_FAILED:
		xasprintf(&s, "server %s has failed (%s); mcpd gave up "
		    "restarting it: run `mcpctl start %s`", w->name,
		    w->last_exit != NULL ? w->last_exit : "unknown reason",
		    w->name);
		break;
	case WORKER_STOPPED:
		xasprintf(&s, "server %s is stopped%s%s%s: run `mcpctl start "
		    "%s`", w->name, w->last_exit != NULL ? " (" : "",
		    w->last_exit != NULL ? w->last_exit : "",
		    w->last_exit != NULL ? ")" : "", w->name);
		break;
	case WORKER_NEEDS_LOGIN:
		xasprintf(&s, "server %s needs a sign-in: run `mcpctl login "
		    "%s` (%s)", w->name, w->name, w->last_exit != NULL ?
		    w->last_exit : "not signed in");
		break;
	case WORKER_STOPPING:
		xasprintf(&s, "server %s is stopping%s%s", w->name,
		    w->fail_reason != NULL ? ": " : "",
		    w->fail_reason != NULL ? w->fail_reason : "");
		break;
	default:
		xasprintf(&s, "server %s is %s", w->name,
		    worker_state_names[w->state]);
		break;
	}
	return (s);
}

const char *
worker_step_up(const struct worker *w)
{
	return (w->rlink != NULL ? rlink_step_up(w->rlink) : NULL);
}

int
worker_unavailable_code(const struct worker *w)
{
	return (w->state == WORKER_NEEDS_LOGIN ? MCPD_ERR_REMOTE_AUTH :
	    MCPD_ERR_SERVER_UNAVAILABLE);
}

int
worker_write(struct worker *w, const struct iovec *iov, int iovcnt)
{
	return (w->tp != NULL ? transport_write(w->tp, iov, iovcnt) : -1);
}

int
worker_write_edit(struct worker *w, const char *line, size_t len,
    const struct envelope_edit *edit)
{
	return (w->tp != NULL ? transport_write_edit(w->tp, line, len, edit) :
	    -1);
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
