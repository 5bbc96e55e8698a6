/*
 * signin.c -- a sign-in (authorization code with PKCE) or a sign-out,
 * driven by mcpd over the status channel (see signin.h).
 *
 * One sign-in per process, one step at a time, each started from the
 * previous one's callback.  The verifier and state come from libcrypto's
 * RAND_bytes, the challenge is SHA-256 (EVP_Digest).  Text from the
 * network reaches a reason only through esc_text, bounded.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <event2/event.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "b64.h"
#include "esc.h"
#include "fdio.h"
#include "frame.h"
#include "http.h"
#include "oauth.h"
#include "rconf.h"
#include "remote.h"
#include "rstatus.h"
#include "signin.h"
#include "tokens.h"
#include "util.h"
#include "xmalloc.h"

/* How long the person has to sign in (mcpctl says so too). */
#define SIGNIN_TIMEOUT_S	600
#define SIGNIN_MAX_BODY		(256 * 1024)
#define SIGNIN_HTTP_TIMEOUT_MS	30000L
#define SIGNIN_MAX_QUOTE	200
#define SIGNIN_LINE_MAX		(64 * 1024)

struct signin {
	struct remote	*r;
	int		 fd;
	struct event	*ev_read;
	struct event	*timer;
	struct frame	*frame;
	struct tokens	 tok;		/* the client, then the tokens */
	char		*verifier;
	char		*state;
	int		 waiting;	/* for mcpd's {"code","state"} */
	int		 exit_code;
	int		 done;
};

static void
signin_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* Network text for a reason: printable, bounded. */
static char *
signin_quote(const char *s)
{
	size_t	 n;

	if (s == NULL)
		return (xstrdup("(none)"));
	n = strnlen(s, SIGNIN_MAX_QUOTE);
	return (esc_text(s, n, 0));
}

static void
signin_end(struct signin *si, int code)
{
	si->done = 1;
	si->exit_code = code;
	event_base_loopexit(si->r->base, NULL);
}

static void __attribute__((format(printf, 2, 3)))
signin_fail(struct signin *si, const char *fmt, ...)
{
	cJSON	*m;
	va_list	 ap;
	char	*text;

	if (si->done)
		return;
	va_start(ap, fmt);
	xvasprintf(&text, fmt, ap);
	va_end(ap);
	remote_log("sign-in: %s", text);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "reason", text);
	rstatus_emit("login-failed", m);
	free(text);
	signin_end(si, REMOTE_EXIT_NOPERM);
}

/* n random bytes as base64url. */
static char *
signin_random(size_t n)
{
	unsigned char	 buf[64];
	char		*s;

	if (n > sizeof buf || RAND_bytes(buf, (int)n) != 1)
		return (NULL);
	s = b64url_encode(buf, n);
	explicit_bzero(buf, sizeof buf);
	return (s);
}

/* RFC 7636 section 4.2: BASE64URL(SHA256(ASCII(verifier))). */
static char *
signin_challenge(const char *verifier)
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 len = 0;

	if (EVP_Digest(verifier, strlen(verifier), md, &len, EVP_sha256(),
	    NULL) != 1)
		return (NULL);
	return (b64url_encode(md, len));
}

/* Append "&name=value" (form-escaped) to a URL being built. */
static void
signin_param(char **url, const char *name, const char *value)
{
	char	*esc, *next;

	esc = b64_form_escape(value);
	xasprintf(&next, "%s%c%s=%s", *url, strchr(*url, '?') != NULL ?
	    '&' : '?', name, esc);
	free(esc);
	free(*url);
	*url = next;
}

/* The scopes to ask for: a's tokens, then b's not already there. */
static char *
signin_scope_union(const char *a, const char *b)
{
	char	*out, *copy, *tok, *save, *next;
	size_t	 len;

	if (a == NULL || *a == '\0')
		return (b != NULL && *b != '\0' ? xstrdup(b) : NULL);
	out = xstrdup(a);
	if (b == NULL)
		return (out);
	copy = xstrdup(b);
	for (tok = strtok_r(copy, " ", &save); tok != NULL;
	    tok = strtok_r(NULL, " ", &save)) {
		len = strlen(tok);
		next = out;
		while ((next = strstr(next, tok)) != NULL) {
			if ((next == out || next[-1] == ' ') &&
			    (next[len] == '\0' || next[len] == ' '))
				break;
			next += len;
		}
		if (next != NULL)
			continue;
		xasprintf(&next, "%s %s", out, tok);
		free(out);
		out = next;
	}
	free(copy);
	return (out);
}

static void
signin_send_url(struct signin *si)
{
	const struct oauth_meta	*meta = oauth_meta(si->r->oauth);
	const struct rconf	*rc = si->r->conf;
	cJSON			*m;
	char			*url, *challenge, *scope;
	struct timeval		 tv = { SIGNIN_TIMEOUT_S, 0 };

	si->verifier = signin_random(32);
	si->state = signin_random(24);
	challenge = si->verifier != NULL ? signin_challenge(si->verifier) :
	    NULL;
	if (si->state == NULL || challenge == NULL) {
		free(challenge);
		signin_fail(si, "no random bytes for PKCE and state");
		return;
	}
	scope = signin_scope_union(rc->oauth.scope != NULL ?
	    rc->oauth.scope : meta->scope, rc->login_scope);
	url = xstrdup(meta->authorization_endpoint);
	signin_param(&url, "response_type", "code");
	signin_param(&url, "client_id", si->tok.client_id);
	signin_param(&url, "redirect_uri", rc->redirect_uri);
	signin_param(&url, "code_challenge", challenge);
	signin_param(&url, "code_challenge_method", "S256");
	signin_param(&url, "state", si->state);
	signin_param(&url, "resource", meta->resource);
	if (scope != NULL)
		signin_param(&url, "scope", scope);
	free(scope);
	free(challenge);

	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "url", url);
	rstatus_emit("login-url", m);
	free(url);
	si->waiting = 1;
	evtimer_add(si->timer, &tv);
}

/* The client is known: keep what the token file needs. */
static void
signin_client(struct signin *si, const char *id, const char *secret,
    const char *method, const char *source)
{
	const struct oauth_meta	*meta = oauth_meta(si->r->oauth);

	si->tok.server_url = xstrdup(si->r->conf->url);
	si->tok.resource = xstrdup(meta->resource);
	si->tok.issuer = xstrdup(meta->issuer);
	si->tok.token_endpoint = xstrdup(meta->token_endpoint);
	if (meta->revocation_endpoint != NULL)
		si->tok.revocation_endpoint =
		    xstrdup(meta->revocation_endpoint);
	si->tok.client_id = xstrdup(id);
	si->tok.client_secret = secret != NULL ? xstrdup(secret) : NULL;
	si->tok.auth_method = xstrdup(method);
	si->tok.client_source = xstrdup(source);
	signin_send_url(si);
}

static void
signin_registered(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct signin	*si = arg;
	cJSON		*json;
	const cJSON	*id, *secret, *method;
	const char	*m;
	char		*q;
	long		 status;

	if (end != HTTP_DONE) {
		signin_fail(si, "client registration failed: %s",
		    error != NULL ? error : "request failed");
		return;
	}
	status = http_status(req);
	json = cJSON_ParseWithLength(body, len);
	if (status != 200 && status != 201) {
		id = cJSON_GetObjectItemCaseSensitive(json, "error");
		q = signin_quote(cJSON_IsString(id) ? id->valuestring : NULL);
		signin_fail(si, "the authorization server refused the client "
		    "registration (HTTP %ld): %s; configure oauth.client_id",
		    status, q);
		free(q);
		cJSON_Delete(json);
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(json, "client_id");
	secret = cJSON_GetObjectItemCaseSensitive(json, "client_secret");
	method = cJSON_GetObjectItemCaseSensitive(json,
	    "token_endpoint_auth_method");
	if (!cJSON_IsString(id) || *id->valuestring == '\0' ||
	    strlen(id->valuestring) > 1024 ||
	    strpbrk(id->valuestring, "\r\n") != NULL) {
		signin_fail(si, "the client registration answered no valid "
		    "client_id");
		cJSON_Delete(json);
		return;
	}
	if (!cJSON_IsString(secret) || *secret->valuestring == '\0')
		secret = NULL;
	/* RFC 7591 section 2: client_secret_basic unless said otherwise. */
	m = cJSON_IsString(method) ? method->valuestring : secret != NULL ?
	    "client_secret_basic" : "none";
	if (strcmp(m, "none") != 0 && strcmp(m, "client_secret_basic") != 0 &&
	    strcmp(m, "client_secret_post") != 0)
		m = secret != NULL ? "client_secret_basic" : "none";
	if (strcmp(m, "none") != 0 && secret == NULL)
		m = "none";
	signin_client(si, id->valuestring, secret != NULL ?
	    secret->valuestring : NULL, m, "registered");
	if (secret != NULL)
		explicit_bzero(secret->valuestring,
		    strlen(secret->valuestring));
	cJSON_Delete(json);
}

static void
signin_register(struct signin *si)
{
	static const char *const headers[] = {
	    "Content-Type: application/json", "Accept: application/json",
	    NULL };
	const struct oauth_meta	*meta = oauth_meta(si->r->oauth);
	cJSON			*req, *a;
	char			*body, *name;

	req = cJSON_CreateObject();
	xasprintf(&name, "mcpd (%s)", si->r->conf->name != NULL ?
	    si->r->conf->name : "mcpd-remote");
	cJSON_AddStringToObject(req, "client_name", name);
	free(name);
	a = cJSON_AddArrayToObject(req, "redirect_uris");
	cJSON_AddItemToArray(a, cJSON_CreateString(
	    si->r->conf->redirect_uri));
	a = cJSON_AddArrayToObject(req, "grant_types");
	cJSON_AddItemToArray(a, cJSON_CreateString("authorization_code"));
	cJSON_AddItemToArray(a, cJSON_CreateString("refresh_token"));
	a = cJSON_AddArrayToObject(req, "response_types");
	cJSON_AddItemToArray(a, cJSON_CreateString("code"));
	/* A native application: a public client (RFC 8252 section 8.4). */
	cJSON_AddStringToObject(req, "token_endpoint_auth_method", "none");
	cJSON_AddStringToObject(req, "software_id", "mcpd");
	cJSON_AddStringToObject(req, "software_version", PACKAGE_VERSION);
	body = cJSON_PrintUnformatted(req);
	cJSON_Delete(req);
	if (http_fetch(si->r->http, "POST", meta->registration_endpoint,
	    headers, body, strlen(body), SIGNIN_MAX_BODY,
	    SIGNIN_HTTP_TIMEOUT_MS, signin_registered, si) == NULL)
		signin_fail(si, "cannot start an HTTP request");
}

/* How a pre-registered client with a secret authenticates. */
static const char *
signin_secret_method(const struct oauth_meta *meta)
{
	if (!meta->methods_listed || meta->method_basic)
		return ("client_secret_basic");
	if (meta->method_post)
		return ("client_secret_post");
	return (NULL);
}

static void
signin_discovered(void *arg, int result, const char *reason)
{
	struct signin		*si = arg;
	const struct oauth_meta	*meta = oauth_meta(si->r->oauth);
	const struct oauth_conf	*c = &si->r->conf->oauth;
	const struct tokens	*prev;
	const char		*method, *secret;

	if (result != 0) {
		signin_fail(si, "%s", reason);
		return;
	}
	if (meta->authorization_endpoint == NULL) {
		signin_fail(si, "the authorization server's metadata has no "
		    "authorization_endpoint");
		return;
	}
	/*
	 * MCP authorization 2025-11-25: PKCE S256, confirmed in metadata;
	 * 2025-03-26's default endpoints have none to confirm it (oauth.c).
	 */
	if (!meta->pkce_s256 && !meta->defaults) {
		signin_fail(si, "the authorization server does not list S256 "
		    "in code_challenge_methods_supported%s; signing in "
		    "without PKCE is refused", meta->pkce_listed ? "" :
		    " (it lists none)");
		return;
	}
	if (c->client_id != NULL) {
		secret = oauth_client_secret(si->r->oauth);
		if (secret == NULL) {
			signin_client(si, c->client_id, NULL, "none",
			    "config");
			return;
		}
		if ((method = signin_secret_method(meta)) == NULL) {
			signin_fail(si, "the authorization server accepts "
			    "neither client_secret_basic nor "
			    "client_secret_post for the configured client");
			return;
		}
		signin_client(si, c->client_id, secret, method, "config");
		return;
	}
	/*
	 * A client this sign-in registered before, at the same authorization
	 * server: used again (loopback redirects may change port, RFC 8252
	 * section 7.3), so that signing in again does not register another.
	 */
	prev = oauth_tokens(si->r->oauth);
	if (prev != NULL && prev->client_source != NULL &&
	    strcmp(prev->client_source, "registered") == 0 &&
	    prev->issuer != NULL && meta->issuer != NULL &&
	    strcmp(prev->issuer, meta->issuer) == 0 &&
	    c->client_metadata_url == NULL) {
		signin_client(si, prev->client_id, prev->client_secret,
		    prev->auth_method, "registered");
		return;
	}
	if (c->client_metadata_url != NULL && meta->cimd) {
		signin_client(si, c->client_metadata_url, NULL, "none",
		    "metadata-document");
		return;
	}
	if (meta->registration_endpoint != NULL) {
		if (c->client_metadata_url != NULL)
			remote_log("sign-in: the authorization server does "
			    "not take client metadata documents; registering "
			    "a client instead");
		signin_register(si);
		return;
	}
	signin_fail(si, "the authorization server %s neither takes client "
	    "metadata documents nor registers clients: configure "
	    "oauth.client_id (a client registered with it)%s",
	    meta->issuer, c->client_metadata_url != NULL ? "" : " or "
	    "oauth.client_metadata_url");
}

static void
signin_probed(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct signin	*si = arg;
	const char	*www = NULL;

	(void)body;
	(void)len;
	if (end != HTTP_DONE && end != HTTP_ABORTED) {
		signin_fail(si, "cannot reach the server: %s",
		    error != NULL ? error : "request failed");
		return;
	}
	if (http_status(req) == 401)
		www = http_header(req, "WWW-Authenticate");
	oauth_discover(si->r->oauth, www, signin_discovered, si);
}

/* An initialize without a token: the 401 names the resource metadata. */
static void
signin_probe(struct signin *si)
{
	const char	*headers[24];
	size_t		 i, n = 0;
	char		*body;

	headers[n++] = "Content-Type: application/json";
	headers[n++] = "Accept: application/json, text/event-stream";
	for (i = 0; i < si->r->conf->nheaders && n + 1 < nitems(headers);
	    i++)
		headers[n++] = si->r->conf->headers[i];
	headers[n] = NULL;
	xasprintf(&body, "{\"jsonrpc\":\"2.0\",\"id\":\"mcpd-remote-login\","
	    "\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
	    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":"
	    "\"mcpd-remote\",\"version\":\"%s\"}}}", PACKAGE_VERSION);
	if (http_fetch(si->r->http, "POST", si->r->conf->url, headers, body,
	    strlen(body), 64 * 1024, SIGNIN_HTTP_TIMEOUT_MS, signin_probed,
	    si) == NULL)
		signin_fail(si, "cannot start an HTTP request");
}

static void
signin_exchanged(void *arg, int result, const char *reason)
{
	struct signin		*si = arg;
	const struct tokens	*t;
	cJSON			*m;

	if (result != 0) {
		signin_fail(si, "%s", reason);
		return;
	}
	t = oauth_tokens(si->r->oauth);
	m = cJSON_CreateObject();
	cJSON_AddNumberToObject(m, "expires", t != NULL ?
	    (double)t->expires_at : 0);
	cJSON_AddBoolToObject(m, "refresh", t != NULL &&
	    t->refresh_token != NULL);
	if (t != NULL && t->scope != NULL)
		cJSON_AddStringToObject(m, "scope", t->scope);
	else
		cJSON_AddNullToObject(m, "scope");
	rstatus_emit("login-done", m);
	signin_end(si, REMOTE_EXIT_OK);
}

static void
signin_signed_out(void *arg, int result, const char *reason)
{
	struct signin	*si = arg;
	cJSON		*m;

	if (result < 0) {
		signin_fail(si, "%s", reason);
		return;
	}
	m = cJSON_CreateObject();
	cJSON_AddBoolToObject(m, "revoked", (result & 1) != 0);
	cJSON_AddBoolToObject(m, "deleted", (result & 2) != 0);
	rstatus_emit("logout-done", m);
	signin_end(si, REMOTE_EXIT_OK);
}

/* What mcpd relays from mcpctl: the redirect's parameters. */
static void
signin_answer(struct signin *si, const char *line, size_t len)
{
	cJSON		*json;
	const cJSON	*code, *state, *error, *desc, *iss;
	const char	*issuer = oauth_meta(si->r->oauth)->issuer;
	char		*q1, *q2;
	int		 same;

	if (!si->waiting)
		return;
	json = cJSON_ParseWithLength(line, len);
	code = cJSON_GetObjectItemCaseSensitive(json, "code");
	state = cJSON_GetObjectItemCaseSensitive(json, "state");
	error = cJSON_GetObjectItemCaseSensitive(json, "error");
	desc = cJSON_GetObjectItemCaseSensitive(json, "error_description");
	iss = cJSON_GetObjectItemCaseSensitive(json, "iss");
	same = cJSON_IsString(state) && strlen(state->valuestring) ==
	    strlen(si->state) && CRYPTO_memcmp(state->valuestring, si->state,
	    strlen(si->state)) == 0;
	if (cJSON_IsString(error)) {
		q1 = signin_quote(error->valuestring);
		q2 = cJSON_IsString(desc) ? signin_quote(desc->valuestring) :
		    NULL;
		signin_fail(si, "the sign-in was refused%s: %s%s%s",
		    same ? "" : " (by a redirect of another login)", q1,
		    q2 != NULL ? ": " : "", q2 != NULL ? q2 : "");
		free(q1);
		free(q2);
	} else if (!cJSON_IsString(code) || *code->valuestring == '\0')
		signin_fail(si, "the redirect holds no authorization code");
	else if (!same)
		signin_fail(si, "the redirect's state does not match this "
		    "sign-in (a stale or forged redirect): nothing was "
		    "exchanged; run the login again");
	else if (cJSON_IsString(iss) && (issuer == NULL ||
	    strcmp(iss->valuestring, issuer) != 0))
		/* RFC 9207: the response came from another server. */
		signin_fail(si, "the redirect names another authorization "
		    "server (iss) than the one asked: nothing was exchanged");
	else {
		si->waiting = 0;
		evtimer_del(si->timer);
		oauth_exchange(si->r->oauth, &si->tok, code->valuestring,
		    si->verifier, si->r->conf->redirect_uri,
		    signin_exchanged, si);
	}
	if (cJSON_IsString(code))
		explicit_bzero(code->valuestring, strlen(code->valuestring));
	cJSON_Delete(json);
}

static void
signin_read_cb(evutil_socket_t fd, short events, void *arg)
{
	struct signin		*si = arg;
	struct frame_msg	 msg;
	enum frame_event	 ev;
	ssize_t			 n;

	(void)events;
	n = fdio_read_frame(fd, si->frame, NULL);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* mcpd is gone (or gave up): nothing to report to. */
		remote_log("sign-in: mcpd closed the channel");
		signin_end(si, REMOTE_EXIT_UNAVAILABLE);
		return;
	}
	for (;;) {
		ev = frame_next(si->frame, &msg);
		if (si->done || ev == FRAME_NONE)
			break;
		if (ev == FRAME_LINE)
			signin_answer(si, msg.line, msg.len);
	}
}

static void
signin_timeout_cb(evutil_socket_t fd, short events, void *arg)
{
	struct signin	*si = arg;

	(void)fd;
	(void)events;
	signin_fail(si, "the sign-in was not completed within %d minutes",
	    SIGNIN_TIMEOUT_S / 60);
}

int
signin_run(struct remote *r, int fd)
{
	struct signin	 si;

	memset(&si, 0, sizeof si);
	si.r = r;
	si.fd = fd;
	si.exit_code = REMOTE_EXIT_SOFTWARE;
	si.frame = frame_new(SIGNIN_LINE_MAX);
	si.ev_read = event_new(r->base, fd, EV_READ | EV_PERSIST,
	    signin_read_cb, &si);
	si.timer = evtimer_new(r->base, signin_timeout_cb, &si);
	event_add(si.ev_read, NULL);
	if (strcmp(r->conf->login, "logout") == 0)
		oauth_sign_out(r->oauth, signin_signed_out, &si);
	else
		signin_probe(&si);
	if (!si.done)
		event_base_dispatch(r->base);
	event_free(si.ev_read);
	event_free(si.timer);
	frame_free(si.frame);
	tokens_clear(&si.tok);
	signin_wipe(si.verifier);
	signin_wipe(si.state);
	return (si.exit_code);
}
