/*
 * rpc.c -- JSON-RPC 2.0 message helpers (pure).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envelope.h"
#include "proto.h"
#include "rpc.h"
#include "xmalloc.h"

int
rpc_id_valid(const cJSON *id)
{
	return (id != NULL && (cJSON_IsString(id) || cJSON_IsNumber(id) ||
	    cJSON_IsRaw(id)));
}

cJSON *
rpc_id_raw(const char *line, const struct envelope_value *id)
{
	char	*text;
	cJSON	*raw;

	/* A scanned value holds no NUL byte: "\u0000" stays escaped. */
	text = xstrndup(line + id->off, id->len);
	raw = cJSON_CreateRaw(text);
	free(text);
	if (raw == NULL) {
		fprintf(stderr, "out of memory copying an id\n");
		abort();
	}
	return (raw);
}

int
rpc_envelope_has_id(const struct envelope *env)
{
	return (env->id.type == ENVELOPE_STRING ||
	    env->id.type == ENVELOPE_NUMBER);
}

/*
 * Whether the line is one valid JSON value at all, by the same strict
 * scanner: as the value of a member no rule applies to ({"v": LINE}),
 * where neither its type nor its duplicate members matter.
 */
int
rpc_json_valid(const char *line, size_t len)
{
	static const char	 head[] = "{\"v\":";
	struct envelope		 env;
	size_t			 erroff;
	char			*wrapped;
	int			 valid;

	wrapped = xmalloc(sizeof head + len);
	memcpy(wrapped, head, sizeof head - 1);
	memcpy(wrapped + sizeof head - 1, line, len);
	wrapped[sizeof head - 1 + len] = '}';
	valid = envelope_scan(wrapped, sizeof head + len, &env, &erroff) == 0;
	free(wrapped);
	return (valid);
}

int
rpc_scan_error(const char *line, size_t len, size_t erroff, char **message)
{
	if (len > RPC_PARSE_MAX_BYTES) {
		xasprintf(message, "parse error: not one valid JSON-RPC "
		    "message object (byte %zu)", erroff);
		return (RPC_PARSE_ERROR);
	}
	if (!rpc_json_valid(line, len)) {
		xasprintf(message, "parse error: invalid JSON at byte %zu",
		    erroff);
		return (RPC_PARSE_ERROR);
	}
	xasprintf(message, "invalid request: not a JSON-RPC 2.0 message "
	    "object, or a member appears twice (byte %zu)", erroff);
	return (RPC_INVALID_REQUEST);
}

enum rpc_kind
rpc_classify_envelope(const char *line, const struct envelope *env,
    const char **why)
{
	int	 has_id = rpc_envelope_has_id(env);

	if (!envelope_string_eq(line, &env->jsonrpc, "2.0")) {
		*why = "invalid request: \"jsonrpc\" must be \"2.0\"";
		return (RPC_KIND_INVALID);
	}
	if (env->method.type == ENVELOPE_ABSENT) {
		if (has_id && (env->result.type != ENVELOPE_ABSENT) !=
		    (env->error.type != ENVELOPE_ABSENT))
			return (RPC_KIND_RESPONSE);
		*why = "invalid request: not a JSON-RPC 2.0 request, "
		    "notification or response";
		return (RPC_KIND_INVALID);
	}
	if (env->method.type != ENVELOPE_STRING ||
	    (env->id.type != ENVELOPE_ABSENT && !has_id) ||
	    env->result.type != ENVELOPE_ABSENT ||
	    env->error.type != ENVELOPE_ABSENT) {
		*why = "invalid request: method must be a string and id a "
		    "string or a number";
		return (RPC_KIND_INVALID);
	}
	return (has_id ? RPC_KIND_REQUEST : RPC_KIND_NOTIFICATION);
}

enum rpc_kind
rpc_classify(const cJSON *msg)
{
	const cJSON	*method, *id;
	int		 has_result, has_error;

	if (!cJSON_IsObject(msg))
		return (RPC_KIND_INVALID);
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	has_result = cJSON_GetObjectItemCaseSensitive(msg, "result") != NULL;
	has_error = cJSON_GetObjectItemCaseSensitive(msg, "error") != NULL;

	if (method != NULL) {
		if (!cJSON_IsString(method) || has_result || has_error)
			return (RPC_KIND_INVALID);
		if (id == NULL)
			return (RPC_KIND_NOTIFICATION);
		return (rpc_id_valid(id) ? RPC_KIND_REQUEST : RPC_KIND_INVALID);
	}
	if (has_result == has_error || id == NULL)
		return (RPC_KIND_INVALID);
	if (!rpc_id_valid(id) && !(has_error && cJSON_IsNull(id)))
		return (RPC_KIND_INVALID);
	return (RPC_KIND_RESPONSE);
}

static cJSON *
rpc_envelope(void)
{
	cJSON	*msg;

	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	return (msg);
}

static void
rpc_add_id(cJSON *msg, const cJSON *id)
{
	if (id == NULL)
		cJSON_AddNullToObject(msg, "id");
	else
		cJSON_AddItemToObject(msg, "id", cJSON_Duplicate(id, 1));
}

cJSON *
rpc_make_request(const cJSON *id, const char *method, cJSON *params)
{
	cJSON	*msg;

	msg = rpc_envelope();
	rpc_add_id(msg, id);
	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	return (msg);
}

cJSON *
rpc_make_notification(const char *method, cJSON *params)
{
	cJSON	*msg;

	msg = rpc_envelope();
	cJSON_AddStringToObject(msg, "method", method);
	if (params != NULL)
		cJSON_AddItemToObject(msg, "params", params);
	return (msg);
}

cJSON *
rpc_make_result(const cJSON *id, cJSON *result)
{
	cJSON	*msg;

	msg = rpc_envelope();
	rpc_add_id(msg, id);
	cJSON_AddItemToObject(msg, "result",
	    result != NULL ? result : cJSON_CreateObject());
	return (msg);
}

cJSON *
rpc_make_error(const cJSON *id, int code, const char *message, cJSON *data)
{
	cJSON	*msg, *error;

	msg = rpc_envelope();
	rpc_add_id(msg, id);
	error = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(error, "code", code);
	cJSON_AddStringToObject(error, "message", message);
	if (data != NULL)
		cJSON_AddItemToObject(error, "data", data);
	return (msg);
}

char *
rpc_print(const cJSON *msg)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(msg)) == NULL) {
		/* cJSON fails only on allocation failure. */
		s = xstrdup("");
	}
	return (s);
}
