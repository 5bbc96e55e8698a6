/*
 * rlink.h -- what mcpd knows of a remote server from its worker.
 *
 * mcpd-remote reports on its status channel (remote/rstatus.h): the
 * transport in use, the session established, lost or recovered, streams
 * resumed, failed HTTP requests and counts by status, and authorization.
 * rlink keeps the latest of each for status and metrics, across the
 * worker's restarts, and puts the events in the journal, rate limited
 * for each kind of event.  Lines are
 * untrusted: anything malformed or unknown is ignored.
 */
#ifndef MCPD_RLINK_H
#define MCPD_RLINK_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct rlink;

struct rlink	*rlink_new(const char *server);
void		 rlink_free(struct rlink *);
/* One status line from the worker running now. */
void		 rlink_line(struct rlink *, const char *line, size_t len);
/* The worker process ended: its session is gone, its counts kept. */
void		 rlink_ended(struct rlink *);
/* A new worker process: what the last one said of authorization goes. */
void		 rlink_started(struct rlink *);
/* The worker said only a sign-in can help: the reason, or NULL. */
const char	*rlink_needs_login(const struct rlink *);
/* A call needed more scope (HTTP 403 insufficient_scope): it, or NULL. */
const char	*rlink_step_up(const struct rlink *);
/*
 * Add to a server's status object: "transport" and "remote" {"session",
 * "protocol", "last_http_status", "last_http_method", "auth",
 * "auth_reason", "token_expires", "signed_in", "refresh",
 * "http_responses": {"200": N, ...}}.
 */
void		 rlink_json(const struct rlink *, cJSON *);
/*
 * A re-exec: what is known of the remote session, as text for the state
 * (malloc'd), and read back by the next mcpd into a new rlink.
 */
char		*rlink_export(const struct rlink *);
void		 rlink_adopt(struct rlink *, const char *text);

#endif /* MCPD_RLINK_H */
