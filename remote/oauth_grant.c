/*
 * oauth_grant.c -- the token requests: grant_type=client_credentials,
 * refresh_token and authorization_code, each authenticated as configured
 * and as the server allows (client_secret_basic, client_secret_post,
 * private_key_jwt, or a public client), the response checked before a
 * token is held; and a sign-out's revocation (RFC 7009).  What touches a
 * sign-in's token file (a refresh, an exchange, a revocation) runs under
 * its lock, taken here, waiting for another process if need be.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/event.h>

#include "b64.h"
#include "http.h"
#include "jwt.h"
#include "oauth_int.h"
#include "remote.h"
#include "store.h"
#include "tokens.h"
#include "xmalloc.h"

#define OAUTH_MAX_TOKEN_BYTES	16384
/* expires_in beyond this (ten years) is taken as this. */
#define OAUTH_MAX_EXPIRES_IN_S	(10.0 * 365 * 86400)
/* Waiting for another process's refresh: try the lock this often, this long. */
#define OAUTH_LOCK_RETRY_MS	100
#define OAUTH_LOCK_WAIT_MS	(OAUTH_TIMEOUT_MS + 10000)

#define OAUTH_JWT_BEARER \
	"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

enum oauth_auth {
	OAUTH_AUTH_BASIC,
	OAUTH_AUTH_POST,
	OAUTH_AUTH_JWT,
	OAUTH_AUTH_NONE,	/* a public client: client_id in the body */
};

static void	oauth_revoke_next(struct oauth *);

/* Append "&name=value" (form-escaped) to a body. */
static void
oauth_form_add(char **body, const char *name, const char *value)
{
	char	*esc, *next;

	esc = b64_form_escape(value);
	xasprintf(&next, "%s%s%s=%s", *body, **body != '\0' ? "&" : "",
	    name, esc);
	oauth_wipe(esc);
	oauth_wipe(*body);
	*body = next;
}

/* How to authenticate: -1 with *reason if the server allows no way. */
static int
oauth_choose_auth(struct oauth *o, enum oauth_auth *auth, char **reason)
{
	const char	*listed;

	listed = o->methods_text != NULL ? o->methods_text : "nothing";
	if (o->conf.private_key_file != NULL) {
		if (o->methods_listed && !o->method_jwt) {
			xasprintf(reason, "the authorization server does not "
			    "accept private_key_jwt (it lists %s)", listed);
			return (-1);
		}
		*auth = OAUTH_AUTH_JWT;
		return (0);
	}
	if (!o->methods_listed || o->method_basic)
		*auth = OAUTH_AUTH_BASIC;
	else if (o->method_post)
		*auth = OAUTH_AUTH_POST;
	else {
		xasprintf(reason, "the authorization server accepts neither "
		    "client_secret_basic nor client_secret_post (it lists %s); "
		    "configure a private key for private_key_jwt", listed);
		return (-1);
	}
	return (0);
}

/* A refresh token's characters: visible ASCII, bounded. */
static int
oauth_refresh_token_ok(const char *s)
{
	const unsigned char	*p;

	if (*s == '\0' || strlen(s) > OAUTH_MAX_TOKEN_BYTES)
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x21 || *p > 0x7e)
			return (0);
	}
	return (1);
}

/*
 * A sign-in's new tokens: into tok, into the token file (durably, before
 * the access token is used), then held.  -1 with *reason if the file
 * cannot be written after an exchange (a login that would not survive a
 * restart has failed); after a refresh the new tokens are used anyway
 * (the old refresh token is spent) and the failure logged.
 */
static int
oauth_code_tokens(struct oauth *o, const cJSON *json, const char *token,
    double expires_in, char **reason)
{
	const char	*refresh, *scope;
	char		*err;
	int64_t		 now = (int64_t)(oauth_now_ms() / 1000);

	oauth_wipe(o->tok.access_token);
	o->tok.access_token = xstrdup(token);
	refresh = oauth_json_string(json, "refresh_token");
	if (refresh != NULL && oauth_refresh_token_ok(refresh)) {
		oauth_wipe(o->tok.refresh_token);
		o->tok.refresh_token = xstrdup(refresh);
	} else if (o->goal == OAUTH_GOAL_EXCHANGE) {
		oauth_wipe(o->tok.refresh_token);
		o->tok.refresh_token = NULL;
	}
	scope = oauth_json_string(json, "scope");
	if (scope != NULL && oauth_scope_ok(scope)) {
		free(o->tok.scope);
		o->tok.scope = xstrdup(scope);
	}
	o->tok.obtained_at = now;
	o->tok.expires_at = expires_in > 0 ? now + (int64_t)expires_in : 0;
	if (o->conf.token_file != NULL &&
	    store_save(o->conf.token_file, &o->tok, &err) == -1) {
		if (o->goal == OAUTH_GOAL_EXCHANGE) {
			xasprintf(reason, "cannot keep the tokens: %s", err);
			free(err);
			tokens_clear(&o->tok);
			return (-1);
		}
		remote_log("cannot keep the refreshed tokens (the next start "
		    "will need a new sign-in): %s", err);
		free(err);
	}
	oauth_hold_access(o);
	return (0);
}

/* What was refused at the token endpoint, for a reason. */
static const char *
oauth_grant_name(const struct oauth *o)
{
	if (o->goal == OAUTH_GOAL_EXCHANGE)
		return ("the authorization code");
	return (o->code ? "the refresh token" : "the client credentials");
}

static void
oauth_token_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const cJSON	*v;
	cJSON		*json = NULL;
	const char	*token, *type, *code;
	char		*reason = NULL, *shown = NULL, *q1 = NULL, *q2 = NULL;
	char		*end_ptr;
	double		 expires_in = 0;
	uint64_t	 now, life_ms, margin_ms;
	long		 status;

	oauth_enter(o);
	if (oauth_fetch_ended(o) != 0)
		goto out;
	shown = oauth_show_url(o, o->token_url);
	if ((reason = oauth_http_failed(o, "token endpoint", o->token_url,
	    end, error)) != NULL)
		goto fail;
	status = http_status(req);
	json = oauth_parse_object(body, len);
	if (status != 200) {
		code = json != NULL ? oauth_json_string(json, "error") : NULL;
		if (code != NULL) {
			q1 = oauth_quote(o, code);
			q2 = oauth_quote(o, oauth_json_string(json,
			    "error_description"));
			xasprintf(&reason, "token endpoint %s refused %s "
			    "(HTTP %ld): %s%s%s", shown, oauth_grant_name(o),
			    status, q1, *q2 != '\0' ? ": " : "", q2);
			/* RFC 6749 section 5.2: only a new sign-in helps. */
			if (o->code && o->goal == OAUTH_GOAL_TOKEN &&
			    (strcmp(code, "invalid_grant") == 0 ||
			    strcmp(code, "invalid_client") == 0 ||
			    strcmp(code, "unauthorized_client") == 0))
				o->needs_login = 1;
		} else
			xasprintf(&reason, "token endpoint %s: HTTP %ld",
			    shown, status);
		goto fail;
	}
	if (json == NULL) {
		xasprintf(&reason, "token endpoint %s: the response is not a "
		    "JSON object", shown);
		goto fail;
	}
	token = oauth_json_string(json, "access_token");
	if (token == NULL || *token == '\0') {
		xasprintf(&reason, "token endpoint %s: no access_token in "
		    "the response", shown);
		goto fail;
	}
	if (strlen(token) > OAUTH_MAX_TOKEN_BYTES || !oauth_token_ok(token)) {
		xasprintf(&reason, "token endpoint %s: the access_token is "
		    "not a valid bearer token (bad characters or longer than "
		    "%d bytes)", shown, OAUTH_MAX_TOKEN_BYTES);
		goto fail;
	}
	type = oauth_json_string(json, "token_type");
	if (type == NULL || strcasecmp(type, "Bearer") != 0) {
		q1 = oauth_quote(o, type != NULL ? type : "(none)");
		xasprintf(&reason, "token endpoint %s: token_type \"%s\", not "
		    "Bearer", shown, q1);
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(json, "expires_in");
	if (cJSON_IsNumber(v))
		expires_in = v->valuedouble;
	else if (cJSON_IsString(v) && v->valuestring != NULL) {
		/* Seen in the wild: a number as a string. */
		expires_in = strtod(v->valuestring, &end_ptr);
		if (end_ptr == v->valuestring || *end_ptr != '\0')
			expires_in = 0;
	}
	if (!isfinite(expires_in) || expires_in < 0)
		expires_in = 0;
	if (expires_in > OAUTH_MAX_EXPIRES_IN_S)
		expires_in = OAUTH_MAX_EXPIRES_IN_S;

	if (o->code) {
		if (oauth_code_tokens(o, json, token, expires_in,
		    &reason) != 0)
			goto fail;
		oauth_finish(o, NULL);
		goto out;
	}
	oauth_drop_token(o);
	xasprintf(&o->header, "Authorization: Bearer %s", token);
	now = oauth_now_ms();
	if (expires_in > 0) {
		life_ms = (uint64_t)(expires_in * 1000);
		o->expires_ms = now + life_ms;
		margin_ms = life_ms / 10;
		if (margin_ms > OAUTH_REFRESH_MARGIN_MS)
			margin_ms = OAUTH_REFRESH_MARGIN_MS;
		o->refresh_ms = o->expires_ms - margin_ms;
	}
	oauth_finish(o, NULL);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	if (json != NULL) {
		/* The tokens are in there: wipe them before they go. */
		v = cJSON_GetObjectItemCaseSensitive(json, "access_token");
		if (cJSON_IsString(v) && v->valuestring != NULL)
			explicit_bzero(v->valuestring, strlen(v->valuestring));
		v = cJSON_GetObjectItemCaseSensitive(json, "refresh_token");
		if (cJSON_IsString(v) && v->valuestring != NULL)
			explicit_bzero(v->valuestring, strlen(v->valuestring));
		cJSON_Delete(json);
	}
	free(reason);
	free(shown);
	free(q1);
	free(q2);
	oauth_leave(o);
}

/* "Authorization: Basic ..." for a client id and secret (RFC 6749 2.3.1). */
static char *
oauth_basic(const char *id, const char *secret)
{
	char	*id_esc, *secret_esc, *pair, *pair64, *basic;

	id_esc = b64_form_escape(id);
	secret_esc = b64_form_escape(secret);
	xasprintf(&pair, "%s:%s", id_esc, secret_esc);
	pair64 = b64_encode(pair, strlen(pair));
	xasprintf(&basic, "Authorization: Basic %s", pair64);
	free(id_esc);
	oauth_wipe(secret_esc);
	oauth_wipe(pair);
	oauth_wipe(pair64);
	return (basic);
}

/* A sign-in's client authenticates as it registered; *basic or the body. */
static void
oauth_code_client_auth(struct oauth *o, char **body, char **basic)
{
	const char	*m = o->tok.auth_method;

	if (m != NULL && strcmp(m, "client_secret_basic") == 0 &&
	    o->tok.client_secret != NULL)
		*basic = oauth_basic(o->tok.client_id, o->tok.client_secret);
	else {
		oauth_form_add(body, "client_id", o->tok.client_id);
		if (m != NULL && strcmp(m, "client_secret_post") == 0 &&
		    o->tok.client_secret != NULL)
			oauth_form_add(body, "client_secret",
			    o->tok.client_secret);
	}
}

/* POST a form to url; the body is wiped once sent. */
static void
oauth_post_form(struct oauth *o, const char *url, char *body, char *basic,
    http_fetch_fn cb)
{
	const char	*headers[4];
	size_t		 n = 0;

	headers[n++] = "Content-Type: application/x-www-form-urlencoded";
	headers[n++] = "Accept: application/json";
	if (basic != NULL)
		headers[n++] = basic;
	headers[n] = NULL;
	oauth_fetch(o, "POST", url, headers, body, strlen(body), cb);
	oauth_wipe(basic);
}

/*
 * The token file's lock is held: another process may have refreshed (or
 * signed in) meanwhile, so read the file again before spending the
 * refresh token.
 */
static void
oauth_refresh_locked(struct oauth *o)
{
	struct tokens	 disk;
	char		*body, *basic = NULL;

	if (oauth_read_tokens(o, &disk) == 1 && (o->tok.refresh_token ==
	    NULL || disk.refresh_token == NULL ||
	    strcmp(disk.refresh_token, o->tok.refresh_token) != 0 ||
	    (disk.access_token != NULL && (o->refused == NULL ||
	    strcmp(disk.access_token, o->refused) != 0)))) {
		tokens_clear(&o->tok);
		o->tok = disk;
		oauth_hold_access(o);
		if (o->header != NULL && (o->refused == NULL ||
		    strcmp(o->tok.access_token, o->refused) != 0) &&
		    oauth_usable(o, oauth_now_ms()) && (o->refresh_ms == 0 ||
		    oauth_now_ms() < o->refresh_ms)) {
			oauth_finish(o, NULL);
			return;
		}
	} else
		tokens_clear(&disk);
	if (o->tok.client_id == NULL) {
		o->needs_login = 1;
		oauth_finish(o, "the server requires authorization, and no "
		    "one has signed in to it yet");
		return;
	}
	if (o->tok.refresh_token == NULL) {
		o->needs_login = 1;
		oauth_finish(o, "the access token expired or was refused, and "
		    "the sign-in has no refresh token: sign in again");
		return;
	}
	free(o->token_url);
	o->token_url = xstrdup(o->tok.token_endpoint);
	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "refresh_token");
	oauth_form_add(&body, "refresh_token", o->tok.refresh_token);
	oauth_form_add(&body, "resource", o->tok.resource);
	oauth_code_client_auth(o, &body, &basic);
	o->step = OAUTH_TOKEN;
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

static void
oauth_exchange_locked(struct oauth *o)
{
	char	*body, *basic = NULL;

	free(o->token_url);
	o->token_url = xstrdup(o->tok.token_endpoint);
	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "authorization_code");
	oauth_form_add(&body, "code", o->ex_code);
	oauth_form_add(&body, "redirect_uri", o->ex_redirect);
	oauth_form_add(&body, "code_verifier", o->ex_verifier);
	oauth_form_add(&body, "resource", o->tok.resource);
	oauth_code_client_auth(o, &body, &basic);
	o->step = OAUTH_TOKEN;
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

/* Take the token file's lock (waiting for another process), then go on. */
static void
oauth_lock_step(struct oauth *o)
{
	struct timeval	 tv = { 0, OAUTH_LOCK_RETRY_MS * 1000 };
	char		*err;
	int		 rv;

	o->step = OAUTH_LOCK;
	if (o->conf.token_file == NULL)
		rv = 1;
	else if ((rv = store_trylock(o->conf.token_file, &o->lock_fd,
	    &err)) == -1) {
		oauth_finish(o, err);
		free(err);
		return;
	}
	if (rv == 0) {
		if (oauth_now_ms() > o->lock_deadline_ms) {
			oauth_finish(o, "another process held the token file's "
			    "lock too long");
			return;
		}
		evtimer_add(o->lock_timer, &tv);
		return;
	}
	switch (o->goal) {
	case OAUTH_GOAL_EXCHANGE:
		oauth_exchange_locked(o);
		break;
	case OAUTH_GOAL_REVOKE:
		oauth_revoke_next(o);
		break;
	default:
		oauth_refresh_locked(o);
		break;
	}
}

void
oauth_lock_cb(evutil_socket_t fd, short events, void *arg)
{
	struct oauth	*o = arg;

	(void)fd;
	(void)events;
	oauth_enter(o);
	if (!o->dead && o->step == OAUTH_LOCK)
		oauth_lock_step(o);
	oauth_leave(o);
}

void
oauth_lock_begin(struct oauth *o)
{
	o->lock_deadline_ms = oauth_now_ms() + OAUTH_LOCK_WAIT_MS;
	oauth_lock_step(o);
}

void
oauth_token_request(struct oauth *o)
{
	const char	*scope, *audience;
	enum oauth_auth	 auth;
	char		*body, *reason = NULL, *basic = NULL, *jwt, *why;

	if (o->code) {
		oauth_lock_begin(o);
		return;
	}
	o->step = OAUTH_TOKEN;
	if (oauth_choose_auth(o, &auth, &reason) != 0) {
		oauth_finish(o, reason);
		free(reason);
		return;
	}

	body = xstrdup("");
	oauth_form_add(&body, "grant_type", "client_credentials");
	oauth_form_add(&body, "resource", o->resource);
	if ((scope = o->conf.scope) == NULL &&
	    (scope = o->challenge_scope) == NULL)
		scope = o->scopes_supported;
	if (scope != NULL)
		oauth_form_add(&body, "scope", scope);

	switch (auth) {
	case OAUTH_AUTH_BASIC:
		basic = oauth_basic(o->conf.client_id, o->conf.client_secret);
		break;
	case OAUTH_AUTH_POST:
		oauth_form_add(&body, "client_id", o->conf.client_id);
		oauth_form_add(&body, "client_secret", o->conf.client_secret);
		break;
	case OAUTH_AUTH_JWT:
		if ((audience = o->conf.jwt_audience) == NULL)
			audience = o->issuer != NULL ? o->issuer : o->token_url;
		jwt = jwt_client_assertion(o->conf.private_key_file,
		    o->conf.signing_algorithm, o->conf.client_id, audience,
		    time(NULL), &why);
		if (jwt == NULL) {
			xasprintf(&reason, "private_key_jwt: %s", why);
			free(why);
			oauth_wipe(body);
			oauth_finish(o, reason);
			free(reason);
			return;
		}
		oauth_form_add(&body, "client_id", o->conf.client_id);
		oauth_form_add(&body, "client_assertion_type",
		    OAUTH_JWT_BEARER);
		oauth_form_add(&body, "client_assertion", jwt);
		oauth_wipe(jwt);
		break;
	case OAUTH_AUTH_NONE:
		oauth_form_add(&body, "client_id", o->conf.client_id);
		break;
	}
	oauth_post_form(o, o->token_url, body, basic, oauth_token_cb);
}

/* Revocation (RFC 7009): the refresh token, the access token, the file. */
static void
oauth_revoke_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;

	(void)body;
	(void)len;
	oauth_enter(o);
	if (oauth_fetch_ended(o) == 0) {
		/* RFC 7009 section 2.2: 200 for a token already invalid. */
		if (end == HTTP_DONE && http_status(req) == 200)
			o->revoked = 1;
		else
			remote_log("revocation endpoint: %s", end == HTTP_DONE ?
			    "refused" : error != NULL ? error : "failed");
		oauth_revoke_next(o);
	}
	oauth_leave(o);
}

static void
oauth_revoke_next(struct oauth *o)
{
	const char	*token = NULL, *hint = NULL;
	char		*body, *basic = NULL, *err;
	int		 rv;

	o->step = OAUTH_REVOKE;
	if (o->tok.revocation_endpoint != NULL) {
		if (o->revoke_step == 0 && o->tok.refresh_token != NULL) {
			token = o->tok.refresh_token;
			hint = "refresh_token";
		} else if (o->revoke_step <= 1 && o->tok.access_token != NULL) {
			token = o->tok.access_token;
			hint = "access_token";
			o->revoke_step = 1;
		}
	}
	if (token != NULL) {
		o->revoke_step++;
		body = xstrdup("");
		oauth_form_add(&body, "token", token);
		oauth_form_add(&body, "token_type_hint", hint);
		oauth_code_client_auth(o, &body, &basic);
		oauth_post_form(o, o->tok.revocation_endpoint, body, basic,
		    oauth_revoke_cb);
		return;
	}
	rv = o->conf.token_file != NULL ? store_remove(o->conf.token_file,
	    &err) : 0;
	if (rv == -1) {
		oauth_finish(o, err);
		free(err);
		return;
	}
	o->revoked = (o->revoked ? 1 : 0) | (rv == 1 ? 2 : 0);
	tokens_clear(&o->tok);
	oauth_drop_token(o);
	oauth_finish(o, NULL);
}
