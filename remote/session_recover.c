/*
 * session_recover.c -- what the session does when the remote does not
 * take a message (the transports report it through struct rt_events):
 * a lost session re-initialized once and the refused request sent again
 * once; 401: a token fetched (once per request) or a sign-in asked for;
 * 403 insufficient_scope: the step-up reported, once per scope set;
 * 429/503: sent again after the delay asked, within a bound; Streamable
 * HTTP refused at initialize: HTTP+SSE tried; a remote out of reach:
 * tried again for a while once a session stood, else the end.  It calls
 * session.c, which never calls it (session_int.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "esc.h"
#include "httphdr.h"
#include "oauth.h"
#include "proto.h"
#include "rconf.h"
#include "remote.h"
#include "rstatus.h"
#include "session_int.h"
#include "xmalloc.h"

/* Retries after 429/503, at most this long after the first try. */
#define SESSION_BUSY_MAX_MS	60000
#define SESSION_BUSY_DEFAULT_MS	1000
/*
 * A message that cannot reach a remote that was there (restarting, a
 * network blip) is tried again, 250 ms doubling to 4 s, for this long;
 * then the program ends and mcpd's backoff takes over.
 */
#define SESSION_UNREACHABLE_MAX_MS	30000
#define SESSION_RETRY_MIN_MS		250
#define SESSION_RETRY_MAX_SHIFT		4

/*
 * What the transports call: the session's functions (remote.h), those of
 * this file among them; session_new hands it to the transport it creates.
 */
const struct rt_events session_rt_events = {
	.protocol = session_protocol,
	.auth_header = session_auth_header,
	.incoming = session_incoming,
	.resuming = session_resuming,
	.head = session_head,
	.done = session_done,
	.failed = session_failed,
	.lost = session_lost,
	.auth = session_auth,
	.forbidden = session_forbidden,
	.busy = session_busy,
	.fallback = session_fallback,
	.unreachable = session_unreachable,
	.fatal = session_fatal,
};

/* Every request sent and not answered is lost with its session. */
static void
session_fail_inflight(struct rsession *s, struct rmsg *except)
{
	struct rmsg	*m;

	/* From the start each time: freeing may change the list. */
	for (;;) {
		TAILQ_FOREACH(m, &s->all, entry) {
			if (m != except && !m->busy && !m->held &&
			    m->request && !m->answered)
				break;
		}
		if (m == NULL)
			break;
		session_reply_error(s, m, MCPD_ERR_REMOTE, "the remote "
		    "session was lost before the server answered");
		session_maybe_free(s, m);
	}
}

void
session_lost(struct rsession *s, struct rmsg *m)
{
	int	init;

	if (m != NULL) {
		session_idle(m);
		if (m == s->recover_init || m->init) {
			/* session_failed may free m. */
			init = m->init;
			session_failed(s, m, MCPD_ERR_REMOTE, "the remote "
			    "refused a new session");
			if (init && s->state != SESSION_CLOSING)
				session_fatal(s, REMOTE_EXIT_UNAVAILABLE,
				    "the remote refused to initialize");
			return;
		}
		if (m->retried || s->init_result == NULL) {
			session_failed(s, m, MCPD_ERR_REMOTE, "the remote "
			    "lost the session again");
			return;
		}
		m->retried = 1;
		/* Sent again once the new session stands. */
		m->held = 1;
	}
	if (s->state == SESSION_RECOVERING || s->state == SESSION_CLOSING)
		return;
	if (s->init_result == NULL) {
		session_fatal(s, REMOTE_EXIT_UNAVAILABLE, "the remote lost "
		    "the session before it was initialized");
		return;
	}
	rstatus_session("lost", NULL);
	remote_log("the remote session was lost; re-initializing");
	s->state = SESSION_RECOVERING;
	session_fail_inflight(s, NULL);
	s->rt->ops->reset(s->rt);
	s->recover_init = session_internal(s, "initialize", s->init_params);
	s->recover_init->init = 1;	/* the transport takes its session id */
	session_send(s, s->recover_init);
}

void
session_auth(struct rsession *s, struct rmsg *m, const char *www)
{
	session_idle(m);
	if (s->r->oauth == NULL) {
		/* Configured headers (or none, on its own): no sign-in. */
		rstatus_auth("failed", "the remote answered 401 "
		    "Unauthorized to the configured credentials", 0);
		session_auth_failed(s, m, "the remote server requires "
		    "authorization (HTTP 401) and refused what is configured "
		    "(check its headers, or give it oauth or a token file)");
		return;
	}
	if (m->auth_retried && oauth_tokens(s->r->oauth) != NULL) {
		session_needs_login(s, "the remote refused a freshly "
		    "refreshed token (HTTP 401)");
		return;
	}
	if (m->auth_retried) {
		rstatus_auth("failed", "the remote refused a fresh token", 0);
		session_auth_failed(s, m, "the remote server refused a "
		    "freshly issued token (HTTP 401)");
		return;
	}
	m->auth_retried = 1;
	m->busy = 1;
	oauth_get(s->r->oauth, 1, www, session_oauth_ready, m);
}

int
session_forbidden(struct rsession *s, struct rmsg *m, const char *www)
{
	struct httphdr_bearer	 b;
	const char		*name = s->r->conf->name;
	char			*reason, *scope;
	size_t			 i;

	/*
	 * Only a sign-in can ask for more scope (client credentials ask for
	 * what is configured).
	 */
	if (s->r->oauth == NULL || oauth_tokens(s->r->oauth) == NULL)
		return (-1);
	memset(&b, 0, sizeof b);
	if (httphdr_bearer_parse(www, &b) != 0 || !b.found ||
	    b.error == NULL || strcmp(b.error, "insufficient_scope") != 0 ||
	    b.scope == NULL || strlen(b.scope) > 1024) {
		httphdr_bearer_clear(&b);
		return (-1);
	}
	scope = esc_text(b.scope, strlen(b.scope), 0);
	httphdr_bearer_clear(&b);
	session_idle(m);
	xasprintf(&reason, "this request needs the scope \"%s\"%s%s%s",
	    scope, name != NULL ? ": sign in again with `mcpctl login " : "",
	    name != NULL ? name : "", name != NULL ? "`" : "");
	/* Once per distinct scope set: a prompt, not a flood. */
	for (i = 0; i < s->nstep_ups; i++) {
		if (strcmp(s->step_ups[i], scope) == 0)
			break;
	}
	if (i == s->nstep_ups && s->nstep_ups < SESSION_MAX_STEP_UPS) {
		s->step_ups[s->nstep_ups++] = xstrdup(scope);
		rstatus_step_up(scope, reason);
		remote_log("%s", reason);
	}
	session_reply_error(s, m, MCPD_ERR_REMOTE_AUTH, reason);
	session_maybe_free(s, m);
	free(reason);
	free(scope);
	return (0);
}

void
session_busy(struct rsession *s, struct rmsg *m, uint64_t delay_ms)
{
	uint64_t	now = clock_now_ms();

	session_idle(m);
	if (m->deadline_ms == 0)
		m->deadline_ms = now + SESSION_BUSY_MAX_MS;
	if (delay_ms == 0)
		delay_ms = SESSION_BUSY_DEFAULT_MS;
	if (now + delay_ms > m->deadline_ms) {
		session_failed(s, m, MCPD_ERR_REMOTE, "the remote server is "
		    "busy (HTTP 429 or 503) and asks to wait longer than "
		    "mcpd-remote retries");
		return;
	}
	session_arm(s, m, delay_ms);
}

void
session_fallback(struct rsession *s, struct rmsg *m)
{
	m->busy = 0;
	if (s->fell_back) {
		session_failed(s, m, MCPD_ERR_REMOTE, "the remote refused "
		    "both Streamable HTTP and HTTP+SSE");
		return;
	}
	s->fell_back = 1;
	remote_log("the remote refused Streamable HTTP; trying HTTP+SSE");
	s->rt->ops->free(s->rt);
	s->rt = legacy_new(s->r, s->ev);
	rstatus_transport(s->rt->ops->name);
	session_send(s, m);
}

void
session_unreachable(struct rsession *s, struct rmsg *m, const char *reason)
{
	uint64_t	now = clock_now_ms(), delay;

	if (m != NULL) {
		session_idle(m);
	}
	/* Only once a session stood: at start, mcpd's backoff is better. */
	if (m != NULL && !m->init && ((s->state == SESSION_READY &&
	    s->init_result != NULL) || (s->modern &&
	    s->state != SESSION_CLOSING))) {
		if (m->deadline_ms == 0)
			m->deadline_ms = now + SESSION_UNREACHABLE_MAX_MS;
		delay = (uint64_t)SESSION_RETRY_MIN_MS << (m->attempts <
		    SESSION_RETRY_MAX_SHIFT ? m->attempts :
		    SESSION_RETRY_MAX_SHIFT);
		m->attempts++;
		if (now + delay <= m->deadline_ms) {
			if (!s->unreachable_said)
				remote_log("cannot reach the remote server "
				    "(%s); trying again", reason);
			s->unreachable_said = 1;
			session_arm(s, m, delay);
			return;
		}
	}
	session_fatal(s, REMOTE_EXIT_UNAVAILABLE, "cannot reach the remote "
	    "server: %s", reason);
}
