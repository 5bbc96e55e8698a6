/*
 * group.h -- one client session over several servers (a configured group,
 * or the built-in "all").
 *
 * A client attached to a group talks to a group session.  The session
 * has a link to each member server: an attachment to that server's router
 * like any client's (router_attach_link), so every routing rule of a
 * single server holds for each member.  The session answers initialize
 * and ping itself, merges the members' lists (tools and prompts renamed
 * MEMBER SEP NAME, see gname.h), routes calls, reads and completions to
 * the member that offers them, fans logging/setLevel out, and numbers the
 * requests it passes to members and those members pass to the client, so
 * that ids never clash between members.  What it holds for its client is
 * counted in mcpd's memory budget and bounded by client_max_group_bytes.
 */
#ifndef MCPD_GROUP_H
#define MCPD_GROUP_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "router.h"

struct client_handler;
struct conf_group;
struct glink;
struct group_session;
struct ident;
struct iovec;
struct mcpd;

/*
 * What a session calls of its client, a table the client supplies when
 * the session is made (client.c's client_group_peer), so that no group
 * file calls the connection's functions by name.
 */
struct group_peer {
	/* Queue a message given as pieces; the newline is added. */
	void		 (*queue)(void *client, const struct iovec *, int);
	/* Backpressure from the members: stop or go on reading it. */
	void		 (*pause)(void *client, int pause);
	/* End it (marked dead; the session is freed with it, later). */
	void		 (*close)(void *client, const char *reason);
	pid_t		 (*pid)(const void *client);
	uid_t		 (*uid)(const void *client);
	uint64_t	 (*serial)(const void *client);
	uint64_t	 (*principal)(const void *client);
	int		 (*principal_lasts)(const void *client);
	/* Who the app is (ident.h); optional, NULL while not known. */
	const struct ident *(*ident)(const void *client);
};

/* A client attaches to a group: its session, with a link per member. */
struct group_session *group_attach(struct mcpd *, const struct conf_group *,
		    const struct group_peer *, void *client);
/*
 * The client's handler while attached (client.h): its lines, its close
 * (group_detach), its requests in flight, its limits once a second.
 */
extern const struct client_handler group_client_handler;
/* The attach result (server, state, protocolVersion, serverInfo). */
cJSON		*group_attach_result(const struct group_session *);
/* A line from the client. */
enum router_line group_client_line(struct group_session *, const char *line,
		    size_t len);
/* The client went away: detach every link, free the session. */
void		 group_detach(struct group_session *, const char *reason);
/* Requests of the client still in flight? */
int		 group_session_busy(const struct group_session *);
/*
 * Once a second (client.c's cron): while mcpd's memory budget is used up,
 * a session holding more than its share lets go of what it holds for its
 * requests, and answers them with -32015 (group_budget.c).
 */
void		 group_check_limits(struct group_session *);

/* From a member's router, for a link (router.c's peer functions). */
void		 group_link_deliver(struct glink *, const struct iovec *, int);
void		 group_link_pause(struct glink *, int pause);
pid_t		 group_link_pid(const struct glink *);
uid_t		 group_link_uid(const struct glink *);
uint64_t	 group_link_serial(const struct glink *);
void		 group_link_detached(struct glink *, const char *reason);
/* The member's session came up for the first time, or went down. */
void		 group_link_session(struct glink *, int up);

/* Status: the groups, their members' states, sessions and requests. */
cJSON		*group_status_json(struct mcpd *);
/* After a reload: sessions follow their group's new members. */
void		 group_reconfigure(struct mcpd *);
/* At exit: the counters (sessions are gone with their clients). */
void		 group_registry_free(struct mcpd *);
/*
 * group_shadow.c: mcpd has read server's whole list (r, its router): in
 * each group, its descriptions and the other members' compared for names
 * of each other's tools (mcpd->member_listed).
 */
void		 group_shadow_listed(struct mcpd *, struct router *,
		    const char *server);

#endif /* MCPD_GROUP_H */
