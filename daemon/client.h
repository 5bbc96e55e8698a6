/*
 * client.h -- one connection on the control socket.
 *
 * Reads newline-delimited JSON-RPC, answers bad input with the JSON-RPC
 * error the spec asks for, hands mcpd/ methods to control.c.  A client is
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

struct attachment;
struct envelope_edit;
struct follow_set;
struct group_session;
struct iovec;
struct mcpd;
struct client;
struct router_peer;

void	 client_accept(struct mcpd *, int fd);
/* Queue a message (takes ownership). */
void	 client_send_json(struct client *, cJSON *msg);
void	 client_send_error(struct client *, const cJSON *id, int code,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Queue a message given as pieces; the newline is added. */
void	 client_queue_iov(struct client *, const struct iovec *, int);
void	 client_pause(struct client *);
void	 client_resume(struct client *);
void	 client_attach(struct client *, struct attachment *);
struct attachment *client_attachment(const struct client *);
/* Attached to a group instead (group.h). */
void	 client_attach_group(struct client *, struct group_session *);
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
/* What the router calls of a connection (router.h): router_attach's. */
extern const struct router_peer client_router_peer;
void	 client_close_all(struct mcpd *);
void	 client_free_all(struct mcpd *);
uid_t	 client_uid(const struct client *);
/* mcpd's own uid or root, as opposed to a member of socket_group. */
int	 client_is_admin(const struct client *);
pid_t	 client_pid(const struct client *);

#endif /* MCPD_CLIENT_H */
