/*
 * tools.c -- the MCP commands, for people and scripts: list a server's
 * tools, call one and print what it returned, ping the server.  Each
 * opens its own session (session.h).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "ctl.h"
#include "diag.h"
#include "esc.h"
#include "out.h"
#include "session.h"
#include "tools.h"
#include "xmalloc.h"

#define TOOLS_LIST_TIMEOUT_MS		60000
#define TOOLS_PING_TIMEOUT_MS		10000
#define TOOLS_MAX_PAGES			1000
#define TOOLS_NAME_MAX_COLUMNS		40
/*
 * A tool call: mcpd times it out itself (request_timeout_ms, reset by
 * progress, at most ten times that); mcpctl gives up only when mcpd has
 * said nothing at all for this long, so a stuck mcpd cannot hang it.
 */
#define TOOLS_CALL_IDLE_MS		(15 * 60 * 1000)

/*
 * Listing.
 */

/* Every page of tools/list, in one array (caller frees), or NULL. */
static cJSON *
tools_fetch(struct session *s, const char *server, int *rc)
{
	cJSON		*tools, *result = NULL, *params, *page, *tool;
	const cJSON	*next;
	char		*cursor = NULL;
	int		 pages;

	tools = cJSON_CreateArray();
	for (pages = 1;; pages++) {
		params = NULL;
		if (cursor != NULL) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "cursor", cursor);
		}
		if ((*rc = session_request(s, "tools/list", params, &result,
		    TOOLS_LIST_TIMEOUT_MS)) != DIAG_EXIT_OK)
			goto fail;
		page = cJSON_GetObjectItemCaseSensitive(result, "tools");
		if (!cJSON_IsArray(page)) {
			diag_warnx(server, "tools/list: the result has no "
			    "tools array");
			*rc = DIAG_EXIT_FAILED;
			goto fail;
		}
		while ((tool = cJSON_DetachItemFromArray(page, 0)) != NULL)
			cJSON_AddItemToArray(tools, tool);
		next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
		if (!cJSON_IsString(next) || (cursor != NULL &&
		    strcmp(cursor, next->valuestring) == 0))
			break;
		if (pages == TOOLS_MAX_PAGES) {
			diag_warnx(server, "tools/list: gave up after %d "
			    "pages", pages);
			*rc = DIAG_EXIT_FAILED;
			goto fail;
		}
		free(cursor);
		cursor = xstrdup(next->valuestring);
		cJSON_Delete(result);
		result = NULL;
	}
	free(cursor);
	cJSON_Delete(result);
	return (tools);

fail:
	free(cursor);
	cJSON_Delete(result);
	cJSON_Delete(tools);
	return (NULL);
}

/* One line a tool: its name and the first line of its description. */
static void
tools_print(const cJSON *tools)
{
	const cJSON	*tool;
	const char	*name, *desc, *end, *ename;
	char		*edesc;
	size_t		 len;
	int		 width = 4;

	cJSON_ArrayForEach(tool, tools) {
		name = out_str(tool, "name");
		len = name != NULL ? strlen(out_esc(name)) : 1;
		if ((int)len > width && len <= TOOLS_NAME_MAX_COLUMNS)
			width = (int)len;
	}
	cJSON_ArrayForEach(tool, tools) {
		name = out_str(tool, "name");
		desc = out_str(tool, "description");
		ename = out_esc(name != NULL ? name : "?");
		if (desc == NULL) {
			printf("%s\n", ename);
			continue;
		}
		/* The first line that says something. */
		while (*desc == '\n' || *desc == '\r' || *desc == ' ' ||
		    *desc == '\t')
			desc++;
		end = desc + strcspn(desc, "\r\n");
		while (end > desc && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		edesc = esc_text(desc, (size_t)(end - desc), 0);
		printf("%-*s  %s\n", width, ename, edesc);
		free(edesc);
	}
}

int
tools_list(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*tools;
	const char	*server = argv[0];
	int		 rc;

	if ((rc = session_open(ctl->socket_path, server, &s)) != DIAG_EXIT_OK)
		return (rc);
	if ((tools = tools_fetch(s, server, &rc)) != NULL) {
		if (ctl->json)
			out_json(stdout, tools, 0);
		else {
			tools_print(tools);
			if (cJSON_GetArraySize(tools) == 0)
				diag_warnx(server, "the server offers no "
				    "tools");
		}
	}
	cJSON_Delete(tools);
	session_close(s);
	return (rc);
}

/*
 * Calling.
 */

/* Is text exactly a JSON number (so "007" or "1." stay strings)? */
static int
tools_is_json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9') {
		while (*p >= '0' && *p <= '9')
			p++;
	} else
		return (0);
	if (*p == '.') {
		p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(*p >= '0' && *p <= '9'))
			return (0);
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return (*p == '\0');
}

/*
 * A KEY=VALUE value: JSON if it parses, else the text as a string.
 * Numbers keep their exact text, so big integers are not rounded.
 */
static cJSON *
tools_call_value(const char *text)
{
	cJSON	*v;

	if (tools_is_json_number(text))
		return (cJSON_CreateRaw(text));
	v = cJSON_ParseWithOpts(text, NULL, 1);
	if (v != NULL && !cJSON_IsNumber(v))
		return (v);
	cJSON_Delete(v);
	return (cJSON_CreateString(text));
}

static int
tools_call_arguments(int argc, char **argv, cJSON **out)
{
	cJSON		*args;
	const char	*p, *eq, *end = NULL;
	char		*key;
	int		 i;

	*out = NULL;
	p = argc > 0 ? argv[0] + strspn(argv[0], " \t\r\n") : "";
	if (*p == '{') {
		if (argc > 1) {
			diag_warnx("call", "a JSON object must be the only "
			    "argument after the tool name");
			return (DIAG_EXIT_USAGE);
		}
		args = cJSON_ParseWithOpts(argv[0], &end, 1);
		if (!cJSON_IsObject(args)) {
			diag_warnx("call", "the arguments are not a valid JSON "
			    "object (error at byte %zu)", args == NULL &&
			    end != NULL ? (size_t)(end - argv[0]) : (size_t)0);
			cJSON_Delete(args);
			return (DIAG_EXIT_USAGE);
		}
		*out = args;
		return (DIAG_EXIT_OK);
	}

	args = cJSON_CreateObject();
	for (i = 0; i < argc; i++) {
		if ((eq = strchr(argv[i], '=')) == NULL || eq == argv[i]) {
			diag_warnx("call", "expected KEY=VALUE or one JSON "
			    "object, got \"%s\"", argv[i]);
			cJSON_Delete(args);
			return (DIAG_EXIT_USAGE);
		}
		key = xstrndup(argv[i], (size_t)(eq - argv[i]));
		if (cJSON_GetObjectItemCaseSensitive(args, key) != NULL) {
			diag_warnx("call", "argument \"%s\" given twice", key);
			free(key);
			cJSON_Delete(args);
			return (DIAG_EXIT_USAGE);
		}
		cJSON_AddItemToObject(args, key, tools_call_value(eq + 1));
		free(key);
	}
	*out = args;
	return (DIAG_EXIT_OK);
}

/* Decoded size of base64 text, without decoding it. */
static size_t
tools_base64_bytes(const char *data)
{
	size_t	 chars = 0;

	for (; *data != '\0'; data++) {
		if (strchr("=\r\n\t ", *data) == NULL)
			chars++;
	}
	return (chars * 3 / 4);
}

/* One item of a tool result's content: text as it is, the rest named. */
static void
tools_print_content_item(FILE *f, const cJSON *item)
{
	const char	*type, *text, *mime, *uri, *name, *data;
	const cJSON	*resource;

	if ((type = out_str(item, "type")) == NULL)
		type = "?";
	mime = out_str(item, "mimeType");
	if (strcmp(type, "text") == 0 &&
	    (text = out_str(item, "text")) != NULL) {
		out_text(f, text);
	} else if (strcmp(type, "image") == 0 || strcmp(type, "audio") == 0) {
		data = out_str(item, "data");
		fprintf(f, "[%s %s, %zu bytes]\n", out_esc(type),
		    out_esc(mime != NULL ? mime : "(no type)"),
		    data != NULL ? tools_base64_bytes(data) : 0);
	} else if (strcmp(type, "resource_link") == 0) {
		uri = out_str(item, "uri");
		name = out_str(item, "name");
		fprintf(f, "[resource link %s%s%s%s]\n",
		    out_esc(uri != NULL ? uri : "?"), name != NULL ? " (" : "",
		    out_esc(name != NULL ? name : ""), name != NULL ? ")" : "");
	} else if (strcmp(type, "resource") == 0) {
		resource = cJSON_GetObjectItemCaseSensitive(item, "resource");
		uri = out_str(resource, "uri");
		mime = out_str(resource, "mimeType");
		if ((text = out_str(resource, "text")) != NULL) {
			fprintf(f, "[resource %s]\n",
			    out_esc(uri != NULL ? uri : "?"));
			out_text(f, text);
		} else {
			data = out_str(resource, "blob");
			fprintf(f, "[resource %s %s, %zu bytes]\n",
			    out_esc(uri != NULL ? uri : "?"),
			    out_esc(mime != NULL ? mime : "(no type)"),
			    data != NULL ? tools_base64_bytes(data) : 0);
		}
	} else
		fprintf(f, "[%s content]\n", out_esc(type));
}

int
tools_call(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*args, *params, *result;
	const cJSON	*item, *structured;
	const char	*server = argv[0], *tool = argv[1];
	FILE		*f;
	int		 rc, is_error;

	if ((rc = tools_call_arguments(argc - 2, argv + 2, &args)) !=
	    DIAG_EXIT_OK)
		return (rc);
	if ((rc = session_open(ctl->socket_path, server, &s)) !=
	    DIAG_EXIT_OK) {
		cJSON_Delete(args);
		return (rc);
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", tool);
	cJSON_AddItemToObject(params, "arguments", args);
	/* mcpd times tool calls out (and resets on progress), not us. */
	session_idle_timeouts(s);
	rc = session_request(s, "tools/call", params, &result,
	    TOOLS_CALL_IDLE_MS);
	session_close(s);
	if (rc != DIAG_EXIT_OK)
		return (rc);

	is_error = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result,
	    "isError"));
	if (ctl->json)
		out_json(stdout, result, 0);
	else {
		f = stdout;
		if (is_error) {
			fflush(stdout);
			diag_warnx(server, "%s: the tool reported an error:",
			    tool);
			f = stderr;
		}
		cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(
		    result, "content"))
			tools_print_content_item(f, item);
		structured = cJSON_GetObjectItemCaseSensitive(result,
		    "structuredContent");
		if (structured != NULL)
			out_json(f, structured, 0);
	}
	cJSON_Delete(result);
	return (is_error ? DIAG_EXIT_FAILED : DIAG_EXIT_OK);
}

/*
 * Ping.
 */

int
tools_ping(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*result, *out;
	const char	*server = argv[0];
	uint64_t	 start_us, elapsed_us;
	double		 ms;
	int		 rc;

	if ((rc = session_open(ctl->socket_path, server, &s)) !=
	    DIAG_EXIT_OK)
		return (rc);
	start_us = clock_now_us();
	rc = session_request(s, "ping", NULL, &result, TOOLS_PING_TIMEOUT_MS);
	elapsed_us = clock_now_us() - start_us;
	session_close(s);
	if (rc != DIAG_EXIT_OK)
		return (rc);
	cJSON_Delete(result);

	ms = (double)elapsed_us / 1000.0;
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddStringToObject(out, "server", server);
		cJSON_AddNumberToObject(out, "ms", ms);
		out_json(stdout, out, 0);
		cJSON_Delete(out);
	} else
		printf("%s: pong in %.2f ms\n", server, ms);
	return (DIAG_EXIT_OK);
}
