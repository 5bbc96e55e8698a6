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

#include "callargs.h"
#include "clock.h"
#include "content.h"
#include "ctl.h"
#include "diag.h"
#include "out.h"
#include "pages.h"
#include "session.h"
#include "tools.h"

#define TOOLS_PING_TIMEOUT_MS		10000
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

/* One line a tool: its name and the first line of its description. */
static void
tools_print(const cJSON *tools)
{
	const cJSON	*tool;
	const char	*name, *desc, *ename;
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
		edesc = content_first_line(desc);
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
	if ((tools = pages_fetch(s, server, "tools/list", "tools", 0,
	    &rc)) != NULL) {
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

/* A text block's text, or NULL. */
static const char *
tools_text_of(const cJSON *item)
{
	const char	*type = out_str(item, "type");

	return (type != NULL && strcmp(type, "text") == 0 ?
	    out_str(item, "text") : NULL);
}

/* Is text the text of one of content's text blocks? */
static int
tools_has_text(const cJSON *content, const char *text)
{
	const cJSON	*item;
	const char	*t;

	cJSON_ArrayForEach(item, content) {
		if ((t = tools_text_of(item)) != NULL && strcmp(t, text) == 0)
			return (1);
	}
	return (0);
}

/*
 * Does the content say the structured content already?  It does when a
 * text block is its JSON (what MCP advises servers to send beside it),
 * or when it is an object each of whose members is the text of a text
 * block or the content itself (as the filesystem server's
 * {"content": TEXT}).
 */
static int
tools_structured_said(const cJSON *content, const cJSON *structured)
{
	const cJSON	*item, *m;
	const char	*text;
	cJSON		*parsed;
	int		 said;

	cJSON_ArrayForEach(item, content) {
		if ((text = tools_text_of(item)) == NULL)
			continue;
		parsed = cJSON_Parse(text);
		said = parsed != NULL && cJSON_Compare(parsed, structured, 1);
		cJSON_Delete(parsed);
		if (said)
			return (1);
	}
	if (!cJSON_IsObject(structured) || structured->child == NULL ||
	    cJSON_GetArraySize(content) == 0)
		return (0);
	cJSON_ArrayForEach(m, structured) {
		if (!(cJSON_IsString(m) && tools_has_text(content,
		    m->valuestring)) && !cJSON_Compare(m, content, 1))
			return (0);
	}
	return (1);
}

/*
 * What a call returned, for people: the content, then the structured
 * content as JSON unless the content says it already, under a line that
 * says which is which when both are printed.
 */
static void
tools_print_result(FILE *f, const cJSON *result)
{
	const cJSON	*content, *structured, *item;

	content = cJSON_GetObjectItemCaseSensitive(result, "content");
	structured = cJSON_GetObjectItemCaseSensitive(result,
	    "structuredContent");
	cJSON_ArrayForEach(item, content)
		content_print(f, item);
	if (structured == NULL || tools_structured_said(content, structured))
		return;
	if (cJSON_GetArraySize(content) > 0)
		fprintf(f, "[structured content]\n");
	out_json(f, structured, 0);
}

/* KEY=VALUE arguments typed from the tool's inputSchema, if it is listed. */
static void
tools_call_typed(struct session *s, const char *server, const char *tool,
    int argc, char **argv, cJSON **args)
{
	cJSON		*tools, *typed;
	const cJSON	*t, *schema = NULL;
	const char	*name;
	int		 rc;

	if ((tools = pages_fetch(s, server, "tools/list", "tools",
	    PAGES_QUIET, &rc)) == NULL)
		return;
	cJSON_ArrayForEach(t, tools) {
		if ((name = out_str(t, "name")) != NULL &&
		    strcmp(name, tool) == 0) {
			schema = cJSON_GetObjectItemCaseSensitive(t,
			    "inputSchema");
			break;
		}
	}
	if (schema != NULL && callargs_parse(argc, argv, schema, &typed) ==
	    DIAG_EXIT_OK) {
		cJSON_Delete(*args);
		*args = typed;
	}
	cJSON_Delete(tools);
}

int
tools_call(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*args, *params, *result, *error;
	const char	*server = argv[0], *tool = argv[1];
	FILE		*f;
	int		 rc, is_error;

	/* The words are checked before mcpd is asked anything. */
	if ((rc = callargs_parse(argc - 2, argv + 2, NULL, &args)) !=
	    DIAG_EXIT_OK)
		return (rc);
	if ((rc = session_open(ctl->socket_path, server, &s)) !=
	    DIAG_EXIT_OK) {
		cJSON_Delete(args);
		return (rc);
	}
	if (callargs_keyvalue(argc - 2, argv + 2))
		tools_call_typed(s, server, tool, argc - 2, argv + 2, &args);
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", tool);
	cJSON_AddItemToObject(params, "arguments", args);
	/* mcpd times tool calls out (and resets on progress), not us. */
	session_idle_timeouts(s);
	rc = session_request_error(s, "tools/call", params, &result,
	    TOOLS_CALL_IDLE_MS, &error);
	if (error != NULL)
		session_warn_name_error(s, "tools/call", "unknown tool: ", tool,
		    error);
	cJSON_Delete(error);
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
		tools_print_result(f, result);
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
