/*
 * session.c -- the local side's MCP session, kept whole across the remote.
 *
 * Every request from the local side gets exactly one response: the
 * remote's, or a JSON-RPC error saying what failed.  The session keeps
 * what it needs to rebuild a lost remote session without the local side
 * noticing: the initialize request and its result, the resources
 * subscribed and the log level.  A lost session is re-initialized once;
 * the request it refused is sent again once (it was not processed); a new
 * session that differs in protocol version or capabilities ends the
 * program, since the local side's view of the server would be stale.
 *
 * What goes to the remote at once is capped, and what waits for its turn
 * is bounded (flow.h): a message over the bound is refused as it arrives.
 * Every message has a timeout, a notification or a response too: the
 * remote must accept it (202) within request_timeout_ms, or it is dropped
 * and its slot given back.
 *
 * What follows when the remote does not take a message (a lost session,
 * 401, 403, 429/503, a fallback, no connection) is session_recover.c,
 * above this file; session_int.h is what the two share.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <event2/event.h>

#include "envelope.h"
#include "esc.h"
#include "flow.h"
#include "hmap.h"
#include "oauth.h"
#include "proto.h"
#include "rconf.h"
#include "remote.h"
#include "rmodern.h"
#include "rparam.h"
#include "rstatus.h"
#include "session_int.h"
#include "util.h"
#include "xmalloc.h"

static void	session_fatal_later(struct rsession *, int, const char *);
static void	session_release_held(struct rsession *);

/*
 * A slot came free and a message waits for it: sent from an event, not
 * from inside the transport's callback that freed the slot.
 */
static void
session_flow_fire(evutil_socket_t fd, short what, void *arg)
{
	session_release_held(arg);
}

struct rsession *
session_new(struct remote *r, const struct rt_events *ev)
{
	struct rsession	*s;

	s = xcalloc(1, sizeof *s);
	s->r = r;
	s->ev = ev;
	s->pending = hmap_new(hmap_random_seed());
	s->subs = hmap_new(hmap_random_seed());
	s->params = rparam_new();
	s->internal_tag = hmap_random_seed();
	TAILQ_INIT(&s->all);
	flow_init(&s->flow);
	s->flow_ev = evtimer_new(r->base, session_flow_fire, s);
	if (r->conf->transport == RCONF_SSE)
		s->rt = legacy_new(r, ev);
	else
		s->rt = streamable_new(r, ev);
	rstatus_transport(s->rt->ops->name);
	return (s);
}

static void
rmsg_free(struct rmsg *m)
{
	if (m->timer != NULL)
		event_free(m->timer);
	free(m->line);
	free(m->id);
	free(m->method);
	rmodern_free(m);
	free(m);
}

/* The transport is through with m: no exchange, no stream open. */
void
session_idle(struct rmsg *m)
{
	m->busy = 0;
	m->streaming = 0;
}

void
session_free(struct rsession *s)
{
	struct rmsg	*m;

	if (s->rt != NULL)
		s->rt->ops->free(s->rt);
	if (s->r->oauth != NULL) {
		TAILQ_FOREACH(m, &s->all, entry)
			oauth_cancel(s->r->oauth, m);
	}
	while ((m = TAILQ_FIRST(&s->all)) != NULL) {
		TAILQ_REMOVE(&s->all, m, entry);
		rmsg_free(m);
	}
	if (s->fatal_ev != NULL)
		event_free(s->fatal_ev);
	event_free(s->flow_ev);
	free(s->fatal_text);
	while (s->nstep_ups > 0)
		free(s->step_ups[--s->nstep_ups]);
	hmap_free(s->pending);
	hmap_free(s->subs);
	rparam_free(s->params);
	free(s->init_params);
	cJSON_Delete(s->init_result);
	free(s->protocol);
	free(s->log_level);
	free(s);
}

const char *
session_protocol(const struct rsession *s)
{
	return (s->protocol);
}

const char *
session_auth_header(const struct rsession *s)
{
	return (s->r->oauth != NULL ? oauth_header(s->r->oauth) : NULL);
}

static struct rmsg *
rmsg_new(struct rsession *s, char *line, size_t len)
{
	struct rmsg	*m;

	m = xcalloc(1, sizeof *m);
	m->session = s;
	m->line = line;
	m->len = len;
	TAILQ_INSERT_TAIL(&s->all, m, entry);
	return (m);
}

static void
session_unpend(struct rsession *s, struct rmsg *m)
{
	if (m->id != NULL && hmap_get(s->pending, m->id, strlen(m->id)) == m)
		hmap_del(s->pending, m->id, strlen(m->id));
	if (m->timer != NULL)
		evtimer_del(m->timer);
}

static int
session_must_hold(const struct rsession *s, const struct rmsg *m)
{
	if (s->state == SESSION_CLOSING)
		return (0);
	if (s->state == SESSION_RECOVERING && m != s->recover_init &&
	    m != s->gate)
		return (1);
	if (s->gate != NULL && m != s->gate)
		return (1);
	return (!flow_may_go(&s->flow, m));
}

/* Send what may go now, in order; restarts as the list may change. */
static void
session_release_held(struct rsession *s)
{
	struct rmsg	*m;

	if (s->state == SESSION_CLOSING)
		return;
	if (s->releasing) {
		s->release_again = 1;
		return;
	}
	s->releasing = 1;
	do {
		s->release_again = 0;
		TAILQ_FOREACH(m, &s->all, entry) {
			if (!m->held || session_must_hold(s, m))
				continue;
			m->held = 0;
			s->release_again = 1;
			if (m->answered)
				session_maybe_free(s, m);
			else
				session_send(s, m);
			break;
		}
	} while (s->release_again && s->state != SESSION_CLOSING);
	s->releasing = 0;
}

/*
 * Free a message nobody needs any more: not with the transport, and
 * answered if a request.  A gate that is through lets the others go.
 */
void
session_maybe_free(struct rsession *s, struct rmsg *m)
{
	if (m->busy || m->held || (m->request && !m->answered))
		return;
	session_unpend(s, m);
	TAILQ_REMOVE(&s->all, m, entry);
	if (flow_done(&s->flow, m))
		event_active(s->flow_ev, EV_TIMEOUT, 0);
	rmsg_free(m);
	if (s->gate == m) {
		s->gate = NULL;
		session_release_held(s);
	}
	if (s->input_ended && TAILQ_EMPTY(&s->all))
		session_shutdown(s);
}

/* A request's error response, once; internal requests are not answered. */
void
session_reply_error(struct rsession *s, struct rmsg *m, int code,
    const char *text)
{
	char	*msg, *out;

	if (!m->request || m->answered)
		return;
	m->answered = 1;
	session_unpend(s, m);
	if (m->internal || m->cancelled)
		return;
	msg = esc_json_string(text, strlen(text));
	xasprintf(&out, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"error\":{\"code\":"
	    "%d,\"message\":%s}}", m->id, code, msg);
	rio_write(out, strlen(out));
	free(out);
	free(msg);
}

/* Stop what the transport, or OAuth, does for m; no outcome follows. */
static void
session_stop(struct rsession *s, struct rmsg *m)
{
	if (!m->busy)
		return;
	if (s->r->oauth != NULL)
		oauth_cancel(s->r->oauth, m);
	s->rt->ops->cancel(s->rt, m);
	session_idle(m);
}

/*
 * A message's one timer: the timeout while it waits to be sent, for its
 * response headers or to be accepted, or the delay before a 429/503 retry
 * (deadline_ms set, not busy).
 */
static void
session_timer_fired(evutil_socket_t fd, short what, void *arg)
{
	struct rmsg	*m = arg;
	struct rsession	*s = m->session;
	char		*flow;

	if (!m->busy && !m->held && !m->answered && m->deadline_ms != 0) {
		session_send(s, m);
		return;
	}
	if (m->answered)
		return;
	session_stop(s, m);
	m->held = 0;
	if (m->request)
		session_reply_error(s, m, RPC_REQUEST_TIMEOUT,
		    "the remote server did not answer in time");
	else {
		flow = flow_describe(&s->flow);
		flow_note(&s->flow, "the remote did not accept %s within %u "
		    "ms: dropped (%s)", m->method != NULL ? "a notification" :
		    "a response", s->r->conf->request_timeout_ms, flow);
		free(flow);
	}
	session_maybe_free(s, m);
}

void
session_arm(struct rsession *s, struct rmsg *m, uint64_t ms)
{
	struct timeval	tv;

	if (m->timer == NULL)
		m->timer = evtimer_new(s->r->base, session_timer_fired, m);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(m->timer, &tv);
}

/*
 * Authorization failed for m.  Without a session nothing can work: the
 * program ends (77); otherwise m gets the error and others may go on.
 */
void __attribute__((format(printf, 3, 4)))
session_auth_failed(struct rsession *s, struct rmsg *m, const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	session_idle(m);
	if (m->init || m == s->recover_init)
		session_fatal(s, REMOTE_EXIT_NOPERM, "%s", text);
	else {
		session_reply_error(s, m, MCPD_ERR_REMOTE_AUTH, text);
		session_maybe_free(s, m);
	}
	free(text);
}

/*
 * A request's timeout runs from its arrival, held or not (a held request
 * gets its answer too); a retry after 429/503 starts it again.  A
 * notification's or a response's runs from when it is sent or held: the
 * remote must accept it in that time, or it is dropped.
 */
static void
session_arm_timeout(struct rsession *s, struct rmsg *m)
{
	if (s->r->conf->request_timeout_ms > 0 &&
	    (m->timer == NULL || !evtimer_pending(m->timer, NULL)))
		session_arm(s, m, s->r->conf->request_timeout_ms);
}

/*
 * Only a sign-in can help (none, its refresh token refused, another
 * authorization server): every request gets the error, mcpd is told,
 * and the program ends (77) -- mcpd keeps the server in needs-login
 * until `mcpctl login` rather than restarting it.
 */
void
session_needs_login(struct rsession *s, const char *reason)
{
	const char	*name = s->r->conf->name;
	char		*text;

	rstatus_auth("needs-login", reason, 0);
	if (name != NULL)
		xasprintf(&text, "%s needs a sign-in: run `mcpctl login %s` "
		    "(%s)", name, name, reason);
	else
		xasprintf(&text, "the remote server needs a sign-in (%s)",
		    reason);
	session_fatal_later(s, REMOTE_EXIT_NOPERM, text);
	free(text);
}

void
session_oauth_ready(void *arg, int result, const char *reason)
{
	struct rmsg	*m = arg;
	struct rsession	*s = m->session;

	/* oauth.c's hooks report fetches and failures (main.c). */
	m->busy = 0;
	if (result == OAUTH_NEEDS_LOGIN) {
		session_needs_login(s, reason);
		return;
	}
	if (result == -1) {
		session_auth_failed(s, m, "%s", reason);
		return;
	}
	session_send(s, m);
}

/* Hand a message to the transport, or hold it (see gate). */
void
session_send(struct rsession *s, struct rmsg *m)
{
	if (session_must_hold(s, m)) {
		m->held = 1;
		flow_wait(&s->flow, m);
		session_arm_timeout(s, m);
		return;
	}
	flow_go(&s->flow, m);
	if (m->init || (m->method != NULL && !m->request &&
	    strcmp(m->method, "notifications/initialized") == 0))
		s->gate = m;
	/* The timeout covers the wait for a token too. */
	session_arm_timeout(s, m);
	if (s->r->oauth != NULL && session_auth_header(s) == NULL &&
	    oauth_header_needed(s->r->oauth)) {
		m->busy = 1;
		oauth_get(s->r->oauth, 0, NULL, session_oauth_ready, m);
		return;
	}
	m->busy = 1;
	s->rt->ops->send(s->rt, m);
}

static char *
session_decode_string(const char *line, const struct envelope_value *v)
{
	cJSON	*j;
	char	*out = NULL;

	if (v->type != ENVELOPE_STRING)
		return (NULL);
	j = cJSON_ParseWithLength(line + v->off, v->len);
	if (cJSON_IsString(j))
		out = xstrdup(j->valuestring);
	cJSON_Delete(j);
	return (out);
}

static char *
session_raw(const char *line, const struct envelope_value *v)
{
	return (xstrndup(line + v->off, v->len));
}

/* notifications/cancelled: nobody waits for that response now. */
static void
session_cancel(struct rsession *s, const char *id)
{
	struct rmsg	*m;

	m = hmap_get(s->pending, id, strlen(id));
	if (m == NULL || m->answered)
		return;
	m->cancelled = 1;
	m->answered = 1;
	session_unpend(s, m);
	/* Its slot is given back now, not when a slow remote answers. */
	session_stop(s, m);
	m->held = 0;
	session_maybe_free(s, m);
}

/*
 * Too much is in flight and waits already: a new request is refused at
 * once, anything else dropped.
 */
static void
session_overflow(struct rsession *s, struct rmsg *m)
{
	char	*flow, *text;

	flow = flow_describe(&s->flow);
	xasprintf(&text, "mcpd-remote: the remote server is not keeping up "
	    "(%s): refused", flow);
	flow_note(&s->flow, "the remote server is not keeping up: %s (%s)",
	    m->request ? "refused a request" : m->method != NULL ?
	    "dropped a notification" : "dropped a response to one of its "
	    "requests", flow);
	session_reply_error(s, m, MCPD_ERR_LIMIT, text);
	free(text);
	free(flow);
	session_maybe_free(s, m);
}

/* A request that cannot go to the remote: its error, at once. */
static void
session_unrequest(struct rsession *s, struct rmsg *m, int code,
    const char *why)
{
	char	*text;

	remote_log("refused a request from the client: %s", why);
	xasprintf(&text, "mcpd-remote: %s", why);
	/* Not pending yet: the error goes out under its id all the same. */
	session_reply_error(s, m, code, text);
	free(text);
	session_maybe_free(s, m);
}

/* A line that is no JSON-RPC message: an error if it has an id. */
static void
session_refuse(struct rsession *s, const char *line,
    const struct envelope *env, const char *why)
{
	char	*out;

	remote_log("refused a message from the client: %s", why);
	if (env->id.type != ENVELOPE_STRING && env->id.type != ENVELOPE_NUMBER)
		return;
	/* Not with the id of a request in flight: that one's answer. */
	if (hmap_get(s->pending, line + env->id.off, env->id.len) != NULL)
		return;
	xasprintf(&out, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,\"error\":{\"code\":"
	    "%d,\"message\":\"invalid request: %s\"}}", (int)env->id.len,
	    line + env->id.off, RPC_INVALID_REQUEST, why);
	rio_write(out, strlen(out));
	free(out);
}

void
session_from_client(struct rsession *s, const char *line, size_t len)
{
	struct envelope	 env;
	struct rmsg	*m, *target;
	size_t		 erroff;
	char		*copy;
	const char	*why;
	int		 cancels_modern = 0;

	if (envelope_scan(line, len, &env, &erroff) == -1) {
		remote_log("dropped a line from the client that is not a "
		    "JSON object (byte %zu)", erroff);
		return;
	}
	if (s->state == SESSION_CLOSING)
		return;
	copy = xmalloc(len + 1);
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (env.method.type != ENVELOPE_ABSENT &&
	    env.method.type != ENVELOPE_STRING) {
		free(copy);
		session_refuse(s, line, &env, "the method is not a string");
		return;
	}
	m = rmsg_new(s, copy, len);
	if (env.method.type != ENVELOPE_ABSENT)
		m->method = session_decode_string(line, &env.method);
	/*
	 * A request even when its method does not survive decoding (a lone
	 * surrogate): the remote answers it, and the answer must go out.
	 */
	if (env.method.type == ENVELOPE_STRING &&
	    env.id.type != ENVELOPE_ABSENT && env.id.type != ENVELOPE_NULL) {
		m->id = session_raw(line, &env.id);
		if (hmap_get(s->pending, m->id, strlen(m->id)) != NULL) {
			remote_log("dropped a request reusing the id of one "
			    "still pending");
			session_maybe_free(s, m);
			return;
		}
		m->request = 1;
		if (rmodern_classify(m, line, &env, &why) == -1) {
			session_unrequest(s, m, RPC_INVALID_REQUEST, why);
			return;
		}
		hmap_put(s->pending, m->id, strlen(m->id), m);
		session_arm_timeout(s, m);
	}
	if (m->method == NULL)
		;
	else if (m->request && strcmp(m->method, "initialize") == 0) {
		m->init = 1;
		free(s->init_params);
		s->init_params = env.params.type == ENVELOPE_OBJECT ?
		    session_raw(line, &env.params) : xstrdup("{}");
		if (s->state == SESSION_NEW)
			s->state = SESSION_READY;
	} else if (m->request && strcmp(m->method, "logging/setLevel") == 0 &&
	    env.p_level.type == ENVELOPE_STRING) {
		free(s->log_level);
		s->log_level = session_raw(line, &env.p_level);
	} else if (!m->request &&
	    strcmp(m->method, "notifications/cancelled") == 0 &&
	    env.p_request_id.type != ENVELOPE_ABSENT) {
		/* A notification: a request so named could cancel itself. */
		copy = session_raw(line, &env.p_request_id);
		target = hmap_get(s->pending, copy, strlen(copy));
		cancels_modern = target != NULL && target->mhdr[0] != NULL;
		session_cancel(s, copy);
		free(copy);
	}
	if (rmodern_local(s, m, cancels_modern)) {
		session_maybe_free(s, m);
		return;
	}
	if (session_must_hold(s, m) && !flow_may_wait(&s->flow, m)) {
		session_overflow(s, m);
		return;
	}
	session_send(s, m);
}

/*
 * An internal request (recovery), answered to the session itself.  Its
 * id, "mcpd-remote-<random>-<n>", is none the client has in flight: the
 * random part (hmap_random_seed) makes a clash unlikely, and an id in use
 * is skipped.
 */
struct rmsg *
session_internal(struct rsession *s, const char *method, const char *params)
{
	struct rmsg	*m;
	char		*line, *id = NULL;
	int		 len;

	do {
		free(id);
		s->internal_seq++;
		xasprintf(&id, "\"mcpd-remote-%016llx-%llu\"",
		    (unsigned long long)s->internal_tag,
		    (unsigned long long)s->internal_seq);
	} while (hmap_get(s->pending, id, strlen(id)) != NULL);
	if (params != NULL)
		len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"%s\",\"params\":%s}", id, method, params);
	else
		len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%s,"
		    "\"method\":\"%s\"}", id, method);
	m = rmsg_new(s, line, len);
	m->method = xstrdup(method);
	m->internal = 1;
	m->request = 1;
	m->id = id;
	hmap_put(s->pending, m->id, strlen(m->id), m);
	return (m);
}

static struct rmsg *
session_notification(struct rsession *s, const char *method,
    const char *params)
{
	struct rmsg	*m;
	char		*line;
	int		 len;

	if (params != NULL)
		len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"%s\",\"params\":%s}", method, params);
	else
		len = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"%s\"}", method);
	m = rmsg_new(s, line, len);
	m->method = xstrdup(method);
	m->internal = 1;
	return (m);
}

static const char *const session_lists[] = { "tools", "prompts", "resources" };

/* A new session stands: replay state, send what waited, tell the client. */
static void
session_recovered(struct rsession *s)
{
	struct hmap_iter	 it;
	struct rmsg		*m;
	const void		*key;
	size_t			 keylen, i;
	void			*val;
	char			*params, *note;
	const cJSON		*caps;

	s->state = SESSION_READY;
	s->recover_init = NULL;
	/*
	 * First of all that waited (held messages go in list order): no
	 * request reaches the new session before it.
	 */
	m = session_notification(s, "notifications/initialized", NULL);
	TAILQ_REMOVE(&s->all, m, entry);
	TAILQ_INSERT_HEAD(&s->all, m, entry);
	session_send(s, m);
	hmap_iter_init(s->subs, &it);
	while (hmap_iter_next(&it, &key, &keylen, &val)) {
		xasprintf(&params, "{\"uri\":%.*s}", (int)keylen,
		    (const char *)key);
		session_send(s, session_internal(s, "resources/subscribe",
		    params));
		free(params);
	}
	if (s->log_level != NULL) {
		xasprintf(&params, "{\"level\":%s}", s->log_level);
		session_send(s, session_internal(s, "logging/setLevel",
		    params));
		free(params);
	}
	rstatus_session("recovered", s->protocol);
	remote_log("the remote session was re-established");
	session_release_held(s);
	/* The lists may differ on the new session. */
	caps = cJSON_GetObjectItemCaseSensitive(s->init_result,
	    "capabilities");
	for (i = 0; i < nitems(session_lists); i++) {
		if (cJSON_GetObjectItemCaseSensitive(caps,
		    session_lists[i]) == NULL)
			continue;
		xasprintf(&note, "{\"jsonrpc\":\"2.0\",\"method\":"
		    "\"notifications/%s/list_changed\"}", session_lists[i]);
		rio_write(note, strlen(note));
		free(note);
	}
}

/*
 * A protocol version fit to go back in a header (MCP-Protocol-Version):
 * no CR or LF to split it, nothing but visible ASCII, and short.
 */
static int
session_valid_protocol(const char *v)
{
	size_t	n;

	for (n = 0; v[n] != '\0'; n++) {
		if (v[n] < 0x21 || v[n] > 0x7e || n >= 64)
			return (0);
	}
	return (n > 0);
}

/* The response to the first initialize: keep what recovery compares. */
static void
session_initialized(struct rsession *s, const char *json, size_t len)
{
	cJSON		*msg, *result, *pv;

	msg = cJSON_ParseWithLength(json, len);
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	pv = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (!cJSON_IsObject(result) || !cJSON_IsString(pv)) {
		cJSON_Delete(msg);
		return;		/* an error: the client sees it */
	}
	if (!session_valid_protocol(pv->valuestring)) {
		/* Never sent back; a lost session cannot be rebuilt. */
		remote_log("the remote's protocolVersion is malformed: not "
		    "kept for the session");
		cJSON_Delete(msg);
		return;
	}
	cJSON_Delete(s->init_result);
	s->init_result = cJSON_DetachItemViaPointer(msg, result);
	free(s->protocol);
	s->protocol = xstrdup(pv->valuestring);
	cJSON_Delete(msg);
	rstatus_session("established", s->protocol);
}

static void
session_fatal_fire(evutil_socket_t fd, short what, void *arg)
{
	struct rsession	*s = arg;
	char		*text = s->fatal_text;

	s->fatal_text = NULL;
	session_fatal(s, s->fatal_code, "%s", text);
	free(text);
}

/* session_fatal, once the callbacks on the stack have returned. */
static void
session_fatal_later(struct rsession *s, int code, const char *text)
{
	if (s->fatal_text != NULL)
		return;
	if (s->fatal_ev == NULL)
		s->fatal_ev = evtimer_new(s->r->base, session_fatal_fire, s);
	s->fatal_code = code;
	s->fatal_text = xstrdup(text);
	event_active(s->fatal_ev, EV_TIMEOUT, 0);
}

/* The response to the internal initialize of a recovery. */
static void
session_reinitialized(struct rsession *s, const char *json, size_t len)
{
	cJSON		*msg, *result, *pv, *caps, *old_caps;

	msg = cJSON_ParseWithLength(json, len);
	result = cJSON_GetObjectItemCaseSensitive(msg, "result");
	pv = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	caps = cJSON_GetObjectItemCaseSensitive(result, "capabilities");
	old_caps = cJSON_GetObjectItemCaseSensitive(s->init_result,
	    "capabilities");
	if (!cJSON_IsObject(result) || !cJSON_IsString(pv)) {
		cJSON_Delete(msg);
		session_fatal_later(s, REMOTE_EXIT_UNAVAILABLE, "the remote "
		    "refused to initialize a new session");
		return;
	}
	if (s->protocol == NULL || strcmp(pv->valuestring, s->protocol) != 0 ||
	    !cJSON_Compare(caps, old_caps, 1)) {
		cJSON_Delete(msg);
		session_fatal_later(s, REMOTE_EXIT_UNAVAILABLE, "the remote's "
		    "new session differs from the first (protocol version or "
		    "capabilities): starting over");
		return;
	}
	cJSON_Delete(msg);
	session_recovered(s);
}

/* Responses to internal requests other than initialize. */
static void
session_internal_reply(struct rsession *s, struct rmsg *m, const char *json,
    size_t len, const struct envelope *env)
{
	if (m == s->recover_init) {
		session_reinitialized(s, json, len);
		return;
	}
	if (env->error.type != ENVELOPE_ABSENT)
		remote_log("the remote refused %s while restoring the "
		    "session", m->method);
}

/* Track subscriptions from the responses the client gets. */
static void
session_track(struct rsession *s, struct rmsg *m, const struct envelope *env)
{
	struct envelope	 req;
	size_t		 erroff;
	char		*uri;

	if (env->result.type == ENVELOPE_ABSENT || m->method == NULL)
		return;
	if (strcmp(m->method, "resources/subscribe") != 0 &&
	    strcmp(m->method, "resources/unsubscribe") != 0)
		return;
	if (envelope_scan(m->line, m->len, &req, &erroff) == -1 ||
	    req.p_uri.type != ENVELOPE_STRING)
		return;
	uri = session_raw(m->line, &req.p_uri);
	if (m->method[10] == 's') {
		if (hmap_get(s->subs, uri, strlen(uri)) == NULL)
			hmap_put(s->subs, uri, strlen(uri), s);
	} else
		hmap_del(s->subs, uri, strlen(uri));
	free(uri);
}

/* A response for the client, as rmodern_result has it. */
static void
session_pass(struct rsession *s, const struct rmsg *m, const char *json,
    size_t len)
{
	char	*fixed;
	size_t	 flen;

	if ((fixed = rmodern_result(s, m, json, len, &flen)) != NULL) {
		rio_write(fixed, flen);
		free(fixed);
	} else
		rio_write(json, len);
}

void
session_incoming(struct rsession *s, const char *json, size_t len)
{
	struct envelope	 env;
	struct rmsg	*m;
	size_t		 erroff, i;
	char		*copy = NULL, *id;

	/* One line: CR and LF can only be whitespace in valid JSON. */
	if (memchr(json, '\n', len) != NULL ||
	    memchr(json, '\r', len) != NULL) {
		copy = xmalloc(len);
		memcpy(copy, json, len);
		for (i = 0; i < len; i++) {
			if (copy[i] == '\n' || copy[i] == '\r')
				copy[i] = ' ';
		}
		json = copy;
	}
	if (envelope_scan(json, len, &env, &erroff) == -1) {
		remote_log("dropped a message from the remote that is not "
		    "one JSON object (byte %zu)", erroff);
		goto out;
	}
	if (env.method.type == ENVELOPE_ABSENT &&
	    env.id.type != ENVELOPE_ABSENT) {
		id = session_raw(json, &env.id);
		m = hmap_get(s->pending, id, strlen(id));
		free(id);
		if (m == NULL) {
			/* Replayed after a resume, or cancelled: drop. */
			goto out;
		}
		m->answered = 1;
		session_unpend(s, m);
		rmodern_answered(s, m, &env);
		if (m->internal)
			session_internal_reply(s, m, json, len, &env);
		else {
			if (m->init && env.result.type == ENVELOPE_OBJECT)
				session_initialized(s, json, len);
			session_track(s, m, &env);
			if (!m->cancelled)
				session_pass(s, m, json, len);
		}
		session_maybe_free(s, m);
		goto out;
	}
	rio_write(json, len);
out:
	free(copy);
}

void
session_resuming(struct rsession *s, struct rmsg *m)
{
	/* Until the resumed stream answers, the request's timeout runs. */
	m->streaming = 0;
	session_arm_timeout(s, m);
}

void
session_head(struct rsession *s, struct rmsg *m, int streaming)
{
	m->streaming = streaming;
	/*
	 * An SSE response is alive: progress may take its time.  (Busy, the
	 * timer is the request's timeout, not a retry's delay.)  Anything
	 * else must still be accepted in time: a stream is no answer to it.
	 */
	if (streaming && m->request && m->timer != NULL)
		evtimer_del(m->timer);
}

void
session_done(struct rsession *s, struct rmsg *m)
{
	s->unreachable_said = 0;
	session_idle(m);
	if (m->method != NULL && !m->request &&
	    strcmp(m->method, "notifications/initialized") == 0)
		s->rt->ops->initialized(s->rt);
	session_maybe_free(s, m);
}

void
session_failed(struct rsession *s, struct rmsg *m, int code,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	session_idle(m);
	if (m->request && !m->answered) {
		if (m == s->recover_init) {
			free(text);
			m->answered = 1;
			session_maybe_free(s, m);
			session_fatal(s, REMOTE_EXIT_UNAVAILABLE, "the remote "
			    "session was lost and could not be re-established");
			return;
		}
		session_reply_error(s, m, code, text);
	} else if (!m->request)
		remote_log("%s", text);
	free(text);
	session_maybe_free(s, m);
}

/*
 * Closing: stop everything in flight; requests get this error (text), or
 * nothing (NULL: the client is gone or asked to stop).
 */
static void
session_drop_all(struct rsession *s, int error, const char *text)
{
	struct rmsg	*m, *next;

	s->gate = NULL;
	for (m = TAILQ_FIRST(&s->all); m != NULL; m = next) {
		next = TAILQ_NEXT(m, entry);
		m->held = 0;
		session_stop(s, m);
		if (text != NULL)
			session_reply_error(s, m, error, text);
		else
			m->answered = 1;
		session_maybe_free(s, m);
	}
}

void
session_fatal(struct rsession *s, int code, const char *fmt, ...)
{
	va_list		 ap;
	char		*text;

	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	if (s->state == SESSION_CLOSING) {
		free(text);
		return;
	}
	s->state = SESSION_CLOSING;
	remote_log("%s", text);
	rstatus_session("closed", NULL);
	session_drop_all(s, code == REMOTE_EXIT_NOPERM ?
	    MCPD_ERR_REMOTE_AUTH : MCPD_ERR_REMOTE, text);
	free(text);
	rio_stop_reading();
	rio_exit(s->r, code);
}

static void
session_closed(struct remote *r)
{
	rstatus_session("closed", NULL);
	rio_exit(r, REMOTE_EXIT_OK);
}

void
session_input_ended(struct rsession *s)
{
	struct rmsg	*m, *next;

	s->input_ended = 1;
	/* A subscription stream is never answered: nobody reads it now. */
	for (m = TAILQ_FIRST(&s->all); m != NULL; m = next) {
		next = TAILQ_NEXT(m, entry);
		if (rmodern_is_listen(m) && !m->answered)
			session_cancel(s, m->id);
		if (s->state == SESSION_CLOSING)
			return;		/* the last one: shut down */
	}
	if (TAILQ_EMPTY(&s->all))
		session_shutdown(s);
}

void
session_shutdown(struct rsession *s)
{
	if (s->state == SESSION_CLOSING)
		return;
	s->state = SESSION_CLOSING;
	rio_stop_reading();
	session_drop_all(s, 0, NULL);
	s->rt->ops->close(s->rt, session_closed);
}
