/*
 * modern_up.c -- a server of MCP 2026-07-28 in the terms of the 2025
 * session mcpd holds with it (modern_up.h; pure: no I/O).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "modern.h"
#include "modern_up.h"
#include "proto.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

#define MODERN_UP_PARSE_MAX	(1024 * 1024)	/* a result looked into */

int
modern_up_refused(const cJSON *error)
{
	const cJSON	*code, *supported, *v;

	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	supported = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(error, "data"), "supported");
	if (!cJSON_IsNumber(code) || code->valuedouble != MODERN_UNSUPPORTED)
		return (0);
	cJSON_ArrayForEach(v, supported) {
		if (cJSON_IsString(v) && strcmp(v->valuestring,
		    MODERN_VERSION) == 0)
			return (1);
	}
	return (0);
}

cJSON *
modern_up_init_result(const cJSON *discover, const char **why)
{
	const cJSON	*versions, *v, *info, *instr;
	cJSON		*r, *caps, *t;
	int		 found = 0;

	if (!cJSON_IsObject(discover)) {
		*why = "server/discover: no result";
		return (NULL);
	}
	versions = cJSON_GetObjectItemCaseSensitive(discover,
	    "supportedVersions");
	cJSON_ArrayForEach(v, versions) {
		if (cJSON_IsString(v) && strcmp(v->valuestring,
		    MODERN_VERSION) == 0)
			found = 1;
	}
	if (!found) {
		*why = "server/discover: supportedVersions lacks 2026-07-28";
		return (NULL);
	}
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "protocolVersion", MODERN_VERSION);
	v = cJSON_GetObjectItemCaseSensitive(discover, "capabilities");
	caps = cJSON_IsObject(v) ? cJSON_Duplicate(v, 1) : cJSON_CreateObject();
	/* 2025's tasks, which mcpd runs (daemon/worker_modern_tasks.c). */
	cJSON_DeleteItemFromObjectCaseSensitive(caps, "tasks");
	t = cJSON_AddObjectToObject(caps, "tasks");
	cJSON_AddObjectToObject(t, "list");
	cJSON_AddObjectToObject(t, "cancel");
	cJSON_AddObjectToObject(cJSON_AddObjectToObject(cJSON_AddObjectToObject(
	    t, "requests"), "tools"), "call");
	cJSON_AddItemToObject(r, "capabilities", caps);
	info = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(discover, "_meta"),
	    MODERN_KEY_SERVER);
	if (cJSON_IsObject(info))
		cJSON_AddItemToObject(r, "serverInfo",
		    cJSON_Duplicate(info, 1));
	else {
		info = cJSON_AddObjectToObject(r, "serverInfo");
		cJSON_AddStringToObject((cJSON *)info, "name", "unnamed");
		cJSON_AddStringToObject((cJSON *)info, "version", "0");
	}
	instr = cJSON_GetObjectItemCaseSensitive(discover, "instructions");
	if (cJSON_IsString(instr))
		cJSON_AddStringToObject(r, "instructions", instr->valuestring);
	return (r);
}

/* An error instead of a result mcpd cannot carry to a 2025 session. */
char *
modern_up_unfit(const char *line, const struct envelope *env)
{
	cJSON		*result, *msg, *e, *ir;
	const cJSON	*type, *r;
	char		*text = NULL, *what = NULL, *t;

	/*
	 * Every 2026 result has a resultType, nearly always "complete":
	 * parsed only when the text holds one of the two it cannot be.
	 */
	if (env->result.len > MODERN_UP_PARSE_MAX ||
	    (!bytes_has(line + env->result.off, env->result.len,
	    "\"input_required\"", 16, 1) && !bytes_has(line +
	    env->result.off, env->result.len, "\"task\"", 6, 1)))
		return (NULL);
	result = cJSON_ParseWithLength(line + env->result.off,
	    env->result.len);
	type = cJSON_GetObjectItemCaseSensitive(result, "resultType");
	if (!cJSON_IsString(type) || (strcmp(type->valuestring,
	    "input_required") != 0 && strcmp(type->valuestring,
	    "task") != 0)) {
		cJSON_Delete(result);
		return (NULL);
	}
	if (strcmp(type->valuestring, "task") == 0)
		what = xstrdup("the server answered with a task (the "
		    "extension io.modelcontextprotocol/tasks), which mcpd does "
		    "not yet pass from a server of MCP 2026-07-28");
	else {
		ir = cJSON_GetObjectItemCaseSensitive(result,
		    "inputRequests");
		cJSON_ArrayForEach(r, ir) {
			const cJSON *m = cJSON_GetObjectItemCaseSensitive(r,
			    "method");
			xasprintf(&t, "%s%s%s", what != NULL ? what : "",
			    what != NULL ? ", " : "", cJSON_IsString(m) ?
			    m->valuestring : "?");
			free(what);
			what = t;
		}
		xasprintf(&t, "the server asked for input (input_required: %s) "
		    "for a request mcpd does not retry: only tools/call, "
		    "prompts/get and resources/read, as many as mcpd keeps, "
		    "are", what != NULL ? what : "none");
		free(what);
		what = t;
	}
	cJSON_Delete(result);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddItemToObject(msg, "id", cJSON_ParseWithLength(line +
	    env->id.off, env->id.len));
	e = cJSON_AddObjectToObject(msg, "error");
	cJSON_AddNumberToObject(e, "code", RPC_INTERNAL_ERROR);
	cJSON_AddStringToObject(e, "message", what);
	free(what);
	text = rpc_print(msg);
	cJSON_Delete(msg);
	return (text);
}

