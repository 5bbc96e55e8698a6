/*
 * rconf.c -- mcpd's settings for mcpd-remote, read from JSON (rconf.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "rconf.h"
#include "xmalloc.h"

#define RCONF_DEFAULT_CONNECT_TIMEOUT_MS	10000
#define RCONF_DEFAULT_REQUEST_TIMEOUT_MS	60000
#define RCONF_DEFAULT_MAX_MESSAGE_BYTES		16777216

void
rconf_defaults(struct rconf *rc)
{
	memset(rc, 0, sizeof *rc);
	rc->connect_timeout_ms = RCONF_DEFAULT_CONNECT_TIMEOUT_MS;
	rc->request_timeout_ms = RCONF_DEFAULT_REQUEST_TIMEOUT_MS;
	rc->max_message_bytes = RCONF_DEFAULT_MAX_MESSAGE_BYTES;
}

int
rconf_transport_parse(const char *s, enum rconf_transport *t)
{
	if (strcmp(s, "auto") == 0)
		*t = RCONF_AUTO;
	else if (strcmp(s, "http") == 0 || strcmp(s, "streamable-http") == 0 ||
	    strcmp(s, "streamableHttp") == 0)
		*t = RCONF_HTTP;
	else if (strcmp(s, "sse") == 0)
		*t = RCONF_SSE;
	else
		return (-1);
	return (0);
}

void
rconf_add_header(struct rconf *rc, const char *line)
{
	rc->headers = xreallocarray(rc->headers, rc->nheaders + 2,
	    sizeof *rc->headers);
	rc->headers[rc->nheaders++] = xstrdup(line);
	rc->headers[rc->nheaders] = NULL;
}

static int
rconf_string(const cJSON *obj, const char *key, char **out, char **err)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v == NULL || cJSON_IsNull(v))
		return (0);
	if (!cJSON_IsString(v)) {
		xasprintf(err, "settings: %s: expected a string", key);
		return (-1);
	}
	free(*out);
	*out = xstrdup(v->valuestring);
	return (0);
}

static int
rconf_number(const cJSON *obj, const char *key, double min, double max,
    double *out, char **err)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(obj, key);
	if (v == NULL)
		return (0);
	if (!cJSON_IsNumber(v) || v->valuedouble < min ||
	    v->valuedouble > max) {
		xasprintf(err, "settings: %s: expected a number from %.0f to "
		    "%.0f", key, min, max);
		return (-1);
	}
	*out = v->valuedouble;
	return (0);
}

int
rconf_from_json(struct rconf *rc, const char *text, size_t len, char **err)
{
	cJSON		*root;
	const cJSON	*v, *h, *o;
	char		*t = NULL, *line;
	double		 d;
	int		 rv = -1;

	rconf_defaults(rc);
	*err = NULL;
	root = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(root)) {
		*err = xstrdup("settings: not a JSON object");
		goto out;
	}
	v = cJSON_GetObjectItemCaseSensitive(root, "mcpd_remote");
	if (!cJSON_IsNumber(v) || v->valuedouble < 1) {
		*err = xstrdup("settings: no format version (mcpd_remote)");
		goto out;
	}
	if (v->valuedouble > RCONF_VERSION) {
		xasprintf(err, "settings: format version %.0f is newer than "
		    "this program's (%d): install matching mcpd and "
		    "mcpd-remote", v->valuedouble, RCONF_VERSION);
		goto out;
	}
	if (rconf_string(root, "name", &rc->name, err) == -1 ||
	    rconf_string(root, "url", &rc->url, err) == -1 ||
	    rconf_string(root, "ca_file", &rc->ca_file, err) == -1 ||
	    rconf_string(root, "transport", &t, err) == -1)
		goto out;
	if (rc->url == NULL) {
		*err = xstrdup("settings: no url");
		goto out;
	}
	if (t != NULL && rconf_transport_parse(t, &rc->transport) == -1) {
		xasprintf(err, "settings: transport: unknown \"%s\"", t);
		goto out;
	}
	d = rc->connect_timeout_ms;
	if (rconf_number(root, "connect_timeout_ms", 0, 86400000, &d,
	    err) == -1)
		goto out;
	rc->connect_timeout_ms = d;
	d = rc->request_timeout_ms;
	if (rconf_number(root, "request_timeout_ms", 0, 86400000, &d,
	    err) == -1)
		goto out;
	rc->request_timeout_ms = d;
	d = rc->max_message_bytes;
	if (rconf_number(root, "max_message_bytes", 1024, 1073741824.0, &d,
	    err) == -1)
		goto out;
	rc->max_message_bytes = d;
	h = cJSON_GetObjectItemCaseSensitive(root, "headers");
	if (h != NULL && !cJSON_IsObject(h)) {
		*err = xstrdup("settings: headers: expected an object");
		goto out;
	}
	for (v = h != NULL ? h->child : NULL; v != NULL; v = v->next) {
		if (!cJSON_IsString(v) || strpbrk(v->valuestring, "\r\n") !=
		    NULL || strpbrk(v->string, "\r\n: \t") != NULL ||
		    *v->string == '\0') {
			*err = xstrdup("settings: headers: a bad header");
			goto out;
		}
		xasprintf(&line, "%s: %s", v->string, v->valuestring);
		rconf_add_header(rc, line);
		free(line);
	}
	o = cJSON_GetObjectItemCaseSensitive(root, "oauth");
	if (o != NULL && !cJSON_IsNull(o)) {
		if (!cJSON_IsObject(o)) {
			*err = xstrdup("settings: oauth: expected an object");
			goto out;
		}
		rc->has_oauth = 1;
		if (rconf_string(o, "client_id", &rc->oauth.client_id,
		    err) == -1 ||
		    rconf_string(o, "client_secret", &rc->oauth.client_secret,
		    err) == -1 ||
		    rconf_string(o, "client_secret_file",
		    &rc->oauth.client_secret_file, err) == -1 ||
		    rconf_string(o, "private_key_file",
		    &rc->oauth.private_key_file, err) == -1 ||
		    rconf_string(o, "signing_algorithm",
		    &rc->oauth.signing_algorithm, err) == -1 ||
		    rconf_string(o, "token_url", &rc->oauth.token_url,
		    err) == -1 ||
		    rconf_string(o, "scope", &rc->oauth.scope, err) == -1 ||
		    rconf_string(o, "resource", &rc->oauth.resource,
		    err) == -1 ||
		    rconf_string(o, "jwt_audience", &rc->oauth.jwt_audience,
		    err) == -1 ||
		    rconf_string(o, "grant", &rc->oauth.grant, err) == -1 ||
		    rconf_string(o, "client_metadata_url",
		    &rc->oauth.client_metadata_url, err) == -1)
			goto out;
	}
	if (rconf_string(root, "token_file", &rc->oauth.token_file,
	    err) == -1)
		goto out;
	o = cJSON_GetObjectItemCaseSensitive(root, "login");
	if (o != NULL && !cJSON_IsNull(o)) {
		if (!cJSON_IsObject(o)) {
			*err = xstrdup("settings: login: expected an object");
			goto out;
		}
		if (rconf_string(o, "mode", &rc->login, err) == -1 ||
		    rconf_string(o, "redirect_uri", &rc->redirect_uri,
		    err) == -1 ||
		    rconf_string(o, "scope", &rc->login_scope, err) == -1)
			goto out;
		if (rc->login == NULL || (strcmp(rc->login, "login") != 0 &&
		    strcmp(rc->login, "logout") != 0)) {
			*err = xstrdup("settings: login: mode must be "
			    "\"login\" or \"logout\"");
			goto out;
		}
		if (strcmp(rc->login, "login") == 0 &&
		    rc->redirect_uri == NULL) {
			*err = xstrdup("settings: login: no redirect_uri");
			goto out;
		}
	}
	rv = 0;
out:
	free(t);
	cJSON_Delete(root);
	if (rv == -1)
		rconf_clear(rc);
	return (rv);
}

static void
rconf_free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* Declared in oauth.h; here so that every user of an rconf has it. */
void
oauth_conf_clear(struct oauth_conf *c)
{
	free(c->client_id);
	rconf_free_secret(c->client_secret);
	free(c->client_secret_file);
	free(c->private_key_file);
	free(c->signing_algorithm);
	free(c->token_url);
	free(c->scope);
	free(c->resource);
	free(c->jwt_audience);
	free(c->grant);
	free(c->client_metadata_url);
	free(c->token_file);
	memset(c, 0, sizeof *c);
}

void
rconf_clear(struct rconf *rc)
{
	size_t	i;

	free(rc->name);
	rconf_free_secret(rc->url);
	for (i = 0; i < rc->nheaders; i++)
		rconf_free_secret(rc->headers[i]);
	free(rc->headers);
	free(rc->ca_file);
	oauth_conf_clear(&rc->oauth);
	free(rc->login);
	free(rc->redirect_uri);
	free(rc->login_scope);
	memset(rc, 0, sizeof *rc);
}

/*
 * Expand "${VAR}" from the environment (the command line's values): an
 * unset variable is an error, "$" alone stays.
 */
char *
rconf_expand(const char *s, char **err)
{
	const char	*p, *end, *val;
	char		*out, *name, one[2];
	size_t		 len = 0, cap = strlen(s) + 1;

	out = xmalloc(cap);
	for (p = s; *p != '\0'; p++) {
		val = NULL;
		if (p[0] == '$' && p[1] == '{' &&
		    (end = strchr(p + 2, '}')) != NULL) {
			name = xstrndup(p + 2, end - (p + 2));
			val = getenv(name);
			if (val == NULL) {
				xasprintf(err, "${%s} is not set", name);
				free(name);
				free(out);
				return (NULL);
			}
			free(name);
			p = end;
		}
		if (val == NULL) {
			one[0] = *p;
			one[1] = '\0';
			val = one;
		}
		if (len + strlen(val) + 1 > cap) {
			cap = (len + strlen(val) + 1) * 2;
			out = xrealloc(out, cap);
		}
		memcpy(out + len, val, strlen(val));
		len += strlen(val);
	}
	out[len] = '\0';
	return (out);
}
