/*
 * bsess.h -- what `mcpctl connect` remembers of its client's MCP session,
 * so that a new connection to mcpd can carry the same session on (pure:
 * no I/O; the bridge does the reading and writing).
 *
 * The bridge scans every line with envelope_scan and shows it here, once,
 * in the order it passes.  The session keeps:
 * - the client's initialize request, verbatim, and mcpd's result for it;
 *   whether the client sent notifications/initialized;
 * - the resource URIs the client subscribed to (subscribe minus
 *   unsubscribe), at most BSESS_MAX_SUBS;
 * - the last logging/setLevel level;
 * - which of the tools, prompts and resources lists the client asked for;
 * - the client's requests in flight (sent on, not yet answered), at most
 *   BSESS_MAX_INFLIGHT, and mcpd's requests to the client in flight;
 * - the client's open subscriptions/listen requests (MCP 2026-07-28: a
 *   stream that stays in flight until the client cancels it), verbatim,
 *   at most BSESS_MAX_LISTENS of at most BSESS_LISTEN_MAX_BYTES each and
 *   BSESS_LISTENS_MAX_BYTES in all; a listen past a bound is an ordinary
 *   request in flight.  A listen is forgotten when the client cancels it
 *   (notifications/cancelled) or mcpd answers it (result or error);
 * - the bridge's own requests on the new connection (the replay), whose
 *   replies the client never sees.
 *
 * A 2026-07-28 client sends no initialize: each request carries what it
 * is.  Its session is replayed without one: its listens, under their own
 * ids, and nothing waits for an answer (the outcome stays NONE).
 *
 * Promises: memory is bounded by the counts above and by the lengths of
 * the lines shown; a line is never kept except the one initialize and the
 * open listens; ids are compared as raw JSON text (mcpd returns each id
 * exactly as it was sent), except the subscriptionId of a listen's
 * acknowledgement, which mcpd writes itself and which is compared as the
 * string or integer it is.  Nothing here allocates for a line that is
 * neither a request nor a reply, nor for an id of up to 16 bytes (hmap
 * keeps those inline).
 */
#ifndef MCPD_BSESS_H
#define MCPD_BSESS_H

#include <stddef.h>

#include "envelope.h"
#include "hmap.h"

/* As mcpd's default client_max_inflight and client_max_subscriptions. */
#define BSESS_MAX_INFLIGHT	4096
#define BSESS_MAX_SUBS		4096
/* Longer ids are not tracked (mcpd refuses them: ROUTER_ID_MAX_BYTES). */
#define BSESS_ID_MAX_BYTES	1024
#define BSESS_URI_MAX_BYTES	8192
#define BSESS_LEVEL_MAX_BYTES	64
/* The open subscriptions/listen requests kept to replay (as the subs). */
#define BSESS_MAX_LISTENS	BSESS_MAX_SUBS
#define BSESS_LISTEN_MAX_BYTES	(64 * 1024)
/* All of them: a replay always fits in the bridge's buffer. */
#define BSESS_LISTENS_MAX_BYTES	(4 * 1024 * 1024)
/* The bridge's own ids are JSON strings with this prefix and a number. */
#define BSESS_ID_PREFIX		"mcpctl-bridge:"

/* Which lists the client asked for (bsess_lists). */
#define BSESS_LIST_TOOLS	0x1
#define BSESS_LIST_PROMPTS	0x2
#define BSESS_LIST_RESOURCES	0x4

enum bsess_verdict {
	BSESS_FORWARD,		/* send the line on */
	BSESS_DROP,		/* from the client: a reply to a request of a
				   connection that was lost */
	BSESS_SWALLOW,		/* from mcpd: a reply to the bridge's own */
};

/* What the replayed initialize found (bsess_replay_outcome). */
enum bsess_init {
	BSESS_INIT_NONE,	/* no replay under way */
	BSESS_INIT_PENDING,	/* its reply has not come */
	BSESS_INIT_SAME,	/* as before: carry on */
	BSESS_INIT_CHANGED,	/* capabilities or serverInfo differ */
	BSESS_INIT_VERSION,	/* another protocolVersion: cannot go on */
	BSESS_INIT_ERROR,	/* an error, or a result that is not one */
};

struct bsess;

struct bsess	*bsess_new(void);
void		 bsess_free(struct bsess *);

/* What bsess_from_client says of a request it could not keep whole. */
#define BSESS_UNTRACKED		1	/* too many in flight, or a long id */
#define BSESS_UNREPLAYABLE	2	/* a listen past a bound: an ordinary
					   request, failed at a loss */

/*
 * A line from the client, scanned into env (ok: the scan succeeded).
 * FORWARD or DROP.  *untracked is 0, or BSESS_UNTRACKED or
 * BSESS_UNREPLAYABLE when the line is a request that could not be kept.
 */
enum bsess_verdict bsess_from_client(struct bsess *, const char *line,
	    size_t len, const struct envelope *env, int ok, int *untracked);
/*
 * A line from mcpd.  FORWARD or SWALLOW (a reply to the bridge's own, or
 * the acknowledgement of a replayed listen whose client had one).
 */
enum bsess_verdict bsess_from_server(struct bsess *, const char *line,
	    size_t len, const struct envelope *env, int ok);

/*
 * How many of the client's requests are in flight (the listens kept to
 * replay are not among them).
 */
size_t		 bsess_inflight(const struct bsess *);
/*
 * Walk the client's requests in flight: bsess_inflight_first, then
 * bsess_inflight_next until it returns 0.  *id points into the session
 * until it changes.  The same for the listens kept to replay.
 */
struct bsess_iter {
	struct hmap_iter	 it;
};
void		 bsess_inflight_first(const struct bsess *,
		    struct bsess_iter *);
int		 bsess_inflight_next(struct bsess_iter *, const char **id,
		    size_t *idlen);
size_t		 bsess_listens(const struct bsess *);
void		 bsess_listen_first(const struct bsess *, struct bsess_iter *);
int		 bsess_listen_next(struct bsess_iter *, const char **id,
		    size_t *idlen);

/*
 * The connection to mcpd was lost: forget the client's requests in flight
 * (the bridge has answered them; the listens are kept, to be replayed),
 * make mcpd's requests to the client stale (the client's late replies are
 * then DROPped), forget the bridge's own requests.  Returns how many of
 * mcpd's requests went stale.
 */
size_t		 bsess_lost(struct bsess *);

/*
 * The lines that set a new connection up as the old one was, each ending
 * in a newline: initialize (the client's, with an id of the bridge's own),
 * notifications/initialized, a resources/subscribe per URI and
 * logging/setLevel, when the client's initialize was answered; then each
 * open listen as the client sent it, in the order it did.  Returns a
 * malloc'd text and its length in *len, or NULL when there is nothing to
 * replay.  The outcome becomes PENDING if an initialize is replayed, else
 * NONE.
 */
char		*bsess_replay(struct bsess *, size_t *len);
enum bsess_init	 bsess_replay_outcome(const struct bsess *);
/* Which lists the client asked for: BSESS_LIST_* bits. */
unsigned	 bsess_lists(const struct bsess *);
/* The URIs subscribed, for messages and tests. */
size_t		 bsess_subs(const struct bsess *);
/* The level set last, as JSON text ("" if none). */
const char	*bsess_level(const struct bsess *);

/*
 * Compare two initialize results (JSON text of the result objects):
 * SAME, CHANGED (capabilities or serverInfo differ), VERSION
 * (protocolVersion differs) or ERROR (either is not an object).
 */
enum bsess_init	 bsess_init_compare(const char *before, size_t before_len,
		    const char *after, size_t after_len);

/*
 * Write a JSON-RPC error reply to id (raw JSON text) with code and
 * message (plain ASCII, no quotes or backslashes), newline included,
 * into buf.  Returns its length, or 0 if it does not fit in size.
 */
size_t		 bsess_error_line(char *buf, size_t size, const char *id,
		    size_t idlen, int code, const char *message);

#endif /* MCPD_BSESS_H */
