/*
 * ratelim.h -- a token bucket for what goes to the journal (pure: the
 * caller passes the monotonic time).
 *
 * The bucket holds up to burst tokens and gains per_s a second; each
 * thing let through takes one.  What the bucket refuses is counted, so
 * the caller can say how much it left out once something passes again
 * (ratelim_take_suppressed).  A bucket starts full.  Time going backwards
 * (a caller's mistake) adds nothing.  Tokens are counted in millionths,
 * so a rate given to the millitoken a second is kept exactly however
 * often the bucket is asked.
 */
#ifndef MCPD_RATELIM_H
#define MCPD_RATELIM_H

#include <stdint.h>

struct ratelim_policy {
	double		per_s;		/* tokens gained a second */
	double		burst;		/* tokens held at most */
};

struct ratelim {
	uint64_t	utokens;	/* millionths of a token: no drift */
	uint64_t	last_ms;
	uint64_t	suppressed;	/* refused since the last take */
};

void		ratelim_init(struct ratelim *, const struct ratelim_policy *,
		    uint64_t now_ms);
/* 1: let it through (a token taken); 0: refused and counted. */
int		ratelim_allow(struct ratelim *, const struct ratelim_policy *,
		    uint64_t now_ms);
/* How many were refused since the last call; the count starts again. */
uint64_t	ratelim_take_suppressed(struct ratelim *);

#endif /* MCPD_RATELIM_H */
