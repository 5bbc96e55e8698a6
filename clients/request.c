/*
 * request.c -- send one JSON-RPC request and wait for its response.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clock.h"
#include "line.h"
#include "request.h"
#include "rpc.h"

/* Is this message the response to req? */
static int
request_is_reply(const struct request *req, const cJSON *msg)
{
	const cJSON	*id;

	if (rpc_classify(msg) != RPC_KIND_RESPONSE)
		return (0);
	id = cJSON_GetObjectItemCaseSensitive(msg, "id");
	return (cJSON_Compare(id, req->id, 1) ||
	    (req->null_id && cJSON_IsNull(id)));
}

/* Is an oversized message, of which the framer kept the id, the reply? */
static int
request_is_oversize_reply(const struct request *req,
    const struct frame_msg *m)
{
	char	*want;
	int	 match;

	if (m->id == NULL || (want = cJSON_PrintUnformatted(req->id)) == NULL)
		return (0);
	match = strlen(want) == m->id_len &&
	    memcmp(want, m->id, m->id_len) == 0;
	free(want);
	return (match);
}

static void
request_send(struct line *l, struct request *req)
{
	cJSON	*msg;
	char	*text;

	msg = rpc_make_request(req->id, req->method, req->params);
	req->params = NULL;
	text = rpc_print(msg);
	cJSON_Delete(msg);
	line_send(l, text);
	free(text);
}

static uint64_t
request_deadline(int timeout_ms)
{
	return (timeout_ms < 0 ? 0 : clock_now_ms() + (uint64_t)timeout_ms);
}

enum request_status
request_run(struct line *l, struct request *req)
{
	struct frame_msg	 m;
	cJSON			*msg;
	uint64_t		 deadline;
	int			 timeout_ms = req->timeout_ms, unsent = 0;

	req->reply = NULL;
	req->error = 0;
	req->size = 0;
	request_send(l, req);
	deadline = request_deadline(timeout_ms);
	for (;;) {
		if (!unsent && line_write_errno(l) != 0 &&
		    req->unsent_wait_ms >= 0) {
			/* A refused connection has mcpd's reason waiting. */
			unsent = 1;
			req->error = line_write_errno(l);
			if (req->unsent_wait_ms == 0)
				return (REQUEST_UNSENT);
			timeout_ms = req->unsent_wait_ms;
			deadline = request_deadline(timeout_ms);
		}
		switch (line_next(l, deadline, &m)) {
		case LINE_MESSAGE:
			msg = cJSON_ParseWithLength(m.line, m.len);
			if (request_is_reply(req, msg)) {
				req->reply = msg;
				return (REQUEST_REPLY);
			}
			if (req->on_request != NULL &&
			    rpc_classify(msg) == RPC_KIND_REQUEST)
				req->on_request(req->arg, msg);
			else if (req->on_notification != NULL &&
			    rpc_classify(msg) == RPC_KIND_NOTIFICATION)
				req->on_notification(req->arg, msg);
			cJSON_Delete(msg);
			if (req->idle)
				deadline = request_deadline(timeout_ms);
			break;
		case LINE_OVERSIZE:
			if (req->any_oversize ||
			    request_is_oversize_reply(req, &m)) {
				req->size = m.total;
				return (unsent ? REQUEST_UNSENT :
				    REQUEST_TOO_LONG);
			}
			break;
		case LINE_GARBAGE:
			req->size = m.total;
			return (unsent ? REQUEST_UNSENT : REQUEST_GARBAGE);
		case LINE_EOF:
			if (unsent)
				return (REQUEST_UNSENT);
			req->error = line_read_errno(l);
			return (REQUEST_CLOSED);
		case LINE_TIMEOUT:
			return (unsent ? REQUEST_UNSENT : REQUEST_TIMEOUT);
		case LINE_POLL_ERROR:
			req->error = errno;
			return (REQUEST_POLL_ERROR);
		}
	}
}
