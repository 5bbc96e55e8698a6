/*
 * flow.h -- how much mcpd-remote sends one remote at once, and how much
 * waits for its turn.
 *
 * A remote that never answers, or that floods the worker with requests
 * of its own and then never accepts the answers, must not make it open
 * connections or hold memory without bound.  So messages to the remote
 * go through two pools of slots: the local side's requests
 * (FLOW_REQUESTS_INFLIGHT_MAX), and everything else -- responses to the
 * remote's requests and notifications (FLOW_OTHERS_INFLIGHT_MAX) -- so
 * that a flood of the remote's own requests never holds up the client's
 * calls, nor the other way round.  A message takes a slot when it is
 * handed to the transport (or to OAuth for a token) and keeps it, through
 * retries and a rebuilt session, until it is freed: answered, failed,
 * timed out or accepted.  mcpd-remote's own requests (a session rebuilt)
 * take none.
 *
 * A message that finds its pool full waits, in order (the session holds
 * it).  At most FLOW_WAITING_MAX messages wait, of FLOW_WAITING_BYTES
 * together (one message of any size may wait alone); a new message beyond
 * that is refused: a request gets error -32015 at once, a response or a
 * notification is dropped.  Refusals, and what the session drops on a
 * timeout, are logged through a token bucket with a count of the rest.
 */
#ifndef MCPD_FLOW_H
#define MCPD_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "ratelim.h"

/* (The fuzz target sets smaller ones, to reach them within its input.) */
#ifndef FLOW_REQUESTS_INFLIGHT_MAX
#define FLOW_REQUESTS_INFLIGHT_MAX	64
#endif
#ifndef FLOW_OTHERS_INFLIGHT_MAX
#define FLOW_OTHERS_INFLIGHT_MAX	16
#endif
#ifndef FLOW_WAITING_MAX
#define FLOW_WAITING_MAX		1024
#endif
#define FLOW_WAITING_BYTES		(32 * 1024 * 1024)

struct rmsg;

/* A message's pool (rmsg.slot: the one it holds a slot of, or none). */
enum flow_pool {
	FLOW_NONE = 0,
	FLOW_REQUESTS,
	FLOW_OTHERS,
	FLOW_POOLS
};

struct flow {
	size_t		inflight[FLOW_POOLS];
	size_t		waiting[FLOW_POOLS];
	size_t		waiting_total;
	size_t		waiting_bytes;
	struct ratelim	notes;		/* refusals and drops logged */
};

void	flow_init(struct flow *);
/*
 * m may go to the remote now: it holds a slot, takes none, or its pool
 * has one free and nothing of that pool waits before it.
 */
int	flow_may_go(const struct flow *, const struct rmsg *);
/* m goes: it takes its slot (and stops waiting). */
void	flow_go(struct flow *, struct rmsg *);
/* m, new, may wait for a slot (the queue is not full). */
int	flow_may_wait(const struct flow *, const struct rmsg *);
/* m is held: it waits, unless it holds a slot already. */
void	flow_wait(struct flow *, struct rmsg *);
/*
 * m is freed: its slot and its place in the queue are given back.
 * Returns 1 if a slot came free that a waiting message can take.
 */
int	flow_done(struct flow *, struct rmsg *);
/* "N requests in flight to the remote and M messages waiting". */
char	*flow_describe(const struct flow *);
/* Log a refusal or a drop, rate limited (then counted and said later). */
void	flow_note(struct flow *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif /* MCPD_FLOW_H */
