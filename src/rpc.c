/*
 * rpc.c -- JSON-RPC 2.0 message helpers (pure).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rpc.h"
#include "xmalloc.h"

int
rpc_id_valid(const cJSON *id)
{
	return (id != NULL && (cJSON_IsString(id) || cJSON_IsNumber(id)));
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
