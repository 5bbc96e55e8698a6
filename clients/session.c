/*
 * session.c -- a synchronous MCP client over an attached mcpd connection.
 *
 * One request is outstanding at a time.  While waiting for it the session
 * keeps reading (so a server that talks while we write cannot deadlock
 * us), skips notifications and late replies, and answers the server's
 * own requests: ping with {}, anything else with method not found, since
 * this client declares no capabilities.  Incoming lines go through the
 * shared framer (line.h), so a reply of any size up to
 * SESSION_MAX_MESSAGE_BYTES is read in linear time.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "connect.h"
#include "diag.h"
#include "line.h"
#include "proto.h"
#include "request.h"
#include "rpc.h"
#include "session.h"
#include "xmalloc.h"

#define SESSION_MAX_MESSAGE_BYTES	(64 * 1024 * 1024)
#define SESSION_INIT_TIMEOUT_MS		60000
#define SESSION_CLOSE_FLUSH_MS		1000

struct session {
	char		*server;
	struct line	*line;
	int64_t		 next_id;
	int		 idle_deadline;	/* any message from mcpd extends it */
	cJSON		*init_result;
};

/* Queue one message (owned) for sending. */
static void
session_send(struct session *s, cJSON *msg)
{
	char	*text;

	text = rpc_print(msg);
	cJSON_Delete(msg);
	line_send(s->line, text);
	free(text);
}

/* A request from the server, while we wait for our reply. */
static void
session_answer(void *arg, const cJSON *request)
{
	struct session	*s = arg;
	const cJSON	*id, *method;
	char		*text;

	id = cJSON_GetObjectItemCaseSensitive(request, "id");
	method = cJSON_GetObjectItemCaseSensitive(request, "method");
	if (strcmp(method->valuestring, "ping") == 0) {
		session_send(s, rpc_make_result(id, cJSON_CreateObject()));
		return;
	}
	xasprintf(&text, "method not found: mcpctl does not handle %.64s",
	    method->valuestring);
	session_send(s, rpc_make_error(id, RPC_METHOD_NOT_FOUND, text, NULL));
	free(text);
}

/* Tell the server we no longer wait for request id. */
static void
session_cancel(struct session *s, const cJSON *id, const char *reason)
{
	cJSON	*params;

	params = cJSON_CreateObject();
	cJSON_AddItemToObject(params, "requestId", cJSON_Duplicate(id, 1));
	cJSON_AddStringToObject(params, "reason", reason);
	session_send(s, rpc_make_notification("notifications/cancelled",
	    params));
}

/* No reply to req: say why, return the exit code. */
static int
session_failed(struct session *s, enum request_status status,
    const struct request *req)
{
	switch (status) {
	case REQUEST_TIMEOUT:
		diag_warnx(s->server, "%s: no %s within %d ms", req->method,
		    req->idle ? "word from mcpd" : "reply", req->timeout_ms);
		session_cancel(s, req->id, "mcpctl timed out");
		return (DIAG_EXIT_UNREACHABLE);		/* mcpd is stuck */
	case REQUEST_CLOSED:
	case REQUEST_UNSENT:
		if (req->error != 0 && req->error != ECONNRESET)
			diag_warnx(s->server, "%s: mcpd closed the connection: "
			    "%s", req->method, strerror(req->error));
		else
			diag_warnx(s->server, "%s: mcpd closed the connection",
			    req->method);
		return (DIAG_EXIT_FAILED);
	case REQUEST_TOO_LONG:
		diag_warnx(s->server, "%s: the reply has %zu bytes, more than "
		    "mcpctl's limit of %d", req->method, req->size,
		    SESSION_MAX_MESSAGE_BYTES);
		return (DIAG_EXIT_FAILED);
	case REQUEST_GARBAGE:
		diag_warnx(s->server, "%s: mcpd sent %zu bytes that are not a "
		    "message", req->method, req->size);
		return (DIAG_EXIT_FAILED);
	case REQUEST_POLL_ERROR:
		diag_warnx(s->server, "poll: %s", strerror(req->error));
		return (DIAG_EXIT_FAILED);
	case REQUEST_REPLY:
		break;
	}
	return (DIAG_EXIT_OK);
}

void
session_warn_error(const struct session *s, const char *method,
    const cJSON *error)
{
	const cJSON	*message, *code;
	const char	*text;
	size_t		 len;

	message = cJSON_GetObjectItemCaseSensitive(error, "message");
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	text = cJSON_IsString(message) ? message->valuestring :
	    "the server returned an error";
	/* mcpd's own messages start with the server's name. */
	len = strlen(s->server);
	if (strncmp(text, s->server, len) == 0 &&
	    strncmp(text + len, ": ", 2) == 0)
		text += len + 2;
	diag_warnx(s->server, "%s: %s (error %d)", method, text,
	    cJSON_IsNumber(code) ? code->valueint : 0);
}

void
session_warn_name_error(const struct session *s, const char *method,
    const char *unknown, const char *typed, const cJSON *error)
{
	const cJSON	*m, *code;
	const char	*message, *name;
	size_t		 len, nlen, tlen, hlen, ulen = strlen(unknown);
	int		 c;

	m = cJSON_GetObjectItemCaseSensitive(error, "message");
	code = cJSON_GetObjectItemCaseSensitive(error, "code");
	message = cJSON_IsString(m) ? m->valuestring : NULL;
	c = cJSON_IsNumber(code) ? code->valueint : 0;
	if (message == NULL || strncmp(message, unknown, ulen) != 0) {
		session_warn_error(s, method, error);
		return;
	}
	len = strlen(message);
	hlen = strlen(MCPD_FILTER_HIDDEN_NOTE);
	if (len >= hlen && strcmp(message + len - hlen,
	    MCPD_FILTER_HIDDEN_NOTE) == 0) {
		diag_warnx(s->server, "%s: %s: hidden by a filter in mcpd's "
		    "configuration (error %d)", method, typed, c);
		return;
	}
	name = message + ulen;
	nlen = strcspn(name, " ");
	tlen = strlen(typed);
	if (nlen > 0 && nlen <= tlen && memcmp(typed + tlen - nlen, name,
	    nlen) == 0)
		diag_warnx(s->server, "%s: %s%s%s (error %d)", method,
		    unknown, typed, name + nlen, c);
	else
		session_warn_error(s, method, error);
}

int
session_request(struct session *s, const char *method, cJSON *params,
    cJSON **result, int timeout_ms)
{
	return (session_request_error(s, method, params, result, timeout_ms,
	    NULL));
}

int
session_request_error(struct session *s, const char *method, cJSON *params,
    cJSON **result, int timeout_ms, cJSON **errorp)
{
	struct request		 req;
	enum request_status	 status;
	const cJSON		*error;
	int			 rc;

	*result = NULL;
	if (errorp != NULL)
		*errorp = NULL;
	memset(&req, 0, sizeof req);
	req.id = cJSON_CreateNumber((double)++s->next_id);
	req.method = method;
	req.params = params;
	req.timeout_ms = timeout_ms;
	req.idle = s->idle_deadline;
	req.unsent_wait_ms = -1;	/* reading tells the rest */
	req.on_request = session_answer;
	req.arg = s;
	status = request_run(s->line, &req);
	rc = session_failed(s, status, &req);
	cJSON_Delete((cJSON *)req.id);
	if (rc != DIAG_EXIT_OK)
		return (rc);

	if ((error = cJSON_GetObjectItemCaseSensitive(req.reply, "error")) !=
	    NULL) {
		if (errorp != NULL)
			*errorp = cJSON_DetachItemFromObjectCaseSensitive(
			    req.reply, "error");
		else
			session_warn_error(s, method, error);
		cJSON_Delete(req.reply);
		return (DIAG_EXIT_FAILED);
	}
	*result = cJSON_DetachItemFromObjectCaseSensitive(req.reply, "result");
	cJSON_Delete(req.reply);
	return (DIAG_EXIT_OK);
}

void
session_idle_timeouts(struct session *s)
{
	s->idle_deadline = 1;
}

static int
session_version_known(const char *version)
{
	static const char	*versions[] = MCPD_MCP_VERSIONS_ACCEPTED;
	size_t			 i;

	for (i = 0; versions[i] != NULL; i++) {
		if (strcmp(versions[i], version) == 0)
			return (1);
	}
	return (0);
}

int
session_open(const char *socket_path, const char *server,
    struct session **out)
{
	struct session	*s;
	cJSON		*params, *info, *result;
	const cJSON	*version;
	char		*extra;
	size_t		 extra_len;
	int		 fd, rc;

	*out = NULL;
	if ((rc = connect_attach(socket_path, server, server, &fd, &extra,
	    &extra_len)) != DIAG_EXIT_OK)
		return (rc);
	s = xcalloc(1, sizeof *s);
	s->server = xstrdup(server);
	s->line = line_new(fd, SESSION_MAX_MESSAGE_BYTES, extra, extra_len);
	free(extra);

	params = cJSON_CreateObject();
	cJSON_AddStringToObject(params, "protocolVersion", MCPD_MCP_VERSION);
	cJSON_AddObjectToObject(params, "capabilities");
	info = cJSON_AddObjectToObject(params, "clientInfo");
	cJSON_AddStringToObject(info, "name", "mcpctl");
	cJSON_AddStringToObject(info, "version", PACKAGE_VERSION);
	if ((rc = session_request(s, "initialize", params, &result,
	    SESSION_INIT_TIMEOUT_MS)) != DIAG_EXIT_OK)
		goto fail;
	s->init_result = result;
	version = cJSON_GetObjectItemCaseSensitive(result, "protocolVersion");
	if (!cJSON_IsString(version) ||
	    !session_version_known(version->valuestring)) {
		diag_warnx(server, "the server speaks MCP %s, which mcpctl "
		    "does not", cJSON_IsString(version) ?
		    version->valuestring : "(no version)");
		rc = DIAG_EXIT_FAILED;
		goto fail;
	}
	session_send(s, rpc_make_notification("notifications/initialized",
	    NULL));
	*out = s;
	return (DIAG_EXIT_OK);

fail:
	session_close(s);
	return (rc);
}

const cJSON *
session_init_result(const struct session *s)
{
	return (s->init_result);
}

void
session_close(struct session *s)
{
	if (s == NULL)
		return;
	/* Let queued answers and notifications go, briefly. */
	line_drain(s->line, clock_now_ms() + SESSION_CLOSE_FLUSH_MS);
	line_free(s->line);
	cJSON_Delete(s->init_result);
	free(s->server);
	free(s);
}
