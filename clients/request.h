/*
 * request.h -- one JSON-RPC request to mcpd and the wait for its
 * response: the request/response loop of every command, of the MCP
 * session and of the attach.
 *
 * request_run sends the request, then reads messages until the response
 * with its id arrives.  Other messages are dropped, but requests from the
 * other side go to req->on_request first.  Callers turn the outcome into
 * their messages and exit codes.
 */
#ifndef MCPD_REQUEST_H
#define MCPD_REQUEST_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct line;

enum request_status {
	REQUEST_REPLY,		/* req->reply: the response (result or error) */
	REQUEST_TIMEOUT,	/* no reply within timeout_ms */
	REQUEST_CLOSED,		/* mcpd closed the connection (req->error) */
	REQUEST_UNSENT,		/* the request could not be sent (req->error) */
	REQUEST_TOO_LONG,	/* the reply is over the limit (req->size) */
	REQUEST_GARBAGE,	/* mcpd sent what is not messages (req->size) */
	REQUEST_POLL_ERROR,	/* poll failed (req->error) */
};

struct request {
	/* What to send. */
	const cJSON	*id;
	const char	*method;
	cJSON		*params;	/* owned (taken by request_run) */

	/* How to wait. */
	int		 timeout_ms;	/* -1: no limit */
	int		 idle;		/* any message restarts timeout_ms */
	int		 null_id;	/* a response with a null id is the
					   reply: mcpd refusing us */
	int		 any_oversize;	/* any message over the limit fails
					   it, not only the reply */
	/*
	 * Once the request cannot be sent: how long to wait for mcpd's reason
	 * (a refusal, with null_id) before REQUEST_UNSENT; 0: not at all, -1:
	 * wait on as for the reply.
	 */
	int		 unsent_wait_ms;
	/* A request from the other side; NULL: dropped. */
	void		(*on_request)(void *arg, const cJSON *msg);
	/* A notification meanwhile; NULL: dropped. */
	void		(*on_notification)(void *arg, const cJSON *msg);
	void		*arg;

	/* The outcome. */
	cJSON		*reply;		/* REQUEST_REPLY; the caller frees it */
	int		 error;		/* an errno, or 0 */
	size_t		 size;		/* TOO_LONG, GARBAGE: bytes */
};

enum request_status	 request_run(struct line *, struct request *);

#endif /* MCPD_REQUEST_H */
