/*
 * hserve.c -- one HTTP request to mcpd-http, checked in the order that
 * keeps a web page out (DNS rebinding) before anything else: the Host
 * header names a listen address or an allowed host, an Origin header is
 * one allowed, a bearer token is valid and reaches the server or group in
 * the path (/servers/NAME/mcp, /groups/NAME/mcp), MCP-Protocol-Version,
 * if sent, is one mcpd speaks.  Then POST (a JSON-RPC message), GET (the
 * session's stream) and DELETE (the session's end) go to hsess.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <cjson/cJSON.h>

#include "hfront.h"
#include "htoken.h"
#include "proto.h"
#include "xmalloc.h"

#define HSERVE_NAME_MAX		128

static const char *hserve_versions[] = MCPD_MCP_VERSIONS_ACCEPTED;

void
hserve_error(struct evhttp_request *req, int status, const char *reason,
    const char *message)
{
	struct evbuffer	*b;
	cJSON		*body, *error;
	char		*text;

	body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "jsonrpc", "2.0");
	cJSON_AddNullToObject(body, "id");
	error = cJSON_AddObjectToObject(body, "error");
	cJSON_AddNumberToObject(error, "code", status == 404 ? -32001 :
	    -32000);
	cJSON_AddStringToObject(error, "message", message);
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/json");
	b = evbuffer_new();
	evbuffer_add(b, text, strlen(text));
	evhttp_send_reply(req, status, reason, b);
	evbuffer_free(b);
	free(text);
}

/* "/servers/NAME/mcp" or "/groups/NAME/mcp": NAME, malloc'd, or NULL. */
static char *
hserve_target(const char *path)
{
	const char	*rest, *end;
	size_t		 i, len;

	if (path == NULL)
		return (NULL);
	if (strncmp(path, "/servers/", 9) == 0)
		rest = path + 9;
	else if (strncmp(path, "/groups/", 8) == 0)
		rest = path + 8;
	else
		return (NULL);
	if ((end = strchr(rest, '/')) == NULL || strcmp(end, "/mcp") != 0)
		return (NULL);
	len = end - rest;
	if (len == 0 || len > HSERVE_NAME_MAX)
		return (NULL);
	for (i = 0; i < len; i++) {
		if (!((rest[i] >= 'a' && rest[i] <= 'z') ||
		    (rest[i] >= 'A' && rest[i] <= 'Z') ||
		    (rest[i] >= '0' && rest[i] <= '9') ||
		    rest[i] == '.' || rest[i] == '_' || rest[i] == '-'))
			return (NULL);
	}
	return (xstrndup(rest, len));
}

static int
hserve_version_ok(const char *v)
{
	size_t	 i;

	if (v == NULL)
		return (1);
	for (i = 0; hserve_versions[i] != NULL; i++)
		if (strcmp(hserve_versions[i], v) == 0)
			return (1);
	return (0);
}

static int
hserve_accepts(const char *accept, const char *type)
{
	return (accept == NULL || strstr(accept, type) != NULL ||
	    strstr(accept, "*/*") != NULL);
}

/* The session a request names, if it is this token's and this path's. */
static struct hsess *
hserve_session(struct hfront *f, struct evhttp_request *req,
    const char *target, const struct htoken *t)
{
	struct hsess	*s;
	const char	*id;

	id = evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Mcp-Session-Id");
	if (id == NULL) {
		hserve_error(req, 400, NULL, "Mcp-Session-Id is required "
		    "(initialize first)");
		return (NULL);
	}
	s = hsess_find(f, id);
	if (s == NULL || strcmp(hsess_token(s), t->name) != 0 ||
	    strcmp(hsess_target(s), target) != 0) {
		hserve_error(req, 404, NULL, "no such session (it ended, or "
		    "expired): initialize again");
		return (NULL);
	}
	return (s);
}

static void
hserve_initialize(struct hfront *f, struct evhttp_request *req,
    const char *target, const struct htoken *t, const char *line)
{
	if (evhttp_find_header(evhttp_request_get_input_headers(req),
	    "Mcp-Session-Id") != NULL) {
		hserve_error(req, 400, NULL, "initialize opens a session: "
		    "send it without Mcp-Session-Id");
		return;
	}
	if (f->nsessions >= f->conf->max_sessions) {
		hserve_error(req, 503, "Service Unavailable", "too many "
		    "sessions (max_sessions)");
		return;
	}
	if (hsess_count(f, t->name) >= f->conf->max_sessions_per_token) {
		hserve_error(req, 429, "Too Many Requests", "too many "
		    "sessions for this token (max_sessions_per_token)");
		return;
	}
	hsess_open(f, req, target, t->name, line);
}

static void
hserve_post(struct hfront *f, struct evhttp_request *req,
    const char *target, const struct htoken *t)
{
	struct evkeyvalq	*in = evhttp_request_get_input_headers(req);
	struct evbuffer		*body = evhttp_request_get_input_buffer(req);
	const char		*ctype, *accept;
	const cJSON		*method, *id;
	struct hsess		*s;
	cJSON			*msg;
	char			*line, *idtext;
	size_t			 len = evbuffer_get_length(body);

	ctype = evhttp_find_header(in, "Content-Type");
	if (ctype == NULL || strncasecmp(ctype, "application/json", 16) != 0) {
		hserve_error(req, 415, "Unsupported Media Type", "expected "
		    "Content-Type: application/json");
		return;
	}
	accept = evhttp_find_header(in, "Accept");
	if (!hserve_accepts(accept, "application/json") &&
	    !hserve_accepts(accept, "text/event-stream")) {
		hserve_error(req, 406, "Not Acceptable", "Accept must take "
		    "application/json or text/event-stream");
		return;
	}
	msg = cJSON_ParseWithLength((const char *)evbuffer_pullup(body, -1),
	    len);
	if (!cJSON_IsObject(msg) || !cJSON_IsString(
	    cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc"))) {
		cJSON_Delete(msg);
		hserve_error(req, 400, NULL, cJSON_IsArray(msg) ? "batches "
		    "are not taken (MCP 2025-06-18 and later)" : "expected one "
		    "JSON-RPC message (an object)");
		return;
	}
	method = cJSON_GetObjectItemCaseSensitive(msg, "method");
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	line = cJSON_PrintUnformatted(msg);
	idtext = id != NULL ? cJSON_PrintUnformatted(id) : NULL;
	if (cJSON_IsString(method) && id != NULL &&
	    strcmp(method->valuestring, "initialize") == 0)
		hserve_initialize(f, req, target, t, line);
	else if ((s = hserve_session(f, req, target, t)) != NULL)
		hsess_post(s, req, line, cJSON_IsString(method) && id != NULL,
		    idtext, accept != NULL &&
		    strstr(accept, "text/event-stream") != NULL);
	cJSON_Delete(msg);
	free(line);
	free(idtext);
}

static void
hserve_method(struct hfront *f, struct evhttp_request *req,
    const char *target, const struct htoken *t)
{
	struct hsess	*s;
	const char	*accept;

	switch (evhttp_request_get_command(req)) {
	case EVHTTP_REQ_POST:
		hserve_post(f, req, target, t);
		break;
	case EVHTTP_REQ_GET:
		accept = evhttp_find_header(
		    evhttp_request_get_input_headers(req), "Accept");
		if (accept == NULL ||
		    strstr(accept, "text/event-stream") == NULL) {
			hserve_error(req, 406, "Not Acceptable", "the GET "
			    "stream is text/event-stream");
			break;
		}
		if ((s = hserve_session(f, req, target, t)) != NULL)
			hsess_get(s, req, evhttp_find_header(
			    evhttp_request_get_input_headers(req),
			    "Last-Event-ID"));
		break;
	case EVHTTP_REQ_DELETE:
		if ((s = hserve_session(f, req, target, t)) != NULL) {
			hsess_close(s, "DELETE");
			evhttp_send_reply(req, 200, "OK", NULL);
		}
		break;
	default:
		evhttp_add_header(evhttp_request_get_output_headers(req),
		    "Allow", "GET, POST, DELETE");
		hserve_error(req, 405, "Method Not Allowed", "expected GET, "
		    "POST or DELETE");
		break;
	}
}

void
hserve_request(struct evhttp_request *req, void *arg)
{
	struct hfront		*f = arg;
	struct evkeyvalq	*in = evhttp_request_get_input_headers(req);
	const struct evhttp_uri	*uri = evhttp_request_get_evhttp_uri(req);
	const struct htoken	*t;
	const char		*origin;
	char			*target;

	(void)hfront_conn(f, req);
	if (!conf_http_host_allowed(f->conf, evhttp_find_header(in, "Host"))) {
		hserve_error(req, 403, "Forbidden", "this Host is not served "
		    "(allowed_hosts)");
		return;
	}
	origin = evhttp_find_header(in, "Origin");
	if (origin != NULL && !conf_http_origin_allowed(f->conf, origin)) {
		hserve_error(req, 403, "Forbidden", "this Origin is not "
		    "allowed (allowed_origins)");
		return;
	}
	if ((target = hserve_target(uri != NULL ? evhttp_uri_get_path(uri) :
	    NULL)) == NULL || evhttp_uri_get_query(uri) != NULL) {
		free(target);
		hserve_error(req, 404, "Not Found", "expected /servers/NAME/mcp "
		    "or /groups/NAME/mcp");
		return;
	}
	if ((t = hauth_check(f, req)) == NULL)
		goto out;
	if (!htoken_allows(t, target)) {
		hserve_error(req, 403, "Forbidden", "this token does not reach "
		    "this server or group");
		goto out;
	}
	if (!hserve_version_ok(evhttp_find_header(in,
	    "MCP-Protocol-Version"))) {
		hserve_error(req, 400, NULL, "unsupported MCP-Protocol-Version");
		goto out;
	}
	hserve_method(f, req, target, t);
out:
	free(target);
}
