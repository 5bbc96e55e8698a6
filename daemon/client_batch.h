/*
 * client_batch.h -- a connection's JSON-RPC batches (MCP 2025-03-26,
 * whose implementations must take them; later revisions have none).
 *
 * A batch's messages are handed on one by one, as lines of their own,
 * to whatever takes the connection's lines; the answers they get, as the
 * session sends them, are held and go out as one array once the last is
 * in (notifications and replies get none: a batch of only those gets no
 * answer at all).  Everything else the session sends passes as ever.
 *
 * An answer is the batch's when it answers a request of the batch by
 * its id (the text the client wrote), or has a null id and comes while
 * the batch's messages are being handed on (an invalid message's).  A
 * request the client cancels (notifications/cancelled) is answered by
 * nobody, so the batch stops waiting for it.  What a batch holds is
 * counted in mcpd's memory budget; the connection bounds it as its
 * output (client_batches_held).
 */
#ifndef MCPD_CLIENT_BATCH_H
#define MCPD_CLIENT_BATCH_H

#include <stddef.h>

struct client_batches;
struct iovec;
struct mcpd;

/*
 * A connection's batches; send writes a finished batch's answer (or a
 * batch's one error) to it, past client_batches_take.
 */
struct client_batches *client_batches_new(struct mcpd *,
		    void (*send)(void *arg, const char *text, size_t len),
		    void *arg);
void		 client_batches_free(struct client_batches *);
/*
 * A batch from the client, line[0, len) (batch_is): each message to
 * handle(arg, ...) in turn, as a line.
 */
void		 client_batches_run(struct client_batches *,
		    const char *line, size_t len,
		    void (*handle)(void *arg, const char *line, size_t len),
		    void *arg);
/* A message to the client: 1 if a batch took it, as one of its answers. */
int		 client_batches_take(struct client_batches *,
		    const struct iovec *, int);
/* A line from the client (not in a batch): its cancellations. */
void		 client_batches_heard(struct client_batches *,
		    const char *line, size_t len);
/* Is a batch still waiting for answers? */
int		 client_batches_open(const struct client_batches *);
/* The bytes of answers held. */
size_t		 client_batches_held(const struct client_batches *);

#endif /* MCPD_CLIENT_BATCH_H */
