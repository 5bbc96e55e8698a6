/*
 * content.c -- MCP content blocks printed for people.  Whatever a server
 * wrote is escaped (out.h): a text keeps its lines and tabs, a name or a
 * URI in brackets is one line.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "content.h"
#include "esc.h"
#include "out.h"

char *
content_first_line(const char *text)
{
	const char	*end;

	while (*text == '\n' || *text == '\r' || *text == ' ' ||
	    *text == '\t')
		text++;
	end = text + strcspn(text, "\r\n");
	while (end > text && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return (esc_text(text, (size_t)(end - text), 0));
}

size_t
content_base64_bytes(const char *data)
{
	size_t	 chars = 0;

	for (; *data != '\0'; data++) {
		if (strchr("=\r\n\t ", *data) == NULL)
			chars++;
	}
	return (chars * 3 / 4);
}

void
content_print(FILE *f, const cJSON *item)
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
		    data != NULL ? content_base64_bytes(data) : 0);
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
			    data != NULL ? content_base64_bytes(data) : 0);
		}
	} else
		fprintf(f, "[%s content]\n", out_esc(type));
}
