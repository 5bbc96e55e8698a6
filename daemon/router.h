/*
 * router.h -- many clients, one upstream session per server: every reply
 * to the right caller.
 *
 * Each worker owns one router; each client attached to that server owns an
 * attachment.  The router rewrites ids in both directions (a fresh upstream
 * id per forwarded request, never reused while mcpd runs; a fresh id per
 * server-to-client request), rewrites progress tokens, fans notifications
 * out to the clients that should see them, and answers every request that
 * cannot be completed with exactly one error.
 */
#ifndef MCPD_ROUTER_H
#define MCPD_ROUTER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct attachment;
struct client;
struct envelope_span;
struct filter;
struct glink;
struct mcpd;
struct router;
struct worker;

struct router	*router_new(struct mcpd *, struct worker *);
/* Detaches (and closes) every client first. */
void		 router_free(struct router *);

/* From the worker: the session's life. */
void		 router_session_ready(struct router *, int first);
void		 router_session_down(struct router *, const char *reason);
void		 router_session_unavailable(struct router *);
/* A stdout line, with the plain run the framer saw in it (or NULL). */
void		 router_server_line(struct router *, const char *line,
		    size_t len, const struct envelope_span *plain);
void		 router_server_oversize(struct router *, size_t total,
		    const char *id, size_t id_len);
void		 router_stdin_drained(struct router *);
/*
 * Reload: the filters clients see (filter.h, FILTER_KINDS of them, each
 * NULL or copied).  Every attached client is sent list_changed for each
 * kind that changed; returns those kinds as bits (1 << kind).
 */
unsigned int	 router_set_filters(struct router *,
		    struct filter *const *filters);
/* The capabilities mcpd declares upstream in its initialize. */
cJSON		*router_client_capabilities(const struct router *);

/* From clients. */
struct attachment *router_attach(struct router *, struct client *);
/* A group session's link to this server (group.h) attaches like a client. */
struct attachment *router_attach_link(struct router *, struct glink *);
void		 router_detach(struct attachment *, const char *reason);
/* What became of a client's line. */
enum router_line {
	ROUTER_LINE_TAKEN,	/* routed, held or answered */
	ROUTER_LINE_CONTROL,	/* an mcpd/ request: the control plane's */
};
enum router_line router_client_line(struct attachment *, const char *line,
		    size_t len);
/*
 * A server not shared globally (instance.c, router_roots.c).  move: the
 * client goes to another instance's router (why: for the errors of its
 * requests in flight); settled: its roots are known and it stays, its
 * held requests go on; refuse: no instance can serve it.
 */
void		 router_move(struct attachment *, struct router *,
		    const char *why);
void		 router_roots_settled(struct attachment *);
void		 router_refuse(struct attachment *, const char *why);
struct worker	*router_attachment_worker(const struct attachment *);
/* The user of the client (a group's link: of the group's client). */
uid_t		 router_attachment_uid(const struct attachment *);
/* The instance's roots are known or changed (worker_set_roots). */
void		 router_roots_known(struct router *);
/* Who is attached: [{"pid": P, "uid": U, "client": NAME or null}]. */
cJSON		*router_attached_json(const struct router *);
/* Requests of this client still in flight or held? */
int		 router_attachment_busy(const struct attachment *);

/* For status and metrics. */
size_t		 router_inflight(const struct router *);
/* Send the server a ping of mcpd's own (its answer is consumed). */
void		 router_ping(struct router *);
size_t		 router_clients(const struct router *);
/*
 * For idle stops: 1 while the session has work that needs the server
 * (client requests in flight or held, requests of the server's waiting
 * for a client, resource subscriptions); mcpd's own pings do not count.
 */
int		 router_busy(const struct router *);
/* When a client request last began or ended (monotonic ms; 0: never). */
uint64_t	 router_active_ms(const struct router *);
void		 router_add_stats(const struct router *, cJSON *stats);
/*
 * A re-exec (router_handover.c).  Export: the upstream log level and
 * subscriptions into the state.  Adopt: the session the last mcpd left
 * is this one's; replies to its ids (below next_upstream_id) are dropped
 * and counted; its subscriptions stay with the server for
 * ROUTER_HANDOVER_HOLD_MS, for the clients that come back to take them
 * over (without a second subscribe upstream), and are then let go.
 */
#define ROUTER_HANDOVER_HOLD_MS	60000
struct handover_server;
void		 router_export(const struct router *, struct handover_server *);
void		 router_adopt(struct router *, const struct handover_server *);

#endif /* MCPD_ROUTER_H */
