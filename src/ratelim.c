/*
 * ratelim.c -- a token bucket for the journal (ratelim.h).
 */
#include "config.h"

#include "ratelim.h"

#define RATELIM_UNIT	1000000.0	/* utokens in a token */

static uint64_t
ratelim_burst(const struct ratelim_policy *p)
{
	return ((uint64_t)(p->burst * RATELIM_UNIT + 0.5));
}

void
ratelim_init(struct ratelim *rl, const struct ratelim_policy *p,
    uint64_t now_ms)
{
	rl->utokens = ratelim_burst(p);
	rl->last_ms = now_ms;
	rl->suppressed = 0;
}

int
ratelim_allow(struct ratelim *rl, const struct ratelim_policy *p,
    uint64_t now_ms)
{
	uint64_t	burst = ratelim_burst(p);
	double		gained;

	if (rl->utokens > burst)
		rl->utokens = burst;
	if (now_ms > rl->last_ms) {
		/* In floating point first: a long quiet overflows nothing. */
		gained = (double)(now_ms - rl->last_ms) * p->per_s *
		    (RATELIM_UNIT / 1000.0);
		if (gained >= (double)(burst - rl->utokens))
			rl->utokens = burst;
		else
			rl->utokens += (uint64_t)(gained + 0.5);
		rl->last_ms = now_ms;
	}
	if (rl->utokens < (uint64_t)RATELIM_UNIT) {
		rl->suppressed++;
		return (0);
	}
	rl->utokens -= (uint64_t)RATELIM_UNIT;
	return (1);
}

uint64_t
ratelim_take_suppressed(struct ratelim *rl)
{
	uint64_t	n = rl->suppressed;

	rl->suppressed = 0;
	return (n);
}
