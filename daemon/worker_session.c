/*
 * worker_session.c -- a server's session on its transport: the
 * initialize handshake, its stdout lines handed to the router, health
 * pings and hung servers, protocol violations counted and logged, and
 * what the transport reports (worker_transport_cb).
 */
#include "config.h"

#include <sys/uio.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "backoff.h"
#include "clock.h"
#include "envelope.h"
#include "log.h"
#include "logs_ring.h"
#include "mcpd.h"
#include "modern.h"
#include "modern_up.h"
#include "proto.h"
#include "rlink.h"
#include "router.h"
#include "rpc.h"
#include "transport.h"
#include "util.h"
#include "worker.h"
#include "worker_int.h"
#include "xmalloc.h"

#define WORKER_LOG_HEAD_BYTES		80	/* of a bad line, in the log */

static void	worker_send_json(struct worker *, cJSON *);

static void
worker_health_arm(struct worker *w, uint64_t ms)
{
	worker_evtimer_add_ms(w->ev_health, ms);
}

void
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
			    "within %u ms (health_timeout_ms), nothing heard "
			    "for %llu ms", cs->health_timeout_ms,
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
	if (w->thaw_ms != 0)
		worker_freeze_heard(w);
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
		    "a word from the server (health_max_timeouts)",
		    w->timeouts_in_row);
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

/*
 * The first message to a new process: server/discover, as the probe or
 * for a server of 2026-07-28 as configured, or initialize
 * (worker_probe.c decides).
 */
void
worker_send_initialize(struct worker *w)
{
	if (!worker_probe_begin(w))
		worker_send_init_2025(w);
}

/* The probe found a server of 2025: initialize, in the same process. */
static void
worker_init_after_probe(struct worker *w)
{
	/* The discover that went out leaves nothing behind. */
	worker_modern_end(w);
	worker_send_init_2025(w);
	evtimer_del(w->ev_timer);
	worker_evtimer_add_ms(w->ev_timer, w->start_limit_ms);
}

static void
worker_probe_timeout_cb(evutil_socket_t fd, short events, void *arg)
{
	struct worker	*w = arg;

	if (worker_probe_silent(w))
		worker_init_after_probe(w);
}

void
worker_send_init_2025(struct worker *w)
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

/*
 * An initialize refused with UnsupportedProtocolVersion (-32022, as MCP
 * 2026-07-28 numbers it) naming no version mcpd speaks with servers: why,
 * malloc'd; else NULL.
 */
static char *
worker_version_refusal(const cJSON *error)
{
	const cJSON	*code, *supported, *v;
	char		*list = NULL, *reason, *t;

	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	supported = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(error, "data"), "supported");
	if (!cJSON_IsNumber(code) || code->valuedouble != -32022 ||
	    !cJSON_IsArray(supported) || cJSON_GetArraySize(supported) == 0)
		return (NULL);
	cJSON_ArrayForEach(v, supported) {
		if (!cJSON_IsString(v))
			return (NULL);
		if (worker_version_accepted(v->valuestring)) {
			free(list);
			return (NULL);
		}
		xasprintf(&t, "%s%s%.40s", list != NULL ? list : "",
		    list != NULL ? ", " : "", v->valuestring);
		free(list);
		list = t;
	}
	if (strstr(list, MODERN_VERSION) != NULL)
		xasprintf(&reason, "the server speaks only MCP %s: it refused "
		    "initialize of %s, and its \"protocol\" is \"2025\" "
		    "(\"auto\" speaks 2026-07-28 with it); not restarted "
		    "(mcpctl start tries again)", list, MCPD_MCP_VERSION);
	else
		xasprintf(&reason, "the server speaks only MCP %s: it refused "
		    "initialize of %s, and mcpd speaks MCP 2024-11-05 to "
		    "2025-11-25 and 2026-07-28 with servers; not restarted "
		    "(mcpctl start tries again)", list, MCPD_MCP_VERSION);
	free(list);
	return (reason);
}

/* The server/discover result of a 2026-07-28 server: the session up. */
static void
worker_modern_discovered(struct worker *w, cJSON *msg)
{
	cJSON		*result, *info, *name, *error, *message;
	const char	*why = "server/discover: no usable result";
	char		*reason;

	if ((error = cJSON_GetObjectItemCaseSensitive(msg, "error")) != NULL) {
		message = cJSON_GetObjectItemCaseSensitive(error, "message");
		xasprintf(&reason, "server/discover failed: %s",
		    cJSON_IsString(message) ? message->valuestring :
		    "(no message)");
		worker_kill(w, reason);
		free(reason);
		return;
	}
	if ((result = modern_up_init_result(
	    cJSON_GetObjectItemCaseSensitive(msg, "result"), &why)) == NULL) {
		worker_kill(w, why);
		return;
	}
	cJSON_Delete(w->init_result);
	free(w->init_text);
	w->init_result = result;
	w->init_text = rpc_print(w->init_result);
	if (w->parent != NULL) {
		cJSON_Delete(w->parent->init_result);
		free(w->parent->init_text);
		w->parent->init_result = cJSON_Duplicate(w->init_result, 1);
		w->parent->init_text = xstrdup(w->init_text);
	}
	w->modern_handshake = 0;
	w->modern_up = 1;
	worker_modern_kinds(w, cJSON_GetObjectItemCaseSensitive(
	    w->init_result, "capabilities"));
	info = cJSON_GetObjectItemCaseSensitive(w->init_result, "serverInfo");
	name = cJSON_GetObjectItemCaseSensitive(info, "name");
	worker_probe_ready(w, 1);
	xasprintf(&reason, "initialized: %s, protocol %s (era %s: %s)",
	    cJSON_IsString(name) ? name->valuestring : "unnamed server",
	    MODERN_VERSION, probe_era_name(w->era.era),
	    worker_probe_found(w));
	backoff_ready(&w->backoff, clock_now_ms());
	worker_set_state(w, WORKER_READY, reason);
	free(reason);
}

static void
worker_init_response(struct worker *w, cJSON *msg)
{
	cJSON		*result, *error, *version, *message, *info, *name, *code;
	char		*reason;

	evtimer_del(w->ev_timer);
	/* The probe's answer: a 2025 server's goes on with initialize. */
	if (worker_probe_response(w, msg)) {
		worker_init_after_probe(w);
		return;
	}
	if (w->modern_handshake) {
		worker_modern_discovered(w, msg);
		return;
	}
	if ((error = cJSON_GetObjectItemCaseSensitive(msg, "error")) != NULL) {
		/*
		 * A server of 2026-07-28 alone refused initialize: the same
		 * process is asked server/discover, unless "protocol" is
		 * "2025".
		 */
		if (w->conf->protocol != CONF_PROTOCOL_2025 &&
		    modern_up_refused(error)) {
			worker_modern_discover(w);
			worker_evtimer_add_ms(w->ev_timer, w->start_limit_ms);
			return;
		}
		if ((reason = worker_version_refusal(error)) != NULL) {
			w->version_refused = 1;
			worker_kill(w, reason);
			free(reason);
			return;
		}
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
	worker_probe_ready(w, 0);
	xasprintf(&reason, "initialized: %s, protocol %s (era %s: %s)",
	    cJSON_IsString(name) ? name->valuestring : "unnamed server",
	    version->valuestring, probe_era_name(w->era.era),
	    worker_probe_found(w));
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
		/* The probe's answer, after initialize went: not the router's. */
		if (rpc_classify(msg) == RPC_KIND_RESPONSE &&
		    cJSON_IsNumber(id) &&
		    worker_probe_stale(w, (int64_t)id->valuedouble)) {
			cJSON_Delete(msg);
			return;
		}
		cJSON_Delete(msg);
	}
	if (w->modern_up)
		worker_modern_line(w, line, len, plain);
	else
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
	worker_stderr_line(w, line, len, total);
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

	worker_probe_broke(w);
	if (w->state != WORKER_STOPPING)
		worker_kill(w, reason);
}

/* A remote server's worker (mcpd-remote) tells how its session goes. */
static void
worker_tp_status(void *arg, const char *line, size_t len)
{
	struct worker	*w = arg;

	if (w->rlink != NULL)
		rlink_line(w->rlink, line, len);
}

const struct transport_cb worker_transport_cb = {
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

/* Its events: the health check, a deferred end of a broken server. */
void
worker_session_events(struct worker *w)
{
	w->ev_health = evtimer_new(w->mcpd->base, worker_health_cb, w);
	w->ev_broken = event_new(w->mcpd->base, -1, 0, worker_broken_cb, w);
	w->ev_probe = evtimer_new(w->mcpd->base, worker_probe_timeout_cb, w);
	if (w->ev_probe == NULL)
		fatalx("evtimer_new");
}
