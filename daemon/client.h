/*
 * client.h -- one connection on the control socket.
 *
 * Reads newline-delimited JSON-RPC, answers bad input with the JSON-RPC
 * error the spec asks for, hands each line to its handler (control.c's,
 * or an attachment's in front of it).  A client is
 * never freed inside its own callback: client_lost (client_close from
 * other modules) marks it dead and a deferred event frees it.  The servers
 * it follows are a set it keeps for logs.c, which sends it their stderr.
 */
#ifndef MCPD_CLIENT_H
#define MCPD_CLIENT_H

#include <sys/types.h>

#include <stdint.h>

#include <cjson/cJSON.h>

#define CLIENT_MAX_MESSAGE_BYTES	(16 * 1024 * 1024)

struct envelope;
struct envelope_edit;
struct follow_set;
struct group_peer;
struct ident;
struct iovec;
struct mcpd;
struct client;
struct router_peer;

/*
 * What a connection's lines go to, and who is told when it goes, so that
 * client.c calls no subsystem by name.  Every connection has a base
 * handler from its accept (mcpd->client_base: control.c's, which also
 * ends its log follows and sign-ins); attaching it to a server or a group
 * puts a session handler in front, which hands the base what is not its
 * (the mcpd/ requests).  One indirect call a line, nothing allocated.
 */
struct client_handler {
	/* A line; non-zero: not this handler's, to the base handler. */
	int	 (*line)(struct client *, void *arg, const char *line,
		    size_t len);
	/*
	 * The same for a line its caller scanned already (envelope_scan
	 * returned 0 for it), sparing a second scan; optional.
	 */
	int	 (*line_env)(struct client *, void *arg, const char *line,
		    size_t len, const struct envelope *);
	/* It was marked dead (maybe inside a caller's callback); optional. */
	void	 (*lost)(struct client *, void *arg);
	/* It is being freed, from its deferred event: let go; optional. */
	void	 (*close)(struct client *, void *arg);
	/* Something of its still in flight (a half-close waits); optional. */
	int	 (*busy)(void *arg);
	/* Once a second (client.c's cron); optional. */
	void	 (*cron)(void *arg);
	/*
	 * Does the session take JSON-RPC batches (its MCP revision has
	 * them: client_batch.h)?  Optional: no.
	 */
	int	 (*batches)(void *arg);
};

void	 client_accept(struct mcpd *, int fd);
/* Queue a message (takes ownership). */
void	 client_send_json(struct client *, cJSON *msg);
void	 client_send_error(struct client *, const cJSON *id, int code,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Queue a message given as pieces; the newline is added. */
void	 client_queue_iov(struct client *, const struct iovec *, int);
void	 client_pause(struct client *);
void	 client_resume(struct client *);
/* Attached to a server or a group: its lines go to h first. */
void	 client_set_session(struct client *, const struct client_handler *h,
	    void *arg);
/* Attached to a server or a group. */
int	 client_is_attached(const struct client *);
/* Mark it dead, to be freed from a deferred event (as client_lost). */
void	 client_close(struct client *, const char *reason);
int	 client_is_dead(const struct client *);
/* Connections in the order they came, dead ones included (logs.c). */
struct client *client_first(struct mcpd *);
struct client *client_next(struct client *);
/* The servers it follows (mcpctl logs -f), a set logs.c handles. */
struct follow_set *client_follows(struct client *);
void	 client_queue_text(struct client *, const char *, size_t);
uint64_t client_serial(const struct client *);
/* Whose tasks it reaches (router.h's peer principal). */
uint64_t client_principal(const struct client *);
/* A bridge's principal, presented (hex) or new (NULL): 0, or -1. */
int	 client_claim_principal(struct client *, const char *presented,
	    char hex[33]);
/* An HTTP session of a token, said by mcpd-http: 0, or -1 and why. */
int	 client_claim_http_token(struct client *, const char *token,
	    char **why);
/* Who the app on the other end is (ident.h); never NULL. */
const struct ident *client_ident(const struct client *);
/* It attached as mcpctl connect: the app above it is the ident now. */
void	 client_ident_bridge(struct client *);
/* What the router calls of a connection (router.h): router_attach's. */
extern const struct router_peer client_router_peer;
/* What a group session calls of it (group.h): group_attach's. */
extern const struct group_peer client_group_peer;
void	 client_close_all(struct mcpd *);
void	 client_free_all(struct mcpd *);
uid_t	 client_uid(const struct client *);
/* mcpd's own uid or root, as opposed to a member of socket_group. */
int	 client_is_admin(const struct client *);
pid_t	 client_pid(const struct client *);
/* Its socket, for what the kernel says of the peer (SO_PEERPIDFD). */
int	 client_fd(const struct client *);

#endif /* MCPD_CLIENT_H */
