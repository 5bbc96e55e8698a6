/*
 * modern.c -- MCP 2026-07-28 messages in mcpd's terms (modern.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "envelope.h"
#include "modern.h"
#include "xmalloc.h"

static const struct {
	const char		*name;
	enum modern_method	 m;
} modern_methods[] = {
	{ "tools/call", MODERN_M_INPUT },
	{ "prompts/get", MODERN_M_INPUT },
	{ "resources/read", MODERN_M_READ },
	{ "tools/list", MODERN_M_LIST },
	{ "prompts/list", MODERN_M_LIST },
	{ "resources/list", MODERN_M_LIST },
	{ "resources/templates/list", MODERN_M_LIST },
	{ "server/discover", MODERN_M_DISCOVER },
	{ "subscriptions/listen", MODERN_M_LISTEN },
	{ "ping", MODERN_M_GONE },
	{ "logging/setLevel", MODERN_M_GONE },
	{ "initialize", MODERN_M_GONE },
	{ "resources/subscribe", MODERN_M_GONE },
	{ "resources/unsubscribe", MODERN_M_GONE },
	{ "tasks/result", MODERN_M_GONE },
	{ "tasks/list", MODERN_M_GONE },
	{ "tasks/get", MODERN_M_TASK_GET },
	{ "tasks/update", MODERN_M_TASK_UPDATE },
	{ "tasks/cancel", MODERN_M_TASK_CANCEL },
};

enum modern_method
modern_method(const char *line, const struct envelope_value *method)
{
	size_t	 i;

	if (method->type != ENVELOPE_STRING)
		return (MODERN_M_OTHER);
	if (method->len > 6 && memcmp(line + method->off, "\"mcpd/", 6) == 0)
		return (MODERN_M_MCPD);
	/* Without an escape, the bytes are the name: compared as they are. */
	if (method->plain) {
		for (i = 0; i < sizeof modern_methods /
		    sizeof modern_methods[0]; i++) {
			if (strlen(modern_methods[i].name) == method->len - 2 &&
			    memcmp(line + method->off + 1,
			    modern_methods[i].name, method->len - 2) == 0)
				return (modern_methods[i].m);
		}
		return (MODERN_M_OTHER);
	}
	for (i = 0; i < sizeof modern_methods / sizeof modern_methods[0];
	    i++) {
		if (envelope_string_eq_text(line, method,
		    modern_methods[i].name))
			return (modern_methods[i].m);
	}
	return (MODERN_M_OTHER);
}

unsigned int
modern_caps_can(const cJSON *caps)
{
	const cJSON	*ext;
	unsigned int	 can = 0;

	if (!cJSON_IsObject(caps))
		return (0);
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps,
	    "elicitation")))
		can |= MODERN_CAN_ELICIT;
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps,
	    "sampling")))
		can |= MODERN_CAN_SAMPLING;
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, "roots")))
		can |= MODERN_CAN_ROOTS;
	ext = cJSON_GetObjectItemCaseSensitive(caps, "extensions");
	if (cJSON_IsObject(ext) && cJSON_IsObject(
	    cJSON_GetObjectItemCaseSensitive(ext, MODERN_EXT_TASKS)))
		can |= MODERN_CAN_TASKS;
	return (can);
}

int
modern_meta_read(const char *line, const struct envelope *env,
    struct modern_meta *mm, cJSON **caps, cJSON **info)
{
	cJSON		*meta;
	const cJSON	*v;

	memset(mm, 0, sizeof *mm);
	if (caps != NULL)
		*caps = NULL;
	if (info != NULL)
		*info = NULL;
	if (env->meta.type == ENVELOPE_ABSENT)
		return (0);
	if (env->meta.type != ENVELOPE_OBJECT)
		return (-1);
	meta = cJSON_ParseWithLength(line + env->meta.off, env->meta.len);
	if (!cJSON_IsObject(meta)) {
		cJSON_Delete(meta);
		return (-1);
	}
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_VERSION);
	if (v != NULL) {
		mm->versioned = 1;
		if (cJSON_IsString(v)) {
			snprintf(mm->version, sizeof mm->version, "%s",
			    v->valuestring);
			mm->version_ok = strcmp(v->valuestring,
			    MODERN_VERSION) == 0;
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_LEVEL);
	if (cJSON_IsString(v) && strlen(v->valuestring) < sizeof mm->level)
		strcpy(mm->level, v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_CAPS);
	mm->can = modern_caps_can(v);
	if (caps != NULL && cJSON_IsObject(v))
		*caps = cJSON_DetachItemFromObjectCaseSensitive(meta,
		    MODERN_KEY_CAPS);
	v = cJSON_GetObjectItemCaseSensitive(meta, MODERN_KEY_INFO);
	if (info != NULL && cJSON_IsObject(v))
		*info = cJSON_DetachItemFromObjectCaseSensitive(meta,
		    MODERN_KEY_INFO);
	cJSON_Delete(meta);
	return (0);
}

int
modern_opens(const char *line, const struct envelope *env)
{
	static const char	 key[] = "\"" MODERN_KEY_VERSION "\"";
	const char		*p, *end;

	if (env->method.type != ENVELOPE_STRING)
		return (0);
	if (envelope_string_eq(line, &env->method, "server/discover"))
		return (1);
	if (env->meta.type != ENVELOPE_OBJECT)
		return (0);
	/* The key as 2026 clients write it; escapes are not looked for. */
	p = line + env->meta.off;
	end = p + env->meta.len;
	return (memmem(p, (size_t)(end - p), key, sizeof key - 1) != NULL);
}

cJSON *
modern_initialize_params(const cJSON *caps, const cJSON *info)
{
	cJSON		*params, *c;
	const cJSON	*v;

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", "2025-11-25");
	c = cJSON_AddObjectToObject(params, "capabilities");
	if (cJSON_IsObject(caps)) {
		v = cJSON_GetObjectItemCaseSensitive(caps, "elicitation");
		if (cJSON_IsObject(v))
			cJSON_AddItemToObject(c, "elicitation",
			    cJSON_Duplicate(v, 1));
		v = cJSON_GetObjectItemCaseSensitive(caps, "sampling");
		if (cJSON_IsObject(v))
			cJSON_AddItemToObject(c, "sampling",
			    cJSON_Duplicate(v, 1));
	}
	if (cJSON_IsObject(info))
		cJSON_AddItemToObject(params, "clientInfo",
		    cJSON_Duplicate(info, 1));
	else {
		c = cJSON_AddObjectToObject(params, "clientInfo");
		cJSON_AddStringToObject(c, "name", "unnamed 2026 client");
		cJSON_AddStringToObject(c, "version", "0");
	}
	return (params);
}

char *
modern_discover_result(const cJSON *init)
{
	cJSON		*r, *caps, *meta;
	const cJSON	*v;
	char		*text;

	if (!cJSON_IsObject(init))
		return (NULL);
	r = cJSON_CreateObject();
	cJSON_AddItemToObject(r, "supportedVersions",
	    cJSON_Parse(MODERN_SUPPORTED_JSON));
	v = cJSON_GetObjectItemCaseSensitive(init, "capabilities");
	caps = cJSON_IsObject(v) ? cJSON_Duplicate(v, 1) :
	    cJSON_CreateObject();
	/* 2025's tasks are not 2026's: those are an extension. */
	cJSON_DeleteItemFromObjectCaseSensitive(caps, "tasks");
	cJSON_AddItemToObject(r, "capabilities", caps);
	v = cJSON_GetObjectItemCaseSensitive(init, "instructions");
	if (cJSON_IsString(v))
		cJSON_AddStringToObject(r, "instructions", v->valuestring);
	v = cJSON_GetObjectItemCaseSensitive(init, "serverInfo");
	if (cJSON_IsObject(v)) {
		meta = cJSON_AddObjectToObject(r, "_meta");
		cJSON_AddItemToObject(meta, MODERN_KEY_SERVER,
		    cJSON_Duplicate(v, 1));
	}
	cJSON_AddStringToObject(r, "resultType", "complete");
	cJSON_AddNumberToObject(r, "ttlMs", 0);
	cJSON_AddStringToObject(r, "cacheScope", "private");
	text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	if (text == NULL)
		abort();	/* cJSON fails only when memory does */
	return (text);
}

char *
modern_unsupported_data(const char *requested)
{
	cJSON	*d;
	char	*text;

	d = cJSON_CreateObject();
	cJSON_AddItemToObject(d, "supported",
	    cJSON_Parse(MODERN_SUPPORTED_JSON));
	if (requested != NULL)
		cJSON_AddStringToObject(d, "requested", requested);
	else
		cJSON_AddNullToObject(d, "requested");
	text = cJSON_PrintUnformatted(d);
	cJSON_Delete(d);
	if (text == NULL)
		abort();	/* cJSON fails only when memory does */
	return (text);
}

const char *
modern_result_tail(enum modern_method m, int comma, size_t *len)
{
	static const char	 plain[] = ",\"resultType\":\"complete\"";
	static const char	 cached[] = ",\"resultType\":\"complete\","
	    "\"ttlMs\":0,\"cacheScope\":\"private\"";
	const char		*t;

	if (m == MODERN_M_LIST || m == MODERN_M_READ || m ==
	    MODERN_M_DISCOVER) {
		t = cached;
		*len = sizeof cached - 1;
	} else {
		t = plain;
		*len = sizeof plain - 1;
	}
	if (!comma) {
		t++;
		(*len)--;
	}
	return (t);
}

long
modern_tail_at(const char *line, size_t off, size_t len, int *empty)
{
	size_t	 i;

	if (len < 2 || line[off] != '{' || line[off + len - 1] != '}')
		return (-1);
	*empty = 1;
	for (i = off + 1; i < off + len - 1; i++) {
		if (!isspace((unsigned char)line[i])) {
			*empty = 0;
			break;
		}
	}
	return ((long)(off + len - 1));
}

char *
modern_input_result(cJSON *requests, const char *state)
{
	cJSON	*r;
	char	*text;

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "resultType", "input_required");
	cJSON_AddItemToObject(r, "inputRequests", requests);
	cJSON_AddStringToObject(r, "requestState", state);
	text = cJSON_PrintUnformatted(r);
	cJSON_Delete(r);
	if (text == NULL)
		abort();	/* cJSON fails only when memory does */
	return (text);
}

/* Does the server's initialize result have capabilities.cap.member? */
static int
modern_server_has(const cJSON *init, const char *cap, const char *member)
{
	const cJSON	*c;

	c = cJSON_GetObjectItemCaseSensitive(init, "capabilities");
	c = cJSON_GetObjectItemCaseSensitive(c, cap);
	if (!cJSON_IsObject(c))
		return (0);
	return (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, member)));
}

/* taskIds, as asked. */
static int
modern_filter_tasks(const cJSON *n, struct modern_filter *f,
    const char **why)
{
	const cJSON	*v, *t;
	size_t		 count;

	v = cJSON_GetObjectItemCaseSensitive(n, "taskIds");
	if (v == NULL)
		return (0);
	if (!cJSON_IsArray(v) || (count = (size_t)cJSON_GetArraySize(v)) >
	    MODERN_LISTEN_MAX_URIS) {
		*why = "params.notifications.taskIds is not an array of at "
		    "most 256 task ids";
		return (-1);
	}
	cJSON_ArrayForEach(t, v) {
		if (!cJSON_IsString(t) || t->valuestring[0] == '\0' ||
		    strlen(t->valuestring) >= MODERN_LISTEN_URI_MAX) {
			*why = "params.notifications.taskIds holds something "
			    "that is not a task id";
			return (-1);
		}
	}
	f->tasks = xcalloc(count == 0 ? 1 : count, sizeof *f->tasks);
	cJSON_ArrayForEach(t, v) {
		if (!modern_filter_has_task(f, t->valuestring))
			f->tasks[f->ntasks++] = xstrdup(t->valuestring);
	}
	return (0);
}

int
modern_filter_read(const cJSON *params, const cJSON *init,
    struct modern_filter *f, const char **why)
{
	const cJSON	*n, *v, *u;
	static const struct {
		const char	*key, *cap;
		unsigned int	 kind;
	} kinds[] = {
		{ "toolsListChanged", "tools", MODERN_LISTEN_TOOLS },
		{ "promptsListChanged", "prompts", MODERN_LISTEN_PROMPTS },
		{ "resourcesListChanged", "resources",
		  MODERN_LISTEN_RESOURCES },
	};
	size_t		 i, n_uris;

	memset(f, 0, sizeof *f);
	n = cJSON_GetObjectItemCaseSensitive(params, "notifications");
	if (n == NULL) {
		*why = "params.notifications is missing";
		return (-1);
	}
	if (!cJSON_IsObject(n)) {
		*why = "params.notifications is not an object";
		return (-1);
	}
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		v = cJSON_GetObjectItemCaseSensitive(n, kinds[i].key);
		if (v != NULL && !cJSON_IsBool(v)) {
			*why = "a list-change member of params.notifications "
			    "is not a boolean";
			return (-1);
		}
		if (cJSON_IsTrue(v) && modern_server_has(init, kinds[i].cap,
		    "listChanged"))
			f->kinds |= kinds[i].kind;
	}
	if (modern_filter_tasks(n, f, why) != 0)
		return (-1);
	v = cJSON_GetObjectItemCaseSensitive(n, "resourceSubscriptions");
	if (v == NULL)
		return (0);
	if (!cJSON_IsArray(v)) {
		*why = "params.notifications.resourceSubscriptions is not an "
		    "array";
		modern_filter_clear(f);
		return (-1);
	}
	n_uris = (size_t)cJSON_GetArraySize(v);
	if (n_uris > MODERN_LISTEN_MAX_URIS) {
		*why = "params.notifications.resourceSubscriptions names "
		    "more than 256 URIs";
		modern_filter_clear(f);
		return (-1);
	}
	cJSON_ArrayForEach(u, v) {
		if (!cJSON_IsString(u) || u->valuestring[0] == '\0' ||
		    strlen(u->valuestring) >= MODERN_LISTEN_URI_MAX) {
			*why = "params.notifications.resourceSubscriptions "
			    "holds something that is not a URI";
			modern_filter_clear(f);
			return (-1);
		}
	}
	if (!modern_server_has(init, "resources", "subscribe"))
		return (0);
	f->uris = xcalloc(n_uris == 0 ? 1 : n_uris, sizeof *f->uris);
	cJSON_ArrayForEach(u, v) {
		if (!modern_filter_has(f, u->valuestring))
			f->uris[f->nuris++] = xstrdup(u->valuestring);
	}
	return (0);
}

void
modern_filter_clear(struct modern_filter *f)
{
	size_t	 i;

	for (i = 0; i < f->nuris; i++)
		free(f->uris[i]);
	free(f->uris);
	for (i = 0; i < f->ntasks; i++)
		free(f->tasks[i]);
	free(f->tasks);
	memset(f, 0, sizeof *f);
}

int
modern_filter_has(const struct modern_filter *f, const char *uri)
{
	size_t	 i;

	for (i = 0; i < f->nuris; i++) {
		if (strcmp(f->uris[i], uri) == 0)
			return (1);
	}
	return (0);
}

int
modern_filter_has_task(const struct modern_filter *f, const char *task)
{
	size_t	 i;

	for (i = 0; i < f->ntasks; i++) {
		if (strcmp(f->tasks[i], task) == 0)
			return (1);
	}
	return (0);
}

unsigned int
modern_listen_kind(const char *method)
{
	if (strcmp(method, "notifications/tools/list_changed") == 0)
		return (MODERN_LISTEN_TOOLS);
	if (strcmp(method, "notifications/prompts/list_changed") == 0)
		return (MODERN_LISTEN_PROMPTS);
	if (strcmp(method, "notifications/resources/list_changed") == 0)
		return (MODERN_LISTEN_RESOURCES);
	return (0);
}

/*
 * The id goes in as the listen request's text, as the client wrote it:
 * read by cJSON, "\u0000" would cut it, a lone surrogate lose it and
 * 1e999 make it null.
 */
char *
modern_stream_note(const char *id, size_t id_len, const char *method,
    cJSON *params)
{
	static const char	 hole[] = "null}}}";
	cJSON			*msg, *meta;
	char			*text, *line;
	size_t			 len;

	meta = cJSON_AddObjectToObject(params, "_meta");
	cJSON_AddNullToObject(meta, MODERN_KEY_SUB);
	msg = cJSON_CreateObject();
	cJSON_AddStringToObject(msg, "jsonrpc", "2.0");
	cJSON_AddStringToObject(msg, "method", method);
	cJSON_AddItemToObject(msg, "params", params);
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (text == NULL)
		abort();	/* cJSON fails only when memory does */
	/* _meta is the last of params, params of the message. */
	len = strlen(text);
	if (len < sizeof hole - 1 ||
	    strcmp(text + len - (sizeof hole - 1), hole) != 0)
		abort();
	xasprintf(&line, "%.*s%.*s}}}", (int)(len - (sizeof hole - 1)), text,
	    (int)id_len, id);
	free(text);
	return (line);
}

char *
modern_listen_ack(const char *id, size_t id_len,
    const struct modern_filter *f)
{
	cJSON	*params, *n, *a;
	size_t	 i;

	params = cJSON_CreateObject();
	n = cJSON_AddObjectToObject(params, "notifications");
	if (f->kinds & MODERN_LISTEN_TOOLS)
		cJSON_AddTrueToObject(n, "toolsListChanged");
	if (f->kinds & MODERN_LISTEN_PROMPTS)
		cJSON_AddTrueToObject(n, "promptsListChanged");
	if (f->kinds & MODERN_LISTEN_RESOURCES)
		cJSON_AddTrueToObject(n, "resourcesListChanged");
	if (f->nuris > 0) {
		a = cJSON_AddArrayToObject(n, "resourceSubscriptions");
		for (i = 0; i < f->nuris; i++)
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(f->uris[i]));
	}
	if (f->ntasks > 0) {
		a = cJSON_AddArrayToObject(n, "taskIds");
		for (i = 0; i < f->ntasks; i++)
			cJSON_AddItemToArray(a,
			    cJSON_CreateString(f->tasks[i]));
	}
	return (modern_stream_note(id, id_len,
	    "notifications/subscriptions/acknowledged", params));
}

char *
modern_listen_note(const char *id, size_t id_len, const char *method,
    const char *uri)
{
	cJSON	*params;

	params = cJSON_CreateObject();
	if (uri != NULL)
		cJSON_AddStringToObject(params, "uri", uri);
	return (modern_stream_note(id, id_len, method, params));
}

int
modern_task_from(const cJSON *task, cJSON *out)
{
	static const struct {
		const char	*from, *to;
	} members[] = {
		{ "taskId", "taskId" },
		{ "status", "status" },
		{ "statusMessage", "statusMessage" },
		{ "createdAt", "createdAt" },
		{ "lastUpdatedAt", "lastUpdatedAt" },
		{ "ttl", "ttlMs" },
		{ "pollInterval", "pollIntervalMs" },
	};
	const cJSON	*v;
	size_t		 i;

	if (!cJSON_IsObject(task) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(task, "taskId")) ||
	    !cJSON_IsString(cJSON_GetObjectItemCaseSensitive(task, "status")))
		return (-1);
	for (i = 0; i < sizeof members / sizeof members[0]; i++) {
		v = cJSON_GetObjectItemCaseSensitive(task, members[i].from);
		if (v != NULL && !cJSON_IsNull(v))
			cJSON_AddItemToObject(out, members[i].to,
			    cJSON_Duplicate(v, 1));
		else if (strcmp(members[i].to, "ttlMs") == 0)
			cJSON_AddNullToObject(out, "ttlMs");
	}
	if (cJSON_GetObjectItemCaseSensitive(out, "lastUpdatedAt") == NULL &&
	    cJSON_GetObjectItemCaseSensitive(out, "createdAt") != NULL)
		cJSON_AddItemToObject(out, "lastUpdatedAt", cJSON_Duplicate(
		    cJSON_GetObjectItemCaseSensitive(out, "createdAt"), 1));
	return (0);
}

int
modern_task_done(const char *status)
{
	return (strcmp(status, "completed") == 0 ||
	    strcmp(status, "failed") == 0 || strcmp(status, "cancelled") == 0);
}

void
modern_task_tools(const cJSON *result, cJSON *out)
{
	const cJSON	*tool, *name, *ts;

	cJSON_ArrayForEach(tool, cJSON_GetObjectItemCaseSensitive(result,
	    "tools")) {
		name = cJSON_GetObjectItemCaseSensitive(tool, "name");
		ts = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(tool, "execution"),
		    "taskSupport");
		if (!cJSON_IsString(name) || !cJSON_IsString(ts))
			continue;
		if (strcmp(ts->valuestring, "required") == 0 ||
		    strcmp(ts->valuestring, "optional") == 0)
			cJSON_AddItemToArray(out,
			    cJSON_CreateString(name->valuestring));
	}
}
