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

#include "worker.h"

struct attachment;
struct envelope;
struct envelope_edit;
struct envelope_span;
struct filter;
struct iovec;
struct mcpd;
struct roots;
struct router;
struct shadow_member;
struct shadow_result;
struct worker;

/*
 * The router's upstream: the server it multiplexes, as the worker sees
 * it.  The worker gives this table to router_new (as a transport's user
 * gives it callbacks), so the router never calls up into worker.c; a
 * stand-in (the fuzz target) supplies its own.  Every entry is required.
 */
struct router_upstream {
	const char	*(*name)(const struct worker *);
	const struct conf_server *(*conf)(const struct worker *);
	/* Ready, starting (requests held) or refusing. */
	enum worker_avail (*availability)(const struct worker *);
	char		*(*unavailable_reason)(const struct worker *);
	int		 (*unavailable_code)(const struct worker *);
	/* How long a start may take (requests are held), and its setting. */
	uint32_t	 (*start_limit)(const struct worker *, const char **);
	/* The cached upstream initialize result (JSON text), or NULL. */
	const char	*(*init_result_text)(const struct worker *);
	int		 (*has_init)(const struct worker *);
	int		 (*is_template)(const struct worker *);
	const struct roots *(*roots)(const struct worker *);
	int64_t		 (*next_upstream_id)(struct worker *);
	/* The server's stdin: a message in pieces, or a line with an edit. */
	int		 (*write)(struct worker *, const struct iovec *, int);
	int		 (*write_edit)(struct worker *, const char *line,
			    size_t len, const struct envelope_edit *);
	size_t		 (*stdin_queued)(const struct worker *);
	/* A large stdout line taken from the framer instead of copied. */
	char		*(*steal_line)(struct worker *, const char *line,
			    size_t *size);
	void		 (*dropped_line)(struct worker *, const char *line,
			    size_t len, size_t error_off);
	/* The session's health and life. */
	void		 (*request_timed_out)(struct worker *);
	void		 (*broken)(struct worker *, const char *fmt, ...)
			    __attribute__((format(printf, 2, 3)));
	void		 (*violation)(struct worker *, const char *kind,
			    const char *fmt, ...)
			    __attribute__((format(printf, 3, 4)));
	void		 (*wanted)(struct worker *, const char *why);
	void		 (*unused)(struct worker *);
	/* A client's roots are known: which instance serves it. */
	void		 (*client_roots)(struct attachment *,
			    const struct roots *);
};

/*
 * An attachment's peer: a client's connection (client.c) or a group
 * session's link to this server (group.c).  Each supplies this table
 * with router_attach; the router never asks which kind it holds.
 * Entries marked optional may be NULL.
 */
struct ident;

struct router_peer {
	void		 (*queue)(void *peer, const struct iovec *, int);
	/* A line with one edit applied; optional (spliced, then queue). */
	void		 (*queue_edit)(void *peer, const char *line,
			    size_t len, const struct envelope_edit *);
	/* Pieces over mem, which the peer takes; optional (queue, free). */
	void		 (*queue_owned)(void *peer, const struct iovec *, int,
			    void *mem, size_t size);
	void		 (*pause)(void *peer, int pause);
	/* Nothing of this peer's in flight any more; optional. */
	void		 (*idle)(void *peer);
	/* The router let go of it (it is being freed, or refused). */
	void		 (*detached)(void *peer, const char *reason);
	/* The server's session came up or went down; optional. */
	void		 (*session)(void *peer, int up);
	pid_t		 (*pid)(const void *peer);
	uid_t		 (*uid)(const void *peer);
	uint64_t	 (*serial)(const void *peer);
	/*
	 * Who the client is to mcpd: its tasks are this principal's alone
	 * (a group's link: its client's).  principal_lasts, optional: the
	 * principal outlives the connection (a bridge's, which comes back),
	 * so its tasks are kept when it goes.
	 */
	uint64_t	 (*principal)(const void *peer);
	int		 (*principal_lasts)(const void *peer);
	/*
	 * Who the app is (ident.h); optional, and NULL while not known: the
	 * uid alone then.
	 */
	const struct ident *(*ident)(const void *peer);
	/* An admin's roots are not narrowed; optional (not one). */
	int		 (*is_admin)(const void *peer);
	/*
	 * A group's link: its session has its own roots (never asked of
	 * it), and it is not a client of the server's own.
	 */
	int		 link;
};

struct router	*router_new(struct mcpd *, const struct router_upstream *,
		    struct worker *);
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
/*
 * Reload: the policies of "clients" (cpolicy.h; NULL: none).  Each
 * attached client's policy is decided again from its identity; it is
 * sent list_changed for each kind its policy now narrows otherwise.
 * Returns how many clients' policies changed what they may see.
 */
struct cpolicies;
size_t		 router_set_policies(struct router *,
		    const struct cpolicies *);
/* The capabilities mcpd declares upstream in its initialize. */
cJSON		*router_client_capabilities(const struct router *);
/*
 * A server of MCP 2026-07-28 (worker_modern.c, worker_modern_input.c).
 * The capabilities, as JSON text, of the client whose request went to
 * the server under upstream_id (router_caps.c), or NULL: mcpd's own.
 * A request of the server's, asking for input for that request, given
 * to that client alone (router_down.c): 0 once sent (or answered by
 * mcpd: roots), or -1 with *why (malloc'd) when it cannot be.
 */
const char	*router_caller_caps(struct router *, int64_t upstream_id);
int		 router_server_request_for(struct router *, const char *line,
		    size_t len, int64_t upstream_id, char **why);

/* From clients, and group sessions' links (group.h): a peer attaches. */
struct attachment *router_attach(struct router *, const struct router_peer *,
		    void *peer);
void		 router_detach(struct attachment *, const char *reason);
/* What became of a client's line. */
enum router_line {
	ROUTER_LINE_TAKEN,	/* routed, held or answered */
	ROUTER_LINE_CONTROL,	/* an mcpd/ request: the control plane's */
};
enum router_line router_client_line(struct attachment *, const char *line,
		    size_t len);
/* The same for a line its caller scanned already (envelope_scan: 0). */
enum router_line router_client_line_env(struct attachment *,
		    const char *line, size_t len, const struct envelope *);
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
/* Does the client's MCP revision have JSON-RPC batches (2025-03-26)? */
int		 router_attachment_batches(const struct attachment *);

/*
 * The tasks of an attachment's principal on this server (router_tasks.c),
 * for a group routing them: does it own the task with mcpd's id; all of
 * its tasks, as an array of Task objects in the order made (taken).
 */
int		 router_task_owned(const struct attachment *, const char *id);
cJSON		*router_tasks_of(const struct attachment *);

/*
 * Pins (router_pins.c): what the server changed since its definitions
 * were approved, as mcpd/pins shows it; approving the changes of names
 * (n of them; 0: all), each added to approved: 1 if any was, 0 if none;
 * *cause (malloc'd) says why one could not be.
 */
cJSON		*router_pins_json(struct router *);
/* Is a change of name (of any kind) known? */
int		 router_pins_holds(const struct router *, const char *name);
int		 router_pins_approve(struct router *, char *const *names,
		    size_t n, cJSON *approved, char **cause);
/*
 * Shadowing (router_shadow.c): the profile of the server's own lists
 * (NULL until mcpd has read one), and what a comparison with another
 * member of group found, replacing what the last one did.
 */
const struct shadow_member *router_shadow_profile(const struct router *);
void		 router_shadow_found(struct router *, const char *group,
		    const char *other, const struct shadow_result *);
/*
 * Whether the pair of members a and b of the built-in group g ("all") is
 * another group's too, with the same separator: that group reports what
 * the pair's texts say, and "all" leaves it out, lest each finding be
 * reported twice.  0 for any group but the built-in one.
 */
struct conf;
struct conf_group;
int		 router_shadow_elsewhere(const struct conf *,
		    const struct conf_group *g, const char *a, const char *b);

/*
 * A client's call (line, a tools/call, prompts/get or resources/read)
 * that a group refused itself for the member a links it to (reason
 * "policy" or "filter", code the error it was answered): counted for
 * the client's app and recorded by the member's "audit" as the member's
 * own refusals are (router_audit.c).
 */
void		 router_refused_for(struct attachment *a, const char *line,
		    size_t len, const char *reason, int code);

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
