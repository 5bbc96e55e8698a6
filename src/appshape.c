/*
 * appshape.c -- the apps' own shapes of an MCP server entry, read into
 * the one form appconf.c converts and written back for mcpctl install
 * (see appshape.h).
 *
 * An entry is copied member by member, in its order, renamed where the
 * app names a thing otherwise: a repeated member stays repeated, for
 * appconf_convert to say so, and a member this file does not know stays
 * for it to drop with a note.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "appconf.h"
#include "appshape.h"
#include "xmalloc.h"

static void
appshape_note(char ***notes, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
appshape_note(char ***notes, size_t *n, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	*notes = xreallocarray(*notes, *n + 1, sizeof **notes);
	(*notes)[(*n)++] = s;
}

const char *
appshape_key(enum appconf_shape shape)
{
	switch (shape) {
	case APPCONF_SERVERS:
		return ("servers");
	case APPCONF_ZED:
		return ("context_servers");
	case APPCONF_OPENCODE:
		return ("mcp");
	default:
		return ("mcpServers");
	}
}

static void
appshape_copy(cJSON *out, const char *name, const cJSON *item)
{
	cJSON_AddItemToObject(out, name, cJSON_Duplicate(item, 1));
}

/* "enabled": false is "disabled": true; true says nothing. */
static void
appshape_enabled(cJSON *out, const cJSON *item)
{
	if (!cJSON_IsBool(item))
		appshape_copy(out, item->string, item);
	else if (cJSON_IsFalse(item))
		cJSON_AddTrueToObject(out, "disabled");
}

/* Windsurf: "serverUrl" is the URL of a remote server. */
static cJSON *
appshape_windsurf(const cJSON *entry)
{
	const cJSON	*item;
	cJSON		*out;

	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, entry) {
		appshape_copy(out, strcmp(item->string, "serverUrl") == 0 ?
		    "url" : item->string, item);
	}
	return (out);
}

/*
 * Cline: a "url" without "type" is SSE, or what the older
 * "transportType" says ("sse", "http").
 */
static cJSON *
appshape_cline(const cJSON *entry)
{
	const cJSON	*item, *legacy;
	cJSON		*out;
	const char	*type = "sse";

	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, entry) {
		if (strcmp(item->string, "transportType") != 0)
			appshape_copy(out, item->string, item);
	}
	legacy = cJSON_GetObjectItemCaseSensitive(entry, "transportType");
	if (cJSON_IsString(legacy) && strcmp(legacy->valuestring, "http") == 0)
		type = "http";
	if (cJSON_GetObjectItemCaseSensitive(entry, "url") != NULL &&
	    cJSON_GetObjectItemCaseSensitive(entry, "type") == NULL)
		cJSON_AddStringToObject(out, "type", type);
	return (out);
}

/*
 * Gemini CLI: "httpUrl" is a Streamable HTTP server's, "url" an SSE
 * server's; with both, "httpUrl" is the one it uses.
 */
static cJSON *
appshape_gemini(const cJSON *entry, char ***notes, size_t *nnotes)
{
	const cJSON	*item, *http, *url;
	cJSON		*out;

	http = cJSON_GetObjectItemCaseSensitive(entry, "httpUrl");
	url = cJSON_GetObjectItemCaseSensitive(entry, "url");
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, entry) {
		if (strcmp(item->string, "httpUrl") == 0)
			appshape_copy(out, "url", item);
		else if (strcmp(item->string, "url") == 0 && http != NULL) {
			if (item == url)
				appshape_note(notes, nnotes, "\"url\": beside "
				    "\"httpUrl\", which Gemini CLI uses; "
				    "dropped");
		} else
			appshape_copy(out, item->string, item);
	}
	if ((http != NULL || url != NULL) &&
	    cJSON_GetObjectItemCaseSensitive(entry, "type") == NULL)
		cJSON_AddStringToObject(out, "type", http != NULL ? "http" :
		    "sse");
	return (out);
}

/* Zed: "source", "enabled", and the older "command" object. */
static cJSON *
appshape_zed(const cJSON *entry, char ***notes, size_t *nnotes)
{
	const cJSON	*item, *sub, *source;
	cJSON		*out;

	source = cJSON_GetObjectItemCaseSensitive(entry, "source");
	if ((cJSON_IsString(source) &&
	    strcmp(source->valuestring, "extension") == 0) ||
	    (source == NULL && cJSON_GetObjectItemCaseSensitive(entry,
	    "command") == NULL && cJSON_GetObjectItemCaseSensitive(entry,
	    "url") == NULL && cJSON_GetObjectItemCaseSensitive(entry,
	    "settings") != NULL)) {
		appshape_note(notes, nnotes, "a server of a Zed extension, "
		    "which Zed starts itself; skipped");
		return (NULL);
	}
	if (source != NULL && (!cJSON_IsString(source) ||
	    strcmp(source->valuestring, "custom") != 0)) {
		appshape_note(notes, nnotes, "\"source\": expected "
		    "\"custom\" (or \"extension\"); skipped");
		return (NULL);
	}
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, entry) {
		if (strcmp(item->string, "source") == 0)
			continue;
		if (strcmp(item->string, "enabled") == 0)
			appshape_enabled(out, item);
		else if (strcmp(item->string, "command") == 0 &&
		    cJSON_IsObject(item)) {
			cJSON_ArrayForEach(sub, item)
				appshape_copy(out, strcmp(sub->string,
				    "path") == 0 ? "command" : sub->string, sub);
		} else
			appshape_copy(out, item->string, item);
	}
	return (out);
}

/* opencode's "command": an array of strings, at least the program. */
static int
appshape_argv(const cJSON *command)
{
	const cJSON	*a;

	if (!cJSON_IsArray(command) || command->child == NULL)
		return (0);
	cJSON_ArrayForEach(a, command) {
		if (!cJSON_IsString(a))
			return (0);
	}
	return (1);
}

/*
 * opencode: "type" "local" ("command" an array, "environment") or
 * "remote"; "enabled".
 */
static cJSON *
appshape_opencode(const cJSON *entry, char ***notes, size_t *nnotes)
{
	const cJSON	*item, *type, *command, *a;
	cJSON		*out, *args = NULL;
	int		 local;

	type = cJSON_GetObjectItemCaseSensitive(entry, "type");
	if (type == NULL) {
		appshape_note(notes, nnotes, "no \"type\" (\"local\" or "
		    "\"remote\"): only settings for a server defined "
		    "elsewhere; skipped");
		return (NULL);
	}
	if (!cJSON_IsString(type) || (strcmp(type->valuestring, "local") !=
	    0 && strcmp(type->valuestring, "remote") != 0)) {
		appshape_note(notes, nnotes, "\"type\": expected \"local\" or "
		    "\"remote\"; skipped");
		return (NULL);
	}
	local = strcmp(type->valuestring, "local") == 0;
	command = cJSON_GetObjectItemCaseSensitive(entry, "command");
	if (local && !appshape_argv(command)) {
		appshape_note(notes, nnotes, "\"command\": expected an array "
		    "of strings, the program first; skipped");
		return (NULL);
	}
	out = cJSON_CreateObject();
	cJSON_ArrayForEach(item, entry) {
		if (item == type)
			continue;
		if (item == command && local) {
			cJSON_AddStringToObject(out, "command",
			    item->child->valuestring);
			for (a = item->child->next; a != NULL; a = a->next) {
				if (args == NULL)
					args = cJSON_AddArrayToObject(out,
					    "args");
				cJSON_AddItemToArray(args,
				    cJSON_Duplicate(a, 1));
			}
		} else if (strcmp(item->string, "environment") == 0)
			appshape_copy(out, "env", item);
		else if (strcmp(item->string, "enabled") == 0)
			appshape_enabled(out, item);
		else
			appshape_copy(out, item->string, item);
	}
	return (out);
}

cJSON *
appshape_common(enum appconf_shape shape, const cJSON *entry,
    char ***notes, size_t *nnotes)
{
	switch (shape) {
	case APPCONF_WINDSURF:
		return (appshape_windsurf(entry));
	case APPCONF_CLINE:
		return (appshape_cline(entry));
	case APPCONF_GEMINI:
		return (appshape_gemini(entry, notes, nnotes));
	case APPCONF_ZED:
		return (appshape_zed(entry, notes, nnotes));
	case APPCONF_OPENCODE:
		return (appshape_opencode(entry, notes, nnotes));
	default:
		return (cJSON_Duplicate(entry, 1));
	}
}

cJSON *
appshape_launch(enum appconf_shape shape, const char *const *argv,
    size_t argc, int disabled)
{
	cJSON	*o, *args;
	size_t	 i;

	o = cJSON_CreateObject();
	if (shape == APPCONF_SERVERS)
		cJSON_AddStringToObject(o, "type", "stdio");
	else if (shape == APPCONF_OPENCODE)
		cJSON_AddStringToObject(o, "type", "local");
	else if (shape == APPCONF_ZED)
		cJSON_AddStringToObject(o, "source", "custom");
	if (shape == APPCONF_OPENCODE) {
		args = cJSON_AddArrayToObject(o, "command");
		for (i = 0; i < argc; i++)
			cJSON_AddItemToArray(args,
			    cJSON_CreateString(argv[i]));
	} else {
		cJSON_AddStringToObject(o, "command", argv[0]);
		args = cJSON_AddArrayToObject(o, "args");
		for (i = 1; i < argc; i++)
			cJSON_AddItemToArray(args,
			    cJSON_CreateString(argv[i]));
	}
	if (disabled && (shape == APPCONF_OPENCODE || shape == APPCONF_ZED))
		cJSON_AddFalseToObject(o, "enabled");
	else if (disabled)
		cJSON_AddTrueToObject(o, "disabled");
	return (o);
}

static const char *const appshape_url_apps[] = {
	"claude-code", "cursor", "vscode", "windsurf", "zed", "cline",
	"gemini-cli", "opencode"
};

int
appshape_takes_url(const char *app)
{
	size_t	 i;

	for (i = 0; i < sizeof appshape_url_apps /
	    sizeof appshape_url_apps[0]; i++)
		if (strcmp(appshape_url_apps[i], app) == 0)
			return (1);
	return (0);
}

cJSON *
appshape_remote(const struct appconf_file *f, const char *url,
    const char *token, int disabled)
{
	const char	*type = NULL, *key = "url";
	cJSON		*o, *h;
	char		*bearer;

	if (strcmp(f->app, "claude-code") == 0 ||
	    strcmp(f->app, "vscode") == 0)
		type = "http";
	else if (strcmp(f->app, "cline") == 0)
		type = "streamableHttp";
	else if (strcmp(f->app, "opencode") == 0)
		type = "remote";
	if (strcmp(f->app, "windsurf") == 0)
		key = "serverUrl";
	else if (strcmp(f->app, "gemini-cli") == 0)
		key = "httpUrl";
	o = cJSON_CreateObject();
	if (type != NULL)
		cJSON_AddStringToObject(o, "type", type);
	cJSON_AddStringToObject(o, key, url);
	h = cJSON_AddObjectToObject(o, "headers");
	xasprintf(&bearer, "Bearer %s", token);
	cJSON_AddStringToObject(h, "Authorization", bearer);
	explicit_bzero(bearer, strlen(bearer));
	free(bearer);
	if (disabled && (f->shape == APPCONF_OPENCODE ||
	    f->shape == APPCONF_ZED))
		cJSON_AddFalseToObject(o, "enabled");
	else if (disabled)
		cJSON_AddTrueToObject(o, "disabled");
	return (o);
}
