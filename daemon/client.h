/*
 * client.h -- one connection on the control socket.
 *
 * Reads newline-delimited JSON-RPC, answers bad input with the JSON-RPC
 * error the spec asks for, hands mcpd/ methods to control.c.  A client is
 * never freed inside its own callback: client_lost marks it dead and a
 * deferred event frees it.
 */
#ifndef MCPD_CLIENT_H
#define MCPD_CLIENT_H

#include <sys/types.h>

#include <cjson/cJSON.h>

#define CLIENT_MAX_MESSAGE_BYTES	(16 * 1024 * 1024)
#define CLIENT_OBUF_HARD_BYTES		(64 * 1024 * 1024)

struct mcpd;
struct client;

void	 client_accept(struct mcpd *, int fd);
/* Queue a message (takes ownership). */
void	 client_send_json(struct client *, cJSON *msg);
void	 client_send_error(struct client *, const cJSON *id, int code,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void	 client_close_all(struct mcpd *);
void	 client_free_all(struct mcpd *);
uid_t	 client_uid(const struct client *);
pid_t	 client_pid(const struct client *);

#endif /* MCPD_CLIENT_H */
