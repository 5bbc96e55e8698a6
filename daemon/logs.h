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
 *
 * The ring, the journal and the count are logs_ring.c's, below the
 * worker that feeds them; this file is the followers', told of each
 * line and of a server's end through struct logs_followers.
 */
#ifndef MCPD_LOGS_H
#define MCPD_LOGS_H

#include <stddef.h>
#include <stdint.h>

#include "logs_ring.h"

struct client;
struct mcpd;

/* What logs.c tells the followers (mcpd.c hands it to the ring). */
extern const struct logs_followers logs_followers;

/* The connection follows the server; following twice is following once. */
void		 logs_follow(struct mcpd *, struct client *, uint64_t serial);
/* The connection is being freed: it follows nothing any more. */
void		 logs_unfollow_all(struct mcpd *, struct client *);
/* How many connections follow some server's stderr. */
size_t		 logs_following(const struct mcpd *);

#endif /* MCPD_LOGS_H */
