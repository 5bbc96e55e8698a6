/*
 * oauth_disc.c -- OAuth discovery (oauth.h says the order): the protected
 * resource metadata (candidate URLs tried in order, a 404 moving on), then
 * the authorization server metadata (likewise), each checked to name what
 * was asked for; its results are kept on the object for the life of the
 * process.  A discovery for a token ends in the token request
 * (oauth_grant.c); any failure ends the fetch (oauth_finish).
 *
 * A server without protected resource metadata (404 at both well-known
 * URLs, none named by its challenge) is one of MCP 2025-03-26: its
 * authorization server is at its origin, the path dropped.  The metadata
 * is looked for there (RFC 8414, with MCP-Protocol-Version: 2025-03-26),
 * its issuer accepted if it has that origin, since no resource metadata
 * named another; without metadata the default endpoints /authorize,
 * /token and /register at the origin are used, as 2025-03-26 says.
 *
 * The discovered metadata, as signin.c reads it, is oauth_meta.
 */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "oauth_int.h"
#include "url.h"
#include "xmalloc.h"

/* The MCP version whose servers have no protected resource metadata. */
#define OAUTH_LEGACY_VERSION	"2025-03-26"

static void	oauth_prm_cb(void *, struct http_req *, enum http_end,
		    const char *, const char *, size_t);
static void	oauth_asm_cb(void *, struct http_req *, enum http_end,
		    const char *, const char *, size_t);
static void	oauth_start_legacy(struct oauth *);
static int	oauth_same_issuer(struct oauth *, const char *, char **);

/* Discovery: fetch the metadata at the current candidate URL. */
static void
oauth_fetch_cand(struct oauth *o, http_fetch_fn cb)
{
	static const char *const headers[] = { "Accept: application/json",
	    NULL };
	/* 2025-03-26: so that the server may answer for that version. */
	static const char *const legacy[] = { "Accept: application/json",
	    "MCP-Protocol-Version: " OAUTH_LEGACY_VERSION, NULL };

	oauth_fetch(o, "GET", o->cand[o->icand], o->legacy ? legacy : headers,
	    NULL, 0, cb);
}

void
oauth_start_discovery(struct oauth *o, const char *resource_metadata)
{
	char	*reason;

	o->step = OAUTH_PRM;
	oauth_clear_cands(o);
	o->legacy = o->defaults = 0;
	o->wellknown = resource_metadata == NULL;
	if (resource_metadata != NULL) {
		if (oauth_url_allowed(o, "resource_metadata URL",
		    resource_metadata, &reason) != 0) {
			oauth_finish(o, reason);
			free(reason);
			return;
		}
		o->cand[0] = xstrdup(resource_metadata);
		o->ncand = 1;
	} else {
		o->ncand = url_prm_candidates(o->server_url, o->cand);
		if (o->ncand == 0) {
			oauth_finish(o, "the server URL is not a valid "
			    "http(s) URL");
			return;
		}
	}
	oauth_fetch_cand(o, oauth_prm_cb);
}

/*
 * The first look at a metadata candidate's answer, the same for both
 * kinds (what): 1 if it is dealt with (the fetch ended elsewhere, or the
 * next candidate asked for after a 404 through again), -1 with *reason
 * if it failed, else 0 with its *status.  *shown: the URL as a reason
 * shows it.
 */
static int
oauth_cand_answer(struct oauth *o, struct http_req *req, enum http_end end,
    const char *error, const char *what, http_fetch_fn again, char **shown,
    long *status, char **reason)
{
	const char	*url;

	if (oauth_fetch_ended(o) != 0)
		return (1);
	url = o->cand[o->icand];
	*shown = oauth_show_url(o, url);
	if ((*reason = oauth_http_failed(o, what, url, end, error)) != NULL)
		return (-1);
	*status = http_status(req);
	if (*status == 404 && o->icand + 1 < o->ncand) {
		o->icand++;
		oauth_fetch_cand(o, again);
		return (1);
	}
	return (0);
}

/* A candidate's body, which must be a JSON object; NULL with *reason. */
static cJSON *
oauth_cand_object(const char *what, const char *shown, const char *body,
    size_t len, char **reason)
{
	cJSON	*json;

	if ((json = oauth_parse_object(body, len)) == NULL)
		xasprintf(reason, "%s %s: not a JSON object", what, shown);
	return (json);
}

static void
oauth_prm_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const char	*resource;
	const cJSON	*servers, *first;
	cJSON		*json = NULL;
	char		*reason = NULL, *shown = NULL, *quoted = NULL;
	long		 status;

	oauth_enter(o);
	switch (oauth_cand_answer(o, req, end, error,
	    "protected resource metadata", oauth_prm_cb, &shown, &status,
	    &reason)) {
	case 1:
		goto out;
	case -1:
		goto fail;
	}
	if (status == 404 && o->wellknown) {
		oauth_start_legacy(o);
		goto out;
	}
	if (status != 200) {
		xasprintf(&reason, "protected resource metadata (HTTP %ld at "
		    "%s)", status, shown);
		goto fail;
	}
	if ((json = oauth_cand_object("protected resource metadata", shown,
	    body, len, &reason)) == NULL)
		goto fail;
	resource = oauth_json_string(json, "resource");
	if (resource == NULL) {
		xasprintf(&reason, "protected resource metadata %s has no "
		    "\"resource\"", shown);
		goto fail;
	}
	/* At the root well-known URL the origin names it too (url.h). */
	if (!url_resource_matches(resource, o->server_url) &&
	    !(o->wellknown && o->icand + 1 == o->ncand &&
	    url_resource_is_origin(resource, o->server_url))) {
		quoted = oauth_quote(o, resource);
		free(shown);
		shown = oauth_show_url(o, o->server_url);
		xasprintf(&reason, "refusing the protected resource metadata: "
		    "its resource \"%s\" is not the server URL %s", quoted,
		    shown);
		goto fail;
	}
	servers = cJSON_GetObjectItemCaseSensitive(json,
	    "authorization_servers");
	first = cJSON_IsArray(servers) ? cJSON_GetArrayItem(servers, 0) : NULL;
	if (!cJSON_IsString(first) || first->valuestring == NULL) {
		xasprintf(&reason, "protected resource metadata %s names no "
		    "authorization server", shown);
		goto fail;
	}
	if (oauth_url_allowed(o, "authorization server", first->valuestring,
	    &reason) != 0 ||
	    oauth_same_issuer(o, first->valuestring, &reason) != 0)
		goto fail;
	free(o->issuer);
	o->issuer = xstrdup(first->valuestring);
	free(o->scopes_supported);
	o->scopes_supported = oauth_join_scopes(
	    cJSON_GetObjectItemCaseSensitive(json, "scopes_supported"));

	oauth_clear_cands(o);
	o->step = OAUTH_ASM;
	o->ncand = url_asm_candidates(o->issuer, o->cand);
	if (o->ncand == 0) {
		quoted = oauth_quote(o, o->issuer);
		xasprintf(&reason, "authorization server \"%s\" is not a "
		    "valid issuer URL", quoted);
		goto fail;
	}
	oauth_fetch_cand(o, oauth_asm_cb);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	cJSON_Delete(json);
	free(reason);
	free(shown);
	free(quoted);
	oauth_leave(o);
}

/* An optional endpoint of the metadata: NULL if absent, -1 if refused. */
static int
oauth_asm_endpoint(struct oauth *o, const cJSON *json, const char *name,
    char **out, char **reason)
{
	const char	*v;

	free(*out);
	*out = NULL;
	if ((v = oauth_json_string(json, name)) == NULL)
		return (0);
	if (oauth_url_allowed(o, name, v, reason) != 0)
		return (-1);
	*out = xstrdup(v);
	return (0);
}

/* What a sign-in needs beyond the token endpoint. */
static int
oauth_asm_more(struct oauth *o, const cJSON *json, char **reason)
{
	const cJSON	*v, *list;
	char		*scopes;

	if (oauth_asm_endpoint(o, json, "authorization_endpoint",
	    &o->authorization_endpoint, reason) != 0 ||
	    oauth_asm_endpoint(o, json, "registration_endpoint",
	    &o->registration_endpoint, reason) != 0 ||
	    oauth_asm_endpoint(o, json, "revocation_endpoint",
	    &o->revocation_endpoint, reason) != 0)
		return (-1);
	list = cJSON_GetObjectItemCaseSensitive(json,
	    "code_challenge_methods_supported");
	o->pkce_listed = cJSON_IsArray(list);
	o->pkce_s256 = 0;
	if (!o->pkce_listed)
		list = NULL;
	cJSON_ArrayForEach(v, list) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "S256") == 0)
			o->pkce_s256 = 1;
	}
	o->cimd = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(json,
	    "client_id_metadata_document_supported"));
	o->method_none = 0;
	list = cJSON_GetObjectItemCaseSensitive(json,
	    "token_endpoint_auth_methods_supported");
	if (!cJSON_IsArray(list))
		list = NULL;
	cJSON_ArrayForEach(v, list) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "none") == 0)
			o->method_none = 1;
	}
	/* The resource's scopes first; the server's if it lists none. */
	if (o->scopes_supported == NULL && (scopes = oauth_join_scopes(
	    cJSON_GetObjectItemCaseSensitive(json, "scopes_supported"))) !=
	    NULL)
		o->scopes_supported = scopes;
	return (0);
}

/* A sign-in's tokens never go to another authorization server. */
static int
oauth_same_issuer(struct oauth *o, const char *issuer, char **reason)
{
	char	*now, *was;

	if (!o->code || o->goal != OAUTH_GOAL_TOKEN || o->tok.issuer == NULL ||
	    strcmp(issuer, o->tok.issuer) == 0)
		return (0);
	now = oauth_quote(o, issuer);
	was = oauth_quote(o, o->tok.issuer);
	xasprintf(reason, "the server now names the authorization server "
	    "\"%s\", not \"%s\" that issued the sign-in's tokens: sign in "
	    "again", now, was);
	free(now);
	free(was);
	o->needs_login = 1;
	return (-1);
}

/*
 * MCP 2025-03-26 (see the top): the authorization server at the server's
 * origin, its metadata at the well-known URLs there.
 */
static void
oauth_start_legacy(struct oauth *o)
{
	char	*reason = NULL;

	oauth_clear_cands(o);
	o->legacy = 1;
	o->step = OAUTH_ASM;
	free(o->scopes_supported);
	o->scopes_supported = NULL;
	free(o->issuer);
	if ((o->issuer = url_origin(o->server_url)) == NULL) {
		oauth_finish(o, "the server URL is not a valid http(s) URL");
		return;
	}
	if (oauth_url_allowed(o, "authorization server", o->issuer,
	    &reason) != 0) {
		oauth_finish(o, reason);
		free(reason);
		return;
	}
	o->ncand = url_asm_candidates(o->issuer, o->cand);
	oauth_fetch_cand(o, oauth_asm_cb);
}

/*
 * 2025-03-26 without metadata: the default endpoints at the origin.
 * Nothing is listed, so PKCE is S256, which OAuth 2.1 makes mandatory
 * for the server to implement.
 */
static void
oauth_legacy_defaults(struct oauth *o)
{
	free(o->authorization_endpoint);
	free(o->token_url);
	free(o->registration_endpoint);
	free(o->revocation_endpoint);
	free(o->methods_text);
	xasprintf(&o->authorization_endpoint, "%s/authorize", o->issuer);
	xasprintf(&o->token_url, "%s/token", o->issuer);
	xasprintf(&o->registration_endpoint, "%s/register", o->issuer);
	o->revocation_endpoint = NULL;
	o->methods_text = NULL;
	o->methods_listed = o->method_basic = o->method_post = 0;
	o->method_jwt = o->method_none = 0;
	o->pkce_listed = o->pkce_s256 = o->cimd = 0;
	o->defaults = 1;
}

/* Discovery is done: the token, or signin.c's next step. */
static void
oauth_discovered(struct oauth *o)
{
	o->discovered = 1;
	oauth_clear_cands(o);
	if (o->goal == OAUTH_GOAL_DISCOVER)
		oauth_finish(o, NULL);
	else
		oauth_token_request(o);
}

static void
oauth_asm_cb(void *arg, struct http_req *req, enum http_end end,
    const char *error, const char *body, size_t len)
{
	struct oauth	*o = arg;
	const char	*issuer, *token_url;
	const cJSON	*methods, *v;
	cJSON		*json = NULL;
	char		*reason = NULL, *shown = NULL, *quoted = NULL, *next;
	long		 status;

	oauth_enter(o);
	switch (oauth_cand_answer(o, req, end, error,
	    "authorization server metadata", oauth_asm_cb, &shown, &status,
	    &reason)) {
	case 1:
		goto out;
	case -1:
		goto fail;
	}
	if (status == 404 && o->legacy) {
		if (oauth_same_issuer(o, o->issuer, &reason) != 0)
			goto fail;
		oauth_legacy_defaults(o);
		oauth_discovered(o);
		goto out;
	}
	if (status == 404) {
		free(shown);
		shown = oauth_show_url(o, o->issuer);
		xasprintf(&reason, "no authorization server metadata for %s "
		    "(HTTP 404 at each of its %zu well-known URLs)", shown,
		    o->ncand);
		goto fail;
	}
	if (status != 200) {
		xasprintf(&reason, "authorization server metadata %s: HTTP "
		    "%ld", shown, status);
		goto fail;
	}
	if ((json = oauth_cand_object("authorization server metadata", shown,
	    body, len, &reason)) == NULL)
		goto fail;
	issuer = oauth_json_string(json, "issuer");
	if (o->legacy && issuer != NULL &&
	    url_same_origin(issuer, o->server_url)) {
		/* 2025-03-26: any issuer of the origin asked (see above). */
		free(o->issuer);
		o->issuer = xstrdup(issuer);
		if (oauth_same_issuer(o, issuer, &reason) != 0)
			goto fail;
	} else if (issuer == NULL || strcmp(issuer, o->issuer) != 0) {
		quoted = oauth_quote(o, issuer != NULL ? issuer : "(none)");
		free(shown);
		shown = oauth_quote(o, o->issuer);
		xasprintf(&reason, "refusing the authorization server metadata: "
		    "its issuer \"%s\" is not %s\"%s\", the authorization "
		    "server %s", quoted, o->legacy ? "at the origin of " : "",
		    shown, o->legacy ? "of a server without protected "
		    "resource metadata (MCP 2025-03-26)" : "the resource names");
		goto fail;
	}
	token_url = oauth_json_string(json, "token_endpoint");
	if (token_url == NULL) {
		xasprintf(&reason, "authorization server metadata %s has no "
		    "token_endpoint", shown);
		goto fail;
	}
	if (oauth_url_allowed(o, "token endpoint", token_url, &reason) != 0)
		goto fail;

	free(o->token_url);
	o->token_url = xstrdup(token_url);
	free(o->methods_text);
	o->methods_text = NULL;
	o->method_basic = o->method_post = o->method_jwt = 0;
	methods = cJSON_GetObjectItemCaseSensitive(json,
	    "token_endpoint_auth_methods_supported");
	o->methods_listed = cJSON_IsArray(methods);
	if (o->methods_listed) {
		cJSON_ArrayForEach(v, methods) {
			if (!cJSON_IsString(v))
				continue;
			if (strcmp(v->valuestring, "client_secret_basic") == 0)
				o->method_basic = 1;
			else if (strcmp(v->valuestring,
			    "client_secret_post") == 0)
				o->method_post = 1;
			else if (strcmp(v->valuestring, "private_key_jwt") == 0)
				o->method_jwt = 1;
			if (o->methods_text != NULL &&
			    strlen(o->methods_text) > OAUTH_MAX_QUOTE_BYTES)
				continue;
			free(quoted);
			quoted = oauth_quote(o, v->valuestring);
			if (o->methods_text == NULL)
				o->methods_text = xstrdup(quoted);
			else {
				xasprintf(&next, "%s, %s", o->methods_text,
				    quoted);
				free(o->methods_text);
				o->methods_text = next;
			}
		}
	}
	if (oauth_asm_more(o, json, &reason) != 0)
		goto fail;
	oauth_discovered(o);
	goto out;

fail:
	oauth_finish(o, reason);
out:
	cJSON_Delete(json);
	free(reason);
	free(shown);
	free(quoted);
	oauth_leave(o);
}

const struct oauth_meta *
oauth_meta(const struct oauth *o)
{
	struct oauth_meta	*m = (struct oauth_meta *)&o->meta;

	memset(m, 0, sizeof *m);
	m->issuer = o->issuer;
	m->authorization_endpoint = o->authorization_endpoint;
	m->token_endpoint = o->token_url;
	m->registration_endpoint = o->registration_endpoint;
	m->revocation_endpoint = o->revocation_endpoint;
	m->scope = o->challenge_scope != NULL ? o->challenge_scope :
	    o->scopes_supported;
	m->resource = o->resource;
	m->pkce_listed = o->pkce_listed;
	m->pkce_s256 = o->pkce_s256;
	m->defaults = o->defaults;
	m->cimd = o->cimd;
	m->methods_listed = o->methods_listed;
	m->method_none = o->method_none;
	m->method_basic = o->method_basic;
	m->method_post = o->method_post;
	return (m);
}
