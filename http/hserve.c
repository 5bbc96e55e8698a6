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
#include "hreq.h"
#include "modern.h"
#include "htoken.h"
#include "proto.h"
#include "xmalloc.h"

void
hserve_error(struct evhttp_request *req, int status, const char *reason,
    const char *message)
{
	(void)reason;	/* evhttp's phrase for the status */
	hserve_error_code(req, status, status == 404 ? -32001 : -32000,
	    message);
}

void
hserve_error_code(struct evhttp_request *req, int status, int code,
    const char *message)
{
	struct evbuffer	*b;
	cJSON		*body, *error;
	char		*text;

	body = cJSON_CreateObject();
	cJSON_AddStringToObject(body, "jsonrpc", "2.0");
	cJSON_AddNullToObject(body, "id");
	error = cJSON_AddObjectToObject(body, "error");
	cJSON_AddNumberToObject(error, "code", code);
	cJSON_AddStringToObject(error, "message", message);
	if (code == HREQ_UNSUPPORTED)
		cJSON_AddItemToObject(error, "data", cJSON_Parse(
		    "{\"supported\":" MODERN_SUPPORTED_JSON "}"));
	text = cJSON_PrintUnformatted(body);
	cJSON_Delete(body);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/json");
	b = evbuffer_new();
	evbuffer_add(b, text, strlen(text));
	evhttp_send_reply(req, status, NULL, b);
	evbuffer_free(b);
	free(text);
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
	if (hsess_room(f, t->name) != 0) {
		hserve_error(req, 429, "Too Many Requests", "too many "
		    "sessions for this token, each with a stream or a request "
		    "waiting (max_sessions_per_token)");
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
	struct hreq_hdrs	 h;
	struct hreq_msg		 m;
	struct hsess		*s;
	size_t			 len = evbuffer_get_length(body);

	h.content_type = evhttp_find_header(in, "Content-Type");
	h.accept = evhttp_find_header(in, "Accept");
	h.version = evhttp_find_header(in, "MCP-Protocol-Version");
	h.mcp_method = evhttp_find_header(in, "Mcp-Method");
	h.mcp_name = evhttp_find_header(in, "Mcp-Name");
	if (hreq_body(&h, (const char *)evbuffer_pullup(body, -1), len,
	    &m) != 0)
		hserve_error_code(req, m.status, m.code, m.why);
	else if (m.modern)
		hmodern_post(f, req, target, t->name, &m);
	else if (m.is_init)
		hserve_initialize(f, req, target, t, m.line);
	else if ((s = hserve_session(f, req, target, t)) != NULL)
		hsess_post(s, req, m.line, m.is_request, m.idtext, m.sse_ok);
	hreq_msg_free(&m);
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
	if ((target = hreq_target(uri != NULL ? evhttp_uri_get_path(uri) :
	    NULL, uri != NULL ? evhttp_uri_get_query(uri) : NULL)) == NULL) {
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
	if (hreq_version(evhttp_find_header(in, "MCP-Protocol-Version")) ==
	    0) {
		hserve_error_code(req, 400, HREQ_UNSUPPORTED, "unsupported "
		    "MCP-Protocol-Version");
		goto out;
	}
	hserve_method(f, req, target, t);
out:
	free(target);
}
