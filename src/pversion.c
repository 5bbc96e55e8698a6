/*
 * pversion.c -- the MCP revisions mcpd speaks with clients, what each
 * has, and what a newer server's messages become for an older client
 * (see pversion.h).
 *
 * The revisions' differences that reach a client through mcpd, from
 * their schemas:
 * - 2025-03-26: audio content, the completions capability, JSON-RPC
 *   batches (gone again in 2025-06-18);
 * - 2025-06-18: resource_link content, elicitation (form mode), title
 *   beside name;
 * - 2025-11-25: tasks, URL-mode elicitation and its completion notice,
 *   tools in sampling (tool_use, tool_result, content arrays), icons,
 *   websiteUrl and description in serverInfo, and in elicitation forms
 *   titled enums (oneOf), multi-selects (type array) and defaults of
 *   every type.
 * Members an older schema does not name are ignored by its readers (the
 * SDKs keep unknown members), so only what it would refuse is changed:
 * a content block's type, a form property's type, a capability.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "pversion.h"
#include "rpc.h"
#include "util.h"
#include "xmalloc.h"

static const char *pversion_names[PVERSION_COUNT] = {
	[PVERSION_2024_11_05] = "2024-11-05",
	[PVERSION_2025_03_26] = "2025-03-26",
	[PVERSION_2025_06_18] = "2025-06-18",
	[PVERSION_2025_11_25] = "2025-11-25",
};

/* Each feature from since, until before until (PVERSION_COUNT: still). */
static const struct {
	enum pversion	 since;
	int		 until;
} pversion_features[PVERSION_FEATURES] = {
	[PVERSION_AUDIO] = { PVERSION_2025_03_26, PVERSION_COUNT },
	[PVERSION_COMPLETIONS] = { PVERSION_2025_03_26, PVERSION_COUNT },
	[PVERSION_BATCH] = { PVERSION_2025_03_26, PVERSION_2025_06_18 },
	[PVERSION_RESOURCE_LINK] = { PVERSION_2025_06_18, PVERSION_COUNT },
	[PVERSION_ELICITATION] = { PVERSION_2025_06_18, PVERSION_COUNT },
	[PVERSION_TITLE] = { PVERSION_2025_06_18, PVERSION_COUNT },
	[PVERSION_TASKS] = { PVERSION_2025_11_25, PVERSION_COUNT },
	[PVERSION_ELICIT_URL] = { PVERSION_2025_11_25, PVERSION_COUNT },
	[PVERSION_SAMPLING_TOOLS] = { PVERSION_2025_11_25, PVERSION_COUNT },
	[PVERSION_ICONS] = { PVERSION_2025_11_25, PVERSION_COUNT },
	[PVERSION_ENUM_SCHEMAS] = { PVERSION_2025_11_25, PVERSION_COUNT },
};

/* What pversion_convert changes, by method. */
enum pversion_kind {
	PVERSION_KIND_NONE,
	PVERSION_KIND_CALL,		/* tools/call: result.content[] */
	PVERSION_KIND_PROMPT,		/* prompts/get: messages[].content */
	PVERSION_KIND_SAMPLING,		/* its params' messages[].content */
	PVERSION_KIND_ELICIT,		/* its params' requestedSchema */
};

const char *
pversion_name(enum pversion v)
{
	return ((unsigned int)v < PVERSION_COUNT ? pversion_names[v] :
	    pversion_names[PVERSION_NEWEST]);
}

int
pversion_parse(const char *name, enum pversion *v)
{
	size_t	 i;

	for (i = 0; name != NULL && i < PVERSION_COUNT; i++) {
		if (strcmp(name, pversion_names[i]) == 0) {
			*v = (enum pversion)i;
			return (0);
		}
	}
	return (-1);
}

enum pversion
pversion_negotiate(const char *asked)
{
	enum pversion	 v;

	if (pversion_parse(asked, &v) != 0)
		return (PVERSION_NEWEST);
	return (v);
}

int
pversion_has(enum pversion v, enum pversion_feature f)
{
	if ((unsigned int)f >= PVERSION_FEATURES)
		return (0);
	return (v >= pversion_features[f].since &&
	    (int)v < pversion_features[f].until);
}

static enum pversion_kind
pversion_kind(const char *method)
{
	if (method == NULL)
		return (PVERSION_KIND_NONE);
	if (strcmp(method, "tools/call") == 0)
		return (PVERSION_KIND_CALL);
	if (strcmp(method, "prompts/get") == 0)
		return (PVERSION_KIND_PROMPT);
	if (strcmp(method, "sampling/createMessage") == 0)
		return (PVERSION_KIND_SAMPLING);
	if (strcmp(method, "elicitation/create") == 0)
		return (PVERSION_KIND_ELICIT);
	return (PVERSION_KIND_NONE);
}

/* A member that is there and not null. */
static const cJSON *
pversion_get(const cJSON *o, const char *name)
{
	const cJSON	*v;

	v = cJSON_GetObjectItemCaseSensitive(o, name);
	return (v == NULL || cJSON_IsNull(v) ? NULL : v);
}

/*
 * Every member of that name out of o (a repeated one too, which a reader
 * may take for the first); how many.
 */
static int
pversion_delete(cJSON *o, const char *name)
{
	cJSON	*m;
	int	 n = 0;

	while ((m = cJSON_DetachItemFromObjectCaseSensitive(o, name)) !=
	    NULL) {
		cJSON_Delete(m);
		n++;
	}
	return (n);
}

static int
pversion_is(const cJSON *o, const char *name, const char *value)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return (cJSON_IsString(v) && strcmp(v->valuestring, value) == 0);
}

/*
 * What a client can be asked.
 */

unsigned int
pversion_client_can(const cJSON *caps, enum pversion v)
{
	const cJSON	*sampling, *elicit, *req;
	unsigned int	 can = 0;

	if (!cJSON_IsObject(caps))
		return (0);
	if ((sampling = pversion_get(caps, "sampling")) != NULL) {
		can |= PVERSION_CAN_SAMPLING;
		if (pversion_has(v, PVERSION_SAMPLING_TOOLS) &&
		    pversion_get(sampling, "tools") != NULL)
			can |= PVERSION_CAN_SAMPLING_TOOLS;
	}
	/* {} is form mode alone, as before modes were named. */
	if ((elicit = pversion_get(caps, "elicitation")) != NULL &&
	    pversion_has(v, PVERSION_ELICITATION)) {
		if (!pversion_has(v, PVERSION_ELICIT_URL) ||
		    pversion_get(elicit, "form") != NULL ||
		    pversion_get(elicit, "url") == NULL)
			can |= PVERSION_CAN_ELICIT_FORM;
		if (pversion_has(v, PVERSION_ELICIT_URL) &&
		    pversion_get(elicit, "url") != NULL)
			can |= PVERSION_CAN_ELICIT_URL;
	}
	if (pversion_has(v, PVERSION_TASKS)) {
		req = pversion_get(pversion_get(caps, "tasks"), "requests");
		if (pversion_get(pversion_get(req, "sampling"),
		    "createMessage") != NULL)
			can |= PVERSION_CAN_TASK_SAMPLING;
		if (pversion_get(pversion_get(req, "elicitation"),
		    "create") != NULL)
			can |= PVERSION_CAN_TASK_ELICIT;
	}
	return (can);
}

/* Does a sampling message's content hold tool_use or tool_result? */
static int
pversion_has_tool_content(const cJSON *params)
{
	const cJSON	*m, *content, *block;

	cJSON_ArrayForEach(m, pversion_get(params, "messages")) {
		content = cJSON_GetObjectItemCaseSensitive(m, "content");
		if (cJSON_IsObject(content)) {
			if (pversion_is(content, "type", "tool_use") ||
			    pversion_is(content, "type", "tool_result"))
				return (1);
			continue;
		}
		cJSON_ArrayForEach(block, content) {
			if (pversion_is(block, "type", "tool_use") ||
			    pversion_is(block, "type", "tool_result"))
				return (1);
		}
	}
	return (0);
}

/* A form property no earlier schema can say: a multi-select. */
static int
pversion_new_only(const cJSON *prop)
{
	return (pversion_is(prop, "type", "array"));
}

/* Does the form require what only 2025-11-25's schema has? */
static int
pversion_form_needs_new(const cJSON *params)
{
	const cJSON	*schema, *props, *name, *prop;

	schema = pversion_get(params, "requestedSchema");
	props = pversion_get(schema, "properties");
	cJSON_ArrayForEach(name, pversion_get(schema, "required")) {
		if (!cJSON_IsString(name))
			continue;
		prop = cJSON_GetObjectItemCaseSensitive(props,
		    name->valuestring);
		if (pversion_new_only(prop))
			return (1);
	}
	return (0);
}

void
pversion_request_needs(const char *method, const cJSON *params,
    struct pversion_needs *needs)
{
	needs->can = 0;
	needs->version = PVERSION_2024_11_05;
	switch (pversion_kind(method)) {
	case PVERSION_KIND_SAMPLING:
		needs->can |= PVERSION_CAN_SAMPLING;
		if (pversion_get(params, "tools") != NULL ||
		    pversion_get(params, "toolChoice") != NULL ||
		    pversion_has_tool_content(params))
			needs->can |= PVERSION_CAN_SAMPLING_TOOLS;
		if (cJSON_IsObject(pversion_get(params, "task")))
			needs->can |= PVERSION_CAN_TASK_SAMPLING;
		break;
	case PVERSION_KIND_ELICIT:
		if (pversion_is(params, "mode", "url"))
			needs->can |= PVERSION_CAN_ELICIT_URL;
		else {
			needs->can |= PVERSION_CAN_ELICIT_FORM;
			if (pversion_form_needs_new(params))
				needs->version = PVERSION_2025_11_25;
		}
		if (cJSON_IsObject(pversion_get(params, "task")))
			needs->can |= PVERSION_CAN_TASK_ELICIT;
		break;
	default:
		break;
	}
}

int
pversion_satisfies(enum pversion v, unsigned int can,
    const struct pversion_needs *needs)
{
	return ((can & needs->can) == needs->can && v >= needs->version);
}

int
pversion_notification(enum pversion v, const char *method)
{
	if (strcmp(method, "notifications/tasks/status") == 0)
		return (pversion_has(v, PVERSION_TASKS));
	if (strcmp(method, "notifications/elicitation/complete") == 0)
		return (pversion_has(v, PVERSION_ELICIT_URL));
	return (1);
}

/*
 * The initialize result.
 */

void
pversion_init_result(cJSON *result, enum pversion v)
{
	cJSON	*caps, *info;

	if (!cJSON_IsObject(result))
		return;
	if (cJSON_GetObjectItemCaseSensitive(result, "protocolVersion") !=
	    NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(result,
		    "protocolVersion", cJSON_CreateString(pversion_name(v)));
	else
		cJSON_AddStringToObject(result, "protocolVersion",
		    pversion_name(v));
	caps = cJSON_GetObjectItemCaseSensitive(result, "capabilities");
	if (!pversion_has(v, PVERSION_COMPLETIONS))
		pversion_delete(caps, "completions");
	if (!pversion_has(v, PVERSION_TASKS))
		pversion_delete(caps, "tasks");
	info = cJSON_GetObjectItemCaseSensitive(result, "serverInfo");
	if (!pversion_has(v, PVERSION_TITLE))
		pversion_delete(info, "title");
	if (!pversion_has(v, PVERSION_ICONS)) {
		pversion_delete(info, "icons");
		pversion_delete(info, "websiteUrl");
		pversion_delete(info, "description");
	}
}

/*
 * Content blocks.
 */

static const char *
pversion_str(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return (cJSON_IsString(v) ? v->valuestring : NULL);
}

/* A text block in place of block, with its annotations. */
static cJSON *
pversion_text_block(const cJSON *block, char *text)
{
	cJSON		*out;
	const cJSON	*ann;

	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "type", "text");
	cJSON_AddStringToObject(out, "text", text);
	free(text);
	if ((ann = cJSON_GetObjectItemCaseSensitive(block, "annotations")) !=
	    NULL && cJSON_IsObject(ann))
		cJSON_AddItemToObject(out, "annotations",
		    cJSON_Duplicate(ann, 1));
	return (out);
}

/*
 * "Resource link "NAME": URI (MIME): DESCRIPTION", what a client that
 * knows no links is told of one: enough to read it (resources/read).
 */
static cJSON *
pversion_link_text(const cJSON *block)
{
	const char	*name, *uri, *mime, *desc;
	char		*text;

	if ((name = pversion_str(block, "title")) == NULL)
		name = pversion_str(block, "name");
	uri = pversion_str(block, "uri");
	mime = pversion_str(block, "mimeType");
	desc = pversion_str(block, "description");
	xasprintf(&text, "Resource link%s%s%s: %s%s%s%s%s%s",
	    name != NULL ? " \"" : "", name != NULL ? name : "",
	    name != NULL ? "\"" : "", uri != NULL ? uri : "(no uri)",
	    mime != NULL ? " (" : "", mime != NULL ? mime : "",
	    mime != NULL ? ")" : "", desc != NULL ? ": " : "",
	    desc != NULL ? desc : "");
	return (pversion_text_block(block, text));
}

static cJSON *
pversion_audio_text(const cJSON *block, enum pversion v)
{
	const char	*mime, *data;
	char		*text;

	mime = pversion_str(block, "mimeType");
	data = pversion_str(block, "data");
	xasprintf(&text, "Audio (%s, %zu bytes) not shown: MCP %s has no "
	    "audio content", mime != NULL ? mime : "no type",
	    data != NULL ? strlen(data) / 4 * 3 : 0, pversion_name(v));
	return (pversion_text_block(block, text));
}

/* A block v has not, made one it has; NULL: it has it. */
static cJSON *
pversion_block(const cJSON *block, enum pversion v)
{
	if (!pversion_has(v, PVERSION_RESOURCE_LINK) &&
	    pversion_is(block, "type", "resource_link"))
		return (pversion_link_text(block));
	if (!pversion_has(v, PVERSION_AUDIO) &&
	    pversion_is(block, "type", "audio"))
		return (pversion_audio_text(block, v));
	return (NULL);
}

/* Every block of an array of them. */
static int
pversion_blocks(cJSON *array, enum pversion v)
{
	cJSON	*block, *next, *out;
	int	 n = 0;

	if (!cJSON_IsArray(array))
		return (0);
	for (block = array->child; block != NULL; block = next) {
		next = block->next;
		if ((out = pversion_block(block, v)) != NULL) {
			cJSON_ReplaceItemViaPointer(array, block, out);
			n++;
		}
	}
	return (n);
}

/* A message's content: one block (or, in sampling, an array). */
static int
pversion_message_content(cJSON *msg, enum pversion v, int sampling)
{
	cJSON	*content, *out, *only;
	int	 n = 0;

	content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	/* An array of one block is that block before 2025-11-25. */
	if (sampling && cJSON_IsArray(content) &&
	    !pversion_has(v, PVERSION_SAMPLING_TOOLS) &&
	    cJSON_GetArraySize(content) == 1 &&
	    cJSON_IsObject(content->child)) {
		only = cJSON_DetachItemFromArray(content, 0);
		cJSON_ReplaceItemInObjectCaseSensitive(msg, "content", only);
		content = only;
		n++;
	}
	if (cJSON_IsArray(content))
		return (n + pversion_blocks(content, v));
	if (cJSON_IsObject(content) &&
	    (out = pversion_block(content, v)) != NULL) {
		cJSON_ReplaceItemInObjectCaseSensitive(msg, "content", out);
		n++;
	}
	return (n);
}

static int
pversion_messages(cJSON *obj, enum pversion v, int sampling)
{
	cJSON	*m;
	int	 n = 0;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(obj,
	    "messages"))
		n += pversion_message_content(m, v, sampling);
	return (n);
}

/*
 * Elicitation forms.
 */

/* A name out of the form's required list. */
static void
pversion_unrequire(cJSON *schema, const char *name)
{
	cJSON	*req, *item;
	int	 i = 0;

	req = cJSON_GetObjectItemCaseSensitive(schema, "required");
	cJSON_ArrayForEach(item, req) {
		if (cJSON_IsString(item) &&
		    strcmp(item->valuestring, name) == 0) {
			cJSON_DeleteItemFromArray(req, i);
			return;
		}
		i++;
	}
}

/* Titled single-select (oneOf of const and title): enum and enumNames. */
static int
pversion_titled_enum(cJSON *prop)
{
	cJSON		*one_of, *values, *names;
	const cJSON	*opt;
	const char	*value, *title;

	one_of = cJSON_GetObjectItemCaseSensitive(prop, "oneOf");
	if (!cJSON_IsArray(one_of))
		return (0);
	values = cJSON_CreateArray();
	names = cJSON_CreateArray();
	cJSON_ArrayForEach(opt, one_of) {
		if ((value = pversion_str(opt, "const")) == NULL)
			continue;
		if ((title = pversion_str(opt, "title")) == NULL)
			title = value;
		cJSON_AddItemToArray(values, cJSON_CreateString(value));
		cJSON_AddItemToArray(names, cJSON_CreateString(title));
	}
	pversion_delete(prop, "oneOf");
	pversion_delete(prop, "enum");
	pversion_delete(prop, "enumNames");
	cJSON_AddItemToObject(prop, "enum", values);
	cJSON_AddItemToObject(prop, "enumNames", names);
	return (1);
}

/*
 * A form as a client before 2025-11-25 reads it: no multi-selects (a
 * required one keeps the request from such clients), titled enums in the
 * legacy enumNames, defaults only on booleans, no mode.
 */
static int
pversion_form(cJSON *params, enum pversion v)
{
	cJSON	*schema, *props, *prop, *next;
	int	 n = 0;

	if (pversion_has(v, PVERSION_ENUM_SCHEMAS))
		return (0);
	if (pversion_is(params, "mode", "form"))
		n += pversion_delete(params, "mode");
	schema = cJSON_GetObjectItemCaseSensitive(params, "requestedSchema");
	props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
	if (!cJSON_IsObject(props))
		return (n);
	for (prop = props->child; prop != NULL; prop = next) {
		next = prop->next;
		if (pversion_new_only(prop)) {
			if (prop->string != NULL)
				pversion_unrequire(schema, prop->string);
			cJSON_Delete(cJSON_DetachItemViaPointer(props, prop));
			n++;
			continue;
		}
		if (pversion_is(prop, "type", "string"))
			n += pversion_titled_enum(prop);
		if (!pversion_is(prop, "type", "boolean"))
			n += pversion_delete(prop, "default");
	}
	return (n);
}

int
pversion_converts(const char *method, enum pversion v)
{
	switch (pversion_kind(method)) {
	case PVERSION_KIND_CALL:
	case PVERSION_KIND_PROMPT:
		return (!pversion_has(v, PVERSION_RESOURCE_LINK) ||
		    !pversion_has(v, PVERSION_AUDIO));
	case PVERSION_KIND_SAMPLING:
		return (!pversion_has(v, PVERSION_AUDIO) ||
		    !pversion_has(v, PVERSION_SAMPLING_TOOLS));
	case PVERSION_KIND_ELICIT:
		return (!pversion_has(v, PVERSION_ENUM_SCHEMAS));
	case PVERSION_KIND_NONE:
		break;
	}
	return (0);
}

int
pversion_convert(cJSON *obj, const char *method, enum pversion v)
{
	if (!cJSON_IsObject(obj) || !pversion_converts(method, v))
		return (0);
	switch (pversion_kind(method)) {
	case PVERSION_KIND_CALL:
		return (pversion_blocks(cJSON_GetObjectItemCaseSensitive(obj,
		    "content"), v));
	case PVERSION_KIND_PROMPT:
		return (pversion_messages(obj, v, 0));
	case PVERSION_KIND_SAMPLING:
		return (pversion_messages(obj, v, 1));
	case PVERSION_KIND_ELICIT:
		return (pversion_form(obj, v));
	case PVERSION_KIND_NONE:
		break;
	}
	return (0);
}

/*
 * Can text hold a block v has not?  Its type's name, or an escape (a
 * name may be spelled with one).  Requests are small and rare: parsed.
 */
static int
pversion_may_change(const char *text, size_t len, const char *method,
    enum pversion v)
{
	switch (pversion_kind(method)) {
	case PVERSION_KIND_CALL:
	case PVERSION_KIND_PROMPT:
		break;
	default:
		return (1);
	}
	if (bytes_has(text, len, "\\u", 2, 0))
		return (1);
	if (!pversion_has(v, PVERSION_RESOURCE_LINK) &&
	    bytes_has(text, len, "resource_link", 13, 8))
		return (1);
	if (!pversion_has(v, PVERSION_AUDIO) &&
	    bytes_has(text, len, "\"audio\"", 7, 1))
		return (1);
	return (0);
}

char *
pversion_convert_text(const char *text, size_t len, const char *method,
    enum pversion v, size_t max, size_t *outlen)
{
	cJSON	*obj;
	char	*out = NULL;

	if (!pversion_converts(method, v) || len > max ||
	    !pversion_may_change(text, len, method, v))
		return (NULL);
	if ((obj = cJSON_ParseWithLength(text, len)) == NULL)
		return (NULL);
	if (pversion_convert(obj, method, v) > 0) {
		out = rpc_print(obj);
		*outlen = strlen(out);
	}
	cJSON_Delete(obj);
	return (out);
}
