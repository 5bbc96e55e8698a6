/*
 * client_int.h -- what client.c shares with client_peer.c (the peer
 * tables) and client_who.c (who a connection is), and nothing else.
 */
#ifndef MCPD_CLIENT_INT_H
#define MCPD_CLIENT_INT_H

#include <stddef.h>
#include <stdint.h>

struct client;
struct ident;
struct mcpd;

/*
 * Who a connection is to mcpd, in its struct client; client_who.c
 * changes it after the accept.
 */
struct client_who {
	/*
	 * Whose tasks it reaches: its own, the serial, unless it presents
	 * a bridge's principal or is an HTTP token's session.
	 */
	uint64_t	 principal;
	int		 principal_lasts; /* a bridge's or a token's */
	/*
	 * The app on the other end (ident.h); for mcpctl, the app above it
	 * too, which its mcpd/attach as a bridge makes the ident.
	 */
	struct ident	*ident;
	struct ident	*bridge_app;
};

struct client_who *client_who(struct client *);
struct mcpd	*client_mcpd(const struct client *);
int		 client_fd(const struct client *);
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
