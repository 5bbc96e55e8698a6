/*
 * client_modern.h -- a connection whose client speaks MCP 2026-07-28,
 * served over the 2025 session of the server or group it attached to.
 *
 * It sits between the connection (client.c) and the session handler: the
 * client's lines come in through modern_in, what the session sends the
 * client goes out through modern_out, and the layer speaks 2025 to the
 * session on the client's behalf (an initialize of its own, the server's
 * requests answered from the client's retries).  A connection is modern
 * from its first request that carries 2026's _meta (or server/discover)
 * and is never looked at again once it sent initialize.
 */
#ifndef MCPD_CLIENT_MODERN_H
#define MCPD_CLIENT_MODERN_H

#include <stddef.h>
#include <stdint.h>

struct envelope;
struct iovec;
struct mcpd;
struct modern;

/* What the layer calls of its connection. */
struct modern_io {
	/*
	 * A line to the session, as if the client had sent it; env: its
	 * scan, or NULL.
	 */
	void		 (*to_session)(void *arg, const char *line,
			    size_t len, const struct envelope *env);
	/* A line to the client (newline added). */
	void		 (*to_client)(void *arg, const struct iovec *,
			    int iovcnt);
	uint64_t	 (*principal)(void *arg);
};

enum modern_open {
	MODERN_OPEN_NOT_YET,	/* neither: look at the next line too */
	MODERN_OPEN_LEGACY,	/* initialize: 2025, never look again */
	MODERN_OPEN_MODERN,	/* *m made; the line is its */
};
/* The first lines of an attached connection. */
enum modern_open modern_open(struct mcpd *, const char *line, size_t len,
		    const struct modern_io *, void *arg, struct modern **m);
/*
 * A line from the client: 1 taken, 0 when the client opens a 2025
 * session after all (initialize with nothing of 2026 in flight): free
 * the layer and hand the line to the session.
 */
int		 modern_in(struct modern *, const char *line, size_t len);
/* A line the session sends the client, whole or in pieces. */
void		 modern_out(struct modern *, const char *line, size_t len);
void		 modern_out_iov(struct modern *, const struct iovec *,
		    int iovcnt);
void		 modern_free(struct modern *);

#endif /* MCPD_CLIENT_MODERN_H */
