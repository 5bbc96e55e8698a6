/*
 * modern_input.c -- a server of MCP 2026-07-28 that asks for input, for
 * a 2025 client (modern_input.h; pure: no I/O).
 *
 * What a round may hold is checked here, once: an object of at most
 * MODERN_INPUT_MAX_ASKS requests under distinct keys of at most
 * MODERN_INPUT_KEY_MAX bytes, each {method, params} with a method a
 * 2025 client can be asked (elicitation/create, sampling/createMessage,
 * roots/list) and params an object (roots/list may have none), and a
 * requestState that is a string of at most MODERN_INPUT_STATE_MAX
 * bytes; one of the two at least.  The requestState is the server's,
 * opaque: kept as it came and sent back as it came.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modern_input.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

static const char *const modern_input_methods[] = {
	"elicitation/create",
	"sampling/createMessage",
	"roots/list",
};

static int
modern_input_method_ok(const char *method)
{
	size_t	 i;

	for (i = 0; i < nitems(modern_input_methods); i++)
		if (strcmp(method, modern_input_methods[i]) == 0)
			return (1);
	return (0);
}

void
modern_input_clear(struct modern_input_round *round)
{
	size_t	 i;

	for (i = 0; i < round->nasks; i++) {
		free(round->asks[i].key);
		free(round->asks[i].method);
		free(round->asks[i].params);
	}
	free(round->asks);
	free(round->state);
	memset(round, 0, sizeof *round);
}

/* One entry of inputRequests into the round, or its fault (static). */
static const char *
modern_input_ask(struct modern_input_round *round, const cJSON *entry)
{
	struct modern_input_ask	*ask;
	const cJSON		*method, *params;
	size_t			 i;

	if (strlen(entry->string) > MODERN_INPUT_KEY_MAX)
		return ("a key longer than 256 bytes");
	for (i = 0; i < round->nasks; i++)
		if (strcmp(round->asks[i].key, entry->string) == 0)
			return ("a key twice");
	if (!cJSON_IsObject(entry))
		return ("an input request that is not an object");
	method = cJSON_GetObjectItemCaseSensitive(entry, "method");
	if (!cJSON_IsString(method))
		return ("an input request without a method");
	if (!modern_input_method_ok(method->valuestring))
		return ("a method that is not elicitation/create, "
		    "sampling/createMessage or roots/list");
	params = cJSON_GetObjectItemCaseSensitive(entry, "params");
	if (params != NULL && !cJSON_IsObject(params))
		return ("params that are not an object");
	if (params == NULL && strcmp(method->valuestring, "roots/list") != 0)
		return ("an input request without params");
	round->asks = xreallocarray(round->asks, round->nasks + 1,
	    sizeof *round->asks);
	ask = &round->asks[round->nasks++];
	ask->key = xstrdup(entry->string);
	ask->method = xstrdup(method->valuestring);
	ask->params = params != NULL ? rpc_print(params) : NULL;
	return (NULL);
}

int
modern_input_read(const char *result, size_t len,
    struct modern_input_round *round, char **why)
{
	cJSON		*obj;
	const cJSON	*type, *asks, *state, *entry;
	const char	*fault = NULL;

	memset(round, 0, sizeof *round);
	*why = NULL;
	/* Nearly every result is "complete": parsed only when it may not be. */
	if (!bytes_has(result, len, "\"input_required\"", 16, 1))
		return (0);
	if (len > MODERN_INPUT_PARSE_MAX) {
		xasprintf(why, "an input_required result of %zu bytes, more "
		    "than mcpd reads (%d)", len, MODERN_INPUT_PARSE_MAX);
		return (-1);
	}
	obj = cJSON_ParseWithLength(result, len);
	type = cJSON_GetObjectItemCaseSensitive(obj, "resultType");
	if (!cJSON_IsString(type) ||
	    strcmp(type->valuestring, "input_required") != 0) {
		cJSON_Delete(obj);
		return (0);
	}
	asks = cJSON_GetObjectItemCaseSensitive(obj, "inputRequests");
	state = cJSON_GetObjectItemCaseSensitive(obj, "requestState");
	if (asks != NULL && !cJSON_IsObject(asks))
		fault = "inputRequests that is not an object";
	else if (state != NULL && !cJSON_IsString(state))
		fault = "a requestState that is not a string";
	else if (state != NULL &&
	    strlen(state->valuestring) > MODERN_INPUT_STATE_MAX)
		fault = "a requestState longer than 1 MiB";
	else if (cJSON_GetArraySize(asks) == 0 && state == NULL)
		fault = "neither inputRequests nor a requestState";
	else if (cJSON_GetArraySize(asks) > MODERN_INPUT_MAX_ASKS)
		fault = "more than 16 input requests in one round";
	cJSON_ArrayForEach(entry, asks) {
		if (fault != NULL)
			break;
		fault = modern_input_ask(round, entry);
	}
	if (fault == NULL && state != NULL)
		round->state = xstrdup(state->valuestring);
	cJSON_Delete(obj);
	if (fault != NULL) {
		modern_input_clear(round);
		xasprintf(why, "the server asked for input with %s", fault);
		return (-1);
	}
	return (1);
}

char *
modern_input_names(const struct modern_input_round *round)
{
	char	*s = NULL, *t;
	size_t	 i;

	for (i = 0; i < round->nasks; i++) {
		xasprintf(&t, "%s%s%s \"%.64s\"", s != NULL ? s : "",
		    s != NULL ? ", " : "", round->asks[i].method,
		    round->asks[i].key);
		free(s);
		s = t;
	}
	return (s != NULL ? s : xstrdup("nothing"));
}

char *
modern_input_request(const char *id, size_t id_len,
    const struct modern_input_ask *ask, size_t *len)
{
	char	*line;
	int	 n;

	if (ask->params != NULL)
		n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,"
		    "\"method\":\"%s\",\"params\":%s}", (int)id_len, id,
		    ask->method, ask->params);
	else
		n = xasprintf(&line, "{\"jsonrpc\":\"2.0\",\"id\":%.*s,"
		    "\"method\":\"%s\"}", (int)id_len, id, ask->method);
	*len = (size_t)n;
	return (line);
}

char *
modern_input_retry(const char *line, size_t len, int64_t id,
    const struct modern_input_round *round, char *const *results,
    size_t *outlen)
{
	cJSON	*msg, *params, *responses, *r;
	char	*text = NULL;
	size_t	 i;

	msg = cJSON_ParseWithLength(line, len);
	if (!cJSON_IsObject(msg) || !cJSON_IsString(
	    cJSON_GetObjectItemCaseSensitive(msg, "method")))
		goto fail;
	params = cJSON_GetObjectItemCaseSensitive(msg, "params");
	if (params == NULL)
		params = cJSON_AddObjectToObject(msg, "params");
	if (!cJSON_IsObject(params))
		goto fail;
	cJSON_DeleteItemFromObjectCaseSensitive(msg, "id");
	cJSON_AddItemToObject(msg, "id", cJSON_CreateNumber((double)id));
	cJSON_DeleteItemFromObjectCaseSensitive(params, "inputResponses");
	cJSON_DeleteItemFromObjectCaseSensitive(params, "requestState");
	if (round->nasks > 0) {
		responses = cJSON_AddObjectToObject(params, "inputResponses");
		for (i = 0; i < round->nasks; i++) {
			r = results[i] != NULL ? cJSON_Parse(results[i]) :
			    NULL;
			if (!cJSON_IsObject(r)) {
				cJSON_Delete(r);
				goto fail;
			}
			cJSON_AddItemToObject(responses, round->asks[i].key, r);
		}
	}
	if (round->state != NULL)
		cJSON_AddStringToObject(params, "requestState", round->state);
	text = rpc_print(msg);
	*outlen = strlen(text);
fail:
	cJSON_Delete(msg);
	return (text);
}

char *
modern_input_error(int64_t id, int code, const char *message, size_t *len)
{
	cJSON	*msg, *e;
	char	*text;

	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddNumberToObject(msg, "id", (double)id);
	e = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", message);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	*len = strlen(text);
	return (text);
}
