/*
 * rlink.c -- what mcpd knows of a remote server from its worker (rlink.h).
 *
 * The worker's events reach the journal through a token bucket per kind
 * of event (session, stream resumed, authorization, step-up): a remote
 * server can make its worker report as often as it likes, and a storm of
 * one kind must neither flood the journal nor hide another kind.  What a
 * bucket refuses is counted, and the count logged before the next event
 * of that kind that passes; status always shows the latest.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "clock.h"
#include "esc.h"
#include "log.h"
#include "proto.h"
#include "ratelim.h"
#include "rlink.h"
#include "util.h"
#include "xmalloc.h"

#define RLINK_CODES		600
#define RLINK_TEXT_MAX		256	/* of a reason kept or logged */
/* Journal entries of one kind: a burst, then six a minute. */
#define RLINK_EVENTS_BURST	20
#define RLINK_EVENTS_PER_MIN	6

enum rlink_kind {
	RLINK_KIND_SESSION,
	RLINK_KIND_RESUME,
	RLINK_KIND_AUTH,
	RLINK_KIND_STEP_UP,
	RLINK_KINDS
};

static const char *const rlink_kind_names[RLINK_KINDS] = {
	"session", "stream resumption", "authorization", "step-up"
};

static const struct ratelim_policy rlink_journal_rate = {
	RLINK_EVENTS_PER_MIN / 60.0, RLINK_EVENTS_BURST
};

struct rlink {
	char		*server;
	char		 transport[8];		/* "http", "sse", "" */
	char		 session[16];		/* "established", ... */
	char		 protocol[32];
	long		 last_status;		/* of a failed request */
	char		 last_method[8];
	char		 auth[16];		/* "ok", "failed", ... */
	char		*auth_reason;
	double		 token_expires;		/* wall clock, 0: none */
	int		 signed_in;		/* a sign-in's token */
	int		 refresh;		/* ... with a refresh token */
	char		*step_up;		/* scope a call needed */
	char		*step_up_reason;
	/* HTTP responses: of processes that ended, and of the one now. */
	unsigned long	 done[RLINK_CODES];
	unsigned long	 now[RLINK_CODES];
	struct ratelim	 journal[RLINK_KINDS];
};

struct rlink *
rlink_new(const char *server)
{
	struct rlink	*rl;
	uint64_t	 now = clock_now_ms();
	size_t		 i;

	rl = xcalloc(1, sizeof *rl);
	rl->server = xstrdup(server);
	for (i = 0; i < RLINK_KINDS; i++)
		ratelim_init(&rl->journal[i], &rlink_journal_rate, now);
	return (rl);
}

void
rlink_free(struct rlink *rl)
{
	if (rl == NULL)
		return;
	free(rl->server);
	free(rl->auth_reason);
	free(rl->step_up);
	free(rl->step_up_reason);
	free(rl);
}

/* Copy a short word of the worker's into a fixed slot, if it is one. */
static void
rlink_word(char *slot, size_t size, const cJSON *v)
{
	const char	*p;

	if (!cJSON_IsString(v) || strlen(v->valuestring) >= size)
		return;
	for (p = v->valuestring; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_'))
			return;
	}
	memcpy(slot, v->valuestring, strlen(v->valuestring) + 1);
}

static void __attribute__((format(printf, 5, 6)))
rlink_event(struct rlink *rl, enum rlink_kind kind, int priority,
    const char *event, const char *fmt, ...)
{
	char			 count[32];
	struct log_field	 f[] = {
		{ MCPD_FIELD_SERVER, rl->server },
		{ MCPD_FIELD_REMOTE_EVENT, event },
		{ MCPD_FIELD_SUPPRESSED, count },
	};
	va_list			 ap;
	char			*text;
	uint64_t		 suppressed;

	if (!ratelim_allow(&rl->journal[kind], &rlink_journal_rate,
	    clock_now_ms()))
		return;
	if ((suppressed = ratelim_take_suppressed(&rl->journal[kind])) > 0) {
		snprintf(count, sizeof count, "%llu",
		    (unsigned long long)suppressed);
		log_event(LOG_WARNING, MCPD_MID_REMOTE, f, nitems(f),
		    "%s: %llu %s events of the remote not logged (rate "
		    "limit); mcpctl status shows the latest", rl->server,
		    (unsigned long long)suppressed, rlink_kind_names[kind]);
	}
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	log_event(priority, MCPD_MID_REMOTE, f, nitems(f) - 1, "%s: %s",
	    rl->server, text);
	free(text);
}

static void
rlink_counts(struct rlink *rl, const cJSON *counts)
{
	const cJSON	*c;
	char		*end;
	long		 code;

	if (!cJSON_IsObject(counts))
		return;
	for (c = counts->child; c != NULL; c = c->next) {
		code = strtol(c->string, &end, 10);
		if (*end != '\0' || code < 100 || code >= RLINK_CODES ||
		    !cJSON_IsNumber(c) || c->valuedouble < 0 ||
		    c->valuedouble > 1e15)
			continue;
		rl->now[code] = (unsigned long)c->valuedouble;
	}
}

static char *
rlink_text(const cJSON *v)
{
	if (!cJSON_IsString(v))
		return (NULL);
	return (esc_text(v->valuestring, strnlen(v->valuestring,
	    RLINK_TEXT_MAX), 0));
}

static int
rlink_is_step_up(const cJSON *msg)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(msg, "state");

	return (cJSON_IsString(v) && strcmp(v->valuestring, "step-up") == 0);
}

/* A call needed more scope: kept (for status) apart from the token's state. */
static void
rlink_step_up_line(struct rlink *rl, const cJSON *msg)
{
	char	*scope;

	if ((scope = rlink_text(cJSON_GetObjectItemCaseSensitive(msg,
	    "scope"))) == NULL)
		return;
	free(rl->step_up);
	rl->step_up = scope;
	free(rl->step_up_reason);
	rl->step_up_reason = rlink_text(cJSON_GetObjectItemCaseSensitive(msg,
	    "reason"));
	rlink_event(rl, RLINK_KIND_STEP_UP, LOG_WARNING, "auth-step-up",
	    "a request needs the scope \"%s\": sign in again with `mcpctl "
	    "login %s`", scope, rl->server);
}

void
rlink_line(struct rlink *rl, const char *line, size_t len)
{
	cJSON		*msg;
	const cJSON	*v, *ev;
	char		*reason, status[32];

	msg = cJSON_ParseWithLength(line, len);
	v = cJSON_GetObjectItemCaseSensitive(msg, "v");
	ev = cJSON_GetObjectItemCaseSensitive(msg, "event");
	if (!cJSON_IsNumber(v) || v->valuedouble != MCPD_STATUS_VERSION ||
	    !cJSON_IsString(ev))
		goto out;
	if (strcmp(ev->valuestring, "transport") == 0)
		rlink_word(rl->transport, sizeof rl->transport,
		    cJSON_GetObjectItemCaseSensitive(msg, "transport"));
	else if (strcmp(ev->valuestring, "session") == 0) {
		rlink_word(rl->session, sizeof rl->session,
		    cJSON_GetObjectItemCaseSensitive(msg, "state"));
		rlink_word(rl->protocol, sizeof rl->protocol,
		    cJSON_GetObjectItemCaseSensitive(msg, "protocol"));
		if (strcmp(rl->session, "closed") != 0)
			rlink_event(rl, RLINK_KIND_SESSION,
			    strcmp(rl->session, "lost") == 0 ?
			    LOG_WARNING : LOG_INFO, rl->session,
			    "remote session %s%s%s", rl->session,
			    rl->protocol[0] != '\0' ? ", protocol " : "",
			    rl->protocol);
	} else if (strcmp(ev->valuestring, "resume") == 0) {
		rlink_event(rl, RLINK_KIND_RESUME, LOG_INFO, "resumed",
		    "resumed an SSE stream (Last-Event-ID)");
	} else if (strcmp(ev->valuestring, "http") == 0) {
		v = cJSON_GetObjectItemCaseSensitive(msg, "status");
		if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		    v->valuedouble < RLINK_CODES)
			rl->last_status = (long)v->valuedouble;
		rlink_word(rl->last_method, sizeof rl->last_method,
		    cJSON_GetObjectItemCaseSensitive(msg, "method"));
	} else if (strcmp(ev->valuestring, "http_counts") == 0)
		rlink_counts(rl, cJSON_GetObjectItemCaseSensitive(msg,
		    "counts"));
	else if (strcmp(ev->valuestring, "auth") == 0 &&
	    rlink_is_step_up(msg))
		rlink_step_up_line(rl, msg);
	else if (strcmp(ev->valuestring, "auth") == 0) {
		rl->signed_in = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    msg, "signed_in"));
		rl->refresh = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		    msg, "refresh"));
		rlink_word(rl->auth, sizeof rl->auth,
		    cJSON_GetObjectItemCaseSensitive(msg, "state"));
		v = cJSON_GetObjectItemCaseSensitive(msg, "expires");
		rl->token_expires = cJSON_IsNumber(v) ? v->valuedouble : 0;
		v = cJSON_GetObjectItemCaseSensitive(msg, "reason");
		free(rl->auth_reason);
		rl->auth_reason = NULL;
		if (cJSON_IsString(v))
			rl->auth_reason = esc_text(v->valuestring,
			    strnlen(v->valuestring, RLINK_TEXT_MAX), 0);
		reason = rl->auth_reason;
		if (strcmp(rl->auth, "ok") == 0)
			rlink_event(rl, RLINK_KIND_AUTH, LOG_INFO, "token",
			    "authorized (%s)",
			    rl->signed_in ? "signed in" : "token fetched");
		else {
			snprintf(status, sizeof status, "auth-%s", rl->auth);
			rlink_event(rl, RLINK_KIND_AUTH, LOG_WARNING, status,
			    "authorization: %s", reason != NULL ? reason :
			    rl->auth);
		}
	}
out:
	cJSON_Delete(msg);
}

void
rlink_ended(struct rlink *rl)
{
	size_t	i;

	for (i = 0; i < RLINK_CODES; i++) {
		rl->done[i] += rl->now[i];
		rl->now[i] = 0;
	}
	if (rl->session[0] != '\0')
		memcpy(rl->session, "closed", sizeof "closed");
	rl->signed_in = rl->refresh = 0;
	rl->token_expires = 0;
}

void
rlink_started(struct rlink *rl)
{
	rl->auth[0] = '\0';
	free(rl->auth_reason);
	rl->auth_reason = NULL;
	free(rl->step_up);
	free(rl->step_up_reason);
	rl->step_up = rl->step_up_reason = NULL;
}

const char *
rlink_needs_login(const struct rlink *rl)
{
	if (strcmp(rl->auth, "needs-login") != 0)
		return (NULL);
	return (rl->auth_reason != NULL ? rl->auth_reason : "not signed in");
}

const char *
rlink_step_up(const struct rlink *rl)
{
	return (rl->step_up);
}

static void
rlink_str(cJSON *o, const char *key, const char *v)
{
	if (v != NULL && *v != '\0')
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void
rlink_json(const struct rlink *rl, cJSON *o)
{
	cJSON	*r, *counts;
	char	 key[16];
	size_t	 i;

	rlink_str(o, "transport", rl->transport);
	r = cJSON_AddObjectToObject(o, "remote");
	rlink_str(r, "session", rl->session);
	rlink_str(r, "protocol", rl->protocol);
	if (rl->last_status != 0)
		cJSON_AddNumberToObject(r, "last_http_status",
		    (double)rl->last_status);
	else
		cJSON_AddNullToObject(r, "last_http_status");
	rlink_str(r, "last_http_method", rl->last_method);
	rlink_str(r, "auth", rl->auth);
	rlink_str(r, "auth_reason", rl->auth_reason);
	if (rl->token_expires > 0)
		cJSON_AddNumberToObject(r, "token_expires", rl->token_expires);
	else
		cJSON_AddNullToObject(r, "token_expires");
	cJSON_AddBoolToObject(r, "signed_in", rl->signed_in);
	cJSON_AddBoolToObject(r, "refresh", rl->refresh);
	counts = cJSON_AddObjectToObject(r, "http_responses");
	for (i = 0; i < RLINK_CODES; i++) {
		if (rl->done[i] + rl->now[i] == 0)
			continue;
		snprintf(key, sizeof key, "%zu", i);
		cJSON_AddNumberToObject(counts, key,
		    (double)(rl->done[i] + rl->now[i]));
	}
}

/*
 * A re-exec: what the status channel said so far, for the next mcpd (the
 * worker goes on reporting only what changes).
 */

static cJSON *
rlink_counts_json(const unsigned long *v)
{
	cJSON	*o;
	char	 key[16];
	size_t	 i;

	o = cJSON_CreateObject();
	for (i = 0; i < RLINK_CODES; i++) {
		if (v[i] == 0)
			continue;
		snprintf(key, sizeof key, "%zu", i);
		cJSON_AddNumberToObject(o, key, (double)v[i]);
	}
	return (o);
}

char *
rlink_export(const struct rlink *rl)
{
	cJSON	*o;
	char	*text;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "transport", rl->transport);
	cJSON_AddStringToObject(o, "session", rl->session);
	cJSON_AddStringToObject(o, "protocol", rl->protocol);
	cJSON_AddNumberToObject(o, "last_status", (double)rl->last_status);
	cJSON_AddStringToObject(o, "last_method", rl->last_method);
	cJSON_AddStringToObject(o, "auth", rl->auth);
	if (rl->auth_reason != NULL)
		cJSON_AddStringToObject(o, "auth_reason", rl->auth_reason);
	cJSON_AddNumberToObject(o, "token_expires", rl->token_expires);
	cJSON_AddBoolToObject(o, "signed_in", rl->signed_in);
	cJSON_AddBoolToObject(o, "refresh", rl->refresh);
	cJSON_AddItemToObject(o, "done", rlink_counts_json(rl->done));
	cJSON_AddItemToObject(o, "now", rlink_counts_json(rl->now));
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return (text);
}

void
rlink_adopt(struct rlink *rl, const char *text)
{
	cJSON		*o, *v;
	size_t		 i;

	if (text == NULL || (o = cJSON_Parse(text)) == NULL)
		return;
	rlink_word(rl->transport, sizeof rl->transport,
	    cJSON_GetObjectItemCaseSensitive(o, "transport"));
	rlink_word(rl->session, sizeof rl->session,
	    cJSON_GetObjectItemCaseSensitive(o, "session"));
	rlink_word(rl->protocol, sizeof rl->protocol,
	    cJSON_GetObjectItemCaseSensitive(o, "protocol"));
	rlink_word(rl->last_method, sizeof rl->last_method,
	    cJSON_GetObjectItemCaseSensitive(o, "last_method"));
	rlink_word(rl->auth, sizeof rl->auth,
	    cJSON_GetObjectItemCaseSensitive(o, "auth"));
	free(rl->auth_reason);
	rl->auth_reason = rlink_text(cJSON_GetObjectItemCaseSensitive(o,
	    "auth_reason"));
	v = cJSON_GetObjectItemCaseSensitive(o, "last_status");
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1000)
		rl->last_status = (long)v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(o, "token_expires");
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12)
		rl->token_expires = v->valuedouble;
	rl->signed_in = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "signed_in"));
	rl->refresh = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o,
	    "refresh"));
	/* rlink_counts fills now[]: the ended processes' first. */
	rlink_counts(rl, cJSON_GetObjectItemCaseSensitive(o, "done"));
	for (i = 0; i < RLINK_CODES; i++) {
		rl->done[i] = rl->now[i];
		rl->now[i] = 0;
	}
	rlink_counts(rl, cJSON_GetObjectItemCaseSensitive(o, "now"));
	cJSON_Delete(o);
}
