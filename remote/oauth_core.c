/*
 * oauth_core.c -- what every step of the OAuth client shares (oauth_int.h):
 * the token held and the token file's copy of a sign-in, the one fetch
 * under way (its candidates, its depth for a free from within) and its
 * outcome told to every waiter (oauth_finish), the HTTP exchange bounded
 * and timed out, and the checks on what travels: URLs that may carry
 * credentials, scopes and tokens, and network text quoted in a reason.
 * It calls no other part of the client.
 */
#include "config.h"

#include <sys/queue.h>

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "clock.h"
#include "http.h"
#include "oauth_int.h"
#include "remote.h"
#include "store.h"
#include "tokens.h"
#include "url.h"
#include "xmalloc.h"

#define OAUTH_MAX_BODY_BYTES	(1024 * 1024)
/* After a failed refresh, keep the held token this long before trying. */
#define OAUTH_REFRESH_RETRY_MS	5000

void
oauth_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

uint64_t
oauth_now_ms(void)
{
	return (clock_realtime_us() / 1000);
}

/*
 * Text from the network, fit for a reason: printable ASCII, bounded, and
 * never the secret (an authorization server may echo what it was sent).
 */
char *
oauth_quote(const struct oauth *o, const char *s)
{
	char	*q;
	size_t	 i, n;

	if (s == NULL)
		return (xstrdup(""));
	n = strnlen(s, OAUTH_MAX_QUOTE_BYTES + 1);
	q = xmalloc(n + 4);
	for (i = 0; i < n && i < OAUTH_MAX_QUOTE_BYTES; i++) {
		unsigned char	 c = s[i];

		q[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
	}
	if (n > OAUTH_MAX_QUOTE_BYTES) {
		memcpy(q + i, "...", 3);
		i += 3;
	}
	q[i] = '\0';
	if (o->conf.client_secret != NULL && *o->conf.client_secret != '\0' &&
	    strstr(s, o->conf.client_secret) != NULL) {
		free(q);
		return (xstrdup("(withheld: it holds the client secret)"));
	}
	return (q);
}

/* A URL fit for a reason: no userinfo, query or fragment. */
char *
oauth_show_url(const struct oauth *o, const char *s)
{
	struct url	 u;
	const char	*err;
	char		*text;

	if (url_parse(s, &u, &err) != 0)
		return (oauth_quote(o, s));
	free(u.userinfo);
	free(u.query);
	free(u.fragment);
	u.userinfo = u.query = u.fragment = NULL;
	text = url_format(&u);
	url_clear(&u);
	return (text);
}

static int
oauth_loopback_host(const char *host)
{
	if (strcmp(host, "localhost") == 0 || strcmp(host, "[::1]") == 0)
		return (1);
	if (strncmp(host, "127.", 4) == 0 &&
	    strspn(host, "0123456789.") == strlen(host))
		return (1);
	return (0);
}

/*
 * Whether credentials (or metadata saying where they go) may travel to or
 * from this URL: https, or http to a loopback address.  -1 with *reason.
 */
int
oauth_url_allowed(const struct oauth *o, const char *what, const char *s,
    char **reason)
{
	struct url	 u;
	const char	*err;
	char		*shown;
	int		 ok;

	if (url_parse(s, &u, &err) != 0) {
		shown = oauth_quote(o, s);
		xasprintf(reason, "%s \"%s\" is not a valid http(s) URL: %s",
		    what, shown, err);
		free(shown);
		return (-1);
	}
	ok = strcmp(u.scheme, "https") == 0 || oauth_loopback_host(u.host);
	url_clear(&u);
	if (ok)
		return (0);
	shown = oauth_show_url(o, s);
	xasprintf(reason, "refusing %s %s: it is plain http and not on a "
	    "loopback address (https is required)", what, shown);
	free(shown);
	return (-1);
}

/* A scope token of RFC 6749 section 3.3. */
static int
oauth_scope_token_ok(const char *s)
{
	const unsigned char	*p;

	if (*s == '\0')
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x21 || *p > 0x7e || *p == '"' || *p == '\\')
			return (0);
	}
	return (1);
}

/* Scope tokens separated by single spaces, bounded. */
int
oauth_scope_ok(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	if (*p == '\0' || *p == ' ' || strlen(s) > 4096)
		return (0);
	for (; *p != '\0'; p++) {
		if (*p == ' ') {
			if (p[1] == ' ' || p[1] == '\0')
				return (0);
			continue;
		}
		if (*p < 0x21 || *p > 0x7e || *p == '"' || *p == '\\')
			return (0);
	}
	return (1);
}

/* A bearer token's characters (RFC 6750 section 2.1, b64token). */
int
oauth_token_ok(const char *s)
{
	size_t	 n, i;

	n = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789-._~+/");
	if (n == 0)
		return (0);
	for (i = n; s[i] == '='; i++)
		;
	return (s[i] == '\0');
}

/* Set the held token from tok (a sign-in's), with its refresh time. */
void
oauth_hold_access(struct oauth *o)
{
	uint64_t	 life_ms, margin_ms;

	oauth_wipe(o->header);
	o->header = NULL;
	o->expires_ms = o->refresh_ms = o->retry_ms = 0;
	if (o->tok.access_token == NULL || !oauth_token_ok(o->tok.access_token))
		return;
	xasprintf(&o->header, "Authorization: Bearer %s", o->tok.access_token);
	if (o->tok.expires_at <= 0)
		return;
	o->expires_ms = (uint64_t)o->tok.expires_at * 1000;
	life_ms = o->tok.obtained_at > 0 && o->tok.expires_at >
	    o->tok.obtained_at ? (uint64_t)(o->tok.expires_at -
	    o->tok.obtained_at) * 1000 : OAUTH_REFRESH_MARGIN_MS * 10;
	margin_ms = life_ms / 10;
	if (margin_ms > OAUTH_REFRESH_MARGIN_MS)
		margin_ms = OAUTH_REFRESH_MARGIN_MS;
	o->refresh_ms = o->expires_ms - margin_ms;
}

/* A token file belongs to this server if it names its URL and resource. */
static int
oauth_tokens_mine(const struct oauth *o, const struct tokens *t)
{
	return (t->server_url != NULL && t->resource != NULL &&
	    strcmp(t->server_url, o->server_url) == 0 &&
	    strcmp(t->resource, o->resource) == 0);
}

/* Read the token file; 1 if it holds this server's sign-in. */
int
oauth_read_tokens(struct oauth *o, struct tokens *t)
{
	char	*err;
	int	 rv;

	memset(t, 0, sizeof *t);
	if (o->conf.token_file == NULL)
		return (0);
	rv = store_load(o->conf.token_file, t, &err);
	if (rv == -1) {
		remote_log("%s", err);
		free(err);
		return (0);
	}
	if (rv == 1 && !oauth_tokens_mine(o, t)) {
		remote_log("token file %s is for another server URL or "
		    "resource: sign in again", o->conf.token_file);
		tokens_clear(t);
		return (0);
	}
	return (rv);
}

void
oauth_clear_cands(struct oauth *o)
{
	size_t	 i;

	for (i = 0; i < o->ncand; i++) {
		free(o->cand[i]);
		o->cand[i] = NULL;
	}
	o->ncand = o->icand = 0;
}

void
oauth_drop_token(struct oauth *o)
{
	oauth_wipe(o->header);
	o->header = NULL;
	o->expires_ms = o->refresh_ms = o->retry_ms = 0;
}

void
oauth_drop_waiters(struct oauth_waiters *list)
{
	struct oauth_waiter	*w;

	while ((w = TAILQ_FIRST(list)) != NULL) {
		TAILQ_REMOVE(list, w, entry);
		free(w);
	}
}

void
oauth_unlock(struct oauth *o)
{
	if (o->lock_timer != NULL)
		evtimer_del(o->lock_timer);
	store_unlock(o->lock_fd);
	o->lock_fd = -1;
}

/* Forget an exchange's code and verifier. */
static void
oauth_end_goal(struct oauth *o)
{
	oauth_wipe(o->ex_code);
	oauth_wipe(o->ex_verifier);
	free(o->ex_redirect);
	o->ex_code = o->ex_verifier = o->ex_redirect = NULL;
	o->goal = OAUTH_GOAL_TOKEN;
}

void
oauth_destroy(struct oauth *o)
{
	if (o->req != NULL)
		http_cancel(o->req);
	oauth_drop_waiters(&o->waiters);
	oauth_drop_waiters(&o->delivering);
	oauth_clear_cands(o);
	oauth_drop_token(o);
	oauth_unlock(o);
	if (o->lock_timer != NULL)
		event_free(o->lock_timer);
	tokens_clear(&o->tok);
	oauth_wipe(o->refused);
	oauth_end_goal(o);
	free(o->server_url);
	oauth_conf_clear(&o->conf);
	free(o->resource);
	free(o->issuer);
	free(o->token_url);
	free(o->methods_text);
	free(o->scopes_supported);
	free(o->challenge_scope);
	free(o->authorization_endpoint);
	free(o->registration_endpoint);
	free(o->revocation_endpoint);
	free(o);
}

void
oauth_enter(struct oauth *o)
{
	o->depth++;
}

void
oauth_leave(struct oauth *o)
{
	if (--o->depth == 0 && o->dead)
		oauth_destroy(o);
}

/* The held token may be sent (it has not expired). */
int
oauth_usable(const struct oauth *o, uint64_t now)
{
	return (o->header != NULL && (o->expires_ms == 0 ||
	    now < o->expires_ms));
}

time_t
oauth_expiry(const struct oauth *o)
{
	if (o->header == NULL)
		return (0);
	return ((time_t)(o->expires_ms / 1000));
}

/* The fetch ended: tell the hooks, then every waiter. */
void
oauth_finish(struct oauth *o, const char *reason)
{
	struct oauth_waiter	*w;
	oauth_fn		 fn;
	void			*arg;
	int			 result = 0;
	char			*why = NULL;

	o->step = OAUTH_IDLE;
	oauth_clear_cands(o);
	oauth_unlock(o);
	if (o->goal != OAUTH_GOAL_TOKEN) {
		/* signin.c's: the hooks report tokens for requests only. */
		if (reason != NULL)
			why = xstrdup(reason);
		result = reason == NULL ? (o->goal == OAUTH_GOAL_REVOKE ?
		    o->revoked : 0) : -1;
		oauth_end_goal(o);
	} else if (reason != NULL) {
		why = xstrdup(reason);
		/* A sign-in needed is the session's to report (needs-login). */
		if (o->hooks.failed != NULL && !o->needs_login)
			o->hooks.failed(o->hook_arg, why);
		if (o->needs_login) {
			oauth_drop_token(o);
			result = OAUTH_NEEDS_LOGIN;
		} else if (o->refreshing && oauth_usable(o, oauth_now_ms()))
			o->retry_ms = oauth_now_ms() + OAUTH_REFRESH_RETRY_MS;
		else {
			oauth_drop_token(o);
			result = -1;
		}
	} else if (o->hooks.fetched != NULL)
		o->hooks.fetched(o->hook_arg, oauth_expiry(o));
	o->refreshing = 0;
	o->needs_login = 0;

	/*
	 * Those waiting now hear it; a callback may queue again (a new
	 * fetch, heard later) or cancel one still to be told.
	 */
	TAILQ_CONCAT(&o->delivering, &o->waiters, entry);
	while (!o->dead && (w = TAILQ_FIRST(&o->delivering)) != NULL) {
		TAILQ_REMOVE(&o->delivering, w, entry);
		fn = w->fn;
		arg = w->arg;
		free(w);
		fn(arg, result, result == 0 ? NULL : why);
	}
	free(why);
}

/* Start one HTTP exchange of the chain. */
void
oauth_fetch(struct oauth *o, const char *method, const char *url,
    const char *const *headers, char *body, size_t body_len,
    http_fetch_fn fn)
{
	struct http_req	*req;
	unsigned int	 seq;

	seq = ++o->req_seq;
	o->req_open = 1;
	req = http_fetch(o->http, method, url, headers, body, body_len,
	    OAUTH_MAX_BODY_BYTES, OAUTH_TIMEOUT_MS, fn, o);
	/* Unless it already ended (or a newer one began) in a callback. */
	if (o->req_open && o->req_seq == seq)
		o->req = req;
	if (req == NULL && o->req_open && o->req_seq == seq) {
		o->req_open = 0;
		oauth_finish(o, "cannot start an HTTP request");
	}
}

/* The common start of every fetch callback: 0 if it should go on. */
int
oauth_fetch_ended(struct oauth *o)
{
	o->req = NULL;
	o->req_open = 0;
	return (o->dead ? -1 : 0);
}

/* A failed exchange as a reason; NULL if it is a response to read. */
char *
oauth_http_failed(struct oauth *o, const char *what, const char *url,
    enum http_end end, const char *error)
{
	char	*shown, *reason;

	if (end == HTTP_DONE)
		return (NULL);
	shown = oauth_show_url(o, url);
	xasprintf(&reason, "%s %s: %s", what, shown,
	    error != NULL ? error : "request failed");
	free(shown);
	return (reason);
}

cJSON *
oauth_parse_object(const char *body, size_t len)
{
	cJSON	*json;

	json = cJSON_ParseWithLength(body, len);
	if (json != NULL && !cJSON_IsObject(json)) {
		cJSON_Delete(json);
		return (NULL);
	}
	return (json);
}

const char *
oauth_json_string(const cJSON *obj, const char *name)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (!cJSON_IsString(v) || v->valuestring == NULL)
		return (NULL);
	return (v->valuestring);
}

/* Valid scope tokens of an array, joined by spaces; NULL if none. */
char *
oauth_join_scopes(const cJSON *arr)
{
	const cJSON	*v;
	char		*out = NULL, *next;

	if (!cJSON_IsArray(arr))
		return (NULL);
	cJSON_ArrayForEach(v, arr) {
		if (!cJSON_IsString(v) || !oauth_scope_token_ok(v->valuestring))
			continue;
		if (out != NULL && strlen(out) > 4096)
			break;
		if (out == NULL)
			out = xstrdup(v->valuestring);
		else {
			xasprintf(&next, "%s %s", out, v->valuestring);
			free(out);
			out = next;
		}
	}
	return (out);
}
