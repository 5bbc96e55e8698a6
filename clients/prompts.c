/*
 * prompts.c -- a server's prompts, for people and scripts: the list,
 * each prompt with its arguments, and one prompt's messages.  Each
 * command opens its own session (session.h); a group's prompts are
 * named as the group gives them out (MEMBER__PROMPT), which mcpd routes.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "content.h"
#include "ctl.h"
#include "diag.h"
#include "out.h"
#include "pages.h"
#include "promptargs.h"
#include "prompts.h"
#include "session.h"
#include "xmalloc.h"

#define PROMPTS_GET_TIMEOUT_MS		60000
#define PROMPTS_NAME_MAX_COLUMNS	40
#define PROMPTS_ARG_INDENT		2

/*
 * Listing.
 */

/* The width of the first column: names, and arguments under them. */
static int
prompts_width(const cJSON *prompts)
{
	const cJSON	*p, *arg;
	const char	*name;
	size_t		 len;
	int		 width = 4;

	cJSON_ArrayForEach(p, prompts) {
		name = out_str(p, "name");
		len = name != NULL ? strlen(out_esc(name)) : 1;
		if ((int)len > width && len <= PROMPTS_NAME_MAX_COLUMNS)
			width = (int)len;
		cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(p,
		    "arguments")) {
			if ((name = out_str(arg, "name")) == NULL)
				continue;
			len = strlen(out_esc(name)) + PROMPTS_ARG_INDENT;
			if ((int)len > width && len <= PROMPTS_NAME_MAX_COLUMNS)
				width = (int)len;
		}
	}
	return (width);
}

/* A cell and the first line of a description (or a title), if any. */
static void
prompts_line(int width, const char *cell, const char *required,
    const cJSON *o)
{
	const char	*desc;
	char		*edesc;

	if ((desc = out_str(o, "description")) == NULL)
		desc = out_str(o, "title");
	if (desc == NULL && *required == '\0') {
		printf("%s\n", cell);
		return;
	}
	edesc = content_first_line(desc != NULL ? desc : "");
	printf("%-*s  %s%s%s\n", width, cell, required,
	    *required != '\0' && *edesc != '\0' ? " " : "", edesc);
	free(edesc);
}

/*
 * One line a prompt, its name and the first line of its description;
 * under it, one line an argument, indented, "(required)" before the
 * description of those that are.
 */
static void
prompts_print(const cJSON *prompts)
{
	const cJSON	*p, *arg;
	const char	*name;
	char		*cell;
	int		 width;

	width = prompts_width(prompts);
	cJSON_ArrayForEach(p, prompts) {
		name = out_str(p, "name");
		prompts_line(width, out_esc(name != NULL ? name : "?"), "", p);
		cJSON_ArrayForEach(arg, cJSON_GetObjectItemCaseSensitive(p,
		    "arguments")) {
			if ((name = out_str(arg, "name")) == NULL)
				continue;
			xasprintf(&cell, "%*s%s", PROMPTS_ARG_INDENT, "",
			    out_esc(name));
			prompts_line(width, cell, cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(arg, "required")) ?
			    "(required)" : "", arg);
			free(cell);
		}
	}
}

int
prompts_list(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*prompts;
	const char	*server = argv[0];
	int		 rc;

	if ((rc = session_open(ctl->socket_path, server, &s)) != DIAG_EXIT_OK)
		return (rc);
	if (!pages_offers(s, server, "prompts")) {
		session_close(s);
		return (DIAG_EXIT_FAILED);
	}
	if ((prompts = pages_fetch(s, server, "prompts/list", "prompts", 0,
	    &rc)) != NULL) {
		if (ctl->json)
			out_json(stdout, prompts, 0);
		else {
			prompts_print(prompts);
			if (cJSON_GetArraySize(prompts) == 0)
				diag_warnx(server, "the server offers no "
				    "prompts");
		}
	}
	cJSON_Delete(prompts);
	session_close(s);
	return (rc);
}

/*
 * Getting one.
 */

/* The prompt's entry in the list, or NULL (unlisted, or no list). */
static cJSON *
prompts_find(struct session *s, const char *server, const char *prompt)
{
	cJSON		*prompts, *p, *found = NULL;
	const char	*name;
	int		 rc;

	if ((prompts = pages_fetch(s, server, "prompts/list", "prompts",
	    PAGES_QUIET, &rc)) == NULL)
		return (NULL);
	cJSON_ArrayForEach(p, prompts) {
		if ((name = out_str(p, "name")) != NULL &&
		    strcmp(name, prompt) == 0) {
			found = cJSON_DetachItemViaPointer(prompts, p);
			break;
		}
	}
	cJSON_Delete(prompts);
	return (found);
}

/* Each message under its role in brackets: "[user]", then its content. */
static void
prompts_print_messages(const cJSON *result)
{
	const cJSON	*m, *content, *item;
	const char	*role;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(result,
	    "messages")) {
		role = out_str(m, "role");
		printf("[%s]\n", out_esc(role != NULL ? role : "?"));
		content = cJSON_GetObjectItemCaseSensitive(m, "content");
		/* One block in MCP; a list of them read as well. */
		if (cJSON_IsArray(content)) {
			cJSON_ArrayForEach(item, content)
				content_print(stdout, item);
		} else
			content_print(stdout, content);
	}
}

int
prompts_get(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*args, *params, *result, *error, *prompt;
	const char	*server = argv[0], *name = argv[1];
	int		 rc;

	/* The words are checked before mcpd is asked anything. */
	if ((rc = promptargs_parse(server, name, argc - 2, argv + 2, NULL,
	    &args)) != DIAG_EXIT_OK)
		return (rc);
	cJSON_Delete(args);
	if ((rc = session_open(ctl->socket_path, server, &s)) != DIAG_EXIT_OK)
		return (rc);
	if (!pages_offers(s, server, "prompts")) {
		session_close(s);
		return (DIAG_EXIT_FAILED);
	}
	/*
	 * Against the prompt as listed; one not listed (hidden by a filter,
	 * or unknown) is asked for all the same: the answer says why.
	 */
	prompt = prompts_find(s, server, name);
	rc = promptargs_parse(server, name, argc - 2, argv + 2, prompt, &args);
	cJSON_Delete(prompt);
	if (rc != DIAG_EXIT_OK) {
		session_close(s);
		return (rc);
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "name", name);
	cJSON_AddItemToObject(params, "arguments", args);
	rc = session_request_error(s, "prompts/get", params, &result,
	    PROMPTS_GET_TIMEOUT_MS, &error);
	if (error != NULL)
		session_warn_name_error(s, "prompts/get", "unknown prompt: ",
		    name, error);
	cJSON_Delete(error);
	session_close(s);
	if (rc != DIAG_EXIT_OK)
		return (rc);
	if (ctl->json)
		out_json(stdout, result, 0);
	else
		prompts_print_messages(result);
	cJSON_Delete(result);
	return (DIAG_EXIT_OK);
}
