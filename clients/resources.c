/*
 * resources.c -- a server's resources, for people and scripts: the list
 * of resources and of resource templates, every page of each, and one
 * resource read: its text printed, escaped, or its bytes written as they
 * are to a file.  Each command opens its own session (session.h); a
 * group's resources keep their URIs, and mcpd finds the member that
 * listed one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "b64.h"
#include "content.h"
#include "ctl.h"
#include "diag.h"
#include "fdio.h"
#include "out.h"
#include "pages.h"
#include "resources.h"
#include "session.h"
#include "xmalloc.h"

#define RESOURCES_READ_TIMEOUT_MS	60000
#define RESOURCES_URI_MAX_COLUMNS	60

/*
 * Listing.
 */

/* One line each: the URI (or template), its title or name, its type. */
static void
resources_print(const cJSON *list, const char *key)
{
	const cJSON	*r;
	const char	*uri, *name, *mime;
	size_t		 len;
	int		 width = 4;

	cJSON_ArrayForEach(r, list) {
		uri = out_str(r, key);
		len = uri != NULL ? strlen(out_esc(uri)) : 1;
		if ((int)len > width && len <= RESOURCES_URI_MAX_COLUMNS)
			width = (int)len;
	}
	cJSON_ArrayForEach(r, list) {
		uri = out_str(r, key);
		if ((name = out_str(r, "title")) == NULL)
			name = out_str(r, "name");
		mime = out_str(r, "mimeType");
		printf("%-*s  %s%s%s%s\n", width, out_esc(uri != NULL ? uri :
		    "?"), out_esc(name != NULL ? name : ""), mime == NULL ? "" :
		    name != NULL ? " (" : "(", out_esc(mime != NULL ? mime : ""),
		    mime != NULL ? ")" : "");
	}
}

int
resources_list(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*resources, *templates = NULL, *out;
	const char	*server = argv[0];
	int		 rc;

	if ((rc = session_open(ctl->socket_path, server, &s)) != DIAG_EXIT_OK)
		return (rc);
	if (!pages_offers(s, server, "resources")) {
		session_close(s);
		return (DIAG_EXIT_FAILED);
	}
	/* A server without templates may not know the method at all. */
	if ((resources = pages_fetch(s, server, "resources/list", "resources",
	    0, &rc)) != NULL)
		templates = pages_fetch(s, server, "resources/templates/list",
		    "resourceTemplates", PAGES_OPTIONAL, &rc);
	session_close(s);
	if (templates == NULL) {
		cJSON_Delete(resources);
		return (rc);
	}
	if (ctl->json) {
		out = cJSON_CreateObject();
		cJSON_AddItemToObject(out, "resources", resources);
		cJSON_AddItemToObject(out, "resourceTemplates", templates);
		out_json(stdout, out, 0);
		cJSON_Delete(out);
		return (DIAG_EXIT_OK);
	}
	resources_print(resources, "uri");
	if (cJSON_GetArraySize(templates) > 0) {
		printf("%sresource templates:\n",
		    cJSON_GetArraySize(resources) > 0 ? "\n" : "");
		resources_print(templates, "uriTemplate");
	} else if (cJSON_GetArraySize(resources) == 0)
		diag_warnx(server, "the server offers no resources");
	cJSON_Delete(resources);
	cJSON_Delete(templates);
	return (DIAG_EXIT_OK);
}

/*
 * Reading.
 */

/*
 * Each content: a text as it is, escaped, under "[URI TYPE]" when there
 * are several; a blob as one line with its size.
 */
static void
resources_print_contents(const cJSON *contents)
{
	const cJSON	*c;
	const char	*uri, *mime, *text, *blob;
	int		 n = cJSON_GetArraySize(contents);

	cJSON_ArrayForEach(c, contents) {
		uri = out_str(c, "uri");
		mime = out_str(c, "mimeType");
		text = out_str(c, "text");
		blob = out_str(c, "blob");
		if (text != NULL) {
			if (n > 1)
				printf("[%s%s%s]\n", out_esc(uri != NULL ? uri :
				    "?"), mime != NULL ? " " : "",
				    out_esc(mime != NULL ? mime : ""));
			out_text(stdout, text);
		} else if (blob != NULL)
			printf("[blob %s %s, %zu bytes; --output FILE writes "
			    "them]\n", out_esc(uri != NULL ? uri : "?"),
			    out_esc(mime != NULL ? mime : "(no type)"),
			    content_base64_bytes(blob));
		else
			printf("[%s: neither text nor blob]\n",
			    out_esc(uri != NULL ? uri : "?"));
	}
}

/* A content's bytes: its text, or its blob decoded; NULL if neither. */
static char *
resources_bytes(const cJSON *c, size_t *len)
{
	const char	*text, *blob;
	char		*packed, *bytes;
	size_t		 i, n = 0;

	if ((text = out_str(c, "text")) != NULL) {
		*len = strlen(text);
		return (xstrdup(text));
	}
	if ((blob = out_str(c, "blob")) == NULL)
		return (NULL);
	/* Lines and blanks, as some encoders wrap, are not data. */
	packed = xmalloc(strlen(blob) + 1);
	for (i = 0; blob[i] != '\0'; i++)
		if (strchr(" \t\r\n", blob[i]) == NULL)
			packed[n++] = blob[i];
	bytes = b64_decode(packed, n, len);
	free(packed);
	return (bytes);
}

/* The one content's bytes to path ("-": standard output). */
static int
resources_write(const char *server, const char *uri, const cJSON *contents,
    const char *path)
{
	char	*bytes;
	size_t	 len;
	int	 fd, n = cJSON_GetArraySize(contents);

	if (n != 1) {
		diag_warnx(server, "%s: the server returned %d contents; "
		    "--output writes one (--json shows them all)", uri, n);
		return (DIAG_EXIT_FAILED);
	}
	if ((bytes = resources_bytes(cJSON_GetArrayItem(contents, 0),
	    &len)) == NULL) {
		diag_warnx(server, "%s: the content is neither text nor valid "
		    "base64 in a blob", uri);
		return (DIAG_EXIT_FAILED);
	}
	if (strcmp(path, "-") == 0)
		fd = STDOUT_FILENO;
	else if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0666)) == -1) {
		diag_warnx(path, "%s", strerror(errno));
		free(bytes);
		return (DIAG_EXIT_FAILED);
	}
	if (fdio_write_all(fd, bytes, len) == -1 || (fd != STDOUT_FILENO &&
	    close(fd) == -1)) {
		diag_warnx(path, "%s", strerror(errno));
		if (fd != STDOUT_FILENO)
			(void)close(fd);
		free(bytes);
		return (DIAG_EXIT_FAILED);
	}
	free(bytes);
	return (DIAG_EXIT_OK);
}

int
resources_read(struct ctl *ctl, int argc, char **argv)
{
	struct session	*s;
	cJSON		*params, *result, *error;
	const cJSON	*contents;
	const char	*server = argv[0], *uri = argv[1];
	int		 rc;

	if ((rc = session_open(ctl->socket_path, server, &s)) != DIAG_EXIT_OK)
		return (rc);
	if (!pages_offers(s, server, "resources")) {
		session_close(s);
		return (DIAG_EXIT_FAILED);
	}
	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "uri", uri);
	rc = session_request_error(s, "resources/read", params, &result,
	    RESOURCES_READ_TIMEOUT_MS, &error);
	if (error != NULL)
		session_warn_name_error(s, "resources/read",
		    "resource not found: ", uri, error);
	cJSON_Delete(error);
	session_close(s);
	if (rc != DIAG_EXIT_OK)
		return (rc);

	contents = cJSON_GetObjectItemCaseSensitive(result, "contents");
	if (!cJSON_IsArray(contents)) {
		diag_warnx(server, "resources/read: the result has no contents "
		    "array");
		rc = DIAG_EXIT_FAILED;
	} else if (ctl->output != NULL)
		rc = resources_write(server, uri, contents, ctl->output);
	else if (ctl->json)
		out_json(stdout, result, 0);
	else if (cJSON_GetArraySize(contents) == 0)
		diag_warnx(server, "%s: the server returned no contents", uri);
	else
		resources_print_contents(contents);
	cJSON_Delete(result);
	return (rc);
}
