/*
 * tokens.c -- the text of a server's token file (see tokens.h).
 *
 * cJSON does the parsing and printing; every string it held is wiped
 * before cJSON_Delete frees it, so no token stays in freed memory.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tokens.h"
#include "util.h"
#include "xmalloc.h"

/* The string members, in the order of the file. */
static const struct {
	const char	*name;
	int		 client;	/* inside "client" */
	int		 required;
	size_t		 offset;
} tokens_fields[] = {
	{ "server_url", 0, 1, offsetof(struct tokens, server_url) },
	{ "resource", 0, 1, offsetof(struct tokens, resource) },
	{ "issuer", 0, 1, offsetof(struct tokens, issuer) },
	{ "token_endpoint", 0, 1, offsetof(struct tokens, token_endpoint) },
	{ "revocation_endpoint", 0, 0,
	  offsetof(struct tokens, revocation_endpoint) },
	{ "client_id", 1, 1, offsetof(struct tokens, client_id) },
	{ "client_secret", 1, 0, offsetof(struct tokens, client_secret) },
	{ "auth_method", 1, 1, offsetof(struct tokens, auth_method) },
	{ "source", 1, 0, offsetof(struct tokens, client_source) },
	{ "access_token", 0, 0, offsetof(struct tokens, access_token) },
	{ "refresh_token", 0, 0, offsetof(struct tokens, refresh_token) },
	{ "scope", 0, 0, offsetof(struct tokens, scope) },
};

#define TOKENS_FIELD(t, i) \
	((char **)((char *)(t) + tokens_fields[i].offset))

static void
tokens_wipe(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* Wipe every string of a cJSON tree. */
static void
tokens_json_wipe(cJSON *json)
{
	cJSON	*v;

	for (v = json != NULL ? json->child : NULL; v != NULL; v = v->next) {
		if (cJSON_IsString(v) && v->valuestring != NULL)
			explicit_bzero(v->valuestring, strlen(v->valuestring));
		else if (cJSON_IsObject(v) || cJSON_IsArray(v))
			tokens_json_wipe(v);
	}
}

static void
tokens_json_delete(cJSON *json)
{
	tokens_json_wipe(json);
	cJSON_Delete(json);
}

void
tokens_clear(struct tokens *t)
{
	size_t	 i;

	for (i = 0; i < nitems(tokens_fields); i++)
		tokens_wipe(*TOKENS_FIELD(t, i));
	memset(t, 0, sizeof *t);
}

void
tokens_copy(struct tokens *to, const struct tokens *from)
{
	size_t	 i;
	char	*s;

	memset(to, 0, sizeof *to);
	for (i = 0; i < nitems(tokens_fields); i++) {
		s = *TOKENS_FIELD(from, i);
		*TOKENS_FIELD(to, i) = s != NULL ? xstrdup(s) : NULL;
	}
	to->expires_at = from->expires_at;
	to->obtained_at = from->obtained_at;
}

/* Printable ASCII (and UTF-8) only: no control characters. */
static int
tokens_string_ok(const char *s)
{
	const unsigned char	*p;

	if (*s == '\0' || strlen(s) > TOKENS_MAX_STRING)
		return (0);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return (0);
	}
	return (1);
}

static int
tokens_time(const cJSON *json, const char *name, int64_t *out)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(json, name);
	if (v == NULL) {
		*out = 0;
		return (0);
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble < 0 || v->valuedouble > 1e12)
		return (-1);
	*out = (int64_t)v->valuedouble;
	return (0);
}

int
tokens_parse(struct tokens *t, const char *text, size_t len, char **err)
{
	cJSON		*json;
	const cJSON	*v, *client, *from;
	size_t		 i;

	memset(t, 0, sizeof *t);
	*err = NULL;
	if (len > TOKENS_MAX_BYTES || memchr(text, '\0', len) != NULL) {
		*err = xstrdup("not a token file (too large, or binary)");
		return (-1);
	}
	json = cJSON_ParseWithLength(text, len);
	if (!cJSON_IsObject(json)) {
		*err = xstrdup("not a JSON object");
		goto fail;
	}
	v = cJSON_GetObjectItemCaseSensitive(json, "mcpd_tokens");
	if (!cJSON_IsNumber(v) || v->valuedouble < 1) {
		*err = xstrdup("no \"mcpd_tokens\" format version");
		goto fail;
	}
	if (v->valuedouble > TOKENS_VERSION) {
		xasprintf(err, "format version %g is newer than this mcpd "
		    "reads (%d)", v->valuedouble, TOKENS_VERSION);
		goto fail;
	}
	client = cJSON_GetObjectItemCaseSensitive(json, "client");
	if (!cJSON_IsObject(client)) {
		*err = xstrdup("no \"client\" object");
		goto fail;
	}
	for (i = 0; i < nitems(tokens_fields); i++) {
		from = tokens_fields[i].client ? client : json;
		v = cJSON_GetObjectItemCaseSensitive(from,
		    tokens_fields[i].name);
		if (v == NULL || cJSON_IsNull(v)) {
			if (tokens_fields[i].required) {
				xasprintf(err, "\"%s\" is missing",
				    tokens_fields[i].name);
				goto fail;
			}
			continue;
		}
		if (!cJSON_IsString(v) || !tokens_string_ok(v->valuestring)) {
			xasprintf(err, "\"%s\" is not a valid string",
			    tokens_fields[i].name);
			goto fail;
		}
		*TOKENS_FIELD(t, i) = xstrdup(v->valuestring);
	}
	if (strcmp(t->auth_method, "none") != 0 &&
	    strcmp(t->auth_method, "client_secret_basic") != 0 &&
	    strcmp(t->auth_method, "client_secret_post") != 0) {
		*err = xstrdup("\"auth_method\" is not none, "
		    "client_secret_basic or client_secret_post");
		goto fail;
	}
	if (strcmp(t->auth_method, "none") != 0 && t->client_secret == NULL) {
		*err = xstrdup("\"client_secret\" is missing for the "
		    "client's auth_method");
		goto fail;
	}
	if (tokens_time(json, "expires_at", &t->expires_at) != 0 ||
	    tokens_time(json, "obtained_at", &t->obtained_at) != 0) {
		*err = xstrdup("\"expires_at\" or \"obtained_at\" is not a "
		    "time");
		goto fail;
	}
	tokens_json_delete(json);
	return (0);

fail:
	tokens_json_delete(json);
	tokens_clear(t);
	return (-1);
}

char *
tokens_format(const struct tokens *t)
{
	cJSON	*json, *client, *to;
	char	*text, *out;
	size_t	 i, len;

	json = cJSON_CreateObject();
	cJSON_AddNumberToObject(json, "mcpd_tokens", TOKENS_VERSION);
	client = NULL;
	for (i = 0; i < nitems(tokens_fields); i++) {
		if (tokens_fields[i].client && client == NULL)
			client = cJSON_AddObjectToObject(json, "client");
		to = tokens_fields[i].client ? client : json;
		if (*TOKENS_FIELD(t, i) != NULL)
			cJSON_AddStringToObject(to, tokens_fields[i].name,
			    *TOKENS_FIELD(t, i));
	}
	cJSON_AddNumberToObject(json, "expires_at", (double)t->expires_at);
	cJSON_AddNumberToObject(json, "obtained_at", (double)t->obtained_at);
	text = cJSON_Print(json);
	tokens_json_delete(json);
	if (text == NULL) {
		fprintf(stderr, "out of memory printing a token file\n");
		abort();
	}
	len = strlen(text);
	out = xmalloc(len + 2);
	memcpy(out, text, len);
	out[len] = '\n';
	out[len + 1] = '\0';
	explicit_bzero(text, len);
	cJSON_free(text);
	return (out);
}
