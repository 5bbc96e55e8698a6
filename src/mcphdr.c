/*
 * mcphdr.c -- the request metadata of MCP 2026-07-28's Streamable HTTP:
 * header values, which request names what, what a broken stream allows,
 * a refusal's body as a JSON-RPC error (see mcphdr.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "mcphdr.h"
#include "modern.h"
#include "util.h"
#include "xmalloc.h"

#define SENTINEL_HEAD	"=?base64?"
#define SENTINEL_TAIL	"?="

int
mcphdr_safe(const char *v, size_t len)
{
	size_t	i;
	unsigned char c;

	if (len == 0 || v[0] == ' ' || v[0] == '\t' || v[len - 1] == ' ' ||
	    v[len - 1] == '\t')
		return (0);
	for (i = 0; i < len; i++) {
		c = (unsigned char)v[i];
		if ((c < 0x20 && c != '\t') || c > 0x7e)
			return (0);
	}
	if (len >= sizeof SENTINEL_HEAD - 1 + sizeof SENTINEL_TAIL - 1 &&
	    memcmp(v, SENTINEL_HEAD, sizeof SENTINEL_HEAD - 1) == 0 &&
	    memcmp(v + len - (sizeof SENTINEL_TAIL - 1), SENTINEL_TAIL,
	    sizeof SENTINEL_TAIL - 1) == 0)
		return (0);
	return (1);
}

char *
mcphdr_value(const char *text, size_t len)
{
	char	*b64, *out;

	if (mcphdr_safe(text, len))
		return (xstrndup(text, len));
	b64 = b64_encode(text, len);
	xasprintf(&out, SENTINEL_HEAD "%s" SENTINEL_TAIL, b64);
	free(b64);
	return (out);
}

const char *
mcphdr_name_member(const char *method)
{
	if (method == NULL)
		return (NULL);
	if (strcmp(method, "tools/call") == 0 ||
	    strcmp(method, "prompts/get") == 0)
		return ("name");
	if (strcmp(method, "resources/read") == 0)
		return ("uri");
	return (NULL);
}

enum mcphdr_retry
mcphdr_retry(const char *method)
{
	static const char *const again[] = { "server/discover",
	    "resources/read", "prompts/get", "completion/complete" };
	size_t	i, n;

	if (method == NULL)
		return (MCPHDR_NEVER);
	if (strcmp(method, "subscriptions/listen") == 0)
		return (MCPHDR_REOPEN);
	for (i = 0; i < nitems(again); i++) {
		if (strcmp(method, again[i]) == 0)
			return (MCPHDR_RESEND);
	}
	n = strlen(method);
	if (n > 5 && strcmp(method + n - 5, "/list") == 0)
		return (MCPHDR_RESEND);
	return (MCPHDR_NEVER);
}

/* The versions a refusal of initialize names: the remote's, or ours. */
static cJSON *
mcphdr_supported(const cJSON *error)
{
	const cJSON	*list, *v;
	cJSON		*out;

	list = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(error, "data"), "supported");
	out = cJSON_CreateArray();
	cJSON_ArrayForEach(v, list) {
		if (cJSON_IsString(v) && strlen(v->valuestring) > 0 &&
		    strlen(v->valuestring) <= MCPHDR_VERSION_MAX)
			cJSON_AddItemToArray(out,
			    cJSON_CreateString(v->valuestring));
	}
	if (cJSON_GetArraySize(out) == 0)
		cJSON_AddItemToArray(out, cJSON_CreateString(MODERN_VERSION));
	return (out);
}

char *
mcphdr_error(const char *body, size_t len, const char *id, int init)
{
	cJSON		*msg, *err, *out, *e, *data;
	const cJSON	*code, *text, *d;
	char		*printed, *line = NULL;

	if (body == NULL || len == 0)
		return (NULL);
	msg = cJSON_ParseWithLength(body, len);
	err = cJSON_GetObjectItemCaseSensitive(msg, "error");
	code = cJSON_GetObjectItemCaseSensitive(err, "code");
	text = cJSON_GetObjectItemCaseSensitive(err, "message");
	if (!cJSON_IsObject(msg) || !cJSON_IsObject(err) ||
	    !cJSON_IsNumber(code) || !cJSON_IsString(text) ||
	    code->valuedouble != (double)code->valueint) {
		cJSON_Delete(msg);
		return (NULL);
	}
	if (init && (code->valueint > -32020 || code->valueint < -32022)) {
		cJSON_Delete(msg);
		return (NULL);
	}
	e = cJSON_CreateObject();
	if (init) {
		cJSON_AddNumberToObject(e, "code", MODERN_UNSUPPORTED);
		cJSON_AddStringToObject(e, "message", text->valuestring);
		data = cJSON_AddObjectToObject(e, "data");
		cJSON_AddItemToObject(data, "supported", mcphdr_supported(err));
	} else {
		cJSON_AddNumberToObject(e, "code", code->valueint);
		cJSON_AddStringToObject(e, "message", text->valuestring);
		if ((d = cJSON_GetObjectItemCaseSensitive(err, "data")) != NULL)
			cJSON_AddItemToObject(e, "data",
			    cJSON_Duplicate(d, 1));
	}
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "jsonrpc", "2.0");
	cJSON_AddRawToObject(out, "id", id);
	cJSON_AddItemToObject(out, "error", e);
	printed = cJSON_PrintUnformatted(out);
	if (printed != NULL) {
		line = xstrdup(printed);
		cJSON_free(printed);
	}
	cJSON_Delete(out);
	cJSON_Delete(msg);
	return (line);
}
