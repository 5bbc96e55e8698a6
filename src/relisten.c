/*
 * relisten.c -- the changes a reopened subscriptions/listen stream's
 * client may have missed, read from the stream's acknowledgment (see
 * relisten.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "modern.h"
#include "relisten.h"
#include "util.h"
#include "xmalloc.h"

static const struct {
	const char	*member;
	const char	*method;
} kinds[] = {
	{ "toolsListChanged", "notifications/tools/list_changed" },
	{ "promptsListChanged", "notifications/prompts/list_changed" },
	{ "resourcesListChanged", "notifications/resources/list_changed" },
};

size_t
relisten_notes(const char *data, size_t len, const char *id, char ***out)
{
	cJSON		*msg;
	const cJSON	*method, *n, *uris, *u;
	char		**lines;
	size_t		 i, count = 0, max;

	*out = NULL;
	if (memmem(data, len, "acknowledged", 12) == NULL)
		return (0);
	msg = cJSON_ParseWithLength(data, len);
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	n = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "notifications");
	if (!cJSON_IsString(method) || strcmp(method->valuestring,
	    "notifications/subscriptions/acknowledged") != 0 ||
	    cJSON_GetObjectItemCaseSensitive(msg, "id") != NULL ||
	    !cJSON_IsObject(n)) {
		cJSON_Delete(msg);
		return (0);
	}
	uris = cJSON_GetObjectItemCaseSensitive(n, "resourceSubscriptions");
	max = nitems(kinds) + MODERN_LISTEN_MAX_URIS;
	lines = xcalloc(max, sizeof *lines);
	for (i = 0; i < nitems(kinds); i++) {
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(n,
		    kinds[i].member)))
			lines[count++] = modern_listen_note(id, strlen(id),
			    kinds[i].method, NULL);
	}
	if (!cJSON_IsArray(uris))
		uris = NULL;
	cJSON_ArrayForEach(u, uris) {
		if (count == max)
			break;
		if (cJSON_IsString(u) && *u->valuestring != '\0' &&
		    strlen(u->valuestring) <= MODERN_LISTEN_URI_MAX)
			lines[count++] = modern_listen_note(id, strlen(id),
			    "notifications/resources/updated", u->valuestring);
	}
	cJSON_Delete(msg);
	if (count == 0) {
		free(lines);
		return (0);
	}
	*out = lines;
	return (count);
}
