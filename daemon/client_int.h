/*
 * client_int.h -- what client.c shares with client_peer.c (the peer
 * tables) and nothing else.
 */
#ifndef MCPD_CLIENT_INT_H
#define MCPD_CLIENT_INT_H

#include <stddef.h>

struct client;
struct envelope_edit;
struct iovec;

/* Mark it dead, to be freed from a deferred event. */
void	 client_lost(struct client *, const char *reason);
/* A line with one edit applied, queued. */
void	 client_queue_edit(struct client *, const char *line, size_t len,
	    const struct envelope_edit *);
/* Pieces queued, those inside mem (taken, size bytes) by reference. */
void	 client_queue_iov_owned(struct client *, const struct iovec *,
	    int iovcnt, void *mem, size_t size);
/* Its router has nothing more pending for it. */
void	 client_idle(struct client *);
/* Its session is gone (a server removed): closed. */
void	 client_detached(struct client *, const char *reason);
/* Does its principal outlive it (a bridge's)? */
int	 client_principal_lasts(const struct client *);

#endif /* MCPD_CLIENT_INT_H */
