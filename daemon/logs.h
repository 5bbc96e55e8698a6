/*
 * logs.h -- a server's stderr: its recent lines, the journal, followers.
 *
 * One struct logs per server keeps the last lines in a ring (mcpctl logs),
 * sends each new line to the journal, rate limited, and offers it to the
 * connections that follow the server (mcpctl logs -f).  Following is a
 * property of the connection: its follow set (follow.h) holds the serials
 * of the servers it follows, never reused, and neither a server nor its
 * logs point at a follower.  logs_free takes the serial out of every set
 * and closes the connections that followed only that server.  logs.c owns
 * the count of connections that follow anything (mcpd->logs_pool).
 */
#ifndef MCPD_LOGS_H
#define MCPD_LOGS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct client;
struct logs;
struct mcpd;

/* serial: never given to another server while mcpd runs. */
struct logs	*logs_new(struct mcpd *, const char *name, uint64_t serial);
/* The server is gone: a connection that followed only it is closed. */
void		 logs_free(struct logs *, const char *reason);
/* A stderr line (total bytes: more than len when it was cut). */
void		 logs_line(struct logs *, const char *line, size_t len,
		    size_t total);
/* The last n lines, oldest first, as mcpd/logs answers them. */
cJSON		*logs_json(const struct logs *, size_t n);
uint64_t	 logs_serial(const struct logs *);
/* Lines seen since the server was configured (status: stderr_lines). */
uint64_t	 logs_count(const struct logs *);
/* A re-exec: the recent lines and the count, handed over and taken. */
struct handover_server;
void		 logs_export(const struct logs *, struct handover_server *);
void		 logs_adopt(struct logs *, const struct handover_server *);

/* The connection follows the server; following twice is following once. */
void		 logs_follow(struct mcpd *, struct client *, uint64_t serial);
/* The connection is being freed: it follows nothing any more. */
void		 logs_unfollow_all(struct mcpd *, struct client *);
/* How many connections follow some server's stderr. */
size_t		 logs_following(const struct mcpd *);

#endif /* MCPD_LOGS_H */
