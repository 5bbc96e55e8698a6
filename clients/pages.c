/*
 * pages.c -- an MCP list fetched whole.  A list comes in pages, each
 * with the cursor of the next; a cursor the server repeats ends the list
 * (a server that loops gives what it gave), and PAGES_MAX pages are a
 * limit, so a server cannot keep mcpctl asking for ever.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "diag.h"
#include "pages.h"
#include "proto.h"
#include "session.h"
#include "xmalloc.h"

#define PAGES_TIMEOUT_MS	60000	/* each page */
#define PAGES_MAX		1000

/* A "method not found" answer, for PAGES_OPTIONAL. */
static int
pages_unknown_method(const cJSON *error)
{
	const cJSON	*code = cJSON_GetObjectItemCaseSensitive(error, "code");

	return (cJSON_IsNumber(code) && code->valueint ==
	    RPC_METHOD_NOT_FOUND);
}

cJSON *
pages_fetch(struct session *s, const char *server, const char *method,
    const char *member, int flags, int *rc)
{
	cJSON		*error = NULL;
	cJSON		*list, *result = NULL, *params, *page, *item;
	const cJSON	*next;
	char		*cursor = NULL;
	int		 pages, quiet = (flags & PAGES_QUIET) != 0;

	list = cJSON_CreateArray();
	for (pages = 1;; pages++) {
		params = NULL;
		if (cursor != NULL) {
			params = cJSON_CreateObject();
			cJSON_AddStringToObject(params, "cursor", cursor);
		}
		*rc = session_request_error(s, method, params, &result,
		    PAGES_TIMEOUT_MS, &error);
		if (error != NULL && pages == 1 &&
		    (flags & PAGES_OPTIONAL) != 0 &&
		    pages_unknown_method(error)) {
			*rc = DIAG_EXIT_OK;
			break;
		}
		if (error != NULL && !quiet)
			session_warn_error(s, method, error);
		if (*rc != DIAG_EXIT_OK)
			goto fail;
		page = cJSON_GetObjectItemCaseSensitive(result, member);
		if (!cJSON_IsArray(page)) {
			if (!quiet)
				diag_warnx(server, "%s: the result has no %s "
				    "array", method, member);
			*rc = DIAG_EXIT_FAILED;
			goto fail;
		}
		while ((item = cJSON_DetachItemFromArray(page, 0)) != NULL)
			cJSON_AddItemToArray(list, item);
		next = cJSON_GetObjectItemCaseSensitive(result, "nextCursor");
		if (!cJSON_IsString(next) || (cursor != NULL &&
		    strcmp(cursor, next->valuestring) == 0))
			break;
		if (pages == PAGES_MAX) {
			if (!quiet)
				diag_warnx(server, "%s: gave up after %d "
				    "pages", method, pages);
			*rc = DIAG_EXIT_FAILED;
			goto fail;
		}
		free(cursor);
		cursor = xstrdup(next->valuestring);
		cJSON_Delete(result);
		result = NULL;
	}
	free(cursor);
	cJSON_Delete(error);
	cJSON_Delete(result);
	return (list);

fail:
	free(cursor);
	cJSON_Delete(error);
	cJSON_Delete(result);
	cJSON_Delete(list);
	return (NULL);
}

int
pages_offers(const struct session *s, const char *server, const char *what)
{
	const cJSON	*caps;

	caps = cJSON_GetObjectItemCaseSensitive(session_init_result(s),
	    "capabilities");
	if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(caps, what)))
		return (1);
	diag_warnx(NULL, "%s offers no %s (it declares no %s capability)",
	    server, what, what);
	return (0);
}
